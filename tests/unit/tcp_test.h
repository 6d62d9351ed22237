/* SPDX-License-Identifier: MIT */
/*
 * A scripted peer for the TCP engine's unit tests (tests/unit/test_tcp_*.c):
 * the test plays the remote host. It injects segments it builds byte by byte
 * (its own writer, not the engine's), with payload in numbered "provider"
 * buffers whose ownership it tracks, and pops what the engine emitted, each
 * checked for a valid checksum and parsed field by field. The clock is the
 * test's: time moves only when the test says.
 *
 * Ownership check: every buffer the test hands in is either held by the
 * engine or came back through rx_put exactly once (a second put, or a put
 * of a buffer never handed in, fails the test at once).
 */
#ifndef ZN_TCP_TEST_H
#define ZN_TCP_TEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/net/tcp.h"

#define TT_MAX_OUT	256
#define TT_NBUF		1024
#define TT_BUFSZ	2048
#define TT_US_IP	"10.0.0.2"
#define TT_PEER_IP	"10.0.0.1"
#define TT_US_PORT	80
#define TT_PEER_PORT	40000

struct tt_seg {
	struct zn_tcp_hdr h;
	uint32_t len;			/* payload */
	uint8_t data[9216];
	uint32_t src, dst;
	uint32_t npiece;
	/* the send chunks it points into (env.tx_track) */
	struct zn_tcp_conn *conn;
	uint32_t ref_first, ref_n;
};

struct tt {
	struct zn_tcp *t;
	uint64_t now;
	uint32_t us, peer;
	struct tt_seg *out;		/* TT_MAX_OUT captured segments */
	uint32_t nout, next;		/* captured, popped */
	int fail_output;		/* > 0: refuse this many outputs */
	/* buffers the peer hands in */
	uint8_t (*buf)[TT_BUFSZ];
	uint8_t held[TT_NBUF];		/* 1: in the engine or the app */
	uint32_t next_buf;
	uint32_t puts;
	/* what the connection told its owner */
	unsigned events;
	uint64_t done_cookie[64];
	int32_t done_status[64];
	uint32_t ndone;
};

static inline uint32_t tt_ip(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static inline uint64_t tt_clock(void *ctx)
{
	return ((struct tt *)ctx)->now;
}

static inline void tt_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void tt_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The checksum of an emitted segment, over the pseudo-header, computed
 * here byte by byte (big-endian words) rather than with core/net's sum. */
static inline uint16_t tt_csum(uint32_t src, uint32_t dst, const uint8_t *hdr, uint32_t hlen,
			       const uint8_t *data, uint32_t len)
{
	uint64_t s = 0;
	const uint8_t *a = (const uint8_t *)&src, *b = (const uint8_t *)&dst;
	uint32_t tot = hlen + len;

	s += (uint32_t)(a[0] << 8 | a[1]) + (uint32_t)(a[2] << 8 | a[3]);
	s += (uint32_t)(b[0] << 8 | b[1]) + (uint32_t)(b[2] << 8 | b[3]);
	s += 6 + tot;
	for (uint32_t i = 0; i < tot; i++) {
		uint8_t v = i < hlen ? hdr[i] : data[i - hlen];

		s += i & 1 ? v : (uint32_t)v << 8;
	}
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static inline int tt_output(void *ctx, const struct zn_tcp_out *o)
{
	struct tt *x = ctx;
	struct tt_seg *s;
	uint32_t off = 0;

	if (x->fail_output > 0) {
		x->fail_output--;
		return -EAGAIN;
	}
	if (x->nout == TT_MAX_OUT)
		return -ENOBUFS;
	s = &x->out[x->nout++];
	memset(&s->h, 0, sizeof(s->h));
	for (uint32_t k = 0; k < o->npiece; k++) {
		memcpy(s->data + off, o->piece[k].va, o->piece[k].len);
		off += o->piece[k].len;
	}
	s->len = off;
	s->src = o->src;
	s->dst = o->dst;
	s->npiece = o->npiece;
	s->conn = o->conn;
	s->ref_first = o->ref_first;
	s->ref_n = o->len ? o->ref_n : 0;
	if (off != o->len || zn_tcp_parse(o->hdr, o->hlen, o->hlen + off, &s->h) != ZN_TCP_PARSE_OK ||
	    tt_csum(o->src, o->dst, o->hdr, o->hlen, s->data, off) != 0xffff)
		s->h.flags = 0xff;	/* makes every expectation on it fail */
	return 0;
}

static inline void tt_rx_put(void *ctx, const struct zn_udp_rx *d)
{
	struct tt *x = ctx;

	for (uint32_t k = 0; k < d->nseg; k++) {
		uint32_t id = d->seg[k].buf_id;

		if (id >= TT_NBUF || !x->held[id]) {
			fprintf(stderr, "rx_put of buffer %u not held\n", id);
			abort();
		}
		x->held[id] = 0;
		x->puts++;
	}
}

static inline uint32_t tt_held(const struct tt *x)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < TT_NBUF; i++)
		n += x->held[i];
	return n;
}

static inline void tt_event(void *arg, struct zn_tcp_conn *c, unsigned ev)
{
	(void)c;
	((struct tt *)arg)->events |= ev;
}

static inline void tt_tx_done(void *arg, struct zn_tcp_conn *c, uint64_t cookie, int32_t status)
{
	struct tt *x = arg;

	(void)c;
	if (x->ndone < 64) {
		x->done_cookie[x->ndone] = cookie;
		x->done_status[x->ndone] = status;
	}
	x->ndone++;
}

static const uint8_t tt_key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* env_fix may change the environment before the engine is made. */
static inline struct tt *tt_new(void (*env_fix)(struct zn_tcp_env *))
{
	struct tt *x = calloc(1, sizeof(*x));
	struct zn_tcp_env env = { 0 };

	x->out = calloc(TT_MAX_OUT, sizeof(*x->out));
	x->buf = calloc(TT_NBUF, TT_BUFSZ);
	x->us = tt_ip(TT_US_IP);
	x->peer = tt_ip(TT_PEER_IP);
	x->now = 1000000000ull;
	env.ip = x->us;
	env.output = tt_output;
	env.rx_put = tt_rx_put;
	env.clock_ns = tt_clock;
	env.ctx = x;
	env.mss = 1460;
	env.rcv_buf = 64 * 1024;
	env.time_wait_ns = 100ull * 1000000ull;
	env.isn_key = tt_key;
	if (env_fix)
		env_fix(&env);
	if (zn_tcp_create(&env, &x->t))
		abort();
	return x;
}

static inline void tt_free(struct tt *x)
{
	zn_tcp_destroy(x->t);
	free(x->out);
	free(x->buf);
	free(x);
}

static inline struct zn_tcp_cb tt_cb(struct tt *x)
{
	return (struct zn_tcp_cb){ .event = tt_event, .tx_done = tt_tx_done, .arg = x };
}

/* Options the peer puts in a segment. */
struct tt_opts {
	uint16_t mss;			/* 0: none */
	int ws;				/* -1: none */
	bool ts;
	uint32_t tsval, tsecr;
	bool sack_ok;
	const uint8_t *raw;		/* appended as is (malformed-option tests) */
	uint32_t raw_len;
};

static const struct tt_opts tt_noopts = { .ws = -1 };

/* The segment's bytes: header (options padded with NOPs to 4) and data. */
static inline uint32_t tt_build(struct tt *x, uint8_t *b, uint16_t sport, uint16_t dport,
				uint8_t flags, uint32_t seq, uint32_t ack, uint16_t wnd,
				const struct tt_opts *o)
{
	uint32_t n = ZN_TCP_HLEN;

	(void)x;
	memset(b, 0, ZN_TCP_MAX_HLEN);
	tt_wr16(b, sport);
	tt_wr16(b + 2, dport);
	tt_wr32(b + 4, seq);
	tt_wr32(b + 8, ack);
	b[13] = flags;
	tt_wr16(b + 14, wnd);
	if (o->mss) {
		b[n] = 2; b[n + 1] = 4; tt_wr16(b + n + 2, o->mss);
		n += 4;
	}
	if (o->ws >= 0) {
		b[n] = 1; b[n + 1] = 3; b[n + 2] = 3; b[n + 3] = (uint8_t)o->ws;
		n += 4;
	}
	if (o->sack_ok) {
		b[n] = 1; b[n + 1] = 1; b[n + 2] = 4; b[n + 3] = 2;
		n += 4;
	}
	if (o->ts) {
		b[n] = 1; b[n + 1] = 1; b[n + 2] = 8; b[n + 3] = 10;
		tt_wr32(b + n + 4, o->tsval);
		tt_wr32(b + n + 8, o->tsecr);
		n += 12;
	}
	if (o->raw) {
		memcpy(b + n, o->raw, o->raw_len);
		n += o->raw_len;
		while (n % 4)
			b[n++] = 1;
	}
	b[12] = (uint8_t)((n / 4) << 4);
	return n;
}

/*
 * The peer sends a segment with len payload bytes (pattern from byte
 * value `fill`, counting up), held in nbuf provider buffers (split evenly).
 */
static inline void tt_inject_opts(struct tt *x, uint8_t flags, uint32_t seq, uint32_t ack,
				  uint16_t wnd, uint32_t len, uint8_t fill, uint32_t nbuf,
				  const struct tt_opts *o)
{
	uint8_t h[ZN_TCP_MAX_HLEN];
	uint32_t hl = tt_build(x, h, TT_PEER_PORT, TT_US_PORT, flags, seq, ack, wnd, o);
	struct zn_udp_rx d = { .queue = 0, .len = len };

	if (len) {
		uint32_t per = (len + nbuf - 1) / nbuf, off = 0;

		for (uint32_t k = 0; off < len; k++) {
			uint32_t id = x->next_buf++ % TT_NBUF, n = len - off < per ? len - off : per;

			if (x->held[id])
				abort();	/* the test ran out of buffers: the engine leaks */
			x->held[id] = 1;
			for (uint32_t i = 0; i < n; i++)
				x->buf[id][16 + i] = (uint8_t)(fill + off + i);
			d.seg[k].va = x->buf[id];
			d.seg[k].buf_id = id;
			d.seg[k].off = 16;
			d.seg[k].len = n;
			d.nseg = (uint16_t)(k + 1);
			off += n;
		}
	}
	zn_tcp_input(x->t, x->peer, x->us, h, hl, hl + len, len ? &d : NULL);
}

static inline void tt_inject(struct tt *x, uint8_t flags, uint32_t seq, uint32_t ack,
			     uint16_t wnd, uint32_t len, uint8_t fill)
{
	tt_inject_opts(x, flags, seq, ack, wnd, len, fill, 1, &tt_noopts);
}

/* The next emitted segment, NULL when none. */
static inline struct tt_seg *tt_pop(struct tt *x)
{
	return x->next < x->nout ? &x->out[x->next++] : NULL;
}

static inline uint32_t tt_pending(const struct tt *x)
{
	return x->nout - x->next;
}

static inline void tt_tick(struct tt *x, uint64_t ns)
{
	x->now += ns;
	zn_tcp_poll(x->t);
}

/* The payload pattern check of a received or emitted span. */
static inline bool tt_pattern(const uint8_t *p, uint32_t len, uint8_t fill)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != (uint8_t)(fill + i))
			return false;
	return true;
}

#endif
