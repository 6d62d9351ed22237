/* SPDX-License-Identifier: MIT */
/*
 * Transmit side of the mlx5 model (hw-docs/mlx5.md 14): every RDY SQ's
 * doorbell record is polled (the UAR register only says "look now"); each
 * send WQE's inline headers and gather list become one frame on the wire,
 * and a CQE is written for the WQEs that ask for one (CQ_UPDATE) or fail.
 */
#include <string.h>

#include "sim/mlx5/priv.h"

#define TX_BUDGET	64	/* WQEs per SQ per poll */
#define WQE_MAX		(ZN_MLX5_WQE_MAX_DS * ZN_MLX5_WQE_DS_SIZE)

static bool sq_read(struct msim *m, struct msim_wq *q, uint16_t bb, void *buf, unsigned n)
{
	uint32_t mask = (1u << q->log_sz) - 1;

	for (unsigned i = 0; i < n; i++) {
		uint64_t a = msim_qmem_addr(&q->mem, (uint64_t)((bb + i) & mask) << q->log_stride);

		if (!a || zn_vfu_dma_read(m->dev, a, (uint8_t *)buf + i * ZN_MLX5_SEND_WQE_BB,
					  ZN_MLX5_SEND_WQE_BB))
			return false;
	}
	return true;
}

static void cqe(struct msim *m, struct msim_wq *q, uint16_t idx, uint8_t opcode, uint8_t synd,
		uint8_t wqe_op)
{
	struct msim_cq *cq = msim_cq_get(m, q->cqn);
	struct zn_mlx5_cqe64 e;

	if (!cq)
		return;
	memset(&e, 0, sizeof(e));
	if (opcode == ZN_MLX5_CQE_REQ_ERR) {
		struct zn_mlx5_err_cqe *x = (void *)&e;

		x->syndrome = synd;
		x->s_wqe_opcode_qpn_be = zn_mlx5_bswap32((uint32_t)wqe_op << 24 | q->num);
		x->wqe_counter_be = zn_mlx5_bswap16(idx);
	} else {
		e.sop_drop_qpn_be = zn_mlx5_bswap32((uint32_t)wqe_op << 24 | q->num);
		e.wqe_counter_be = zn_mlx5_bswap16(idx);
		e.timestamp_be = zn_mlx5_bswap64(msim_timer_ns());
	}
	e.op_own = (uint8_t)(opcode << 4);
	msim_cqe_post(m, cq, &e);
}

static void sq_error(struct msim *m, struct msim_wq *q, uint16_t idx, uint8_t synd, uint8_t op)
{
	MSIM_INC(m, tx_errors);
	q->lso_next = 0;
	cqe(m, q, idx, ZN_MLX5_CQE_REQ_ERR, synd, op);
	q->state = ZN_MLX5_QSTATE_ERR;
}

/* Builds the packet of one SEND or LSO WQE (ds 16-byte units from w) into
 * f (cap bytes); its length, or 0 with *synd set. */
static size_t build(struct msim *m, const uint8_t *w, unsigned ds, uint8_t *f, size_t cap,
		    uint8_t *synd)
{
	const struct zn_mlx5_wqe_eth *eth = (const void *)(w + 16);
	size_t len, ih;
	unsigned at;

	*synd = ZN_MLX5_CQE_SYND_LOCAL_QP_OP_ERR;
	if (ds < 2)
		return 0;
	ih = zn_mlx5_bswap16(eth->inline_hdr_sz_be);
	/* Inline headers start at eth + 0x0e and run on in whole DS. */
	at = 16 + 14;
	if (at + ih > (size_t)ds * 16)
		return 0;
	memcpy(f, w + at, ih);
	len = ih;
	at = 32 + (ih > 2 ? (unsigned)((ih - 2 + 15) / 16) * 16 : 0);
	for (; at + 16 <= ds * 16u; at += 16) {
		const struct zn_mlx5_wqe_data *d = (const void *)(w + at);
		uint32_t bc = zn_mlx5_bswap32(d->byte_count_be);
		uint64_t a;

		if (bc & ZN_MLX5_INLINE_SEG) {
			size_t n = bc & ~ZN_MLX5_INLINE_SEG;

			if (at + 4 + n > ds * 16u || len + n > cap) {
				*synd = ZN_MLX5_CQE_SYND_LOCAL_LENGTH_ERR;
				return 0;
			}
			memcpy(f + len, w + at + 4, n);
			len += n;
			at += (unsigned)((4 + n + 15) / 16) * 16 - 16;
			continue;
		}
		if (!bc)
			continue;
		if (len + bc > cap) {
			*synd = ZN_MLX5_CQE_SYND_LOCAL_LENGTH_ERR;
			return 0;
		}
		a = msim_mkey_xlate(m, zn_mlx5_bswap32(d->lkey_be), zn_mlx5_bswap64(d->addr_be), bc);
		if (!a || zn_vfu_dma_read(m->dev, a, f + len, bc)) {
			*synd = ZN_MLX5_CQE_SYND_LOCAL_PROT_ERR;
			return 0;
		}
		len += bc;
	}
	if (len < 14) {
		*synd = ZN_MLX5_CQE_SYND_LOCAL_LENGTH_ERR;
		return 0;
	}
	return len;
}

static void csum(struct msim *m, uint8_t *f, size_t len, bool l3, bool l4)
{
	struct msim_pkt p;

	msim_pkt_parse(f, len, &p);
	msim_csum_fill(f, len, &p, l3, l4);
	MSIM_INC(m, tx_csum_offloads);
}

static void emit(struct msim *m, const uint8_t *f, size_t len)
{
	if (zn_sim_port_tx(&m->port, f, len))
		MSIM_INC(m, tx_wire_drops);
	MSIM_INC(m, tx_frames);
	MSIM_ADD(m, tx_bytes, len);
}

/* A SEND WQE's frame to the wire: 0 or a syndrome. */
static uint8_t send_one(struct msim *m, const uint8_t *w, unsigned ds)
{
	const struct zn_mlx5_wqe_eth *eth = (const void *)(w + 16);
	uint8_t synd;
	size_t len = build(m, w, ds, m->frame, ZN_SIM_FRAME_MAX, &synd);

	if (!len)
		return synd;
	if (eth->cs_flags & (ZN_MLX5_ETH_WQE_L3_CSUM | ZN_MLX5_ETH_WQE_L4_CSUM))
		csum(m, m->frame, len, eth->cs_flags & ZN_MLX5_ETH_WQE_L3_CSUM,
		     eth->cs_flags & ZN_MLX5_ETH_WQE_L4_CSUM);
	emit(m, m->frame, len);
	return 0;
}

/*
 * An LSO WQE (hw-docs/mlx5.md 14.2): the inline headers (exactly Ethernet
 * through TCP) and the payload of the data segments cut into frames of
 * mss payload bytes, sent from segment q->lso_next on while the wire has
 * room. 0 when all are out, 0xff when the wire filled first (the WQE stays
 * and resumes), else a syndrome.
 */
static uint8_t lso_one(struct msim *m, struct msim_wq *q, const uint8_t *w, unsigned ds)
{
	const struct zn_mlx5_wqe_eth *eth = (const void *)(w + 16);
	struct zn_sim_tso t = { .frame = m->lso, .ipid_mask = 0xffff };
	uint8_t synd;
	unsigned n;

	t.len = build(m, w, ds, m->lso, sizeof(m->lso), &synd);
	if (!t.len)
		return synd;
	t.mss = zn_mlx5_bswap16(eth->mss_be);
	if (zn_sim_tcp_hdrs(m->lso, t.len, &t.h) ||
	    t.h.hdr_len != zn_mlx5_bswap16(eth->inline_hdr_sz_be) || !t.mss)
		return ZN_MLX5_CQE_SYND_LOCAL_QP_OP_ERR;
	if (t.len - t.h.hdr_len > ZN_SIM_TSO_MAX_PAYLOAD || t.h.hdr_len + t.mss > ZN_SIM_FRAME_MAX)
		return ZN_MLX5_CQE_SYND_LOCAL_LENGTH_ERR;
	n = zn_sim_tso_nseg(&t);
	for (; q->lso_next < n; q->lso_next++) {
		size_t len;

		if (!zn_sim_port_tx_room(&m->port))
			return 0xff;
		len = zn_sim_tso_seg(&t, q->lso_next, m->frame);
		/* every segment gets both checksums, whatever cs_flags say */
		csum(m, m->frame, len, t.h.ipv == 4, true);
		emit(m, m->frame, len);
	}
	q->lso_next = 0;
	MSIM_INC(m, tx_lso);
	MSIM_ADD(m, tx_lso_segs, n);
	return 0;
}

static int sq_drain(struct msim *m, struct msim_wq *q)
{
	uint32_t pc_be;
	uint16_t pc;
	int done = 0;

	if (zn_vfu_dma_read(m->dev, q->dbr + 4, &pc_be, 4))
		return 0;
	pc = (uint16_t)zn_mlx5_bswap32(pc_be);
	while (q->cc != pc && done < TX_BUDGET && q->state == ZN_MLX5_QSTATE_RDY) {
		uint8_t w[WQE_MAX + ZN_MLX5_SEND_WQE_BB];
		const struct zn_mlx5_wqe_ctrl *ctl = (const void *)w;
		unsigned ds, nbb;
		uint16_t idx = q->cc;
		uint8_t op, synd;

		if (!zn_sim_port_tx_room(&m->port))
			break;
		if (!sq_read(m, q, q->cc, w, 1)) {
			sq_error(m, q, idx, ZN_MLX5_CQE_SYND_LOCAL_PROT_ERR, ZN_MLX5_OPCODE_SEND);
			break;
		}
		ds = zn_mlx5_bswap32(ctl->qpn_ds_be) & ZN_MLX5_WQE_CTRL_DS_MASK;
		op = (uint8_t)zn_mlx5_bswap32(ctl->opmod_idx_opcode_be);
		if (ds == 0) {
			sq_error(m, q, idx, ZN_MLX5_CQE_SYND_LOCAL_QP_OP_ERR, op);
			break;
		}
		nbb = (ds * 16 + ZN_MLX5_SEND_WQE_BB - 1) / ZN_MLX5_SEND_WQE_BB;
		if (nbb > 1 && !sq_read(m, q, (uint16_t)(q->cc + 1), w + ZN_MLX5_SEND_WQE_BB,
					nbb - 1)) {
			sq_error(m, q, idx, ZN_MLX5_CQE_SYND_LOCAL_PROT_ERR, op);
			break;
		}
		if (op == ZN_MLX5_OPCODE_SEND || op == ZN_MLX5_OPCODE_LSO) {
			synd = op == ZN_MLX5_OPCODE_SEND ? send_one(m, w, ds) : lso_one(m, q, w, ds);
			if (synd == 0xff)
				break;
			if (synd) {
				sq_error(m, q, idx, synd, op);
				break;
			}
		} else if (op != ZN_MLX5_OPCODE_NOP) {
			sq_error(m, q, idx, ZN_MLX5_CQE_SYND_LOCAL_QP_OP_ERR, op);
			break;
		}
		q->cc = (uint16_t)(q->cc + nbb);
		if ((ctl->fm_ce_se & ZN_MLX5_WQE_CTRL_CE_MASK) == ZN_MLX5_WQE_CTRL_CQ_UPDATE)
			cqe(m, q, idx, ZN_MLX5_CQE_REQ, 0, op);
		done++;
	}
	/* flush_in_error: what is left completes with WR_FLUSH errors. */
	if (q->state == ZN_MLX5_QSTATE_ERR && q->flush_in_error) {
		while (q->cc != pc) {
			cqe(m, q, q->cc, ZN_MLX5_CQE_REQ_ERR, ZN_MLX5_CQE_SYND_WR_FLUSH_ERR,
			    ZN_MLX5_OPCODE_NOP);
			q->cc++;
		}
	}
	return done;
}

int msim_tx_poll(struct msim *m)
{
	int work = 0;

	if (!m->link_up)
		return 0;
	for (unsigned i = 1; i < MSIM_MAX_OBJ; i++)
		if (m->sq[i].used && m->sq[i].state == ZN_MLX5_QSTATE_RDY)
			work += sq_drain(m, &m->sq[i]);
	return work;
}
