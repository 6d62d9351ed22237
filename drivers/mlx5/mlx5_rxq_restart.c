/* SPDX-License-Identifier: MIT */
/*
 * One RX queue restarted in place (zn_port_ops.rxq_restart), so that a
 * provider swapped in (a zcrx area) backs every buffer the NIC fills from
 * then on. As Linux flushes an RQ (mlx5e_flush_rq in drivers/net/ethernet/
 * mellanox/mlx5/core/en_main.c): MODIFY_RQ RDY -> RST, after which the
 * device writes into none of the RQ's buffers and forgets its WQE counter
 * (and a SHAMPO RQ its header position); every posted buffer goes back
 * through put(); the work queue starts over at index 0 with fresh buffers
 * from the current provider; MODIFY_RQ RST -> RDY. The RQ keeps its number,
 * so the TIRs and RQT that name it, the flow rules and RSS need nothing.
 * The CQ lives on: the CQEs the device wrote before the RST are consumed
 * here (their frames counted as drops, as a reset's are) and its consumer
 * counter carries on where it was.
 */
#include <errno.h>

#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

static void cq_drain(struct mlx5_rxq *rxq)
{
	uint32_t ncqe;

	rxq->st.nobuf += zn_mlx5_rx_unread(rxq, &ncqe);
	rxq->cq.ci += ncqe;
	rxq->cq.dbr[ZN_MLX5_CQ_DBR_SET_CI] = zn_mlx5_bswap32(rxq->cq.ci & ZN_MLX5_CQ_CI_MASK);
}

int zn_mlx5_rxq_restart(struct mlx5 *m, uint16_t qid)
{
	struct mlx5_rxq *rxq;
	int rc;

	if (qid >= m->conf.nb_rxq || !m->rxq[qid])
		return -EINVAL;
	if (!m->started)
		return 0;	/* start posts from the current provider anyway */
	if (m->gone || m->dead)
		return -EIO;
	rxq = m->rxq[qid];
	rc = zn_mlx5_rq_modify(m, rxq->rqn, ZN_MLX5_QSTATE_RDY, ZN_MLX5_QSTATE_RST);
	if (rc < 0)
		return rc;
	cq_drain(rxq);
	zn_mlx5_rxq_reset_wq(rxq);
	if (!zn_mlx5_rxq_refill(rxq))
		ZN_WARN(MLX5_LOG, "%s: rxq %u: the provider gave no buffers; the queue drops "
			"until it does", m->name, qid);
	rc = zn_mlx5_rq_modify(m, rxq->rqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY);
	if (rc == 0)
		ZN_DEBUG(MLX5_LOG, "%s: rxq %u restarted (RQ 0x%x)", m->name, qid, rxq->rqn);
	return rc;
}
