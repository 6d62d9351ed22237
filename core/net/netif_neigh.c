/* SPDX-License-Identifier: MIT */
/*
 * Neighbours resolved ahead of sends (zn_netif_arp_probe) and handed from
 * one netif to another (zn_netif_arp_pin_from): a queue netdev's ARP replies
 * land on the default RX queue, which its parent polls, never on its own.
 */
#include <errno.h>

#include "core/net/netif_priv.h"

int zn_netif_arp_probe(struct zn_netif *nif, uint32_t ip)
{
	struct zn_arp_entry *e;
	uint32_t hop;
	int r;

	zn_owner_enter(&nif->owner, "netif");
	nif->now = nif->conf.clock_ns(nif->conf.clock_ctx);
	hop = zn_netif_on_link(nif, ip) ? ip : nif->conf.gateway;
	if (!hop)
		return -ENETUNREACH;
	r = zn_arp_resolve(&nif->arp, hop, nif->now, &e);
	if (r < 0)
		return r;
	if (r == ZN_ARP_NEW)
		zn_netif_arp_start(nif, e);
	return r == ZN_ARP_HIT ? 0 : -EINPROGRESS;
}

void zn_netif_arp_pin_from(struct zn_netif *dst, struct zn_netif *src)
{
	uint64_t now = src->conf.clock_ns(src->conf.clock_ctx);

	for (unsigned i = 0; i < ZN_ARP_ENTRIES; i++) {
		const struct zn_arp_entry *e = &src->arp.e[i];

		if (e->state == ZN_ARP_REACHABLE && now < e->deadline)
			zn_arp_pin(&dst->arp, e->ip, e->mac, now);
	}
}
