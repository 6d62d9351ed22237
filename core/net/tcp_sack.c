/* SPDX-License-Identifier: MIT */
/*
 * The sender's SACK scoreboard and RFC 6675 loss recovery.
 *
 * The scoreboard is the peer's SACK blocks merged into at most TCP_SB_MAX
 * sorted, disjoint ranges inside [snd_una, snd_max). An unSACKed stretch
 * between ranges (a hole) lies wholly below or wholly above every range,
 * so IsLost (RFC 6675 4: DupThresh ranges, or more than (DupThresh - 1) *
 * SMSS SACKed bytes, above it) holds for a whole hole at once, and lower
 * holes are lost whenever a higher one is: SetPipe and NextSeg walk the
 * holes, never the octets.
 *
 * Bound: a new range that finds the board full pushes out the highest one
 * (or is dropped if it would be the highest). What is forgotten counts as
 * in flight and not lost: pipe is overestimated and fewer holes resent,
 * the cautious side; the receiver repeats its newest blocks (RFC 2018 4),
 * so a range near the left edge comes back.
 *
 * A block at or below snd_una, or inside what the board already holds, is
 * a D-SACK (RFC 2883): counted, not merged.
 */
#include "core/net/tcp_priv.h"

static uint32_t lost_bytes_thresh(const struct zn_tcp_conn *c)
{
	return (TCP_DUPACK_THRESH - 1) * c->mss;
}

static void sb_remove(struct zn_tcp_conn *c, uint32_t i, uint32_t n)
{
	for (uint32_t k = i; k + n < c->nsb; k++)
		c->sb[k] = c->sb[k + n];
	c->nsb -= n;
}

/* Merge [l, r) in: the bytes it SACKed that were not SACKed before. */
static uint32_t sb_insert(struct zn_tcp_conn *c, uint32_t l, uint32_t r)
{
	uint32_t i = 0, j, before = 0, after;

	while (i < c->nsb && seq_lt(c->sb[i].r, l))
		i++;
	/* ranges i .. j - 1 touch or overlap [l, r) */
	for (j = i; j < c->nsb && seq_le(c->sb[j].l, r); j++)
		before += c->sb[j].r - c->sb[j].l;
	if (j > i) {
		if (seq_lt(c->sb[i].l, l))
			l = c->sb[i].l;
		if (seq_gt(c->sb[j - 1].r, r))
			r = c->sb[j - 1].r;
		c->sb[i] = (struct tcp_sb_range){ l, r };
		sb_remove(c, i + 1, j - i - 1);
		after = r - l;
		return after - before;
	}
	if (c->nsb == TCP_SB_MAX) {
		c->t->st.sack_sb_full++;
		if (i == TCP_SB_MAX)
			return 0;	/* it would be the highest: dropped */
		c->nsb--;		/* the highest goes */
	}
	for (uint32_t k = c->nsb; k > i; k--)
		c->sb[k] = c->sb[k - 1];
	c->sb[i] = (struct tcp_sb_range){ l, r };
	c->nsb++;
	return r - l;
}

uint32_t zn_tcp_sb_update(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h, uint32_t *fresh_hi,
			  bool *dsack)
{
	uint32_t fresh = 0;

	*fresh_hi = c->snd_una;
	*dsack = false;
	if (!c->sack_ok)
		return 0;
	for (uint32_t k = 0; k < h->nsack; k++) {
		uint32_t l = h->sack[k][0], r = h->sack[k][1];

		/* RFC 2883: a first block below the cumulative ACK, or inside
		 * the second, reports a duplicate */
		if (k == 0 && (seq_le(r, h->ack) ||
			       (h->nsack > 1 && seq_ge(l, h->sack[1][0]) && seq_le(r, h->sack[1][1])))) {
			c->t->st.dsack_rx++;
			*dsack = true;
			continue;
		}
		if (seq_lt(l, c->snd_una))
			l = c->snd_una;
		if (seq_gt(r, c->snd_max))
			r = c->snd_max;
		if (seq_lt(l, r)) {
			uint32_t n = sb_insert(c, l, r);

			if (n) {
				zn_tcp_rack_fresh(c, l, r);
				if (seq_gt(r, *fresh_hi))
					*fresh_hi = r;
			}
			fresh += n;
		}
	}
	return fresh;
}

void zn_tcp_sb_acked(struct zn_tcp_conn *c)
{
	uint32_t n = 0;

	while (n < c->nsb && seq_le(c->sb[n].r, c->snd_una))
		n++;
	sb_remove(c, 0, n);
	if (c->nsb && seq_lt(c->sb[0].l, c->snd_una))
		c->sb[0].l = c->snd_una;
	/* the cumulative ACK stopped at a SACKed range's left edge: the
	 * receiver threw away what it SACKed (reneging, RFC 2018 8); forget
	 * the board, as Linux does, so that the data goes again */
	if (c->nsb && c->sb[0].l == c->snd_una) {
		c->t->st.sack_reneged++;
		c->nsb = 0;
	}
	if (seq_lt(c->high_rxt, c->snd_una))
		c->high_rxt = c->snd_una;
}

void zn_tcp_sb_clear(struct zn_tcp_conn *c)
{
	c->nsb = 0;
}

/* Hole k: [*a, *b), below range k (k == nsb: the tail up to snd_max). */
static void hole(const struct zn_tcp_conn *c, uint32_t k, uint32_t *a, uint32_t *b)
{
	*a = k ? c->sb[k - 1].r : c->snd_una;
	*b = k < c->nsb ? c->sb[k].l : c->snd_max;
}

/* The number of holes that are lost: holes 0 .. n - 1. */
static uint32_t lost_holes(const struct zn_tcp_conn *c)
{
	uint32_t bytes = 0;

	if (c->rack_reo)
		return 0;	/* RACK's time rule alone (tcp_rack.c) */
	for (uint32_t k = c->nsb; k > 0; k--) {
		bytes += c->sb[k - 1].r - c->sb[k - 1].l;
		if (c->nsb - (k - 1) >= TCP_DUPACK_THRESH || bytes > lost_bytes_thresh(c))
			return k;
	}
	return 0;
}

bool zn_tcp_sb_is_lost(const struct zn_tcp_conn *c, uint32_t seq)
{
	uint32_t n = lost_holes(c), a, b;

	/* SACKed octets are never lost */
	for (uint32_t k = 0; k < c->nsb; k++)
		if (seq_ge(seq, c->sb[k].l) && seq_lt(seq, c->sb[k].r))
			return false;
	if (seq_ge(seq, c->snd_una) && seq_lt(seq, c->rack_lost))
		return true;
	if (!n)
		return false;
	hole(c, n - 1, &a, &b);
	return seq_lt(seq, b);
}

static uint32_t overlap(uint32_t a, uint32_t b, uint32_t l, uint32_t r)
{
	if (seq_lt(a, l))
		a = l;
	if (seq_gt(b, r))
		b = r;
	return seq_lt(a, b) ? b - a : 0;
}

uint32_t zn_tcp_sb_pipe(const struct zn_tcp_conn *c)
{
	uint32_t n = lost_holes(c), pipe = 0, a, b;

	for (uint32_t k = 0; k <= c->nsb; k++) {
		hole(c, k, &a, &b);
		if (!seq_lt(a, b))
			continue;
		if (k >= n)
			pipe += b - a - overlap(a, b, c->snd_una, c->rack_lost);
		if (c->in_recovery)
			pipe += overlap(a, b, c->snd_una, c->high_rxt);
	}
	return pipe;
}

uint32_t zn_tcp_sb_sacked_below(const struct zn_tcp_conn *c, uint32_t seq)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < c->nsb; k++)
		n += overlap(c->sb[k].l, c->sb[k].r, c->snd_una, seq);
	return n;
}

uint32_t zn_tcp_sb_next_sacked(const struct zn_tcp_conn *c, uint32_t *seq)
{
	for (uint32_t k = 0; k < c->nsb; k++) {
		if (seq_lt(*seq, c->sb[k].l))
			return c->sb[k].l - *seq;
		if (seq_lt(*seq, c->sb[k].r))
			*seq = c->sb[k].r;
	}
	return UINT32_MAX;
}

enum tcp_nextseg zn_tcp_sb_next_seg(const struct zn_tcp_conn *c, unsigned rules, uint32_t *seq,
				    uint32_t *len)
{
	uint32_t n = lost_holes(c), a, b;

	/* rules 1 and 3: the first unSACKed octet past HighRxt below the
	 * highest SACKed one (rule 1: in a lost hole) */
	for (uint32_t k = 0; k < c->nsb; k++) {
		hole(c, k, &a, &b);
		if (seq_lt(a, c->high_rxt))
			a = c->high_rxt;
		if (!seq_lt(a, b))
			continue;
		if (k >= n && seq_lt(a, c->rack_lost) && seq_lt(c->rack_lost, b))
			b = c->rack_lost;	/* RACK: lost up to there */
		if ((k < n || seq_lt(a, c->rack_lost)) && (rules & TCP_NEXTSEG_LOST)) {
			*seq = a;
			*len = b - a < c->mss ? b - a : c->mss;
			return TCP_NEXTSEG_LOST;
		}
		if (rules & TCP_NEXTSEG_UNSACKED) {
			*seq = a;
			*len = b - a < c->mss ? b - a : c->mss;
			return TCP_NEXTSEG_UNSACKED;
		}
		break;
	}
	/* rule 4: one rescue per recovery, a segment that ends at the highest
	 * outstanding unSACKed octet, once the ACKs passed RescueRxt. Unlike
	 * the RFC's text, not when that octet was resent already (HighRxt
	 * past it): the rescue is for a tail no SACK reported, not a resend
	 * of a resend */
	if ((rules & TCP_NEXTSEG_RESCUE) && seq_gt(c->snd_una, c->rescue_rxt)) {
		for (uint32_t k = c->nsb + 1; k > 0; k--) {
			hole(c, k - 1, &a, &b);
			if (!seq_lt(a, b))
				continue;
			if (!seq_gt(b, c->high_rxt))
				break;
			*len = b - a < c->mss ? b - a : c->mss;
			*seq = b - *len;
			return TCP_NEXTSEG_RESCUE;
		}
	}
	return TCP_NEXTSEG_NONE;
}

/* Bounds NextSeg's loop beyond what cwnd does. */
#define SACK_OUT_MAX	1024

int zn_tcp_sack_output(struct zn_tcp_conn *c, unsigned rules)
{
	int sent = 0;

	for (uint32_t n = 0; n < SACK_OUT_MAX && c->in_recovery; n++) {
		uint32_t seq, len, pipe = zn_tcp_sb_pipe(c);
		enum tcp_nextseg r;
		int rc;

		if (c->cwnd < pipe + c->mss)
			break;
		r = zn_tcp_sb_next_seg(c, rules, &seq, &len);
		if (r == TCP_NEXTSEG_NONE)
			break;
		rc = zn_tcp_send_range(c, seq, len);
		if (rc < 0)
			return rc;
		sent++;
		c->t->st.sack_retrans++;
		/* HighRxt moves even if the segment carried less (no bytes
		 * left past snd_end): the loop never sends the same twice */
		if (r == TCP_NEXTSEG_RESCUE)
			c->rescue_rxt = c->recover;
		else
			c->high_rxt = seq + (rc > 0 ? (uint32_t)rc : len);
		if (!c->rto_at)
			zn_tcp_rto_arm(c);
	}
	return sent;
}

bool zn_tcp_sack_check(struct zn_tcp_conn *c)
{
	bool dup = !c->rack_reo && c->dupacks >= TCP_DUPACK_THRESH;

	if (!c->sack_ok || c->in_recovery || !seq_ge(c->snd_una, c->recover) ||
	    c->snd_una == c->snd_max)
		return false;
	if (!dup && !zn_tcp_sb_is_lost(c, c->snd_una))
		return false;
	if (!dup && seq_lt(c->snd_una, c->rack_lost))
		c->t->st.rack_recoveries++;
	zn_tcp_sack_enter(c);
	return true;
}

void zn_tcp_sack_enter(struct zn_tcp_conn *c)
{
	struct zn_tcp *t = c->t;
	uint32_t seq = c->snd_una, gap;
	int rc;

	/* (4.1) - (4.3): RecoveryPoint, the window cut, the first hole at
	 * once whatever pipe says */
	c->in_recovery = true;
	c->recover = c->snd_max;
	c->tlp_at = 0;
	c->tlp_out = false;
	c->cc->on_loss(c);
	c->cwnd = c->ssthresh;
	t->st.fast_retrans++;
	t->st.sack_recoveries++;
	c->high_rxt = c->rescue_rxt = c->snd_una;
	gap = zn_tcp_sb_next_sacked(c, &seq);
	rc = zn_tcp_send_range(c, seq, gap < c->mss ? gap : c->mss);
	if (rc > 0) {
		t->st.sack_retrans++;
		c->high_rxt = c->rescue_rxt = c->snd_una + (uint32_t)rc;
	}
	zn_tcp_rto_arm(c);
	/* (4.4), (4.5): the rest goes by pipe as zn_tcp_output runs step (C) */
}
