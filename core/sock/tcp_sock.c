/* SPDX-License-Identifier: MIT */
/*
 * The TCP protocol under a zcnic socket: a connection (or listener) of the
 * netif's TCP engine (core/net/tcp.h), and the set-up calls of
 * include/zcnic/socket.h (connect, listen, accept, shutdown) for programs
 * that set up outside the ring. Those calls that wait poll the netdev
 * themselves, bounded by their timeout, on the netdev's owner thread.
 *
 * Through the ring, SEND/SEND_ZC queue the request's segments by IOVA in
 * the connection's send queue with the send slot's index as the cookie;
 * the cookie comes back (zn_sock_tx_done) when the peer acknowledged all
 * of it and the NIC read every frame pointing into it, which is when a
 * SEND_ZC's notification is posted. RECV takes the in-order bytes (tcp's
 * descriptors, by reference) and copies them out; RECV_ZC hands them up
 * where they are (op_recv_zc.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <poll.h>

#include "base/clock.h"
#include "core/net/tcp.h"
#include "core/sock/sock.h"

struct tcp_sock {
	struct zn_tcp *t;
	struct zn_tcp_conn *c;		/* connection or listener; NULL before */
	struct zn_addr4 local;
	bool listening;
	/* The connection's error was reported once; after it sends say
	 * -EPIPE and receives 0, as Linux's sock_error() clears sk_err. */
	bool err_told;
	/* options, for the connection it has or will have */
	struct tcp_opts {
		bool ka_on, cork, cc_set, nodelay_set, nodelay;
		uint32_t ka_idle, ka_intvl, ka_cnt, user_timeout;
		enum zn_tcp_cc cc;
	} o;
};

/* The socket's options onto its connection (made or accepted). */
static void opts_apply(const struct tcp_opts *o, struct zn_tcp_conn *c)
{
	zn_tcp_set_keepalive(c, o->ka_on, o->ka_idle, o->ka_intvl, o->ka_cnt);
	zn_tcp_set_user_timeout(c, o->user_timeout);
	if (o->cc_set)
		zn_tcp_set_cc(c, o->cc);
	if (o->cork)
		zn_tcp_set_cork(c, true);
	if (o->nodelay_set)
		zn_tcp_set_nodelay(c, o->nodelay);
}

static struct tcp_sock *ts_of(struct zn_sock *s)
{
	return s->pcb;
}

static void ts_tx_done(void *arg, struct zn_tcp_conn *c, uint64_t cookie, int32_t status)
{
	(void)c;
	zn_sock_tx_done(arg, cookie, status);
}

static struct zn_tcp_cb ts_cb(struct zn_sock *s)
{
	return (struct zn_tcp_cb){ .tx_done = ts_tx_done, .arg = s };
}

static int tcp_open(struct zn_sock *s, const struct zn_socket_conf *conf)
{
	struct zn_netif *nif = zn_netdev_netif(s->dev);
	struct tcp_sock *ts;

	if (conf->local.ip && conf->local.ip != zn_netdev_conf(s->dev)->ip)
		return -EADDRNOTAVAIL;
	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -ENOMEM;
	ts->t = zn_netif_tcp(nif);
	ts->local = conf->local;
	s->pcb = ts;
	return 0;
}

static void tcp_close(struct zn_sock *s)
{
	struct tcp_sock *ts = ts_of(s);

	if (ts->c) {
		zn_tcp_set_cb(ts->c, NULL);
		zn_tcp_close(ts->c, false);
	}
	free(ts);
	s->pcb = NULL;
}

static uint32_t tcp_rx_pending(struct zn_sock *s)
{
	struct tcp_sock *ts = ts_of(s);

	if (!ts->c || ts->listening)
		return 0;
	/* the end of the stream is something to receive too */
	return zn_tcp_rx_bytes(ts->c) + (zn_tcp_eof(ts->c) ? 1 : 0);
}

static uint32_t tcp_recv(struct zn_sock *s, struct zn_udp_rx *out, uint32_t n, uint32_t max)
{
	struct tcp_sock *ts = ts_of(s);

	return ts->c && !ts->listening ? zn_tcp_recv(ts->c, out, n, max) : 0;
}

static void tcp_rx_release(struct zn_sock *s, const struct zn_udp_rx *d)
{
	struct tcp_sock *ts = ts_of(s);

	if (ts->c)
		zn_tcp_rx_release(ts->c, d);
}

static int tcp_send(struct zn_sock *s, const struct zn_addr4 *dst, const struct zn_net_seg *segs,
		    uint32_t nseg, uint64_t cookie, bool more)
{
	struct tcp_sock *ts = ts_of(s);
	int rc;

	(void)dst;	/* a connected stream: the address is ignored, as Linux does */
	/* not connected: tcp_sendmsg's -EPIPE (sk_stream_wait_connect) */
	if (!ts->c || ts->listening)
		return -EPIPE;
	rc = zn_tcp_send_flags(ts->c, segs, nseg, cookie, more ? ZN_TCP_SEND_MORE : 0);
	if (rc == -ENOTCONN)
		return -EPIPE;
	if (rc < 0 && rc == zn_tcp_error(ts->c)) {
		if (ts->err_told)
			return -EPIPE;
		ts->err_told = true;
	}
	return rc;
}

/* The send buffers are about to be freed: the connection cannot resend
 * from them, so it ends (RST) and tells nobody. */
static void tcp_tx_forget(struct zn_sock *s)
{
	struct tcp_sock *ts = ts_of(s);

	if (ts->c && !ts->listening) {
		zn_tcp_set_cb(ts->c, NULL);
		zn_tcp_close(ts->c, true);
		ts->c = NULL;
	}
}

static int tcp_rx_eof(struct zn_sock *s)
{
	struct tcp_sock *ts = ts_of(s);
	int err;

	if (!ts->c)
		return ts->err_told ? 1 : -ENOTCONN;
	if (ts->listening)
		return -ENOTCONN;
	if (!zn_tcp_eof(ts->c))
		return 0;
	err = zn_tcp_error(ts->c);
	if (err && ts->err_told)
		return 1;
	ts->err_told = err != 0;
	return err ? err : 1;
}

/* tcp_poll's answer, from the connection's state. */
static uint32_t tcp_poll(struct zn_sock *s)
{
	struct tcp_sock *ts = ts_of(s);
	enum zn_tcp_state st;
	uint32_t m = POLLOUT | POLLWRNORM;

	if (!ts->c)	/* TCP_CLOSE: hung up, and writable (the send fails) */
		return m | POLLHUP;
	if (ts->listening)
		return zn_tcp_accept_ready(ts->c) ? POLLIN | POLLRDNORM : 0;
	st = zn_tcp_state(ts->c);
	if (st == ZN_TCP_SYN_SENT || st == ZN_TCP_SYN_RCVD)
		return 0;
	if (zn_tcp_rx_bytes(ts->c))
		m |= POLLIN | POLLRDNORM;
	if (zn_tcp_eof(ts->c)) {
		m |= POLLIN | POLLRDNORM | POLLRDHUP;
		/* both directions shut (our FIN too), or the connection is gone */
		if (st != ZN_TCP_CLOSE_WAIT && st != ZN_TCP_ESTABLISHED)
			m |= POLLHUP;
	}
	if (zn_tcp_error(ts->c) && !ts->err_told)
		m |= POLLERR | POLLHUP;
	return m;
}

const struct zn_sock_proto zn_tcp_sock_proto = {
	.name = "tcp",
	.open = tcp_open,
	.close = tcp_close,
	.rx_pending = tcp_rx_pending,
	.recv = tcp_recv,
	.rx_release = tcp_rx_release,
	.send = tcp_send,
	.tx_forget = tcp_tx_forget,
	.stream = true,
	.rx_eof = tcp_rx_eof,
	.poll = tcp_poll,
};

bool zn_tcp_sock_listening(const struct zn_sock *s)
{
	return s->proto == &zn_tcp_sock_proto && s->pcb && ((struct tcp_sock *)s->pcb)->listening;
}

void zn_tcp_sock_name(struct zn_sock *s, struct zn_addr4 *local, struct zn_addr4 *remote)
{
	const struct tcp_sock *ts = s->pcb;

	*local = s->local;
	*remote = (struct zn_addr4){ 0 };
	if (!ts)
		return;
	local->port = ts->local.port;
	if (ts->c && !ts->listening)
		zn_tcp_addrs(ts->c, local, remote);
}

int zn_tcp_socket(struct zn_netdev *d, const struct zn_socket_conf *conf)
{
	return zn_sock_create(d, &zn_tcp_sock_proto, conf);
}

static struct zn_sock *tcp_sock_get(int fd)
{
	struct zn_sock *s = zn_sock_from_handle(fd);

	return s && s->proto == &zn_tcp_sock_proto && s->pcb ? s : NULL;
}

/* Poll s's netdev until done(arg) or timeout_ms (< 0: 60 s) ran out. */
static bool poll_until(struct zn_sock *s, bool (*done)(void *arg), void *arg, int timeout_ms)
{
	uint64_t end = zn_now_ms() + (uint64_t)(timeout_ms < 0 ? 60000 : timeout_ms);

	for (;;) {
		if (done(arg))
			return true;
		if (zn_now_ms() >= end)
			return false;
		zn_netdev_poll(s->dev);
	}
}

static bool connected(void *arg)
{
	enum zn_tcp_state st = zn_tcp_state(arg);

	return st != ZN_TCP_SYN_SENT && st != ZN_TCP_SYN_RCVD;
}

int zn_tcp_connect(int fd, const struct zn_addr4 *dst, int timeout_ms)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct zn_tcp_cb cb;
	struct tcp_sock *ts;
	int rc;

	if (!s)
		return -EBADF;
	ts = ts_of(s);
	if (!dst || !dst->ip || !dst->port)
		return -EINVAL;
	if (ts->c && ts->listening)
		return -EINVAL;
	if (ts->c && !connected(ts->c)) {
		/* a connect in progress: wait for it, or say so */
		if (!timeout_ms)
			return -EALREADY;
	} else if (ts->c) {
		/* done: its error once (and the socket can connect again), or connected */
		rc = zn_tcp_error(ts->c);
		if (!rc)
			return -EISCONN;
		zn_tcp_close(ts->c, true);
		ts->c = NULL;
		return rc;
	} else {
		cb = ts_cb(s);
		rc = zn_tcp_conn_open(ts->t, ts->local.port, dst, &cb, &ts->c);
		if (rc)
			return rc;
		opts_apply(&ts->o, ts->c);
		if (!timeout_ms)
			return -EINPROGRESS;
	}
	if (!poll_until(s, connected, ts->c, timeout_ms)) {
		zn_tcp_set_cb(ts->c, NULL);
		zn_tcp_close(ts->c, true);
		ts->c = NULL;
		return -ETIMEDOUT;
	}
	rc = zn_tcp_error(ts->c);
	if (rc) {
		zn_tcp_close(ts->c, true);
		ts->c = NULL;
	}
	return rc;
}

int zn_tcp_listen(int fd, int backlog)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct zn_tcp_cb cb;
	struct tcp_sock *ts;
	int rc;

	if (!s)
		return -EBADF;
	ts = ts_of(s);
	if (ts->c)
		return ts->listening ? 0 : -EISCONN;
	if (!ts->local.port)
		return -EDESTADDRREQ;
	cb = ts_cb(s);
	rc = zn_tcp_conn_listen(ts->t, ts->local.port, backlog > 0 ? (uint32_t)backlog : 1, &cb,
				&ts->c);
	if (rc == 0)
		ts->listening = true;
	return rc;
}

struct accept_wait {
	struct zn_tcp_conn *l, *c;
};

static bool accepted(void *arg)
{
	struct accept_wait *w = arg;

	return zn_tcp_conn_accept(w->l, NULL, &w->c) == 0;
}

int zn_tcp_accept(int fd, struct zn_addr4 *peer, int timeout_ms)
{
	struct zn_sock *s = tcp_sock_get(fd), *ns;
	struct zn_socket_conf conf = { 0 };
	struct accept_wait w = { 0 };
	struct zn_tcp_cb cb;
	int h;

	if (!s)
		return -EBADF;
	if (!ts_of(s)->listening)
		return -EINVAL;
	w.l = ts_of(s)->c;
	if (!poll_until(s, accepted, &w, timeout_ms))
		return timeout_ms ? -ETIMEDOUT : -EAGAIN;
	zn_tcp_addrs(w.c, &conf.local, NULL);
	h = zn_sock_create(s->dev, &zn_tcp_sock_proto, &conf);
	if (h < 0) {
		zn_tcp_close(w.c, true);
		return h;
	}
	ns = zn_sock_from_handle(h);
	cb = ts_cb(ns);
	zn_tcp_set_cb(w.c, &cb);
	ts_of(ns)->c = w.c;
	/* the listener's options, as Linux's accepted sockets inherit them */
	ts_of(ns)->o = ts_of(s)->o;
	opts_apply(&ts_of(ns)->o, w.c);
	if (peer)
		zn_tcp_addrs(w.c, NULL, peer);
	return h;
}

int zn_tcp_shutdown(int fd)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct tcp_sock *ts;

	if (!s)
		return -EBADF;
	ts = ts_of(s);
	if (!ts->c || ts->listening)
		return -ENOTCONN;
	return zn_tcp_conn_shutdown(ts->c);
}

/* The connection the options go to now (NULL: later, at connect). */
static struct zn_tcp_conn *opt_conn(struct tcp_sock *ts)
{
	return ts->c && !ts->listening ? ts->c : NULL;
}

int zn_tcp_keepalive(int fd, bool on, uint32_t idle_ms, uint32_t intvl_ms, uint32_t cnt)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct tcp_sock *ts;

	if (!s)
		return -EBADF;
	ts = ts_of(s);
	ts->o.ka_on = on;
	ts->o.ka_idle = idle_ms;
	ts->o.ka_intvl = intvl_ms;
	ts->o.ka_cnt = cnt;
	return opt_conn(ts) ? zn_tcp_set_keepalive(ts->c, on, idle_ms, intvl_ms, cnt) : 0;
}

int zn_tcp_user_timeout(int fd, uint32_t ms)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct tcp_sock *ts;

	if (!s)
		return -EBADF;
	ts = ts_of(s);
	ts->o.user_timeout = ms;
	if (opt_conn(ts))
		zn_tcp_set_user_timeout(ts->c, ms);
	return 0;
}

int zn_tcp_congestion(int fd, const char *name)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct tcp_sock *ts;

	if (!s)
		return -EBADF;
	if (!name)
		return -EINVAL;
	ts = ts_of(s);
	/* Linux's names: "reno" is its NewReno */
	if (!strcmp(name, "cubic"))
		ts->o.cc = ZN_TCP_CC_CUBIC;
	else if (!strcmp(name, "reno") || !strcmp(name, "newreno"))
		ts->o.cc = ZN_TCP_CC_NEWRENO;
	else
		return -ENOENT;
	ts->o.cc_set = true;
	return opt_conn(ts) ? zn_tcp_set_cc(ts->c, ts->o.cc) : 0;
}

int zn_tcp_cork(int fd, bool on)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct tcp_sock *ts;

	if (!s)
		return -EBADF;
	ts = ts_of(s);
	ts->o.cork = on;
	if (opt_conn(ts))
		zn_tcp_set_cork(ts->c, on);
	return 0;
}

int zn_tcp_nodelay(int fd, bool on)
{
	struct zn_sock *s = tcp_sock_get(fd);
	struct tcp_sock *ts;

	if (!s)
		return -EBADF;
	ts = ts_of(s);
	ts->o.nodelay_set = true;
	ts->o.nodelay = on;
	if (opt_conn(ts))
		zn_tcp_set_nodelay(ts->c, on);
	return 0;
}
