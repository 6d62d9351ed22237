/* SPDX-License-Identifier: MIT */
/* UDP endpoints: bind with an n-tuple rule, receive lists, zero-copy send. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/net/netif_priv.h"
#include "zcnic/log.h"

static const uint8_t bcast_mac[ZN_ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static char *ip_str(uint32_t ip, char *buf)
{
	const uint8_t *b = (const uint8_t *)&ip;

	snprintf(buf, 16, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	return buf;
}

static uint16_t ntoh16(uint16_t v)
{
	return __builtin_bswap16(v);
}

void zn_udp_ep_event(struct zn_udp_ep *ep, unsigned ev)
{
	struct zn_netif *nif = ep->nif;

	ep->events |= ev;
	if (!ep->notify_queued && ep->notify) {
		ep->notify_queued = true;
		nif->notify[nif->nnotify++] = ep;
	}
}

void zn_udp_ep_done(struct zn_udp_ep *ep, uint64_t cookie, int32_t status)
{
	if (ep->tx_done)
		ep->tx_done(ep->arg, ep, cookie, status);
}

/* A descriptor up to its last used segment: a datagram has one or two
 * segments of ZN_RX_MAX_SEGS, and the rest is not worth moving twice. The
 * first segment goes with the header in one copy of a fixed size (a few
 * moves, no call): most datagrams have just that one. */
static void rx_copy(struct zn_udp_rx *dst, const struct zn_udp_rx *src)
{
	uint32_t n = src->nseg < ZN_RX_MAX_SEGS ? src->nseg : ZN_RX_MAX_SEGS;

	memcpy(dst, src, offsetof(struct zn_udp_rx, seg[1]));
	if (n > 1)
		memcpy(&dst->seg[1], &src->seg[1], (n - 1) * sizeof(src->seg[0]));
}

bool zn_udp_ep_deliver(struct zn_udp_ep *ep, const struct zn_udp_rx *d)
{
	rx_copy(&ep->rx[ep->rx_tail & ep->rx_mask], d);
	ep->rx_tail++;
	if (ep->rx_tail - ep->rx_head == 1)
		zn_udp_ep_event(ep, ZN_UDP_EV_RX);
	return true;
}

static struct zn_flow_key ep_key(const struct zn_udp_ep *ep)
{
	return (struct zn_flow_key){ .lip = ep->local.ip, .lport = ep->local.port,
				     .rip = ep->remote.ip, .rport = ep->remote.port,
				     .proto = ZN_IPPROTO_UDP };
}

int zn_udp_open(struct zn_netif *nif, const struct zn_udp_conf *c, struct zn_udp_ep **out)
{
	struct zn_flow_key key;
	struct zn_udp_ep *ep;
	uint32_t ring, id;
	char a[16], b[16];
	bool polled = false;
	int rc;

	if (!nif || !c || !out)
		return -EINVAL;
	ring = c->rx_ring ? c->rx_ring : ZN_UDP_DFLT_RING;
	for (uint16_t i = 0; i < nif->conf.nb_rxq; i++)
		polled |= nif->conf.rxq[i] == c->rxq;
	if ((c->local.ip && c->local.ip != nif->conf.ip) || !c->local.port || !polled ||
	    (ring & (ring - 1)) || (!c->remote.ip != !c->remote.port) || c->local.rsvd ||
	    c->remote.rsvd) {
		ZN_ERR(NET_LOG, "udp open %s:%u: want the netif's address (%s), a port, an RX "
		       "queue the netif polls (%u?), a power-of-two ring, remote ip and port both "
		       "or neither", ip_str(c->local.ip, a), ntoh16(c->local.port),
		       ip_str(nif->conf.ip, b), c->rxq);
		return -EINVAL;
	}
	for (id = 0; id < ZN_NETIF_MAX_EPS && nif->eps[id]; id++)
		;
	if (id == ZN_NETIF_MAX_EPS)
		return -EMFILE;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ep->rx = calloc(ring, sizeof(*ep->rx));
	if (!ep->rx) {
		rc = -ENOMEM;
		goto err_ep;
	}
	ep->nif = nif;
	ep->id = id;
	ep->local = c->local;
	ep->local.ip = nif->conf.ip;
	ep->remote = c->remote;
	ep->rxq = c->rxq;
	ep->rx_mask = ring - 1;
	ep->notify = c->notify;
	ep->tx_done = c->tx_done;
	ep->arg = c->arg;
	key = ep_key(ep);
	rc = zn_flow_add(&nif->flows, &key, ep);
	if (rc < 0) {
		if (rc == -EADDRINUSE)
			ZN_ERR(NET_LOG, "udp open %s:%u: address in use",
			       ip_str(ep->local.ip, a), ntoh16(ep->local.port));
		goto err_rx;
	}
	if (!c->no_steer) {
		struct zn_flow_match m = { .ip_version = 4, .ip_proto = ZN_IPPROTO_UDP };

		memcpy(m.dst_ip, &ep->local.ip, 4);
		m.dst_port = ep->local.port;
		memcpy(m.src_ip, &ep->remote.ip, 4);
		m.src_port = ep->remote.port;
		rc = zn_port_flow_add(nif->port, &m, c->rxq, &ep->rule_id);
		if (rc < 0) {
			ZN_ERR(NET_LOG, "udp open %s:%u: the n-tuple rule to RX queue %u failed: %s "
			       "(no_steer opens without one)", ip_str(ep->local.ip, a),
			       ntoh16(ep->local.port), c->rxq, strerror(-rc));
			goto err_flow;
		}
		ep->has_rule = true;
	}
	nif->eps[id] = ep;
	*out = ep;
	return 0;

err_flow:
	zn_flow_del(&nif->flows, &key);
err_rx:
	free(ep->rx);
err_ep:
	free(ep);
	return rc;
}

static void ep_free(struct zn_udp_ep *ep)
{
	struct zn_netif *nif = ep->nif;
	struct zn_flow_key key = ep_key(ep);
	struct zn_udp_rx d;

	if (ep->has_rule)
		zn_port_flow_del(nif->port, ep->rule_id);
	zn_flow_del(&nif->flows, &key);
	while (zn_udp_recv(ep, &d, 1))
		zn_udp_rx_release(ep, &d);
	zn_udp_tx_forget(ep);
	for (uint32_t i = 0; i < nif->nnotify; i++)
		if (nif->notify[i] == ep) {
			nif->notify[i] = nif->notify[--nif->nnotify];
			break;
		}
	nif->eps[ep->id] = NULL;
	free(ep->rx);
	free(ep);
}

void zn_udp_close(struct zn_udp_ep *ep)
{
	if (ep)
		ep_free(ep);
}

void zn_udp_ep_free_all(struct zn_netif *nif)
{
	for (uint32_t i = 0; i < ZN_NETIF_MAX_EPS; i++)
		if (nif->eps[i])
			ep_free(nif->eps[i]);
}

uint32_t zn_udp_id(const struct zn_udp_ep *ep)
{
	return ep->id;
}

struct zn_udp_ep *zn_udp_by_id(struct zn_netif *nif, uint32_t id)
{
	return id < ZN_NETIF_MAX_EPS ? nif->eps[id] : NULL;
}

uint32_t zn_udp_recv(struct zn_udp_ep *ep, struct zn_udp_rx *out, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n && ep->rx_head != ep->rx_tail; k++, ep->rx_head++)
		rx_copy(&out[k], &ep->rx[ep->rx_head & ep->rx_mask]);
	return k;
}

uint32_t zn_udp_rx_pending(const struct zn_udp_ep *ep)
{
	return ep->rx_tail - ep->rx_head;
}

const uint8_t *zn_udp_rx_data(struct zn_udp_ep *ep, const struct zn_udp_rx *d, uint32_t i)
{
	(void)ep;
	return zn_rx_seg_data(d, i);
}

void zn_udp_rx_release(struct zn_udp_ep *ep, const struct zn_udp_rx *d)
{
	const struct zn_buf_provider *prov;
	uint32_t ids[ZN_RX_MAX_SEGS];

	if (!d->nseg || d->nseg > ZN_RX_MAX_SEGS || d->queue >= ZN_PORT_MAX_QUEUES)
		return;
	prov = ep->nif->prov[d->queue];
	if (!prov)
		return;
	for (uint32_t k = 0; k < d->nseg; k++)
		ids[k] = d->seg[k].buf_id;
	prov->put(prov->ctx, ids, d->nseg);
}

void zn_udp_tx_forget(struct zn_udp_ep *ep)
{
	struct zn_netif *nif = ep->nif;

	for (uint32_t i = 0; i < nif->nslots; i++)
		if (nif->slots[i].ep == ep)
			nif->slots[i].ep = NULL;
}

/* Limited broadcast, or our subnet's (none on /31 and /32 links: RFC 3021). */
static bool is_bcast(const struct zn_netif *nif, uint32_t ip)
{
	return ip == 0xffffffffu || (nif->conf.prefix_len <= 30 && zn_netif_on_link(nif, ip) &&
				     (ip | nif->mask) == 0xffffffffu);
}

/*
 * The template for dst, rebuilt when the destination or its ARP entry
 * changed. 0 with *e NULL: resolved; 0 with *e set: frames wait on *e;
 * -ENETUNREACH, -EAGAIN (no ARP entry to be had).
 */
static int tmpl_get(struct zn_udp_ep *ep, const struct zn_addr4 *dst, struct zn_arp_entry **wait)
{
	struct zn_netif *nif = ep->nif;
	struct zn_arp_entry *e;
	uint32_t hop;
	int r;

	*wait = NULL;
	if (ep->tmpl_ok && ep->tmpl.dst.ip == dst->ip && ep->tmpl.dst.port == dst->port &&
	    (ep->tmpl_bcast || zn_arp_valid(ep->tmpl_arp, ep->tmpl_gen, nif->now)))
		return 0;
	ep->tmpl_ok = false;
	if (is_bcast(nif, dst->ip)) {
		zn_udp_tmpl_build(&ep->tmpl, nif->mac, bcast_mac, &ep->local, dst);
		ep->tmpl_bcast = ep->tmpl_ok = true;
		return 0;
	}
	hop = zn_netif_on_link(nif, dst->ip) ? dst->ip : nif->conf.gateway;
	if (!hop)
		return -ENETUNREACH;
	r = zn_arp_resolve(&nif->arp, hop, nif->now, &e);
	if (r < 0)
		return -EAGAIN;
	if (r == ZN_ARP_NEW)
		zn_netif_arp_start(nif, e);
	zn_udp_tmpl_build(&ep->tmpl, nif->mac, r == ZN_ARP_HIT ? e->mac : NULL, &ep->local, dst);
	ep->tmpl_bcast = false;
	if (r != ZN_ARP_HIT) {
		*wait = e;	/* template stays invalid: rebuilt once resolved */
		return 0;
	}
	ep->tmpl_arp = e;
	ep->tmpl_gen = e->gen;
	ep->tmpl_ok = true;
	return 0;
}

int zn_udp_send(struct zn_udp_ep *ep, const struct zn_addr4 *dst, const struct zn_net_seg *segs,
		uint32_t nseg, uint64_t cookie)
{
	struct zn_netif *nif;
	struct zn_arp_entry *wait;
	struct zn_addr4 d;
	struct tx_slot *s;
	uint32_t len = 0, sum = 0, i, nsum = nseg;
	bool have_sum = true;
	int rc;

	if (!ep || nseg > ZN_UDP_MAX_SEGS || (nseg && !segs))
		return -EINVAL;
	nif = ep->nif;
	d = dst && dst->ip ? *dst : ep->remote;
	if (!d.ip || !d.port)
		return -EINVAL;
	d.rsvd = 0;
	for (i = 0; i < nseg; i++) {
		if (!segs[i].len)
			return -EINVAL;
		len += segs[i].len;
		if (len > nif->mtu - ZN_IPV4_HLEN - ZN_UDP_HLEN)
			return -EMSGSIZE;
	}
	rc = tmpl_get(ep, &d, &wait);
	if (rc < 0)
		return rc;
	if (wait && wait->npend == ZN_ARP_PENDING)
		return -EAGAIN;
	i = zn_netif_slot_get(nif, false);
	if (i == UINT32_MAX) {
		nif->st.tx_no_slot++;
		return -EAGAIN;
	}
	s = &nif->slots[i];
	for (uint32_t k = 0; k < nseg; k++) {
		s->pkt.seg[k + 1].iova = segs[k].iova;
		s->pkt.seg[k + 1].len = segs[k].len;
	}
	if (nif->tx_offl & ZN_TX_F_L4_CSUM) {
		/* the device sums header and payload: no byte read here */
		have_sum = false;
		s->pkt.flags = ZN_TX_F_L4_CSUM;
		s->pkt.l2_len = ZN_ETH_HLEN;
		s->pkt.l3_len = ZN_IPV4_HLEN;
		s->pkt.l4_len = ZN_UDP_HLEN;
		nsum = 0;
	}
	/* The payload's sum, piece by piece: a piece after an odd length sits
	 * in the other byte of each word (RFC 1071 2(B)). */
	for (uint32_t k = 0, off = 0; k < nsum; k++) {
		uint32_t ps;

		if (!segs[k].va) {
			have_sum = false;
			continue;
		}
		if (!have_sum)
			continue;
		ps = zn_csum_fold(zn_csum_add(0, segs[k].va, segs[k].len));
		sum += off & 1 ? (uint16_t)__builtin_bswap16((uint16_t)ps) : ps;
		off += segs[k].len;
	}
	zn_udp_tmpl_write(&ep->tmpl, s->va, (uint16_t)len, nif->ip_id++, have_sum, sum);
	s->pkt.nseg = (uint16_t)(1 + nseg);
	s->pkt.seg[0].len = ZN_UDP_HDRS;
	s->ep = ep;
	s->cookie = cookie;
	if (wait) {
		zn_arp_queue(wait, i);	/* room checked above */
		s->state = SLOT_ARP_WAIT;
	} else {
		zn_netif_batch_push(nif, i);
	}
	nif->st.tx_udp++;
	return 0;
}

int zn_udp_send_buf(struct zn_udp_ep *ep, const struct zn_addr4 *dst, const void *buf,
		    uint32_t len, uint64_t cookie)
{
	struct zn_netif *nif;
	struct zn_net_seg seg = { .va = buf, .len = len };
	uintptr_t b = (uintptr_t)buf;

	if (!ep || (len && !buf))
		return -EINVAL;
	if (!len)
		return zn_udp_send(ep, dst, NULL, 0, cookie);
	nif = ep->nif;
	/* the registry takes a lock: look up only when the cached region misses */
	if (b < nif->reg_va || b + len > nif->reg_va + nif->reg_len) {
		const struct zn_dma_region *r = zn_mem_find(buf);

		if (!r || b + len > (uintptr_t)r->va + r->len)
			return -EFAULT;
		nif->reg_va = (uintptr_t)r->va;
		nif->reg_len = r->len;
		nif->reg_iova = r->iova;
	}
	seg.iova = nif->reg_iova + (b - nif->reg_va);
	return zn_udp_send(ep, dst, &seg, 1, cookie);
}
