/* SPDX-License-Identifier: MIT */
/*
 * core/port: open a port by device string and choose its driver by PCI ID;
 * thin wrappers with argument and state checks over the driver's ops; the
 * default payload buffer pool of queues set up without a provider, and the
 * provider mux every RX queue gets (port_mux.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/port/port_irq.h"
#include "core/port/port_mux.h"
#include "core/port/port_pool.h"
#include "zcnic/log.h"
#include "zcnic/port.h"

#define PORT_LOG		"port"
#define PCI_VENDOR_ID		0x00
#define PCI_DEVICE_ID		0x02

extern const struct zn_port_driver zn_bnxt_driver;
extern const struct zn_port_driver zn_mlx5_driver;

/* Drivers in the order they are asked. */
static const struct zn_port_driver *const drivers[] = {
	&zn_bnxt_driver,
	&zn_mlx5_driver,
};

struct zn_port_core {
	const struct zn_port_driver *drv;
	struct zn_port_conf conf;
	bool configured;
	bool started;
	struct zn_port_pool *rxpool[ZN_PORT_MAX_QUEUES];
	struct zn_port_mux *rxmux[ZN_PORT_MAX_QUEUES];	/* NULL: queue not set up */
	struct zn_rxq rxq[ZN_PORT_MAX_QUEUES];		/* the handles (zn_port_rxq) */
	struct zn_port_irq *irq;	/* MSI-X eventfds once asked for (port_irq.c) */
};

struct zn_port_irq **zn_port_irq_slot(struct zn_port *p, uint16_t *nb_rxq, uint16_t *nb_txq,
				      bool *started)
{
	*nb_rxq = p->core->conf.nb_rxq;
	*nb_txq = p->core->conf.nb_txq;
	*started = p->core->started;
	return &p->core->irq;
}

/* A bound RX queue's burst while the port is stopped. */
static uint32_t rxq_stopped(void *rxq, struct zn_rx_pkt *pkts, uint32_t n)
{
	(void)rxq;
	(void)pkts;
	(void)n;
	return 0;
}

static void rxq_unbind_all(struct zn_port_core *c)
{
	for (uint16_t q = 0; q < ZN_PORT_MAX_QUEUES; q++)
		c->rxq[q] = (struct zn_rxq){ .burst = rxq_stopped, .qid = q };
}

int zn_port_open(const char *spec, const struct zn_bus_open_opts *opts, struct zn_port **out)
{
	const struct zn_port_driver *drv = NULL;
	struct zn_bus_dev *bus;
	struct zn_port *p;
	uint16_t vendor, device;
	int rc;

	if (!spec || !*spec || !out)
		return -EINVAL;
	rc = zn_bus_open(spec, opts, &bus);
	if (rc < 0) {
		/* the bus said what and why */
		ZN_DEBUG(PORT_LOG, "%s: cannot open the device: %s", spec, strerror(-rc));
		return rc;
	}
	rc = zn_bus_cfg_read16(bus, PCI_VENDOR_ID, &vendor);
	if (rc == 0)
		rc = zn_bus_cfg_read16(bus, PCI_DEVICE_ID, &device);
	if (rc < 0) {
		ZN_ERR(PORT_LOG, "%s: cannot read the PCI vendor/device id: %s", spec,
		       strerror(-rc));
		goto err_bus;
	}
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		if (drivers[i]->match(vendor, device)) {
			drv = drivers[i];
			break;
		}
	}
	if (!drv) {
		ZN_ERR(PORT_LOG, "%s: no zcnic driver for PCI device %04x:%04x (zcnic drives "
		       "Broadcom P5 NICs)", spec, vendor, device);
		rc = -ENODEV;
		goto err_bus;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		rc = -ENOMEM;
		goto err_bus;
	}
	p->core = calloc(1, sizeof(*p->core));
	if (!p->core) {
		rc = -ENOMEM;
		goto err_port;
	}
	p->core->drv = drv;
	rxq_unbind_all(p->core);
	p->bus = bus;
	rc = drv->probe(p, vendor, device);
	if (rc < 0) {
		ZN_ERR(PORT_LOG, "%s: the %s driver did not take the device: %s", spec,
		       drv->name, strerror(-rc));
		goto err_core;
	}
	*out = p;
	return 0;

err_core:
	free(p->core);
err_port:
	free(p);
err_bus:
	zn_bus_close(bus);
	return rc;
}

/* After the driver let go of the queue (every buffer put back). */
static void free_rxq(struct zn_port *p, uint16_t q)
{
	zn_port_mux_destroy(p->core->rxmux[q]);	/* detached() for swapped-in providers */
	p->core->rxmux[q] = NULL;
	zn_port_pool_destroy(p->bus, p->core->rxpool[q]);
	p->core->rxpool[q] = NULL;
}

void zn_port_owner_reset(struct zn_port *p)
{
	if (p && p->ops->owner_reset)
		p->ops->owner_reset(p);
}

void zn_port_close(struct zn_port *p)
{
	if (!p)
		return;
	/* The driver first: it gives back the pools' buffers and stops DMA. */
	if (p->ops)
		p->ops->close(p);
	zn_port_irq_release(p);
	for (uint16_t q = 0; q < ZN_PORT_MAX_QUEUES; q++)
		free_rxq(p, q);
	zn_bus_close(p->bus);
	free(p->core);
	free(p);
}

void zn_port_info(struct zn_port *p, struct zn_port_info *info)
{
	if (!p || !info)
		return;
	p->ops->info(p, info);
}

int zn_port_configure(struct zn_port *p, const struct zn_port_conf *conf)
{
	int rc;

	if (!p || !conf)
		return -EINVAL;
	if (p->core->started) {
		ZN_ERR(PORT_LOG, "%s: configure while started; stop the port first", p->bus->name);
		return -EBUSY;
	}
	if (conf->nb_rxq > ZN_PORT_MAX_QUEUES || conf->nb_txq > ZN_PORT_MAX_QUEUES) {
		ZN_ERR(PORT_LOG, "%s: at most %u queues per direction", p->bus->name,
		       ZN_PORT_MAX_QUEUES);
		return -EINVAL;
	}
	rc = p->ops->configure(p, conf);
	if (rc < 0)
		return rc;
	/* The driver dropped the queues past the new counts: their pools have
	 * no user any more. */
	for (uint16_t q = conf->nb_rxq; q < ZN_PORT_MAX_QUEUES; q++)
		free_rxq(p, q);
	p->core->conf = *conf;
	p->core->configured = true;
	return 0;
}

int zn_port_rxq_setup(struct zn_port *p, uint16_t q, const struct zn_rxq_conf *conf)
{
	struct zn_port_pool *pool = NULL;
	struct zn_port_mux *mux = NULL;
	struct zn_rxq_conf c;
	int rc;

	if (!p || !conf)
		return -EINVAL;
	if (!p->core->configured || q >= p->core->conf.nb_rxq) {
		ZN_ERR(PORT_LOG, "%s: rxq %u: configure the port with enough RX queues first",
		       p->bus->name, q);
		return -EINVAL;
	}
	if (p->core->started)
		return -EBUSY;
	c = *conf;
	if (!c.payload) {
		uint32_t ring = c.ring_size ? c.ring_size : ZN_PORT_POOL_DFLT_RING;

		rc = zn_port_pool_create(p->bus, c.payload_buf_size ? c.payload_buf_size :
					 ZN_PORT_POOL_DFLT_BUF, ring * ZN_PORT_POOL_PER_SLOT,
					 c.numa_node, &pool);
		if (rc < 0)
			return rc;
		c.payload = zn_port_pool_provider(pool);
	}
	/* A provider without alloc/put: the driver refuses it with its message. */
	if (c.payload->alloc && c.payload->put) {
		rc = zn_port_mux_create(c.payload, &mux);
		if (rc < 0) {
			zn_port_pool_destroy(p->bus, pool);
			return rc;
		}
		c.payload = zn_port_mux_provider(mux);
	}
	rc = p->ops->rxq_setup(p, q, &c);
	/* The driver dropped the queue's old buffers whatever happened. */
	free_rxq(p, q);
	if (rc < 0) {
		zn_port_mux_destroy(mux);
		zn_port_pool_destroy(p->bus, pool);
		return rc;
	}
	p->core->rxpool[q] = pool;
	p->core->rxmux[q] = mux;
	return 0;
}

int zn_port_txq_setup(struct zn_port *p, uint16_t q, const struct zn_txq_conf *conf)
{
	if (!p || !conf)
		return -EINVAL;
	if (!p->core->configured || q >= p->core->conf.nb_txq) {
		ZN_ERR(PORT_LOG, "%s: txq %u: configure the port with enough TX queues first",
		       p->bus->name, q);
		return -EINVAL;
	}
	if (p->core->started)
		return -EBUSY;
	return p->ops->txq_setup(p, q, conf);
}

int zn_port_start(struct zn_port *p)
{
	int rc;

	if (!p)
		return -EINVAL;
	if (!p->core->configured) {
		ZN_ERR(PORT_LOG, "%s: start before configure", p->bus->name);
		return -EINVAL;
	}
	if (p->core->started)
		return 0;
	rc = p->ops->start(p);
	if (rc < 0)
		return rc;
	p->core->started = true;
	for (uint16_t q = 0; q < p->core->conf.nb_rxq; q++) {
		p->core->rxq[q].drv = p->ops->rxq_get(p, q);
		p->core->rxq[q].burst = p->ops->rxq_burst;
	}
	return 0;
}

void zn_port_stop(struct zn_port *p)
{
	if (!p || !p->core->started)
		return;
	rxq_unbind_all(p->core);
	p->ops->stop(p);
	zn_port_irq_release(p);	/* the next start may use other vectors */
	p->core->started = false;
}

struct zn_rxq *zn_port_rxq(struct zn_port *p, uint16_t q)
{
	if (!p || !p->core->configured || q >= p->core->conf.nb_rxq) {
		if (p)
			ZN_ERR(PORT_LOG, "%s: rxq %u: configure the port with enough RX queues "
			       "first", p->bus->name, q);
		return NULL;
	}
	return &p->core->rxq[q];
}

int zn_port_flow_add(struct zn_port *p, const struct zn_flow_match *m, uint16_t q,
		     uint32_t *rule_id)
{
	if (!p || !m || !rule_id)
		return -EINVAL;
	if (!p->core->started) {
		ZN_ERR(PORT_LOG, "%s: flow rules need a started port", p->bus->name);
		return -EAGAIN;
	}
	if (q >= p->core->conf.nb_rxq || (m->ip_version != 4 && m->ip_version != 6)) {
		ZN_ERR(PORT_LOG, "%s: flow rule: queue %u of %u, IP version %u (4 or 6)",
		       p->bus->name, q, p->core->conf.nb_rxq, m->ip_version);
		return -EINVAL;
	}
	return p->ops->flow_add(p, m, q, rule_id);
}

int zn_port_flow_del(struct zn_port *p, uint32_t rule_id)
{
	if (!p)
		return -EINVAL;
	return p->ops->flow_del(p, rule_id);
}

int zn_port_rss_set(struct zn_port *p, const struct zn_rss_conf *rss)
{
	if (!p || !rss)
		return -EINVAL;
	if (!p->core->configured) {
		ZN_ERR(PORT_LOG, "%s: RSS before configure", p->bus->name);
		return -EINVAL;
	}
	if (!rss->table_size || rss->table_size > ZN_RSS_MAX_TABLE) {
		ZN_ERR(PORT_LOG, "%s: RSS table of %u entries (1..%u)", p->bus->name,
		       rss->table_size, ZN_RSS_MAX_TABLE);
		return -EINVAL;
	}
	return p->ops->rss_set(p, rss);
}

int zn_port_link(struct zn_port *p, struct zn_link *link)
{
	if (!p || !link)
		return -EINVAL;
	return p->ops->link(p, link);
}

int zn_port_rxq_stats(struct zn_port *p, uint16_t q, struct zn_queue_stats *st)
{
	if (!p || !st || !p->core->configured || q >= p->core->conf.nb_rxq)
		return -EINVAL;
	return p->ops->rxq_stats(p, q, st);
}

int zn_port_txq_stats(struct zn_port *p, uint16_t q, struct zn_queue_stats *st)
{
	if (!p || !st || !p->core->configured || q >= p->core->conf.nb_txq)
		return -EINVAL;
	return p->ops->txq_stats(p, q, st);
}

static struct zn_port_mux *rx_mux(struct zn_port *p, uint16_t q)
{
	return p && q < ZN_PORT_MAX_QUEUES ? p->core->rxmux[q] : NULL;
}

const uint8_t *zn_port_rx_payload(struct zn_port *p, uint16_t q, uint32_t buf_id)
{
	struct zn_port_mux *m = rx_mux(p, q);
	const struct zn_buf_provider *prov;

	if (!m)
		return NULL;
	prov = zn_port_mux_provider(m);
	return prov->va(prov->ctx, buf_id);
}

void zn_port_rx_buf_put(struct zn_port *p, uint16_t q, const uint32_t *ids, uint32_t n)
{
	struct zn_port_mux *m = rx_mux(p, q);
	const struct zn_buf_provider *prov;

	if (!m || !ids)
		return;
	prov = zn_port_mux_provider(m);
	prov->put(prov->ctx, ids, n);
}

const struct zn_buf_provider *zn_port_rx_provider(struct zn_port *p, uint16_t q)
{
	struct zn_port_mux *m = rx_mux(p, q);

	return m ? zn_port_mux_provider(m) : NULL;
}

uint32_t zn_port_rxq_pool_avail(struct zn_port *p, uint16_t q)
{
	if (!p || q >= ZN_PORT_MAX_QUEUES || !p->core->rxpool[q])
		return UINT32_MAX;
	return zn_port_pool_avail(p->core->rxpool[q]);
}

int zn_port_rxq_set_provider(struct zn_port *p, uint16_t q, const struct zn_buf_provider *prov)
{
	struct zn_port_mux *m = rx_mux(p, q);
	const struct zn_buf_provider *before;
	int rc;

	if (!m) {
		if (p)
			ZN_ERR(PORT_LOG, "%s: rxq %u: set up the queue before giving it a payload "
			       "provider", p->bus->name, q);
		return -EINVAL;
	}
	before = zn_port_mux_current(m);
	rc = zn_port_mux_set(m, prov);
	if (rc == 0 && zn_port_mux_current(m) != before && p->core->started &&
	    p->ops->rxq_restart) {
		int rrc = p->ops->rxq_restart(p, q);

		/* The swap stands (the mux routes every id either way): a queue
		 * that failed to restart still gives every buffer back at close. */
		if (rrc < 0)
			ZN_ERR(PORT_LOG, "%s: rxq %u: restart after the provider swap failed: "
			       "%s", p->bus->name, q, strerror(-rrc));
	}
	if (rc == -EINVAL)
		ZN_ERR(PORT_LOG, "%s: rxq %u: the payload provider needs alloc, put and %u-byte "
		       "buffers (the queue's size); it has %u", p->bus->name, q,
		       zn_port_mux_provider(m)->buf_size, prov->buf_size);
	else if (rc == -EBUSY)
		ZN_ERR(PORT_LOG, "%s: rxq %u: %u providers swapped out still have buffers out; "
		       "give their buffers back first", p->bus->name, q, ZN_PORT_MUX_SLOTS - 1);
	return rc;
}
