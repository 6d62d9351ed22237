/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_OP_TIMEOUT, TIMEOUT_REMOVE (and its update form) and
 * LINK_TIMEOUT.
 *
 * Semantics are the kernel's io_uring/timeout.c:
 *  - prep: buf_index, len != 1, file_index: -EINVAL; flags other than ABS,
 *    one clock (BOOTTIME or REALTIME), ETIME_SUCCESS, MULTISHOT: -EINVAL;
 *    two clocks, or MULTISHOT with ABS: -EINVAL; no timespec: -EFAULT; a
 *    negative one: -EINVAL. LINK_TIMEOUT: sqe->off != 0 -EINVAL, and it must
 *    follow a member of a link chain that is not a LINK_TIMEOUT (-EINVAL);
 *  - TIMEOUT with off = N completes with 0 once N CQEs were posted after it
 *    was issued (CQEs of timeouts do not count), or with -ETIME when its time
 *    passes first; -ETIME fails its links unless ETIME_SUCCESS;
 *  - MULTISHOT: -ETIME with IORING_CQE_F_MORE every period, off times
 *    (0: until removed); the last CQE has no F_MORE;
 *  - TIMEOUT_REMOVE: the TIMEOUT with user_data sqe->addr completes with
 *    -ECANCELED and the remove with 0, else -ENOENT; with
 *    IORING_TIMEOUT_UPDATE (or IORING_LINK_TIMEOUT_UPDATE) the timer is set
 *    again from the timespec at sqe->addr2 and a TIMEOUT loses its count;
 *  - LINK_TIMEOUT guards the request before it in the chain, from the
 *    moment that request is issued: if the time passes first, the request
 *    is cancelled (-ECANCELED, the rest of its chain too) and the
 *    LINK_TIMEOUT completes with -ETIME (or the cancel's error, -EALREADY
 *    when the request cannot be stopped); if the request completes first,
 *    the LINK_TIMEOUT completes with -ECANCELED and the chain goes on.
 *
 * There is no timer interrupt: timers are checked in every progress pass
 * of the owner (zn_uring_get_events), and a wait sleeps no longer than the
 * earliest deadline. ABS timespecs are converted to CLOCK_MONOTONIC when the
 * timeout is issued; a later jump of the realtime clock does not move them.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "core/uring/uring_priv.h"

#define TIMEOUT_FLAGS (IORING_TIMEOUT_ABS | IORING_TIMEOUT_CLOCK_MASK |		\
	IORING_TIMEOUT_ETIME_SUCCESS | IORING_TIMEOUT_MULTISHOT)

struct tmo_pdu {
	uint64_t deadline;		/* CLOCK_MONOTONIC ns once armed; ABS value before */
	uint64_t period;		/* relative ns (multishot re-arm) */
	struct zn_uring_req *prev, *next;	/* r->timers, earliest first */
	struct zn_uring_req *head;	/* LINK_TIMEOUT: the request it guards */
	uint32_t start;			/* count mode: the seq when it was armed */
	uint32_t off;			/* count; multishot: repeats left (0: forever) */
	uint32_t flags;			/* IORING_TIMEOUT_* */
	uint8_t armed;
	uint8_t is_link;
};
_Static_assert(sizeof(struct tmo_pdu) <= ZN_URING_REQ_PDU, "timeout pdu");

struct tmo_rem_pdu {
	uint64_t addr;
	uint64_t ns;		/* update: the new timespec in ns */
	uint32_t flags;
};

#define TP(req) ((struct tmo_pdu *)(req)->pdu)

/* CQEs posted so far that count for TIMEOUT off (the kernel's seq). */
static uint32_t cq_seq(const struct zn_uring *r)
{
	return (uint32_t)(r->st.cqes + r->ovf_count) - r->cq_timeouts;
}

static clockid_t tmo_clock(uint32_t flags)
{
	if (flags & IORING_TIMEOUT_BOOTTIME)
		return CLOCK_BOOTTIME;
	if (flags & IORING_TIMEOUT_REALTIME)
		return CLOCK_REALTIME;
	return CLOCK_MONOTONIC;
}

/* The timespec at uaddr in ns: 0, -EFAULT (none) or -EINVAL (negative). */
static int read_ts(uint64_t uaddr, uint64_t *ns)
{
	const struct __kernel_timespec *ts = (const void *)(uintptr_t)uaddr;

	if (!ts)
		return -EFAULT;
	if (ts->tv_sec < 0 || ts->tv_nsec < 0)
		return -EINVAL;
	if ((uint64_t)ts->tv_sec > UINT64_MAX / 1000000000ull / 2)
		*ns = UINT64_MAX / 2;	/* "never", without overflow */
	else
		*ns = (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
	return 0;
}

/* The monotonic deadline of ns taken as flags say (relative or absolute). */
static uint64_t to_deadline(uint64_t ns, uint32_t flags)
{
	uint64_t now = zn_now_ns();
	struct timespec c;
	uint64_t cnow;

	if (!(flags & IORING_TIMEOUT_ABS))
		return now + ns;
	clock_gettime(tmo_clock(flags), &c);
	cnow = (uint64_t)c.tv_sec * 1000000000ull + (uint64_t)c.tv_nsec;
	return ns > cnow ? now + (ns - cnow) : now;
}

static void timer_del(struct zn_uring *r, struct zn_uring_req *req)
{
	struct tmo_pdu *t = TP(req);

	if (!t->armed)
		return;
	if (t->prev)
		TP(t->prev)->next = t->next;
	else
		r->timers = t->next;
	if (t->next)
		TP(t->next)->prev = t->prev;
	t->prev = t->next = NULL;
	t->armed = 0;
}

static void timer_add(struct zn_uring *r, struct zn_uring_req *req, uint64_t deadline)
{
	struct tmo_pdu *t = TP(req);
	struct zn_uring_req *prev = NULL, *cur = r->timers;

	t->deadline = deadline;
	while (cur && TP(cur)->deadline <= deadline) {
		prev = cur;
		cur = TP(cur)->next;
	}
	t->prev = prev;
	t->next = cur;
	if (prev)
		TP(prev)->next = req;
	else
		r->timers = req;
	if (cur)
		TP(cur)->prev = req;
	t->armed = 1;
}

static int tmo_prep_common(struct zn_uring_req *req, const struct io_uring_sqe *sqe, bool link)
{
	struct tmo_pdu *t = TP(req);
	uint32_t flags = sqe->timeout_flags, off = (uint32_t)sqe->off;
	int rc;

	memset(t, 0, sizeof(*t));
	if (sqe->buf_index || sqe->len != 1 || sqe->splice_fd_in)
		return -EINVAL;
	if (off && link)
		return -EINVAL;
	if (flags & ~TIMEOUT_FLAGS)
		return -EINVAL;
	if (__builtin_popcount(flags & IORING_TIMEOUT_CLOCK_MASK) > 1)
		return -EINVAL;
	if ((flags & IORING_TIMEOUT_MULTISHOT) && (flags & IORING_TIMEOUT_ABS))
		return -EINVAL;
	t->off = off;
	t->flags = flags;
	t->is_link = link;
	rc = read_ts(sqe->addr, &t->period);
	if (rc)
		return rc;
	if (link) {
		struct zn_uring *r = req->ring;

		/* it guards the chain's last member so far */
		if (!r->link_head || r->link_last->opcode == IORING_OP_LINK_TIMEOUT)
			return -EINVAL;
	}
	return 0;
}

static int timeout_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	return tmo_prep_common(req, sqe, false);
}

static int link_timeout_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	return tmo_prep_common(req, sqe, true);
}

static bool noseq(const struct tmo_pdu *t)
{
	return !t->off || (t->flags & IORING_TIMEOUT_MULTISHOT);
}

static int timeout_issue(struct zn_uring_req *req)
{
	struct zn_uring *r = req->ring;
	struct tmo_pdu *t = TP(req);

	if (!noseq(t))
		t->start = cq_seq(r);
	timer_add(r, req, to_deadline(t->period, t->flags));
	return ZN_URING_ISSUE_ASYNC;
}

static void timeout_cancel(struct zn_uring_req *req)
{
	timer_del(req->ring, req);
}

/* Never issued: the request it guards takes it off the chain (submit.c). */
static int link_timeout_issue(struct zn_uring_req *req)
{
	req->res = -ECANCELED;
	return ZN_URING_ISSUE_DONE;
}

void zn_uring_link_timeout_arm(struct zn_uring_req *lt, struct zn_uring_req *head)
{
	struct tmo_pdu *t = TP(lt);

	t->head = head;
	timer_add(head->ring, lt, to_deadline(t->period, t->flags));
}

void zn_uring_link_timeout_disarm(struct zn_uring *r, struct zn_uring_req *lt)
{
	timer_del(r, lt);
	TP(lt)->head = NULL;
}

/* A LINK_TIMEOUT's time passed: cancel what it guards, then complete it. */
static void link_timeout_fire(struct zn_uring *r, struct zn_uring_req *lt)
{
	struct zn_uring_req *head = TP(lt)->head;
	int rc = -ENOENT;

	timer_del(r, lt);
	TP(lt)->head = NULL;
	if (head) {
		/* out of the chain first, so that the cancel does not fail it */
		head->link = lt->link;
		lt->link = NULL;
		if (zn_uring_req_is_inflight(r, head))
			rc = zn_uring_req_cancel(head, -ECANCELED);
	}
	zn_uring_req_finish(lt, rc ? rc : -ETIME);
}

static void timeout_fire(struct zn_uring *r, struct zn_uring_req *req, uint64_t now)
{
	struct tmo_pdu *t = TP(req);
	bool last = true;

	timer_del(r, req);
	r->cq_timeouts++;
	if (t->flags & IORING_TIMEOUT_MULTISHOT) {
		/* off == 0: forever; else off shots in all */
		last = t->off && --t->off == 0;
		if (!last) {
			zn_uring_post_cqe(r, req->user_data, -ETIME, IORING_CQE_F_MORE, NULL, 0);
			/* a 0 period fires once per pass, not forever within one */
			timer_add(r, req, now + (t->period ? t->period : 1));
			return;
		}
	}
	if (t->flags & IORING_TIMEOUT_ETIME_SUCCESS)
		zn_uring_req_complete_nofail(req, -ETIME, 0);
	else
		zn_uring_req_complete(req, -ETIME, 0);
}

/* The first timer that is due: its time passed, or its count was reached. */
static struct zn_uring_req *due(struct zn_uring *r, uint64_t now, uint32_t seq, bool *by_count)
{
	struct zn_uring_req *q;

	for (q = r->timers; q; q = TP(q)->next) {
		struct tmo_pdu *t = TP(q);

		if (t->deadline <= now) {
			*by_count = false;
			return q;
		}
		/* CQEs since it was armed, unsigned as the kernel's: off -1U is never reached */
		if (!t->is_link && !noseq(t) && seq - t->start >= t->off) {
			*by_count = true;
			return q;
		}
	}
	return NULL;
}

void zn_uring_timers_run(struct zn_uring *r)
{
	uint64_t now = zn_now_ns();
	struct zn_uring_req *q;
	bool by_count;

	/* Firing one may post CQEs, arm or remove others: look again each time. */
	while ((q = due(r, now, cq_seq(r), &by_count))) {
		if (TP(q)->is_link) {
			link_timeout_fire(r, q);
		} else if (by_count) {
			timer_del(r, q);
			r->cq_timeouts++;
			zn_uring_req_complete(q, 0, 0);
		} else {
			timeout_fire(r, q, now);
		}
	}
}

uint64_t zn_uring_timers_next(const struct zn_uring *r)
{
	return r->timers ? TP(r->timers)->deadline : 0;
}

void zn_uring_timers_cancel_all(struct zn_uring *r)
{
	/* Ring exit: requests are gone already, the list only points at them. */
	r->timers = NULL;
}

/* The armed TIMEOUT (or LINK_TIMEOUT) with user_data, or NULL. */
static struct zn_uring_req *find(struct zn_uring *r, uint64_t user_data, bool link)
{
	struct zn_uring_req *q;

	for (q = r->timers; q; q = TP(q)->next)
		if (q->user_data == user_data && TP(q)->is_link == link)
			return q;
	return NULL;
}

int zn_uring_timeout_cancel(struct zn_uring *r, uint64_t user_data)
{
	struct zn_uring_req *q = find(r, user_data, false);

	if (!q)
		return -ENOENT;
	return zn_uring_req_cancel(q, -ECANCELED);
}

static int timeout_remove_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct tmo_rem_pdu *p = (struct tmo_rem_pdu *)req->pdu;
	int rc;

	memset(p, 0, sizeof(*p));
	if (req->sqe_flags & IOSQE_FIXED_FILE)
		return -EINVAL;
	if (sqe->buf_index || sqe->len || sqe->splice_fd_in)
		return -EINVAL;
	p->addr = sqe->addr;
	p->flags = sqe->timeout_flags;
	if (p->flags & IORING_TIMEOUT_UPDATE_MASK) {
		if (__builtin_popcount(p->flags & IORING_TIMEOUT_CLOCK_MASK) > 1)
			return -EINVAL;
		if (p->flags & ~(IORING_TIMEOUT_UPDATE_MASK | IORING_TIMEOUT_ABS))
			return -EINVAL;
		rc = read_ts(sqe->addr2, &p->ns);
		if (rc)
			return rc;
	} else if (p->flags) {
		return -EINVAL;
	}
	return 0;
}

static int timeout_remove_issue(struct zn_uring_req *req)
{
	struct tmo_rem_pdu *p = (struct tmo_rem_pdu *)req->pdu;
	struct zn_uring *r = req->ring;
	uint32_t mode = p->flags & IORING_TIMEOUT_ABS;
	struct zn_uring_req *q;

	if (!(p->flags & IORING_TIMEOUT_UPDATE_MASK)) {
		req->res = zn_uring_timeout_cancel(r, p->addr);
		return ZN_URING_ISSUE_DONE;
	}
	q = find(r, p->addr, p->flags & IORING_LINK_TIMEOUT_UPDATE);
	if (!q) {
		req->res = -ENOENT;
		return ZN_URING_ISSUE_DONE;
	}
	timer_del(r, q);
	/* the new timespec is read with the timeout's own clock */
	TP(q)->flags = (TP(q)->flags & ~IORING_TIMEOUT_ABS) | mode;
	TP(q)->period = p->ns;
	if (!TP(q)->is_link)
		TP(q)->off = 0;		/* an updated TIMEOUT counts no more (kernel) */
	timer_add(r, q, to_deadline(p->ns, TP(q)->flags));
	req->res = 0;
	return ZN_URING_ISSUE_DONE;
}

const struct zn_uring_op zn_timeout_op = {
	.name = "TIMEOUT", .prep = timeout_prep, .issue = timeout_issue,
	.cancel = timeout_cancel,
};

const struct zn_uring_op zn_timeout_remove_op = {
	.name = "TIMEOUT_REMOVE", .prep = timeout_remove_prep, .issue = timeout_remove_issue,
};

const struct zn_uring_op zn_link_timeout_op = {
	.name = "LINK_TIMEOUT", .prep = link_timeout_prep, .issue = link_timeout_issue,
};
