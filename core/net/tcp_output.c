/* SPDX-License-Identifier: MIT */
/*
 * Sending: segments cut from the send chunks by reference (the caller's
 * buffers, never copied), the windows (the peer's and cwnd), Nagle and
 * sender-side silly window avoidance (RFC 9293 3.7.4, 3.8.6.2.1), the
 * window we advertise (receiver SWS avoidance, 3.8.6.2.2), SYN, FIN, RST.
 */
#include <errno.h>
#include <string.h>

#include "core/net/tcp_priv.h"

/* The pieces covering [seq, seq + len) of the send chunks; the bytes
 * covered (fewer when the pieces ran out). */
static uint32_t gather(struct zn_tcp_conn *c, uint32_t seq, uint32_t len,
		       struct zn_tcp_out *o)
{
	uint32_t got = 0;

	o->npiece = 0;
	o->conn = c;
	o->ref_n = 0;
	for (uint32_t i = c->txq_head; i != c->txq_tail && got < len; i++) {
		const struct tcp_chunk *k = &c->txq[i % TCP_TXQ];
		uint32_t off;

		if (seq_ge(seq + got, k->seq + k->len))
			continue;
		if (o->npiece == ZN_TCP_OUT_PIECES)
			return got;
		if (!o->ref_n)
			o->ref_first = i;
		o->ref_n = i - o->ref_first + 1;
		off = seq + got - k->seq;
		for (uint32_t s = 0; s < k->nseg && got < len; s++) {
			uint32_t n;

			if (off >= k->seg[s].len) {
				off -= k->seg[s].len;
				continue;
			}
			if (o->npiece == ZN_TCP_OUT_PIECES)
				return got;
			n = k->seg[s].len - off;
			if (n > len - got)
				n = len - got;
			o->piece[o->npiece].iova = k->seg[s].iova + off;
			o->piece[o->npiece].va = (const uint8_t *)k->seg[s].va + off;
			o->piece[o->npiece].len = n;
			o->npiece++;
			got += n;
			off = 0;
		}
	}
	return got;
}

/* Keep the first len bytes of o's pieces (an LSO run cut back to whole
 * segments). */
static void trim(struct zn_tcp_out *o, uint32_t len)
{
	uint32_t got = 0;

	for (uint32_t k = 0; k < o->npiece; k++) {
		if (got + o->piece[k].len >= len) {
			o->piece[k].len = len - got;
			o->npiece = k + 1;
			return;
		}
		got += o->piece[k].len;
	}
}

/* The window field: what is free, never pulling the right edge back
 * (RFC 9293 3.8.6.2.2), opened only by an MSS or half the buffer. */
static uint16_t adv_window(struct zn_tcp_conn *c, bool syn)
{
	uint32_t wnd = zn_tcp_rcv_wnd(c), old = c->rcv_adv - c->rcv_nxt, step;

	if (syn) {
		wnd = wnd > 0xffff ? 0xffff : wnd;
		c->rcv_adv = c->rcv_nxt + wnd;
		return (uint16_t)wnd;
	}
	if (seq_lt(c->rcv_adv, c->rcv_nxt))
		old = 0;
	step = c->rcv_buf / 2 < c->mss ? c->rcv_buf / 2 : c->mss;
	if (wnd <= old || wnd - old < step)
		wnd = old;
	wnd >>= c->rcv_ws;
	if (wnd > 0xffff)
		wnd = 0xffff;
	if (seq_gt(c->rcv_nxt + (wnd << c->rcv_ws), c->rcv_adv))
		c->rcv_adv = c->rcv_nxt + (wnd << c->rcv_ws);
	return (uint16_t)wnd;
}

static void csum_fill(struct zn_tcp_out *o, uint8_t *h)
{
	uint32_t s = zn_ipv4_pseudo(o->src, o->dst, ZN_IPPROTO_TCP, (uint16_t)(o->hlen + o->len));
	uint32_t off = 0;
	uint16_t v;

	h[16] = h[17] = 0;
	s = zn_csum_fold(zn_csum_add(s, h, o->hlen));
	/* a piece after an odd length sits in the other byte of each word
	 * (RFC 1071 2(B)) */
	for (uint32_t k = 0; k < o->npiece; k++) {
		uint32_t ps = zn_csum_fold(zn_csum_add(0, o->piece[k].va, o->piece[k].len));

		s += off & 1 ? (uint16_t)__builtin_bswap16((uint16_t)ps) : ps;
		off += o->piece[k].len;
	}
	v = (uint16_t)~zn_csum_fold(s);
	memcpy(h + 16, &v, 2);
}

static int emit(struct zn_tcp *t, struct zn_tcp_out *o, uint8_t *h)
{
	int rc;

	o->hdr = h;
	if (t->env.tx_csum_offload)
		h[16] = h[17] = 0;	/* the device sums header and payload */
	else
		csum_fill(o, h);
	rc = t->env.output(t->env.ctx, o);
	if (rc < 0) {
		t->st.out_fail++;
		return rc;
	}
	t->st.tx_segs++;
	if (o->len) {
		t->st.tx_data_segs += o->mss ? (o->len + o->mss - 1) / o->mss : 1;
		t->st.tx_bytes += o->len;
	}
	return rc;
}

/* The output refused a segment (no TX slot, ARP pending): nothing went.
 * The connection tries again on the next poll (the NIC may have given
 * slots back), then after a wait that doubles while the refusals go on
 * (the retransmission timer still ends a connection whose output never
 * recovers); an ACK it carried is still owed. */
static void out_refused(struct zn_tcp_conn *c, bool syn)
{
	struct zn_tcp *t = c->t;
	uint64_t wait = c->out_backoff;

	c->out_backoff = wait ? wait * 2 : TCP_OUT_BACKOFF_MIN_NS;
	if (c->out_backoff > TCP_OUT_BACKOFF_MAX_NS)
		c->out_backoff = TCP_OUT_BACKOFF_MAX_NS;
	c->out_blocked = true;
	c->out_retry_at = zn_tcp_now(t) + wait;
	if (wait)
		t->st.out_deferred++;
	if (!syn) {
		c->ack_now = true;
		c->delack_at = 0;
	}
}

/* The payload one segment carries at most: the MSS less the options
 * beyond timestamps (SACK blocks), which it counts against (RFC 6691 2). */
static uint32_t seg_room(const struct zn_tcp_conn *c, uint32_t hlen)
{
	uint32_t base = ZN_TCP_HLEN + (c->ts_ok ? 12u : 0u), extra = hlen - base;

	return hlen > base && c->mss > extra ? c->mss - extra : c->mss;
}

/* One segment of c: [seq, seq + len) of the chunks, with flags. The
 * payload bytes it took, or < 0 when the output refused it (no TX slot:
 * the caller retries on the next poll). */
static int send_seg(struct zn_tcp_conn *c, uint32_t seq, uint32_t len, uint8_t flags)
{
	uint8_t h[ZN_TCP_MAX_HLEN];
	struct zn_tcp_out o = { .src = c->lip, .dst = c->rip };
	bool syn = flags & ZN_TCP_SYN;
	uint16_t wnd = adv_window(c, syn);
	uint32_t tsval = zn_tcp_tsval(c->t), room = c->mss;

	if (c->state != ZN_TCP_SYN_SENT || !syn)
		flags |= ZN_TCP_ACK;
	if (len) {
		uint32_t want = len;

		/* SACK blocks take payload room: each frame stays within the
		 * MTU (every frame of an LSO run carries these headers) */
		o.hlen = zn_tcp_write_hdr(c, h, seq, c->rcv_nxt, flags, wnd, syn, c->ts_ok, tsval);
		room = seg_room(c, o.hlen);
		if (len > room && want <= c->mss)
			len = room;
		len = gather(c, seq, len, &o);
		/* out of pieces before the end (many small chunks): the FIN
		 * belongs after bytes this segment does not carry */
		if (len < want) {
			flags &= (uint8_t)~ZN_TCP_FIN;
			/* an LSO run stays whole segments */
			if (want > c->mss && len > room && len % room) {
				len -= len % room;
				trim(&o, len);
			}
		}
	}
	o.len = len;
	o.mss = len > room ? room : 0;
	if (len && seq + len == c->snd_end)
		flags |= ZN_TCP_PSH;
	o.hlen = zn_tcp_write_hdr(c, h, seq, (flags & ZN_TCP_ACK) ? c->rcv_nxt : 0, flags, wnd,
				  syn, c->ts_ok, tsval);
	if (emit(c->t, &o, h) < 0) {
		out_refused(c, syn);
		return -EAGAIN;
	}
	c->out_backoff = 0;
	if (len)
		zn_tcp_rack_sent(c, seq, seq + len);
	if (len && c->t->env.tx_track) {
		/* the device reads these chunks until zn_tcp_tx_complete */
		for (uint32_t i = 0; i < o.ref_n; i++)
			c->txq[(o.ref_first + i) % TCP_TXQ].frames++;
		c->tx_frames++;
	}
	c->delack_at = 0;
	c->unacked_segs = 0;
	c->ack_now = false;
	return (int)len;
}

/* The sequence number of a segment without data: snd_nxt, or after a
 * go-back-N rewind (RTO) the highest sent, where the peer's RCV.NXT may be
 * already. An older one is out of the peer's window: it drops the segment
 * unread and answers with an ACK, and two ends rewound at once would drop
 * each other's ACKs forever. Only while that is inside the window the peer
 * last offered (a zero-length segment at or past its right edge is not
 * acceptable either, RFC 9293 3.10.7.4); a zero-window probe's byte does
 * not count (the peer may not have taken it). */
static uint32_t bare_seq(const struct zn_tcp_conn *c)
{
	if (seq_gt(c->snd_hi, c->snd_nxt) && seq_lt(c->snd_hi, c->snd_una + c->snd_wnd))
		return c->snd_hi;
	return c->snd_nxt;
}

void zn_tcp_send_ack(struct zn_tcp_conn *c)
{
	send_seg(c, bare_seq(c), 0, 0);
}

void zn_tcp_send_syn(struct zn_tcp_conn *c)
{
	send_seg(c, c->iss, 0, ZN_TCP_SYN);
	if (seq_lt(c->snd_nxt, c->iss + 1))
		c->snd_nxt = c->iss + 1;
	if (seq_lt(c->snd_max, c->snd_nxt))
		c->snd_max = c->snd_nxt;
	if (seq_lt(c->snd_hi, c->snd_nxt))
		c->snd_hi = c->snd_nxt;
	if (!c->rto_at)
		zn_tcp_rto_arm(c);
}

static bool fin_pending(const struct zn_tcp_conn *c)
{
	return c->fin_queued && (c->state == ZN_TCP_FIN_WAIT_1 || c->state == ZN_TCP_CLOSING ||
				 c->state == ZN_TCP_LAST_ACK);
}

/*
 * LSO: what one output may carry when a full MSS can go and more waits:
 * up to lso_max of what the windows allow, whole MSS segments but for a
 * tail that ends the data and that Nagle would let go at once (nodelay),
 * so that the wire sees the segments one MSS at a time would have made.
 */
static uint32_t lso_len(const struct zn_tcp_conn *c, uint32_t left, uint32_t avail)
{
	uint32_t len = left < avail ? left : avail;

	if (len > c->t->env.lso_max)
		len = c->t->env.lso_max;
	if (len < left || !c->nodelay)
		len -= len % c->mss;
	return len;
}

/* snd_nxt past what went (len bytes and the FIN in flags). */
static void advance(struct zn_tcp_conn *c, uint32_t len, uint8_t flags)
{
	c->snd_nxt += len + ((flags & ZN_TCP_FIN) ? 1 : 0);
	if (seq_gt(c->snd_nxt, c->snd_max))
		c->snd_max = c->snd_nxt;
	if (seq_gt(c->snd_nxt, c->snd_hi))
		c->snd_hi = c->snd_nxt;
}

void zn_tcp_output(struct zn_tcp_conn *c)
{
	bool sent = false, sack_rec;
	int rc;

	c->out_blocked = false;
	if (c->rexmit_pending) {
		/* a refused retransmission goes before anything new */
		zn_tcp_retransmit(c);
		if (c->rexmit_pending)
			return;
	}
	switch (c->state) {
	case ZN_TCP_ESTABLISHED:
	case ZN_TCP_CLOSE_WAIT:
	case ZN_TCP_FIN_WAIT_1:
	case ZN_TCP_CLOSING:
	case ZN_TCP_LAST_ACK:
		break;
	default:
		if (c->ack_now)
			zn_tcp_send_ack(c);
		return;
	}
	/* RFC 6675 NextSeg's order: lost holes (rule 1), new data (2), then
	 * other holes (3) and a rescue (4) */
	sack_rec = c->in_recovery && c->sack_ok;
	if (sack_rec) {
		rc = zn_tcp_sack_output(c, TCP_NEXTSEG_LOST);
		if (rc < 0)
			return;
		sent = rc > 0;
	}
	for (;;) {
		uint32_t wnd = c->snd_wnd < c->cwnd ? c->snd_wnd : c->cwnd;
		uint32_t flight = c->snd_nxt - c->snd_una, avail, left, len, gap = UINT32_MAX;
		uint8_t flags = 0;

		if (c->nsb && seq_lt(c->snd_nxt, c->snd_max)) {
			/* going back after a timeout: what the peer SACKed stays
			 * (RFC 6675 5.1) */
			gap = zn_tcp_sb_next_sacked(c, &c->snd_nxt);
			flight = c->snd_nxt - c->snd_una;
		}
		if (sack_rec) {
			/* (C): cwnd - pipe, and the peer's window by sequence */
			uint32_t pipe = zn_tcp_sb_pipe(c);

			avail = c->cwnd > pipe ? c->cwnd - pipe : 0;
			if (avail > (c->snd_wnd > flight ? c->snd_wnd - flight : 0))
				avail = c->snd_wnd > flight ? c->snd_wnd - flight : 0;
		} else {
			/* SACKed bytes left the network (RFC 3042's limited
			 * transmit, by bytes) */
			uint32_t f = flight - zn_tcp_sb_sacked_below(c, c->snd_nxt);

			avail = wnd > f ? wnd - f : 0;
			if (avail > (c->snd_wnd > flight ? c->snd_wnd - flight : 0))
				avail = c->snd_wnd > flight ? c->snd_wnd - flight : 0;
		}
		left = seq_lt(c->snd_nxt, c->snd_end) ? c->snd_end - c->snd_nxt : 0;
		len = left < c->mss ? left : c->mss;
		if (len > avail)
			len = avail;
		if (len < left && len < c->mss) {
			/* sender SWS: a runt only if it is half the largest window */
			if (len < c->max_wnd / 2 || !len)
				len = 0;
		} else if (len && len < c->mss && (c->cork || c->more)) {
			len = 0;	/* corked: the runt waits for more */
		} else if (len && len < c->mss && flight && !c->nodelay) {
			len = 0;	/* Nagle: one runt in flight at a time */
		}
		if (len == c->mss && left > len && avail > len && c->t->env.lso_max > len)
			len = lso_len(c, left, avail);
		if (len > gap)
			len = gap;
		if (fin_pending(c) && c->snd_nxt + len == c->snd_end && seq_le(c->snd_max, c->snd_end))
			flags |= ZN_TCP_FIN;
		else if (fin_pending(c) && c->snd_nxt + len == c->snd_end &&
			 c->snd_nxt != c->snd_max)
			flags |= ZN_TCP_FIN;	/* resending after RTO: the FIN again */
		if (!len && !(flags & ZN_TCP_FIN))
			break;
		rc = send_seg(c, c->snd_nxt, len, flags);
		if (rc < 0) {
			/* nothing went: retried after a wait (out_refused); the
			 * timer ends a connection whose output never recovers */
			if (!c->rto_at)
				zn_tcp_rto_arm(c);
			return;
		}
		if ((uint32_t)rc < len)
			flags &= (uint8_t)~ZN_TCP_FIN;	/* send_seg left it off */
		len = (uint32_t)rc;
		if (len && seq_lt(c->snd_nxt, c->snd_max))
			c->t->st.retrans++;
		if (!c->rtt_timing && !c->ts_ok && len && c->snd_nxt == c->snd_max) {
			c->rtt_timing = true;
			c->rtt_seq = c->snd_nxt + len;
			c->rtt_start = zn_tcp_now(c->t);
		}
		advance(c, len, flags);
		sent = true;
		if (!c->rto_at)
			zn_tcp_rto_arm(c);
		if (flags & ZN_TCP_FIN)
			break;
	}
	if (sack_rec && c->in_recovery && !c->out_blocked) {
		rc = zn_tcp_sack_output(c, TCP_NEXTSEG_UNSACKED | TCP_NEXTSEG_RESCUE);
		if (rc < 0)
			return;
		sent = sent || rc > 0;
	}
	/* data waiting and nothing in flight to time out: the persist timer
	 * probes a shut window (3.8.6.1) and one too small for an MSS (sender
	 * SWS holds the runt), or a lost window update would leave the
	 * connection with no timer at all */
	if (seq_lt(c->snd_nxt, c->snd_end) && c->snd_nxt == c->snd_una && !c->persist_at &&
	    !c->out_blocked && !c->cork && !c->more) {
		c->rto_at = 0;
		c->persist_at = zn_tcp_now(c->t) + c->rto;
	}
	if (sent && !c->tlp_out)
		zn_tcp_tlp_arm(c);
	if (!sent && c->ack_now)
		zn_tcp_send_ack(c);
}

int zn_tcp_send_tlp(struct zn_tcp_conn *c, bool *rexmit)
{
	uint32_t left = seq_lt(c->snd_nxt, c->snd_end) ? c->snd_end - c->snd_nxt : 0;
	uint32_t flight = c->snd_nxt - c->snd_una, seq;
	uint32_t room = c->snd_wnd > flight ? c->snd_wnd - flight : 0, len;
	uint8_t flags = 0;
	int rc;

	len = left < c->mss ? left : c->mss;
	if (len > room)
		len = 0;
	if (len && c->snd_nxt == c->snd_max) {
		if (fin_pending(c) && c->snd_nxt + len == c->snd_end)
			flags |= ZN_TCP_FIN;
		rc = send_seg(c, c->snd_nxt, len, flags);
		if (rc < 0)
			return rc;
		if ((uint32_t)rc < len)
			flags &= (uint8_t)~ZN_TCP_FIN;
		advance(c, (uint32_t)rc, flags);
		*rexmit = false;
		return rc;
	}
	seq = c->snd_max - c->snd_una > c->mss ? c->snd_max - c->mss : c->snd_una;
	*rexmit = true;
	return zn_tcp_send_range(c, seq, c->snd_max - seq);
}

void zn_tcp_retransmit(struct zn_tcp_conn *c)
{
	c->rexmit_pending = false;
	if (c->state == ZN_TCP_SYN_SENT || c->state == ZN_TCP_SYN_RCVD) {
		if (send_seg(c, c->iss, 0, ZN_TCP_SYN) >= 0)
			c->t->st.retrans++;
		else
			c->rexmit_pending = true;
		return;
	}
	/* refused: resent when the output takes segments again, not by new
	 * data going first */
	if (zn_tcp_send_range(c, c->snd_una, c->mss) < 0)
		c->rexmit_pending = true;
}

int zn_tcp_send_range(struct zn_tcp_conn *c, uint32_t seq, uint32_t len)
{
	uint32_t data = seq_lt(seq, c->snd_end) ? c->snd_end - seq : 0;
	uint8_t flags = 0;
	int rc;

	if (data > len)
		data = len;
	if (fin_pending(c) && seq + data == c->snd_end && seq_gt(c->snd_max, c->snd_end))
		flags |= ZN_TCP_FIN;
	if (!data && !flags)
		return 0;
	c->rtt_timing = false;	/* Karn: no sample from a resent segment */
	rc = send_seg(c, seq, data, flags);
	if (rc < 0)
		return rc;
	c->t->st.retrans++;
	return rc + ((flags & ZN_TCP_FIN) && (uint32_t)rc == data ? 1 : 0);
}

/* RFC 9293 3.8.6.1: the next byte past the shut window keeps the peer
 * answering with its window. snd_nxt stays (nothing is in flight for the
 * retransmission timer); snd_max covers the byte so that its ACK counts. */
void zn_tcp_send_probe(struct zn_tcp_conn *c)
{
	c->t->st.zwp++;
	send_seg(c, c->snd_una, 1, 0);
	if (seq_gt(c->snd_una + 1, c->snd_max))
		c->snd_max = c->snd_una + 1;
}

void zn_tcp_send_keepalive(struct zn_tcp_conn *c)
{
	c->t->st.keepalive_probes++;
	send_seg(c, c->snd_una - 1, 0, 0);
}

/* A window too small for an MSS: a segment the peer answers with its
 * window, without data (a runt would take a whole receive buffer of a
 * zcrx area that the window's estimate counts as an MSS). */
void zn_tcp_send_wnd_probe(struct zn_tcp_conn *c)
{
	c->t->st.zwp++;
	send_seg(c, c->snd_una - 1, 0, 0);
}

void zn_tcp_send_rst_for(struct zn_tcp *t, uint32_t src, uint32_t dst,
			 const struct zn_tcp_hdr *h, uint32_t seg_len)
{
	struct zn_tcp_conn c = { .t = t, .lip = dst, .rip = src };
	struct zn_tcp_out o = { .src = dst, .dst = src };
	uint8_t b[ZN_TCP_MAX_HLEN];
	uint32_t dlen = seg_len - h->hlen;

	if (h->flags & ZN_TCP_RST)
		return;		/* never answer a RST */
	c.lport = __builtin_bswap16(h->dport);
	c.rport = __builtin_bswap16(h->sport);
	if (h->flags & ZN_TCP_ACK) {
		o.hlen = zn_tcp_write_hdr(&c, b, h->ack, 0, ZN_TCP_RST, 0, false, false, 0);
	} else {
		uint32_t ack = h->seq + dlen + ((h->flags & ZN_TCP_SYN) ? 1 : 0) +
			       ((h->flags & ZN_TCP_FIN) ? 1 : 0);

		o.hlen = zn_tcp_write_hdr(&c, b, 0, ack, ZN_TCP_RST | ZN_TCP_ACK, 0, false, false,
					  0);
	}
	t->st.tx_rst++;
	emit(t, &o, b);
}

void zn_tcp_send_rst(struct zn_tcp_conn *c)
{
	uint8_t b[ZN_TCP_MAX_HLEN];
	struct zn_tcp_out o = { .src = c->lip, .dst = c->rip };

	o.hlen = zn_tcp_write_hdr(c, b, bare_seq(c), c->rcv_nxt, ZN_TCP_RST | ZN_TCP_ACK, 0, false,
				  false, 0);
	c->t->st.tx_rst++;
	emit(c->t, &o, b);
}

void zn_tcp_tx_acked(struct zn_tcp_conn *c)
{
	while (c->txq_head != c->txq_tail) {
		struct tcp_chunk *k = &c->txq[c->txq_head % TCP_TXQ];

		if (!k->over) {
			if (seq_lt(c->snd_una, k->seq + k->len))
				break;
			k->over = true;
			k->status = 0;
		}
		if (k->frames) {
			/* acknowledged, but a (re)transmission still points into
			 * it: the buffer is not the caller's yet */
			if (!k->late)
				c->t->st.tx_done_late++;
			k->late = true;
			break;
		}
		c->txq_head++;
		if (c->cb.tx_done)
			c->cb.tx_done(c->cb.arg, c, k->cookie, k->status);
	}
}

void zn_tcp_tx_complete(struct zn_tcp *t, struct zn_tcp_conn *c, uint32_t ref_first,
			uint32_t ref_n)
{
	(void)t;
	for (uint32_t i = 0; i < ref_n; i++) {
		uint32_t idx = ref_first + i;

		/* chunks a frame points into stay in the ring until it is back */
		if (idx - c->txq_head < c->txq_tail - c->txq_head &&
		    c->txq[idx % TCP_TXQ].frames)
			c->txq[idx % TCP_TXQ].frames--;
	}
	if (c->tx_frames)
		c->tx_frames--;
	zn_tcp_tx_acked(c);
	if (c->zombie && !c->tx_frames)
		zn_tcp_conn_free(c);
}
