/* SPDX-License-Identifier: MIT */
/*
 * Congestion control against a scripted peer (tcp_test.h): CUBIC (RFC 9438)
 * is the default and NewReno selectable (engine-wide or per connection);
 * a fast retransmit cuts CUBIC's window to beta = 0.7 of cwnd (NewReno: half
 * the flight); in congestion avoidance CUBIC first follows the
 * Reno-friendly estimate (alpha_cubic per window, 4.3), then, once W_cubic
 * is ahead, grows toward W_cubic(t + RTT) by at most half a segment per
 * acknowledged segment (the 1.5 cwnd clamp, 4.4).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tcp_test_conn.h"

#define MSS	1460u

static uint8_t txbuf[TT_TXBUF];

static void newreno_env(struct zn_tcp_env *e)
{
	e->cc = ZN_TCP_CC_NEWRENO;
}

static void test_cc_selection(void **state)
{
	struct tt *x = tt_new(NULL), *y = tt_new(newreno_env);
	struct zn_tcp_conn *l, *c;

	(void)state;
	tt_open(x, &l, &c, 65535, false);
	assert_string_equal(zn_tcp_cc_name(c), "cubic");
	assert_int_equal(zn_tcp_set_cc(c, ZN_TCP_CC_NEWRENO), 0);
	assert_string_equal(zn_tcp_cc_name(c), "newreno");
	assert_int_equal(zn_tcp_set_cc(c, (enum zn_tcp_cc)7), -EINVAL);
	assert_string_equal(zn_tcp_cc_name(c), "newreno");
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_open(y, &l, &c, 65535, false);
	assert_string_equal(zn_tcp_cc_name(c), "newreno");
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
	tt_free(y);
}

/* Three segments out, three duplicate ACKs: fast retransmit. */
static void fast_retransmit(struct tt *x, struct zn_tcp_conn *c, uint32_t iss)
{
	struct zn_net_seg s = tt_seg_at(txbuf, 0, 3 * MSS);

	assert_int_equal(zn_tcp_send(c, &s, 1, 1), 0);
	for (uint32_t i = 0; i < 3; i++)
		tt_expect(x, i == 2 ? ZN_TCP_ACK | ZN_TCP_PSH : ZN_TCP_ACK, iss + 1 + i * MSS,
			  TT_PSEQ + 1, MSS);
	for (int i = 0; i < 3; i++)
		tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1, 65535, 0, 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, MSS);
}

static void test_loss_cut(void **state)
{
	struct tt *x = tt_new(NULL), *y = tt_new(newreno_env);
	struct zn_tcp_conn *l, *c;
	uint32_t iss;

	(void)state;
	/* the initial window: 3 segments of 1460 (RFC 3390) */
	iss = tt_open(x, &l, &c, 65535, false);
	assert_int_equal(zn_tcp_cwnd(c), 3 * MSS);
	fast_retransmit(x, c, iss);
	/* CUBIC: ssthresh = 0.7 cwnd; cwnd inflated by 3 segments for recovery */
	assert_int_equal(zn_tcp_ssthresh(c), 3 * MSS * 7 / 10);
	assert_int_equal(zn_tcp_cwnd(c), 3 * MSS * 7 / 10 + 3 * MSS);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	/* NewReno: half the flight, at least two segments */
	iss = tt_open(y, &l, &c, 65535, false);
	fast_retransmit(y, c, iss);
	assert_int_equal(zn_tcp_ssthresh(c), 2 * MSS);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
	tt_free(y);
}

/* Send n segments at off and have the peer acknowledge them in one ACK. */
static uint32_t round_trip(struct tt *x, struct zn_tcp_conn *c, uint32_t iss, uint32_t off,
			   uint32_t n)
{
	struct zn_net_seg s = tt_seg_at(txbuf, off, n * MSS);

	assert_int_equal(zn_tcp_send(c, &s, 1, off), 0);
	for (uint32_t i = 0; i < n; i++)
		assert_non_null(tt_pop(x));
	tt_expect_none(x);
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1 + off + n * MSS, 65535, 0, 0);
	return off + n * MSS;
}

static void test_cubic_growth(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s;
	uint32_t iss, off = 3 * MSS, cw;
	double alpha = 3.0 * (1 - 0.7) / (1 + 0.7), w_est, w;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, false);
	zn_tcp_set_nodelay(c, true);
	fast_retransmit(x, c, iss);	/* W_max = 3 segments */
	/* the ACK of all: recovery ends, cwnd = flight + MSS = 1 segment */
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1 + off, 65535, 0, 0);
	assert_int_equal(zn_tcp_cwnd(c), MSS);
	/* slow start back over ssthresh (4380 > 3066) */
	off = round_trip(x, c, iss, off, 1);
	off = round_trip(x, c, iss, off, 2);
	assert_int_equal(zn_tcp_cwnd(c), 3 * MSS);
	/* congestion avoidance; the epoch starts at the first ACK, with
	 * cwnd_epoch = W_max = 3: K = 0, W_cubic(0) = 3 < W_est, so the
	 * Reno-friendly estimate rules (4.3) */
	tt_tick(x, 10000 * TT_MS);
	s = tt_seg_at(txbuf, off, 3 * MSS);
	assert_int_equal(zn_tcp_send(c, &s, 1, 99), 0);
	for (int i = 0; i < 3; i++)
		assert_non_null(tt_pop(x));
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1 + off + MSS, 65535, 0, 0);
	w_est = 3.0 + alpha * 1.0 / 3.0;
	assert_int_equal(zn_tcp_cwnd(c), (uint32_t)(w_est * MSS));
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1 + off + 3 * MSS, 65535, 0, 0);
	off += 3 * MSS;
	cw = zn_tcp_cwnd(c);
	assert_true(cw > (uint32_t)(w_est * MSS));
	/* 2 s later W_cubic(2) = 0.4 * 8 + 3 = 6.2 segments is ahead: cwnd
	 * grows toward it, by the clamp (1.5 cwnd) half a segment per segment */
	tt_tick(x, 2000 * TT_MS);
	s = tt_seg_at(txbuf, off, MSS);
	assert_int_equal(zn_tcp_send(c, &s, 1, 100), 0);
	assert_non_null(tt_pop(x));
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1 + off + MSS, 65535, 0, 0);
	w = (double)cw / MSS;
	assert_true(fabs((double)zn_tcp_cwnd(c) - (w + 0.5) * MSS) <= 2.0);
	/* NewReno would have added MSS^2 / cwnd (about a third of this) */
	assert_true(zn_tcp_cwnd(c) - cw > MSS * MSS / cw);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cc_selection),
		cmocka_unit_test(test_loss_cut),
		cmocka_unit_test(test_cubic_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
