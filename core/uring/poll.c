/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_OP_POLL_ADD and IORING_OP_POLL_REMOVE.
 *
 * The kernel's io_uring/poll.c, as seen from the CQ:
 *  - POLL_ADD prep: addr, off or buf_index != 0, a flag in sqe->len other
 *    than IORING_POLL_ADD_MULTI: -EINVAL; MULTI with CQE_SKIP_SUCCESS:
 *    -EINVAL. The events are poll32_events; POLLERR, POLLHUP, POLLNVAL
 *    and POLLRDHUP are always reported (IO_POLL_UNMASK).
 *  - one-shot: one CQE, res = the ready events among those, as soon as
 *    some are ready (at once if they are at issue);
 *  - multishot: a CQE with IORING_CQE_F_MORE each time events become
 *    ready (edge-triggered, EPOLLET: an event must go away and come back,
 *    or more data arrive, for another CQE); it ends only by POLL_REMOVE or
 *    a cancel (-ECANCELED, no F_MORE);
 *  - POLL_REMOVE prep: buf_index or splice_fd_in != 0, a flag outside
 *    UPDATE_EVENTS | UPDATE_USER_DATA | ADD_MULTI, ADD_MULTI alone, a new
 *    user_data (off) without UPDATE_USER_DATA, events without
 *    UPDATE_EVENTS: -EINVAL. It finds the armed POLL_ADD with user_data
 *    addr (-ENOENT if none): without an update the poll completes with
 *    -ECANCELED; with one it stays armed with the new events / user_data.
 *    The remove's own result is 0.
 *
 * What is polled (a level read on every pass of the ring owner, from one
 * hook that exists while polls are armed):
 *  - a handle of another layer (a zcnic socket): the plug-in table's
 *    poll_ready, which also makes this ring poll the socket's netdev;
 *  - a ring handle: POLLIN|POLLRDNORM with CQEs to reap (or overflowed),
 *    POLLOUT|POLLWRNORM with SQ room, as io_uring_poll;
 *  - any other number: a kernel file descriptor, read with poll(2) and a
 *    zero timeout (an eventfd, a pipe, a kernel socket).
 * The hook is a busy one: no kernel wakes a polling owner when a kernel fd
 * becomes ready. In interrupt wait mode its arm function puts the kernel
 * fds in the ring's epoll set, so the owner sleeps until one is ready.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "core/uring/osfd.h"

#define POLL_UNMASK	(POLLERR | POLLHUP | POLLNVAL | POLLRDHUP)

struct poll_pdu {
	struct zn_uring_req *next, *prev;	/* the ring's armed polls */
	uint32_t gen;			/* which arming (0: not armed) */
	uint32_t events;
	uint32_t last;			/* events ready at the last look */
	uint32_t last_seq;		/* the source's event count then */
	uint8_t mshot;
};
_Static_assert(sizeof(struct poll_pdu) <= ZN_URING_REQ_PDU, "poll pdu too big");

struct poll_upd_pdu {
	uint64_t old_ud, new_ud;
	uint32_t events;
	uint8_t upd_events, upd_ud, mshot;
};
_Static_assert(sizeof(struct poll_upd_pdu) <= ZN_URING_REQ_PDU, "poll remove pdu too big");

#define PDU(req) ((struct poll_pdu *)(req)->pdu)

/* io_uring_poll's answer; edges only (no event count): a multishot poll
 * of its own ring would otherwise see each of its own CQEs as new data. */
static int ring_ready(int fd)
{
	struct zn_uring *t = zn_handle_peek(fd, ZN_HANDLE_URING);
	uint32_t mask = 0, sq_used;

	if (!t)
		return -EBADF;
	if (zn_uring_cq_ready(t) || zn_uring_overflow_pending(t))
		mask |= POLLIN | POLLRDNORM;
	sq_used = zn_load_acq(&t->sh->sq_tail) - zn_load_acq(&t->sh->sq_head);
	if (sq_used < t->sq_entries)
		mask |= POLLOUT | POLLWRNORM;
	return (int)mask;
}

#define KFD_EVENTS	(POLLIN | POLLOUT | POLLPRI | POLLRDHUP)

/* A kernel fd's events as poll(2) gave them: >= 0, or -EBADF. */
static int kfd_events(short revents)
{
	return (revents & POLLNVAL) ? -EBADF : (uint16_t)revents;
}

/* A kernel fd's events now. */
static int kfd_ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = KFD_EVENTS };

	if (poll(&p, 1, 0) < 0)
		return -errno;
	return kfd_events(p.revents);
}

/* The events of fd now (>= 0) and its event count in *seq, or -errno. */
static int ready(struct zn_uring *r, int fd, uint32_t *seq)
{
	int rc;

	*seq = 0;
	if (!zn_handle_is_handle(fd))
		return fd < 0 ? -EBADF : kfd_ready(fd);
	if (zn_handle_type(fd) == ZN_HANDLE_URING)
		return ring_ready(fd);
	rc = zn_uring_plugins.poll_ready ? zn_uring_plugins.poll_ready(r, fd, seq) : -ENOENT;
	return rc == -ENOENT ? -EBADF : rc;
}

static void poll_unlink(struct zn_uring *r, struct zn_uring_req *req)
{
	struct poll_pdu *p = PDU(req);

	if (p->prev)
		PDU(p->prev)->next = p->next;
	else
		r->polls = p->next;
	if (p->next)
		PDU(p->next)->prev = p->prev;
	p->next = p->prev = NULL;
	p->gen = 0;
	if (!r->polls && r->poll_hook) {
		zn_uring_hook_del(r, r->poll_hook - 1);
		r->poll_hook = 0;
	}
}

/*
 * req's source shows rc (its events, or -errno) with event count seq: 1
 * when req is done (one-shot fired), 0 when it stays armed. A multishot
 * posts a CQE on each new edge.
 */
static int poll_check(struct zn_uring_req *req, int rc, uint32_t seq, int *res)
{
	struct poll_pdu *p = PDU(req);
	uint32_t mask;

	if (rc < 0) {
		*res = rc;
		return 1;
	}
	mask = (uint32_t)rc & (p->events | POLL_UNMASK);
	if (!p->mshot) {
		*res = (int)mask;
		return mask != 0;
	}
	if (mask && ((mask & ~p->last) || (int32_t)(seq - p->last_seq) > 0))
		zn_uring_post_cqe(req->ring, req->user_data, (int)mask, IORING_CQE_F_MORE, NULL, 0);
	p->last = mask;
	p->last_seq = seq;
	return 0;
}

/* One look at req now (its issue). */
static int poll_look(struct zn_uring_req *req, int *res)
{
	uint32_t seq;
	int rc = ready(req->ring, req->file, &seq);

	return poll_check(req, rc, seq, res);
}

/* What a pass looks at: the armed polls as they were, kernel fds in one poll(2). */
struct poll_snap {
	struct zn_uring_req *req;
	uint32_t gen;
	int kidx;		/* its entry in the pollfd array; -1: not a kernel fd */
};

static int poll_hook(struct zn_uring *r, void *arg)
{
	struct poll_snap snap_small[16], *snap = snap_small;
	struct pollfd pfd_small[16], *pfd = pfd_small;
	struct zn_uring_req *req;
	unsigned n = 0, nk = 0, i;
	int work = 0, res;

	(void)arg;
	for (req = r->polls; req; req = PDU(req)->next)
		n++;
	if (n > 16) {
		snap = malloc(n * sizeof(*snap));
		pfd = malloc(n * sizeof(*pfd));
		if (!snap || !pfd) {
			free(snap);
			free(pfd);
			return 0;
		}
	}
	for (i = 0, req = r->polls; req; req = PDU(req)->next, i++) {
		snap[i] = (struct poll_snap){ req, PDU(req)->gen, -1 };
		if (zn_osfd_is_os(req->file)) {
			snap[i].kidx = (int)nk;
			pfd[nk++] = (struct pollfd){ .fd = req->file, .events = KFD_EVENTS };
		}
	}
	if (nk && poll(pfd, nk, 0) < 0)
		nk = 0;
	/*
	 * A completion may run a link chain that arms or removes polls: a poll
	 * is looked at only while it is the same arming (gen) as in the snapshot.
	 */
	for (i = 0; i < n; i++) {
		uint32_t seq = 0;
		int rc;

		req = snap[i].req;
		if (req->opcode != IORING_OP_POLL_ADD || PDU(req)->gen != snap[i].gen)
			continue;
		if (snap[i].kidx < 0)
			rc = ready(r, req->file, &seq);
		else if (nk)
			rc = kfd_events(pfd[snap[i].kidx].revents);
		else
			continue;
		if (poll_check(req, rc, seq, &res)) {
			poll_unlink(r, req);
			zn_uring_req_complete(req, res, 0);
			work++;
		}
	}
	if (snap != snap_small) {
		free(snap);
		free(pfd);
	}
	return work;
}

/*
 * Interrupt wait mode: the kernel fds polled go into the ring's epoll set
 * (osfd_wait.c), so a sleeping ring wakes when one becomes ready. What it
 * cannot sleep on: another ring's handle (its CQEs come from its own
 * thread), and a multishot poll whose events are all still up since its
 * last CQE (its next edge is their going away and back, which epoll does
 * not tell); then the ring polls for the rest of that wait.
 */
static int poll_irq_arm(struct zn_uring *r, void *arg, int *fds, unsigned max,
			uint64_t *deadline)
{
	int epfd = -1;

	(void)arg;
	(void)deadline;
	for (struct zn_uring_req *req = r->polls; req; req = PDU(req)->next) {
		struct poll_pdu *p = PDU(req);
		uint32_t ev = p->events;
		int rc;

		if (zn_handle_is_handle(req->file)) {
			if (zn_handle_type(req->file) == ZN_HANDLE_URING && req->file != r->handle)
				return -EOPNOTSUPP;
			continue;	/* a socket: its netdev's hook arms the queues */
		}
		if (p->mshot)
			ev &= ~p->last;
		if (!ev)
			return -EOPNOTSUPP;
		/* every poll on this fd: one registration per fd */
		for (struct zn_uring_req *q = r->polls; q; q = PDU(q)->next)
			if (q != req && q->file == req->file)
				ev |= PDU(q)->events;
		rc = zn_osfd_epoll_add(r, req->file, ev);
		if (rc < 0)
			return rc == -EPERM ? -EOPNOTSUPP : rc;
		epfd = rc;
	}
	if (epfd < 0)
		return 0;
	if (!max)
		return -ENOSPC;
	fds[0] = epfd;
	return 1;
}

static int poll_arm(struct zn_uring *r, struct zn_uring_req *req)
{
	if (!r->poll_hook) {
		int id = zn_uring_hook_add(r, poll_hook, NULL, ZN_URING_HOOK_BUSY);

		if (id < 0)
			return id;
		zn_uring_hook_set_arm(r, id, poll_irq_arm);
		r->poll_hook = id + 1;
	}
	static uint32_t gen;
	uint32_t g = __atomic_add_fetch(&gen, 1, __ATOMIC_RELAXED);

	PDU(req)->gen = g ? g : __atomic_add_fetch(&gen, 1, __ATOMIC_RELAXED);
	PDU(req)->prev = NULL;
	PDU(req)->next = r->polls;
	if (r->polls)
		PDU(r->polls)->prev = req;
	r->polls = req;
	return 0;
}

static int poll_add_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct poll_pdu *p = PDU(req);
	uint32_t flags = sqe->len;

	memset(p, 0, sizeof(*p));
	if (sqe->buf_index || sqe->off || sqe->addr)
		return -EINVAL;
	if (flags & ~IORING_POLL_ADD_MULTI)
		return -EINVAL;
	if ((flags & IORING_POLL_ADD_MULTI) && (req->sqe_flags & IOSQE_CQE_SKIP_SUCCESS))
		return -EINVAL;
	p->mshot = !!(flags & IORING_POLL_ADD_MULTI);
	p->events = sqe->poll32_events & 0xffff;
	return 0;
}

static int poll_add_issue(struct zn_uring_req *req)
{
	int res = 0, rc;

	if (poll_look(req, &res)) {
		req->res = res;
		return ZN_URING_ISSUE_DONE;
	}
	/* a multishot that was ready posted its first CQE: from here on edges */
	rc = poll_arm(req->ring, req);
	if (rc) {
		req->res = rc;
		return ZN_URING_ISSUE_DONE;
	}
	return ZN_URING_ISSUE_ASYNC;
}

static void poll_add_cancel(struct zn_uring_req *req)
{
	poll_unlink(req->ring, req);
}

const struct zn_uring_op zn_poll_add_op = {
	.name = "POLL_ADD", .flags = ZN_URING_OP_NEEDS_FILE,
	.prep = poll_add_prep, .issue = poll_add_issue, .cancel = poll_add_cancel,
};

#define UPD_FLAGS (IORING_POLL_UPDATE_EVENTS | IORING_POLL_UPDATE_USER_DATA | IORING_POLL_ADD_MULTI)

static int poll_remove_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct poll_upd_pdu *u = (struct poll_upd_pdu *)req->pdu;
	uint32_t flags = sqe->len;

	memset(u, 0, sizeof(*u));
	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	if (flags & ~UPD_FLAGS)
		return -EINVAL;
	if (flags == IORING_POLL_ADD_MULTI)	/* meaningless without an update */
		return -EINVAL;
	u->old_ud = sqe->addr;
	u->upd_events = !!(flags & IORING_POLL_UPDATE_EVENTS);
	u->upd_ud = !!(flags & IORING_POLL_UPDATE_USER_DATA);
	u->new_ud = sqe->off;
	if (!u->upd_ud && u->new_ud)
		return -EINVAL;
	if (u->upd_events) {
		u->events = sqe->poll32_events & 0xffff;
		u->mshot = !!(flags & IORING_POLL_ADD_MULTI);
	}
	else if (sqe->poll32_events)
		return -EINVAL;
	return 0;
}

static int poll_remove_issue(struct zn_uring_req *req)
{
	struct poll_upd_pdu *u = (struct poll_upd_pdu *)req->pdu;
	struct zn_uring *r = req->ring;
	struct zn_uring_req *q;

	for (q = r->polls; q && q->user_data != u->old_ud; q = PDU(q)->next)
		;
	if (!q) {
		req->res = -ENOENT;
		return ZN_URING_ISSUE_DONE;
	}
	if (u->upd_events || u->upd_ud) {
		if (u->upd_events) {
			PDU(q)->events = u->events;
			PDU(q)->mshot = u->mshot;
			PDU(q)->last = 0;	/* re-armed: a ready event is a new edge */
		}
		if (u->upd_ud)
			q->user_data = u->new_ud;
		req->res = 0;
		return ZN_URING_ISSUE_DONE;
	}
	poll_unlink(r, q);
	zn_uring_req_complete(q, -ECANCELED, 0);
	req->res = 0;
	return ZN_URING_ISSUE_DONE;
}

const struct zn_uring_op zn_poll_remove_op = {
	.name = "POLL_REMOVE", .prep = poll_remove_prep, .issue = poll_remove_issue,
};
