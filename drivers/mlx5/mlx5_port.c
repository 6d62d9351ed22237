/* SPDX-License-Identifier: MIT */
/*
 * The mlx5 driver behind struct zn_port_ops: PCI ID match, probe (map BAR0,
 * bring the HCA up, hw-docs/mlx5.md §4 steps 1-17), port configuration,
 * start/stop (§4 steps 18-21 and their undoing), the data-path entry
 * points, statistics, link, close (teardown, every page back, §6).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/bus/ibv_bus.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

#define MLX5_VENDOR		0x15b3
#define MLX5_DEV_CX6DX		0x101d
#define MLX5_DEV_CX7		0x1021

static inline struct mlx5 *to_m(struct zn_port *p)
{
	return p->priv;
}

uint64_t zn_mlx5_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int zn_mlx5_dma_alloc(struct mlx5 *m, const char *what, size_t len, struct zn_dma_region **out)
{
	struct zn_dma_region *r;
	int rc;

	if (m->cmd_ops && m->cmd_ops->dma_alloc)	/* DevX: a umem, no bus mapping */
		return m->cmd_ops->dma_alloc(m, what, len, out);
	rc = zn_dma_region_alloc(what, len, -1, ZN_DMA_NO_HUGE, &r);
	if (rc < 0) {
		ZN_ERR(MLX5_LOG, "%s: cannot allocate %zu bytes for %s: %s", m->name, len, what,
		       strerror(-rc));
		return rc;
	}
	memset(r->va, 0, r->len);
	rc = zn_bus_dma_map(m->bus, r);
	if (rc < 0) {
		ZN_ERR(MLX5_LOG, "%s: cannot DMA-map %s: %s", m->name, what, strerror(-rc));
		zn_dma_region_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void zn_mlx5_dma_free(struct mlx5 *m, struct zn_dma_region **r)
{
	if (!*r)
		return;
	if (m->cmd_ops && m->cmd_ops->dma_free) {
		m->cmd_ops->dma_free(m, *r);
		*r = NULL;
		return;
	}
	zn_bus_dma_unmap(m->bus, *r);
	zn_dma_region_free(*r);
	*r = NULL;
}

static bool mlx5_match(uint16_t vendor, uint16_t device)
{
	return vendor == MLX5_VENDOR && (device == MLX5_DEV_CX6DX || device == MLX5_DEV_CX7);
}

static void mlx5_info(struct zn_port *p, struct zn_port_info *info)
{
	struct mlx5 *m = to_m(p);

	memset(info, 0, sizeof(*info));
	snprintf(info->driver, sizeof(info->driver), "mlx5");
	info->vendor = m->vendor;
	info->device = m->device;
	memcpy(info->mac, m->mac, ZN_ETH_ALEN);
	info->max_rxq = MLX5_MAX_QUEUES;
	info->max_txq = MLX5_MAX_QUEUES;
	info->max_mtu = MLX5_MTU_MAX;
	info->rx_ring_max = MLX5_RX_RING_MAX;
	info->tx_ring_max = MLX5_TX_RING_MAX;
	info->rss_table_size = zn_mlx5_rss_table_size(m);
	info->hds = true;
	info->tx_offloads = zn_mlx5_tx_offloads(&m->caps);
	info->rx_offloads = zn_mlx5_rx_offloads(&m->caps);
	info->max_lso = zn_mlx5_max_lso(&m->caps);
	info->max_agg_segs = info->rx_offloads & ZN_RX_OFFLOAD_TCP_AGG ? MLX5_AGG_SEGS_MAX : 0;
}

static void destroy_queues(struct mlx5 *m, uint16_t nrx, uint16_t ntx)
{
	for (uint16_t q = nrx; q < MLX5_MAX_QUEUES; q++) {
		zn_mlx5_rxq_destroy(m, m->rxq[q]);
		m->rxq[q] = NULL;
	}
	for (uint16_t q = ntx; q < MLX5_MAX_QUEUES; q++) {
		zn_mlx5_txq_destroy(m, m->txq[q]);
		m->txq[q] = NULL;
	}
}

static int mlx5_configure(struct zn_port *p, const struct zn_port_conf *conf)
{
	struct mlx5 *m = to_m(p);
	uint32_t mtu = conf->mtu ? conf->mtu : MLX5_MTU_DFLT;

	/* core/port refused a started port and counts above ZN_PORT_MAX_QUEUES. */
	if (!conf->nb_rxq) {
		ZN_ERR(MLX5_LOG, "%s: no RX queue asked; 1..%u", m->name, MLX5_MAX_QUEUES);
		return -EINVAL;
	}
	if (mtu < MLX5_MTU_MIN || mtu > MLX5_MTU_MAX) {
		ZN_ERR(MLX5_LOG, "%s: MTU %u outside %u..%u", m->name, mtu, MLX5_MTU_MIN,
		       MLX5_MTU_MAX);
		return -EINVAL;
	}
	destroy_queues(m, conf->nb_rxq, conf->nb_txq);
	m->conf = *conf;
	m->conf.mtu = mtu;
	m->configured = true;
	m->rss_set = false;
	memset(m->flows, 0, sizeof(m->flows));	/* rules name queues of the old layout */
	return 0;
}

static int mlx5_rxq_setup(struct zn_port *p, uint16_t q, const struct zn_rxq_conf *conf)
{
	struct mlx5 *m = to_m(p);
	struct mlx5_rxq *rxq;
	int rc;

	/* core/port checked the port is configured with queue q and stopped. */
	zn_mlx5_rxq_destroy(m, m->rxq[q]);
	m->rxq[q] = NULL;
	rc = zn_mlx5_rxq_create(m, q, conf, &rxq);
	if (rc < 0)
		return rc;
	m->rxq[q] = rxq;
	return 0;
}

static int mlx5_txq_setup(struct zn_port *p, uint16_t q, const struct zn_txq_conf *conf)
{
	struct mlx5 *m = to_m(p);
	struct mlx5_txq *txq;
	int rc;

	zn_mlx5_txq_destroy(m, m->txq[q]);
	m->txq[q] = NULL;
	rc = zn_mlx5_txq_create(m, q, conf, &txq);
	if (rc < 0)
		return rc;
	m->txq[q] = txq;
	return 0;
}

void zn_mlx5_port_stop(struct mlx5 *m)
{
	if (!m->started)
		return;
	zn_mlx5_steer_stop(m);
	zn_mlx5_queues_stop(m);
	zn_mlx5_irq_stop(m);
	zn_mlx5_eq_poll(m);		/* pages the device freed come back now */
	m->started = false;
}

static void mlx5_stop_op(struct zn_port *p)
{
	zn_mlx5_port_stop(to_m(p));
}

int zn_mlx5_port_start(struct mlx5 *m)
{
	int rc;

	/* A started port's queues may go to any thread (core/debug/owner.h). */
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++)
		zn_owner_reset(&m->rxq[q]->owner);
	for (uint16_t q = 0; q < m->conf.nb_txq; q++)
		zn_owner_reset(&m->txq[q]->owner);
	m->started = true;	/* so that stop undoes a partial start */
	rc = zn_mlx5_vport_config(m);
	if (rc == 0 && zn_mlx5_irq_start(m) < 0) {
		/* the port works without: it is polled */
		ZN_WARN(MLX5_LOG, "%s: no completion EQs: the port has no interrupts", m->name);
		zn_mlx5_irq_stop(m);
	}
	if (rc == 0)
		rc = zn_mlx5_queues_start(m);
	if (rc == 0)
		rc = zn_mlx5_steer_start(m);
	if (rc == 0)
		rc = zn_mlx5_eq_poll(m);
	if (rc < 0)
		zn_mlx5_port_stop(m);
	return rc;
}

static int mlx5_start_op(struct zn_port *p)
{
	struct mlx5 *m = to_m(p);

	if (m->started)
		return 0;
	if (m->dead)
		return -EIO;
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++) {
		if (!m->rxq[q]) {
			ZN_ERR(MLX5_LOG, "%s: rxq %u is not set up", m->name, q);
			return -EINVAL;
		}
		/* Its WQE layout holds frames of the MTU it was set up for. */
		if (m->rxq[q]->mtu < m->conf.mtu) {
			ZN_ERR(MLX5_LOG, "%s: rxq %u was set up for MTU %u, the port has %u now: "
			       "set it up again", m->name, q, m->rxq[q]->mtu, m->conf.mtu);
			return -EINVAL;
		}
	}
	for (uint16_t q = 0; q < m->conf.nb_txq; q++)
		if (!m->txq[q]) {
			ZN_ERR(MLX5_LOG, "%s: txq %u is not set up", m->name, q);
			return -EINVAL;
		}
	return zn_mlx5_port_start(m);
}

/* A dead device stops its data path (the queues read as empty). */
void zn_mlx5_mark_dead(struct mlx5 *m)
{
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++)
		if (m->rxq[q])
			m->rxq[q]->dead = true;
	for (uint16_t q = 0; q < m->conf.nb_txq; q++)
		if (m->txq[q])
			m->txq[q]->err = true;
}

/*
 * The health check reads BAR0 words; where they are mapped (real hardware)
 * that is a few loads, and queue 0 does it from its burst. Where they are
 * trapped (a syscall each) the control path does it alone.
 */
void zn_mlx5_rx_health(struct mlx5_rxq *rxq)
{
	struct mlx5 *m = rxq->m;
	uint64_t now;

	if (!m->health_mapped || m->dead)
		return;
	now = zn_mlx5_now_ms();
	if (now < m->health_next_ms)
		return;
	if (zn_mlx5_health_check(m) < 0)
		zn_mlx5_mark_dead(m);
}

static uint32_t mlx5_rx_burst_op(struct zn_port *p, uint16_t q, struct zn_rx_pkt *pkts,
				 uint32_t n)
{
	struct mlx5 *m = to_m(p);

	if (__builtin_expect(q >= m->conf.nb_rxq || !m->started, 0))
		return 0;
	return zn_mlx5_rx_burst(m->rxq[q], pkts, n);
}

/* Bound queues (zn_port_rxq): valid from start to stop, nothing checked per burst. */
static void *mlx5_rxq_get_op(struct zn_port *p, uint16_t q)
{
	return to_m(p)->rxq[q];
}

static uint32_t mlx5_rxq_burst_op(void *rxq, struct zn_rx_pkt *pkts, uint32_t n)
{
	return zn_mlx5_rx_burst(rxq, pkts, n);
}

static uint32_t mlx5_tx_burst_op(struct zn_port *p, uint16_t q, const struct zn_tx_pkt *pkts,
				 uint32_t n)
{
	struct mlx5 *m = to_m(p);

	if (__builtin_expect(q >= m->conf.nb_txq || !m->started, 0))
		return 0;
	return zn_mlx5_tx_burst(m->txq[q], pkts, n);
}

static uint32_t mlx5_tx_reap_op(struct zn_port *p, uint16_t q, uint64_t *cookies, uint32_t n)
{
	struct mlx5 *m = to_m(p);

	if (__builtin_expect(q >= m->conf.nb_txq || !m->txq[q], 0))
		return 0;
	return zn_mlx5_tx_reap(m->txq[q], cookies, n);
}

static int mlx5_flow_add_op(struct zn_port *p, const struct zn_flow_match *fm, uint16_t q,
			    uint32_t *rule_id)
{
	struct mlx5 *m = to_m(p);
	int rc = zn_mlx5_ensure_alive(m);

	if (rc == 0)
		rc = zn_mlx5_flow_add(m, fm, q, rule_id);
	/* the reset may come between the health read and the rule's commands */
	if (rc < 0 && zn_mlx5_recoverable(m)) {
		rc = zn_mlx5_ensure_alive(m);
		if (rc == 0)
			rc = zn_mlx5_flow_add(m, fm, q, rule_id);
	}
	return rc;
}

static int mlx5_flow_del_op(struct zn_port *p, uint32_t rule_id)
{
	return zn_mlx5_flow_del(to_m(p), rule_id);
}

static int mlx5_rss_set_op(struct zn_port *p, const struct zn_rss_conf *rss)
{
	struct mlx5 *m = to_m(p);
	struct zn_rss_conf old = m->rss;
	bool old_set = m->rss_set;
	int rc;

	rc = zn_mlx5_rss_check(m, rss);	/* core/port checked the port is configured */
	if (rc < 0)
		return rc;
	m->rss = *rss;
	m->rss_set = true;
	if (m->started) {
		rc = zn_mlx5_rss_apply(m);
		if (rc < 0) {
			m->rss = old;
			m->rss_set = old_set;
			zn_mlx5_rss_apply(m);
		}
	}
	return rc;
}

static int mlx5_link_op(struct zn_port *p, struct zn_link *link)
{
	struct mlx5 *m = to_m(p);
	int rc;

	/* The control thread's regular question: also where a reset under the
	 * driver, or a command that timed out, is noticed and recovered. */
	rc = zn_mlx5_ensure_alive(m);
	if (rc < 0)
		return rc;
	rc = zn_mlx5_link_query(m, link);
	/* the reset may come between the health read and the query */
	if (rc < 0 && zn_mlx5_recoverable(m)) {
		rc = zn_mlx5_ensure_alive(m);
		if (rc == 0)
			rc = zn_mlx5_link_query(m, link);
	}
	/* A query the firmware refused (a status, not a dead channel) is not
	 * worth the port: zn_mlx5_link_query said so; the link stays as last
	 * known. */
	if (rc < 0 && !m->dead) {
		*link = m->link;
		rc = 0;
	}
	if (rc == 0)
		m->link = *link;
	return rc;
}

static int mlx5_rxq_stats_op(struct zn_port *p, uint16_t q, struct zn_queue_stats *st)
{
	struct mlx5 *m = to_m(p);
	const struct mlx5_rxq *r;

	if (q >= m->conf.nb_rxq || !m->rxq[q])
		return -EINVAL;
	/* Health only: recovery touches every queue, and other queues' threads
	 * may run meanwhile; the link check recovers. */
	if (!m->dead && zn_mlx5_health_check(m) == 0)
		zn_mlx5_eq_poll(m);
	if (m->dead)
		zn_mlx5_mark_dead(m);
	r = m->rxq[q];
	memset(st, 0, sizeof(*st));
	st->packets = r->st.packets;
	st->bytes = r->st.bytes;
	st->errors = r->st.errors;
	st->drops = r->st.nobuf;
	st->bad_cmpl = r->st.bad_cmpl;
	return 0;
}

static int mlx5_txq_stats_op(struct zn_port *p, uint16_t q, struct zn_queue_stats *st)
{
	struct mlx5 *m = to_m(p);
	const struct mlx5_txq *t;

	if (q >= m->conf.nb_txq || !m->txq[q])
		return -EINVAL;
	t = m->txq[q];
	memset(st, 0, sizeof(*st));
	st->packets = t->st.packets;
	st->bytes = t->st.bytes;
	st->errors = t->st.errors;
	st->drops = t->st.full;
	st->bad_cmpl = t->st.bad_cmpl;
	return 0;
}

static void mlx5_close(struct zn_port *p)
{
	struct mlx5 *m = to_m(p);

	if (!m)
		return;
	mlx5_stop_op(p);
	destroy_queues(m, 0, 0);
	zn_mlx5_hca_fini(m);
	free(m);
	p->priv = NULL;
}

static int mlx5_irq_vectors_op(struct zn_port *p)
{
	return zn_mlx5_irq_vectors(to_m(p));
}

static int mlx5_irq_vector_op(struct zn_port *p, bool tx, uint16_t q)
{
	return zn_mlx5_irq_vector(to_m(p), tx, q);
}

static int mlx5_irq_arm_op(struct zn_port *p, bool tx, uint16_t q)
{
	return zn_mlx5_irq_arm(to_m(p), tx, q);
}

static void mlx5_owner_reset_op(struct zn_port *p)
{
	struct mlx5 *m = to_m(p);

	for (uint16_t q = 0; q < m->conf.nb_rxq; q++)
		if (m->rxq[q])
			zn_owner_reset(&m->rxq[q]->owner);
	for (uint16_t q = 0; q < m->conf.nb_txq; q++)
		if (m->txq[q])
			zn_owner_reset(&m->txq[q]->owner);
}

static const struct zn_port_ops mlx5_ops = {
	.name = "mlx5",
	.info = mlx5_info,
	.configure = mlx5_configure,
	.rxq_setup = mlx5_rxq_setup,
	.txq_setup = mlx5_txq_setup,
	.start = mlx5_start_op,
	.stop = mlx5_stop_op,
	.rx_burst = mlx5_rx_burst_op,
	.rxq_get = mlx5_rxq_get_op,
	.rxq_burst = mlx5_rxq_burst_op,
	.tx_burst = mlx5_tx_burst_op,
	.tx_reap = mlx5_tx_reap_op,
	.flow_add = mlx5_flow_add_op,
	.flow_del = mlx5_flow_del_op,
	.rss_set = mlx5_rss_set_op,
	.link = mlx5_link_op,
	.rxq_stats = mlx5_rxq_stats_op,
	.txq_stats = mlx5_txq_stats_op,
	.close = mlx5_close,
	.irq_vectors = mlx5_irq_vectors_op,
	.irq_vector = mlx5_irq_vector_op,
	.irq_arm = mlx5_irq_arm_op,
	.owner_reset = mlx5_owner_reset_op,
};

/* §4 step 1: bus master, BAR0. */
static int map_bar0(struct mlx5 *m)
{
	uint64_t size;
	int rc;

	rc = zn_bus_enable_bus_master(m->bus);
	if (rc == 0)
		rc = zn_bus_map_bar(m->bus, 0, NULL, &size);
	if (rc == 0 && size < ZN_MLX5_ISEG_SIZE) {
		ZN_ERR(MLX5_LOG, "%s: BAR0 is %llu bytes, too small for the init segment",
		       m->name, (unsigned long long)size);
		rc = -ENODEV;
	}
	if (rc < 0)
		ZN_ERR(MLX5_LOG, "%s: cannot map the device: %s", m->name, strerror(-rc));
	return rc;
}

/* BAR0 (none under DevX, §16: the device is mlx5_core's), then the HCA. */
static int mlx5_probe(struct zn_port *p, uint16_t vendor, uint16_t device)
{
	struct mlx5 *m;
	int rc;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->port = p;
	m->bus = p->bus;
	m->vendor = vendor;
	m->device = device;
	snprintf(m->name, sizeof(m->name), "mlx5 %s", p->bus->name);

	rc = zn_bus_ibv_name(m->bus) ? 0 : map_bar0(m);
	if (rc == 0)
		rc = zn_mlx5_hca_init(m);
	if (rc < 0) {
		zn_mlx5_hca_fini(m);
		free(m);
		return rc;
	}
	p->ops = &mlx5_ops;
	p->priv = m;
	return 0;
}

const struct zn_port_driver zn_mlx5_driver = {
	.name = "mlx5",
	.match = mlx5_match,
	.probe = mlx5_probe,
};
