/* SPDX-License-Identifier: MIT */
/*
 * Connection timers against a scripted peer (tcp_test.h), with the test's
 * clock: keepalive (probes at SND.UNA - 1 after the idle time, an answer
 * starts the idle time again, cnt unanswered probes reset the connection
 * with -ETIMEDOUT); a connect to a silent peer ends with -ETIMEDOUT at the
 * user timeout (the SYN's RTO is clamped to it); a close with data not yet
 * acknowledged still delivers it (retransmitted with the FIN, the send's
 * completion says 0), or, with a user timeout as the linger bound, ends in
 * a RST and the completion says -ETIMEDOUT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tcp_test_conn.h"

static uint8_t txbuf[TT_TXBUF];

static void test_keepalive(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, false);
	assert_int_equal(zn_tcp_set_keepalive(l, true, 1000, 200, 3), -EINVAL);
	assert_int_equal(zn_tcp_set_keepalive(c, true, 1000, 200, 3), 0);
	tt_tick(x, 999 * TT_MS);
	tt_expect_none(x);
	tt_tick(x, 1 * TT_MS);
	/* no data, one byte before SND.UNA: the peer must answer with an ACK */
	tt_expect(x, ZN_TCP_ACK, iss, TT_PSEQ + 1, 0);
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1, 65535, 0, 0);
	tt_expect_none(x);
	/* heard from: the idle time starts again */
	tt_tick(x, 999 * TT_MS);
	tt_expect_none(x);
	tt_tick(x, 1 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, iss, TT_PSEQ + 1, 0);
	/* silence: a probe every 200 ms, three in all, then a RST */
	tt_tick(x, 199 * TT_MS);
	tt_expect_none(x);
	tt_tick(x, 1 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, iss, TT_PSEQ + 1, 0);
	tt_tick(x, 200 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, iss, TT_PSEQ + 1, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_ESTABLISHED);
	tt_tick(x, 200 * TT_MS);
	tt_expect(x, ZN_TCP_RST | ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 0);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), -ETIMEDOUT);
	assert_true(x->events & ZN_TCP_EV_ERROR);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.keepalive_probes, 4);
	assert_int_equal(st.keepalive_drops, 1);
	tt_tick(x, 10000 * TT_MS);
	tt_expect_none(x);
	zn_tcp_close(c, false);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_keepalive_waits_for_data(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s = tt_seg_at(txbuf, 0, 100);
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, false);
	assert_int_equal(zn_tcp_set_keepalive(c, true, 500, 100, 2), 0);
	assert_int_equal(zn_tcp_send(c, &s, 1, 1), 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, TT_PSEQ + 1, 100);
	/* data in flight: the retransmission timer watches, not keepalive */
	tt_tick(x, 600 * TT_MS);
	tt_expect_none(x);
	tt_tick(x, 400 * TT_MS);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, TT_PSEQ + 1, 100);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.keepalive_probes, 0);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_connect_silent_peer(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_cb cb = tt_cb(x);
	struct zn_addr4 dst = { .ip = x->peer, .port = htons(TT_PEER_PORT) };
	struct zn_tcp_conn *c;
	struct zn_tcp_stats st;

	(void)state;
	assert_int_equal(zn_tcp_conn_open(x->t, htons(TT_US_PORT), &dst, &cb, &c), 0);
	assert_int_equal(tt_pop(x)->h.flags, ZN_TCP_SYN);
	zn_tcp_set_user_timeout(c, 300);
	/* the first RTO (1 s) is clamped to the user timeout */
	tt_tick(x, 299 * TT_MS);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_SYN_SENT);
	tt_tick(x, 1 * TT_MS);
	assert_int_equal(zn_tcp_state(c), ZN_TCP_CLOSED);
	assert_int_equal(zn_tcp_error(c), -ETIMEDOUT);
	assert_true(x->events & ZN_TCP_EV_ERROR);
	tt_expect_none(x);	/* no SYN again, no RST to a silent peer */
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.user_timeouts, 1);
	zn_tcp_close(c, false);
	tt_free(x);
}

/* 1000 bytes sent (cookie), and the handle closed before their ACK: a FIN
 * after them. user_timeout_ms: the linger bound (0: none). Our ISS. */
static uint32_t close_unacked(struct tt *x, struct zn_tcp_conn **l, uint64_t cookie,
			      uint32_t user_timeout_ms)
{
	struct zn_tcp_conn *c;
	struct zn_net_seg s = tt_seg_at(txbuf, 0, 1000);
	uint32_t iss = tt_open(x, l, &c, 65535, false);

	zn_tcp_set_user_timeout(c, user_timeout_ms);
	assert_int_equal(zn_tcp_send(c, &s, 1, cookie), 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, TT_PSEQ + 1, 1000);
	zn_tcp_close(c, false);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_FIN, iss + 1001, TT_PSEQ + 1, 0);
	assert_int_equal(x->ndone, 0);
	return iss;
}

static void test_close_delivers_unacked(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l;
	uint32_t iss;

	(void)state;
	iss = close_unacked(x, &l, 7, 0);
	/* lost: resent from SND.UNA on the RTO, the FIN with it */
	tt_tick(x, 1000 * TT_MS);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH | ZN_TCP_FIN, iss + 1, TT_PSEQ + 1, 1000);
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1002, 65535, 0, 0);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_cookie[0], 7);
	assert_int_equal(x->done_status[0], 0);
	/* the peer's FIN: TIME-WAIT, then gone */
	tt_inject(x, ZN_TCP_ACK | ZN_TCP_FIN, TT_PSEQ + 1, iss + 1002, 65535, 0, 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1002, TT_PSEQ + 2, 0);
	tt_tick(x, 100 * TT_MS);
	tt_expect_none(x);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_close_linger_bound(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l;
	uint32_t iss;

	(void)state;
	iss = close_unacked(x, &l, 9, 500);
	tt_tick(x, 499 * TT_MS);
	tt_expect_none(x);
	/* the peer never acknowledged: at the bound a RST, the send fails */
	tt_tick(x, 1 * TT_MS);
	tt_expect(x, ZN_TCP_RST | ZN_TCP_ACK, iss + 1002, TT_PSEQ + 1, 0);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_cookie[0], 9);
	assert_int_equal(x->done_status[0], -ETIMEDOUT);
	tt_tick(x, 10000 * TT_MS);
	tt_expect_none(x);
	zn_tcp_close(l, false);
	tt_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keepalive),
		cmocka_unit_test(test_keepalive_waits_for_data),
		cmocka_unit_test(test_connect_silent_peer),
		cmocka_unit_test(test_close_delivers_unacked),
		cmocka_unit_test(test_close_linger_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
