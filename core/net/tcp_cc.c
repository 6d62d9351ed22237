/* SPDX-License-Identifier: MIT */
/*
 * Congestion control behind struct zn_tcp_cc_ops. NewReno (RFC 5681 slow
 * start and congestion avoidance, RFC 6582 fast recovery), whose slow start
 * and recovery exit CUBIC (tcp_cubic.c) shares.
 */
#include <errno.h>
#include <string.h>

#include "core/net/tcp_priv.h"

static uint32_t flight(const struct zn_tcp_conn *c)
{
	return c->snd_max - c->snd_una;
}

/* RFC 5681 3.1: IW = 2..4 segments by MSS (RFC 3390's rule). */
void zn_tcp_reno_init(struct zn_tcp_conn *c)
{
	c->cwnd = c->mss > 2190 ? 2 * c->mss : c->mss > 1095 ? 3 * c->mss : 4 * c->mss;
	c->ssthresh = UINT32_MAX;
}

/* slow start, with appropriate byte counting capped at one MSS (RFC 3465) */
void zn_tcp_reno_slow_start(struct zn_tcp_conn *c, uint32_t acked)
{
	c->cwnd += acked < c->mss ? acked : c->mss;
}

static void reno_on_ack(struct zn_tcp_conn *c, uint32_t acked)
{
	if (c->cwnd < c->ssthresh) {
		zn_tcp_reno_slow_start(c, acked);
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

void zn_tcp_reno_on_recovered(struct zn_tcp_conn *c)
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
	.init = zn_tcp_reno_init,
	.on_ack = reno_on_ack,
	.on_loss = reno_on_loss,
	.on_recovered = zn_tcp_reno_on_recovered,
	.on_rto = reno_on_rto,
};

const struct zn_tcp_cc_ops *zn_tcp_cc_of(enum zn_tcp_cc which)
{
	switch (which) {
	case ZN_TCP_CC_CUBIC:
		return &zn_tcp_cubic;
	case ZN_TCP_CC_NEWRENO:
		return &zn_tcp_newreno;
	}
	return NULL;
}

int zn_tcp_set_cc(struct zn_tcp_conn *c, enum zn_tcp_cc which)
{
	const struct zn_tcp_cc_ops *ops = zn_tcp_cc_of(which);

	if (!c || !ops)
		return -EINVAL;
	c->cc = ops;
	/* CUBIC starts its epoch afresh from the window it inherits */
	memset(&c->cubic, 0, sizeof(c->cubic));
	return 0;
}

const char *zn_tcp_cc_name(const struct zn_tcp_conn *c)
{
	return c->cc->name;
}

uint32_t zn_tcp_cwnd(const struct zn_tcp_conn *c)
{
	return c->cwnd;
}

uint32_t zn_tcp_ssthresh(const struct zn_tcp_conn *c)
{
	return c->ssthresh;
}
