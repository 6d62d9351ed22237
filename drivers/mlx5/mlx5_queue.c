/* SPDX-License-Identifier: MIT */
/*
 * Queue objects (hw-docs/mlx5.md §4 step 18): per RX queue CREATE_CQ, the
 * header ring's MTT mkey (§10), CREATE_RQ in RST, WQEs posted, MODIFY_RQ
 * RST->RDY; one TIS, then per TX queue CREATE_CQ, CREATE_SQ in RST,
 * MODIFY_SQ RST->RDY. Stopping destroys them in reverse order: queues
 * before the CQs they complete to (the device refuses a busy CQ, §9.1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

/* Longest queue-create input: 272 bytes + one pas entry per page. */
#define QUEUE_IN_MAX	MLX5_CMD_MAX_MSG

uint32_t zn_mlx5_pas_fill(void *pas, uint64_t iova, size_t len)
{
	uint32_t n = (uint32_t)((len + ZN_MLX5_ADAPTER_PAGE_SIZE - 1) / ZN_MLX5_ADAPTER_PAGE_SIZE);

	for (uint32_t i = 0; i < n; i++)
		zn_mlx5_st_be64((uint8_t *)pas + 8 * i,
				iova + (uint64_t)i * ZN_MLX5_ADAPTER_PAGE_SIZE);
	return n;
}

/*
 * Where a queue's ring and doorbell record are, as the create names them:
 * pas[] entries after the fixed input and dbr_addr an IOVA (command queue),
 * or umem id + offset for both under DevX (§16), where the input stops at
 * the fixed part. Returns the input length or a negative errno.
 */
static int wq_mem(struct mlx5 *m, uint8_t *in, uint32_t fixed, uint8_t *wq, uint64_t iova,
		  size_t len, uint64_t dbr_iova)
{
	uint32_t id, dbr_id;
	uint64_t off, dbr_off;

	if (!m->cmd_ops->umem_of) {
		ZN_MLX5_SET(wq, WQ_DBR_ADDR, dbr_iova);
		return (int)(fixed + 8 * zn_mlx5_pas_fill(in + fixed, iova, len));
	}
	if (m->cmd_ops->umem_of(m, iova, len, &id, &off) < 0 ||
	    m->cmd_ops->umem_of(m, dbr_iova, 8, &dbr_id, &dbr_off) < 0)
		return -EFAULT;
	ZN_MLX5_SET(wq, WQ_WQ_UMEM_ID, id);
	ZN_MLX5_SET(wq, WQ_WQ_UMEM_OFFSET, off);
	ZN_MLX5_SET(wq, WQ_WQ_UMEM_VALID, 1);
	ZN_MLX5_SET(wq, WQ_DBR_UMEM_ID, dbr_id);
	ZN_MLX5_SET(wq, WQ_DBR_UMEM_VALID, 1);
	ZN_MLX5_SET(wq, WQ_DBR_ADDR, dbr_off);
	return (int)fixed;
}

/* The same for a CQ, whose fields sit elsewhere (§9.1, §16). */
static int cq_mem(struct mlx5 *m, uint8_t *in, uint8_t *cqc, const struct mlx5_cq *cq)
{
	size_t len = (size_t)ZN_MLX5_CQE_SIZE << cq->log_sz;
	uint32_t id, dbr_id;
	uint64_t off, dbr_off;

	if (!m->cmd_ops->umem_of) {
		ZN_MLX5_SET(cqc, CQC_DBR_ADDR, cq->dbr_iova);
		return (int)(ZN_MLX5_SZ_CREATE_CQ_IN +
			     8 * zn_mlx5_pas_fill(ZN_MLX5_ADDR(in, CREATE_CQ_IN_PAS), cq->iova, len));
	}
	if (m->cmd_ops->umem_of(m, cq->iova, len, &id, &off) < 0 ||
	    m->cmd_ops->umem_of(m, cq->dbr_iova, 8, &dbr_id, &dbr_off) < 0)
		return -EFAULT;
	ZN_MLX5_SET(in, CREATE_CQ_IN_CQ_UMEM_ID, id);
	ZN_MLX5_SET(in, CREATE_CQ_IN_CQ_UMEM_OFFSET, off);
	ZN_MLX5_SET(in, CREATE_CQ_IN_CQ_UMEM_VALID, 1);
	ZN_MLX5_SET(cqc, CQC_DBR_UMEM_ID, dbr_id);
	ZN_MLX5_SET(cqc, CQC_DBR_UMEM_VALID, 1);
	ZN_MLX5_SET(cqc, CQC_DBR_ADDR, dbr_off);
	return ZN_MLX5_SZ_CREATE_CQ_IN;
}

/* Every DESTROY_ / DEALLOC_ input: 16 bytes, the number at dword 0x08. */
int zn_mlx5_destroy_obj(struct mlx5 *m, uint16_t opcode, uint32_t id)
{
	uint8_t in[16] = { 0 }, out[16];

	ZN_MLX5_SET(in, IN_OPCODE, opcode);
	ZN_MLX5_SET(in, DESTROY_OBJ_IN_ID, id);
	return zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
}

/* The device's scratch input (queue inputs carry long page lists). */
static uint8_t *cmd_buf(struct mlx5 *m)
{
	memset(m->scratch, 0, sizeof(m->scratch));
	return m->scratch;
}

/* §9.1 */
int zn_mlx5_cq_create(struct mlx5 *m, struct mlx5_cq *cq)
{
	uint8_t *in = cmd_buf(m), out[ZN_MLX5_SZ_CREATE_CQ_OUT];
	uint8_t *cqc = ZN_MLX5_ADDR(in, CREATE_CQ_IN_CQC);
	int rc, inlen;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_CQ);
	ZN_MLX5_SET(cqc, CQC_CQE_SZ, ZN_MLX5_CQE_SZ_64);
	ZN_MLX5_SET(cqc, CQC_LOG_CQ_SIZE, cq->log_sz);
	ZN_MLX5_SET(cqc, CQC_UAR_PAGE, m->uar.index);
	ZN_MLX5_SET(cqc, CQC_C_EQN, cq->own_eq ? cq->eqn : m->eq.eqn);
	ZN_MLX5_SET(cqc, CQC_LOG_PAGE_SIZE, 0);
	inlen = cq_mem(m, in, cqc, cq);
	if (inlen < 0)
		return inlen;
	rc = zn_mlx5_cmd(m, in, (uint32_t)inlen, out, sizeof(out));
	if (rc < 0)
		return rc;
	cq->cqn = (uint32_t)ZN_MLX5_GET(out, CREATE_CQ_OUT_CQN);
	cq->live = true;
	return 0;
}

void zn_mlx5_cq_destroy(struct mlx5 *m, struct mlx5_cq *cq)
{
	if (!cq->live)
		return;
	zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_CQ, cq->cqn);
	cq->live = false;
}

/* §10: the header ring through an MTT mkey, one entry per 4 KiB page. */
static int hdr_mkey_create(struct mlx5 *m, struct mlx5_rxq *rxq)
{
	uint8_t *in = cmd_buf(m), out[ZN_MLX5_SZ_CREATE_MKEY_OUT];
	uint8_t *mkc = ZN_MLX5_ADDR(in, CREATE_MKEY_IN_MKC);
	uint8_t *mtt = ZN_MLX5_ADDR(in, CREATE_MKEY_IN_KLM_PAS_MTT);
	uint32_t pages = (uint32_t)(rxq->hdr_bytes / ZN_MLX5_ADAPTER_PAGE_SIZE);
	uint32_t octw = (pages + 1) / 2;
	int rc;

	/* §16: under DevX a memory region over the ring is that mkey. */
	if (m->cmd_ops->mkey_reg)
		return m->cmd_ops->mkey_reg(m, rxq->hdr_iova, rxq->hdr_bytes, &rxq->hdr_key,
					    &rxq->hdr_mr);
	if (ZN_MLX5_SZ_CREATE_MKEY_IN + 16 * octw > QUEUE_IN_MAX)
		return -E2BIG;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_MKEY);
	ZN_MLX5_SET(in, CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE, octw);
	ZN_MLX5_SET(mkc, MKC_ACCESS_MODE_1_0, ZN_MLX5_MKC_ACCESS_MODE_MTT);
	ZN_MLX5_SET(mkc, MKC_LW, 1);
	ZN_MLX5_SET(mkc, MKC_LR, 1);
	ZN_MLX5_SET(mkc, MKC_QPN, ZN_MLX5_MKC_QPN_NONE);
	ZN_MLX5_SET(mkc, MKC_PD, m->pdn);
	ZN_MLX5_SET(mkc, MKC_START_ADDR, rxq->hdr_iova);
	ZN_MLX5_SET(mkc, MKC_LEN, rxq->hdr_bytes);
	ZN_MLX5_SET(mkc, MKC_TRANSLATIONS_OCTWORD_SIZE, octw);
	ZN_MLX5_SET(mkc, MKC_LOG_PAGE_SIZE, ZN_MLX5_ADAPTER_PAGE_SHIFT);
	for (uint32_t i = 0; i < pages; i++)
		zn_mlx5_st_be64(mtt + 8 * i, (rxq->hdr_iova + (uint64_t)i * ZN_MLX5_ADAPTER_PAGE_SIZE) |
				ZN_MLX5_MTT_READ | ZN_MLX5_MTT_WRITE);
	rc = zn_mlx5_cmd(m, in, ZN_MLX5_SZ_CREATE_MKEY_IN + 16 * octw, out, sizeof(out));
	if (rc < 0)
		return rc;
	rxq->hdr_mkey_index = (uint32_t)ZN_MLX5_GET(out, CREATE_MKEY_OUT_MKEY_INDEX);
	rxq->hdr_key = zn_mlx5_mkey(rxq->hdr_mkey_index, 0);
	rxq->mkey_live = true;
	return 0;
}

static int modify_state(struct mlx5 *m, bool sq, uint32_t num, unsigned from, unsigned to)
{
	uint8_t *in = cmd_buf(m), out[16];

	if (sq) {
		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MODIFY_SQ);
		ZN_MLX5_SET(in, MODIFY_SQ_IN_SQ_STATE, from);
		ZN_MLX5_SET(in, MODIFY_SQ_IN_SQN, num);
		ZN_MLX5_SET(ZN_MLX5_ADDR(in, MODIFY_SQ_IN_SQC), SQC_STATE, to);
		return zn_mlx5_cmd(m, in, ZN_MLX5_SZ_MODIFY_SQ_IN, out, sizeof(out));
	}
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MODIFY_RQ);
	ZN_MLX5_SET(in, MODIFY_RQ_IN_RQ_STATE, from);
	ZN_MLX5_SET(in, MODIFY_RQ_IN_RQN, num);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, MODIFY_RQ_IN_RQC), RQC_STATE, to);
	return zn_mlx5_cmd(m, in, ZN_MLX5_SZ_MODIFY_RQ_IN, out, sizeof(out));
}

/* §12.1: striding RQ (linked list) with SHAMPO, one reservation per WQE (§12.6: HW-GRO). */
int zn_mlx5_rq_create(struct mlx5 *m, struct mlx5_rxq *rxq)
{
	uint8_t *in = cmd_buf(m), out[ZN_MLX5_SZ_CREATE_RQ_OUT];
	uint8_t *rqc = ZN_MLX5_ADDR(in, CREATE_RQ_IN_RQC);
	uint8_t *wq = ZN_MLX5_ADDR(rqc, RQC_WQ);
	uint32_t log_b = 31u - (uint32_t)__builtin_clz(rxq->c.buf_size);
	uint32_t log_ring = 31u - (uint32_t)__builtin_clz(rxq->c.wq_mask + 1);
	uint32_t log_strides = log_b - rxq->c.log_stride;
	uint32_t log_hdr = 31u - (uint32_t)__builtin_clz(rxq->c.hdr_entry);
	uint32_t log_agg = 31u - (uint32_t)__builtin_clz(rxq->agg_pkts ? rxq->agg_pkts : 1);
	int rc, inlen;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_RQ);
	ZN_MLX5_SET(rqc, RQC_VSD, 1);		/* VLAN tags stay in the frame */
	ZN_MLX5_SET(rqc, RQC_MEM_RQ_TYPE, ZN_MLX5_RQ_TYPE_INLINE);
	ZN_MLX5_SET(rqc, RQC_STATE, ZN_MLX5_QSTATE_RST);
	ZN_MLX5_SET(rqc, RQC_CQN, rxq->cq.cqn);
	ZN_MLX5_SET(wq, WQ_PD, m->pdn);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_STRIDE, rxq->c.log_wqe);	/* striding: next + data segment */
	ZN_MLX5_SET(wq, WQ_LOG_WQ_PG_SZ, 0);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_SZ, log_ring);
	if (rxq->c.cyclic) {	/* §12.4: header slot + nbuf buffers */
		ZN_MLX5_SET(wq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_CYCLIC);
		goto pas;
	}
	ZN_MLX5_SET(rqc, RQC_SHAMPO_NO_MATCH_ALIGNMENT_GRANULARITY, ZN_MLX5_SHAMPO_NO_MATCH_ALIGN_STRIDE);
	ZN_MLX5_SET(rqc, RQC_SHAMPO_MATCH_CRITERIA_TYPE, ZN_MLX5_SHAMPO_MATCH_EXTENDED);
	ZN_MLX5_SET(wq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_LINKED_LIST_STRIDING);
	ZN_MLX5_SET(wq, WQ_END_PADDING_MODE, ZN_MLX5_WQ_END_PAD_NONE);
	ZN_MLX5_SET(wq, WQ_LOG_WQE_NUM_OF_STRIDES, zn_mlx5_mpwqe_num_strides_field((int)log_strides));
	ZN_MLX5_SET(wq, WQ_LOG_WQE_STRIDE_SIZE, rxq->c.log_stride - ZN_MLX5_MPWQE_LOG_STRIDE_SZ_BASE);
	ZN_MLX5_SET(wq, WQ_HEADERS_MKEY, rxq->hdr_key);
	ZN_MLX5_SET(wq, WQ_SHAMPO_ENABLE, 1);
	ZN_MLX5_SET(wq, WQ_LOG_RESERVATION_SIZE, log_b - ZN_MLX5_SHAMPO_LOG_RESERVATION_BASE);
	/* one packet per buffer, or HW-GRO's agg_pkts (§12.6) */
	ZN_MLX5_SET(wq, WQ_LOG_MAX_NUM_OF_PACKETS_PER_RESERVATION, log_agg);
	ZN_MLX5_SET(wq, WQ_LOG_HEADERS_ENTRY_SIZE, log_hdr - ZN_MLX5_SHAMPO_LOG_HEADER_ENTRY_BASE);
	ZN_MLX5_SET(wq, WQ_LOG_HEADERS_BUFFER_ENTRY_NUM, log_ring + log_agg);
pas:
	inlen = wq_mem(m, in, ZN_MLX5_SZ_CREATE_RQ_IN, wq, rxq->wq_iova,
		       (size_t)(rxq->c.wq_mask + 1) << rxq->c.log_wqe, rxq->rq_dbr_iova);
	if (inlen < 0)
		return inlen;
	rc = zn_mlx5_cmd(m, in, (uint32_t)inlen, out, sizeof(out));
	if (rc < 0)
		return rc;
	rxq->rqn = (uint32_t)ZN_MLX5_GET(out, CREATE_RQ_OUT_RQN);
	rxq->rq_live = true;
	return 0;
}

/* §14.1: cyclic SQ of 64-byte WQEBBs naming the one TIS. */
int zn_mlx5_sq_create(struct mlx5 *m, struct mlx5_txq *txq)
{
	uint8_t *in = cmd_buf(m), out[ZN_MLX5_SZ_CREATE_SQ_OUT];
	uint8_t *sqc = ZN_MLX5_ADDR(in, CREATE_SQ_IN_SQC);
	uint8_t *wq = ZN_MLX5_ADDR(sqc, SQC_WQ);
	uint32_t mode;
	int rc, inlen;

	mode = txq->min_inline == 0 ? ZN_MLX5_INLINE_MODE_NONE :
	       txq->min_inline <= ZN_MLX5_ETH_L2_INLINE_MIN ? ZN_MLX5_INLINE_MODE_L2 :
	       txq->min_inline <= ZN_MLX5_ETH_L2_INLINE_MIN + 40 ? ZN_MLX5_INLINE_MODE_IP :
	       ZN_MLX5_INLINE_MODE_TCP_UDP;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_SQ);
	ZN_MLX5_SET(sqc, SQC_FLUSH_IN_ERROR_EN, 1);
	ZN_MLX5_SET(sqc, SQC_MIN_WQE_INLINE_MODE, mode);
	ZN_MLX5_SET(sqc, SQC_STATE, ZN_MLX5_QSTATE_RST);
	ZN_MLX5_SET(sqc, SQC_CQN, txq->cq.cqn);
	ZN_MLX5_SET(sqc, SQC_TIS_LST_SZ, 1);
	ZN_MLX5_SET(sqc, SQC_TIS_NUM_0, m->tisn);
	ZN_MLX5_SET(wq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_CYCLIC);
	ZN_MLX5_SET(wq, WQ_PD, m->pdn);
	ZN_MLX5_SET(wq, WQ_UAR_PAGE, m->uar.index);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_STRIDE, ZN_MLX5_SEND_WQE_SHIFT);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_PG_SZ, 0);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_SZ, 31u - (uint32_t)__builtin_clz(txq->mask + 1));
	inlen = wq_mem(m, in, ZN_MLX5_SZ_CREATE_SQ_IN, wq, txq->wq_iova,
		       (size_t)(txq->mask + 1) * ZN_MLX5_SEND_WQE_BB, txq->sq_dbr_iova);
	if (inlen < 0)
		return inlen;
	rc = zn_mlx5_cmd(m, in, (uint32_t)inlen, out, sizeof(out));
	if (rc < 0)
		return rc;
	txq->sqn = (uint32_t)ZN_MLX5_GET(out, CREATE_SQ_OUT_SQN);
	txq->sq_live = true;
	return 0;
}

/* §11: the one TIS every SQ names. */
static int tis_create(struct mlx5 *m)
{
	uint8_t *in = cmd_buf(m), out[ZN_MLX5_SZ_CREATE_TIS_OUT];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_TIS);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, CREATE_TIS_IN_TISC), TISC_TRANSPORT_DOMAIN, m->tdn);
	rc = zn_mlx5_cmd(m, in, ZN_MLX5_SZ_CREATE_TIS_IN, out, sizeof(out));
	if (rc < 0)
		return rc;
	m->tisn = (uint32_t)ZN_MLX5_GET(out, CREATE_TIS_OUT_TISN);
	m->tis_live = true;
	return 0;
}

static int rxq_start(struct mlx5 *m, struct mlx5_rxq *rxq)
{
	int rc = zn_mlx5_cq_create(m, &rxq->cq);

	if (rc == 0 && !rxq->c.cyclic)
		rc = hdr_mkey_create(m, rxq);
	if (rc == 0)
		rc = zn_mlx5_rq_create(m, rxq);
	if (rc < 0)
		return rc;
	if (!zn_mlx5_rxq_refill(rxq))
		ZN_WARN(MLX5_LOG, "%s: rxq %u: the provider gave no buffers; the queue drops "
			"until it does", m->name, rxq->qid);
	return modify_state(m, false, rxq->rqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY);
}

int zn_mlx5_rq_modify(struct mlx5 *m, uint32_t rqn, unsigned from, unsigned to)
{
	return modify_state(m, false, rqn, from, to);
}

static int txq_start(struct mlx5 *m, struct mlx5_txq *txq)
{
	int rc = zn_mlx5_cq_create(m, &txq->cq);

	if (rc == 0)
		rc = zn_mlx5_sq_create(m, txq);
	if (rc == 0)
		rc = modify_state(m, true, txq->sqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY);
	return rc;
}

int zn_mlx5_queues_start(struct mlx5 *m)
{
	int rc = 0;

	for (uint16_t q = 0; q < m->conf.nb_rxq && rc == 0; q++)
		rc = rxq_start(m, m->rxq[q]);
	if (rc == 0 && m->conf.nb_txq)
		rc = tis_create(m);
	for (uint16_t q = 0; q < m->conf.nb_txq && rc == 0; q++)
		rc = txq_start(m, m->txq[q]);
	return rc;
}

void zn_mlx5_queues_stop(struct mlx5 *m)
{
	for (uint16_t q = 0; q < m->conf.nb_txq; q++) {
		struct mlx5_txq *t = m->txq[q];

		if (!t)
			continue;
		if (t->sq_live)
			zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_SQ, t->sqn);
		t->sq_live = false;
	}
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++) {
		struct mlx5_rxq *r = m->rxq[q];

		if (!r)
			continue;
		if (r->rq_live)
			zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_RQ, r->rqn);
		r->rq_live = false;
	}
	if (m->tis_live)
		zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_TIS, m->tisn);
	m->tis_live = false;
	for (uint16_t q = 0; q < m->conf.nb_txq; q++)
		if (m->txq[q]) {
			zn_mlx5_cq_destroy(m, &m->txq[q]->cq);
			zn_mlx5_txq_reset(m->txq[q]);
		}
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++) {
		struct mlx5_rxq *r = m->rxq[q];

		if (!r)
			continue;
		zn_mlx5_cq_destroy(m, &r->cq);
		if (r->mkey_live)
			zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_MKEY, r->hdr_mkey_index);
		r->mkey_live = false;
		if (r->hdr_mr)
			m->cmd_ops->mkey_dereg(m, r->hdr_mr);
		r->hdr_mr = NULL;
		zn_mlx5_rxq_reset(r);
	}
}
