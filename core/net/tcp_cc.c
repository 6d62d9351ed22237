/* SPDX-License-Identifier: MIT */
/*
 * Congestion control behind struct zn_tcp_cc_ops. NewReno (RFC 5681 slow
 * start and congestion avoidance, RFC 6582 fast recovery); CUBIC (RFC 9438)
 * is meant to plug in beside it.
 */
#include "core/net/tcp_priv.h"

static uint32_t flight(const struct zn_tcp_conn *c)
{
	return c->snd_max - c->snd_una;
}

/* RFC 5681 3.1: IW = 2..4 segments by MSS (RFC 3390's rule). */
static void reno_init(struct zn_tcp_conn *c)
{
	c->cwnd = c->mss > 2190 ? 2 * c->mss : c->mss > 1095 ? 3 * c->mss : 4 * c->mss;
	c->ssthresh = UINT32_MAX;
}

static void reno_on_ack(struct zn_tcp_conn *c, uint32_t acked)
{
	if (c->cwnd < c->ssthresh) {
		/* slow start, with appropriate byte counting capped at one MSS (RFC 3465) */
		c->cwnd += acked < c->mss ? acked : c->mss;
	} else {
		uint32_t inc = (uint32_t)((uint64_t)c->mss * c->mss / c->cwnd);

		c->cwnd += inc ? inc : 1;
	}
}

static void reno_on_loss(struct zn_tcp_conn *c)
{
	uint32_t f = flight(c) / 2;

	c->ssthresh = f > 2 * c->mss ? f : 2 * c->mss;
	c->cwnd = c->ssthresh + TCP_DUPACK_THRESH * c->mss;
}

static void reno_on_recovered(struct zn_tcp_conn *c)
{
	/* RFC 6582 3.2 step 3: deflate to ssthresh (or flight + MSS if less) */
	uint32_t f = flight(c) + c->mss;

	c->cwnd = f < c->ssthresh ? f : c->ssthresh;
}

static void reno_on_rto(struct zn_tcp_conn *c)
{
	uint32_t f = flight(c) / 2;

	/* RFC 5681 (4): only the first timeout of a loss cuts ssthresh */
	if (!c->nrexmit || c->ssthresh == UINT32_MAX)
		c->ssthresh = f > 2 * c->mss ? f : 2 * c->mss;
	c->cwnd = c->mss;
}

const struct zn_tcp_cc_ops zn_tcp_newreno = {
	.name = "newreno",
	.init = reno_init,
	.on_ack = reno_on_ack,
	.on_loss = reno_on_loss,
	.on_recovered = reno_on_recovered,
	.on_rto = reno_on_rto,
};
