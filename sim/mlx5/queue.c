/* SPDX-License-Identifier: MIT */
/*
 * Send and receive queues of the mlx5 model (hw-docs/mlx5.md 9.4, 12.1,
 * 14.1): CREATE/MODIFY/DESTROY_SQ and _RQ with their checks and the
 * RST/RDY/ERR state machine. The data path is tx.c and rx.c.
 */
#include <errno.h>
#include <string.h>

#include "sim/mlx5/priv.h"

static struct msim_wq *wq_alloc(struct msim_wq *t)
{
	for (unsigned i = 1; i < MSIM_MAX_OBJ; i++)
		if (!t[i].used)
			return &t[i];
	return NULL;
}

static struct msim_wq *sq_get(struct msim *m, uint64_t n)
{
	return n > 0 && n < MSIM_MAX_OBJ && m->sq[n].used ? &m->sq[n] : NULL;
}

struct msim_wq *msim_rq_get(struct msim *m, uint64_t n)
{
	return n > 0 && n < MSIM_MAX_OBJ && m->rq[n].used ? &m->rq[n] : NULL;
}

/* The common wq checks; 0 or -1 with c failed. */
static int wq_common(struct msim *m, struct msim_cmd *c, const uint8_t *wq, struct msim_wq *q)
{
	uint64_t dbr = ZN_MLX5_GET(wq, WQ_DBR_ADDR);

	if (ZN_MLX5_GET(wq, WQ_WQ_UMEM_VALID) || ZN_MLX5_GET(wq, WQ_DBR_UMEM_VALID))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x10, "umem is DevX only"), -1;
	if (!ZN_MLX5_GET(wq, WQ_PD) || !msim_simple_get(m->pd, MSIM_MAX_OBJ, ZN_MLX5_GET(wq, WQ_PD)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 0x11, "pd unknown"), -1;
	if ((dbr & 7) || zn_vfu_dma_probe(m->dev, dbr, ZN_MLX5_DBR_SIZE, ZN_VFU_DMA_FROM_RAM))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x12,
				 "dbr_addr unaligned or not in a DMA window"), -1;
	if (ZN_MLX5_GET(wq, WQ_LOG_WQ_SZ) > 16)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x13,
				 "log_wq_sz above log_max_wq_sz"), -1;
	q->pd = (uint32_t)ZN_MLX5_GET(wq, WQ_PD);
	q->uar = (uint32_t)ZN_MLX5_GET(wq, WQ_UAR_PAGE);
	q->dbr = dbr;
	q->wq_type = (uint8_t)ZN_MLX5_GET(wq, WQ_WQ_TYPE);
	q->log_stride = (uint8_t)ZN_MLX5_GET(wq, WQ_LOG_WQ_STRIDE);
	q->log_sz = (uint8_t)ZN_MLX5_GET(wq, WQ_LOG_WQ_SZ);
	return 0;
}

static int wq_finish(struct msim *m, struct msim_cmd *c, const uint8_t *ctx, const uint8_t *wq,
		     struct msim_wq *q, struct msim_cq *cq)
{
	int slot;

	if (msim_qmem_load(m, c, 0x110, (uint64_t)1 << (q->log_stride + q->log_sz),
			   (unsigned)ZN_MLX5_GET(wq, WQ_LOG_WQ_PG_SZ) + ZN_MLX5_ADAPTER_PAGE_SHIFT,
			   &q->mem))
		return -1;
	slot = msim_slot_alloc(m, ctx, MSIM_CTX_SIZE);
	if (slot < 0) {
		msim_qmem_free(&q->mem);
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 0x14, "no context pages"), -1;
	}
	q->slot = slot;
	q->used = true;
	q->state = ZN_MLX5_QSTATE_RST;
	cq->users++;
	return 0;
}

static int create_sq(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *sqc = ZN_MLX5_CADDR(c->in, CREATE_SQ_IN_SQC);
	const uint8_t *wq = ZN_MLX5_CADDR(sqc, SQC_WQ);
	struct msim_wq *q = wq_alloc(m->sq), tmp = { 0 };
	struct msim_cq *cq;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_SQ_IN, ZN_MLX5_SZ_CREATE_SQ_OUT))
		return 0;
	if (ZN_MLX5_GET(sqc, SQC_STATE) != ZN_MLX5_QSTATE_RST)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "state not RST");
	if (ZN_MLX5_GET(sqc, SQC_RLKY))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2, "rlky not modelled");
	if (ZN_MLX5_GET(wq, WQ_WQ_TYPE) != ZN_MLX5_WQ_TYPE_CYCLIC)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3, "SQ wq_type not cyclic");
	if (ZN_MLX5_GET(wq, WQ_LOG_WQ_STRIDE) != ZN_MLX5_SEND_WQE_SHIFT)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 4, "log_wq_stride not 6");
	if (ZN_MLX5_GET(sqc, SQC_TIS_LST_SZ) != 1)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 5, "tis_lst_sz not 1");
	cq = msim_cq_get(m, ZN_MLX5_GET(sqc, SQC_CQN));
	if (!cq)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 6, "cqn unknown");
	if (!ZN_MLX5_GET(sqc, SQC_TIS_NUM_0) ||
	    !msim_simple_get(m->tis, MSIM_MAX_OBJ, ZN_MLX5_GET(sqc, SQC_TIS_NUM_0)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 7, "tis unknown");
	if (!msim_uar_valid(m, (uint32_t)ZN_MLX5_GET(wq, WQ_UAR_PAGE)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 8, "uar_page not allocated");
	if (!q)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 9, "all SQs in use");
	if (wq_common(m, c, wq, &tmp))
		return 0;
	tmp.is_sq = true;
	tmp.num = (uint32_t)(q - m->sq);
	tmp.cqn = cq->cqn;
	tmp.tisn = (uint32_t)ZN_MLX5_GET(sqc, SQC_TIS_NUM_0);
	tmp.flush_in_error = ZN_MLX5_GET(sqc, SQC_FLUSH_IN_ERROR_EN);
	if (wq_finish(m, c, sqc, wq, &tmp, cq))
		return 0;
	*q = tmp;
	ZN_MLX5_SET(c->out, CREATE_SQ_OUT_SQN, q->num);
	return 0;
}

/* Striding RQ and SHAMPO parameters (hw-docs/mlx5.md 12.1). */
static int rq_striding(struct msim *m, struct msim_cmd *c, const uint8_t *wq, struct msim_wq *q)
{
	unsigned f = (unsigned)ZN_MLX5_GET(wq, WQ_LOG_WQE_NUM_OF_STRIDES);
	int lns = zn_mlx5_mpwqe_log_num_strides(f);
	unsigned lss = (unsigned)ZN_MLX5_GET(wq, WQ_LOG_WQE_STRIDE_SIZE) +
		       ZN_MLX5_MPWQE_LOG_STRIDE_SZ_BASE;
	unsigned wqe_log;

	if (lns < ZN_MLX5_MPWQE_LOG_NUM_STRIDES_EXT_BASE || lns > 16)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x30, "strides out of range"), -1;
	if (lss < 6 || lss > 13)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x31,
				 "stride size outside the caps"), -1;
	if (q->log_stride < 5)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x32,
				 "log_wq_stride below one next + one data segment"), -1;
	q->log_nstrides = (uint8_t)lns;
	q->log_stride_sz = (uint8_t)lss;
	wqe_log = (unsigned)lns + lss;
	if (!ZN_MLX5_GET(wq, WQ_SHAMPO_ENABLE))
		return 0;
	{
		unsigned lres = (unsigned)ZN_MLX5_GET(wq, WQ_LOG_RESERVATION_SIZE) +
				ZN_MLX5_SHAMPO_LOG_RESERVATION_BASE;
		unsigned lhe = (unsigned)ZN_MLX5_GET(wq, WQ_LOG_HEADERS_ENTRY_SIZE) +
			       ZN_MLX5_SHAMPO_LOG_HEADER_ENTRY_BASE;
		uint32_t key = (uint32_t)ZN_MLX5_GET(wq, WQ_HEADERS_MKEY);
		struct msim_simple *k = msim_simple_get(m->mkey, MSIM_MAX_OBJ, key >> 8);

		if (lres < 12 || lres > 20 || lres > wqe_log)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x33,
					 "reservation outside the caps or above the WQE"), -1;
		if (lhe > 10)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x34,
					 "header entry above 1024 bytes"), -1;
		if (!k || !(key >> 8))
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 0x35,
					 "headers_mkey unknown"), -1;
		q->shampo = true;
		q->hdr_mkey = key;
		q->log_hdr_entry = (uint8_t)lhe;
		q->log_hdr_num = (uint8_t)ZN_MLX5_GET(wq, WQ_LOG_HEADERS_BUFFER_ENTRY_NUM);
		q->log_res = (uint8_t)lres;
		q->pkts_per_res = 1u << ZN_MLX5_GET(wq, WQ_LOG_MAX_NUM_OF_PACKETS_PER_RESERVATION);
		q->hd_per_wqe = (1u << (wqe_log - lres)) * q->pkts_per_res;
	}
	return 0;
}

static int create_rq(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *rqc = ZN_MLX5_CADDR(c->in, CREATE_RQ_IN_RQC);
	const uint8_t *wq = ZN_MLX5_CADDR(rqc, RQC_WQ);
	struct msim_wq *q = wq_alloc(m->rq), tmp = { 0 };
	struct msim_cq *cq;
	uint64_t type;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_RQ_IN, ZN_MLX5_SZ_CREATE_RQ_OUT))
		return 0;
	if (ZN_MLX5_GET(rqc, RQC_STATE) != ZN_MLX5_QSTATE_RST)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "state not RST");
	if (ZN_MLX5_GET(rqc, RQC_RLKY) || ZN_MLX5_GET(rqc, RQC_MEM_RQ_TYPE))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2,
				 "rlky / RMP not modelled");
	type = ZN_MLX5_GET(wq, WQ_WQ_TYPE);
	if (type != ZN_MLX5_WQ_TYPE_CYCLIC && type != ZN_MLX5_WQ_TYPE_LINKED_LIST_STRIDING)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3,
				 "wq_type not cyclic or linked-list striding");
	cq = msim_cq_get(m, ZN_MLX5_GET(rqc, RQC_CQN));
	if (!cq)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 4, "cqn unknown");
	if (!q)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 5, "all RQs in use");
	if (wq_common(m, c, wq, &tmp))
		return 0;
	if (type == ZN_MLX5_WQ_TYPE_LINKED_LIST_STRIDING && rq_striding(m, c, wq, &tmp))
		return 0;
	/* HW-GRO: sessions merge when the RQ names a match criterion */
	tmp.shampo_merge = tmp.shampo && ZN_MLX5_GET(rqc, RQC_SHAMPO_MATCH_CRITERIA_TYPE) !=
						 ZN_MLX5_SHAMPO_MATCH_NO_MATCH;
	if (type == ZN_MLX5_WQ_TYPE_CYCLIC && (tmp.log_stride < 4 || tmp.log_stride > 10))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 6,
				 "cyclic RQ WQE not 1..64 data segments");
	tmp.num = (uint32_t)(q - m->rq);
	tmp.cqn = cq->cqn;
	tmp.flush_in_error = ZN_MLX5_GET(rqc, RQC_FLUSH_IN_ERROR_EN);
	if (wq_finish(m, c, rqc, wq, &tmp, cq))
		return 0;
	*q = tmp;
	ZN_MLX5_SET(c->out, CREATE_RQ_OUT_RQN, q->num);
	return 0;
}

/* RST->RDY, RDY->ERR, RDY->RST, ERR->RST (hw-docs/mlx5.md 9.4). */
static bool legal(uint8_t from, uint8_t to)
{
	return (from == ZN_MLX5_QSTATE_RST && to == ZN_MLX5_QSTATE_RDY) ||
	       (from == ZN_MLX5_QSTATE_RDY &&
		(to == ZN_MLX5_QSTATE_ERR || to == ZN_MLX5_QSTATE_RST)) ||
	       (from == ZN_MLX5_QSTATE_ERR && to == ZN_MLX5_QSTATE_RST);
}

static int modify_wq(struct msim *m, struct msim_cmd *c, struct msim_wq *q, uint8_t cur,
		     uint8_t to)
{
	if (!q)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no such queue");
	if (cur != q->state)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_STATE_ERR, 2,
				 "current state does not match");
	if (!legal(cur, to))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_QP_STATE_ERR, 3, "illegal transition");
	if (to == ZN_MLX5_QSTATE_RST) {
		/* The RQ's CQEs are all visible before the command completes:
		 * the driver drains the CQ once it sees the RST. */
		msim_cqe_release(m);
		/* The device forgets its progress. */
		q->cc = 0;
		q->rcv = 0;
		q->have_wqe = false;
		q->sess_open = false;
		q->stride = 0;
		q->wqe_pkts = 0;
		q->hdr_ctr = 0;
	}
	q->state = to;
	return 0;
}

static int modify_sq(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *sqc = ZN_MLX5_CADDR(c->in, MODIFY_SQ_IN_SQC);

	if (!msim_lens(m, c, ZN_MLX5_SZ_MODIFY_SQ_IN, ZN_MLX5_SZ_MODIFY_SQ_OUT))
		return 0;
	if (ZN_MLX5_GET(c->in, MODIFY_SQ_IN_MODIFY_BITMASK))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 4,
				 "only state changes (modify_bitmask 0)");
	return modify_wq(m, c, sq_get(m, ZN_MLX5_GET(c->in, MODIFY_SQ_IN_SQN)),
			 (uint8_t)ZN_MLX5_GET(c->in, MODIFY_SQ_IN_SQ_STATE),
			 (uint8_t)ZN_MLX5_GET(sqc, SQC_STATE));
}

static int modify_rq(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *rqc = ZN_MLX5_CADDR(c->in, MODIFY_RQ_IN_RQC);

	if (!msim_lens(m, c, ZN_MLX5_SZ_MODIFY_RQ_IN, ZN_MLX5_SZ_MODIFY_RQ_OUT))
		return 0;
	if (ZN_MLX5_GET(c->in, MODIFY_RQ_IN_MODIFY_BITMASK))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 4,
				 "only state changes (modify_bitmask 0)");
	return modify_wq(m, c, msim_rq_get(m, ZN_MLX5_GET(c->in, MODIFY_RQ_IN_RQN)),
			 (uint8_t)ZN_MLX5_GET(c->in, MODIFY_RQ_IN_RQ_STATE),
			 (uint8_t)ZN_MLX5_GET(rqc, RQC_STATE));
}

static void wq_release(struct msim *m, struct msim_wq *q)
{
	struct msim_cq *cq = msim_cq_get(m, q->cqn);

	if (cq && cq->users)
		cq->users--;
	msim_slot_free(m, q->slot);
	msim_qmem_free(&q->mem);
	q->used = false;
}

static int destroy_wq(struct msim *m, struct msim_cmd *c, bool sq)
{
	struct msim_wq *q;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DESTROY_SQ_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	q = sq ? sq_get(m, ZN_MLX5_GET(c->in, DESTROY_SQ_IN_SQN))
	       : msim_rq_get(m, ZN_MLX5_GET(c->in, DESTROY_RQ_IN_RQN));
	if (!q)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no such queue");
	if (q->users)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 2, "a TIR or RQT uses it");
	wq_release(m, q);
	return 0;
}

int msim_queue_cmd(struct msim *m, struct msim_cmd *c)
{
	switch (c->opcode) {
	case ZN_MLX5_CMD_OP_CREATE_SQ:
		return create_sq(m, c);
	case ZN_MLX5_CMD_OP_MODIFY_SQ:
		return modify_sq(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_SQ:
		return destroy_wq(m, c, true);
	case ZN_MLX5_CMD_OP_CREATE_RQ:
		return create_rq(m, c);
	case ZN_MLX5_CMD_OP_MODIFY_RQ:
		return modify_rq(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_RQ:
		return destroy_wq(m, c, false);
	default:
		return -ENOENT;
	}
}

void msim_queues_free(struct msim *m)
{
	for (unsigned i = 0; i < MSIM_MAX_OBJ; i++) {
		msim_qmem_free(&m->sq[i].mem);
		msim_qmem_free(&m->rq[i].mem);
	}
	memset(m->sq, 0, sizeof(m->sq));
	memset(m->rq, 0, sizeof(m->rq));
}
