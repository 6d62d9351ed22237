/* SPDX-License-Identifier: MIT */
/*
 * Received data by reference: descriptors trimmed by moving their
 * segments' off/len (never copying payload), the in-order queue, and the
 * out-of-order queue (sorted, without overlaps, bounded in entries and in
 * bytes: a segment that does not fit is dropped and the peer resends it).
 */
#include <string.h>

#include "core/net/tcp_priv.h"

static void put_one(struct zn_tcp *t, const struct zn_udp_rx *d, uint32_t k)
{
	struct zn_udp_rx one = { .queue = d->queue, .nseg = 1 };

	one.seg[0] = d->seg[k];
	t->env.rx_put(t->env.ctx, &one);
}

/* t NULL: the buffers dropped from the front are someone else's now. */
void zn_tcp_rx_trim_front(struct zn_tcp *t, struct zn_udp_rx *d, uint32_t k)
{
	uint32_t drop = 0;

	if (k > d->len)
		k = d->len;
	d->len -= k;
	while (drop < d->nseg && k >= d->seg[drop].len && (k || !d->seg[drop].len)) {
		k -= d->seg[drop].len;
		if (t)
			put_one(t, d, drop);
		drop++;
	}
	if (drop) {
		memmove(&d->seg[0], &d->seg[drop], (d->nseg - drop) * sizeof(d->seg[0]));
		d->nseg = (uint16_t)(d->nseg - drop);
	}
	if (k && d->nseg) {
		d->seg[0].off += k;
		d->seg[0].len -= k;
	}
}

void zn_tcp_rx_trim_back(struct zn_tcp *t, struct zn_udp_rx *d, uint32_t len)
{
	uint32_t keep = 0, k;

	if (len >= d->len)
		return;
	d->len = len;
	for (k = 0; k < d->nseg && keep < len; k++) {
		if (keep + d->seg[k].len > len)
			d->seg[k].len = len - keep;
		keep += d->seg[k].len;
	}
	for (uint32_t j = k; j < d->nseg; j++)
		put_one(t, d, j);
	d->nseg = (uint16_t)k;
}

bool zn_tcp_rxq_push(struct zn_tcp_conn *c, const struct zn_udp_rx *d)
{
	struct zn_udp_rx *q;

	if (c->rxq_tail - c->rxq_head == TCP_RXQ)
		return false;
	q = &c->rxq[c->rxq_tail++ % TCP_RXQ];
	*q = *d;
	q->hdr = NULL;		/* valid only during the poll that brought it */
	q->hdr_len = 0;
	q->src.ip = c->rip;
	q->src.port = c->rport;
	c->rx_queued += d->len;
	return true;
}

static void ooo_remove(struct zn_tcp_conn *c, uint32_t i)
{
	c->ooo_bytes -= c->ooo[i].d.len;
	memmove(&c->ooo[i], &c->ooo[i + 1], (c->nooo - i - 1) * sizeof(c->ooo[0]));
	c->nooo--;
}

bool zn_tcp_ooo_add(struct zn_tcp_conn *c, uint32_t seq, struct zn_udp_rx *d)
{
	struct zn_tcp *t = c->t;
	uint32_t i, end = seq + d->len;

	/* the first entry after seq; its predecessor may overlap our front */
	for (i = 0; i < c->nooo && seq_le(c->ooo[i].seq, seq); i++)
		;
	if (i) {
		uint32_t pend = c->ooo[i - 1].seq + c->ooo[i - 1].d.len;

		if (seq_ge(pend, end)) {
			t->st.rx_dup++;
			return false;
		}
		if (seq_gt(pend, seq)) {
			zn_tcp_rx_trim_front(t, d, pend - seq);
			seq = pend;
		}
	}
	/* entries we cover whole go; one we reach into cuts our back */
	while (i < c->nooo && seq_lt(c->ooo[i].seq, end)) {
		struct tcp_ooo_ent *q = &c->ooo[i];

		if (seq_le(q->seq + q->d.len, end)) {
			t->env.rx_put(t->env.ctx, &q->d);
			ooo_remove(c, i);
			continue;
		}
		zn_tcp_rx_trim_back(t, d, q->seq - seq);
		end = seq + d->len;
		break;
	}
	if (!d->len || c->nooo == TCP_OOO_MAX || c->ooo_bytes + d->len > t->env.ooo_max) {
		t->st.rx_ooo_drop++;
		return false;
	}
	memmove(&c->ooo[i + 1], &c->ooo[i], (c->nooo - i) * sizeof(c->ooo[0]));
	c->ooo[i].seq = seq;
	c->ooo[i].d = *d;
	c->ooo[i].d.hdr = NULL;
	c->ooo[i].d.hdr_len = 0;
	c->nooo++;
	c->ooo_bytes += d->len;
	c->ooo_last = seq;
	t->st.rx_ooo++;
	return true;
}

void zn_tcp_ooo_drain(struct zn_tcp_conn *c)
{
	while (c->nooo && seq_le(c->ooo[0].seq, c->rcv_nxt)) {
		struct tcp_ooo_ent *q = &c->ooo[0];
		struct zn_udp_rx d;

		if (seq_le(q->seq + q->d.len, c->rcv_nxt)) {
			c->t->env.rx_put(c->t->env.ctx, &q->d);
			ooo_remove(c, 0);
			continue;
		}
		d = q->d;
		zn_tcp_rx_trim_front(c->t, &d, c->rcv_nxt - q->seq);
		if (!zn_tcp_rxq_push(c, &d)) {
			/* the in-order queue is full: keep it here, trimmed */
			c->ooo_bytes -= q->d.len - d.len;
			q->d = d;
			q->seq = c->rcv_nxt;
			break;
		}
		c->rcv_nxt += d.len;
		c->t->st.rx_bytes += d.len;
		ooo_remove(c, 0);
	}
}

void zn_tcp_ooo_free(struct zn_tcp_conn *c)
{
	for (uint32_t i = 0; i < c->nooo; i++)
		c->t->env.rx_put(c->t->env.ctx, &c->ooo[i].d);
	c->nooo = 0;
	c->ooo_bytes = 0;
}
