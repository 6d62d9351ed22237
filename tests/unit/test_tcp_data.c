/* SPDX-License-Identifier: MIT */
/*
 * The TCP engine's data path against a scripted peer (tcp_test.h):
 * receive by reference (descriptors point into the peer's buffers, every
 * buffer comes back exactly once), delayed ACKs, the advertised window
 * following what the application holds and what the RX queue's buffers
 * can take, a descriptor split by a byte
 * limit, data beyond the window, out-of-order reassembly by reference with
 * its bound; send by reference with the completion only once every byte is
 * acknowledged (and, with an output that keeps references, every frame
 * pointing into it back from the device), Nagle, retransmission on RTO with backoff and an RTO from
 * timestamps, fast retransmit on three duplicate ACKs and NewReno recovery,
 * zero-window probes, a lost output recovered by the timer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcp_test_conn.h"

#define PSEQ	1000u
#define MS	1000000ull

/* An accepted connection without options (window unscaled). */
static uint32_t open_conn(struct tt *x, struct zn_tcp_conn **l, struct zn_tcp_conn **c,
			  uint16_t peer_wnd)
{
	return tt_open(x, l, c, peer_wnd, false);
}

static void test_recv_by_reference(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_udp_rx d[4];
	uint32_t iss, n, total = 0;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	/* one segment in two buffers: no ACK yet (delayed) */
	tt_inject_opts(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 1000, 0, 2, &tt_noopts);
	assert_true(x->events & ZN_TCP_EV_READABLE);
	tt_expect_none(x);
	/* the second segment: ACK now (every second segment) */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1001, iss + 1, 65535, 1000, (uint8_t)1000);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 2001, 0);
	assert_int_equal(zn_tcp_rx_bytes(c), 2000);
	assert_int_equal(tt_held(x), 3);
	n = zn_tcp_recv(c, d, 4, UINT32_MAX);
	assert_int_equal(n, 2);
	assert_int_equal(d[0].nseg, 2);
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < d[i].nseg; k++) {
			/* the peer's buffer itself: nothing was copied */
			assert_ptr_equal(d[i].seg[k].va, x->buf[d[i].seg[k].buf_id]);
			assert_true(tt_pattern(d[i].seg[k].va + d[i].seg[k].off, d[i].seg[k].len,
					       (uint8_t)total));
			total += d[i].seg[k].len;
		}
		assert_int_equal(d[i].src.ip, x->peer);
	}
	assert_int_equal(total, 2000);
	assert_int_equal(tt_held(x), 3);	/* the app holds them now */
	zn_tcp_rx_release(c, &d[0]);
	zn_tcp_rx_release(c, &d[1]);
	assert_int_equal(tt_held(x), 0);
	assert_int_equal(x->puts, 3);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_delayed_ack_timer(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	uint32_t iss;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 100, 0);
	tt_tick(x, 39 * MS);
	tt_expect_none(x);
	tt_tick(x, 1 * MS);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 101, 0);
	tt_tick(x, 100 * MS);
	tt_expect_none(x);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	assert_int_equal(tt_held(x), 0);
	tt_free(x);
}

static void test_window_follows_app(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_udp_rx d[64];
	struct tt_seg *s;
	uint32_t iss, seq = PSEQ + 1, n;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	/* 40 segments of 1460 = 58400 of the 65535 the app has not released */
	for (int i = 0; i < 40; i++) {
		tt_inject(x, ZN_TCP_ACK, seq, iss + 1, 65535, 1460, (uint8_t)(seq - PSEQ - 1));
		seq += 1460;
	}
	while ((s = tt_pop(x)))
		assert_int_equal(s->h.flags, ZN_TCP_ACK);
	/* the last ACK's window: what is left of the buffer */
	assert_int_equal(x->out[x->nout - 1].h.wnd, 65535 - 58400);
	/* past the right edge: the part inside is taken, the rest cut off */
	tt_inject_opts(x, ZN_TCP_ACK, seq, iss + 1, 65535, 7135 + 500, (uint8_t)(seq - PSEQ - 1), 4,
		       &tt_noopts);
	s = tt_pop(x);
	assert_non_null(s);
	assert_int_equal(s->h.ack, seq + 7135);
	assert_int_equal(s->h.wnd, 0);
	seq += 7135;
	assert_int_equal(zn_tcp_rx_bytes(c), 65535);
	/* a shut window: a segment is not accepted, only ACKed */
	tt_inject(x, ZN_TCP_ACK, seq, iss + 1, 65535, 100, 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1, seq, 0);
	assert_int_equal(zn_tcp_rx_bytes(c), 65535);
	/* the app takes all but holds it: still shut */
	n = zn_tcp_recv(c, d, 64, UINT32_MAX);
	assert_int_equal(n, 41);
	assert_int_equal(zn_tcp_rx_bytes(c), 0);
	tt_expect_none(x);
	/* releasing reopens it, with a window update */
	for (uint32_t i = 0; i < n; i++)
		zn_tcp_rx_release(c, &d[i]);
	s = tt_pop(x);
	assert_non_null(s);
	assert_true(s->h.wnd >= 1460);
	assert_int_equal(tt_held(x), 0);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

static uint32_t room_bufs;

static uint32_t room_of(void *ctx, uint16_t q)
{
	(void)ctx;
	(void)q;
	return room_bufs;
}

static void with_room(struct zn_tcp_env *env)
{
	env->rx_room = room_of;
	env->rcv_buf = 4 * 1460;
}

/*
 * The RX queue's buffers bound the window (a zcrx area the application
 * keeps): an MSS per buffer, less what is queued. The right edge never
 * moves back, so the window shuts as data fills it; after a release it
 * reopens only as far as the buffers allow, and when buffers come back
 * (zn_tcp_rx_room_grew) an update says so at once.
 */
static void test_window_follows_rx_room(void **state)
{
	struct tt *x = tt_new(with_room);
	struct zn_tcp_conn *l, *c;
	struct zn_udp_rx d[8];
	struct tt_seg *s = NULL, *t;
	uint32_t iss, n;

	(void)state;
	room_bufs = UINT32_MAX;
	iss = open_conn(x, &l, &c, 65535);
	room_bufs = 1;
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 1460, 0);
	tt_tick(x, 40 * MS);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1 + 1460, 0);
	assert_int_equal(s->h.wnd, 3 * 1460);	/* the edge advertised before stays */
	for (uint32_t k = 1; k < 4; k++)
		tt_inject(x, ZN_TCP_ACK, PSEQ + 1 + k * 1460, iss + 1, 65535, 1460, 0);
	tt_tick(x, 40 * MS);
	while ((t = tt_pop(x)))
		s = t;
	assert_int_equal(s->h.ack, PSEQ + 1 + 4 * 1460);
	assert_int_equal(s->h.wnd, 0);
	/* the application takes it all: the buffer bound, not rcv_buf */
	while ((n = zn_tcp_recv(c, d, 8, UINT32_MAX)))
		for (uint32_t k = 0; k < n; k++)
			zn_tcp_rx_release(c, &d[k]);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1 + 4 * 1460, 0);
	assert_int_equal(s->h.wnd, 1460);
	/* nothing changed: no update */
	zn_tcp_rx_room_grew(x->t);
	tt_expect_none(x);
	/* buffers back: the update, at once, up to rcv_buf */
	room_bufs = 10;
	zn_tcp_rx_room_grew(x->t);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1 + 4 * 1460, 0);
	assert_int_equal(s->h.wnd, 4 * 1460);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_recv_split(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_udp_rx a, b, e;
	uint32_t iss;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	tt_inject_opts(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 1000, 0, 2, &tt_noopts);
	/* 700 bytes: the first buffer (500) whole and 200 of the second */
	assert_int_equal(zn_tcp_recv(c, &a, 1, 700), 1);
	assert_int_equal(a.len, 700);
	assert_int_equal(a.nseg, 2);
	assert_int_equal(a.seg[1].len, 200);
	assert_true(tt_pattern(a.seg[1].va + a.seg[1].off, 200, (uint8_t)500));
	assert_int_equal(zn_tcp_rx_bytes(c), 300);
	zn_tcp_rx_release(c, &a);
	assert_int_equal(tt_held(x), 1);	/* the second buffer is still queued */
	assert_int_equal(zn_tcp_recv(c, &b, 1, UINT32_MAX), 1);
	assert_int_equal(b.len, 300);
	assert_true(tt_pattern(b.seg[0].va + b.seg[0].off, 300, (uint8_t)700));
	assert_int_equal(zn_tcp_recv(c, &e, 1, UINT32_MAX), 0);
	zn_tcp_rx_release(c, &b);
	assert_int_equal(tt_held(x), 0);
	assert_int_equal(x->puts, 2);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_out_of_order(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_udp_rx d[8];
	struct zn_tcp_stats st;
	uint32_t iss, n, total = 0;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	/* [1000,2000) and [3000,4000) arrive before [0,1000): dup ACKs at once */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1 + 1000, iss + 1, 65535, 1000, (uint8_t)1000);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 0);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1 + 3000, iss + 1, 65535, 1000, (uint8_t)3000);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 0);
	/* an overlapping one: [1500,3500) keeps only [2000,3000), by reference */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1 + 1500, iss + 1, 65535, 2000, (uint8_t)1500);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 0);
	/* a duplicate of held data: dropped, its buffer back */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1 + 3000, iss + 1, 65535, 500, (uint8_t)3000);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 0);
	assert_int_equal(tt_held(x), 3);
	assert_int_equal(zn_tcp_rx_bytes(c), 0);
	/* the hole fills: everything in order, one ACK */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 1000, 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 4001, 0);
	assert_int_equal(zn_tcp_rx_bytes(c), 4000);
	n = zn_tcp_recv(c, d, 8, UINT32_MAX);
	assert_int_equal(n, 4);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(d[i].nseg, 1);
		assert_true(tt_pattern(d[i].seg[0].va + d[i].seg[0].off, d[i].len, (uint8_t)total));
		total += d[i].len;
		zn_tcp_rx_release(c, &d[i]);
	}
	assert_int_equal(total, 4000);
	assert_int_equal(tt_held(x), 0);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rx_ooo, 3);
	assert_int_equal(st.rx_dup, 1);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_sack_blocks(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_tcp_conn *l, *c;
	struct tt_opts o = { .mss = 1460, .ws = -1, .sack_ok = true };
	struct tt_seg *s;
	uint32_t iss, b = PSEQ + 1;

	(void)state;
	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, &l), 0);
	tt_inject_opts(x, ZN_TCP_SYN, PSEQ, 0, 65535, 0, 0, 1, &o);
	s = tt_pop(x);
	assert_true(s->h.sack_ok);
	iss = s->h.seq;
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0);
	assert_int_equal(zn_tcp_conn_accept(l, &cb, &c), 0);
	tt_inject(x, ZN_TCP_ACK, b + 1000, iss + 1, 65535, 1000, 0);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, b, 0);
	assert_int_equal(s->h.nsack, 1);
	assert_int_equal(s->h.sack[0][0], b + 1000);
	assert_int_equal(s->h.sack[0][1], b + 2000);
	tt_inject(x, ZN_TCP_ACK, b + 3000, iss + 1, 65535, 1000, 0);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, b, 0);
	/* the newest first (RFC 2018 4), then the others */
	assert_int_equal(s->h.nsack, 2);
	assert_int_equal(s->h.sack[0][0], b + 3000);
	assert_int_equal(s->h.sack[0][1], b + 4000);
	assert_int_equal(s->h.sack[1][0], b + 1000);
	/* adjacent arrivals make one block */
	tt_inject(x, ZN_TCP_ACK, b + 2000, iss + 1, 65535, 500, 0);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, b, 0);
	assert_int_equal(s->h.nsack, 2);
	assert_int_equal(s->h.sack[0][0], b + 1000);
	assert_int_equal(s->h.sack[0][1], b + 2500);
	assert_int_equal(s->h.sack[1][0], b + 3000);
	/* the hole fills: no blocks left */
	tt_inject(x, ZN_TCP_ACK, b, iss + 1, 65535, 1000, 0);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, b + 2500, 0);
	assert_int_equal(s->h.nsack, 1);	/* [3000, 4000) still out of order */
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	assert_int_equal(tt_held(x), 0);
	tt_free(x);
}

static void ooo_small(struct zn_tcp_env *e)
{
	e->ooo_max = 3000;
}

static void test_out_of_order_bound(void **state)
{
	struct tt *x = tt_new(ooo_small);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	for (uint32_t i = 1; i <= 5; i++) {
		tt_inject(x, ZN_TCP_ACK, PSEQ + 1 + i * 1000, iss + 1, 65535, 1000, 0);
		tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 0);
	}
	/* three fit the 3000-byte bound; the other two came back */
	assert_int_equal(tt_held(x), 3);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rx_ooo, 3);
	assert_int_equal(st.rx_ooo_drop, 2);
	/* reset with data held out of order: every buffer back */
	tt_inject(x, ZN_TCP_RST, PSEQ + 1, 0, 0, 0, 0);
	assert_int_equal(zn_tcp_error(c), -ECONNRESET);
	assert_int_equal(tt_held(x), 0);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

static uint8_t txbuf[65536];

static struct zn_net_seg seg_of(uint32_t off, uint32_t len)
{
	return (struct zn_net_seg){ .iova = 0x100000 + off, .va = txbuf + off, .len = len };
}

static void test_send_completion_on_ack(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s2[2] = { seg_of(0, 1000), seg_of(1000, 2000) };
	struct zn_net_seg s3 = seg_of(3000, 500);
	struct tt_seg *s;
	uint32_t iss;

	(void)state;
	for (uint32_t i = 0; i < sizeof(txbuf); i++)
		txbuf[i] = (uint8_t)i;
	iss = open_conn(x, &l, &c, 65535);
	assert_int_equal(zn_tcp_send(c, s2, 2, 7), 0);		/* 3000 bytes */
	assert_int_equal(zn_tcp_send(c, &s3, 1, 8), 0);		/* 500 more */
	/* IW 3 segments: 1460, 1460, then 580 (a runt while data is in flight
	 * waits for Nagle) */
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 1460);
	assert_true(tt_pattern(s->data, 1460, 0));
	assert_int_equal(s->npiece, 2);		/* across the two pieces, by reference */
	s = tt_expect(x, ZN_TCP_ACK, iss + 1461, PSEQ + 1, 1460);
	assert_true(tt_pattern(s->data, 1460, (uint8_t)1460));
	tt_expect_none(x);
	/* the first segment ACKed: the runt still waits (Nagle), no completion */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1 + 1460, 65535, 0, 0);
	assert_int_equal(x->ndone, 0);
	tt_expect_none(x);
	/* nothing in flight: the runt goes */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1 + 2920, 65535, 0, 0);
	s = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 2921, PSEQ + 1, 580);
	assert_true(tt_pattern(s->data, 580, (uint8_t)2920));
	assert_int_equal(x->ndone, 0);
	/* 2999 of cookie 7's 3000 bytes: still not complete */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1 + 2999, 65535, 0, 0);
	assert_int_equal(x->ndone, 0);
	/* the 3000th byte: cookie 7, and only it */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1 + 3000, 65535, 0, 0);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_cookie[0], 7);
	assert_int_equal(x->done_status[0], 0);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1 + 3500, 65535, 0, 0);
	assert_int_equal(x->ndone, 2);
	assert_int_equal(x->done_cookie[1], 8);
	tt_expect_none(x);
	/* a send still unacknowledged when the connection dies: its error */
	assert_int_equal(zn_tcp_send(c, &s3, 1, 9), 0);
	assert_non_null(tt_pop(x));
	tt_inject(x, ZN_TCP_RST, PSEQ + 1, 0, 0, 0, 0);
	assert_int_equal(x->ndone, 3);
	assert_int_equal(x->done_cookie[2], 9);
	assert_int_equal(x->done_status[2], -ECONNRESET);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void track_tx(struct zn_tcp_env *env)
{
	env->tx_track = true;
}

/* The device is done with s (its TX completion). */
static void nic_done(struct tt *x, const struct tt_seg *s)
{
	assert_true(s->ref_n > 0);
	zn_tcp_tx_complete(x->t, s->conn, s->ref_first, s->ref_n);
}

/*
 * With an output that keeps references (a TX ring), a send completes when
 * its bytes are acknowledged and every frame pointing into it came back
 * from the device, in whichever order the two happen: an ACK that races a
 * retransmission still in the ring waits for it. Small sends packed into
 * one segment complete together, in order. A reset, or a close, with a
 * frame out: the error (the connection is freed with the last frame).
 */
static void test_send_completion_waits_for_nic(void **state)
{
	struct tt *x = tt_new(track_tx);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = seg_of(0, 1000), s2 = seg_of(1000, 1000);
	struct zn_net_seg p[3] = { seg_of(2000, 100), seg_of(2100, 100), seg_of(2200, 100) };
	struct zn_tcp_stats st;
	struct tt_seg *a, *b, *b2, *d, *e;
	uint32_t iss, una;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	/* ACK first, NIC second */
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	a = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 1000);
	assert_int_equal(a->ref_n, 1);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1001, 65535, 0, 0);
	assert_int_equal(x->ndone, 0);
	nic_done(x, a);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_cookie[0], 1);
	/* NIC first, then a retransmission on RTO still in the ring when the
	 * ACK of the original comes */
	assert_int_equal(zn_tcp_send(c, &s2, 1, 2), 0);
	b = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1001, PSEQ + 1, 1000);
	nic_done(x, b);
	tt_tick(x, 1000 * MS);
	b2 = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1001, PSEQ + 1, 1000);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 2001, 65535, 0, 0);
	assert_int_equal(x->ndone, 1);
	nic_done(x, b2);
	assert_int_equal(x->ndone, 2);
	assert_int_equal(x->done_cookie[1], 2);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.tx_done_late, 2);
	/* three small sends: the first alone, two packed behind it (Nagle) */
	una = iss + 2001;
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(zn_tcp_send(c, &p[i], 1, 3 + i), 0);
	d = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, una, PSEQ + 1, 100);
	tt_expect_none(x);
	nic_done(x, d);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, una + 100, 65535, 0, 0);
	assert_int_equal(x->ndone, 3);
	assert_int_equal(x->done_cookie[2], 3);
	d = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, una + 100, PSEQ + 1, 200);
	assert_int_equal(d->ref_n, 2);
	assert_true(tt_pattern(d->data, 200, (uint8_t)2100));
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, una + 300, 65535, 0, 0);
	assert_int_equal(x->ndone, 3);
	nic_done(x, d);
	assert_int_equal(x->ndone, 5);
	assert_int_equal(x->done_cookie[3], 4);
	assert_int_equal(x->done_cookie[4], 5);
	/* a reset with the frame in the NIC: the error once the NIC is done */
	assert_int_equal(zn_tcp_send(c, &s1, 1, 6), 0);
	e = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, una + 300, PSEQ + 1, 1000);
	tt_inject(x, ZN_TCP_RST, PSEQ + 1, 0, 0, 0, 0);
	assert_int_equal(x->ndone, 5);
	nic_done(x, e);
	assert_int_equal(x->ndone, 6);
	assert_int_equal(x->done_cookie[5], 6);
	assert_int_equal(x->done_status[5], -ECONNRESET);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* Closed (aborted) with a frame in the NIC: the connection outlives its
 * handle until the frame is back, then the send gets the error. */
static void test_close_with_frame_in_nic(void **state)
{
	struct tt *x = tt_new(track_tx);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = seg_of(0, 1000);
	struct tt_seg *a;
	uint32_t iss;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 9), 0);
	a = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 1000);
	zn_tcp_close(c, true);
	tt_expect(x, ZN_TCP_RST | ZN_TCP_ACK, iss + 1001, PSEQ + 1, 0);
	assert_int_equal(x->ndone, 0);
	nic_done(x, a);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_cookie[0], 9);
	assert_int_equal(x->done_status[0], -ECONNABORTED);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* Our window is shut, the peer keeps sending at its left edge: the data is
 * dropped, the ACK it carries still completes our send (RFC 9293 3.10.7.4). */
static void test_zero_window_ack_counts(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = seg_of(0, 500);
	struct tt_seg *s;
	uint32_t iss, seq = PSEQ + 1;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	/* fill the 65535-byte window (the application reads nothing) */
	while (seq - PSEQ - 1 < 65535) {
		uint32_t k = 65535 - (seq - PSEQ - 1) < 1460 ? 65535 - (seq - PSEQ - 1) : 1460;

		tt_inject(x, ZN_TCP_ACK, seq, iss + 1, 65535, k, 0);
		seq += k;
	}
	while ((s = tt_pop(x)))
		;
	assert_int_equal(zn_tcp_rx_bytes(c), 65535);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 5), 0);
	s = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, seq, 500);
	assert_int_equal(s->h.wnd, 0);
	assert_int_equal(x->ndone, 0);
	/* the peer's next data segment carries the ACK of our 500 bytes */
	tt_inject(x, ZN_TCP_ACK, seq, iss + 501, 65535, 1000, 0);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_cookie[0], 5);
	assert_int_equal(x->done_status[0], 0);
	tt_expect(x, ZN_TCP_ACK, iss + 501, seq, 0);	/* the data was not taken */
	assert_int_equal(zn_tcp_rx_bytes(c), 65535);
	tt_expect_none(x);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_rto_backoff(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = seg_of(0, 1000);
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 1000);
	/* no RTT sample yet: RTO 1 s, then 2 s, then 4 s */
	tt_tick(x, 999 * MS);
	tt_expect_none(x);
	tt_tick(x, 1 * MS);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 1000);
	tt_tick(x, 1999 * MS);
	tt_expect_none(x);
	tt_tick(x, 1 * MS);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 1000);
	tt_tick(x, 3999 * MS);
	tt_expect_none(x);
	tt_tick(x, 1 * MS);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 1000);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rto_fired, 3);
	assert_int_equal(st.retrans, 3);
	/* the ACK completes the send and stops the timer */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1001, 65535, 0, 0);
	assert_int_equal(x->ndone, 1);
	tt_tick(x, 60000 * MS);
	tt_expect_none(x);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_rto_from_timestamps(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_tcp_conn *l, *c;
	struct tt_opts o = { .ws = -1, .ts = true, .tsval = 1 };
	struct zn_net_seg s1 = seg_of(0, 500);
	struct tt_seg *s;
	uint32_t iss;

	(void)state;
	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, &l), 0);
	tt_inject_opts(x, ZN_TCP_SYN, PSEQ, 0, 65535, 0, 0, 1, &o);
	s = tt_pop(x);
	iss = s->h.seq;
	x->now += 300 * MS;		/* the SYN-ACK's round trip: 300 ms */
	o.tsecr = s->h.tsval;
	o.tsval = 2;
	tt_inject_opts(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0, 1, &o);
	assert_int_equal(zn_tcp_conn_accept(l, &cb, &c), 0);
	/* RTO = SRTT + 4 RTTVAR = 300 + 4 x 150 = 900 ms */
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	s = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 500);
	assert_int_equal(s->h.tsecr, 2);
	tt_tick(x, 899 * MS);
	tt_expect_none(x);
	tt_tick(x, 2 * MS);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 500);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_fast_retransmit(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = seg_of(0, 1460 * 3);
	struct zn_tcp_stats st;
	uint32_t iss, una;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	zn_tcp_set_nodelay(c, true);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	for (int i = 0; i < 3; i++)
		tt_expect(x, ZN_TCP_ACK | (i == 2 ? ZN_TCP_PSH : 0), iss + 1 + 1460u * i, PSEQ + 1,
		       1460);
	/* the first segment was lost: three duplicate ACKs */
	una = iss + 1;
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, una, 65535, 0, 0);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, una, 65535, 0, 0);
	tt_expect_none(x);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, una, 65535, 0, 0);
	tt_expect(x, ZN_TCP_ACK, una, PSEQ + 1, 1460);	/* resent at once */
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.fast_retrans, 1);
	assert_int_equal(st.dup_acks, 3);
	assert_int_equal(st.rto_fired, 0);
	/* the ACK of everything ends recovery and completes the send */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1 + 1460 * 3, 65535, 0, 0);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_status[0], 0);
	tt_expect_none(x);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_zero_window_probe(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = seg_of(0, 2000);
	struct zn_tcp_stats st;
	struct tt_seg *s;
	uint32_t iss;

	(void)state;
	iss = open_conn(x, &l, &c, 0);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	tt_expect_none(x);			/* a shut window: nothing goes */
	tt_tick(x, 1000 * MS);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 1);	/* the probe: one byte */
	assert_true(tt_pattern(s->data, 1, 0));
	/* still shut: probes back off (2 s) */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 0, 0, 0);
	tt_tick(x, 1999 * MS);
	tt_expect_none(x);
	tt_tick(x, 1 * MS);
	tt_expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1, 1);
	/* the peer took the byte and opens: the rest goes */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 2, 8000, 0, 0);
	tt_expect(x, ZN_TCP_ACK, iss + 2, PSEQ + 1, 1460);
	tt_expect_none(x);			/* the runt waits for the ACK (Nagle) */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1462, 8000, 0, 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1462, PSEQ + 1, 539);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.zwp, 2);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 2001, 8000, 0, 0);
	assert_int_equal(x->ndone, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_output_failure_recovered(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = seg_of(0, 100);
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = open_conn(x, &l, &c, 65535);
	x->fail_output = 1;
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	tt_expect_none(x);
	/* refused (no TX slot): tried again on the next poll, not after an RTO */
	tt_tick(x, 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, PSEQ + 1, 100);
	tt_tick(x, 999 * MS);
	tt_expect_none(x);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.out_fail, 1);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 101, 65535, 0, 0);
	assert_int_equal(x->ndone, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recv_by_reference),
		cmocka_unit_test(test_delayed_ack_timer),
		cmocka_unit_test(test_window_follows_app),
		cmocka_unit_test(test_window_follows_rx_room),
		cmocka_unit_test(test_recv_split),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_out_of_order_bound),
		cmocka_unit_test(test_sack_blocks),
		cmocka_unit_test(test_send_completion_on_ack),
		cmocka_unit_test(test_send_completion_waits_for_nic),
		cmocka_unit_test(test_close_with_frame_in_nic),
		cmocka_unit_test(test_rto_backoff),
		cmocka_unit_test(test_rto_from_timestamps),
		cmocka_unit_test(test_fast_retransmit),
		cmocka_unit_test(test_zero_window_probe),
		cmocka_unit_test(test_zero_window_ack_counts),
		cmocka_unit_test(test_output_failure_recovered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
