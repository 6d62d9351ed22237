/* SPDX-License-Identifier: MIT */
/*
 * The TCP engine's state machine against a scripted peer (tcp_test.h):
 * passive and active open with their options, simultaneous open, RST for
 * segments to no socket, RST in each state (RFC 5961 exact match and
 * challenge ACKs), a SYN on an established connection, PAWS, both closes
 * through FIN to TIME_WAIT and CLOSED, ISNs (RFC 6528), ephemeral ports,
 * SYN retries running out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcp_test.h"

#define PSEQ	1000u		/* the peer's ISN */

static struct tt_seg *expect(struct tt *x, uint8_t flags, uint32_t seq, uint32_t ack)
{
	struct tt_seg *s = tt_pop(x);

	assert_non_null(s);
	assert_int_equal(s->h.flags, flags);
	assert_int_equal(s->h.seq, seq);
	if (flags & ZN_TCP_ACK)
		assert_int_equal(s->h.ack, ack);
	assert_int_equal(s->h.sport, TT_US_PORT);
	assert_int_equal(s->h.dport, TT_PEER_PORT);
	assert_int_equal(s->src, x->us);
	assert_int_equal(s->dst, x->peer);
	return s;
}

static void expect_none(struct tt *x)
{
	assert_int_equal(tt_pending(x), 0);
}

/* A listener on port 80 and an accepted connection from the peer (no
 * options: no scaling, no timestamps); returns the engine's ISS. */
static uint32_t open_passive(struct tt *x, struct zn_tcp_conn **l, struct zn_tcp_conn **c)
{
	struct zn_tcp_cb cb = tt_cb(x);
	struct tt_seg *s;
	uint32_t iss;

	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, l), 0);
	tt_inject(x, ZN_TCP_SYN, PSEQ, 0, 65535, 0, 0);
	s = tt_pop(x);
	assert_non_null(s);
	iss = s->h.seq;
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0);
	assert_int_equal(zn_tcp_conn_accept(*l, &cb, c), 0);
	assert_int_equal(zn_tcp_state(*c), ZN_TCP_ESTABLISHED);
	expect_none(x);
	return iss;
}

static void test_passive_open(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_tcp_conn *l, *c;
	struct tt_opts o = { .mss = 1400, .ws = 7, .ts = true, .tsval = 555, .sack_ok = true };
	struct tt_seg *s;

	(void)state;
	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, &l), 0);
	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, &c), -EADDRINUSE);
	tt_inject_opts(x, ZN_TCP_SYN, PSEQ, 0, 29200, 0, 0, 1, &o);
	s = tt_pop(x);
	assert_non_null(s);
	assert_int_equal(s->h.flags, ZN_TCP_SYN | ZN_TCP_ACK);
	assert_int_equal(s->h.ack, PSEQ + 1);
	assert_true(s->h.has_mss);
	assert_int_equal(s->h.mss, 1460);
	assert_true(s->h.has_ws);
	assert_int_equal(s->h.ws, 1);		/* 64 KiB needs one shift */
	assert_true(s->h.has_ts);
	assert_int_equal(s->h.tsecr, 555);
	assert_true(s->h.sack_ok);		/* offered back: we send SACK blocks */
	assert_int_equal(s->h.wnd, 65535);	/* a SYN's window is not scaled */
	/* the handshake is not complete: nothing to accept */
	assert_int_equal(zn_tcp_conn_accept(l, &cb, &c), -EAGAIN);
	assert_false(x->events & ZN_TCP_EV_ACCEPT);
	o = (struct tt_opts){ .ws = -1, .ts = true, .tsval = 556, .tsecr = s->h.tsval };
	tt_inject_opts(x, ZN_TCP_ACK, PSEQ + 1, s->h.seq + 1, 229, 0, 0, 1, &o);
	assert_true(x->events & ZN_TCP_EV_ACCEPT);
	assert_int_equal(zn_tcp_conn_accept(l, &cb, &c), 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_ESTABLISHED);
	assert_int_equal(zn_tcp_conn_accept(l, &cb, &c), -EAGAIN);
	expect_none(x);
	tt_free(x);
}

static void test_active_open(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_addr4 dst = { .ip = x->peer, .port = htons(TT_PEER_PORT) };
	struct tt_opts o = { .mss = 1200, .ws = 2, .ts = true, .tsval = 9000 };
	struct zn_tcp_conn *c;
	struct tt_seg *s;

	(void)state;
	assert_int_equal(zn_tcp_conn_open(x->t, htons(TT_US_PORT), &dst, &cb, &c), 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_SYN_SENT);
	s = tt_pop(x);
	assert_non_null(s);
	assert_int_equal(s->h.flags, ZN_TCP_SYN);
	assert_int_equal(s->h.ack, 0);
	assert_true(s->h.has_mss && s->h.has_ws && s->h.has_ts);
	assert_int_equal(s->h.tsecr, 0);
	o.tsecr = s->h.tsval;
	tt_inject_opts(x, ZN_TCP_SYN | ZN_TCP_ACK, PSEQ, s->h.seq + 1, 1000, 0, 0, 1, &o);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_ESTABLISHED);
	assert_true(x->events & ZN_TCP_EV_CONNECTED);
	s = expect(x, ZN_TCP_ACK, s->h.seq + 1, PSEQ + 1);
	assert_true(s->h.has_ts);
	assert_int_equal(s->h.tsecr, 9000);
	expect_none(x);
	tt_free(x);
}

static void test_connect_refused_and_bad_ack(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_addr4 dst = { .ip = x->peer, .port = htons(TT_PEER_PORT) };
	struct zn_tcp_conn *c;
	uint32_t iss;

	(void)state;
	assert_int_equal(zn_tcp_conn_open(x->t, htons(TT_US_PORT), &dst, &cb, &c), 0);
	iss = tt_pop(x)->h.seq;
	/* an ACK for something we never sent: RST <SEQ=SEG.ACK>, still SYN-SENT */
	tt_inject(x, ZN_TCP_SYN | ZN_TCP_ACK, PSEQ, iss + 7, 1000, 0, 0);
	expect(x, ZN_TCP_RST, iss + 7, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_SYN_SENT);
	/* a RST without an ACK is ignored in SYN-SENT */
	tt_inject(x, ZN_TCP_RST, 0, 0, 0, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_SYN_SENT);
	/* a RST with the right ACK: refused */
	tt_inject(x, ZN_TCP_RST | ZN_TCP_ACK, 0, iss + 1, 0, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), -ECONNREFUSED);
	assert_true(x->events & ZN_TCP_EV_ERROR);
	assert_int_equal(zn_tcp_send(c, &(struct zn_net_seg){ .va = "x", .len = 1 }, 1, 1),
			 -ECONNREFUSED);
	expect_none(x);
	zn_tcp_close(c, false);
	tt_free(x);
}

static void test_simultaneous_open(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_addr4 dst = { .ip = x->peer, .port = htons(TT_PEER_PORT) };
	struct zn_tcp_conn *c;
	uint32_t iss;

	(void)state;
	assert_int_equal(zn_tcp_conn_open(x->t, htons(TT_US_PORT), &dst, &cb, &c), 0);
	iss = tt_pop(x)->h.seq;
	/* the peer's SYN crosses ours: SYN-RECEIVED, our SYN again with an ACK */
	tt_inject(x, ZN_TCP_SYN, PSEQ, 0, 8000, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_SYN_RCVD);
	expect(x, ZN_TCP_SYN | ZN_TCP_ACK, iss, PSEQ + 1);
	/* its SYN-ACK of ours: ESTABLISHED */
	tt_inject(x, ZN_TCP_SYN | ZN_TCP_ACK, PSEQ, iss + 1, 8000, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_ESTABLISHED);
	assert_true(x->events & ZN_TCP_EV_CONNECTED);
	expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1);
	expect_none(x);
	tt_free(x);
}

static void test_rst_for_no_socket(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_stats st;

	(void)state;
	/* SYN to a closed port: <SEQ=0><ACK=SEG.SEQ+1><CTL=RST,ACK> */
	tt_inject(x, ZN_TCP_SYN, PSEQ, 0, 1000, 0, 0);
	expect(x, ZN_TCP_RST | ZN_TCP_ACK, 0, PSEQ + 1);
	/* data without ACK: the ACK covers the data and the FIN */
	tt_inject(x, ZN_TCP_FIN, PSEQ, 0, 1000, 100, 0);
	expect(x, ZN_TCP_RST | ZN_TCP_ACK, 0, PSEQ + 101);
	assert_int_equal(tt_held(x), 0);
	/* with ACK: <SEQ=SEG.ACK><CTL=RST> */
	tt_inject(x, ZN_TCP_ACK, PSEQ, 777, 1000, 0, 0);
	expect(x, ZN_TCP_RST, 777, 0);
	/* a RST is never answered */
	tt_inject(x, ZN_TCP_RST, PSEQ, 0, 0, 0, 0);
	expect_none(x);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rx_no_conn, 4);
	assert_int_equal(st.tx_rst, 3);
	tt_free(x);
}

static void test_rst_established(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = open_passive(x, &l, &c);
	/* out of window: ignored, no answer */
	tt_inject(x, ZN_TCP_RST, PSEQ + 1 + 200000, 0, 0, 0, 0);
	expect_none(x);
	/* in window, not exact: a challenge ACK (RFC 5961 3.2) */
	tt_inject(x, ZN_TCP_RST, PSEQ + 1 + 100, 0, 0, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_ESTABLISHED);
	/* exact: reset */
	x->events = 0;
	tt_inject(x, ZN_TCP_RST, PSEQ + 1, 0, 0, 0, 0);
	expect_none(x);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), -ECONNRESET);
	assert_true(x->events & ZN_TCP_EV_ERROR);
	assert_true(zn_tcp_eof(c));
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rx_challenge, 1);
	zn_tcp_close(c, false);
	expect_none(x);		/* nothing to say to a peer that reset */
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_rst_syn_rcvd(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_tcp_conn *l, *c;

	(void)state;
	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, &l), 0);
	tt_inject(x, ZN_TCP_SYN, PSEQ, 0, 65535, 0, 0);
	assert_non_null(tt_pop(x));
	tt_inject(x, ZN_TCP_RST, PSEQ + 1, 0, 0, 0, 0);
	expect_none(x);
	assert_int_equal(zn_tcp_conn_accept(l, &cb, &c), -EAGAIN);
	/* the child is gone: its ACK now finds the listener, which resets it */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, 5, 65535, 0, 0);
	expect(x, ZN_TCP_RST, 5, 0);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* ESTABLISHED, then our FIN (FIN-WAIT-1), then the peer's RST. */
static void test_rst_fin_wait_and_close_wait(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	uint32_t iss;

	(void)state;
	iss = open_passive(x, &l, &c);
	assert_int_equal(zn_tcp_conn_shutdown(c), 0);
	expect(x, ZN_TCP_FIN | ZN_TCP_ACK, iss + 1, PSEQ + 1);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_FIN_WAIT_1);
	tt_inject(x, ZN_TCP_RST, PSEQ + 1, 0, 0, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), -ECONNRESET);
	zn_tcp_close(c, false);

	/* a second connection: the peer's FIN (CLOSE-WAIT), then its RST */
	tt_inject(x, ZN_TCP_SYN, PSEQ + 5000, 0, 65535, 0, 0);
	iss = tt_pop(x)->h.seq;
	tt_inject(x, ZN_TCP_ACK, PSEQ + 5001, iss + 1, 65535, 0, 0);
	assert_int_equal(zn_tcp_conn_accept(l, NULL, &c), 0);
	tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 5001, iss + 1, 65535, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 5002);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSE_WAIT);
	assert_true(zn_tcp_eof(c));
	tt_inject(x, ZN_TCP_RST, PSEQ + 5002, 0, 0, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), -ECONNRESET);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	expect_none(x);
	tt_free(x);
}

/* RST in the closing states: FIN-WAIT-2 is reset; CLOSING, LAST-ACK and
 * TIME-WAIT just close (the peer has nothing more to say: err 0). */
static void test_rst_closing_states(void **state)
{
	static const enum zn_tcp_state want[] = { ZN_TCP_FIN_WAIT_2, ZN_TCP_CLOSING,
						  ZN_TCP_LAST_ACK, ZN_TCP_TIME_WAIT };
	static const int err[] = { -ECONNRESET, 0, 0, 0 };

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		struct tt *x = tt_new(NULL);
		struct zn_tcp_conn *l, *c;
		uint32_t iss = open_passive(x, &l, &c), rst_seq = PSEQ + 2;

		switch (want[i]) {
		case ZN_TCP_FIN_WAIT_2:
			assert_int_equal(zn_tcp_conn_shutdown(c), 0);
			tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 2, 65535, 0, 0);
			rst_seq = PSEQ + 1;
			break;
		case ZN_TCP_CLOSING:
			assert_int_equal(zn_tcp_conn_shutdown(c), 0);
			tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0);
			break;
		case ZN_TCP_LAST_ACK:
			tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0);
			assert_int_equal(zn_tcp_conn_shutdown(c), 0);
			break;
		default:
			assert_int_equal(zn_tcp_conn_shutdown(c), 0);
			tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 2, 65535, 0, 0);
			tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 1, iss + 2, 65535, 0, 0);
			break;
		}
		assert_int_equal(zn_tcp_state(c), want[i]);
		x->next = x->nout;	/* what it said getting there is tested elsewhere */
		/* not exact: a challenge ACK, the state stays */
		tt_inject(x, ZN_TCP_RST, rst_seq + 10, 0, 0, 0, 0);
		assert_int_equal(tt_pending(x), 1);
		assert_int_equal(tt_pop(x)->h.flags, ZN_TCP_ACK);
		assert_int_equal(zn_tcp_state(c), want[i]);
		tt_inject(x, ZN_TCP_RST, rst_seq, 0, 0, 0, 0);
		expect_none(x);
		assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
		assert_int_equal(zn_tcp_error(c), err[i]);
		zn_tcp_close(c, false);
		zn_tcp_close(l, false);
		tt_free(x);
	}
}

static void test_syn_on_established(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	uint32_t iss;

	(void)state;
	iss = open_passive(x, &l, &c);
	/* in window or not, a SYN gets a challenge ACK and changes nothing */
	tt_inject(x, ZN_TCP_SYN, PSEQ + 10, 0, 65535, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1);
	tt_inject(x, ZN_TCP_SYN, PSEQ - 5000, 0, 65535, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_ESTABLISHED);
	assert_int_equal(zn_tcp_error(c), 0);
	/* an ACK of data never sent: an ACK back, dropped */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 100, 65535, 10, 0);
	expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1);
	assert_int_equal(zn_tcp_rx_bytes(c), 0);
	assert_int_equal(tt_held(x), 0);
	zn_tcp_close(c, true);
	expect(x, ZN_TCP_RST | ZN_TCP_ACK, iss + 1, PSEQ + 1);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_paws(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_tcp_conn *l, *c;
	struct tt_opts o = { .ws = -1, .ts = true, .tsval = 1000 };
	struct zn_tcp_stats st;
	struct tt_seg *s;
	uint32_t iss;

	(void)state;
	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 4, &cb, &l), 0);
	tt_inject_opts(x, ZN_TCP_SYN, PSEQ, 0, 65535, 0, 0, 1, &o);
	s = tt_pop(x);
	iss = s->h.seq;
	o.tsval = 1001;
	o.tsecr = s->h.tsval;
	tt_inject_opts(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0, 1, &o);
	assert_int_equal(zn_tcp_conn_accept(l, &cb, &c), 0);
	/* an older timestamp: dropped with an ACK, data not taken */
	o.tsval = 900;
	tt_inject_opts(x, ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 100, 0, 1, &o);
	s = expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 1);
	assert_int_equal(s->h.tsecr, 1001);
	assert_int_equal(zn_tcp_rx_bytes(c), 0);
	assert_int_equal(tt_held(x), 0);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rx_paws, 1);
	/* a newer one is taken and echoed */
	o.tsval = 1100;
	tt_inject_opts(x, ZN_TCP_ACK | ZN_TCP_PSH, PSEQ + 1, iss + 1, 65535, 100, 0, 1, &o);
	assert_int_equal(zn_tcp_rx_bytes(c), 100);
	x->now += 40000000;
	zn_tcp_poll(x->t);
	s = expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 101);
	assert_int_equal(s->h.tsecr, 1100);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_active_close_time_wait(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	uint32_t iss;

	(void)state;
	iss = open_passive(x, &l, &c);
	zn_tcp_close(c, false);		/* the handle is gone; the engine finishes */
	expect(x, ZN_TCP_FIN | ZN_TCP_ACK, iss + 1, PSEQ + 1);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 1, iss + 2, 65535, 0, 0);
	expect_none(x);
	tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 1, iss + 2, 65535, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 2, PSEQ + 2);
	/* TIME-WAIT: the peer's FIN again is ACKed again */
	tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 1, iss + 2, 65535, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 2, PSEQ + 2);
	tt_tick(x, 99000000);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 2, iss + 2, 65535, 0, 0);
	expect_none(x);			/* still there: a plain ACK is fine */
	tt_tick(x, 2000000);
	/* gone: the listener answers the ACK with a RST */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 2, iss + 2, 65535, 0, 0);
	expect(x, ZN_TCP_RST, iss + 2, 0);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_simultaneous_close(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	uint32_t iss;

	(void)state;
	iss = open_passive(x, &l, &c);
	assert_int_equal(zn_tcp_conn_shutdown(c), 0);
	expect(x, ZN_TCP_FIN | ZN_TCP_ACK, iss + 1, PSEQ + 1);
	/* the peer's FIN crosses ours: CLOSING, then TIME-WAIT on its ACK */
	tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 2, PSEQ + 2);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSING);
	tt_inject(x, ZN_TCP_ACK, PSEQ + 2, iss + 2, 65535, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_TIME_WAIT);
	tt_tick(x, 100000000);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), 0);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	expect_none(x);
	tt_free(x);
}

static void test_passive_close_last_ack(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	uint32_t iss;

	(void)state;
	iss = open_passive(x, &l, &c);
	tt_inject(x, ZN_TCP_FIN | ZN_TCP_ACK, PSEQ + 1, iss + 1, 65535, 0, 0);
	expect(x, ZN_TCP_ACK, iss + 1, PSEQ + 2);
	assert_true(zn_tcp_eof(c));
	assert_int_equal(zn_tcp_conn_shutdown(c), 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_LAST_ACK);
	expect(x, ZN_TCP_FIN | ZN_TCP_ACK, iss + 1, PSEQ + 2);
	assert_int_equal(zn_tcp_send(c, &(struct zn_net_seg){ .va = "x", .len = 1 }, 1, 1),
			 -EPIPE);
	/* a RST in LAST-ACK closes quietly (RFC 9293 3.10.7.4) would do too;
	 * here the ACK of our FIN does */
	tt_inject(x, ZN_TCP_ACK, PSEQ + 2, iss + 2, 65535, 0, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), 0);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	expect_none(x);
	tt_free(x);
}

static void test_isn_and_ephemeral_ports(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_addr4 dst = { .ip = x->peer, .port = htons(TT_PEER_PORT) }, loc[3];
	struct zn_tcp_conn *c[3];
	uint32_t isn[3];

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct tt_seg *s;

		assert_int_equal(zn_tcp_conn_open(x->t, 0, &dst, &cb, &c[i]), 0);
		s = tt_pop(x);
		assert_non_null(s);
		isn[i] = s->h.seq;
		zn_tcp_addrs(c[i], &loc[i], NULL);
		assert_true(ntohs(loc[i].port) >= 49152);
		assert_int_equal(s->h.sport, ntohs(loc[i].port));
		x->now += 4000;	/* one tick of RFC 6528's clock */
	}
	/* distinct ports; ISNs of distinct 4-tuples are unrelated (keyed hash) */
	assert_int_not_equal(loc[0].port, loc[1].port);
	assert_int_not_equal(loc[1].port, loc[2].port);
	assert_int_not_equal(isn[1] - isn[0], 1);
	/* the same 4-tuple later: the ISN moved with the 4 µs clock */
	zn_tcp_close(c[0], false);
	assert_int_equal(zn_tcp_conn_open(x->t, loc[0].port, &dst, &cb, &c[0]), 0);
	assert_int_equal(tt_pop(x)->h.seq - isn[0], 3);
	assert_int_equal(zn_tcp_conn_open(x->t, loc[0].port, &dst, &cb, &c[1]), -EADDRINUSE);
	tt_free(x);
}

static void syn_retries_2(struct zn_tcp_env *e)
{
	e->syn_retries = 2;
}

static void test_syn_retries_timeout(void **state)
{
	struct tt *x = tt_new(syn_retries_2);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_addr4 dst = { .ip = x->peer, .port = htons(TT_PEER_PORT) };
	struct zn_tcp_conn *c;
	uint32_t iss;

	(void)state;
	assert_int_equal(zn_tcp_conn_open(x->t, htons(TT_US_PORT), &dst, &cb, &c), 0);
	iss = tt_pop(x)->h.seq;
	tt_tick(x, 999999999);
	expect_none(x);
	tt_tick(x, 1);				/* 1 s: the first retry */
	expect(x, ZN_TCP_SYN, iss, 0);
	tt_tick(x, 1999999999);
	expect_none(x);
	tt_tick(x, 1);				/* 2 s more: the second */
	expect(x, ZN_TCP_SYN, iss, 0);
	tt_tick(x, 4000000000ull);		/* 4 s more: given up */
	expect_none(x);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), -ETIMEDOUT);
	zn_tcp_close(c, false);
	tt_free(x);
}

static void test_backlog(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_tcp_conn *l;
	uint8_t h[ZN_TCP_MAX_HLEN];
	uint32_t hl, iss;

	(void)state;
	assert_int_equal(zn_tcp_conn_listen(x->t, htons(TT_US_PORT), 1, &cb, &l), 0);
	tt_inject(x, ZN_TCP_SYN, PSEQ, 0, 65535, 0, 0);
	iss = tt_pop(x)->h.seq;
	/* a SYN from another port while the first is still an embryo: dropped */
	hl = tt_build(x, h, TT_PEER_PORT + 1, TT_US_PORT, ZN_TCP_SYN, PSEQ, 0, 65535, &tt_noopts);
	zn_tcp_input(x->t, x->peer, x->us, h, hl, hl, NULL);
	expect_none(x);
	/* closing the listener resets the embryo */
	zn_tcp_close(l, false);
	expect(x, ZN_TCP_RST | ZN_TCP_ACK, iss + 1, PSEQ + 1);
	expect_none(x);
	tt_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passive_open),
		cmocka_unit_test(test_active_open),
		cmocka_unit_test(test_connect_refused_and_bad_ack),
		cmocka_unit_test(test_simultaneous_open),
		cmocka_unit_test(test_rst_for_no_socket),
		cmocka_unit_test(test_rst_established),
		cmocka_unit_test(test_rst_syn_rcvd),
		cmocka_unit_test(test_rst_fin_wait_and_close_wait),
		cmocka_unit_test(test_rst_closing_states),
		cmocka_unit_test(test_syn_on_established),
		cmocka_unit_test(test_paws),
		cmocka_unit_test(test_active_close_time_wait),
		cmocka_unit_test(test_simultaneous_close),
		cmocka_unit_test(test_passive_close_last_ack),
		cmocka_unit_test(test_isn_and_ephemeral_ports),
		cmocka_unit_test(test_syn_retries_timeout),
		cmocka_unit_test(test_backlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
