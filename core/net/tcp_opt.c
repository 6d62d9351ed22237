/* SPDX-License-Identifier: MIT */
/*
 * TCP header and options (RFC 9293 3.1 and 3.2, RFC 7323 for window scale
 * and timestamps, RFC 2018 for SACK): strict parsing of what comes from the
 * wire, and the header we write.
 */
#include <string.h>

#include "core/net/tcp_priv.h"

#define OPT_EOL		0
#define OPT_NOP		1
#define OPT_MSS		2
#define OPT_WS		3
#define OPT_SACK_OK	4
#define OPT_SACK	5
#define OPT_TS		8

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * A known option with the wrong length is malformed (the segment is
 * dropped, as Linux does for a bad MSS/WS length on a SYN); a repeated one
 * too. Unknown kinds are skipped by their length, which must be >= 2 and
 * fit.
 */
static enum zn_tcp_parse_err parse_opts(const uint8_t *o, uint32_t n, struct zn_tcp_hdr *h)
{
	bool syn = h->flags & ZN_TCP_SYN, seen_sack = false;
	uint32_t i = 0;

	while (i < n) {
		uint8_t kind = o[i], len;

		if (kind == OPT_EOL)
			break;
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= n)
			return ZN_TCP_PARSE_OPT;
		len = o[i + 1];
		if (len < 2 || i + len > n)
			return ZN_TCP_PARSE_OPT;
		switch (kind) {
		case OPT_MSS:
			if (len != 4 || h->has_mss)
				return ZN_TCP_PARSE_OPT;
			/* only meaningful on a SYN; ignored elsewhere (RFC 9293 3.7.1) */
			if (syn) {
				h->has_mss = true;
				h->mss = rd16(o + i + 2);
			}
			break;
		case OPT_WS:
			if (len != 3 || h->has_ws)
				return ZN_TCP_PARSE_OPT;
			if (syn) {
				h->has_ws = true;
				/* RFC 7323 2.3: a shift above 14 is used as 14 */
				h->ws = o[i + 2] > TCP_MAX_WS ? TCP_MAX_WS : o[i + 2];
			}
			break;
		case OPT_SACK_OK:
			if (len != 2 || h->sack_ok)
				return ZN_TCP_PARSE_OPT;
			h->sack_ok = syn;
			break;
		case OPT_TS:
			if (len != 10 || h->has_ts)
				return ZN_TCP_PARSE_OPT;
			h->has_ts = true;
			h->tsval = rd32(o + i + 2);
			h->tsecr = rd32(o + i + 6);
			break;
		case OPT_SACK:
			if (seen_sack || len < 10 || (len - 2) % 8)
				return ZN_TCP_PARSE_OPT;
			seen_sack = true;
			h->nsack = (uint8_t)((len - 2) / 8);
			if (h->nsack > ZN_TCP_MAX_SACK)
				return ZN_TCP_PARSE_OPT;
			for (uint32_t k = 0; k < h->nsack; k++) {
				h->sack[k][0] = rd32(o + i + 2 + 8 * k);
				h->sack[k][1] = rd32(o + i + 6 + 8 * k);
				/* a block is [left, right) with right after left */
				if (!seq_lt(h->sack[k][0], h->sack[k][1]))
					return ZN_TCP_PARSE_OPT;
			}
			break;
		default:
			break;
		}
		i += len;
	}
	return ZN_TCP_PARSE_OK;
}

enum zn_tcp_parse_err zn_tcp_parse(const uint8_t *p, uint32_t avail, uint32_t seg_len,
				   struct zn_tcp_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (avail < ZN_TCP_HLEN || seg_len < ZN_TCP_HLEN)
		return ZN_TCP_PARSE_SHORT;
	h->hlen = (uint16_t)((p[12] >> 4) * 4);
	if (h->hlen < ZN_TCP_HLEN)
		return ZN_TCP_PARSE_DOFF;
	if (h->hlen > avail || h->hlen > seg_len)
		return ZN_TCP_PARSE_SHORT;
	h->sport = rd16(p);
	h->dport = rd16(p + 2);
	h->seq = rd32(p + 4);
	h->ack = rd32(p + 8);
	h->flags = p[13];
	h->wnd = rd16(p + 14);
	h->urp = rd16(p + 18);
	if ((h->flags & ZN_TCP_SYN) && (h->flags & (ZN_TCP_FIN | ZN_TCP_RST)))
		return ZN_TCP_PARSE_FLAGS;
	return parse_opts(p + ZN_TCP_HLEN, h->hlen - ZN_TCP_HLEN, h);
}

bool zn_tcp_csum_ok(const struct zn_frame *f, uint32_t off, uint32_t seg_len, uint32_t src,
		    uint32_t dst)
{
	uint32_t s = zn_csum_fold(zn_ipv4_pseudo(src, dst, ZN_IPPROTO_TCP, (uint16_t)seg_len));

	s += zn_csum_fold(zn_frame_csum(f, off, seg_len));
	return zn_csum_fold(s) == 0xffff;
}

/*
 * SACK blocks (RFC 2018 4) of the out-of-order queue: runs of adjacent
 * entries merged, the run holding the newest arrival first, then the
 * others from the lowest, as many as fit after the options before them.
 */
static uint32_t write_sack(const struct zn_tcp_conn *c, uint8_t *h, uint32_t n)
{
	uint32_t room = (ZN_TCP_MAX_HLEN - n - 4) / 8, nb = 0, first = UINT32_MAX;
	uint32_t l[ZN_TCP_MAX_SACK], r[ZN_TCP_MAX_SACK];
	uint32_t i = 0, runs = 0;

	if (room > ZN_TCP_MAX_SACK)
		room = ZN_TCP_MAX_SACK;
	if (!room)
		return n;
	/* the newest arrival's run */
	while (i < c->nooo) {
		uint32_t a = c->ooo[i].seq, b = a + c->ooo[i].d.len;
		bool newest = false;

		for (; i < c->nooo && seq_le(c->ooo[i].seq, b); i++) {
			if (seq_gt(c->ooo[i].seq + c->ooo[i].d.len, b))
				b = c->ooo[i].seq + c->ooo[i].d.len;
			newest |= c->ooo[i].seq == c->ooo_last;
		}
		if (newest && first == UINT32_MAX) {
			first = runs;
			l[nb] = a;
			r[nb] = b;
			nb++;
		}
		runs++;
	}
	/* then the others, in order */
	i = 0;
	for (uint32_t run = 0; i < c->nooo && nb < room; run++) {
		uint32_t a = c->ooo[i].seq, b = a + c->ooo[i].d.len;

		for (; i < c->nooo && seq_le(c->ooo[i].seq, b); i++)
			if (seq_gt(c->ooo[i].seq + c->ooo[i].d.len, b))
				b = c->ooo[i].seq + c->ooo[i].d.len;
		if (run == first)
			continue;
		l[nb] = a;
		r[nb] = b;
		nb++;
	}
	if (!nb)
		return n;
	h[n++] = OPT_NOP;
	h[n++] = OPT_NOP;
	h[n++] = OPT_SACK;
	h[n++] = (uint8_t)(2 + 8 * nb);
	for (uint32_t k = 0; k < nb; k++) {
		wr32(h + n, l[k]);
		wr32(h + n + 4, r[k]);
		n += 8;
	}
	return n;
}

uint32_t zn_tcp_write_hdr(const struct zn_tcp_conn *c, uint8_t *h, uint32_t seq, uint32_t ack,
			  uint8_t flags, uint16_t wnd, bool syn_opts, bool ts, uint32_t tsval)
{
	uint32_t n = ZN_TCP_HLEN;

	memcpy(h, &c->lport, 2);
	memcpy(h + 2, &c->rport, 2);
	wr32(h + 4, seq);
	wr32(h + 8, ack);
	h[13] = flags;
	wr16(h + 14, wnd);
	wr16(h + 16, 0);
	wr16(h + 18, 0);
	if (syn_opts) {
		uint32_t mss = c->t->env.mss;

		h[n++] = OPT_MSS;
		h[n++] = 4;
		wr16(h + n, (uint16_t)mss);
		n += 2;
		/* on a SYN-ACK only what the peer offered (RFC 7323 1.3, RFC 2018) */
		if (c->ws_ok) {
			h[n++] = OPT_NOP;
			h[n++] = OPT_WS;
			h[n++] = 3;
			h[n++] = c->rcv_ws;
		}
		if (c->sack_ok) {
			h[n++] = OPT_NOP;
			h[n++] = OPT_NOP;
			h[n++] = OPT_SACK_OK;
			h[n++] = 2;
		}
	}
	if (ts) {
		h[n++] = OPT_NOP;
		h[n++] = OPT_NOP;
		h[n++] = OPT_TS;
		h[n++] = 10;
		wr32(h + n, tsval);
		wr32(h + n + 4, c->ts_recent);
		n += 8;
	}
	if (c->sack_ok && c->nooo && !syn_opts && (flags & ZN_TCP_ACK))
		n = write_sack(c, h, n);
	h[12] = (uint8_t)((n / 4) << 4);
	return n;
}
