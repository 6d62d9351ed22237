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
	uint64_t now = zn_tcp_now(c->t);

	c->rto_at = now + c->rto;
	if (!c->unacked_since)
		c->unacked_since = now;
	/* never past the user timeout (as Linux clamps its RTO to it) */
	if (c->user_timeout && c->rto_at > c->unacked_since + c->user_timeout)
		c->rto_at = c->unacked_since + c->user_timeout;
}

#define KA_IDLE_NS	(7200ull * 1000000000ull)	/* Linux's tcp_keepalive_time */
#define KA_INTVL_NS	(75ull * 1000000000ull)
#define KA_CNT		9

int zn_tcp_set_keepalive(struct zn_tcp_conn *c, bool on, uint32_t idle_ms, uint32_t intvl_ms,
			 uint32_t cnt)
{
	if (!c || (on && c->state == ZN_TCP_LISTEN))
		return -EINVAL;
	c->ka_on = on;
	c->ka_idle = idle_ms ? idle_ms * 1000000ull : KA_IDLE_NS;
	c->ka_intvl = intvl_ms ? intvl_ms * 1000000ull : KA_INTVL_NS;
	c->ka_cnt = cnt ? cnt : KA_CNT;
	c->ka_probes = 0;
	c->ka_at = 0;
	if (on)
		zn_tcp_ka_heard(c, zn_tcp_now(c->t));
	return 0;
}

void zn_tcp_set_user_timeout(struct zn_tcp_conn *c, uint32_t ms)
{
	c->user_timeout = ms * 1000000ull;
	if (c->rto_at)
		zn_tcp_rto_arm(c);
}

void zn_tcp_ka_heard(struct zn_tcp_conn *c, uint64_t now)
{
	c->last_rx = now;
	c->ka_probes = 0;
	c->ka_at = c->ka_on ? now + c->ka_idle : 0;
}

/* Probes only on an idle connection: with data in flight or waiting the
 * retransmission and persist timers watch the peer (as Linux does). */
static void ka_fire(struct zn_tcp_conn *c, uint64_t now)
{
	bool synced = c->state == ZN_TCP_ESTABLISHED || c->state == ZN_TCP_CLOSE_WAIT ||
		      c->state == ZN_TCP_FIN_WAIT_2;

	c->ka_at = 0;
	if (!c->ka_on || !synced)
		return;
	if (c->snd_una != c->snd_max || seq_lt(c->snd_nxt, c->snd_end)) {
		c->ka_at = now + c->ka_idle;
		return;
	}
	if (c->ka_probes >= c->ka_cnt) {
		c->t->st.keepalive_drops++;
		zn_tcp_send_rst(c);
		zn_tcp_done(c, -ETIMEDOUT);
		return;
	}
	c->ka_probes++;
	zn_tcp_send_keepalive(c);
	c->ka_at = now + c->ka_intvl;
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
	if (c->user_timeout && c->unacked_since && now >= c->unacked_since + c->user_timeout) {
		t->st.user_timeouts++;
		/* closed with data still unacknowledged: the linger bound ran
		 * out; the peer learns the rest will not come */
		if (c->user_closed && !syn)
			zn_tcp_send_rst(c);
		zn_tcp_done(c, -ETIMEDOUT);
		return;
	}
	if (c->nrexmit >= limit) {
		zn_tcp_done(c, -ETIMEDOUT);
		return;
	}
	/* RFC 6298 5.5 and 5.6: back off, then resend the earliest segment */
	c->rto = rto_clamp(c, c->rto * 2);
	if (syn) {
		c->nrexmit++;
		zn_tcp_retransmit(c);
		zn_tcp_rto_arm(c);
		return;
	}
	c->cc->on_rto(c);
	/* RFC 6675 5.1 (RFC 6582 4 alike): recovery ends; no new one before
	 * the ACKs reach what was sent. The scoreboard stays (resends skip
	 * what the peer holds) unless the timer fires again with no ACK in
	 * between: then nothing it says is trusted (a reneging peer) */
	c->recover = c->snd_max;
	if (c->nrexmit)
		zn_tcp_sb_clear(c);
	c->rack_at = c->tlp_at = 0;
	c->tlp_out = false;
	c->nrexmit++;
	c->in_recovery = false;
	c->dupacks = 0;
	c->rtt_timing = false;
	c->snd_nxt = c->snd_una;
	zn_tcp_output(c);
	if (!c->rto_at && c->snd_nxt != c->snd_una)
		zn_tcp_rto_arm(c);
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
		} else if (c->snd_wnd < c->mss && seq_lt(c->snd_nxt, c->snd_end) &&
			   c->snd_nxt == c->snd_una) {
			zn_tcp_send_wnd_probe(c);
			c->rto = rto_clamp(c, c->rto * 2);
			c->persist_at = now + c->rto;
		} else {
			zn_tcp_output(c);
		}
	}
	if (c->rack_at && now >= c->rack_at && c->state != ZN_TCP_CLOSED)
		zn_tcp_rack_timer(c, now);
	if (c->tlp_at && now >= c->tlp_at && c->state != ZN_TCP_CLOSED)
		zn_tcp_tlp_fire(c);
	if (c->rto_at && now >= c->rto_at)
		rto_fire(c, now);
	else if (c->ka_at && now >= c->ka_at)
		ka_fire(c, now);
}
