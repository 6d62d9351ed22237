/* SPDX-License-Identifier: MIT */
/* The network interface: set-up, the poll loop, statistics. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "core/net/netif_priv.h"
#include "zcnic/log.h"

static uint64_t mono_ns(void *ctx)
{
	(void)ctx;
	return zn_now_ns();
}

static int check_conf(struct zn_port *p, const struct zn_netif_conf *c)
{
	const char *name = p->bus ? p->bus->name : "port";

	if (c->prefix_len < 1 || c->prefix_len > 32 || !c->ip) {
		ZN_ERR(NET_LOG, "%s: netif: an IPv4 address and a prefix length of 1-32 are "
		       "needed (got prefix %u)", name, c->prefix_len);
		return -EINVAL;
	}
	if (!c->nb_rxq || c->nb_rxq > ZN_NETIF_MAX_RXQ) {
		ZN_ERR(NET_LOG, "%s: netif: give 1-%u RX queues to poll", name, ZN_NETIF_MAX_RXQ);
		return -EINVAL;
	}
	for (uint16_t i = 0; i < c->nb_rxq; i++) {
		const struct zn_buf_provider *prov = zn_port_rx_provider(p, c->rxq[i]);

		if (!prov || !prov->va) {
			ZN_ERR(NET_LOG, "%s: netif: RX queue %u is %s", name, c->rxq[i],
			       prov ? "fed by a buffer provider without va(): core/net must read "
				      "payloads" : "not set up; set it up before zn_netif_create");
			return -EINVAL;
		}
		for (uint16_t j = 0; j < i; j++)
			if (c->rxq[j] == c->rxq[i]) {
				ZN_ERR(NET_LOG, "%s: netif: RX queue %u given twice", name, c->rxq[i]);
				return -EINVAL;
			}
	}
	if (c->burst > ZN_NETIF_MAX_BURST || c->mtu > 9000 || (c->mtu && c->mtu < 576)) {
		ZN_ERR(NET_LOG, "%s: netif: burst %u (at most %u), MTU %u (576-9000)", name,
		       c->burst, ZN_NETIF_MAX_BURST, c->mtu);
		return -EINVAL;
	}
	return 0;
}

int zn_netif_create(struct zn_port *p, const struct zn_netif_conf *conf, struct zn_netif **out)
{
	struct zn_port_info info;
	struct zn_netif *nif;
	int rc;

	if (!p || !conf || !out)
		return -EINVAL;
	rc = check_conf(p, conf);
	if (rc < 0)
		return rc;
	nif = calloc(1, sizeof(*nif));
	if (!nif)
		return -ENOMEM;
	nif->port = p;
	nif->conf = *conf;
	if (!nif->conf.tx_slots)
		nif->conf.tx_slots = ZN_NETIF_DFLT_SLOTS;
	if (!nif->conf.burst)
		nif->conf.burst = ZN_NETIF_DFLT_BURST;
	if (!nif->conf.clock_ns)
		nif->conf.clock_ns = mono_ns;
	nif->mtu = conf->mtu ? conf->mtu : ZN_NETIF_DFLT_MTU;
	nif->mask = htonl(conf->prefix_len == 32 ? 0xffffffffu : ~(0xffffffffu >> conf->prefix_len));
	zn_port_info(p, &info);
	memcpy(nif->mac, info.mac, ZN_ETH_ALEN);
	if (!conf->no_tx_offload) {
		/* LSO only with both checksums (the contract implies them) */
		nif->tx_offl = info.tx_offloads & (ZN_TX_F_L4_CSUM | ZN_TX_F_LSO);
		if ((info.tx_offloads & (ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM)) !=
		    (ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM) || info.max_lso < ZN_ETH_HLEN + nif->mtu)
			nif->tx_offl &= ~(uint32_t)ZN_TX_F_LSO;
		nif->max_lso = nif->tx_offl & ZN_TX_F_LSO ? info.max_lso : 0;
	}
	for (uint16_t i = 0; i < conf->nb_rxq; i++) {
		nif->prov[conf->rxq[i]] = zn_port_rx_provider(p, conf->rxq[i]);
		nif->rxq[i] = zn_port_rxq(p, conf->rxq[i]);	/* set up, so configured */
	}
	zn_arp_init(&nif->arp);
	nif->arp_next = UINT64_MAX;
	nif->now = nif->conf.clock_ns(nif->conf.clock_ctx);
	nif->pkts = calloc(nif->conf.burst, sizeof(*nif->pkts));
	if (!nif->pkts) {
		rc = -ENOMEM;
		goto err_free;
	}
	rc = zn_flow_init(&nif->flows, ZN_NETIF_FLOW_SLOTS);
	if (rc < 0)
		goto err_pkts;
	rc = zn_netif_tx_init(nif);
	if (rc < 0)
		goto err_flows;
	rc = zn_netif_tcp_init(nif);
	if (rc < 0)
		goto err_tx;
	*out = nif;
	return 0;

err_tx:
	zn_netif_tx_fini(nif);
err_flows:
	zn_flow_fini(&nif->flows);
err_pkts:
	free(nif->pkts);
err_free:
	free(nif);
	return rc;
}

void zn_netif_owner_reset(struct zn_netif *nif)
{
	zn_owner_reset(&nif->owner);
}

void zn_netif_destroy(struct zn_netif *nif)
{
	uint64_t t0;

	if (!nif)
		return;
	/* the caller's now, and its port's queues: its poller is gone */
	zn_owner_reset(&nif->owner);
	zn_port_owner_reset(nif->port);
	zn_udp_ep_free_all(nif);
	/* The NIC may still read frames from the slab (and TCP's from the
	 * senders' buffers): wait (bounded) for their completions before it
	 * is unmapped and before TCP fails the sends left. */
	t0 = mono_ns(NULL);
	while (zn_netif_in_flight(nif) && mono_ns(NULL) - t0 < ZN_NETIF_DRAIN_NS)
		zn_netif_reap(nif);
	zn_netif_tcp_fini(nif);
	/* Hand the last burst's header buffers back to the NIC. */
	for (uint16_t i = 0; i < nif->conf.nb_rxq; i++)
		zn_port_rx_burst(nif->port, nif->conf.rxq[i], nif->pkts, 0);
	zn_netif_tx_fini(nif);
	zn_flow_fini(&nif->flows);
	free(nif->pkts);
	free(nif);
}

static const struct zn_arp_cb arp_cb = {
	.request = zn_netif_arp_request,
	.failed = zn_netif_arp_failed,
};

int zn_netif_poll(struct zn_netif *nif)
{
	uint32_t work;

	zn_owner_enter(&nif->owner, "netif");
	nif->now = nif->conf.clock_ns(nif->conf.clock_ctx);
	work = zn_netif_rx(nif);
	work += zn_netif_reap(nif);
	if (nif->now >= nif->arp_next)
		nif->arp_next = zn_arp_tick(&nif->arp, nif->now, &arp_cb, nif);
	zn_tcp_poll(nif->tcp);
	work += zn_netif_flush(nif);
	/* Callbacks last: a callback may send, recv or close (any endpoint),
	 * the poll's state is settled. Popped one by one: a close takes its
	 * endpoint off the list. */
	while (nif->nnotify) {
		struct zn_udp_ep *ep = nif->notify[--nif->nnotify];
		unsigned ev = ep->events;

		ep->events = 0;
		ep->notify_queued = false;
		ep->notify(ep->arg, ep, ev);
	}
	return (int)work;
}

uint64_t zn_netif_next_timer(const struct zn_netif *nif)
{
	uint64_t t = zn_tcp_next_timer(nif->tcp);

	return nif->arp_next < t ? nif->arp_next : t;
}

int zn_netif_poll_hook(void *arg)
{
	return zn_netif_poll(arg);
}

void zn_netif_stats(const struct zn_netif *nif, struct zn_netif_stats *st)
{
	*st = nif->st;
	st->arp_learned = nif->arp.learned;
	st->arp_expired = nif->arp.expired;
	st->arp_failed = nif->arp.failed;
}

void zn_netif_mac(const struct zn_netif *nif, uint8_t mac[ZN_ETH_ALEN])
{
	memcpy(mac, nif->mac, ZN_ETH_ALEN);
}

struct zn_port *zn_netif_port(const struct zn_netif *nif)
{
	return nif->port;
}

int zn_netif_arp_lookup(struct zn_netif *nif, uint32_t ip, uint8_t mac[ZN_ETH_ALEN])
{
	struct zn_arp_entry *e = zn_arp_find(&nif->arp, ip, nif->conf.clock_ns(nif->conf.clock_ctx));

	if (!e)
		return -ENOENT;
	memcpy(mac, e->mac, ZN_ETH_ALEN);
	return 0;
}
