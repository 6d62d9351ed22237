/* SPDX-License-Identifier: MIT */
/*
 * The bnxt driver behind struct zn_port_ops: PCI ID match, probe (map the
 * BARs, open the firmware channel, §4 steps 1-8), port configuration, the
 * data-path entry points, statistics and link, close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define MTU_MIN		68	/* IPv4's minimum */

static inline struct bnxt *to_bp(struct zn_port *p)
{
	return p->priv;
}

static bool is_pre_p5(uint16_t device)
{
	switch (device) {
	case BNXT_DEV_STRATUS_NIC_VF1: case BNXT_DEV_STRATUS_NIC_VF2: case BNXT_DEV_STRATUS_NIC:
	case BNXT_DEV_57414_VF: case BNXT_DEV_57304_VF: case BNXT_DEV_57417_MF:
	case BNXT_DEV_57312: case BNXT_DEV_57402: case BNXT_DEV_57404: case BNXT_DEV_57406:
	case BNXT_DEV_57406_VF: case BNXT_DEV_57402_MF: case BNXT_DEV_57407_RJ45:
	case BNXT_DEV_57412: case BNXT_DEV_57414: case BNXT_DEV_57416_RJ45:
	case BNXT_DEV_57417_RJ45: case BNXT_DEV_5741X_VF: case BNXT_DEV_57412_MF:
	case BNXT_DEV_57314: case BNXT_DEV_57317_RJ45: case BNXT_DEV_5731X_VF:
	case BNXT_DEV_57417_SFP: case BNXT_DEV_57416_SFP: case BNXT_DEV_57317_SFP:
	case BNXT_DEV_57404_MF: case BNXT_DEV_57406_MF: case BNXT_DEV_57407_SFP:
	case BNXT_DEV_57407_MF: case BNXT_DEV_57414_MF: case BNXT_DEV_57416_MF:
		return true;
	default:
		return false;
	}
}

static bool bnxt_match(uint16_t vendor, uint16_t device)
{
	return vendor == BNXT_PCI_VENDOR_BROADCOM && (bnxt_dev_is_p5(device) || is_pre_p5(device));
}

static void bnxt_info(struct zn_port *p, struct zn_port_info *info)
{
	struct bnxt *bp = to_bp(p);
	uint32_t rxq = bp->max_rx_rings / 2, txq = bp->max_tx_rings;

	memset(info, 0, sizeof(*info));
	snprintf(info->driver, sizeof(info->driver), "bnxt");
	info->vendor = bp->vendor;
	info->device = bp->device;
	memcpy(info->mac, bp->mac, ZN_ETH_ALEN);
	if (bp->max_vnics > 1 && rxq > bp->max_vnics - 1u)
		rxq = bp->max_vnics - 1u;
	info->max_rxq = (uint16_t)(rxq < BNXT_MAX_QUEUES ? rxq : BNXT_MAX_QUEUES);
	info->max_txq = (uint16_t)(txq < BNXT_MAX_QUEUES ? txq : BNXT_MAX_QUEUES);
	info->max_mtu = BNXT_MTU_MAX;
	info->rx_ring_max = BNXT_RX_RING_MAX;
	info->tx_ring_max = BNXT_TX_RING_MAX;
	info->rss_table_size = zn_bnxt_rss_table_size(bp);
	info->hds = true;
	info->tx_offloads = BNXT_TX_OFFLOADS;
	info->rx_offloads = BNXT_RX_OFFLOADS;
	info->max_lso = BNXT_TX_LSO_MAX;
	info->max_agg_segs = BNXT_MAX_TPA_SEGS_P5;
}

/* Before the control path asks the firmware anything: a reset it announced,
 * or a command that timed out, is recovered from first (bnxt_init.c). */
static int ensure_alive(struct bnxt *bp)
{
	if (bp->gone)
		return -ENODEV;
	if (bp->started)
		zn_bnxt_nq_poll(bp);
	if (bp->reset_notified)
		return zn_bnxt_recover(bp, bp->fw_fatal ? "firmware fatal error" :
					   "the firmware reset the function");
	if (bp->hwrm.dead)
		return zn_bnxt_recover(bp, "a command timed out");
	return 0;
}

static void destroy_queues(struct bnxt *bp, uint16_t nrx, uint16_t ntx)
{
	for (uint16_t q = nrx; q < BNXT_MAX_QUEUES; q++) {
		zn_bnxt_rxq_destroy(bp, bp->rxq[q]);
		bp->rxq[q] = NULL;
	}
	for (uint16_t q = ntx; q < BNXT_MAX_QUEUES; q++) {
		zn_bnxt_txq_destroy(bp, bp->txq[q]);
		bp->txq[q] = NULL;
	}
}

static int bnxt_configure(struct zn_port *p, const struct zn_port_conf *conf)
{
	struct bnxt *bp = to_bp(p);
	struct zn_port_info info;
	uint32_t mtu = conf->mtu ? conf->mtu : BNXT_MTU_DFLT;

	bnxt_info(p, &info);
	if (bp->started)
		return -EBUSY;
	if (!conf->nb_rxq || conf->nb_rxq > info.max_rxq || conf->nb_txq > info.max_txq) {
		ZN_ERR(BNXT_LOG, "%s: %u RX / %u TX queues asked; this function has 1..%u RX "
		       "and 0..%u TX queues", bp->name, conf->nb_rxq, conf->nb_txq,
		       info.max_rxq, info.max_txq);
		return -EINVAL;
	}
	if (conf->nb_rxq + conf->nb_txq > bp->max_cmpl_rings ||
	    conf->nb_rxq + conf->nb_txq > bp->max_stat_ctx) {
		ZN_ERR(BNXT_LOG, "%s: %u queues need as many completion rings and stat "
		       "contexts; the function has %u and %u", bp->name,
		       conf->nb_rxq + conf->nb_txq, bp->max_cmpl_rings, bp->max_stat_ctx);
		return -EINVAL;
	}
	if (mtu < MTU_MIN || mtu > BNXT_MTU_MAX) {
		ZN_ERR(BNXT_LOG, "%s: MTU %u outside %u..%u", bp->name, mtu, MTU_MIN, BNXT_MTU_MAX);
		return -EINVAL;
	}
	/* Queues past the new counts go; the others take the MTU at start. */
	destroy_queues(bp, conf->nb_rxq, conf->nb_txq);
	bp->conf = *conf;
	bp->conf.mtu = mtu;
	bp->configured = true;
	bp->rss_set = false;
	return 0;
}

static int bnxt_rxq_setup(struct zn_port *p, uint16_t q, const struct zn_rxq_conf *conf)
{
	struct bnxt *bp = to_bp(p);
	struct bnxt_rxq *rxq;
	int rc;

	if (bp->started)
		return -EBUSY;
	if (!bp->configured || q >= bp->conf.nb_rxq)
		return -EINVAL;
	zn_bnxt_rxq_destroy(bp, bp->rxq[q]);
	bp->rxq[q] = NULL;
	rc = zn_bnxt_rxq_create(bp, q, conf, &rxq);
	if (rc < 0)
		return rc;
	bp->rxq[q] = rxq;
	return 0;
}

static int bnxt_txq_setup(struct zn_port *p, uint16_t q, const struct zn_txq_conf *conf)
{
	struct bnxt *bp = to_bp(p);
	struct bnxt_txq *txq;
	int rc;

	if (bp->started)
		return -EBUSY;
	if (!bp->configured || q >= bp->conf.nb_txq)
		return -EINVAL;
	zn_bnxt_txq_destroy(bp, bp->txq[q]);
	bp->txq[q] = NULL;
	rc = zn_bnxt_txq_create(bp, q, conf, &txq);
	if (rc < 0)
		return rc;
	bp->txq[q] = txq;
	return 0;
}

static int bnxt_start_op(struct zn_port *p)
{
	struct bnxt *bp = to_bp(p);
	int rc;

	if (bp->started)
		return 0;
	if (!bp->configured) {
		ZN_ERR(BNXT_LOG, "%s: start before configure", bp->name);
		return -EINVAL;
	}
	for (uint16_t q = 0; q < bp->conf.nb_rxq; q++)
		if (!bp->rxq[q]) {
			ZN_ERR(BNXT_LOG, "%s: rxq %u is not set up", bp->name, q);
			return -EINVAL;
		}
	for (uint16_t q = 0; q < bp->conf.nb_txq; q++)
		if (!bp->txq[q]) {
			ZN_ERR(BNXT_LOG, "%s: txq %u is not set up", bp->name, q);
			return -EINVAL;
		}
	rc = zn_bnxt_start(bp);
	/* its last step, the link query, may be the command that timed out */
	return rc < 0 ? rc : ensure_alive(bp);
}

static void bnxt_stop_op(struct zn_port *p)
{
	zn_bnxt_stop(to_bp(p));
}

static uint32_t bnxt_rx_burst_op(struct zn_port *p, uint16_t q, struct zn_rx_pkt *pkts,
				 uint32_t n)
{
	struct bnxt *bp = to_bp(p);

	if (__builtin_expect(q >= bp->conf.nb_rxq || !bp->started, 0))
		return 0;
	return zn_bnxt_rx_burst(bp->rxq[q], pkts, n);
}

static void *bnxt_rxq_get_op(struct zn_port *p, uint16_t q)
{
	return to_bp(p)->rxq[q];
}

static uint32_t bnxt_rxq_burst_op(void *rxq, struct zn_rx_pkt *pkts, uint32_t n)
{
	return zn_bnxt_rx_burst(rxq, pkts, n);
}

static uint32_t bnxt_tx_burst_op(struct zn_port *p, uint16_t q, const struct zn_tx_pkt *pkts,
				 uint32_t n)
{
	struct bnxt *bp = to_bp(p);

	if (__builtin_expect(q >= bp->conf.nb_txq || !bp->started, 0))
		return 0;
	return zn_bnxt_tx_burst(bp->txq[q], pkts, n);
}

static uint32_t bnxt_tx_reap_op(struct zn_port *p, uint16_t q, uint64_t *cookies, uint32_t n)
{
	struct bnxt *bp = to_bp(p);

	if (__builtin_expect(q >= bp->conf.nb_txq || !bp->txq[q], 0))
		return 0;
	return zn_bnxt_tx_reap(bp->txq[q], cookies, n);
}

static int bnxt_flow_add_op(struct zn_port *p, const struct zn_flow_match *m, uint16_t q,
			    uint32_t *rule_id)
{
	int rc = ensure_alive(to_bp(p));

	return rc < 0 ? rc : zn_bnxt_flow_add(to_bp(p), m, q, rule_id);
}

static int bnxt_flow_del_op(struct zn_port *p, uint32_t rule_id)
{
	return zn_bnxt_flow_del(to_bp(p), rule_id);
}

static int bnxt_rss_set_op(struct zn_port *p, const struct zn_rss_conf *rss)
{
	struct bnxt *bp = to_bp(p);
	struct zn_rss_conf old = bp->rss;
	bool old_set = bp->rss_set;
	int rc;

	if (!bp->configured)
		return -EINVAL;
	rc = zn_bnxt_rss_check(bp, rss);
	if (rc < 0)
		return rc;
	bp->rss = *rss;
	bp->rss_set = true;
	if (bp->started) {
		rc = zn_bnxt_rss_apply(bp);
		if (rc < 0) {
			bp->rss = old;
			bp->rss_set = old_set;
		}
	}
	return rc;
}

static int bnxt_link_op(struct zn_port *p, struct zn_link *link)
{
	struct bnxt *bp = to_bp(p);
	int rc;

	/* The control thread's regular question: also where a reset under the
	 * driver, or a command that timed out, is noticed and recovered. */
	rc = ensure_alive(bp);
	if (rc < 0)
		return rc;
	rc = zn_bnxt_link_query(bp, link);
	/* a timeout may be the first sign of an event still on its way: the
	 * NQ is read again before recovery picks its course */
	if (rc < 0 && bp->hwrm.dead) {
		rc = ensure_alive(bp);
		if (rc == 0)
			rc = zn_bnxt_link_query(bp, link);
	}
	if (rc == 0) {
		bp->link = *link;
		bp->link_known = true;
	}
	return rc;
}

static int bnxt_rxq_stats_op(struct zn_port *p, uint16_t q, struct zn_queue_stats *st)
{
	struct bnxt *bp = to_bp(p);
	const struct bnxt_rxq *r;

	if (q >= bp->conf.nb_rxq || !bp->rxq[q])
		return -EINVAL;
	r = bp->rxq[q];
	memset(st, 0, sizeof(*st));
	st->packets = r->st.packets;
	st->bytes = r->st.bytes;
	st->errors = r->st.errors;
	/* The device counts the frames it had no buffer for (DMAed periodically). */
	st->drops = __atomic_load_n(&r->hw_stats->rx_discard_pkts, __ATOMIC_RELAXED);
	st->bad_cmpl = r->st.bad_cmpl;
	return 0;
}

static int bnxt_txq_stats_op(struct zn_port *p, uint16_t q, struct zn_queue_stats *st)
{
	struct bnxt *bp = to_bp(p);
	const struct bnxt_txq *t;

	if (q >= bp->conf.nb_txq || !bp->txq[q])
		return -EINVAL;
	t = bp->txq[q];
	memset(st, 0, sizeof(*st));
	st->packets = t->st.packets;
	st->bytes = t->st.bytes;
	st->errors = t->st.errors;
	st->drops = t->st.full;
	st->bad_cmpl = t->st.bad_cmpl;
	return 0;
}

static int bnxt_rxq_restart_op(struct zn_port *p, uint16_t q)
{
	return zn_bnxt_rxq_restart(to_bp(p), q);
}

static void bnxt_close(struct zn_port *p)
{
	struct bnxt *bp = to_bp(p);

	if (!bp)
		return;
	zn_bnxt_stop(bp);
	destroy_queues(bp, 0, 0);
	zn_bnxt_fw_fini(bp);
	zn_bnxt_hwrm_fini(bp);
	free(bp);
	p->priv = NULL;
}

static int bnxt_irq_vectors_op(struct zn_port *p)
{
	return zn_bnxt_irq_vectors(to_bp(p));
}

static int bnxt_irq_vector_op(struct zn_port *p, bool tx, uint16_t q)
{
	return zn_bnxt_irq_vector(to_bp(p), tx, q);
}

static int bnxt_irq_arm_op(struct zn_port *p, bool tx, uint16_t q)
{
	return zn_bnxt_irq_arm(to_bp(p), tx, q);
}

static void bnxt_owner_reset_op(struct zn_port *p)
{
	struct bnxt *bp = to_bp(p);

	for (unsigned q = 0; q < BNXT_MAX_QUEUES; q++) {
		if (bp->rxq[q])
			zn_owner_reset(&bp->rxq[q]->owner);
		if (bp->txq[q])
			zn_owner_reset(&bp->txq[q]->owner);
	}
}

static const struct zn_port_ops bnxt_ops = {
	.name = "bnxt",
	.info = bnxt_info,
	.configure = bnxt_configure,
	.rxq_setup = bnxt_rxq_setup,
	.txq_setup = bnxt_txq_setup,
	.start = bnxt_start_op,
	.stop = bnxt_stop_op,
	.rx_burst = bnxt_rx_burst_op,
	.rxq_get = bnxt_rxq_get_op,
	.rxq_burst = bnxt_rxq_burst_op,
	.tx_burst = bnxt_tx_burst_op,
	.tx_reap = bnxt_tx_reap_op,
	.flow_add = bnxt_flow_add_op,
	.flow_del = bnxt_flow_del_op,
	.rss_set = bnxt_rss_set_op,
	.link = bnxt_link_op,
	.rxq_stats = bnxt_rxq_stats_op,
	.txq_stats = bnxt_txq_stats_op,
	.rxq_restart = bnxt_rxq_restart_op,
	.close = bnxt_close,
	.irq_vectors = bnxt_irq_vectors_op,
	.irq_vector = bnxt_irq_vector_op,
	.irq_arm = bnxt_irq_arm_op,
	.owner_reset = bnxt_owner_reset_op,
};

/* §4 step 1: map BAR0 (HWRM) and BAR2 (doorbells), then the firmware. */
static int bnxt_probe(struct zn_port *p, uint16_t vendor, uint16_t device)
{
	struct bnxt *bp;
	uint64_t size;
	int rc;

	if (!bnxt_dev_is_p5(device)) {
		ZN_ERR(BNXT_LOG, "%s: Broadcom device 0x%04x is a pre-P5 (BCM573xx/574xx) part; "
		       "zcnic drives P5 (BCM5750x) only", p->bus->name, device);
		return -EOPNOTSUPP;
	}
	bp = calloc(1, sizeof(*bp));
	if (!bp)
		return -ENOMEM;
	bp->port = p;
	bp->bus = p->bus;
	bp->vendor = vendor;
	bp->device = device;
	bp->vf = bnxt_dev_is_vf(device);
	bp->vnic_id = BNXT_INVALID_ID16;
	snprintf(bp->name, sizeof(bp->name), "bnxt %s", p->bus->name);

	rc = zn_bus_enable_bus_master(bp->bus);
	if (rc == 0)
		rc = zn_bus_map_bar(bp->bus, BNXT_BAR_REGS, NULL, &size);
	if (rc == 0 && size < BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER + 4) {
		ZN_ERR(BNXT_LOG, "%s: BAR0 is %llu bytes, too small for the HWRM channel",
		       bp->name, (unsigned long long)size);
		rc = -ENODEV;
	}
	if (rc == 0)
		rc = zn_bus_map_bar(bp->bus, BNXT_BAR_DB, NULL, &bp->bar2_size);
	if (rc == 0)
		rc = zn_bnxt_hwrm_init(bp);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: cannot map the device: %s", bp->name, strerror(-rc));
		free(bp);
		return rc;
	}
	rc = zn_bnxt_fw_init(bp);
	if (rc < 0) {
		zn_bnxt_hwrm_fini(bp);
		free(bp);
		return rc;
	}
	p->ops = &bnxt_ops;
	p->priv = bp;
	return 0;
}

const struct zn_port_driver zn_bnxt_driver = {
	.name = "bnxt",
	.match = bnxt_match,
	.probe = bnxt_probe,
};
