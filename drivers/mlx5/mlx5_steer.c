/* SPDX-License-Identifier: MIT */
/*
 * Receive steering (hw-docs/mlx5.md §11): NIC_RX root flow table -> TIR
 * -> (RQT ->) RQ.
 *
 *   flow index 0 .. MLX5_MAX_FLOWS-1     n-tuple rules, one group each
 *                                        (a group has one mask; a rule's
 *                                        wildcards are its own mask), to
 *                                        the direct TIR of the rule's queue
 *   MLX5_MAX_FLOWS + 0..5                RSS: IPv4/IPv6 x TCP/UDP, then
 *                                        IPv4, IPv6, to Toeplitz TIRs over
 *                                        the RQT, for the kinds asked for
 *   MLX5_MAX_FLOWS + 6                   catch-all (ARP, ...): queue 0
 *
 * Entries are tried in increasing flow index, so rules win over RSS and
 * L4 RSS kinds over L3-only ones. Rules belong to the port: stop takes them
 * out of the device, start puts them back.
 */
#include <errno.h>
#include <string.h>

#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

#define RSS_FTE_BASE	MLX5_MAX_FLOWS
#define CATCH_ALL	MLX5_RSS_KINDS
#define IPPROTO_TCP_	6
#define IPPROTO_UDP_	17

_Static_assert(RSS_FTE_BASE + MLX5_RSS_KINDS + 1 <= (1u << MLX5_FT_LOG_SIZE), "table fits");

/* RSS kinds in flow-index order: L4 before L3-only. */
static const struct {
	uint32_t zn;		/* ZN_RSS_* */
	uint8_t ipv, proto;
	uint32_t sel;		/* selected fields */
} kinds[MLX5_RSS_KINDS] = {
	{ ZN_RSS_IPV4_TCP, 4, IPPROTO_TCP_, 0xf },
	{ ZN_RSS_IPV4_UDP, 4, IPPROTO_UDP_, 0xf },
	{ ZN_RSS_IPV6_TCP, 6, IPPROTO_TCP_, 0xf },
	{ ZN_RSS_IPV6_UDP, 6, IPPROTO_UDP_, 0xf },
	{ ZN_RSS_IPV4, 4, 0, ZN_MLX5_HASH_SEL_SRC_IP | ZN_MLX5_HASH_SEL_DST_IP },
	{ ZN_RSS_IPV6, 6, 0, ZN_MLX5_HASH_SEL_SRC_IP | ZN_MLX5_HASH_SEL_DST_IP },
};

static const uint8_t default_key[ZN_RSS_KEY_LEN] = {	/* Microsoft's RSS verification key */
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

uint32_t zn_mlx5_rss_table_size(const struct mlx5 *m)
{
	uint32_t cap = m->caps.log_max_rqt_size < 16 ? 1u << m->caps.log_max_rqt_size : 65536;

	return cap < MLX5_RSS_TABLE_DFLT ? cap : MLX5_RSS_TABLE_DFLT;
}

void zn_mlx5_rss_default(const struct mlx5 *m, struct zn_rss_conf *rss)
{
	uint32_t n = zn_mlx5_rss_table_size(m);

	memset(rss, 0, sizeof(*rss));
	memcpy(rss->key, default_key, sizeof(default_key));
	rss->hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV4_TCP | ZN_RSS_IPV4_UDP | ZN_RSS_IPV6 |
			  ZN_RSS_IPV6_TCP | ZN_RSS_IPV6_UDP;
	rss->table_size = n;
	for (uint32_t i = 0; i < n; i++)
		rss->table[i] = (uint16_t)(i % (m->conf.nb_rxq ? m->conf.nb_rxq : 1));
}

int zn_mlx5_rss_check(const struct mlx5 *m, const struct zn_rss_conf *rss)
{
	const uint32_t known = ZN_RSS_IPV4 | ZN_RSS_IPV4_TCP | ZN_RSS_IPV4_UDP | ZN_RSS_IPV6 |
			       ZN_RSS_IPV6_TCP | ZN_RSS_IPV6_UDP;
	uint32_t n = zn_mlx5_rss_table_size(m);

	if (rss->hash_types & ~known) {
		ZN_ERR(MLX5_LOG, "%s: RSS hash types 0x%x: unknown bits 0x%x", m->name,
		       rss->hash_types, rss->hash_types & ~known);
		return -EINVAL;
	}
	if (!rss->table_size || rss->table_size > n || n % rss->table_size) {
		ZN_ERR(MLX5_LOG, "%s: RSS table of %u entries: it must divide %u", m->name,
		       rss->table_size, n);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < rss->table_size; i++)
		if (rss->table[i] >= m->conf.nb_rxq) {
			ZN_ERR(MLX5_LOG, "%s: RSS table entry %u names queue %u of %u", m->name,
			       i, rss->table[i], m->conf.nb_rxq);
			return -EINVAL;
		}
	return 0;
}

static int tir_create(struct mlx5 *m, const struct mlx5_rxq *direct, int kind, uint32_t *tirn)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_TIR_IN] = { 0 }, out[ZN_MLX5_SZ_CREATE_TIR_OUT];
	uint8_t *tirc = ZN_MLX5_ADDR(in, CREATE_TIR_IN_TIRC);
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_TIR);
	ZN_MLX5_SET(tirc, TIRC_TRANSPORT_DOMAIN, m->tdn);
	if (direct) {
		ZN_MLX5_SET(tirc, TIRC_DISP_TYPE, ZN_MLX5_TIRC_DISP_DIRECT);
		ZN_MLX5_SET(tirc, TIRC_INLINE_RQN, direct->rqn);
	} else {
		uint8_t *sel = ZN_MLX5_ADDR(tirc, TIRC_RX_HASH_FIELD_SELECTOR_OUTER);

		ZN_MLX5_SET(tirc, TIRC_DISP_TYPE, ZN_MLX5_TIRC_DISP_INDIRECT);
		ZN_MLX5_SET(tirc, TIRC_INDIRECT_TABLE, m->rqtn);
		ZN_MLX5_SET(tirc, TIRC_RX_HASH_FN, ZN_MLX5_RX_HASH_FN_TOEPLITZ);
		memcpy(ZN_MLX5_ADDR(tirc, TIRC_RX_HASH_TOEPLITZ_KEY), m->rss.key, ZN_RSS_KEY_LEN);
		ZN_MLX5_SET(sel, HASH_SEL_L3_PROT_TYPE,
			    kinds[kind].ipv == 4 ? ZN_MLX5_L3_PROT_IPV4 : ZN_MLX5_L3_PROT_IPV6);
		ZN_MLX5_SET(sel, HASH_SEL_L4_PROT_TYPE,
			    kinds[kind].proto == IPPROTO_UDP_ ? ZN_MLX5_L4_PROT_UDP : ZN_MLX5_L4_PROT_TCP);
		ZN_MLX5_SET(sel, HASH_SEL_SELECTED_FIELDS, kinds[kind].sel);
	}
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc == 0)
		*tirn = (uint32_t)ZN_MLX5_GET(out, CREATE_TIR_OUT_TIRN);
	return rc;
}

static int rqt_create(struct mlx5 *m)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_RQT_IN + ZN_MLX5_RQT_ENTRY_SIZE * MLX5_RSS_TABLE_DFLT];
	uint8_t out[ZN_MLX5_SZ_CREATE_RQT_OUT];
	uint8_t *rqtc = ZN_MLX5_ADDR(in, CREATE_RQT_IN_RQTC);
	uint8_t *nums = ZN_MLX5_ADDR(rqtc, RQTC_RQ_NUM);
	uint32_t n = zn_mlx5_rss_table_size(m);
	int rc;

	if (ZN_MLX5_SZ_CREATE_RQT_IN + ZN_MLX5_RQT_ENTRY_SIZE * n > sizeof(in))
		return -E2BIG;
	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_RQT);
	ZN_MLX5_SET(rqtc, RQTC_RQT_MAX_SIZE, n);
	ZN_MLX5_SET(rqtc, RQTC_RQT_ACTUAL_SIZE, n);
	for (uint32_t i = 0; i < n; i++)	/* the caller's table, repeated */
		zn_mlx5_st_be32(nums + ZN_MLX5_RQT_ENTRY_SIZE * i,
				m->rxq[m->rss.table[i % m->rss.table_size]]->rqn);
	rc = zn_mlx5_cmd(m, in, ZN_MLX5_SZ_CREATE_RQT_IN + ZN_MLX5_RQT_ENTRY_SIZE * n, out,
			 sizeof(out));
	if (rc < 0)
		return rc;
	m->rqtn = (uint32_t)ZN_MLX5_GET(out, CREATE_RQT_OUT_RQTN);
	m->rqt_live = true;
	return 0;
}

/* The outer-header match of a rule (masks or values): §11 fte_match_set_lyr_2_4. */
static void match_fill(uint8_t *param, const struct zn_flow_match *fm, bool mask)
{
	uint8_t *l = ZN_MLX5_ADDR(param, MATCH_OUTER_HEADERS);
	size_t alen = fm->ip_version == 4 ? 4 : 16;
	size_t aoff = fm->ip_version == 4 ? ZN_MLX5_MATCH_IPV4_IN_IP_OFF : 0;
	bool udp = fm->ip_proto == IPPROTO_UDP_;
	uint8_t ones[16];

	memset(ones, 0xff, sizeof(ones));
	if (fm->ip_version)
		ZN_MLX5_SET(l, L24_IP_VERSION, mask ? 0xf : fm->ip_version);
	if (fm->ip_proto)
		ZN_MLX5_SET(l, L24_IP_PROTOCOL, mask ? 0xff : fm->ip_proto);
	for (int dir = 0; dir < 2; dir++) {
		const uint8_t *ip = dir ? fm->dst_ip : fm->src_ip;
		uint8_t zero[16] = { 0 };

		if (!memcmp(ip, zero, alen))
			continue;
		memcpy((uint8_t *)(dir ? ZN_MLX5_ADDR(l, L24_DST_IP) : ZN_MLX5_ADDR(l, L24_SRC_IP)) +
		       aoff, mask ? ones : ip, alen);
	}
	/* Ports are network order in the match and in zn_flow_match. */
	if (fm->src_port) {
		uint16_t v = mask ? 0xffff : zn_mlx5_bswap16(fm->src_port);

		if (udp)
			ZN_MLX5_SET(l, L24_UDP_SPORT, v);
		else
			ZN_MLX5_SET(l, L24_TCP_SPORT, v);
	}
	if (fm->dst_port) {
		uint16_t v = mask ? 0xffff : zn_mlx5_bswap16(fm->dst_port);

		if (udp)
			ZN_MLX5_SET(l, L24_UDP_DPORT, v);
		else
			ZN_MLX5_SET(l, L24_TCP_DPORT, v);
	}
}

static int group_create(struct mlx5 *m, uint32_t index, const struct zn_flow_match *fm,
			uint32_t *group)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_FG_IN];
	uint8_t out[ZN_MLX5_SZ_CREATE_FG_OUT];
	int rc;

	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP);
	ZN_MLX5_SET(in, CREATE_FG_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, CREATE_FG_IN_TABLE_ID, m->ft_id);
	ZN_MLX5_SET(in, CREATE_FG_IN_START_FLOW_INDEX, index);
	ZN_MLX5_SET(in, CREATE_FG_IN_END_FLOW_INDEX, index);
	ZN_MLX5_SET(in, CREATE_FG_IN_MATCH_CRITERIA_ENABLE, ZN_MLX5_MATCH_OUTER_HEADERS);
	match_fill(ZN_MLX5_ADDR(in, CREATE_FG_IN_MATCH_CRITERIA), fm, true);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc == 0)
		*group = (uint32_t)ZN_MLX5_GET(out, CREATE_FG_OUT_GROUP_ID);
	return rc;
}

static int fte_set(struct mlx5 *m, uint32_t index, uint32_t group, const struct zn_flow_match *fm,
		   uint32_t tirn)
{
	uint8_t in[ZN_MLX5_SZ_SET_FTE_IN + ZN_MLX5_SZ_DEST_FORMAT];
	uint8_t out[ZN_MLX5_SZ_SET_FTE_OUT];
	uint8_t *fc = ZN_MLX5_ADDR(in, SET_FTE_IN_FLOW_CONTEXT);
	uint8_t *dest = ZN_MLX5_ADDR(fc, FLOW_CTX_DESTINATION);

	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_SET_FTE_OPMOD_NEW);
	ZN_MLX5_SET(in, SET_FTE_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, SET_FTE_IN_TABLE_ID, m->ft_id);
	ZN_MLX5_SET(in, SET_FTE_IN_FLOW_INDEX, index);
	ZN_MLX5_SET(fc, FLOW_CTX_GROUP_ID, group);
	ZN_MLX5_SET(fc, FLOW_CTX_FLOW_TAG, index + 1);
	ZN_MLX5_SET(fc, FLOW_CTX_ACTION, ZN_MLX5_FLOW_ACTION_FWD_DEST);
	ZN_MLX5_SET(fc, FLOW_CTX_DESTINATION_LIST_SIZE, 1);
	match_fill(ZN_MLX5_ADDR(fc, FLOW_CTX_MATCH_VALUE), fm, false);
	ZN_MLX5_SET(dest, DEST_TYPE, ZN_MLX5_FLOW_DEST_TIR);
	ZN_MLX5_SET(dest, DEST_ID, tirn);
	return zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
}

static void fte_del(struct mlx5 *m, uint32_t index, uint32_t group)
{
	uint8_t in[ZN_MLX5_SZ_DELETE_FTE_IN] = { 0 }, out[16];

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
	ZN_MLX5_SET(in, DELETE_FTE_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, DELETE_FTE_IN_TABLE_ID, m->ft_id);
	ZN_MLX5_SET(in, DELETE_FTE_IN_FLOW_INDEX, index);
	zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP);
	ZN_MLX5_SET(in, DESTROY_FG_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, DESTROY_FG_IN_TABLE_ID, m->ft_id);
	ZN_MLX5_SET(in, DESTROY_FG_IN_GROUP_ID, group);
	zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
}

/* One group + entry at index, or none of them. */
static int rule_install(struct mlx5 *m, uint32_t index, const struct zn_flow_match *fm,
			uint32_t tirn, uint32_t *group)
{
	int rc = group_create(m, index, fm, group);

	if (rc < 0)
		return rc;
	rc = fte_set(m, index, *group, fm, tirn);
	if (rc < 0) {
		uint8_t in[ZN_MLX5_SZ_DESTROY_FG_IN] = { 0 }, out[16];

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP);
		ZN_MLX5_SET(in, DESTROY_FG_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
		ZN_MLX5_SET(in, DESTROY_FG_IN_TABLE_ID, m->ft_id);
		ZN_MLX5_SET(in, DESTROY_FG_IN_GROUP_ID, *group);
		zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	}
	return rc;
}

static int flow_install(struct mlx5 *m, uint32_t slot);

static void rss_remove(struct mlx5 *m)
{
	for (int k = 0; k < MLX5_RSS_KINDS; k++) {
		if (m->rss_fte_live[k])
			fte_del(m, RSS_FTE_BASE + (uint32_t)k, m->rss_group[k]);
		m->rss_fte_live[k] = false;
		if (m->rss_tir_live[k])
			zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_TIR, m->rss_tirn[k]);
		m->rss_tir_live[k] = false;
	}
	if (m->rqt_live)
		zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_RQT, m->rqtn);
	m->rqt_live = false;
}

int zn_mlx5_rss_apply(struct mlx5 *m)
{
	int rc;

	if (!m->rss_set) {
		zn_mlx5_rss_default(m, &m->rss);
		m->rss_set = true;
	}
	rss_remove(m);
	rc = rqt_create(m);
	for (int k = 0; k < MLX5_RSS_KINDS && rc == 0; k++) {
		struct zn_flow_match fm = { .ip_version = kinds[k].ipv, .ip_proto = kinds[k].proto };

		if (!(m->rss.hash_types & kinds[k].zn))
			continue;
		rc = tir_create(m, NULL, k, &m->rss_tirn[k]);
		if (rc < 0)
			break;
		m->rss_tir_live[k] = true;
		rc = rule_install(m, RSS_FTE_BASE + (uint32_t)k, &fm, m->rss_tirn[k],
				  &m->rss_group[k]);
		m->rss_fte_live[k] = rc == 0;
	}
	return rc;
}

int zn_mlx5_steer_start(struct mlx5 *m)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_FT_IN] = { 0 }, out[ZN_MLX5_SZ_CREATE_FT_OUT];
	uint8_t *ftc = ZN_MLX5_ADDR(in, CREATE_FT_IN_FTC);
	struct zn_flow_match any = { 0 };
	int rc = 0;

	/* §4 step 19: a direct TIR per queue (rules and the catch-all land there). */
	for (uint16_t q = 0; q < m->conf.nb_rxq && rc == 0; q++) {
		rc = tir_create(m, m->rxq[q], 0, &m->rxq[q]->tirn);
		m->rxq[q]->tir_live = rc == 0;
	}
	if (rc < 0)
		return rc;
	/* §4 step 20: the table, RSS entries, the catch-all, then make it root. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE);
	ZN_MLX5_SET(in, CREATE_FT_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(ftc, FTC_TABLE_MISS_ACTION, ZN_MLX5_FT_MISS_ACTION_DEF);
	ZN_MLX5_SET(ftc, FTC_LEVEL, 0);
	ZN_MLX5_SET(ftc, FTC_LOG_SIZE, MLX5_FT_LOG_SIZE);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc < 0)
		return rc;
	m->ft_id = (uint32_t)ZN_MLX5_GET(out, CREATE_FT_OUT_TABLE_ID);
	m->ft_live = true;
	rc = zn_mlx5_rss_apply(m);
	if (rc == 0)
		rc = rule_install(m, RSS_FTE_BASE + CATCH_ALL, &any, m->rxq[0]->tirn,
				  &m->rss_group[CATCH_ALL]);
	if (rc < 0)
		return rc;
	m->rss_fte_live[CATCH_ALL] = true;
	for (uint32_t i = 0; i < MLX5_MAX_FLOWS && rc == 0; i++)
		if (m->flows[i].used)
			rc = flow_install(m, i);
	if (rc < 0)
		return rc;
	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	ZN_MLX5_SET(in, SET_FT_ROOT_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, SET_FT_ROOT_IN_TABLE_ID, m->ft_id);
	return zn_mlx5_cmd(m, in, ZN_MLX5_SZ_SET_FT_ROOT_IN, out, sizeof(out));
}

void zn_mlx5_steer_stop(struct mlx5 *m)
{
	for (uint32_t i = 0; i < MLX5_MAX_FLOWS; i++)
		if (m->flows[i].installed) {
			fte_del(m, i, m->flows[i].group_id);
			m->flows[i].installed = false;
		}
	if (m->rss_fte_live[CATCH_ALL])
		fte_del(m, RSS_FTE_BASE + CATCH_ALL, m->rss_group[CATCH_ALL]);
	m->rss_fte_live[CATCH_ALL] = false;
	rss_remove(m);
	if (m->ft_live) {
		uint8_t in[ZN_MLX5_SZ_DESTROY_FT_IN] = { 0 }, out[16];

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE);
		ZN_MLX5_SET(in, DESTROY_FT_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
		ZN_MLX5_SET(in, DESTROY_FT_IN_TABLE_ID, m->ft_id);
		zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
		m->ft_live = false;
	}
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++) {
		struct mlx5_rxq *r = m->rxq[q];

		if (r && r->tir_live)
			zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_TIR, r->tirn);
		if (r)
			r->tir_live = false;
	}
}

static int flow_install(struct mlx5 *m, uint32_t slot)
{
	struct mlx5_flow *f = &m->flows[slot];
	int rc;

	if (f->q >= m->conf.nb_rxq || !m->rxq[f->q]) {
		ZN_ERR(MLX5_LOG, "%s: flow rule %u names queue %u; the port has %u", m->name, slot,
		       f->q, m->conf.nb_rxq);
		return -EINVAL;
	}
	rc = rule_install(m, slot, &f->match, m->rxq[f->q]->tirn, &f->group_id);
	f->installed = rc == 0;
	return rc;
}

int zn_mlx5_flow_add(struct mlx5 *m, const struct zn_flow_match *fm, uint16_t q,
		     uint32_t *rule_id)
{
	uint32_t slot;
	int rc = 0;

	if (!m->configured || m->dead)
		return -EINVAL;
	if ((fm->ip_version != 4 && fm->ip_version != 6) || q >= m->conf.nb_rxq ||
	    ((fm->src_port || fm->dst_port) && fm->ip_proto != IPPROTO_TCP_ &&
	     fm->ip_proto != IPPROTO_UDP_)) {
		ZN_ERR(MLX5_LOG, "%s: flow rule: IP version %u (4 or 6), protocol %u (ports need "
		       "TCP or UDP), queue %u (< %u)", m->name, fm->ip_version, fm->ip_proto, q,
		       m->conf.nb_rxq);
		return -EINVAL;
	}
	for (slot = 0; slot < MLX5_MAX_FLOWS && m->flows[slot].used; slot++)
		;
	if (slot == MLX5_MAX_FLOWS) {
		ZN_ERR(MLX5_LOG, "%s: all %u flow rules are in use", m->name, MLX5_MAX_FLOWS);
		return -ENOSPC;
	}
	m->flows[slot] = (struct mlx5_flow){ .q = q, .match = *fm };
	if (m->started)
		rc = flow_install(m, slot);
	if (rc < 0)
		return rc;
	m->flows[slot].used = true;
	*rule_id = slot;
	return 0;
}

int zn_mlx5_flow_del(struct mlx5 *m, uint32_t rule_id)
{
	struct mlx5_flow *f;

	if (rule_id >= MLX5_MAX_FLOWS || !m->flows[rule_id].used)
		return -ENOENT;
	f = &m->flows[rule_id];
	if (f->installed)
		fte_del(m, rule_id, f->group_id);
	f->installed = false;
	f->used = false;
	return 0;
}
