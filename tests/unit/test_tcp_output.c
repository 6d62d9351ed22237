/* SPDX-License-Identifier: MIT */
/*
 * The TCP engine's output against a scripted peer (tcp_test.h): SACK blocks
 * come out of a data segment's payload (the frame stays within the MSS),
 * segments the output refuses are tried again with a growing wait and are
 * not counted as retransmissions, a refused retransmission goes before new
 * data, an ACK after a go-back-N rewind carries the highest sequence sent
 * (an older one falls out of the peer's window and is dropped), a window
 * too small for an MSS is probed by the persist timer instead of stalling
 * with no timer armed; MSG_MORE and
 * TCP_CORK hold runts until a send without it, uncork or shutdown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/tcp_test_conn.h"

#define US	1000ull

static uint8_t txbuf[TT_TXBUF];

static void test_sack_takes_payload_room(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = tt_seg_at(txbuf, 0, 3000);
	struct tt_seg *s;
	uint32_t iss;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, true);
	/* a hole at the peer's first byte: our ACKs carry one SACK block */
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1001, iss + 1, 65535, 1000, 0);
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 0);
	assert_int_equal(s->h.nsack, 1);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	/* 12 option bytes (NOP NOP SACK 10): 1448 payload, not 1460 */
	s = tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 1448);
	assert_int_equal(s->h.nsack, 1);
	assert_int_equal(s->h.hlen, 32);
	assert_int_equal(s->len + s->h.hlen - ZN_TCP_HLEN, 1460);
	tt_expect(x, ZN_TCP_ACK, iss + 1449, TT_PSEQ + 1, 1448);
	/* the 104-byte rest waits for the ACK (Nagle) */
	tt_expect_none(x);
	/* the hole filled: full segments again */
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 2897, 65535, 1000, 0);
	s = tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 2897, TT_PSEQ + 2001, 104);
	assert_int_equal(s->h.nsack, 0);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_refused_output_backs_off(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = tt_seg_at(txbuf, 0, 100);
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, false);
	x->fail_output = 3;
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	assert_int_equal(x->fail_output, 2);
	/* the next poll tries again at once */
	tt_tick(x, 0);
	assert_int_equal(x->fail_output, 1);
	/* then it waits 20 us, then 40 us */
	tt_tick(x, 0);
	tt_tick(x, 19 * US);
	assert_int_equal(x->fail_output, 1);
	tt_tick(x, 1 * US);
	assert_int_equal(x->fail_output, 0);
	tt_tick(x, 39 * US);
	tt_expect_none(x);
	tt_tick(x, 1 * US);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, TT_PSEQ + 1, 100);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.out_fail, 3);
	assert_int_equal(st.out_deferred, 2);
	/* refusals are not retransmissions; nothing was sent twice */
	assert_int_equal(st.retrans, 0);
	assert_int_equal(st.tx_data_segs, 1);
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 101, 65535, 0, 0);
	assert_int_equal(x->ndone, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_refused_retransmission_first(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = tt_seg_at(txbuf, 0, 1000), s2 = tt_seg_at(txbuf, 1000, 1000);
	struct zn_tcp_stats st;
	uint32_t iss;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, false);
	zn_tcp_set_nodelay(c, true);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1, TT_PSEQ + 1, 1000);
	/* the RTO (1 s) resends it, but the output refuses */
	x->fail_output = 1;
	tt_tick(x, 1000 * TT_MS);
	tt_expect_none(x);
	/* new data queued meanwhile: the retransmission from snd_una still
	 * goes first (an MSS of it now), nothing from snd_nxt */
	assert_int_equal(zn_tcp_send(c, &s2, 1, 2), 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 1460);
	tt_expect_none(x);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.retrans, 1);
	assert_int_equal(st.rto_fired, 1);
	assert_int_equal(st.out_fail, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_ack_after_rewind(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = tt_seg_at(txbuf, 0, 2000);
	uint32_t iss;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, false);
	zn_tcp_set_nodelay(c, true);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 1460);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1461, TT_PSEQ + 1, 540);
	/* the RTO goes back to SND.UNA (one segment: cwnd is 1 MSS) */
	tt_tick(x, 1000 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 1460);
	tt_expect_none(x);
	/* the peer's data is ACKed (delayed) with the highest sequence sent,
	 * where the peer's RCV.NXT may be already, not the rewound SND.NXT */
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1, 65535, 100, 0);
	tt_tick(x, 40 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, iss + 2001, TT_PSEQ + 101, 0);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_small_window_probe(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s1 = tt_seg_at(txbuf, 0, 3000);
	uint32_t iss;

	(void)state;
	iss = tt_open(x, &l, &c, 65535, false);
	/* the peer's window shrinks to 500 bytes with nothing in flight */
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1, 500, 0, 0);
	assert_int_equal(zn_tcp_send(c, &s1, 1, 1), 0);
	/* sender SWS avoidance holds the runt ... */
	tt_expect_none(x);
	tt_tick(x, 999 * TT_MS);
	tt_expect_none(x);
	/* ... and the persist timer (the RTO, 1 s) asks for the window with a
	 * segment the peer must answer (no data), then again after 2 s */
	tt_tick(x, 1 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, iss, TT_PSEQ + 1, 0);
	tt_expect_none(x);
	tt_tick(x, 1999 * TT_MS);
	tt_expect_none(x);
	tt_tick(x, 1 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, iss, TT_PSEQ + 1, 0);
	/* the answer: a full window again, the data goes */
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1, 65535, 0, 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 1460);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

static void test_more_and_cork(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s[5];
	uint32_t iss;

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		s[i] = tt_seg_at(txbuf, i * 500, 500);
	s[3] = tt_seg_at(txbuf, 1500, 10);
	s[4] = tt_seg_at(txbuf, 1510, 100);
	iss = tt_open(x, &l, &c, 65535, false);
	zn_tcp_set_nodelay(c, true);
	assert_int_equal(zn_tcp_send_flags(c, &s[0], 1, 1, 2), -EINVAL);
	/* MSG_MORE: runts wait, full segments go */
	assert_int_equal(zn_tcp_send_flags(c, &s[0], 1, 1, ZN_TCP_SEND_MORE), 0);
	assert_int_equal(zn_tcp_send_flags(c, &s[1], 1, 2, ZN_TCP_SEND_MORE), 0);
	tt_expect_none(x);
	tt_tick(x, 5000 * TT_MS);
	tt_expect_none(x);
	assert_int_equal(zn_tcp_send_flags(c, &s[2], 1, 3, ZN_TCP_SEND_MORE), 0);
	tt_expect(x, ZN_TCP_ACK, iss + 1, TT_PSEQ + 1, 1460);
	tt_expect_none(x);
	/* a send without it pushes the rest */
	assert_int_equal(zn_tcp_send(c, &s[3], 1, 4), 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1461, TT_PSEQ + 1, 50);
	tt_inject(x, ZN_TCP_ACK, TT_PSEQ + 1, iss + 1511, 65535, 0, 0);
	assert_int_equal(x->ndone, 4);
	/* TCP_CORK: held until uncorked */
	zn_tcp_set_cork(c, true);
	assert_int_equal(zn_tcp_send(c, &s[4], 1, 5), 0);
	tt_tick(x, 5000 * TT_MS);
	tt_expect_none(x);
	zn_tcp_set_cork(c, false);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, iss + 1511, TT_PSEQ + 1, 100);
	/* shutdown flushes what a MSG_MORE left waiting, FIN with it */
	assert_int_equal(zn_tcp_send_flags(c, &s[4], 1, 6, ZN_TCP_SEND_MORE), 0);
	tt_expect_none(x);
	assert_int_equal(zn_tcp_conn_shutdown(c), 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH | ZN_TCP_FIN, iss + 1611, TT_PSEQ + 1, 100);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sack_takes_payload_room),
		cmocka_unit_test(test_refused_output_backs_off),
		cmocka_unit_test(test_refused_retransmission_first),
		cmocka_unit_test(test_ack_after_rewind),
		cmocka_unit_test(test_small_window_probe),
		cmocka_unit_test(test_more_and_cork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
