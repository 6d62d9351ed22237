/* SPDX-License-Identifier: MIT */
/*
 * zcnic sockets: handles over a protocol's endpoint (udp_sock.c), and the
 * bindings that make a ring poll the netdevs its sockets live on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "core/sock/sock.h"
#include "zcnic/log.h"

#define SOCK_LOG		"sock"

/* One per (ring, netdev): the ring's poll hook for that netdev. */
struct zn_sock_binding {
	struct zn_uring *ring;
	struct zn_netdev *dev;
	int hook_id, exit_id, close_id;
	struct zn_sock **socks;
	uint32_t nsocks, cap;
	struct zn_sock_binding *next;	/* the ring's bindings (owner thread only) */
};

/* Bindings of every ring; a ring's owner walks only its own. Rings and
 * netdevs are few, and the list is touched only at bind/unbind time. */
static __thread struct zn_sock_binding *bindings;

static void sock_detach(struct zn_sock *s)
{
	struct zn_sock_binding *b = s->bind;

	if (s->rx_fini)
		s->rx_fini(s);
	if (s->tx_fini)
		s->tx_fini(s);
	if (s->ctl_fini)
		s->ctl_fini(s);
	s->rx_serve = s->tx_serve = s->ctl_serve = NULL;
	s->tx_done = NULL;
	s->ring_gone = NULL;
	s->rx_fini = s->tx_fini = s->ctl_fini = NULL;
	s->rx_priv = s->tx_priv = s->ctl_priv = NULL;
	if (b) {
		for (uint32_t i = 0; i < b->nsocks; i++)
			if (b->socks[i] == s) {
				b->socks[i] = b->socks[--b->nsocks];
				break;
			}
	}
	s->bind = NULL;
	s->ring = NULL;
	s->ring_exiting = false;
	/* untied: the next ring to use it takes it, whichever thread's */
	zn_owner_reset(&s->owner);
}

static void sock_free(struct zn_sock *s);

/* Serve b's sockets once. Index loop: a serve may close a socket. */
static void binding_serve(struct zn_sock_binding *b)
{
	for (uint32_t i = 0; i < b->nsocks; i++) {
		struct zn_sock *s = b->socks[i];

		zn_owner_enter(&s->owner, "socket");
		if (__atomic_load_n(&s->close_req, __ATOMIC_ACQUIRE)) {
			sock_free(s);	/* b->socks[i] is another socket now */
			i--;
			continue;
		}
		if (s->rx_serve && zn_sock_rx_pending(s))
			s->rx_serve(s);
		if (i < b->nsocks && b->socks[i] == s && s->tx_serve)
			s->tx_serve(s);
		if (i < b->nsocks && b->socks[i] == s && s->ctl_serve)
			s->ctl_serve(s);
	}
}

/*
 * Level-triggered: serve whatever is there, whether or not the endpoint
 * raised an event this pass. Every socket of this thread on the netdev is
 * served, whichever ring's binding lists it: another ring of the thread
 * may have requests waiting on it, and may be the only one this thread
 * waits on.
 */
static int binding_poll(struct zn_uring *r, void *arg)
{
	struct zn_sock_binding *b = arg;
	int work;

	(void)r;
	work = zn_netdev_poll(b->dev);
	for (struct zn_sock_binding *o = bindings; o; o = o->next)
		if (o->dev == b->dev)
			binding_serve(o);
	return work;
}

/* Interrupt wait mode: the netdev's queues wake the ring (wait.c). */
static int binding_arm(struct zn_uring *r, void *arg, int *fds, unsigned max, uint64_t *deadline)
{
	struct zn_sock_binding *b = arg;

	(void)r;
	return zn_netdev_irq_arm(b->dev, fds, max, deadline);
}

/* The thread's last poll hook on d went: another thread may poll d now. */
static void binding_release_dev(struct zn_netdev *d)
{
	for (struct zn_sock_binding *o = bindings; o; o = o->next)
		if (o->dev == d)
			return;
	zn_netdev_owner_release(d);
}

static void binding_free(struct zn_sock_binding *b)
{
	struct zn_sock_binding **pp;
	struct zn_netdev *d = b->dev;

	while (b->nsocks)
		sock_detach(b->socks[b->nsocks - 1]);
	for (pp = &bindings; *pp; pp = &(*pp)->next)
		if (*pp == b) {
			*pp = b->next;
			break;
		}
	free(b->socks);
	free(b);
	binding_release_dev(d);
}

static int binding_add(struct zn_sock_binding *b, struct zn_sock *s)
{
	if (b->nsocks == b->cap) {
		uint32_t cap = b->cap ? 2 * b->cap : 8;
		struct zn_sock **n = realloc(b->socks, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->socks = n;
		b->cap = cap;
	}
	b->socks[b->nsocks++] = s;
	s->bind = b;
	s->ring = b->ring;
	return 0;
}

/* Another live ring of this thread polling d, or NULL. */
static struct zn_sock_binding *binding_other(struct zn_uring *gone, struct zn_netdev *d)
{
	for (struct zn_sock_binding *o = bindings; o; o = o->next)
		if (o->dev == d && o->ring != gone)
			return o;
	return NULL;
}

/*
 * The ring is going away: its requests were cancelled already. What the
 * sockets would still post to it is dropped; its sockets move to another
 * ring of the thread on the same netdev if there is one (the other ring
 * may have requests on them), else they are detached.
 */
static void binding_ring_exit(struct zn_uring *r, void *arg)
{
	struct zn_sock_binding *b = arg, *to = binding_other(r, b->dev);

	for (struct zn_sock_binding *o = bindings; o; o = o->next)
		for (uint32_t i = 0; i < o->nsocks; i++)
			if (o->socks[i]->ring_gone)
				o->socks[i]->ring_gone(o->socks[i], r);
	while (to && b->nsocks) {
		struct zn_sock *s = b->socks[b->nsocks - 1];

		if (binding_add(to, s))
			break;		/* no memory: detached below */
		b->nsocks--;
	}
	for (uint32_t i = b->nsocks; i-- > 0;)
		if (__atomic_load_n(&b->socks[i]->close_req, __ATOMIC_ACQUIRE))
			sock_free(b->socks[i]);
	for (uint32_t i = 0; i < b->nsocks; i++)
		b->socks[i]->ring_exiting = true;
	zn_netdev_on_close_del(b->dev, b->close_id);
	binding_free(b);
}

/* The netdev is closing under a live ring: stop polling it. */
static void binding_dev_close(void *arg, struct zn_netdev *d)
{
	struct zn_sock_binding *b = arg;

	(void)d;
	zn_uring_hook_del(b->ring, b->hook_id);
	zn_uring_on_exit_del(b->ring, b->exit_id);
	binding_free(b);
}

static struct zn_sock_binding *binding_get(struct zn_uring *r, struct zn_netdev *d)
{
	struct zn_sock_binding *b;

	for (b = bindings; b; b = b->next)
		if (b->ring == r && b->dev == d)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->ring = r;
	b->dev = d;
	b->hook_id = zn_uring_hook_add(r, binding_poll, b, ZN_URING_HOOK_BUSY);
	if (b->hook_id < 0)
		goto err;
	zn_uring_hook_set_arm(r, b->hook_id, binding_arm);
	b->exit_id = zn_uring_on_exit(r, binding_ring_exit, b);
	if (b->exit_id < 0)
		goto err_hook;
	b->close_id = zn_netdev_on_close(d, binding_dev_close, b);
	if (b->close_id < 0)
		goto err_exit;
	b->next = bindings;
	bindings = b;
	return b;

err_exit:
	zn_uring_on_exit_del(r, b->exit_id);
err_hook:
	zn_uring_hook_del(r, b->hook_id);
err:
	ZN_ERR(SOCK_LOG, "ring %d: no room to poll one more netdev", zn_uring_handle(r));
	free(b);
	return NULL;
}

/* Is b one of this thread's bindings (bindings is per thread)? */
static bool binding_mine(const struct zn_sock_binding *b)
{
	for (const struct zn_sock_binding *o = bindings; o; o = o->next)
		if (o == b)
			return true;
	return false;
}

int zn_sock_bind(struct zn_sock *s, struct zn_uring *r)
{
	struct zn_sock_binding *b;

	if (s->ring == r)
		return 0;
	if (s->ring && !binding_mine(s->bind))
		return -EBUSY;	/* another thread's: no locks on its queues */
	if (!s->dev)
		return -ENOTCONN;	/* no netdev yet: nothing to poll */
	b = binding_get(r, s->dev);
	if (!b)
		return -ENOSPC;
	/* a second ring of the thread: it polls the netdev and serves the
	 * socket (binding_poll), the socket stays listed where it is */
	return s->ring ? 0 : binding_add(b, s);
}

void zn_sock_kick(struct zn_sock *s)
{
	zn_owner_enter(&s->owner, "socket");
	if (s->rx_serve)
		s->rx_serve(s);
}

struct zn_sock *zn_sock_from_handle(int fd)
{
	return zn_handle_peek(fd, ZN_HANDLE_SOCKET);
}

bool zn_sock_foreign(const struct zn_sock *s)
{
	return s->ring && !binding_mine(s->bind);
}

struct zn_sock *zn_sock_of_req(const struct zn_uring_req *req)
{
	struct zn_sock *s = req->file < 0 ? NULL : zn_sock_from_handle(req->file);

	if (!s || zn_sock_foreign(s))
		return NULL;
	zn_owner_enter(&s->owner, "socket");
	return s;
}

int zn_sock_req_err(const struct zn_uring_req *req)
{
	if (req->file >= 0 && zn_sock_from_handle(req->file))
		return -EBUSY;
	/* an OS fd number: the kernel's fget fails first if nothing is open there */
	if (!zn_handle_is_handle(req->file) && fcntl(req->file, F_GETFD) < 0)
		return -EBADF;
	return -ENOTSOCK;
}

static void sock_free(struct zn_sock *s)
{
	sock_detach(s);
	if (s->dev) {
		zn_netdev_on_close_del(s->dev, s->close_id);
		s->proto->close(s);
	}
	zn_handle_close(s->handle);
	free(s);
}

static void sock_dev_close(void *arg, struct zn_netdev *d)
{
	(void)d;
	sock_free(arg);
}

int zn_sock_attach(struct zn_sock *s, struct zn_netdev *d, const struct zn_socket_conf *conf)
{
	int rc;

	if (s->dev)
		return -EISCONN;
	s->dev = d;
	rc = s->proto->open(s, conf);
	if (rc < 0)
		goto err;
	rc = zn_netdev_on_close(d, sock_dev_close, s);
	if (rc < 0)
		goto err_pcb;
	s->close_id = rc;
	s->local = conf->local;
	if (!s->local.ip)
		s->local.ip = zn_netdev_conf(d)->ip;
	s->remote = conf->remote;
	return 0;

err_pcb:
	s->proto->close(s);
err:
	s->dev = NULL;
	s->pcb = NULL;
	return rc;
}

int zn_sock_create_detached(const struct zn_sock_proto *proto)
{
	struct zn_sock *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->proto = proto;
	rc = zn_handle_alloc(ZN_HANDLE_SOCKET, s);
	if (rc < 0) {
		free(s);
		return rc;
	}
	s->handle = rc;
	return rc;
}

int zn_sock_create(struct zn_netdev *d, const struct zn_sock_proto *proto,
		   const struct zn_socket_conf *conf)
{
	struct zn_sock *s;
	int rc;

	if (!d || !conf)
		return -EINVAL;
	rc = zn_sock_create_detached(proto);
	if (rc < 0)
		return rc;
	s = zn_sock_from_handle(rc);
	rc = zn_sock_attach(s, d, conf);
	if (rc < 0) {
		zn_handle_close(s->handle);
		free(s);
		return rc;
	}
	return s->handle;
}

int zn_socket_close(int fd)
{
	struct zn_sock *s = zn_sock_from_handle(fd);
	struct zn_netdev *d;

	if (!s)
		return -EBADF;
	if (zn_sock_foreign(s)) {
		/* Linux closes from any thread; the socket's queues are its
		 * rings' thread's, which closes it on its next pass */
		__atomic_store_n(&s->close_req, true, __ATOMIC_RELEASE);
		return 0;
	}
	d = s->dev;
	sock_free(s);
	/* the close polled d to drain the socket's sends: that claimed d for
	 * this thread, which may have no ring on it */
	if (d)
		binding_release_dev(d);
	return 0;
}
