/* SPDX-License-Identifier: MIT */
/*
 * core/uring: requests on OS fds waiting for readiness (osfd.h).
 *
 * The armed requests are kept in an array in arming order; one hook, there
 * while the array is not empty, polls all their fds with a single poll(2)
 * of zero timeout per pass and hands the ready ones back to their ops. The
 * hook is a busy one (no kernel wakes a polling ring when a pipe fills);
 * its arm function lets interrupt wait mode sleep anyway: every armed fd
 * goes into an epoll set (one shot) and the ring sleeps on the epoll fd,
 * which becomes readable when one of them is ready.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/uring/osfd.h"

struct zn_osfd {
	struct zn_uring_req **reqs;	/* armed, in arming order */
	struct pollfd *pfd;		/* the pass's poll set */
	struct zn_uring_req **snap;	/* ... and who asked */
	uint32_t *snap_seq;
	unsigned n, cap;
	uint32_t seq;
	int hook;			/* hook id + 1; 0: none */
	int epfd;			/* interrupt mode's epoll set; -1: none yet */
	uint64_t drained;		/* irq_sleeps when the set was last emptied, + 1 */
};

#define ARM(req) ((struct zn_osfd_arm *)(req)->pdu)
#define READY_EVENTS (POLLERR | POLLHUP | POLLNVAL)

static void osfd_exit(struct zn_uring *r, void *arg)
{
	struct zn_osfd *st = r->osfd;

	(void)arg;
	if (!st)
		return;
	if (st->epfd >= 0)
		close(st->epfd);
	free(st->reqs);
	free(st->pfd);
	free(st->snap);
	free(st->snap_seq);
	free(st);
	r->osfd = NULL;
}

static struct zn_osfd *state(struct zn_uring *r)
{
	struct zn_osfd *st = r->osfd;

	if (st)
		return st;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->epfd = -1;
	if (zn_uring_on_exit(r, osfd_exit, NULL) < 0) {
		free(st);
		return NULL;
	}
	r->osfd = st;
	return st;
}

static int grow(struct zn_osfd *st)
{
	unsigned cap = st->cap ? st->cap * 2 : 16;
	void *a = realloc(st->reqs, cap * sizeof(*st->reqs));

	if (!a)
		return -ENOMEM;
	st->reqs = a;
	a = realloc(st->pfd, cap * sizeof(*st->pfd));
	if (!a)
		return -ENOMEM;
	st->pfd = a;
	a = realloc(st->snap, cap * sizeof(*st->snap));
	if (!a)
		return -ENOMEM;
	st->snap = a;
	a = realloc(st->snap_seq, cap * sizeof(*st->snap_seq));
	if (!a)
		return -ENOMEM;
	st->snap_seq = a;
	st->cap = cap;
	return 0;
}

static bool is_armed(struct zn_osfd *st, struct zn_uring_req *req, uint32_t seq)
{
	struct zn_osfd_arm *a = ARM(req);

	return a->seq == seq && a->slot < st->n && st->reqs[a->slot] == req;
}

static void unlink_slot(struct zn_uring *r, struct zn_osfd *st, unsigned slot)
{
	ARM(st->reqs[slot])->seq = 0;
	memmove(&st->reqs[slot], &st->reqs[slot + 1], (st->n - slot - 1) * sizeof(*st->reqs));
	st->n--;
	for (unsigned i = slot; i < st->n; i++)
		ARM(st->reqs[i])->slot = i;
	if (!st->n && st->hook) {
		zn_uring_hook_del(r, st->hook - 1);
		st->hook = 0;
	}
}

void zn_osfd_disarm(struct zn_uring_req *req)
{
	struct zn_osfd *st = req->ring->osfd;
	struct zn_osfd_arm *a = ARM(req);

	if (st && a->seq && is_armed(st, req, a->seq))
		unlink_slot(req->ring, st, a->slot);
}

static int osfd_hook(struct zn_uring *r, void *arg)
{
	struct zn_osfd *st = r->osfd;
	unsigned n, i;
	int work = 0;

	(void)arg;
	if (!st || !st->n)
		return 0;
	n = st->n;
	for (i = 0; i < n; i++) {
		struct zn_osfd_arm *a = ARM(st->reqs[i]);

		st->pfd[i] = (struct pollfd){ .fd = a->fd, .events = a->events };
		st->snap[i] = st->reqs[i];
		st->snap_seq[i] = a->seq;
	}
	if (poll(st->pfd, n, 0) <= 0)
		return 0;
	/*
	 * Retries may complete requests, run their links and arm others (at
	 * the end of the array, which may grow): the snapshot says who was
	 * ready, is_armed whether it still waits.
	 */
	for (i = 0; i < n && r->osfd; i++) {
		struct zn_uring_req *req = st->snap[i];
		short rev = st->pfd[i].revents;

		if (!rev || !is_armed(st, req, st->snap_seq[i]))
			continue;
		unlink_slot(r, st, ARM(req)->slot);
		ARM(req)->ready(req, rev);
		work++;
	}
	return work;
}

/* Interrupt wait mode: every armed fd in the epoll set, the set's fd to sleep on. */
static int osfd_irq_arm(struct zn_uring *r, void *arg, int *fds, unsigned max,
			uint64_t *deadline)
{
	struct zn_osfd *st = r->osfd;
	int epfd = -1;

	(void)arg;
	(void)deadline;
	if (!max)
		return -ENOSPC;
	for (unsigned i = 0; st && i < st->n; i++) {
		struct zn_osfd_arm *a = ARM(st->reqs[i]);
		uint32_t ev = 0;
		int rc;

		/* one registration per fd: the union of what its requests wait for */
		for (unsigned j = 0; j < st->n; j++)
			if (ARM(st->reqs[j])->fd == a->fd)
				ev |= (uint16_t)ARM(st->reqs[j])->events;
		rc = zn_osfd_epoll_add(r, a->fd, ev);
		if (rc == -EPERM)
			return -EOPNOTSUPP;	/* always ready: the next pass takes it */
		if (rc < 0)
			return rc;
		epfd = rc;
	}
	if (epfd < 0)
		return 0;
	fds[0] = epfd;
	return 1;
}

static int epoll_fd(struct zn_uring *r)
{
	struct zn_osfd *st = state(r);
	struct epoll_event ev[16];

	if (!st)
		return -ENOMEM;
	if (st->epfd < 0) {
		st->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (st->epfd < 0)
			return -errno;
	}
	/*
	 * Once per sleep: what fired before keeps the set readable, so take it
	 * (one shot: those fds are off until the arm below turns them on again).
	 */
	if (st->drained != r->st.irq_sleeps + 1) {
		st->drained = r->st.irq_sleeps + 1;
		while (epoll_wait(st->epfd, ev, 16, 0) == 16)
			;
	}
	return st->epfd;
}

int zn_osfd_epoll_add(struct zn_uring *r, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events | EPOLLONESHOT, .data.fd = fd };
	int epfd = epoll_fd(r);

	if (epfd < 0)
		return epfd;
	if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
		return epfd;
	if (errno == ENOENT && epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
		return epfd;
	return -errno;
}

int zn_osfd_arm(struct zn_uring_req *req, int fd, short events, zn_osfd_ready_fn ready)
{
	struct zn_uring *r = req->ring;
	struct zn_osfd *st = state(r);
	struct zn_osfd_arm *a = ARM(req);

	if (!st)
		return -ENOMEM;
	if (st->n == st->cap && grow(st))
		return -ENOMEM;
	if (!st->hook) {
		int id = zn_uring_hook_add(r, osfd_hook, NULL, ZN_URING_HOOK_BUSY);

		if (id < 0)
			return id;
		zn_uring_hook_set_arm(r, id, osfd_irq_arm);
		st->hook = id + 1;
	}
	if (!++st->seq)
		st->seq = 1;
	a->ready = ready;
	a->seq = st->seq;
	a->slot = st->n;
	a->fd = fd;
	a->events = (short)(events | READY_EVENTS);
	st->reqs[st->n++] = req;
	return 0;
}
