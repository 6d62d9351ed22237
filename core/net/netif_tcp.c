/* SPDX-License-Identifier: MIT */
/*
 * The netif's TCP engine (core/net/tcp.h) wired to its queues: segments the
 * parser left to it (IPv4 protocol 6) have their checksum verified, their
 * header gathered and their payload described by reference (the buffers
 * the NIC filled), and go to zn_tcp_input; segments the engine sends get
 * Ethernet + IPv4 headers in a header slot, with the payload pieces by
 * IOVA, and wait for ARP like UDP's frames do.
 *
 * A TCP frame's TX slot carries its connection and the send chunks its
 * payload points into; its completion (or its drop, when ARP fails) goes
 * back to the engine, which completes a send only once the peer
 * acknowledged it and the NIC read every frame pointing into it
 * (env.tx_track).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/net/netif_priv.h"

static uint64_t tcp_clock(void *ctx)
{
	struct zn_netif *nif = ctx;

	return nif->conf.clock_ns(nif->conf.clock_ctx);
}

static void tcp_rx_put(void *ctx, const struct zn_udp_rx *d)
{
	struct zn_netif *nif = ctx;
	const struct zn_buf_provider *prov;
	uint32_t ids[ZN_RX_MAX_SEGS];

	if (!d->nseg || d->nseg > ZN_RX_MAX_SEGS || d->queue >= ZN_PORT_MAX_QUEUES)
		return;
	prov = nif->prov[d->queue];
	if (!prov)
		return;
	for (uint32_t k = 0; k < d->nseg; k++)
		ids[k] = d->seg[k].buf_id;
	prov->put(prov->ctx, ids, d->nseg);
}

static uint32_t tcp_rx_room(void *ctx, uint16_t q)
{
	struct zn_netif *nif = ctx;

	if (q >= ZN_PORT_MAX_QUEUES || !nif->rx_room[q])
		return UINT32_MAX;
	return nif->rx_room[q](nif->rx_room_ctx[q]);
}

void zn_netif_rx_room_set(struct zn_netif *nif, uint16_t q, uint32_t (*room)(void *ctx),
			  void *ctx)
{
	if (q >= ZN_PORT_MAX_QUEUES)
		return;
	nif->rx_room[q] = room;
	nif->rx_room_ctx[q] = ctx;
}

void zn_netif_rx_room_grew(struct zn_netif *nif)
{
	if (nif->tcp)
		zn_tcp_rx_room_grew(nif->tcp);
}

static int tcp_out(void *ctx, const struct zn_tcp_out *o)
{
	static const uint8_t zero[ZN_ETH_ALEN];
	struct zn_netif *nif = ctx;
	struct zn_arp_entry *e;
	struct tx_slot *s;
	uint32_t hop, i, l3 = o->hlen + o->len, nfr = 1;
	uint8_t *p;
	int r;

	if (o->mss) {
		/* LSO: each cut frame within the MTU, the whole within max_lso */
		if (!(nif->tx_offl & ZN_TX_F_LSO) || ZN_IPV4_HLEN + o->hlen + o->mss > nif->mtu ||
		    ZN_ETH_HLEN + ZN_IPV4_HLEN + l3 > nif->max_lso)
			return -EMSGSIZE;
		nfr = (o->len + o->mss - 1) / o->mss;
	} else if (ZN_IPV4_HLEN + l3 > nif->mtu) {
		return -EMSGSIZE;
	}
	hop = zn_netif_on_link(nif, o->dst) ? o->dst : nif->conf.gateway;
	if (!hop)
		return -ENETUNREACH;
	r = zn_arp_resolve(&nif->arp, hop, nif->now, &e);
	if (r < 0)
		return -EAGAIN;
	if (r == ZN_ARP_NEW)
		zn_netif_arp_start(nif, e);
	if (r != ZN_ARP_HIT && e->npend == ZN_ARP_PENDING)
		return -EAGAIN;		/* lost, as on a wire: the engine resends */
	i = zn_netif_slot_get(nif, false);
	if (i == UINT32_MAX) {
		nif->st.tx_no_slot++;
		return -EAGAIN;
	}
	s = &nif->slots[i];
	p = s->va;
	p += zn_eth_build(p, r == ZN_ARP_HIT ? e->mac : zero, nif->mac, ZN_ETH_P_IPV4);
	p += zn_ipv4_build(p, o->src, o->dst, ZN_IPPROTO_TCP, (uint16_t)l3, nif->ip_id,
			   ZN_NET_TTL);
	nif->ip_id = (uint16_t)(nif->ip_id + nfr);	/* LSO: the device counts up per frame */
	memcpy(p, o->hdr, o->hlen);
	s->pkt.seg[0].len = ZN_ETH_HLEN + ZN_IPV4_HLEN + o->hlen;
	if (nif->tx_offl) {
		s->pkt.flags = o->mss ? ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM | ZN_TX_F_LSO :
			       ZN_TX_F_L4_CSUM;
		s->pkt.l2_len = ZN_ETH_HLEN;
		s->pkt.l3_len = ZN_IPV4_HLEN;
		s->pkt.l4_len = (uint8_t)o->hlen;
		s->pkt.mss = (uint16_t)o->mss;
		nif->st.tx_lso += o->mss != 0;
	}
	for (uint32_t k = 0; k < o->npiece; k++) {
		s->pkt.seg[1 + k].iova = o->piece[k].iova;
		s->pkt.seg[1 + k].len = o->piece[k].len;
	}
	s->pkt.nseg = 1 + o->npiece;
	s->ep = NULL;
	if (o->len && o->ref_n) {
		s->tcp = o->conn;
		s->cookie = (uint64_t)o->ref_first << 32 | o->ref_n;
	}
	if (r != ZN_ARP_HIT) {
		zn_arp_queue(e, i);
		s->state = SLOT_ARP_WAIT;
	} else {
		zn_netif_batch_push(nif, i);
	}
	nif->st.tx_tcp++;
	return 0;
}

int zn_netif_tcp_init(struct zn_netif *nif)
{
	struct zn_tcp_env env = {
		.ip = nif->conf.ip,
		.output = tcp_out,
		.rx_put = tcp_rx_put,
		.clock_ns = tcp_clock,
		.rx_room = tcp_rx_room,
		.ctx = nif,
		.mss = nif->mtu - ZN_IPV4_HLEN - ZN_TCP_HLEN,
		/* what the RX queues can hold while the application is slow
		 * (a 1024-entry ring of MTU frames): a larger window only
		 * makes the NIC drop */
		.rcv_buf = 1u << 20,
		.tx_track = true,
		.tx_csum_offload = nif->tx_offl & ZN_TX_F_L4_CSUM,
		/* room for the longest TCP header in every LSO frame */
		.lso_max = nif->max_lso ? nif->max_lso - ZN_ETH_HLEN - ZN_IPV4_HLEN -
					  ZN_TCP_MAX_HLEN : 0,
	};

	return zn_tcp_create(&env, &nif->tcp);
}

void zn_netif_tcp_tx_done(struct zn_netif *nif, const struct tx_slot *s)
{
	if (nif->tcp)
		zn_tcp_tx_complete(nif->tcp, s->tcp, (uint32_t)(s->cookie >> 32),
				   (uint32_t)s->cookie);
}

void zn_netif_tcp_fini(struct zn_netif *nif)
{
	zn_tcp_destroy(nif->tcp);
	nif->tcp = NULL;
}

struct zn_tcp *zn_netif_tcp(struct zn_netif *nif)
{
	return nif->tcp;
}

/* A TCP segment's payload, by reference: its part of the frame's buffers
 * (header-resident bytes copied out, as for UDP). */
enum zn_net_rx_kind zn_netif_tcp_rx(struct zn_netif *nif, uint16_t q,
				    const struct zn_buf_provider *prov, const struct zn_frame *f,
				    const struct zn_rx_pkt *pk, const struct zn_net_rx_info *in,
				    bool *kept)
{
	uint8_t h[ZN_TCP_MAX_HLEN];
	uint32_t seg_len = in->payload_len, got, hlen;
	struct zn_net_rx_info pin = *in;
	struct zn_udp_rx d;
	enum zn_net_rx_kind k;

	if (!nif->tcp || seg_len < ZN_TCP_HLEN)
		return ZN_NET_DROP_TCP;
	if (pk->flags & ZN_RX_F_AGG) {
		/* One in-sequence run of agg_segs segments: the device checked
		 * every one's checksum and none is left to check (port.h). */
		if (!(pk->flags & ZN_RX_F_L4_CSUM_OK))
			return ZN_NET_DROP_TCP;
		nif->st.rx_agg++;
		nif->st.rx_agg_segs += pk->agg_segs;
	} else if ((!nif->conf.sw_csum && (pk->flags & ZN_RX_F_L4_CSUM_BAD)) ||
		   ((nif->conf.sw_csum || !(pk->flags & ZN_RX_F_L4_CSUM_OK)) &&
		    !zn_tcp_csum_ok(f, in->l4, seg_len, in->src_ip, in->dst_ip))) {
		return ZN_NET_DROP_TCP;
	}
	got = zn_frame_copy(f, in->l4, h, seg_len < sizeof(h) ? seg_len : sizeof(h));
	hlen = (h[12] >> 4) * 4u;
	memset(&d, 0, offsetof(struct zn_udp_rx, seg));
	d.src.ip = in->src_ip;
	d.queue = q;
	d.frames = pk->flags & ZN_RX_F_AGG ? pk->agg_segs : 1;
	if (hlen < ZN_TCP_HLEN || hlen > got || hlen >= seg_len) {
		/* no data (or a header the engine will reject): only the header */
		zn_tcp_input(nif->tcp, in->src_ip, in->dst_ip, h, got, seg_len, NULL);
		return ZN_NET_RX_TCP;	/* the caller gives every buffer back */
	}
	pin.payload_off = in->l4 + hlen;
	pin.payload_len = seg_len - hlen;
	d.len = pin.payload_len;
	k = zn_netif_fill_segs(nif, prov, f, pk, &pin, &d);
	if (k != ZN_NET_RX_UDP)
		return k;
	/* the engine owns the buffers now (fill_segs gave back the unused) */
	*kept = true;
	zn_tcp_input(nif->tcp, in->src_ip, in->dst_ip, h, got, seg_len, &d);
	return ZN_NET_RX_TCP;
}
