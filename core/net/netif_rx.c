/* SPDX-License-Identifier: MIT */
/*
 * A netif's receive side: one rx_burst per queue, each frame classified
 * (parse.c) and handled: ARP answered and learnt, ICMP echo answered, UDP
 * datagrams put on their endpoint's receive list with the payload left in
 * the provider's buffers, TCP segments given to the TCP engine
 * (netif_tcp.c) likewise. Buffers that nobody keeps go back to the provider
 * before the poll returns.
 */
#include <errno.h>
#include <string.h>

#include "core/net/netif_priv.h"
#include "zcnic/log.h"

static void put_segs(const struct zn_buf_provider *prov, const struct zn_rx_pkt *pk,
		     uint32_t from)
{
	uint32_t ids[ZN_RX_MAX_SEGS], n = 0;

	for (uint32_t k = from; k < pk->nseg && k < ZN_RX_MAX_SEGS; k++)
		ids[n++] = pk->seg[k].buf_id;
	if (n)
		prov->put(prov->ctx, ids, n);
}

static void handle_arp(struct zn_netif *nif, const struct zn_net_rx_info *in)
{
	struct zn_arp_entry *e;

	/* RFC 826: we are the target, so the sender goes into the table */
	if (in->arp_spa) {
		e = zn_arp_learn(&nif->arp, in->arp_spa, in->arp_sha, nif->now, true);
		if (e)
			zn_netif_arp_resolved(nif, e);
	}
	if (in->arp_op == ZN_ARP_OP_REQUEST) {
		uint8_t f[ZN_ETH_HLEN + ZN_ARP_LEN];

		zn_arp_build(f, ZN_ARP_OP_REPLY, in->arp_sha, nif->mac, nif->conf.ip, in->arp_sha,
			     in->arp_spa);
		if (zn_netif_send_ctrl(nif, f, sizeof(f)) == 0)
			nif->st.tx_arp_reply++;
	}
}

static void handle_echo(struct zn_netif *nif, const struct zn_frame *f,
			const struct zn_net_rx_info *in)
{
	uint32_t i = zn_netif_slot_get(nif, true);
	struct tx_slot *s;
	size_t len;

	if (i == UINT32_MAX)
		return;		/* the peer pings again */
	s = &nif->slots[i];
	len = zn_icmp_echo_reply(f, in, nif->mac, nif->ip_id++, s->va, nif->ctrl_size);
	if (!len) {
		zn_netif_slot_put(nif, i);
		return;
	}
	s->pkt.nseg = 1;
	s->pkt.seg[0].len = (uint32_t)len;
	zn_netif_batch_push(nif, i);
	nif->st.tx_icmp_reply++;
}

/*
 * Payload bytes that sit in the header buffer (not split) are copied into
 * fresh provider buffers, so that a descriptor never points into header
 * memory. Returns false if the provider had no buffer.
 */
static bool copy_out(const struct zn_buf_provider *prov, const struct zn_frame *f,
		     const struct zn_net_rx_info *in, struct zn_udp_rx *d)
{
	uint32_t need = (in->payload_len + prov->buf_size - 1) / prov->buf_size, got, off = 0;
	struct zn_buf bufs[ZN_RX_MAX_SEGS];
	uint32_t ids[ZN_RX_MAX_SEGS];

	if (need > ZN_RX_MAX_SEGS)
		return false;
	got = prov->alloc(prov->ctx, bufs, need);
	if (got < need) {
		for (uint32_t k = 0; k < got; k++)
			ids[k] = bufs[k].id;
		if (got)
			prov->put(prov->ctx, ids, got);
		return false;
	}
	for (uint32_t k = 0; k < need; k++) {
		uint32_t n = in->payload_len - off < prov->buf_size ? in->payload_len - off :
			     prov->buf_size;

		zn_frame_copy(f, in->payload_off + off, bufs[k].va, n);
		d->seg[k].va = bufs[k].va;
		d->seg[k].buf_id = bufs[k].id;
		d->seg[k].off = 0;
		d->seg[k].len = n;
		off += n;
	}
	d->nseg = (uint16_t)need;
	return true;
}

/* The descriptor's segments: the part of the frame's segments that holds
 * the payload (Ethernet padding trimmed). Buffers not used are given back. */
enum zn_net_rx_kind zn_netif_fill_segs(struct zn_netif *nif, const struct zn_buf_provider *prov,
				       const struct zn_frame *f, const struct zn_rx_pkt *pk,
				       const struct zn_net_rx_info *in, struct zn_udp_rx *d)
{
	uint32_t start = f->piece[0].len, pend = in->payload_off + in->payload_len;
	uint32_t unused[ZN_RX_MAX_SEGS], nunused = 0;

	d->nseg = 0;
	if (in->payload_len && in->payload_off < f->piece[0].len) {
		if (!copy_out(prov, f, in, d))
			return ZN_NET_DROP_NOBUF;
		nif->st.rx_copied++;
		put_segs(prov, pk, 0);
		return ZN_NET_RX_UDP;
	}
	for (uint32_t k = 0; k < pk->nseg; k++) {
		uint32_t s = start, e = start + pk->seg[k].len;
		uint32_t lo = s > in->payload_off ? s : in->payload_off, hi = e < pend ? e : pend;

		start = e;
		if (lo >= hi) {
			unused[nunused++] = pk->seg[k].buf_id;
			continue;
		}
		d->seg[d->nseg].va = pk->seg[k].va;
		d->seg[d->nseg].buf_id = pk->seg[k].buf_id;
		d->seg[d->nseg].off = pk->seg[k].off + (lo - s);
		d->seg[d->nseg].len = hi - lo;
		d->nseg++;
	}
	if (nunused)
		prov->put(prov->ctx, unused, nunused);
	return ZN_NET_RX_UDP;
}

static enum zn_net_rx_kind handle_udp(struct zn_netif *nif, uint16_t q,
				      const struct zn_buf_provider *prov, const struct zn_frame *f,
				      const struct zn_rx_pkt *pk, const struct zn_net_rx_info *in)
{
	struct zn_udp_ep *ep = zn_flow_match(&nif->flows, ZN_IPPROTO_UDP, in->dst_ip, in->dport,
					     in->src_ip, in->sport);
	struct zn_udp_rx d;
	enum zn_net_rx_kind k;

	if (!ep)
		return ZN_NET_DROP_NO_EP;
	if (ep->rx_tail - ep->rx_head > ep->rx_mask)
		return ZN_NET_DROP_EP_FULL;
	d.src.ip = in->src_ip;
	d.src.port = in->sport;
	d.src.rsvd = 0;
	d.queue = q;
	d.len = in->payload_len;
	d.hdr = pk->hdr;
	d.hdr_len = in->payload_off < pk->hdr_len ? in->payload_off : pk->hdr_len;
	k = zn_netif_fill_segs(nif, prov, f, pk, in, &d);
	if (k != ZN_NET_RX_UDP)
		return k;
	zn_udp_ep_deliver(ep, &d);
	nif->st.rx_delivered++;
	return ZN_NET_RX_UDP;
}

static void rx_one(struct zn_netif *nif, uint16_t q, const struct zn_buf_provider *prov,
		   const struct zn_rx_pkt *pk)
{
	struct zn_net_rx_info in;
	struct zn_frame f;
	enum zn_net_rx_kind k;
	bool kept = false;

	f.npiece = 1;
	f.piece[0].p = pk->hdr;
	f.piece[0].len = pk->hdr_len;
	f.len = pk->hdr_len;
	for (uint32_t s = 0; s < pk->nseg && s < ZN_RX_MAX_SEGS; s++) {
		/* the driver carries the address the provider gave with the buffer */
		const uint8_t *va = pk->seg[s].va;

		if (!va) {
			/* a provider that gave no address: nothing to read */
			ZN_LOG_RL(ZN_LOG_WARN, NET_LOG, "rx queue %u: payload buffer %u has no "
				  "address; frame dropped", q, pk->seg[s].buf_id);
			k = ZN_NET_DROP_RUNT;
			goto out;
		}
		f.piece[f.npiece].p = va + pk->seg[s].off;
		f.piece[f.npiece].len = pk->seg[s].len;
		f.npiece++;
		f.len += pk->seg[s].len;
	}
	k = zn_net_rx_parse(&f, pk->flags, nif->conf.sw_csum, nif->mac, nif->conf.ip, &in);
	switch (k) {
	case ZN_NET_RX_UDP:
		k = handle_udp(nif, q, prov, &f, pk, &in);
		kept = k == ZN_NET_RX_UDP;
		break;
	case ZN_NET_RX_ARP:
		handle_arp(nif, &in);
		break;
	case ZN_NET_RX_ICMP_ECHO:
		handle_echo(nif, &f, &in);
		break;
	case ZN_NET_DROP_PROTO:
		if (in.ip_proto == ZN_IPPROTO_TCP)
			k = zn_netif_tcp_rx(nif, q, prov, &f, pk, &in, &kept);
		break;
	default:
		break;
	}
out:
	nif->st.rx[k]++;
	/* a delivered datagram's unused buffers went back in handle_udp */
	if (!kept)
		put_segs(prov, pk, 0);
}

uint32_t zn_netif_rx(struct zn_netif *nif)
{
	uint32_t total = 0;

	for (uint16_t i = 0; i < nif->conf.nb_rxq; i++) {
		uint16_t q = nif->conf.rxq[i];
		const struct zn_buf_provider *prov = nif->prov[q];
		uint32_t n = zn_rxq_burst(nif->rxq[i], nif->pkts, nif->conf.burst);

		for (uint32_t k = 0; k < n; k++)
			rx_one(nif, q, prov, &nif->pkts[k]);
		nif->st.rx_frames += n;
		total += n;
	}
	return total;
}
