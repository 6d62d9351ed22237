/* SPDX-License-Identifier: MIT */
/*
 * CUBIC congestion control (RFC 9438), the engine's default as it is
 * Linux's. Windows are reckoned in segments (doubles: the engine runs in
 * user space, no fixed-point tables needed), time in seconds from the
 * start of the congestion avoidance epoch:
 *
 *   W_cubic(t) = C (t - K)^3 + W_max,  K = cbrt((W_max - cwnd_epoch) / C)   (4.2)
 *
 * Each ACK in congestion avoidance moves cwnd toward W_cubic(t + RTT),
 * clamped to [cwnd, 1.5 cwnd] (4.4, 4.5), unless the Reno-friendly
 * estimate W_est is ahead (4.3). A congestion event remembers W_max (with
 * fast convergence, 4.7) and cuts to beta = 0.7 (4.6). Slow start and the
 * end of fast recovery are NewReno's (tcp_cc.c).
 */
#include <math.h>

#include "core/net/tcp_priv.h"

#define CUBIC_C		0.4
#define CUBIC_BETA	0.7
#define CUBIC_BETA_PCT	70u	/* the same for the byte count of ssthresh */
/* 4.3: alpha_cubic = 3 (1 - beta) / (1 + beta) */
#define CUBIC_ALPHA	(3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA))

static double segs(const struct zn_tcp_conn *c, uint64_t bytes)
{
	return (double)bytes / (double)c->mss;
}

static double w_cubic(const struct tcp_cubic *q, double t)
{
	double d = t - q->k;

	return CUBIC_C * d * d * d + q->w_max;
}

static void cubic_init(struct zn_tcp_conn *c)
{
	zn_tcp_reno_init(c);
	c->cubic = (struct tcp_cubic){ 0 };
}

static void epoch_begin(struct zn_tcp_conn *c, uint64_t now)
{
	struct tcp_cubic *q = &c->cubic;

	q->epoch_start = now ? now : 1;
	q->cwnd_epoch = segs(c, c->cwnd);
	/* below W_max: concave back up to it; above (no loss yet, or the
	 * window was handed over): K < 0, convex from here */
	q->k = cbrt((q->w_max - q->cwnd_epoch) / CUBIC_C);
	q->w_est = q->cwnd_epoch;
}

static void cubic_on_ack(struct zn_tcp_conn *c, uint32_t acked)
{
	struct tcp_cubic *q = &c->cubic;
	uint64_t now = zn_tcp_now(c->t);
	double cwnd, t, rtt, target, w;

	if (c->cwnd < c->ssthresh) {
		zn_tcp_reno_slow_start(c, acked);
		return;
	}
	if (!q->epoch_start)
		epoch_begin(c, now);
	cwnd = segs(c, c->cwnd);
	t = (double)(now - q->epoch_start) / 1e9;
	rtt = (double)c->srtt / 1e6;
	/* 4.3: what Reno would have by now, at alpha_cubic per window */
	q->w_est += CUBIC_ALPHA * segs(c, acked) / cwnd;
	if (w_cubic(q, t) < q->w_est) {
		w = q->w_est;
	} else {
		target = w_cubic(q, t + rtt);
		if (target < cwnd)
			target = cwnd;
		if (target > 1.5 * cwnd)
			target = 1.5 * cwnd;
		/* 4.4/4.5: (target - cwnd) / cwnd per acknowledged segment */
		w = cwnd + (target - cwnd) / cwnd * segs(c, acked);
	}
	if (w > cwnd) {
		double bytes = w * (double)c->mss;

		c->cwnd = bytes >= (double)UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)bytes;
	}
}

/* 4.6 and 4.7: the congestion event; the window to cut from is cwnd. */
static void congestion_event(struct zn_tcp_conn *c)
{
	struct tcp_cubic *q = &c->cubic;
	double cwnd = segs(c, c->cwnd);
	uint32_t ss = (uint32_t)((uint64_t)c->cwnd * CUBIC_BETA_PCT / 100u);

	q->w_max = cwnd < q->w_max ? cwnd * (1.0 + CUBIC_BETA) / 2.0 : cwnd;
	q->epoch_start = 0;
	c->ssthresh = ss < 2 * c->mss ? 2 * c->mss : ss;
}

static void cubic_on_loss(struct zn_tcp_conn *c)
{
	congestion_event(c);
	/* fast recovery as RFC 6582 runs it: inflated by the three segments
	 * the duplicate ACKs say left the network */
	c->cwnd = c->ssthresh + TCP_DUPACK_THRESH * c->mss;
}

static void cubic_on_rto(struct zn_tcp_conn *c)
{
	/* 4.8: only the first timeout of a loss is a congestion event */
	if (!c->nrexmit || c->ssthresh == UINT32_MAX)
		congestion_event(c);
	c->cubic.epoch_start = 0;
	c->cwnd = c->mss;
}

const struct zn_tcp_cc_ops zn_tcp_cubic = {
	.name = "cubic",
	.init = cubic_init,
	.on_ack = cubic_on_ack,
	.on_loss = cubic_on_loss,
	.on_recovered = zn_tcp_reno_on_recovered,
	.on_rto = cubic_on_rto,
};
