/* SPDX-License-Identifier: MIT */
/* A netdev: a port brought up for sockets and zcrx, with a netif over it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "core/net/netif.h"
#include "zcnic/log.h"
#include "zcnic/netdev.h"
#include "zcnic/rss.h"

#define NETDEV_LOG	"netdev"
#define HDR_BUF_SIZE	256	/* header buffer: Ethernet + IPv4 with options + UDP fit */
#define RESOLVE_NAP_NS	50000	/* between polls while ARP is out: the peer needs the CPU */

/*
 * A copy of the region, not only its address: the close path unmaps what is
 * left after zn_port_stop, and a region's owner may have freed it by then
 * (a zcrx area whose last buffers come back as the port stops).
 */
struct dma_map {
	const struct zn_dma_region *r;	/* identity only */
	struct zn_dma_region copy;
	uint32_t count;
};

struct closer {
	void (*fn)(void *arg, struct zn_netdev *d);
	void *arg;
};

struct zn_netdev {
	int ifindex;
	struct zn_netdev_conf conf;
	struct zn_port *port;
	struct zn_netif *nif;
	struct dma_map *maps;
	uint32_t nmaps, cap_maps;
	struct closer closers[ZN_NETDEV_MAX_CLOSERS];
	uint32_t nclosers;
	/* queue netdevs: the parent's slots (conf.queues), or a queue netdev's
	 * parent and index */
	struct zn_netdev **queues;
	struct zn_netdev *parent;
	uint16_t qidx;
	uint16_t rxq0;			/* the first RX queue the netif polls */
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zn_netdev *table[ZN_NETDEV_MAX];

static int check_conf(const char *spec, const struct zn_netdev_conf *c)
{
	uint32_t rx = c->rx_ring, tx = c->tx_ring, buf = c->buf_size;

	if (!c->ip || c->prefix_len < 1 || c->prefix_len > 32) {
		ZN_ERR(NETDEV_LOG, "%s: give an IPv4 address and a prefix length of 1-32", spec);
		return -EINVAL;
	}
	if (c->nb_rxq > ZN_NETIF_MAX_RXQ) {
		ZN_ERR(NETDEV_LOG, "%s: at most %u RX queues", spec, ZN_NETIF_MAX_RXQ);
		return -EINVAL;
	}
	if ((c->nb_rxq ? c->nb_rxq : 1) + c->queues > ZN_PORT_MAX_QUEUES ||
	    1 + c->queues > ZN_PORT_MAX_QUEUES) {
		ZN_ERR(NETDEV_LOG, "%s: %u RX queues and %u queue pairs: a port has at most %u "
		       "queues each way", spec, c->nb_rxq, c->queues, ZN_PORT_MAX_QUEUES);
		return -EINVAL;
	}
	if ((rx & (rx - 1)) || (tx & (tx - 1)) || (buf && (buf < 512 || (buf & (buf - 1))))) {
		ZN_ERR(NETDEV_LOG, "%s: ring sizes must be powers of two and the buffer size a power "
		       "of two of at least 512 (rx %u, tx %u, buf %u)", spec, rx, tx, buf);
		return -EINVAL;
	}
	return 0;
}

static int bring_up(struct zn_netdev *d, const char *spec)
{
	const struct zn_netdev_conf *c = &d->conf;
	struct zn_port_conf pc = { .nb_rxq = (uint16_t)(c->nb_rxq + c->queues),
				   .nb_txq = (uint16_t)(1 + c->queues), .mtu = c->mtu };
	struct zn_rxq_conf rq = { .ring_size = c->rx_ring, .hds_thresh = 0,
				  .hdr_buf_size = HDR_BUF_SIZE, .payload_buf_size = c->buf_size,
				  .numa_node = -1 };
	struct zn_txq_conf tq = { .ring_size = c->tx_ring, .numa_node = -1 };
	struct zn_netif_conf nc = { .ip = c->ip, .prefix_len = c->prefix_len,
				    .gateway = c->gateway, .nb_rxq = c->nb_rxq, .txq = 0,
				    .mtu = c->mtu, .no_tx_offload = c->no_offload };
	struct zn_port_info info;
	int rc;

	rc = zn_port_open(spec, c->bus_opts, &d->port);
	if (rc < 0)
		return rc;
	zn_port_info(d->port, &info);
	rq.offloads = info.rx_offloads & (!c->no_rx_agg ? ZN_RX_OFFLOAD_CSUM | ZN_RX_OFFLOAD_TCP_AGG :
					  ZN_RX_OFFLOAD_CSUM);
	rc = zn_port_configure(d->port, &pc);
	for (uint16_t q = 0; rc == 0 && q < pc.nb_rxq; q++) {
		rc = zn_port_rxq_setup(d->port, q, &rq);
		if (rc == -EINVAL && (rq.offloads & ZN_RX_OFFLOAD_TCP_AGG)) {
			/* aggregation is on by default, and an optimisation: a
			 * device that cannot aggregate at this MTU and buffer
			 * size receives without it */
			ZN_INFO(NETDEV_LOG, "%s: receive aggregation off: the device refuses it "
				"with MTU %u and %u-byte buffers", spec, c->mtu, c->buf_size);
			rq.offloads &= ~(uint32_t)ZN_RX_OFFLOAD_TCP_AGG;
			rc = zn_port_rxq_setup(d->port, q, &rq);
		}
		if (q < c->nb_rxq)
			nc.rxq[q] = q;
	}
	for (uint16_t q = 0; rc == 0 && q < pc.nb_txq; q++)
		rc = zn_port_txq_setup(d->port, q, &tq);
	if (rc == 0)
		rc = zn_port_start(d->port);
	if (rc == 0 && c->queues) {
		struct zn_rss_conf rss;

		rc = zn_rss_spread(&rss, info.rss_table_size, c->nb_rxq, c->queues);
		if (rc == 0)
			rc = zn_port_rss_set(d->port, &rss);
	}
	if (rc == 0)
		rc = zn_netif_create(d->port, &nc, &d->nif);
	if (rc < 0) {
		ZN_ERR(NETDEV_LOG, "%s: bringing the port up failed: %s", spec, strerror(-rc));
		zn_port_close(d->port);
		d->port = NULL;
	}
	return rc;
}

/* An ifindex for d (d->ifindex), or -EMFILE. Published complete once d->nif is set. */
static int slot_take(struct zn_netdev *d, const char *spec)
{
	int slot = -1;

	pthread_mutex_lock(&table_lock);
	for (int i = 0; i < ZN_NETDEV_MAX; i++)
		if (!table[i]) {
			slot = i;
			table[i] = d;
			break;
		}
	pthread_mutex_unlock(&table_lock);
	if (slot < 0) {
		ZN_ERR(NETDEV_LOG, "%s: %u netdevs are open already", spec, ZN_NETDEV_MAX);
		return -EMFILE;
	}
	d->ifindex = slot + 1;
	return 0;
}

static void slot_put(struct zn_netdev *d)
{
	pthread_mutex_lock(&table_lock);
	table[d->ifindex - 1] = NULL;
	pthread_mutex_unlock(&table_lock);
}

int zn_netdev_open(const char *spec, const struct zn_netdev_conf *conf, struct zn_netdev **out)
{
	struct zn_netdev *d;
	int rc;

	if (!spec || !conf || !out)
		return -EINVAL;
	rc = check_conf(spec, conf);
	if (rc < 0)
		return rc;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->conf = *conf;
	if (!d->conf.nb_rxq)
		d->conf.nb_rxq = 1;
	if (!d->conf.mtu)
		d->conf.mtu = 1500;
	if (!d->conf.rx_ring)
		d->conf.rx_ring = ZN_NETDEV_DFLT_RING;
	if (!d->conf.tx_ring)
		d->conf.tx_ring = ZN_NETDEV_DFLT_RING;
	if (!d->conf.buf_size)
		d->conf.buf_size = ZN_NETDEV_DFLT_BUF;
	d->conf.bus_opts = NULL;	/* the caller's pointer need not outlive the call */
	if (d->conf.queues) {
		d->queues = calloc(d->conf.queues, sizeof(*d->queues));
		if (!d->queues) {
			free(d);
			return -ENOMEM;
		}
	}
	rc = slot_take(d, spec);
	if (rc < 0) {
		free(d->queues);
		free(d);
		return rc;
	}
	{
		struct zn_netdev_conf c = d->conf;

		c.bus_opts = conf->bus_opts;
		d->conf = c;
		rc = bring_up(d, spec);
		d->conf.bus_opts = NULL;
	}
	if (rc < 0) {
		slot_put(d);
		free(d->queues);
		free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int zn_netdev_queue_open(struct zn_netdev *d, uint16_t i, struct zn_netdev **out)
{
	struct zn_netif_conf nc;
	struct zn_netdev *q;
	int rc;

	if (!d || !out || d->parent || i >= d->conf.queues)
		return -EINVAL;
	if (d->queues[i])
		return -EBUSY;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->parent = d;
	q->qidx = i;
	q->port = d->port;
	q->rxq0 = (uint16_t)(d->conf.nb_rxq + i);
	q->conf = d->conf;
	q->conf.nb_rxq = 1;
	q->conf.queues = 0;
	rc = slot_take(q, d->port->bus->name);
	if (rc < 0) {
		free(q);
		return rc;
	}
	nc = (struct zn_netif_conf){ .ip = d->conf.ip, .prefix_len = d->conf.prefix_len,
				     .gateway = d->conf.gateway, .nb_rxq = 1,
				     .txq = (uint16_t)(1 + i), .mtu = d->conf.mtu,
				     .no_tx_offload = d->conf.no_offload };
	nc.rxq[0] = q->rxq0;
	rc = zn_netif_create(d->port, &nc, &q->nif);
	if (rc < 0) {
		ZN_ERR(NETDEV_LOG, "%s: queue %u: %s", d->port->bus->name, i, strerror(-rc));
		slot_put(q);
		free(q);
		return rc;
	}
	/* its ARP replies would land on queue 0, the parent's */
	zn_netif_arp_pin_from(q->nif, d->nif);
	d->queues[i] = q;
	*out = q;
	return 0;
}

uint16_t zn_netdev_rxq(const struct zn_netdev *d)
{
	return d->rxq0;
}

bool zn_netdev_polls_rxq(const struct zn_netdev *d, uint32_t q)
{
	return q >= d->rxq0 && q < (uint32_t)d->rxq0 + d->conf.nb_rxq;
}

bool zn_netdev_is_queue(const struct zn_netdev *d)
{
	return d->parent != NULL;
}

int zn_netdev_resolve(struct zn_netdev *d, uint32_t ip, int timeout_ms)
{
	uint64_t end = zn_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;

	for (;;) {
		struct timespec nap = { .tv_nsec = RESOLVE_NAP_NS };
		int rc = zn_netif_arp_probe(d->nif, ip);

		if (rc != -EINPROGRESS)
			return rc;
		if (zn_now_ns() >= end)
			return -ETIMEDOUT;
		if (!zn_netdev_poll(d))
			nanosleep(&nap, NULL);
	}
}

void zn_netdev_close(struct zn_netdev *d)
{
	if (!d)
		return;
	for (uint16_t i = 0; d->queues && i < d->conf.queues; i++)
		zn_netdev_close(d->queues[i]);
	/* Layers on top let go first, newest first. */
	while (d->nclosers) {
		struct closer *c = &d->closers[--d->nclosers];

		if (c->fn)
			c->fn(c->arg, d);
	}
	zn_netif_destroy(d->nif);
	if (!d->parent)
		zn_port_stop(d->port);
	for (uint32_t i = 0; i < d->nmaps; i++)
		zn_bus_dma_unmap(d->port->bus, &d->maps[i].copy);
	free(d->maps);
	if (d->parent)
		d->parent->queues[d->qidx] = NULL;
	else
		zn_port_close(d->port);
	slot_put(d);
	free(d->queues);
	free(d);
}

void zn_netdev_owner_release(struct zn_netdev *d)
{
	if (!d)
		return;
	zn_netif_owner_reset(d->nif);
	zn_port_owner_reset(d->port);
}

int zn_netdev_ifindex(const struct zn_netdev *d)
{
	return d->ifindex;
}

struct zn_netdev *zn_netdev_by_ifindex(int ifindex)
{
	struct zn_netdev *d = NULL;

	if (ifindex < 1 || ifindex > ZN_NETDEV_MAX)
		return NULL;
	pthread_mutex_lock(&table_lock);
	d = table[ifindex - 1];
	if (d && !d->nif)
		d = NULL;	/* still coming up */
	pthread_mutex_unlock(&table_lock);
	return d;
}

struct zn_port *zn_netdev_port(const struct zn_netdev *d)
{
	return d->port;
}

struct zn_netif *zn_netdev_netif(const struct zn_netdev *d)
{
	return d->nif;
}

const struct zn_netdev_conf *zn_netdev_conf(const struct zn_netdev *d)
{
	return &d->conf;
}

int zn_netdev_poll(struct zn_netdev *d)
{
	return zn_netif_poll(d->nif);
}

static struct dma_map *find_map(struct zn_netdev *d, const struct zn_dma_region *r)
{
	for (uint32_t i = 0; i < d->nmaps; i++)
		if (d->maps[i].r == r)
			return &d->maps[i];
	return NULL;
}

int zn_netdev_dma_map(struct zn_netdev *d, const struct zn_dma_region *r)
{
	struct dma_map *m;
	int rc;

	if (!d || !r)
		return -EINVAL;
	m = find_map(d, r);
	if (m) {
		m->count++;
		return 0;
	}
	if (d->nmaps == d->cap_maps) {
		uint32_t cap = d->cap_maps ? 2 * d->cap_maps : 8;
		struct dma_map *n = realloc(d->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->maps = n;
		d->cap_maps = cap;
	}
	rc = zn_bus_dma_map(d->port->bus, r);
	if (rc < 0) {
		ZN_ERR(NETDEV_LOG, "%s: DMA-mapping %zu bytes of memory (%s) failed: %s",
		       d->port->bus->name, r->len, r->name, strerror(-rc));
		return rc;
	}
	d->maps[d->nmaps++] = (struct dma_map){ r, *r, 1 };
	return 0;
}

int zn_netdev_dma_unmap(struct zn_netdev *d, const struct zn_dma_region *r)
{
	struct dma_map *m;

	if (!d || !r)
		return -EINVAL;
	m = find_map(d, r);
	if (!m)
		return -ENOENT;
	if (--m->count)
		return 0;
	zn_bus_dma_unmap(d->port->bus, r);
	*m = d->maps[--d->nmaps];
	return 0;
}

int zn_netdev_iova(struct zn_netdev *d, const void *va, size_t len, uint64_t *iova)
{
	const struct zn_dma_region *r = zn_mem_find(va);
	uintptr_t b = (uintptr_t)va;

	if (!r || !find_map(d, r) || len > r->len || b + len > (uintptr_t)r->va + r->len)
		return -EFAULT;
	*iova = r->iova + (b - (uintptr_t)r->va);
	return 0;
}

int zn_netdev_on_close(struct zn_netdev *d, void (*fn)(void *arg, struct zn_netdev *d),
		       void *arg)
{
	if (!d || !fn)
		return -EINVAL;
	for (uint32_t i = 0; i < d->nclosers; i++)
		if (!d->closers[i].fn) {
			d->closers[i] = (struct closer){ fn, arg };
			return (int)i;
		}
	if (d->nclosers == ZN_NETDEV_MAX_CLOSERS)
		return -ENOSPC;
	d->closers[d->nclosers] = (struct closer){ fn, arg };
	return (int)d->nclosers++;
}

void zn_netdev_on_close_del(struct zn_netdev *d, int id)
{
	if (d && id >= 0 && (uint32_t)id < d->nclosers)
		d->closers[id].fn = NULL;
}
