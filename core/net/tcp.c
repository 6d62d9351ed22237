/* SPDX-License-Identifier: MIT */
/*
 * The TCP engine's tables and life cycle: the connection hash, ephemeral
 * ports, initial sequence numbers (RFC 6528), and the user calls (connect,
 * listen, accept, send, recv, shutdown, close).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/clock.h"
#include "core/net/tcp_priv.h"

uint64_t zn_tcp_now(const struct zn_tcp *t)
{
	return t->env.clock_ns ? t->env.clock_ns(t->env.ctx) : zn_now_ns();
}

/* The timestamp clock: 1 ms per tick (RFC 7323 5.4 asks 1 ms..1 s). */
uint32_t zn_tcp_tsval(const struct zn_tcp *t)
{
	return (uint32_t)(zn_tcp_now(t) / 1000000u);
}

/* ---- SipHash-2-4 (Aumasson, Bernstein), the keyed hash RFC 6528 asks for */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND						\
	do {							\
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0;		\
		v0 = ROTL(v0, 32);				\
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;		\
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;		\
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2;		\
		v2 = ROTL(v2, 32);				\
	} while (0)

/* SipHash of exactly 16 bytes (two words): all the 4-tuple needs. */
static uint64_t siphash16(const uint8_t key[16], uint64_t m0, uint64_t m1)
{
	uint64_t k0, k1, v0, v1, v2, v3, b = 16ull << 56;

	memcpy(&k0, key, 8);
	memcpy(&k1, key + 8, 8);
	v0 = k0 ^ 0x736f6d6570736575ull;
	v1 = k1 ^ 0x646f72616e646f6dull;
	v2 = k0 ^ 0x6c7967656e657261ull;
	v3 = k1 ^ 0x7465646279746573ull;
	v3 ^= m0; SIPROUND; SIPROUND; v0 ^= m0;
	v3 ^= m1; SIPROUND; SIPROUND; v0 ^= m1;
	v3 ^= b; SIPROUND; SIPROUND; v0 ^= b;
	v2 ^= 0xff;
	SIPROUND; SIPROUND; SIPROUND; SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* RFC 6528: ISN = M + F(4-tuple, secret), M a 4 µs clock. */
uint32_t zn_tcp_isn(const struct zn_tcp *t, uint32_t lip, uint16_t lport, uint32_t rip,
		    uint16_t rport)
{
	uint64_t m0 = (uint64_t)lip << 32 | rip, m1 = (uint64_t)lport << 16 | rport;

	return (uint32_t)(zn_tcp_now(t) / 4000u) + (uint32_t)siphash16(t->isn_key, m0, m1);
}

static uint32_t hash4(uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport)
{
	uint32_t h = lip * 0x9e3779b1u ^ rip * 0x85ebca6bu ^
		     ((uint32_t)lport << 16 | rport) * 0xc2b2ae35u;

	return (h ^ h >> 15) & (TCP_HASH - 1);
}

static uint32_t conn_hash(const struct zn_tcp_conn *c)
{
	/* listeners hash on the local port alone */
	return c->state == ZN_TCP_LISTEN ? hash4(0, c->lport, 0, 0) :
	       hash4(c->lip, c->lport, c->rip, c->rport);
}

struct zn_tcp_conn *zn_tcp_lookup(struct zn_tcp *t, uint32_t lip, uint16_t lport, uint32_t rip,
				  uint16_t rport)
{
	struct zn_tcp_conn *c;

	for (c = t->hash[hash4(lip, lport, rip, rport)]; c; c = c->hnext)
		if (c->state != ZN_TCP_LISTEN && c->lport == lport && c->rport == rport &&
		    c->rip == rip && c->lip == lip)
			return c;
	for (c = t->hash[hash4(0, lport, 0, 0)]; c; c = c->hnext)
		if (c->state == ZN_TCP_LISTEN && c->lport == lport)
			return c;
	return NULL;
}

void zn_tcp_hash_add(struct zn_tcp_conn *c)
{
	uint32_t b = conn_hash(c);

	c->hnext = c->t->hash[b];
	c->t->hash[b] = c;
	c->hashed = true;
}

static void hash_del(struct zn_tcp_conn *c)
{
	struct zn_tcp_conn **pp;

	if (!c->hashed)
		return;
	for (pp = &c->t->hash[conn_hash(c)]; *pp; pp = &(*pp)->hnext)
		if (*pp == c) {
			*pp = c->hnext;
			break;
		}
	c->hashed = false;
}

static bool port_used(struct zn_tcp *t, uint16_t port, uint32_t rip, uint16_t rport)
{
	struct zn_tcp_conn *c;

	if (zn_tcp_lookup(t, t->env.ip, port, rip, rport))
		return true;
	for (c = t->all; c; c = c->lnext)
		if (c->lport == port && c->state == ZN_TCP_LISTEN)
			return true;
	return false;
}

struct zn_tcp_conn *zn_tcp_conn_new(struct zn_tcp *t)
{
	struct zn_tcp_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->txq = calloc(TCP_TXQ, sizeof(*c->txq));
	c->rxq = calloc(TCP_RXQ, sizeof(*c->rxq));
	c->ooo = calloc(TCP_OOO_MAX, sizeof(*c->ooo));
	if (!c->txq || !c->rxq || !c->ooo) {
		free(c->txq);
		free(c->rxq);
		free(c->ooo);
		free(c);
		return NULL;
	}
	c->t = t;
	c->lip = t->env.ip;
	c->nodelay = t->env.nodelay;
	c->rcv_buf = t->env.rcv_buf;
	while (c->rcv_ws < TCP_MAX_WS && (c->rcv_buf >> c->rcv_ws) > 0xffff)
		c->rcv_ws++;
	c->mss = TCP_DEFAULT_MSS;
	c->rto = t->env.rto_init_ns;
	c->cc = zn_tcp_cc_of(t->env.cc);
	c->lnext = t->all;
	if (t->all)
		t->all->lprev = c;
	t->all = c;
	t->nconn++;
	return c;
}

void zn_tcp_conn_free(struct zn_tcp_conn *c)
{
	struct zn_tcp *t = c->t;

	hash_del(c);
	if (c->tx_frames && !t->destroying) {
		/* the device still reads from its chunks; zn_tcp_tx_complete
		 * frees it with the last one */
		c->zombie = true;
		return;
	}
	if (c->lprev)
		c->lprev->lnext = c->lnext;
	else
		t->all = c->lnext;
	if (c->lnext)
		c->lnext->lprev = c->lprev;
	t->nconn--;
	free(c->txq);
	free(c->rxq);
	free(c->ooo);
	free(c);
}

void zn_tcp_set_state(struct zn_tcp_conn *c, uint8_t st)
{
	c->state = st;
}

void zn_tcp_event(struct zn_tcp_conn *c, unsigned ev)
{
	if (c->cb.event)
		c->cb.event(c->cb.arg, c, ev);
}

static void rx_free_all(struct zn_tcp_conn *c)
{
	struct zn_tcp *t = c->t;

	for (; c->rxq_head != c->rxq_tail; c->rxq_head++)
		t->env.rx_put(t->env.ctx, &c->rxq[c->rxq_head % TCP_RXQ]);
	c->rx_queued = 0;
	zn_tcp_ooo_free(c);
}

/* Every chunk not acknowledged is over with err; each goes back once no
 * frame in the device points into it. */
static void tx_fail_all(struct zn_tcp_conn *c, int err)
{
	for (uint32_t i = c->txq_head; i != c->txq_tail; i++) {
		struct tcp_chunk *k = &c->txq[i % TCP_TXQ];

		if (!k->over) {
			k->over = true;
			k->status = err;
		}
		if (c->t->destroying)
			k->frames = 0;	/* the device is gone */
	}
	zn_tcp_tx_acked(c);
}

static void unlink_child(struct zn_tcp_conn *c)
{
	struct zn_tcp_conn *l = c->parent, **pp;

	if (!l)
		return;
	for (pp = &l->aq_head; *pp; pp = &(*pp)->aq_next)
		if (*pp == c) {
			*pp = c->aq_next;
			if (l->aq_tail == c) {
				l->aq_tail = NULL;
				for (struct zn_tcp_conn *x = l->aq_head; x; x = x->aq_next)
					l->aq_tail = x;
			}
			l->nq--;
			break;
		}
	if (c->state == ZN_TCP_SYN_RCVD)
		l->nembryo--;
	c->parent = NULL;
	c->user_closed = true;	/* nobody will accept it */
}

void zn_tcp_done(struct zn_tcp_conn *c, int err)
{
	bool was_embryo = c->parent != NULL;

	if (!c->err)
		c->err = err;
	tx_fail_all(c, err ? err : -EPIPE);
	zn_tcp_ooo_free(c);
	hash_del(c);
	if (c->parent)
		unlink_child(c);
	c->state = ZN_TCP_CLOSED;
	c->rto_at = c->delack_at = c->persist_at = c->tw_at = c->ka_at = 0;
	if (c->user_closed) {
		rx_free_all(c);
		zn_tcp_conn_free(c);
		return;
	}
	if (err && !was_embryo)
		zn_tcp_event(c, ZN_TCP_EV_ERROR | ZN_TCP_EV_READABLE);
}

int zn_tcp_create(const struct zn_tcp_env *env, struct zn_tcp **out)
{
	struct zn_tcp *t;
	uint16_t r;

	if (!env || !out || !env->output || !env->rx_put || !env->ip)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->env = *env;
	if (!t->env.mss)
		t->env.mss = 1460;
	if (!t->env.rcv_buf)
		t->env.rcv_buf = 4u << 20;
	if (!t->env.ooo_max)
		t->env.ooo_max = t->env.rcv_buf / 2;
	if (!t->env.time_wait_ns)
		t->env.time_wait_ns = 60ull * 1000000000ull;
	if (!t->env.rto_min_ns)
		t->env.rto_min_ns = 200ull * 1000000ull;
	if (!t->env.rto_init_ns)
		t->env.rto_init_ns = 1000000000ull;
	if (!t->env.delack_ns)
		t->env.delack_ns = 40ull * 1000000ull;
	if (!t->env.syn_retries)
		t->env.syn_retries = 6;
	if (!t->env.data_retries)
		t->env.data_retries = 15;
	if (!zn_tcp_cc_of(t->env.cc)) {
		free(t);
		return -EINVAL;
	}
	if (env->isn_key) {
		memcpy(t->isn_key, env->isn_key, sizeof(t->isn_key));
		r = (uint16_t)(env->isn_key[0] << 8 | env->isn_key[1]);
	} else {
		if (getrandom(t->isn_key, sizeof(t->isn_key), 0) != (ssize_t)sizeof(t->isn_key))
			for (unsigned i = 0; i < sizeof(t->isn_key); i++)
				t->isn_key[i] = (uint8_t)(zn_now_ns() >> (i % 8 * 8));
		memcpy(&r, t->isn_key, 2);
	}
	/* a random first ephemeral port (RFC 6056 3.2), then one after another */
	t->eph_next = (uint16_t)(TCP_EPH_LO + r % (TCP_EPH_HI - TCP_EPH_LO + 1));
	*out = t;
	return 0;
}

void zn_tcp_destroy(struct zn_tcp *t)
{
	if (!t)
		return;
	t->destroying = true;
	while (t->all) {
		struct zn_tcp_conn *c = t->all;

		c->user_closed = true;
		c->parent = NULL;
		zn_tcp_done(c, -ECONNABORTED);
	}
	free(t);
}

void zn_tcp_stats(const struct zn_tcp *t, struct zn_tcp_stats *st)
{
	*st = t->st;
}

static uint16_t bswap16(uint16_t v)
{
	return __builtin_bswap16(v);
}

int zn_tcp_conn_open(struct zn_tcp *t, uint16_t lport, const struct zn_addr4 *dst,
		   const struct zn_tcp_cb *cb, struct zn_tcp_conn **out)
{
	struct zn_tcp_conn *c;

	if (!t || !dst || !dst->ip || !dst->port || !out)
		return -EINVAL;
	if (lport) {
		if (port_used(t, lport, dst->ip, dst->port))
			return -EADDRINUSE;
	} else {
		uint32_t n = TCP_EPH_HI - TCP_EPH_LO + 1, i;

		for (i = 0; i < n; i++) {
			uint16_t p = t->eph_next;

			t->eph_next = p == TCP_EPH_HI ? TCP_EPH_LO : (uint16_t)(p + 1);
			if (!port_used(t, bswap16(p), dst->ip, dst->port)) {
				lport = bswap16(p);
				break;
			}
		}
		if (i == n)
			return -EADDRNOTAVAIL;
	}
	c = zn_tcp_conn_new(t);
	if (!c)
		return -ENOMEM;
	if (cb)
		c->cb = *cb;
	c->lport = lport;
	c->rip = dst->ip;
	c->rport = dst->port;
	c->iss = zn_tcp_isn(t, c->lip, c->lport, c->rip, c->rport);
	c->snd_una = c->snd_nxt = c->snd_max = c->snd_hi = c->recover = c->iss;
	c->snd_end = c->iss + 1;
	/* offer everything; what the SYN-ACK carries decides */
	c->ws_ok = c->ts_ok = c->sack_ok = true;
	c->state = ZN_TCP_SYN_SENT;
	zn_tcp_hash_add(c);
	c->cc->init(c);
	zn_tcp_send_syn(c);
	*out = c;
	return 0;
}

int zn_tcp_conn_listen(struct zn_tcp *t, uint16_t port, uint32_t backlog, const struct zn_tcp_cb *cb,
		  struct zn_tcp_conn **out)
{
	struct zn_tcp_conn *c;

	if (!t || !port || !out)
		return -EINVAL;
	for (c = t->all; c; c = c->lnext)
		if (c->lport == port && c->state != ZN_TCP_CLOSED)
			return -EADDRINUSE;
	c = zn_tcp_conn_new(t);
	if (!c)
		return -ENOMEM;
	if (cb)
		c->cb = *cb;
	c->lport = port;
	c->backlog = backlog ? backlog : 1;
	c->state = ZN_TCP_LISTEN;
	zn_tcp_hash_add(c);
	*out = c;
	return 0;
}

bool zn_tcp_accept_ready(const struct zn_tcp_conn *l)
{
	const struct zn_tcp_conn *c;

	if (!l || l->state != ZN_TCP_LISTEN)
		return false;
	for (c = l->aq_head; c && c->state == ZN_TCP_SYN_RCVD; c = c->aq_next)
		;
	return c != NULL;
}

int zn_tcp_conn_accept(struct zn_tcp_conn *l, const struct zn_tcp_cb *cb, struct zn_tcp_conn **out)
{
	struct zn_tcp_conn *c;

	if (!l || l->state != ZN_TCP_LISTEN || !out)
		return -EINVAL;
	/* the queue holds established children first; embryos are counted apart */
	for (c = l->aq_head; c && c->state == ZN_TCP_SYN_RCVD; c = c->aq_next)
		;
	if (!c)
		return -EAGAIN;
	c->user_closed = false;
	unlink_child(c);
	c->user_closed = false;
	if (cb)
		c->cb = *cb;
	*out = c;
	return 0;
}

int zn_tcp_send(struct zn_tcp_conn *c, const struct zn_net_seg *segs, uint32_t nseg,
		uint64_t cookie)
{
	return zn_tcp_send_flags(c, segs, nseg, cookie, 0);
}

int zn_tcp_send_flags(struct zn_tcp_conn *c, const struct zn_net_seg *segs, uint32_t nseg,
		      uint64_t cookie, unsigned flags)
{
	struct tcp_chunk *k;
	uint32_t len = 0;

	if (!c || !nseg || nseg > ZN_UDP_MAX_SEGS || !segs)
		return -EINVAL;
	if (c->err)
		return c->err;
	if (c->fin_queued || c->state == ZN_TCP_CLOSED || c->state == ZN_TCP_LISTEN)
		return c->state == ZN_TCP_LISTEN || (c->state == ZN_TCP_CLOSED && !c->fin_queued) ?
		       -ENOTCONN : -EPIPE;
	for (uint32_t i = 0; i < nseg; i++) {
		if (!segs[i].len || !segs[i].va || segs[i].len > (1u << 30))
			return -EINVAL;
		len += segs[i].len;
	}
	if ((flags & ~ZN_TCP_SEND_MORE) || c->txq_tail - c->txq_head == TCP_TXQ)
		return flags & ~ZN_TCP_SEND_MORE ? -EINVAL : -EAGAIN;
	c->more = flags & ZN_TCP_SEND_MORE;
	k = &c->txq[c->txq_tail % TCP_TXQ];
	k->frames = 0;
	k->over = k->late = false;
	k->status = 0;
	k->seq = c->snd_end;
	k->len = len;
	k->nseg = nseg;
	memcpy(k->seg, segs, nseg * sizeof(*segs));
	k->cookie = cookie;
	c->txq_tail++;
	c->snd_end += len;
	if (c->state == ZN_TCP_ESTABLISHED || c->state == ZN_TCP_CLOSE_WAIT)
		zn_tcp_output(c);
	return 0;
}

static void window_update(struct zn_tcp_conn *c, uint32_t before);

static bool shared_seg(const struct zn_udp_rx *d, uint32_t k)
{
	return d->seg[k].buf_id == UINT32_MAX;
}

uint32_t zn_tcp_recv(struct zn_tcp_conn *c, struct zn_udp_rx *out, uint32_t n, uint32_t max)
{
	uint32_t got = 0;

	while (got < n && max && c->rxq_head != c->rxq_tail) {
		struct zn_udp_rx *d = &c->rxq[c->rxq_head % TCP_RXQ];

		if (d->len <= max) {
			out[got] = *d;
			c->rxq_head++;
		} else {
			/* Split: the part handed up owns the buffers it covers
			 * whole; the buffer cut in two stays with the rest. */
			struct zn_udp_rx *o = &out[got];
			uint32_t k, left = max;

			*o = *d;
			o->len = max;
			for (k = 0; k < d->nseg && left >= d->seg[k].len; k++)
				left -= d->seg[k].len;
			o->nseg = (uint16_t)(k + (left ? 1 : 0));
			if (left) {
				o->seg[k].len = left;
				o->seg[k].buf_id = UINT32_MAX;
			}
			zn_tcp_rx_trim_front(NULL, d, max);
		}
		c->rx_queued -= out[got].len;
		c->rx_held += out[got].len;
		max -= out[got].len;
		got++;
	}
	return got;
}

void zn_tcp_rx_release(struct zn_tcp_conn *c, const struct zn_udp_rx *d)
{
	struct zn_udp_rx own = *d;
	uint32_t n = 0, before = zn_tcp_rcv_wnd(c);

	for (uint32_t k = 0; k < d->nseg; k++)
		if (!shared_seg(d, k))
			own.seg[n++] = d->seg[k];
	own.nseg = (uint16_t)n;
	if (n)
		c->t->env.rx_put(c->t->env.ctx, &own);
	c->rx_held -= d->len < c->rx_held ? d->len : c->rx_held;
	window_update(c, before);
}

uint32_t zn_tcp_rx_bytes(const struct zn_tcp_conn *c)
{
	return c->rx_queued;
}

bool zn_tcp_eof(const struct zn_tcp_conn *c)
{
	return c->rxq_head == c->rxq_tail && (c->fin_rcvd || c->err);
}

int zn_tcp_conn_shutdown(struct zn_tcp_conn *c)
{
	switch (c->state) {
	case ZN_TCP_SYN_SENT:
	case ZN_TCP_SYN_RCVD:
	case ZN_TCP_ESTABLISHED:
	case ZN_TCP_CLOSE_WAIT:
		break;
	default:
		return c->fin_queued ? 0 : -ENOTCONN;
	}
	if (c->fin_queued)
		return 0;
	c->fin_queued = true;
	c->cork = c->more = false;	/* nothing more comes: what waits goes */
	if (c->state == ZN_TCP_ESTABLISHED || c->state == ZN_TCP_CLOSE_WAIT) {
		c->state = c->state == ZN_TCP_ESTABLISHED ? ZN_TCP_FIN_WAIT_1 : ZN_TCP_LAST_ACK;
		zn_tcp_output(c);
	}
	return 0;
}

void zn_tcp_close(struct zn_tcp_conn *c, bool abort)
{
	if (!c)
		return;
	c->user_closed = true;
	c->cb.event = NULL;
	if (c->state == ZN_TCP_LISTEN) {
		while (c->aq_head) {
			struct zn_tcp_conn *x = c->aq_head;

			zn_tcp_send_rst(x);
			zn_tcp_done(x, -ECONNABORTED);
		}
		zn_tcp_done(c, 0);
		return;
	}
	/* unread data: RST, as RFC 9293 3.6 allows and Linux does */
	if (abort || c->rx_queued || c->state == ZN_TCP_SYN_SENT) {
		if (c->state != ZN_TCP_CLOSED && c->state != ZN_TCP_SYN_SENT &&
		    c->state != ZN_TCP_TIME_WAIT)
			zn_tcp_send_rst(c);
		rx_free_all(c);
		zn_tcp_done(c, -ECONNABORTED);
		return;
	}
	rx_free_all(c);
	if (c->state == ZN_TCP_CLOSED) {
		zn_tcp_done(c, 0);
		return;
	}
	zn_tcp_conn_shutdown(c);
}

int zn_tcp_error(const struct zn_tcp_conn *c)
{
	return c->err;
}

enum zn_tcp_state zn_tcp_state(const struct zn_tcp_conn *c)
{
	return (enum zn_tcp_state)c->state;
}

const char *zn_tcp_state_name(unsigned s)
{
	static const char *const n[ZN_TCP_NSTATES] = {
		"CLOSED", "LISTEN", "SYN-SENT", "SYN-RECEIVED", "ESTABLISHED", "FIN-WAIT-1",
		"FIN-WAIT-2", "CLOSE-WAIT", "CLOSING", "LAST-ACK", "TIME-WAIT",
	};

	return s < ZN_TCP_NSTATES ? n[s] : "?";
}

void zn_tcp_set_nodelay(struct zn_tcp_conn *c, bool on)
{
	c->nodelay = on;
	if (on)
		zn_tcp_output(c);
}

void zn_tcp_set_cork(struct zn_tcp_conn *c, bool on)
{
	c->cork = on;
	if (!on)
		zn_tcp_output(c);
}

void zn_tcp_set_cb(struct zn_tcp_conn *c, const struct zn_tcp_cb *cb)
{
	if (cb)
		c->cb = *cb;
	else
		memset(&c->cb, 0, sizeof(c->cb));
}

void zn_tcp_addrs(const struct zn_tcp_conn *c, struct zn_addr4 *local, struct zn_addr4 *remote)
{
	if (local)
		*local = (struct zn_addr4){ .ip = c->lip, .port = c->lport };
	if (remote)
		*remote = (struct zn_addr4){ .ip = c->rip, .port = c->rport };
}

uint32_t zn_tcp_rcv_wnd(const struct zn_tcp_conn *c)
{
	const struct zn_tcp_env *env = &c->t->env;
	uint64_t used = (uint64_t)c->rx_queued + c->rx_held + c->ooo_bytes;
	uint32_t busy = c->rxq_tail - c->rxq_head + c->nooo, wnd, bufs;
	/* each segment takes an in-order descriptor (an out-of-order one when
	 * it drains): offer no more than the free ones hold at an MSS each, or
	 * in-window segments would find no descriptor and be dropped */
	uint64_t by_desc = busy >= TCP_RXQ ? 0 : (uint64_t)(TCP_RXQ - busy) * env->mss;

	wnd = used >= c->rcv_buf ? 0 : (uint32_t)(c->rcv_buf - used);
	if (by_desc < wnd)
		wnd = (uint32_t)by_desc;

	if (!env->rx_room || !c->rx_q_known)
		return wnd;
	bufs = env->rx_room(env->ctx, c->rx_q);
	if (bufs != UINT32_MAX) {
		/* a segment per buffer at most; the queued bytes sit in some of
		 * them already (what RECV_ZC took is the application's) */
		uint64_t room = (uint64_t)bufs * env->mss, q = (uint64_t)c->rx_queued + c->ooo_bytes;

		room = room > q ? room - q : 0;
		if (room < wnd)
			wnd = (uint32_t)room;
	}
	return wnd;
}

/* The window was nearly shut and opened (by the application's release or
 * by buffers coming back): say so, but only by at least an MSS or half the
 * buffer (RFC 9293 3.8.6.2.2). */
static void window_update(struct zn_tcp_conn *c, uint32_t before)
{
	if (c->state >= ZN_TCP_ESTABLISHED && c->state <= ZN_TCP_CLOSE_WAIT &&
	    c->rcv_adv - c->rcv_nxt < c->mss * 2u) {
		uint32_t after = zn_tcp_rcv_wnd(c), step = c->rcv_buf / 2;

		if (step > c->mss)
			step = c->mss;
		if (after >= before + step || (before < c->mss && after >= c->mss))
			zn_tcp_send_ack(c);
	}
}

void zn_tcp_rx_room_grew(struct zn_tcp *t)
{
	for (struct zn_tcp_conn *c = t->all; c; c = c->lnext) {
		uint32_t before;

		if (!c->rx_q_known || c->state < ZN_TCP_ESTABLISHED || c->state > ZN_TCP_CLOSE_WAIT)
			continue;
		before = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
		window_update(c, before);
	}
}

uint64_t zn_tcp_next_timer(const struct zn_tcp *t)
{
	uint64_t m = UINT64_MAX;

	for (const struct zn_tcp_conn *c = t->all; c; c = c->lnext) {
		const uint64_t d[] = { c->rto_at, c->delack_at, c->persist_at, c->tw_at,
				       c->out_blocked ? c->out_retry_at : 0, c->ka_at, c->rack_at,
				       c->tlp_at };

		for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
			if (d[i] && d[i] < m)
				m = d[i];
	}
	return m;
}

void zn_tcp_poll(struct zn_tcp *t)
{
	uint64_t now = zn_tcp_now(t);
	struct zn_tcp_conn *c, *next;

	for (c = t->all; c; c = next) {
		next = c->lnext;
		zn_tcp_conn_timers(c, now);
	}
}
