/* SPDX-License-Identifier: MIT */
/*
 * Segment arrival (RFC 9293 3.10.7): parse, find the connection (or answer
 * with RST), then per state: LISTEN makes a child, SYN-SENT completes or
 * crosses (simultaneous open), the synchronized states run the sequence
 * check (with PAWS, RFC 7323 5), RST and SYN checks (RFC 5961 3 and 4:
 * challenge ACKs), ACK processing (RFC 5961 5 range, RTT, congestion,
 * SACK (tcp_sack.c) or NewReno recovery, window update), data in order or to the out-of-order
 * queue, and FIN.
 */
#include <errno.h>

#include "core/net/tcp_priv.h"

static uint16_t bswap16(uint16_t v)
{
	return __builtin_bswap16(v);
}

static void challenge_ack(struct zn_tcp_conn *c)
{
	c->t->st.rx_challenge++;
	zn_tcp_send_ack(c);
}

static void enter_time_wait(struct zn_tcp_conn *c)
{
	c->state = ZN_TCP_TIME_WAIT;
	c->rto_at = c->persist_at = c->delack_at = 0;
	c->tw_at = zn_tcp_now(c->t) + c->t->env.time_wait_ns;
}

/* Options of a SYN we answer or a SYN-ACK we receive (RFC 7323 1.3: both
 * sides offered, or neither uses it). */
static void syn_options(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h)
{
	uint32_t peer = h->has_mss && h->mss ? h->mss : TCP_DEFAULT_MSS;

	c->mss = peer < c->t->env.mss ? peer : c->t->env.mss;
	c->ws_ok = c->ws_ok && h->has_ws;
	c->snd_ws = c->ws_ok ? h->ws : 0;
	if (!c->ws_ok) {
		c->rcv_ws = 0;
		if (c->rcv_buf > 0xffff)
			c->rcv_buf = 0xffff;
	}
	c->ts_ok = c->ts_ok && h->has_ts;
	if (c->ts_ok) {
		c->ts_recent = h->tsval;
		/* the option takes 12 bytes of every segment (RFC 7323 2.2) */
		c->mss -= 12;
	}
	/* both ways: we report holes with SACK blocks, and the peer's feed
	 * the scoreboard (tcp_sack.c) */
	c->sack_ok = c->sack_ok && h->sack_ok;
	c->irs = h->seq;
	c->rcv_nxt = h->seq + 1;
	c->rcv_adv = c->rcv_nxt;
}

static void listen_input(struct zn_tcp_conn *l, uint32_t src, uint32_t dst,
			 const struct zn_tcp_hdr *h, uint32_t seg_len)
{
	struct zn_tcp *t = l->t;
	struct zn_tcp_conn *c;

	if (h->flags & ZN_TCP_RST)
		return;
	if (h->flags & ZN_TCP_ACK) {
		zn_tcp_send_rst_for(t, src, dst, h, seg_len);
		return;
	}
	if (!(h->flags & ZN_TCP_SYN))
		return;
	/* a full queue drops the SYN: the peer retries (as Linux does) */
	if (l->nq - l->nembryo >= l->backlog || l->nembryo >= l->backlog)
		return;
	c = zn_tcp_conn_new(t);
	if (!c)
		return;
	c->cb = l->cb;
	c->cb.event = NULL;	/* nobody listens until accepted */
	c->cb.tx_done = NULL;
	c->lip = dst;
	c->lport = l->lport;
	c->rip = src;
	c->rport = bswap16(h->sport);
	c->ws_ok = c->ts_ok = c->sack_ok = true;
	syn_options(c, h);
	c->iss = zn_tcp_isn(t, c->lip, c->lport, c->rip, c->rport);
	c->snd_una = c->snd_nxt = c->snd_max = c->snd_hi = c->recover = c->iss;
	c->snd_end = c->iss + 1;
	c->snd_wnd = h->wnd;
	c->snd_wl1 = h->seq;
	c->max_wnd = c->snd_wnd;
	c->state = ZN_TCP_SYN_RCVD;
	c->parent = l;
	if (l->aq_tail)
		l->aq_tail->aq_next = c;
	else
		l->aq_head = c;
	l->aq_tail = c;
	l->nq++;
	l->nembryo++;
	zn_tcp_hash_add(c);
	c->cc->init(c);
	zn_tcp_send_syn(c);
}

static void established(struct zn_tcp_conn *c)
{
	c->state = ZN_TCP_ESTABLISHED;
	c->nrexmit = 0;
	zn_tcp_rack_init(c);
	if (!c->srtt)
		c->rto = c->t->env.rto_init_ns;
	if (c->parent) {
		c->parent->nembryo--;
		zn_tcp_event(c->parent, ZN_TCP_EV_ACCEPT);
	} else {
		zn_tcp_event(c, ZN_TCP_EV_CONNECTED | ZN_TCP_EV_WRITABLE);
	}
}

static void rtt_from(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h)
{
	if (c->ts_ok && h->has_ts && h->tsecr) {
		uint32_t ms = zn_tcp_tsval(c->t) - h->tsecr;

		if (ms < 60000)
			zn_tcp_rtt_sample(c, (uint64_t)ms * 1000000u);
	} else if (c->rtt_timing && seq_ge(h->ack, c->rtt_seq)) {
		c->rtt_timing = false;
		zn_tcp_rtt_sample(c, zn_tcp_now(c->t) - c->rtt_start);
	}
}

static void syn_sent_input(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h)
{
	bool ack = h->flags & ZN_TCP_ACK;

	if (ack && (seq_le(h->ack, c->iss) || seq_gt(h->ack, c->snd_max))) {
		if (!(h->flags & ZN_TCP_RST)) {
			struct zn_tcp_hdr r = *h;

			zn_tcp_send_rst_for(c->t, c->rip, c->lip, &r, h->hlen);
		}
		return;
	}
	if (h->flags & ZN_TCP_RST) {
		if (ack)
			zn_tcp_done(c, -ECONNREFUSED);
		return;
	}
	if (!(h->flags & ZN_TCP_SYN))
		return;
	syn_options(c, h);
	c->snd_wnd = h->wnd;	/* a SYN's window is never scaled */
	c->snd_wl1 = h->seq;
	c->snd_wl2 = h->ack;
	c->max_wnd = c->snd_wnd;
	if (!ack) {
		/* simultaneous open: our SYN again, with the ACK of theirs */
		c->state = ZN_TCP_SYN_RCVD;
		zn_tcp_send_syn(c);
		return;
	}
	c->snd_una = h->ack;
	rtt_from(c, h);
	c->rto_at = c->unacked_since = 0;
	c->cc->init(c);
	established(c);
	c->ack_now = true;
	zn_tcp_output(c);
}

/* RFC 9293 3.10.7.4 first: is any of the segment inside our window? */
static bool acceptable(const struct zn_tcp_conn *c, uint32_t seq, uint32_t slen)
{
	uint32_t wnd = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;

	if (!slen)
		return wnd ? seq_ge(seq, c->rcv_nxt) && seq_lt(seq, c->rcv_nxt + wnd) :
			     seq == c->rcv_nxt;
	if (!wnd)
		return false;
	return (seq_ge(seq, c->rcv_nxt) && seq_lt(seq, c->rcv_nxt + wnd)) ||
	       (seq_ge(seq + slen - 1, c->rcv_nxt) && seq_lt(seq + slen - 1, c->rcv_nxt + wnd));
}

static void on_rst(struct zn_tcp_conn *c)
{
	switch (c->state) {
	case ZN_TCP_SYN_RCVD:
		/* a passive child just goes; an active one was refused */
		zn_tcp_done(c, c->parent ? -ECONNRESET : -ECONNREFUSED);
		break;
	case ZN_TCP_CLOSING:
	case ZN_TCP_LAST_ACK:
	case ZN_TCP_TIME_WAIT:
		zn_tcp_done(c, 0);
		break;
	default:
		zn_tcp_done(c, -ECONNRESET);
		break;
	}
}

static bool fin_acked(const struct zn_tcp_conn *c)
{
	return c->fin_queued && seq_gt(c->snd_una, c->snd_end);
}

/* snd_una moves to ack: cookies, RTT, congestion window, timers. */
static void new_ack(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h)
{
	uint32_t acked = h->ack - c->snd_una;

	c->snd_una = h->ack;
	if (seq_lt(c->snd_nxt, c->snd_una))
		c->snd_nxt = c->snd_una;
	rtt_from(c, h);
	c->nrexmit = 0;
	zn_tcp_sb_acked(c);
	if (c->in_recovery) {
		if (seq_ge(h->ack, c->recover)) {
			/* RFC 6675 5 (4.1), RFC 6582 3.2 step 3 */
			c->in_recovery = false;
			c->cc->on_recovered(c);
		} else if (c->sack_ok) {
			/* RFC 6675 5 (C): a partial ACK moves pipe, not cwnd; the
			 * output resends by NextSeg */
		} else {
			/* RFC 6582 3.2 step 5: a partial ACK resends the next hole */
			zn_tcp_retransmit(c);
			c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
			c->cwnd += c->mss;
		}
	} else {
		c->cc->on_ack(c, acked);
	}
	c->dupacks = 0;
	zn_tcp_tx_acked(c);
	c->rto_at = 0;
	c->unacked_since = 0;	/* the ACKs moved: the user timeout starts again */
	if (c->snd_una != c->snd_max)
		zn_tcp_rto_arm(c);
	if (c->txq_tail - c->txq_head < TCP_TXQ)
		zn_tcp_event(c, ZN_TCP_EV_WRITABLE);
}

static void dup_ack(struct zn_tcp_conn *c)
{
	struct zn_tcp *t = c->t;

	t->st.dup_acks++;
	c->dupacks++;
	if (c->sack_ok)
		return;		/* sack_ack decides, after RACK */
	if (c->dupacks == TCP_DUPACK_THRESH && !c->in_recovery &&
	    seq_gt(c->snd_una, c->recover)) {
		/* RFC 6582 3.2 steps 2-3: fast retransmit, then fast recovery */
		c->in_recovery = true;
		c->recover = c->snd_max;
		c->cc->on_loss(c);
		t->st.fast_retrans++;
		zn_tcp_retransmit(c);
		zn_tcp_rto_arm(c);
	} else if (c->dupacks > TCP_DUPACK_THRESH && c->in_recovery) {
		c->cwnd += c->mss;	/* each dup ACK: one segment left the network */
	}
}

/*
 * With SACK, after the scoreboard took the ACK: RACK (tcp_rack.c), then
 * RFC 6675 5 (1), (2): DupThresh duplicates, or IsLost(HighACK + 1)
 * before them (one RX aggregate, TPA or GRO, after a hole makes the
 * receiver send one ACK where its frames would have made one each, and
 * the scoreboard counts the bytes it SACKs), or RACK's time rule, start
 * recovery; 5.1: never again before HighACK reaches RecoveryPoint.
 */
static void sack_ack(struct zn_tcp_conn *c, uint32_t old_una, uint32_t fresh_hi, bool dsack,
		     const struct zn_tcp_hdr *h)
{
	zn_tcp_rack_acked(c, old_una, fresh_hi, dsack, h);
	zn_tcp_sack_check(c);
	zn_tcp_tlp_arm(c);
}

/* Step five: false when the segment must be dropped. */
static bool ack_input(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h, uint32_t dlen)
{
	uint32_t wnd, fresh, fresh_hi, old_una;
	bool dsack;

	if (c->state == ZN_TCP_SYN_RCVD) {
		if (!(seq_lt(c->snd_una, h->ack) && seq_le(h->ack, c->snd_max))) {
			zn_tcp_send_rst_for(c->t, c->rip, c->lip, h, h->hlen);
			return false;
		}
		c->snd_una = h->ack;
		c->snd_nxt = seq_lt(c->snd_nxt, c->snd_una) ? c->snd_una : c->snd_nxt;
		c->snd_wnd = (uint32_t)h->wnd << c->snd_ws;
		c->snd_wl1 = h->seq;
		c->snd_wl2 = h->ack;
		c->max_wnd = c->snd_wnd;
		rtt_from(c, h);
		c->rto_at = c->unacked_since = 0;
		established(c);
		if (c->state == ZN_TCP_CLOSED)
			return false;
	}
	/* RFC 5961 5.2: an ACK older than the largest window the peer offered
	 * is suspect; one for data we never sent is answered and dropped */
	if (seq_gt(h->ack, c->snd_max)) {
		zn_tcp_send_ack(c);
		return false;
	}
	if (seq_lt(h->ack, c->snd_una - c->max_wnd)) {
		challenge_ack(c);
		return false;
	}
	wnd = (uint32_t)h->wnd << c->snd_ws;
	fresh = zn_tcp_sb_update(c, h, &fresh_hi, &dsack);
	old_una = c->snd_una;
	if (seq_gt(h->ack, c->snd_una)) {
		new_ack(c, h);
		if (c->state == ZN_TCP_CLOSED)
			return false;
	} else if (h->ack == c->snd_una && !dlen && !(h->flags & (ZN_TCP_SYN | ZN_TCP_FIN)) &&
		   c->snd_una != c->snd_max) {
		/* RFC 6675 2: with SACK, an ACK that SACKs new data is a
		 * duplicate even when the window moved (held out-of-order data
		 * shrinks it) */
		if ((wnd && wnd == c->snd_wnd) || fresh || (h->nsack && c->nsb))
			dup_ack(c);
	}
	if (c->sack_ok && c->state != ZN_TCP_SYN_RCVD)
		sack_ack(c, old_una, fresh_hi, dsack, h);
	/* RFC 9293 3.10.7.4: the window from the newest segment only */
	if (seq_lt(c->snd_wl1, h->seq) || (c->snd_wl1 == h->seq && seq_le(c->snd_wl2, h->ack))) {
		bool opened = wnd > c->snd_wnd;

		c->snd_wnd = wnd;
		c->snd_wl1 = h->seq;
		c->snd_wl2 = h->ack;
		if (wnd > c->max_wnd)
			c->max_wnd = wnd;
		if (opened && c->persist_at) {
			c->persist_at = 0;
			c->rto = c->srtt ? c->rto : c->t->env.rto_init_ns;
		}
	}
	switch (c->state) {
	case ZN_TCP_FIN_WAIT_1:
		if (fin_acked(c))
			c->state = ZN_TCP_FIN_WAIT_2;
		break;
	case ZN_TCP_CLOSING:
		if (fin_acked(c))
			enter_time_wait(c);
		break;
	case ZN_TCP_LAST_ACK:
		if (fin_acked(c)) {
			zn_tcp_done(c, 0);
			return false;
		}
		break;
	default:
		break;
	}
	return true;
}

static void data_input(struct zn_tcp_conn *c, uint32_t seq, uint32_t dlen,
		       struct zn_udp_rx *d, bool *kept)
{
	struct zn_tcp *t = c->t;
	bool filled_hole = c->nooo > 0;

	if (!dlen || !d)
		return;
	if (seq != c->rcv_nxt) {
		*kept = zn_tcp_ooo_add(c, seq, d);
		/* RFC 5681 4.2: a dup ACK at once, one per frame of an RX
		 * aggregate up to DupThresh: what its frames would have made,
		 * so that a sender counting ACKs starts fast retransmit and one
		 * lost ACK does not leave it to its timer */
		for (uint32_t k = 1; k < d->frames && k < TCP_DUPACK_THRESH; k++)
			zn_tcp_send_ack(c);
		c->ack_now = true;
		return;
	}
	if (!zn_tcp_rxq_push(c, d)) {
		t->st.rx_ooo_drop++;
		c->ack_now = true;	/* the peer learns where we are and resends */
		return;
	}
	*kept = true;
	c->rcv_nxt += dlen;
	t->st.rx_bytes += dlen;
	zn_tcp_ooo_drain(c);
	zn_tcp_event(c, ZN_TCP_EV_READABLE);
	/* RFC 5681 4.2: an ACK for every second full segment; an RX
	 * aggregate counts its frames (delaying the ACK of one would stall a
	 * sender whose window fits in it for the delayed-ACK time) */
	c->unacked_segs += d->frames > 1 ? d->frames : 1;
	if (filled_hole || c->unacked_segs >= 2)
		c->ack_now = true;
	else if (!c->delack_at)
		c->delack_at = zn_tcp_now(t) + t->env.delack_ns;
}

static void fin_input(struct zn_tcp_conn *c)
{
	c->rcv_nxt++;
	c->fin_rcvd = true;
	c->ack_now = true;
	switch (c->state) {
	case ZN_TCP_SYN_RCVD:
	case ZN_TCP_ESTABLISHED:
		c->state = ZN_TCP_CLOSE_WAIT;
		break;
	case ZN_TCP_FIN_WAIT_1:
		if (fin_acked(c))
			enter_time_wait(c);
		else
			c->state = ZN_TCP_CLOSING;
		break;
	case ZN_TCP_FIN_WAIT_2:
	case ZN_TCP_TIME_WAIT:
		enter_time_wait(c);
		break;
	default:
		break;
	}
	zn_tcp_event(c, ZN_TCP_EV_READABLE);
}

void zn_tcp_input_conn(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h0, uint32_t dlen,
		       struct zn_udp_rx *d, bool *kept)
{
	struct zn_tcp *t = c->t;
	struct zn_tcp_hdr hh = *h0, *h = &hh;
	uint32_t seq = h->seq, slen, wnd;
	bool fin;

	if (d && d->len) {
		/* the queue whose buffers hold its data bounds its window */
		c->rx_q = d->queue;
		c->rx_q_known = true;
	}
	if (c->state == ZN_TCP_SYN_SENT) {
		syn_sent_input(c, h);
		return;
	}
	if (c->ka_on)
		zn_tcp_ka_heard(c, zn_tcp_now(t));
	/* SYN-RECEIVED and the peer's SYN again: alone, it lost our SYN-ACK
	 * (send it again); with an ACK of ours, it is the other half of a
	 * simultaneous open (RFC 9293 figure 7): the SYN is old news */
	if (c->state == ZN_TCP_SYN_RCVD && (h->flags & ZN_TCP_SYN) && h->seq == c->irs) {
		if (!(h->flags & ZN_TCP_ACK) || !seq_lt(c->snd_una, h->ack) ||
		    seq_gt(h->ack, c->snd_max)) {
			zn_tcp_retransmit(c);
			return;
		}
		h->flags &= (uint8_t)~ZN_TCP_SYN;
		h->seq++;
		seq++;
		c->ack_now = true;
	}
	/* RFC 7323 5.3: PAWS */
	if (c->ts_ok && h->has_ts && !(h->flags & ZN_TCP_RST) &&
	    (int32_t)(h->tsval - c->ts_recent) < 0) {
		t->st.rx_paws++;
		zn_tcp_send_ack(c);
		return;
	}
	slen = dlen + ((h->flags & ZN_TCP_SYN) ? 1 : 0) + ((h->flags & ZN_TCP_FIN) ? 1 : 0);
	if (!acceptable(c, seq, slen)) {
		t->st.rx_out_of_window++;
		if (seq_lt(seq + slen, c->rcv_nxt) || (slen && seq + slen == c->rcv_nxt))
			t->st.rx_dup++;
		/* RFC 9293 3.10.7.4: with a zero window no segment is acceptable,
		 * "but special allowance should be made to accept valid ACKs": the
		 * ACK of a segment at the left edge counts (its data is dropped),
		 * as Linux's tcp_sequence lets it in. Else a peer that keeps
		 * sending into our shut window, while our application waits for
		 * the ACK of its own data before it reads, deadlocks both ways. */
		if (slen && seq == c->rcv_nxt && !seq_gt(c->rcv_adv, c->rcv_nxt) &&
		    (h->flags & ZN_TCP_ACK) && !(h->flags & (ZN_TCP_RST | ZN_TCP_SYN)) &&
		    c->state != ZN_TCP_SYN_RCVD) {
			if (!ack_input(c, h, slen))
				return;
			c->ack_now = true;
			zn_tcp_output(c);
			return;
		}
		if (!(h->flags & ZN_TCP_RST))
			zn_tcp_send_ack(c);
		return;
	}
	/* RFC 7323 4.3: the timestamp to echo is the one of the segment
	 * holding the left edge */
	if (c->ts_ok && h->has_ts && seq_le(seq, c->rcv_nxt))
		c->ts_recent = h->tsval;
	if (h->flags & ZN_TCP_RST) {
		/* RFC 5961 3.2: only an exact match resets; else a challenge */
		if (seq == c->rcv_nxt)
			on_rst(c);
		else
			challenge_ack(c);
		return;
	}
	if (h->flags & ZN_TCP_SYN) {
		/* RFC 5961 4.2: a SYN in a synchronized state gets a challenge ACK */
		challenge_ack(c);
		return;
	}
	if (!(h->flags & ZN_TCP_ACK))
		return;
	/* trim to the window: the old front (already received), then what
	 * lies past the right edge (with the FIN it carried) */
	fin = h->flags & ZN_TCP_FIN;
	if (seq_lt(seq, c->rcv_nxt)) {
		uint32_t k = c->rcv_nxt - seq;

		if (k > dlen) {
			/* only the FIN is new, or nothing */
			k = dlen;
		}
		if (d && k)
			zn_tcp_rx_trim_front(t, d, k);
		dlen -= k;
		seq += k;
	}
	wnd = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
	if (seq_gt(seq + dlen, c->rcv_nxt + wnd)) {
		uint32_t keep = seq_gt(c->rcv_nxt + wnd, seq) ? c->rcv_nxt + wnd - seq : 0;

		t->st.rx_out_of_window++;
		if (d)
			zn_tcp_rx_trim_back(t, d, keep);
		dlen = keep;
		fin = false;
		c->ack_now = true;
	}
	if (!ack_input(c, h, dlen))
		return;
	switch (c->state) {
	case ZN_TCP_ESTABLISHED:
	case ZN_TCP_FIN_WAIT_1:
	case ZN_TCP_FIN_WAIT_2:
		data_input(c, seq, dlen, d, kept);
		break;
	default:
		break;
	}
	if (fin && seq + dlen == c->rcv_nxt && c->state != ZN_TCP_CLOSE_WAIT &&
	    c->state != ZN_TCP_CLOSING && c->state != ZN_TCP_LAST_ACK)
		fin_input(c);
	else if (fin && c->state == ZN_TCP_TIME_WAIT)
		c->ack_now = true;
	if (c->state == ZN_TCP_TIME_WAIT && fin)
		c->tw_at = zn_tcp_now(t) + t->env.time_wait_ns;
	zn_tcp_output(c);
}

void zn_tcp_input(struct zn_tcp *t, uint32_t src, uint32_t dst, const uint8_t *p,
		  uint32_t avail, uint32_t seg_len, const struct zn_udp_rx *d)
{
	struct zn_udp_rx work;
	struct zn_tcp_conn *c;
	struct zn_tcp_hdr h;
	enum zn_tcp_parse_err e;
	bool kept = false;
	uint32_t dlen;

	t->st.rx_segs++;
	if (d)
		work = *d;
	e = zn_tcp_parse(p, avail, seg_len, &h);
	if (e == ZN_TCP_PARSE_OK && d && d->len != seg_len - h.hlen)
		e = ZN_TCP_PARSE_SHORT;
	if (e != ZN_TCP_PARSE_OK) {
		t->st.rx_bad[e]++;
		goto out;
	}
	dlen = seg_len - h.hlen;
	if (dlen && !d) {
		t->st.rx_bad[ZN_TCP_PARSE_SHORT]++;
		goto out;
	}
	c = zn_tcp_lookup(t, dst, bswap16(h.dport), src, bswap16(h.sport));
	if (!c) {
		t->st.rx_no_conn++;
		zn_tcp_send_rst_for(t, src, dst, &h, seg_len);
		goto out;
	}
	if (c->state == ZN_TCP_LISTEN)
		listen_input(c, src, dst, &h, seg_len);
	else
		zn_tcp_input_conn(c, &h, dlen, d ? &work : NULL, &kept);
out:
	if (d && !kept && work.nseg)
		t->env.rx_put(t->env.ctx, &work);
}
