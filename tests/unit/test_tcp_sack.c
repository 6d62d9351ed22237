/* SPDX-License-Identifier: MIT */
/*
 * The sender's SACK scoreboard and RFC 6675 loss recovery, against a
 * scripted peer (tcp_test.h) that SACKs what it chooses:
 *  - the scoreboard's functions on boards set by hand: IsLost, SetPipe's
 *    exact value (section 4's definition, octet by octet), NextSeg's
 *    rules in their order (1 lost hole, 3 unSACKed hole, 4 rescue);
 *  - one recovery episode with three holes: entry by IsLost before three
 *    duplicate ACKs, the first hole at once, the others as pipe falls,
 *    exact pipe after each ACK, no RTO, the send's cookie after the last;
 *  - an RX aggregate's single ACK SACKing four segments enters recovery;
 *  - after an RTO the resends skip what the peer SACKed;
 *  - the board's bound, D-SACK blocks, a reneging peer;
 *  - RACK (RFC 8985): reordering inside the window resends nothing, a
 *    loss DupThresh never sees is resent by the reordering timer; TLP: a
 *    lost tail is probed and recovered without the RTO.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/net/tcp_priv.h"
#include "tests/unit/tcp_test_conn.h"

#define M	1460u

static uint8_t txbuf[TT_TXBUF];

/* The peer's ACK of ack with n SACK blocks (left, right pairs). */
static void sack_ack(struct tt *x, uint32_t ack, uint32_t n, const uint32_t *blk)
{
	uint8_t raw[2 + 8 * ZN_TCP_MAX_SACK];
	struct tt_opts o = { .ws = -1, .raw = raw, .raw_len = 2 + 8 * n };

	raw[0] = 5;
	raw[1] = (uint8_t)(2 + 8 * n);
	for (uint32_t k = 0; k < 2 * n; k++)
		tt_wr32(raw + 2 + 4 * k, blk[k]);
	tt_inject_opts(x, ZN_TCP_ACK, TT_PSEQ + 1, ack, 65535, 0, 0, 1, n ? &o : &tt_noopts);
}

/* A board set by hand: una, max, ranges (pairs, offsets from 0). */
static void board(struct zn_tcp_conn *c, uint32_t max, uint32_t n, const uint32_t *r)
{
	c->mss = M;
	c->snd_una = 0;
	c->snd_max = max;
	c->nsb = n;
	for (uint32_t k = 0; k < n; k++)
		c->sb[k] = (struct tcp_sb_range){ r[2 * k], r[2 * k + 1] };
}

/* SetPipe by the RFC's octet loop, to hold the hole walk to. */
static uint32_t pipe_by_octet(const struct zn_tcp_conn *c)
{
	uint32_t pipe = 0;

	for (uint32_t s = c->snd_una; s != c->snd_max; s++) {
		bool sacked = false;

		for (uint32_t k = 0; k < c->nsb; k++)
			sacked |= seq_ge(s, c->sb[k].l) && seq_lt(s, c->sb[k].r);
		if (sacked)
			continue;
		if (!zn_tcp_sb_is_lost(c, s))
			pipe++;
		if (c->in_recovery && seq_lt(s, c->high_rxt))
			pipe++;
	}
	return pipe;
}

static void test_board_rules(void **state)
{
	struct zn_tcp_conn c = { 0 };
	uint32_t seq, len;
	/* segments 0..9; SACKed: 1, 3-4, 6-9 */
	const uint32_t r[] = { 1 * M, 2 * M, 3 * M, 5 * M, 6 * M, 10 * M };

	(void)state;
	board(&c, 10 * M, 1, r);
	/* one SACKed segment: nothing lost */
	assert_false(zn_tcp_sb_is_lost(&c, 0));
	assert_int_equal(zn_tcp_sb_pipe(&c), 9 * M);
	board(&c, 10 * M, 2, r);
	/* two ranges, 3 segments above 0: more than (3 - 1) * SMSS */
	assert_true(zn_tcp_sb_is_lost(&c, 0));
	assert_true(zn_tcp_sb_is_lost(&c, M - 1));
	assert_false(zn_tcp_sb_is_lost(&c, M));		/* SACKed */
	assert_false(zn_tcp_sb_is_lost(&c, 2 * M));	/* 2 segments above */
	/* pipe: hole 0 lost (0), hole 2 not (M), the tail 5..9 not (5M) */
	assert_int_equal(zn_tcp_sb_pipe(&c), 6 * M);
	assert_int_equal(pipe_by_octet(&c), 6 * M);
	board(&c, 10 * M, 3, r);
	c.in_recovery = true;
	c.high_rxt = c.rescue_rxt = 0;
	assert_true(zn_tcp_sb_is_lost(&c, 5 * M));	/* 4 segments above */
	assert_int_equal(zn_tcp_sb_pipe(&c), 0);
	/* NextSeg rule 1: the lowest lost hole past HighRxt */
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_LOST, &seq, &len), TCP_NEXTSEG_LOST);
	assert_int_equal(seq, 0);
	assert_int_equal(len, M);
	c.high_rxt = M;
	/* the resent octets count once (S1 <= HighRxt) though lost */
	assert_int_equal(zn_tcp_sb_pipe(&c), M);
	assert_int_equal(pipe_by_octet(&c), M);
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_LOST, &seq, &len), TCP_NEXTSEG_LOST);
	assert_int_equal(seq, 2 * M);
	c.high_rxt = 2 * M + 100;	/* part of hole 2 resent: the rest next */
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_LOST, &seq, &len), TCP_NEXTSEG_LOST);
	assert_int_equal(seq, 2 * M + 100);
	assert_int_equal(len, M - 100);
	assert_int_equal(zn_tcp_sb_pipe(&c), M + 100);
	assert_int_equal(pipe_by_octet(&c), M + 100);
	c.high_rxt = 6 * M;
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_LOST | TCP_NEXTSEG_UNSACKED, &seq, &len),
			 TCP_NEXTSEG_NONE);
	assert_int_equal(zn_tcp_sb_pipe(&c), 3 * M);

	/* rule 3: a hole below the highest SACK that is not lost; rule 4 the
	 * tail, once the ACKs passed RescueRxt and only once (HighRxt before it) */
	board(&c, 10 * M, 1, (const uint32_t[]){ 2 * M, 3 * M });
	c.snd_una = 0;
	c.high_rxt = c.rescue_rxt = M;
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_LOST, &seq, &len), TCP_NEXTSEG_NONE);
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_LOST | TCP_NEXTSEG_UNSACKED, &seq, &len),
			 TCP_NEXTSEG_UNSACKED);
	assert_int_equal(seq, M);
	assert_int_equal(len, M);
	c.high_rxt = 2 * M;
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_RESCUE, &seq, &len), TCP_NEXTSEG_NONE);
	c.snd_una = M + 1;	/* HighACK > RescueRxt */
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_RESCUE, &seq, &len), TCP_NEXTSEG_RESCUE);
	assert_int_equal(seq, 9 * M);
	assert_int_equal(len, M);
	c.high_rxt = 10 * M;	/* resent already: no rescue */
	assert_int_equal(zn_tcp_sb_next_seg(&c, TCP_NEXTSEG_RESCUE, &seq, &len), TCP_NEXTSEG_NONE);
}

/* An accepted connection with n segments in flight (cwnd opened for them
 * by hand), nodelay; our first sequence number. */
static uint32_t flight_of(struct tt *x, struct zn_tcp_conn **l, struct zn_tcp_conn **c, uint32_t n)
{
	struct zn_net_seg s = tt_seg_at(txbuf, 0, n * M);
	uint32_t b = tt_open(x, l, c, 65535, true) + 1;

	zn_tcp_set_nodelay(*c, true);
	(*c)->cwnd = n * M;
	assert_int_equal(zn_tcp_send(*c, &s, 1, 7), 0);
	for (uint32_t i = 0; i < n; i++)
		tt_expect(x, ZN_TCP_ACK | (i == n - 1 ? ZN_TCP_PSH : 0), b + i * M, TT_PSEQ + 1, M);
	tt_expect_none(x);
	/* a round trip: RACK's RTT and reordering window (2.5 ms) */
	tt_tick(x, 10 * TT_MS);
	return b;
}

static void test_recovery_episode(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t b;

	(void)state;
	/* segments 0, 2 and 5 of ten are lost */
	b = flight_of(x, &l, &c, 10);
	sack_ack(x, b, 1, (uint32_t[]){ b + M, b + 2 * M });
	tt_expect_none(x);		/* one duplicate, nothing lost yet */
	assert_false(c->in_recovery);
	/* the second: 3 segments SACKed above snd_una, IsLost(HighACK + 1)
	 * before DupThresh duplicates: segment 0 goes at once; RACK (no
	 * reordering window with DupThresh segments SACKed) finds hole 2
	 * lost too, sent before segments 3-4 that arrived */
	sack_ack(x, b, 2, (uint32_t[]){ b + 3 * M, b + 5 * M, b + M, b + 2 * M });
	tt_expect(x, ZN_TCP_ACK, b, TT_PSEQ + 1, M);
	assert_true(c->in_recovery);
	assert_int_equal(c->recover, b + 10 * M);
	/* CUBIC: cwnd = ssthresh = 0.7 * 10 segments, not inflated */
	assert_int_equal(zn_tcp_ssthresh(c), 7 * M);
	assert_int_equal(zn_tcp_cwnd(c), 7 * M);
	/* pipe before hole 2 went: segment 0 resent (M), hole 2 lost (0),
	 * 5..9 (5M): one segment of room */
	tt_expect(x, ZN_TCP_ACK, b + 2 * M, TT_PSEQ + 1, M);
	tt_expect_none(x);
	/* now: 0 and 2 resent (2M), 5..9 (5M) */
	assert_int_equal(zn_tcp_sb_pipe(c), 7 * M);
	/* the rest arrives: hole 5 is lost now */
	sack_ack(x, b, 3, (uint32_t[]){ b + 6 * M, b + 10 * M, b + 3 * M, b + 5 * M, b + M,
					b + 2 * M });
	assert_int_equal(zn_tcp_sb_pipe(c), 3 * M);
	tt_expect(x, ZN_TCP_ACK, b + 5 * M, TT_PSEQ + 1, M);
	tt_expect_none(x);
	/* segment 0 arrived: a partial ACK; cwnd stays, nothing resent twice
	 * (no rescue: the highest hole was resent) */
	sack_ack(x, b + 2 * M, 2, (uint32_t[]){ b + 6 * M, b + 10 * M, b + 3 * M, b + 5 * M });
	assert_true(c->in_recovery);
	assert_int_equal(zn_tcp_cwnd(c), 7 * M);
	assert_int_equal(zn_tcp_sb_pipe(c), 2 * M);
	tt_expect_none(x);
	sack_ack(x, b + 5 * M, 1, (uint32_t[]){ b + 6 * M, b + 10 * M });
	assert_int_equal(c->nsb, 1);
	tt_expect_none(x);
	/* the ACK of RecoveryPoint ends the episode */
	sack_ack(x, b + 10 * M, 0, NULL);
	assert_false(c->in_recovery);
	assert_int_equal(c->nsb, 0);
	assert_int_equal(x->ndone, 1);
	assert_int_equal(x->done_status[0], 0);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.fast_retrans, 1);
	assert_int_equal(st.sack_recoveries, 1);
	assert_int_equal(st.sack_retrans, 3);
	assert_int_equal(st.retrans, 3);
	assert_int_equal(st.rto_fired, 0);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* One ACK for an aggregate of four frames after a hole: recovery at once. */
static void test_aggregate_ack(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t b;

	(void)state;
	b = flight_of(x, &l, &c, 5);
	sack_ack(x, b, 1, (uint32_t[]){ b + M, b + 5 * M });
	tt_expect(x, ZN_TCP_ACK, b, TT_PSEQ + 1, M);
	tt_expect_none(x);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.dup_acks, 1);
	assert_int_equal(st.fast_retrans, 1);
	sack_ack(x, b + 5 * M, 0, NULL);
	assert_false(c->in_recovery);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(st.retrans, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* The first hole's resend is lost too: the RTO resends from snd_una and
 * then skips what the peer SACKed. */
static void test_rto_skips_sacked(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t b;

	(void)state;
	b = flight_of(x, &l, &c, 6);
	/* 0 and 3 lost; 1-2 and 4-5 SACKed */
	sack_ack(x, b, 2, (uint32_t[]){ b + 4 * M, b + 6 * M, b + M, b + 3 * M });
	tt_expect(x, ZN_TCP_ACK, b, TT_PSEQ + 1, M);
	tt_expect(x, ZN_TCP_ACK, b + 3 * M, TT_PSEQ + 1, M);
	tt_expect_none(x);
	/* both resends lost: the timer (1 s, no RTT sample yet) */
	tt_tick(x, 1001 * TT_MS);
	tt_expect(x, ZN_TCP_ACK, b, TT_PSEQ + 1, M);	/* cwnd is one segment */
	tt_expect_none(x);
	assert_false(c->in_recovery);
	assert_int_equal(c->recover, b + 6 * M);
	/* its ACK: cwnd two segments; 1-2 are skipped, 3 goes, 4-5 skipped */
	sack_ack(x, b + 3 * M, 1, (uint32_t[]){ b + 4 * M, b + 6 * M });
	tt_expect(x, ZN_TCP_ACK, b + 3 * M, TT_PSEQ + 1, M);
	tt_expect_none(x);
	sack_ack(x, b + 6 * M, 0, NULL);
	tt_expect_none(x);
	assert_int_equal(x->ndone, 1);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rto_fired, 1);
	assert_int_equal(st.retrans, 4);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* More disjoint ranges than the board holds; D-SACK; a reneging peer. */
static void test_bound_dsack_renege(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t b;

	(void)state;
	b = flight_of(x, &l, &c, 3);
	/* 40 ranges of 10 bytes, 20 apart, sent 3 per ACK, highest first */
	for (uint32_t k = 40; k > 0; k -= k >= 3 ? 3 : k) {
		uint32_t blk[6], n = 0;

		for (uint32_t j = 0; j < 3 && k - j > 0; j++, n++) {
			blk[2 * j] = b + 100 + 20 * (k - j - 1);
			blk[2 * j + 1] = blk[2 * j] + 10;
		}
		sack_ack(x, b, n, blk);
	}
	assert_int_equal(c->nsb, TCP_SB_MAX);
	/* the lowest 32 stayed; the 8 highest went */
	assert_int_equal(c->sb[0].l, b + 100);
	assert_int_equal(c->sb[TCP_SB_MAX - 1].l, b + 100 + 20 * (TCP_SB_MAX - 1));
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.sack_sb_full, 8);
	/* a block below the ACK: a D-SACK, counted and not merged */
	sack_ack(x, b, 2, (uint32_t[]){ b - 1, b, b + 100, b + 110 });
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.dsack_rx, 1);
	/* merging: one block over the first 32 ranges */
	sack_ack(x, b, 1, (uint32_t[]){ b + 100, b + 100 + 20 * TCP_SB_MAX });
	assert_int_equal(c->nsb, 1);
	/* the ACK stops at a SACKed range's left edge: the peer reneged */
	sack_ack(x, b + 100, 0, NULL);
	assert_int_equal(c->nsb, 0);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.sack_reneged, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* RACK: segment 0 arrives after segment 1, within the reordering window
 * (min_RTT / 4 = 2.5 ms): nothing is resent, and reordering is seen. */
static void test_rack_reorder(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t b;

	(void)state;
	b = flight_of(x, &l, &c, 4);
	sack_ack(x, b, 1, (uint32_t[]){ b + M, b + 2 * M });
	assert_int_equal(c->rack_rtt, 10 * TT_MS);
	assert_true(c->rack_at > x->now);		/* the reordering timer */
	tt_tick(x, 2 * TT_MS);
	tt_expect_none(x);
	sack_ack(x, b + 2 * M, 0, NULL);
	assert_true(c->rack_reo);
	tt_tick(x, 20 * TT_MS);
	tt_expect_none(x);
	sack_ack(x, b + 4 * M, 0, NULL);
	tt_expect_none(x);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.retrans, 0);
	assert_int_equal(st.fast_retrans, 0);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(x->ndone, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* RACK: segment 0 is lost, only segment 1 is SACKed (DupThresh never
 * comes): once the reordering window passed, its timer resends 0. */
static void test_rack_loss(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_tcp_stats st;
	uint32_t b;

	(void)state;
	b = flight_of(x, &l, &c, 2);
	sack_ack(x, b, 1, (uint32_t[]){ b + M, b + 2 * M });
	tt_expect_none(x);
	tt_tick(x, 2 * TT_MS);
	tt_expect_none(x);
	tt_tick(x, 1 * TT_MS);			/* 12.5 ms after it went */
	tt_expect(x, ZN_TCP_ACK, b, TT_PSEQ + 1, M);
	tt_expect_none(x);
	assert_true(c->in_recovery);
	sack_ack(x, b + 2 * M, 0, NULL);
	assert_false(c->in_recovery);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rack_recoveries, 1);
	assert_int_equal(st.retrans, 1);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(x->ndone, 1);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

/* TLP: the last of three segments is lost and nothing more is to send:
 * the probe resends it before the RTO, and its ACK ends the episode (a
 * loss it repaired: cwnd is cut). The RTO never fires. */
static void test_tlp_tail(void **state)
{
	struct tt *x = tt_new(NULL);
	struct zn_tcp_conn *l, *c;
	struct zn_net_seg s = tt_seg_at(txbuf, 0, M);
	struct zn_tcp_stats st;
	uint32_t b, cw;

	(void)state;
	b = tt_open(x, &l, &c, 65535, true) + 1;
	zn_tcp_set_nodelay(c, true);
	/* an RTT sample of 10 ms first */
	assert_int_equal(zn_tcp_send(c, &s, 1, 1), 0);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, b, TT_PSEQ + 1, M);
	tt_tick(x, 10 * TT_MS);
	sack_ack(x, b + M, 0, NULL);
	assert_int_equal(c->srtt, 10000);
	s = tt_seg_at(txbuf, M, 3 * M);
	assert_int_equal(zn_tcp_send(c, &s, 1, 2), 0);
	for (uint32_t i = 0; i < 3; i++)
		tt_expect(x, ZN_TCP_ACK | (i == 2 ? ZN_TCP_PSH : 0), b + (1 + i) * M, TT_PSEQ + 1, M);
	tt_tick(x, 10 * TT_MS);
	sack_ack(x, b + 3 * M, 0, NULL);	/* the third never arrives */
	tt_expect_none(x);
	cw = zn_tcp_cwnd(c);
	/* PTO: 2 SRTT + 200 ms (one segment out), capped at the RTO (200 ms) */
	assert_int_equal(c->tlp_at, c->rto_at);
	tt_tick(x, 199 * TT_MS);
	tt_expect_none(x);
	tt_tick(x, 1 * TT_MS);
	tt_expect(x, ZN_TCP_ACK | ZN_TCP_PSH, b + 3 * M, TT_PSEQ + 1, M);
	tt_expect_none(x);
	assert_true(c->rto_at > x->now);	/* the RTO armed again */
	tt_tick(x, 10 * TT_MS);
	sack_ack(x, b + 4 * M, 0, NULL);
	assert_int_equal(x->ndone, 2);
	assert_true(zn_tcp_cwnd(c) < cw);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.tlp_probes, 1);
	assert_int_equal(st.tlp_recovered, 1);
	assert_int_equal(st.rto_fired, 0);
	tt_tick(x, 1000 * TT_MS);
	tt_expect_none(x);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rto_fired, 0);
	zn_tcp_close(c, true);
	zn_tcp_close(l, false);
	tt_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_board_rules),
		cmocka_unit_test(test_recovery_episode),
		cmocka_unit_test(test_aggregate_ack),
		cmocka_unit_test(test_rto_skips_sacked),
		cmocka_unit_test(test_bound_dsack_renege),
		cmocka_unit_test(test_rack_reorder),
		cmocka_unit_test(test_rack_loss),
		cmocka_unit_test(test_tlp_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
