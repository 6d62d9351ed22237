/* SPDX-License-Identifier: MIT */
/*
 * TCP segmentation and receive aggregation rules shared by the NIC models
 * (sim/offload.h says which Linux rules they follow).
 */
#include <string.h>

#include "sim/offload.h"

#define ETH_HLEN	14
#define ET_VLAN		0x8100
#define ET_QINQ		0x88a8
#define ET_IPV4		0x0800
#define ET_IPV6		0x86dd
#define PROTO_TCP	6

static uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void st16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void st32(uint8_t *p, uint32_t v)
{
	st16(p, v >> 16);
	st16(p + 2, v);
}

int zn_sim_tcp_hdrs(const uint8_t *f, size_t len, struct zn_sim_tcp_hdrs *h)
{
	unsigned l3 = ETH_HLEN, l4, doff;
	uint16_t et;

	if (len < ETH_HLEN)
		return -1;
	et = ld16(f + 12);
	if (et == ET_VLAN || et == ET_QINQ) {
		if (len < ETH_HLEN + 4)
			return -1;
		et = ld16(f + 16);
		l3 += 4;
	}
	if (et == ET_IPV4) {
		unsigned ihl;

		if (len < l3 + 20u || f[l3] >> 4 != 4)
			return -1;
		ihl = (f[l3] & 0xfu) * 4u;
		if (ihl < 20 || f[l3 + 9] != PROTO_TCP || (ld16(f + l3 + 6) & 0x3fff))
			return -1;
		h->ipv = 4;
		l4 = l3 + ihl;
	} else if (et == ET_IPV6) {
		if (len < l3 + 40u || f[l3] >> 4 != 6 || f[l3 + 6] != PROTO_TCP)
			return -1;
		h->ipv = 6;
		l4 = l3 + 40;
	} else {
		return -1;
	}
	if (len < l4 + 20u)
		return -1;
	doff = (f[l4 + 12] >> 4) * 4u;
	if (doff < 20 || len < l4 + doff)
		return -1;
	h->l3 = l3;
	h->l4 = l4;
	h->hdr_len = l4 + doff;
	return 0;
}

size_t zn_sim_tso_seg(const struct zn_sim_tso *t, unsigned i, uint8_t *out)
{
	const struct zn_sim_tcp_hdrs *h = &t->h;
	size_t pay = t->len - h->hdr_len, off = (size_t)i * t->mss;
	size_t n = pay - off < t->mss ? pay - off : t->mss;
	uint8_t *ip = out + h->l3, *th = out + h->l4;
	unsigned last = zn_sim_tso_nseg(t) - 1;

	memcpy(out, t->frame, h->hdr_len);
	memcpy(out + h->hdr_len, t->frame + h->hdr_len + off, n);
	if (h->ipv == 4) {
		uint16_t id = ld16(ip + 4);

		st16(ip + 2, (uint32_t)(h->hdr_len - h->l3 + n));
		st16(ip + 4, (uint32_t)((id & ~t->ipid_mask) | ((id + i) & t->ipid_mask)));
	} else {
		st16(ip + 4, (uint32_t)(h->hdr_len - h->l3 - 40 + n));
	}
	st32(th + 4, ld32(th + 4) + (uint32_t)off);
	if (i)
		th[13] &= (uint8_t)~ZN_SIM_TCP_CWR;
	if (i != last)
		th[13] &= (uint8_t)~(ZN_SIM_TCP_FIN | ZN_SIM_TCP_PSH);
	return h->hdr_len + n;
}

/* ---- receive aggregation ---- */

bool zn_sim_gro_can_start(const uint8_t *f, const struct zn_sim_tcp_hdrs *h, size_t pay)
{
	uint8_t flags = f[h->l4 + 13];

	return pay && !(flags & ~(ZN_SIM_TCP_ACK | ZN_SIM_TCP_PSH)) && (flags & ZN_SIM_TCP_ACK) &&
	       h->hdr_len <= sizeof(((struct zn_sim_gro *)0)->hdr) &&
	       (h->ipv == 6 || h->l4 - h->l3 == 20);
}

void zn_sim_gro_start(struct zn_sim_gro *g, const uint8_t *f, const struct zn_sim_tcp_hdrs *h,
		      size_t pay)
{
	memcpy(g->hdr, f, h->hdr_len);
	g->h = *h;
	g->mss = g->last_len = g->bytes = (uint32_t)pay;
	g->next_seq = ld32(f + h->l4 + 4) + (uint32_t)pay;
	g->segs = 1;
}

bool zn_sim_gro_same_flow(const struct zn_sim_gro *g, const uint8_t *f,
			  const struct zn_sim_tcp_hdrs *h)
{
	unsigned alen = h->ipv == 4 ? 4 : 16, at = h->ipv == 4 ? 12 : 8;

	return h->ipv == g->h.ipv && h->l3 == g->h.l3 &&
	       !memcmp(f + h->l3 + at, g->hdr + g->h.l3 + at, 2 * alen) &&
	       !memcmp(f + h->l4, g->hdr + g->h.l4, 4);
}

/* Do the headers of f differ from g's first frame's in anything but what
 * changes from one segment to the next (IP length, id and checksum, TCP
 * sequence, checksum and PSH)? */
static bool hdr_changed(const struct zn_sim_gro *g, const uint8_t *f,
			const struct zn_sim_tcp_hdrs *h)
{
	const uint8_t *a = g->hdr, *b = f;
	unsigned l3 = h->l3, l4 = h->l4;

	if (h->hdr_len != g->h.hdr_len || memcmp(a, b, l3))
		return true;
	if (h->ipv == 4) {
		uint16_t want = (uint16_t)(ld16(a + l3 + 4) + g->segs);
		/* the id counts up per segment, or stays with DF (Linux
		 * inet_gro_receive's flush_id rule) */
		bool id_ok = ld16(b + l3 + 4) == want ||
			     ((b[l3 + 6] & 0x40) && ld16(b + l3 + 4) == ld16(a + l3 + 4));

		if (!id_ok || a[l3] != b[l3] || a[l3 + 1] != b[l3 + 1] ||
		    memcmp(a + l3 + 6, b + l3 + 6, 4) || memcmp(a + l3 + 12, b + l3 + 12, 8))
			return true;
	} else if (memcmp(a + l3, b + l3, 4) || memcmp(a + l3 + 6, b + l3 + 6, 34)) {
		return true;
	}
	/* TCP: ports, ack, offset, window, urgent pointer, options; flags but
	 * PSH */
	return memcmp(a + l4, b + l4, 4) || memcmp(a + l4 + 8, b + l4 + 8, 5) ||
	       ((a[l4 + 13] ^ b[l4 + 13]) & (uint8_t)~ZN_SIM_TCP_PSH) ||
	       memcmp(a + l4 + 14, b + l4 + 14, 2) || memcmp(a + l4 + 18, b + l4 + 18, 2) ||
	       memcmp(a + l4 + 20, b + l4 + 20, h->hdr_len - l4 - 20);
}

enum zn_sim_gro_verdict zn_sim_gro_offer(struct zn_sim_gro *g, const uint8_t *f,
					 const struct zn_sim_tcp_hdrs *h, size_t pay,
					 unsigned max_segs, uint32_t max_bytes)
{
	uint8_t flags = f[h->l4 + 13];

	if (!zn_sim_gro_same_flow(g, f, h))
		return ZN_SIM_GRO_OTHER;
	if (!pay || (flags & ~(ZN_SIM_TCP_ACK | ZN_SIM_TCP_PSH)) ||
	    ld32(f + h->l4 + 4) != g->next_seq || pay > g->mss || g->last_len < g->mss ||
	    hdr_changed(g, f, h) || g->segs >= max_segs || g->bytes + pay > max_bytes)
		return ZN_SIM_GRO_FLUSH;
	g->segs++;
	g->bytes += (uint32_t)pay;
	g->last_len = (uint32_t)pay;
	g->next_seq += (uint32_t)pay;
	/* PSH ends the aggregate, and so does a short segment (Linux
	 * tcp_gro_receive flushes after either) */
	return (flags & ZN_SIM_TCP_PSH) || pay < g->mss ? ZN_SIM_GRO_MERGE_LAST : ZN_SIM_GRO_MERGE;
}
