/* SPDX-License-Identifier: MIT */
/*
 * Receive steering objects of the mlx5 model (hw-docs/mlx5.md 11): TIRs
 * (direct, or indirect through an RQT with a Toeplitz hash), RQTs, and the
 * NIC RX flow tables with their groups and entries. Matching itself is in
 * rx.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mlx5/priv.h"

struct msim_tir *msim_tir_get(struct msim *m, uint64_t n)
{
	return n > 0 && n < MSIM_MAX_OBJ && m->tir[n].used ? &m->tir[n] : NULL;
}

struct msim_rqt *msim_rqt_get(struct msim *m, uint64_t n)
{
	return n > 0 && n < MSIM_MAX_OBJ && m->rqt[n].used ? &m->rqt[n] : NULL;
}

/* ---- TIR ---- */

static int create_tir(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *ctx = ZN_MLX5_CADDR(c->in, CREATE_TIR_IN_TIRC);
	struct msim_tir t = { 0 }, *o = NULL;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_TIR_IN, ZN_MLX5_SZ_CREATE_TIR_OUT))
		return 0;
	t.disp = (uint8_t)ZN_MLX5_GET(ctx, TIRC_DISP_TYPE);
	t.hash_fn = (uint8_t)ZN_MLX5_GET(ctx, TIRC_RX_HASH_FN);
	t.sel = (uint32_t)ZN_MLX5_GET(ctx, TIRC_RX_HASH_FIELD_SELECTOR_OUTER);
	memcpy(t.key, ZN_MLX5_CADDR(ctx, TIRC_RX_HASH_TOEPLITZ_KEY), sizeof(t.key));
	if (ZN_MLX5_GET(ctx, TIRC_LRO_ENABLE_MASK))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "LRO not modelled");
	if (!ZN_MLX5_GET(ctx, TIRC_TRANSPORT_DOMAIN) ||
	    !msim_simple_get(m->td, MSIM_MAX_OBJ, ZN_MLX5_GET(ctx, TIRC_TRANSPORT_DOMAIN)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 2, "transport domain unknown");
	if (t.disp == ZN_MLX5_TIRC_DISP_DIRECT) {
		t.rqn = (uint32_t)ZN_MLX5_GET(ctx, TIRC_INLINE_RQN);
		if (!msim_rq_get(m, t.rqn))
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 3, "inline_rqn unknown");
	} else if (t.disp == ZN_MLX5_TIRC_DISP_INDIRECT) {
		t.rqtn = (uint32_t)ZN_MLX5_GET(ctx, TIRC_INDIRECT_TABLE);
		if (!msim_rqt_get(m, t.rqtn))
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 4,
					 "indirect_table unknown");
		if (t.hash_fn != ZN_MLX5_RX_HASH_FN_TOEPLITZ && t.hash_fn != ZN_MLX5_RX_HASH_FN_NONE)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 5,
					 "rx_hash_fn not Toeplitz");
	} else {
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 6, "disp_type not 0/1");
	}
	for (unsigned i = 1; i < MSIM_MAX_OBJ && !o; i++)
		if (!m->tir[i].used)
			o = &m->tir[i];
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 7, "all TIRs in use");
	slot = msim_slot_alloc(m, ctx, MSIM_CTX_SIZE);
	if (slot < 0)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 8, "no context pages");
	t.used = true;
	t.slot = slot;
	t.id = (uint32_t)(o - m->tir);
	if (t.disp == ZN_MLX5_TIRC_DISP_DIRECT)
		msim_rq_get(m, t.rqn)->users++;
	else
		msim_rqt_get(m, t.rqtn)->users++;
	*o = t;
	ZN_MLX5_SET(c->out, CREATE_TIR_OUT_TIRN, o->id);
	return 0;
}

static bool tir_in_use(const struct msim *m, uint32_t tirn)
{
	for (unsigned i = 0; i < MSIM_MAX_FTE; i++)
		if (m->fte[i].used && m->fte[i].tirn == tirn)
			return true;
	return false;
}

static int destroy_tir(struct msim *m, struct msim_cmd *c)
{
	struct msim_tir *t;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DESTROY_TIR_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	t = msim_tir_get(m, ZN_MLX5_GET(c->in, DESTROY_TIR_IN_TIRN));
	if (!t)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no such TIR");
	if (tir_in_use(m, t->id))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 2, "a flow entry uses it");
	if (t->disp == ZN_MLX5_TIRC_DISP_DIRECT) {
		struct msim_wq *rq = msim_rq_get(m, t->rqn);

		if (rq)
			rq->users--;
	} else {
		struct msim_rqt *r = msim_rqt_get(m, t->rqtn);

		if (r)
			r->users--;
	}
	msim_slot_free(m, t->slot);
	t->used = false;
	return 0;
}

/* ---- RQT ---- */

static void rqt_release(struct msim *m, struct msim_rqt *r)
{
	for (uint32_t i = 0; i < r->size; i++) {
		struct msim_wq *rq = msim_rq_get(m, r->rqn[i]);

		if (rq)
			rq->users--;
	}
	free(r->rqn);
	r->rqn = NULL;
}

static int create_rqt(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *ctx = ZN_MLX5_CADDR(c->in, CREATE_RQT_IN_RQTC);
	const uint8_t *list = ZN_MLX5_CADDR(ctx, RQTC_RQ_NUM);
	uint32_t n, max;
	struct msim_rqt *o = NULL;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_RQT_IN, ZN_MLX5_SZ_CREATE_RQT_OUT))
		return 0;
	n = (uint32_t)ZN_MLX5_GET(ctx, RQTC_RQT_ACTUAL_SIZE);
	max = (uint32_t)ZN_MLX5_GET(ctx, RQTC_RQT_MAX_SIZE);
	if (!n || (n & (n - 1)) || n > 1024 || n > max)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1,
				 "actual size not a power of two <= max and 2^10");
	if (c->inlen < ZN_MLX5_SZ_CREATE_RQT_IN + (size_t)ZN_MLX5_RQT_ENTRY_SIZE * n)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR, 2, "rq_num[] short");
	for (uint32_t i = 0; i < n; i++)
		if (!msim_rq_get(m, zn_mlx5_ld_be32(list + 4 * i) & 0xffffff))
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 3, "an RQ is unknown");
	for (unsigned i = 1; i < MSIM_MAX_OBJ && !o; i++)
		if (!m->rqt[i].used)
			o = &m->rqt[i];
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 4, "all RQTs in use");
	memset(o, 0, sizeof(*o));
	o->rqn = calloc(n, sizeof(*o->rqn));
	if (!o->rqn)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 5, "no memory");
	slot = msim_slot_alloc(m, ctx, MSIM_CTX_SIZE);
	if (slot < 0) {
		free(o->rqn);
		o->rqn = NULL;
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 6, "no context pages");
	}
	o->used = true;
	o->slot = slot;
	o->id = (uint32_t)(o - m->rqt);
	o->size = n;
	for (uint32_t i = 0; i < n; i++) {
		o->rqn[i] = zn_mlx5_ld_be32(list + 4 * i) & 0xffffff;
		msim_rq_get(m, o->rqn[i])->users++;
	}
	ZN_MLX5_SET(c->out, CREATE_RQT_OUT_RQTN, o->id);
	return 0;
}

static int destroy_rqt(struct msim *m, struct msim_cmd *c)
{
	struct msim_rqt *r;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DESTROY_RQT_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	r = msim_rqt_get(m, ZN_MLX5_GET(c->in, DESTROY_RQT_IN_RQTN));
	if (!r)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no such RQT");
	if (r->users)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 2, "a TIR uses it");
	rqt_release(m, r);
	msim_slot_free(m, r->slot);
	r->used = false;
	return 0;
}

/* ---- flow tables ---- */

static struct msim_ft *ft_get(struct msim *m, uint64_t id)
{
	return id > 0 && id < MSIM_MAX_FT && m->ft[id].used ? &m->ft[id] : NULL;
}

static struct msim_fg *fg_get(struct msim *m, uint32_t table, uint64_t id)
{
	return id > 0 && id < MSIM_MAX_FG && m->fg[id].used && m->fg[id].table == table
		       ? &m->fg[id]
		       : NULL;
}

/* table_type (NIC RX only) and table_id of a flow command; NULL with c
 * failed. */
static struct msim_ft *table_of(struct msim *m, struct msim_cmd *c, uint64_t type, uint64_t id)
{
	struct msim_ft *t;

	if (type != ZN_MLX5_FLOW_TABLE_NIC_RX) {
		msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x40, "table_type not NIC RX");
		return NULL;
	}
	t = ft_get(m, id);
	if (!t)
		msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 0x41, "no such flow table");
	return t;
}

static int create_ft(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *ftc = ZN_MLX5_CADDR(c->in, CREATE_FT_IN_FTC);
	struct msim_ft *o = NULL;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_FT_IN, ZN_MLX5_SZ_CREATE_FT_OUT))
		return 0;
	if (ZN_MLX5_GET(c->in, CREATE_FT_IN_TABLE_TYPE) != ZN_MLX5_FLOW_TABLE_NIC_RX)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "table_type not NIC RX");
	if (ZN_MLX5_GET(ftc, FTC_LOG_SIZE) > 10)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2, "log_size above 10");
	if (ZN_MLX5_GET(ftc, FTC_TABLE_MISS_ACTION) > ZN_MLX5_FT_MISS_ACTION_FWD ||
	    (ZN_MLX5_GET(ftc, FTC_TABLE_MISS_ACTION) == ZN_MLX5_FT_MISS_ACTION_FWD &&
	     !ft_get(m, ZN_MLX5_GET(ftc, FTC_TABLE_MISS_ID))))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3, "miss action or table");
	for (unsigned i = 1; i < MSIM_MAX_FT && !o; i++)
		if (!m->ft[i].used)
			o = &m->ft[i];
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 4, "all flow tables in use");
	slot = msim_slot_alloc(m, ftc, ZN_MLX5_SZ_FTC);
	if (slot < 0)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 5, "no context pages");
	*o = (struct msim_ft){ .used = true, .id = (uint32_t)(o - m->ft), .slot = slot,
			       .level = (uint8_t)ZN_MLX5_GET(ftc, FTC_LEVEL),
			       .log_size = (uint8_t)ZN_MLX5_GET(ftc, FTC_LOG_SIZE),
			       .miss_action = (uint8_t)ZN_MLX5_GET(ftc, FTC_TABLE_MISS_ACTION),
			       .miss_id = (uint32_t)ZN_MLX5_GET(ftc, FTC_TABLE_MISS_ID) };
	ZN_MLX5_SET(c->out, CREATE_FT_OUT_TABLE_ID, o->id);
	return 0;
}

static int destroy_ft(struct msim *m, struct msim_cmd *c)
{
	struct msim_ft *t;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DESTROY_FT_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	t = table_of(m, c, ZN_MLX5_GET(c->in, DESTROY_FT_IN_TABLE_TYPE),
		     ZN_MLX5_GET(c->in, DESTROY_FT_IN_TABLE_ID));
	if (!t)
		return 0;
	for (unsigned i = 1; i < MSIM_MAX_FG; i++)
		if (m->fg[i].used && m->fg[i].table == t->id)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 1, "groups left");
	for (unsigned i = 1; i < MSIM_MAX_FT; i++)
		if (m->ft[i].used && m->ft[i].miss_action && m->ft[i].miss_id == t->id)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 2, "a table misses to it");
	if (m->root_ft == t->id)
		m->root_ft = 0;	/* destroying the root detaches it */
	msim_slot_free(m, t->slot);
	t->used = false;
	return 0;
}

static int create_fg(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *crit = ZN_MLX5_CADDR(c->in, CREATE_FG_IN_MATCH_CRITERIA);
	struct msim_ft *t;
	struct msim_fg *o = NULL;
	uint32_t start, end;
	uint64_t mce;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_FG_IN, ZN_MLX5_SZ_CREATE_FG_OUT))
		return 0;
	t = table_of(m, c, ZN_MLX5_GET(c->in, CREATE_FG_IN_TABLE_TYPE),
		     ZN_MLX5_GET(c->in, CREATE_FG_IN_TABLE_ID));
	if (!t)
		return 0;
	start = (uint32_t)ZN_MLX5_GET(c->in, CREATE_FG_IN_START_FLOW_INDEX);
	end = (uint32_t)ZN_MLX5_GET(c->in, CREATE_FG_IN_END_FLOW_INDEX);
	mce = ZN_MLX5_GET(c->in, CREATE_FG_IN_MATCH_CRITERIA_ENABLE);
	if (start > end || end >= (1u << t->log_size))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1,
				 "flow index range outside the table");
	if (mce & ~(uint64_t)ZN_MLX5_MATCH_OUTER_HEADERS)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2,
				 "only outer headers are matched");
	for (unsigned i = 1; i < MSIM_MAX_FG; i++)
		if (m->fg[i].used && m->fg[i].table == t->id && start <= m->fg[i].end &&
		    m->fg[i].start <= end)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3,
					 "overlaps another group");
	for (unsigned i = 1; i < MSIM_MAX_FG && !o; i++)
		if (!m->fg[i].used)
			o = &m->fg[i];
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 4, "all flow groups in use");
	slot = msim_slot_alloc(m, crit, ZN_MLX5_SZ_MATCH_LYR_2_4);
	if (slot < 0)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 5, "no context pages");
	memset(o, 0, sizeof(*o));
	o->used = true;
	o->slot = slot;
	o->id = (uint32_t)(o - m->fg);
	o->table = t->id;
	o->start = start;
	o->end = end;
	if (mce)
		memcpy(o->mask, crit, sizeof(o->mask));
	ZN_MLX5_SET(c->out, CREATE_FG_OUT_GROUP_ID, o->id);
	return 0;
}

static int destroy_fg(struct msim *m, struct msim_cmd *c)
{
	struct msim_ft *t;
	struct msim_fg *g;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DESTROY_FG_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	t = table_of(m, c, ZN_MLX5_GET(c->in, DESTROY_FG_IN_TABLE_TYPE),
		     ZN_MLX5_GET(c->in, DESTROY_FG_IN_TABLE_ID));
	if (!t)
		return 0;
	g = fg_get(m, t->id, ZN_MLX5_GET(c->in, DESTROY_FG_IN_GROUP_ID));
	if (!g)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no such group");
	for (unsigned i = 0; i < MSIM_MAX_FTE; i++)
		if (m->fte[i].used && m->fte[i].group == g->id)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 2, "entries left");
	msim_slot_free(m, g->slot);
	g->used = false;
	return 0;
}

static struct msim_fte *fte_find(struct msim *m, uint32_t table, uint32_t index)
{
	for (unsigned i = 0; i < MSIM_MAX_FTE; i++)
		if (m->fte[i].used && m->fte[i].table == table && m->fte[i].index == index)
			return &m->fte[i];
	return NULL;
}

static int set_fte(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *fc = ZN_MLX5_CADDR(c->in, SET_FTE_IN_FLOW_CONTEXT);
	const uint8_t *dst = ZN_MLX5_CADDR(fc, FLOW_CTX_DESTINATION);
	struct msim_ft *t;
	struct msim_fg *g;
	struct msim_fte e = { 0 }, *o = NULL;
	uint64_t ndest;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_SET_FTE_IN, ZN_MLX5_SZ_SET_FTE_OUT))
		return 0;
	if (c->op_mod != 0)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OP_ERR, 1, "only op_mod 0 (new entry)");
	t = table_of(m, c, ZN_MLX5_GET(c->in, SET_FTE_IN_TABLE_TYPE),
		     ZN_MLX5_GET(c->in, SET_FTE_IN_TABLE_ID));
	if (!t)
		return 0;
	e.table = t->id;
	e.index = (uint32_t)ZN_MLX5_GET(c->in, SET_FTE_IN_FLOW_INDEX);
	g = fg_get(m, t->id, ZN_MLX5_GET(fc, FLOW_CTX_GROUP_ID));
	if (!g)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 2, "group unknown");
	if (e.index < g->start || e.index > g->end)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3,
				 "flow_index outside its group");
	if (fte_find(m, t->id, e.index))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 4, "flow_index in use");
	e.group = g->id;
	e.action = (uint16_t)ZN_MLX5_GET(fc, FLOW_CTX_ACTION);
	e.flow_tag = (uint32_t)ZN_MLX5_GET(fc, FLOW_CTX_FLOW_TAG);
	ndest = ZN_MLX5_GET(fc, FLOW_CTX_DESTINATION_LIST_SIZE);
	if (e.action & ~(ZN_MLX5_FLOW_ACTION_DROP | ZN_MLX5_FLOW_ACTION_FWD_DEST |
			 ZN_MLX5_FLOW_ACTION_ALLOW) ||
	    !(e.action & (ZN_MLX5_FLOW_ACTION_DROP | ZN_MLX5_FLOW_ACTION_FWD_DEST)) ||
	    (e.action & ZN_MLX5_FLOW_ACTION_DROP && e.action & ZN_MLX5_FLOW_ACTION_FWD_DEST))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 5,
				 "action not exactly one of DROP / FWD_DEST");
	if (e.action & ZN_MLX5_FLOW_ACTION_FWD_DEST) {
		if (ndest != 1)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 6,
					 "FWD_DEST wants exactly one destination");
		if (c->inlen < ZN_MLX5_SZ_SET_FTE_IN + ZN_MLX5_FLOW_DEST_SIZE)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR, 7,
					 "destination list short");
		if (ZN_MLX5_GET(dst, DEST_TYPE) != ZN_MLX5_FLOW_DEST_TIR)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 8,
					 "destination not a TIR");
		e.tirn = (uint32_t)ZN_MLX5_GET(dst, DEST_ID);
		if (!msim_tir_get(m, e.tirn))
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 9, "TIR unknown");
	}
	memcpy(e.value, ZN_MLX5_CADDR(fc, FLOW_CTX_MATCH_VALUE), sizeof(e.value));
	for (unsigned i = 0; i < MSIM_MAX_FTE && !o; i++)
		if (!m->fte[i].used)
			o = &m->fte[i];
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 10, "all flow entries in use");
	slot = msim_slot_alloc(m, fc, MSIM_CTX_SIZE);
	if (slot < 0)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 11, "no context pages");
	e.used = true;
	e.slot = slot;
	*o = e;
	return 0;
}

static int delete_fte(struct msim *m, struct msim_cmd *c)
{
	struct msim_ft *t;
	struct msim_fte *e;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DELETE_FTE_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	t = table_of(m, c, ZN_MLX5_GET(c->in, DELETE_FTE_IN_TABLE_TYPE),
		     ZN_MLX5_GET(c->in, DELETE_FTE_IN_TABLE_ID));
	if (!t)
		return 0;
	e = fte_find(m, t->id, (uint32_t)ZN_MLX5_GET(c->in, DELETE_FTE_IN_FLOW_INDEX));
	if (!e)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no entry at flow_index");
	msim_slot_free(m, e->slot);
	e->used = false;
	return 0;
}

static int set_root(struct msim *m, struct msim_cmd *c)
{
	struct msim_ft *t;

	if (!msim_lens(m, c, ZN_MLX5_SZ_SET_FT_ROOT_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	t = table_of(m, c, ZN_MLX5_GET(c->in, SET_FT_ROOT_IN_TABLE_TYPE),
		     ZN_MLX5_GET(c->in, SET_FT_ROOT_IN_TABLE_ID));
	if (!t)
		return 0;
	m->root_ft = t->id;
	return 0;
}

int msim_steer_cmd(struct msim *m, struct msim_cmd *c)
{
	switch (c->opcode) {
	case ZN_MLX5_CMD_OP_CREATE_TIR:
		return create_tir(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_TIR:
		return destroy_tir(m, c);
	case ZN_MLX5_CMD_OP_CREATE_RQT:
		return create_rqt(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_RQT:
		return destroy_rqt(m, c);
	case ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE:
		return create_ft(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE:
		return destroy_ft(m, c);
	case ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP:
		return create_fg(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP:
		return destroy_fg(m, c);
	case ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY:
		return set_fte(m, c);
	case ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY:
		return delete_fte(m, c);
	case ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT:
		return set_root(m, c);
	default:
		return -ENOENT;
	}
}

void msim_steer_free(struct msim *m)
{
	for (unsigned i = 0; i < MSIM_MAX_OBJ; i++)
		free(m->rqt[i].rqn);
	memset(m->tir, 0, sizeof(m->tir));
	memset(m->rqt, 0, sizeof(m->rqt));
	memset(m->ft, 0, sizeof(m->ft));
	memset(m->fg, 0, sizeof(m->fg));
	memset(m->fte, 0, sizeof(m->fte));
	m->root_ft = 0;
}
