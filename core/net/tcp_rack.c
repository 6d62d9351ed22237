/* SPDX-License-Identifier: MIT */
/*
 * RACK-TLP (RFC 8985), on top of the SACK scoreboard (tcp_sack.c).
 *
 * RACK: a segment is lost once one sent after it was delivered and a
 * reordering window has passed since (RACK.rtt + RACK.reo_wnd after its
 * own transmission). Send times of first transmissions are kept as a
 * bounded log of marks (the octets up to end went at ts), in sequence
 * order, which for first transmissions is also time order: the octets
 * RACK declares lost are then one prefix [snd_una, rack_lost), and the
 * scoreboard's IsLost, pipe and NextSeg take it besides DupThresh. A full
 * log merges its two oldest marks (their octets take the later time: they
 * are declared lost later, never earlier). Resent octets carry no time of
 * their own here: a lost retransmission is left to the RTO (RFC 8985
 * 6.2's retransmitted-segment times are not kept).
 *
 * The reordering window is min_RTT / 4 (at most SRTT); 0 in recovery or
 * with DupThresh segments SACKed, until reordering was seen (an original
 * delivered below what was delivered before). Once reordering was seen,
 * DupThresh no longer marks losses, time alone does (as Linux with RACK).
 *
 * TLP: with data in flight and no recovery, a probe timeout of 2 SRTT
 * (plus the worst delayed ACK when one segment is out; at least 10 ms as
 * Linux; never past the RTO, which it replaces once) sends one new
 * segment or resends the last, so that a lost tail draws SACKs (and RACK,
 * or the ACK of all) instead of waiting for the RTO. A probe that repaired
 * a loss (no D-SACK for it) is a congestion event (7.4.2).
 */
#include "core/net/tcp_priv.h"

#define TLP_WCDELACK_NS	(200ull * 1000000u)	/* RFC 8985 7.2: WCDelAckT */
#define TLP_NO_RTT_NS	(1000ull * 1000000u)	/* PTO without an RTT sample */
/* Linux's floor: a PTO of a few scheduling delays probes for nothing */
#define TLP_MIN_NS	(10ull * 1000000u)

void zn_tcp_rack_init(struct zn_tcp_conn *c)
{
	c->rexmit_hi = c->rack_end = c->rack_fack = c->rack_lost = c->tlp_end = c->snd_una;
	c->high_rxt = c->rescue_rxt = c->snd_una;
}

static struct tcp_xmit_mark *xmark(struct zn_tcp_conn *c, uint32_t i)
{
	return &c->xlog[(c->xlog_head + i) % TCP_XLOG];
}

void zn_tcp_rack_sent(struct zn_tcp_conn *c, uint32_t seq, uint32_t end)
{
	uint64_t now = zn_tcp_now(c->t);
	struct tcp_xmit_mark *last;

	if (seq_lt(seq, c->snd_max))
		c->rexmit_hi = seq_lt(c->rexmit_hi, end) ? end : c->rexmit_hi;
	if (!seq_gt(end, c->snd_max))
		return;
	last = c->xlog_n ? xmark(c, c->xlog_n - 1) : NULL;
	if (last && last->ts == now) {
		last->end = end;
		return;
	}
	if (c->xlog_n == TCP_XLOG) {
		/* the oldest mark's octets take the next one's (later) time */
		c->xlog_head++;
		c->xlog_n--;
	}
	*xmark(c, c->xlog_n++) = (struct tcp_xmit_mark){ end, now };
}

/* When octet s first went; 0 when the log does not know. */
static uint64_t sent_at(struct zn_tcp_conn *c, uint32_t s)
{
	for (uint32_t i = 0; i < c->xlog_n; i++)
		if (seq_gt(xmark(c, i)->end, s))
			return xmark(c, i)->ts;
	return 0;
}

static uint64_t reo_wnd(const struct zn_tcp_conn *c)
{
	uint64_t w = c->rack_min_rtt / 4, srtt = (uint64_t)c->srtt * 1000u;

	if (!c->rack_reo &&
	    (c->in_recovery || zn_tcp_sb_sacked_below(c, c->snd_max) >= TCP_DUPACK_THRESH * c->mss))
		return 0;
	return srtt && w > srtt ? srtt : w;
}

/* RFC 8985 6.2 step 5: move rack_lost, arm the timer for what may be. */
static void detect(struct zn_tcp_conn *c, uint64_t now)
{
	uint64_t win = c->rack_rtt + reo_wnd(c);
	uint32_t start = c->snd_una;

	c->rack_at = 0;
	if (!c->rack_ts)
		return;
	for (uint32_t i = 0; i < c->xlog_n && seq_lt(start, c->rack_end); i++) {
		const struct tcp_xmit_mark *m = xmark(c, i);
		uint32_t end = seq_lt(m->end, c->rack_end) ? m->end : c->rack_end, s = start;

		if (m->ts > c->rack_ts)
			break;
		if (m->ts + win <= now) {
			if (seq_gt(end, c->rack_lost))
				c->rack_lost = end;
			start = m->end;
			continue;
		}
		/* not yet: the timer, if anything here still waits for SACK */
		zn_tcp_sb_next_sacked(c, &s);
		if (seq_lt(s, c->rack_end))
			c->rack_at = sent_at(c, s) + win;
		break;
	}
}

void zn_tcp_rack_acked(struct zn_tcp_conn *c, uint32_t old_una, uint32_t fresh_hi, bool dsack,
		       const struct zn_tcp_hdr *h)
{
	uint64_t now = zn_tcp_now(c->t), ts = 0;
	uint32_t e = seq_gt(fresh_hi, c->snd_una) ? fresh_hi : c->snd_una;

	while (c->xlog_n && seq_le(xmark(c, 0)->end, c->snd_una)) {
		c->xlog_head++;
		c->xlog_n--;
	}
	/* an original delivered below what was delivered before */
	if (seq_gt(c->snd_una, old_una) && seq_lt(old_una, c->rack_fack) &&
	    seq_ge(old_una, c->rexmit_hi))
		c->rack_reo = true;
	if (seq_lt(c->rexmit_hi, c->snd_una))
		c->rexmit_hi = c->snd_una;
	if (seq_lt(c->rack_lost, c->snd_una))
		c->rack_lost = c->snd_una;
	if (e == old_una)
		return;
	if (c->tlp_out && seq_ge(e, c->tlp_end)) {
		/* the probe's ACK: the probe's time stands for it */
		c->tlp_out = false;
		ts = c->tlp_ts;
		/* repaired a loss: no D-SACK, and with timestamps, the echo
		 * is the probe's, not the original's */
		if (c->tlp_rexmit && !dsack && !c->in_recovery &&
		    (!c->ts_ok || !h->has_ts || (int32_t)(h->tsecr - c->tlp_tsval) >= 0)) {
			c->t->st.tlp_recovered++;
			c->cc->on_loss(c);
			c->cwnd = c->ssthresh;
		}
	} else if (seq_ge(e - 1, c->rexmit_hi)) {
		ts = sent_at(c, e - 1);
	}
	if (ts && (ts > c->rack_ts || (ts == c->rack_ts && seq_gt(e, c->rack_end)))) {
		c->rack_ts = ts;
		c->rack_end = e;
		c->rack_rtt = now - ts;
		if (!c->rack_min_rtt || c->rack_rtt < c->rack_min_rtt)
			c->rack_min_rtt = c->rack_rtt ? c->rack_rtt : 1;
	}
	if (seq_gt(e, c->rack_fack))
		c->rack_fack = e;
	detect(c, now);
}

void zn_tcp_rack_fresh(struct zn_tcp_conn *c, uint32_t l, uint32_t r)
{
	if (seq_le(r, c->rack_fack) && seq_ge(l, c->rexmit_hi))
		c->rack_reo = true;
}

void zn_tcp_rack_timer(struct zn_tcp_conn *c, uint64_t now)
{
	c->rack_at = 0;
	detect(c, now);
	if (zn_tcp_sack_check(c))
		zn_tcp_output(c);
}

void zn_tcp_tlp_arm(struct zn_tcp_conn *c)
{
	uint64_t now = zn_tcp_now(c->t), pto;

	c->tlp_at = 0;
	if (!c->sack_ok || c->in_recovery || c->tlp_out || c->nrexmit || c->snd_una == c->snd_max ||
	    (c->state != ZN_TCP_ESTABLISHED && c->state != ZN_TCP_CLOSE_WAIT))
		return;
	pto = c->srtt ? 2ull * c->srtt * 1000u : TLP_NO_RTT_NS;
	if (c->srtt && c->snd_max - c->snd_una <= c->mss)
		pto += TLP_WCDELACK_NS;
	if (pto < TLP_MIN_NS)
		pto = TLP_MIN_NS;
	/* 7.2: never after the RTO would fire; the probe goes instead (and
	 * arms the RTO again) */
	c->tlp_at = c->rto_at && now + pto > c->rto_at ? c->rto_at : now + pto;
}

void zn_tcp_tlp_fire(struct zn_tcp_conn *c)
{
	int rc;

	c->tlp_at = 0;
	if (c->in_recovery || c->tlp_out || c->snd_una == c->snd_max)
		return;
	rc = zn_tcp_send_tlp(c, &c->tlp_rexmit);
	if (rc < 0)
		return;
	c->t->st.tlp_probes++;
	c->tlp_out = true;
	c->tlp_end = c->snd_max;
	c->tlp_ts = zn_tcp_now(c->t);
	c->tlp_tsval = zn_tcp_tsval(c->t);
	zn_tcp_rto_arm(c);
}
