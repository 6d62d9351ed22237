/* SPDX-License-Identifier: MIT */
/*
 * A connection's timers: retransmission (RFC 6298: SRTT/RTTVAR, backoff by
 * doubling, go-back-N from snd_una with cwnd at one segment), delayed ACK
 * (RFC 9293 3.8.6.3), persist (zero-window probes, 3.8.6.1) and TIME_WAIT.
 * Deadlines are absolute ns of the engine's clock; zn_tcp_poll runs them.
 */
#include <errno.h>

#include "core/net/tcp_priv.h"

#define CLOCK_G_NS	1000000ull	/* clock granularity G: the 1 ms timestamp tick */

void zn_tcp_rto_arm(struct zn_tcp_conn *c)
{
	c->rto_at = zn_tcp_now(c->t) + c->rto;
}

static uint64_t rto_clamp(const struct zn_tcp_conn *c, uint64_t rto)
{
	if (rto < c->t->env.rto_min_ns)
		rto = c->t->env.rto_min_ns;
	return rto > TCP_RTO_MAX_NS ? TCP_RTO_MAX_NS : rto;
}

void zn_tcp_rtt_sample(struct zn_tcp_conn *c, uint64_t rtt_ns)
{
	uint32_t r = (uint32_t)(rtt_ns / 1000u);	/* µs */
	uint64_t var;

	if (!r)
		r = 1;
	if (!c->srtt) {
		c->srtt = r;
		c->rttvar = r / 2;
	} else {
		uint32_t d = c->srtt > r ? c->srtt - r : r - c->srtt;

		c->rttvar = (3 * c->rttvar + d) / 4;
		c->srtt = (7 * c->srtt + r) / 8;
	}
	var = 4ull * c->rttvar * 1000u;
	c->rto = rto_clamp(c, (uint64_t)c->srtt * 1000u + (var > CLOCK_G_NS ? var : CLOCK_G_NS));
}

static void rto_fire(struct zn_tcp_conn *c, uint64_t now)
{
	struct zn_tcp *t = c->t;
	bool syn = c->state == ZN_TCP_SYN_SENT || c->state == ZN_TCP_SYN_RCVD;
	uint32_t limit = syn ? t->env.syn_retries : t->env.data_retries;

	c->rto_at = 0;
	t->st.rto_fired++;
	if (c->nrexmit >= limit) {
		zn_tcp_done(c, -ETIMEDOUT);
		return;
	}
	/* RFC 6298 5.5 and 5.6: back off, then resend the earliest segment */
	c->rto = rto_clamp(c, c->rto * 2);
	if (syn) {
		c->nrexmit++;
		zn_tcp_retransmit(c);
		c->rto_at = now + c->rto;
		return;
	}
	c->cc->on_rto(c);
	c->nrexmit++;
	c->in_recovery = false;
	c->dupacks = 0;
	c->rtt_timing = false;
	c->snd_nxt = c->snd_una;
	zn_tcp_output(c);
	if (!c->rto_at && c->snd_nxt != c->snd_una)
		c->rto_at = now + c->rto;
}

void zn_tcp_conn_timers(struct zn_tcp_conn *c, uint64_t now)
{
	if (c->out_blocked && now >= c->out_retry_at)
		zn_tcp_output(c);
	if (c->tw_at && now >= c->tw_at) {
		c->tw_at = 0;
		zn_tcp_done(c, 0);
		return;
	}
	if (c->delack_at && now >= c->delack_at)
		zn_tcp_send_ack(c);
	if (c->persist_at && now >= c->persist_at) {
		c->persist_at = 0;
		if (c->snd_wnd == 0 && seq_lt(c->snd_una, c->snd_end)) {
			zn_tcp_send_probe(c);
			c->rto = rto_clamp(c, c->rto * 2);
			c->persist_at = now + c->rto;
		} else {
			c->sws_override = true;
			zn_tcp_output(c);
		}
	}
	if (c->rto_at && now >= c->rto_at)
		rto_fire(c, now);
}
