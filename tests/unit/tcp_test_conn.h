/* SPDX-License-Identifier: MIT */
/*
 * Helpers over tcp_test.h's scripted peer for the tests that need an
 * accepted connection and check what the engine emitted: include after
 * cmocka.h.
 */
#ifndef ZN_TCP_TEST_CONN_H
#define ZN_TCP_TEST_CONN_H

#include "tests/unit/tcp_test.h"

#define TT_PSEQ		1000u		/* the peer's ISN */
#define TT_MS		1000000ull
#define TT_TXBUF	65536

/* The next emitted segment, checked. */
static inline struct tt_seg *tt_expect(struct tt *x, uint8_t flags, uint32_t seq, uint32_t ack,
				       uint32_t len)
{
	struct tt_seg *s = tt_pop(x);

	assert_non_null(s);
	assert_int_equal(s->h.flags, flags);
	assert_int_equal(s->h.seq, seq);
	assert_int_equal(s->h.ack, ack);
	assert_int_equal(s->len, len);
	return s;
}

static inline void tt_expect_none(struct tt *x)
{
	assert_int_equal(tt_pending(x), 0);
}

/* An accepted connection (peer MSS 1460, its window peer_wnd unscaled,
 * SACK-permitted if sack): our ISS. */
static inline uint32_t tt_open(struct tt *x, struct zn_tcp_conn **l, struct zn_tcp_conn **c,
			       uint16_t peer_wnd, bool sack)
{
	struct zn_tcp_cb cb = tt_cb(x);
	struct tt_opts o = { .mss = 1460, .ws = -1, .sack_ok = sack };
	uint32_t iss;

	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, l), 0);
	tt_inject_opts(x, ZN_TCP_SYN, TT_PSEQ, 0, peer_wnd, 0, 0, 1, &o);
	iss = tt_pop(x)->h.seq;
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1, peer_wnd, 0, 0);
	assert_int_equal(zn_tcp_conn_accept(*l, &cb, c), 0);
	tt_expect_none(x);
	return iss;
}

/* Send buffer bytes [off, off + len) of buf (TT_TXBUF bytes) as one segment. */
static inline struct zn_net_seg tt_seg_at(uint8_t *buf, uint32_t off, uint32_t len)
{
	return (struct zn_net_seg){ .iova = 0x100000 + off, .va = buf + off, .len = len };
}

#endif
