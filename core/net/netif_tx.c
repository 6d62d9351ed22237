/* SPDX-License-Identifier: MIT */
/*
 * A netif's transmit side: the header slab (DMA memory mapped to the port's
 * device), its slots, the batch posted once per poll, completions, and the
 * frames the netif sends on its own (ARP, ICMP).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/net/netif_priv.h"
#include "zcnic/log.h"

#define FLUSH_CHUNK	64	/* frames per tx_burst call */
#define NO_SLOT		UINT32_MAX

int zn_netif_tx_init(struct zn_netif *nif)
{
	size_t hdr_bytes, len;
	int rc;

	nif->nhdr = nif->conf.tx_slots;
	nif->ctrl_size = (ZN_ETH_HLEN + nif->mtu + 63) & ~63u;
	nif->nslots = nif->nhdr + ZN_NETIF_CTRL_SLOTS;
	hdr_bytes = (size_t)nif->nhdr * ZN_NETIF_HDR_SLOT;
	len = hdr_bytes + (size_t)ZN_NETIF_CTRL_SLOTS * nif->ctrl_size;
	nif->slots = calloc(nif->nslots, sizeof(*nif->slots));
	nif->batch = calloc(nif->nslots, sizeof(*nif->batch));
	if (!nif->slots || !nif->batch) {
		rc = -ENOMEM;
		goto err;
	}
	rc = zn_dma_region_alloc("net-hdr-slab", len, -1, 0, &nif->slab);
	if (rc < 0)
		goto err;
	rc = zn_bus_dma_map(nif->port->bus, nif->slab);
	if (rc < 0) {
		ZN_ERR(NET_LOG, "%s: cannot DMA-map the TX header slab: %s", nif->port->bus->name,
		       strerror(-rc));
		goto err_region;
	}
	nif->free_hdr = nif->free_ctrl = NO_SLOT;
	/* pushed in reverse so that slot 0 comes out first */
	for (uint32_t i = nif->nslots; i-- > 0;) {
		struct tx_slot *s = &nif->slots[i];
		size_t off = i < nif->nhdr ? (size_t)i * ZN_NETIF_HDR_SLOT :
			     hdr_bytes + (size_t)(i - nif->nhdr) * nif->ctrl_size;

		s->va = (uint8_t *)nif->slab->va + off;
		s->pkt.seg[0].iova = nif->slab->iova + off;
		s->pkt.cookie = i;
		s->state = SLOT_FREE;
		zn_netif_slot_put(nif, i);
	}
	return 0;

err_region:
	zn_dma_region_free(nif->slab);
	nif->slab = NULL;
err:
	free(nif->slots);
	free(nif->batch);
	nif->slots = NULL;
	nif->batch = NULL;
	return rc;
}

void zn_netif_tx_fini(struct zn_netif *nif)
{
	if (nif->slab) {
		zn_bus_dma_unmap(nif->port->bus, nif->slab);
		zn_dma_region_free(nif->slab);
	}
	free(nif->slots);
	free(nif->batch);
}

uint32_t zn_netif_slot_get(struct zn_netif *nif, bool ctrl)
{
	uint32_t *head = ctrl ? &nif->free_ctrl : &nif->free_hdr, i = *head;

	zn_owner_enter(&nif->owner, "netif");	/* every send takes a slot */
	if (i == NO_SLOT)
		return NO_SLOT;
	*head = nif->slots[i].next_free;
	if (!ctrl)
		nif->nfree_hdr--;
	nif->slots[i].ep = NULL;
	nif->slots[i].tcp = NULL;
	nif->slots[i].pkt.flags = 0;	/* a sender that wants offloads says so */
	return i;
}

void zn_netif_slot_put(struct zn_netif *nif, uint32_t i)
{
	struct tx_slot *s = &nif->slots[i];
	uint32_t *head = i < nif->nhdr ? &nif->free_hdr : &nif->free_ctrl;

	s->state = SLOT_FREE;
	s->ep = NULL;
	s->tcp = NULL;
	s->next_free = *head;
	*head = i;
	if (i < nif->nhdr)
		nif->nfree_hdr++;
}

void zn_netif_batch_push(struct zn_netif *nif, uint32_t i)
{
	nif->slots[i].state = SLOT_BATCH;
	nif->batch[nif->nbatch++] = i;	/* never full: one entry per slot */
}

uint32_t zn_netif_flush(struct zn_netif *nif)
{
	struct zn_tx_pkt pkts[FLUSH_CHUNK];
	uint32_t done = 0;

	zn_owner_enter(&nif->owner, "netif");
	while (done < nif->nbatch) {
		uint32_t m = nif->nbatch - done < FLUSH_CHUNK ? nif->nbatch - done : FLUSH_CHUNK, acc;

		for (uint32_t k = 0; k < m; k++)
			pkts[k] = nif->slots[nif->batch[done + k]].pkt;
		acc = zn_port_tx_burst(nif->port, nif->conf.txq, pkts, m);
		for (uint32_t k = 0; k < acc; k++)
			nif->slots[nif->batch[done + k]].state = SLOT_NIC;
		done += acc;
		if (acc < m) {
			/* ring full: the rest waits for the next poll, in order */
			nif->st.tx_refused += m - acc;
			break;
		}
	}
	if (done) {
		memmove(nif->batch, nif->batch + done, (nif->nbatch - done) * sizeof(*nif->batch));
		nif->nbatch -= done;
	}
	return done;
}

uint32_t zn_netif_reap(struct zn_netif *nif)
{
	uint64_t c[ZN_NETIF_REAP_BURST];
	uint32_t total = 0, n;

	do {
		n = zn_port_tx_reap(nif->port, nif->conf.txq, c, ZN_NETIF_REAP_BURST);
		for (uint32_t k = 0; k < n; k++) {
			struct tx_slot *s;

			if (c[k] >= nif->nslots || nif->slots[c[k]].state != SLOT_NIC) {
				ZN_LOG_RL(ZN_LOG_WARN, NET_LOG, "TX completion for slot %llu that "
					  "is not in flight; ignored", (unsigned long long)c[k]);
				continue;
			}
			s = &nif->slots[c[k]];
			if (s->ep)
				zn_udp_ep_done(s->ep, s->cookie, 0);
			else if (s->tcp)
				zn_netif_tcp_tx_done(nif, s);
			zn_netif_slot_put(nif, (uint32_t)c[k]);
			nif->st.tx_completed++;
		}
		total += n;
	} while (n == ZN_NETIF_REAP_BURST);
	return total;
}

uint32_t zn_netif_in_flight(const struct zn_netif *nif)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nif->nslots; i++)
		n += nif->slots[i].state == SLOT_NIC;
	return n;
}

int zn_netif_send_ctrl(struct zn_netif *nif, const uint8_t *frame, uint32_t len)
{
	uint32_t i;
	struct tx_slot *s;

	if (len > nif->ctrl_size)
		return -EMSGSIZE;
	i = zn_netif_slot_get(nif, true);
	if (i == NO_SLOT)
		return -EAGAIN;
	s = &nif->slots[i];
	memcpy(s->va, frame, len);
	s->pkt.nseg = 1;
	s->pkt.seg[0].len = len;
	zn_netif_batch_push(nif, i);
	return 0;
}

void zn_netif_arp_request(void *ctx, uint32_t ip)
{
	static const uint8_t bcast[ZN_ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct zn_netif *nif = ctx;
	uint8_t f[ZN_ETH_HLEN + ZN_ARP_LEN];

	zn_arp_build(f, ZN_ARP_OP_REQUEST, bcast, nif->mac, nif->conf.ip, NULL, ip);
	/* no control slot: the retry timer asks again */
	if (zn_netif_send_ctrl(nif, f, sizeof(f)) == 0)
		nif->st.tx_arp_request++;
}

void zn_netif_arp_start(struct zn_netif *nif, struct zn_arp_entry *e)
{
	/* nif->now is the last poll's start: a send made long after it would
	 * date its first request back and retry too early */
	e->deadline = nif->conf.clock_ns(nif->conf.clock_ctx) + ZN_ARP_RETRY_NS;
	zn_netif_arp_request(nif, e->ip);
	if (e->deadline < nif->arp_next)
		nif->arp_next = e->deadline;
}

void zn_netif_arp_failed(void *ctx, struct zn_arp_entry *e)
{
	struct zn_netif *nif = ctx;

	for (uint16_t k = 0; k < e->npend; k++) {
		struct tx_slot *s = &nif->slots[e->pend[k]];

		if (s->ep)
			zn_udp_ep_done(s->ep, s->cookie, -EHOSTUNREACH);
		else if (s->tcp)
			zn_netif_tcp_tx_done(nif, s);
		zn_netif_slot_put(nif, e->pend[k]);
		nif->st.tx_unresolved++;
	}
	e->npend = 0;
}

void zn_netif_arp_resolved(struct zn_netif *nif, struct zn_arp_entry *e)
{
	for (uint16_t k = 0; k < e->npend; k++) {
		struct tx_slot *s = &nif->slots[e->pend[k]];

		memcpy(s->va, e->mac, ZN_ETH_ALEN);
		zn_netif_batch_push(nif, e->pend[k]);
	}
	e->npend = 0;
}
