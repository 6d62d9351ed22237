/* SPDX-License-Identifier: MIT */
/*
 * One RX queue restarted in place (zn_port_ops.rxq_restart), so that a
 * provider swapped in (a zcrx area) backs every buffer the NIC fills from
 * then on. The steps follow Linux's per-queue restart for P5 chips
 * (bnxt_queue_stop / bnxt_queue_start in drivers/net/ethernet/broadcom/
 * bnxt/bnxt.c): RING_FREE of the AGG and the RX ring, each waited for on
 * the queue's CQ (after its HWRM_DONE the device writes no buffer of the
 * ring any more), every posted buffer back through put(), RING_ALLOC of
 * both rings with the same parameters, fresh buffers from the current
 * provider, and the VNICs told the rings' ids again (VNIC_RSS_CFG, and
 * VNIC_CFG where the ring is a default ring). The stat context, the CQ and
 * its position, the other queues' rings, flow rules and RSS settings stay.
 * As in Linux, the VNICs that name the ring (the default one, whose RSS
 * table names every queue, and the queue's steering VNIC) place no frame
 * from the VNIC_UPDATE that sets their MRU to 0 until the one that sets it
 * back: the frames that arrive meanwhile, for any queue of the default
 * VNIC, are dropped (TCP resends them), as with Linux's restart.
 */
#include <errno.h>
#include <string.h>

#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

int zn_bnxt_rxq_restart(struct bnxt *bp, uint16_t qid)
{
	struct bnxt_rxq *q;
	int rc;

	if (qid >= bp->conf.nb_rxq || !bp->rxq[qid])
		return -EINVAL;
	if (!bp->started)
		return 0;	/* start posts from the current provider anyway */
	if (bp->gone || bp->hwrm.dead || bp->recovering)
		return -EIO;
	q = bp->rxq[qid];
	rc = zn_bnxt_vnic_hold(bp, qid, true);
	if (rc < 0)
		goto err_held;
	zn_bnxt_rxq_stop_rings(bp, q);	/* drains the CQ: frames in it are dropped */
	zn_bnxt_rxq_release_bufs(q);
	zn_bnxt_rxq_prepare_rings(q);
	rc = zn_bnxt_ring_alloc(bp, &q->rx, q->cq.id, 0, q->stat_ctx_id, q->c.hdr_buf_size);
	if (rc == 0)
		rc = zn_bnxt_ring_alloc(bp, &q->agg, q->cq.id, q->rx.id, q->stat_ctx_id,
					q->c.agg_buf_size);
	if (rc == 0)
		rc = zn_bnxt_vnic_rering(bp, qid);
	if (rc < 0)
		goto err_held;
	q->rx_db = q->rx.db;
	q->agg_db = q->agg.db;
	zn_bnxt_rxq_post_initial(q);
	rc = zn_bnxt_vnic_hold(bp, qid, false);
	if (rc < 0)
		goto err;
	ZN_DEBUG(BNXT_LOG, "%s: rxq %u restarted: RX ring %u, AGG ring %u", bp->name, qid,
		 q->rx.id, q->agg.id);
	return 0;

err_held:
	zn_bnxt_vnic_hold(bp, qid, false);	/* the other queues receive again */
err:
	ZN_ERR(BNXT_LOG, "%s: rxq %u: restart failed (%s): the queue may receive nothing "
	       "until the port restarts", bp->name, qid, strerror(-rc));
	return rc;
}
