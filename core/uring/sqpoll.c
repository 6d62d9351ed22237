/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_SETUP_SQPOLL, a thread per ring that consumes the SQ
 * and runs the ring's progress passes (MSG_RING inbox, poll hooks, so the
 * NIC queues bound to the ring, timers), so that the application thread
 * only writes SQEs and reads CQEs.
 *
 * As the kernel's io_uring/sqpoll.c:
 *  - the thread polls while there is work; after sq_thread_idle ms (0:
 *    1000 ms) without any, it sets IORING_SQ_NEED_WAKEUP in the SQ flags,
 *    checks the SQ once more and sleeps; io_uring_enter with
 *    IORING_ENTER_SQ_WAKEUP wakes it (liburing's submit does that when it
 *    sees the flag) and it clears the flag;
 *  - io_uring_enter on an SQPOLL ring returns to_submit at once (the
 *    thread does the submitting); IORING_ENTER_SQ_WAIT waits for SQ space,
 *    GETEVENTS for CQEs;
 *  - IORING_SETUP_SQ_AFF pins the thread to sq_thread_cpu (-EINVAL for a
 *    CPU that is not online);
 *  - the thread does not run a ring created R_DISABLED until it is
 *    enabled.
 * zcnic differences: while requests are in flight on a ring with a busy
 * hook (a NIC queue), nothing else would poll the NIC for them: in poll
 * mode the thread never sleeps then; in interrupt mode (zn_uring_set_wait,
 * ZN_URING_WAIT=irq) it sleeps on the queues' MSI-X eventfds after the
 * spin time, with IORING_SQ_NEED_WAKEUP set so that a submit wakes it.
 * While a timer is armed it sleeps no longer than to its deadline. Register calls from the
 * application park the thread (a mutex held for each pass) so that it
 * never sees a half-changed ring; the kernel's uring_lock does the same.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/barrier.h"
#include "base/clock.h"
#include "core/uring/uring_priv.h"
#include "core/uring/wait_arg.h"
#include "zcnic/log.h"

#define SQPOLL_IDLE_DEFAULT_MS	1000	/* the kernel's HZ */
#define SQPOLL_YIELD_AFTER	64	/* idle passes in a row before sched_yield */
#define CQ_WAIT_SPIN_NS		20000	/* an application waiter spins, then sleeps */

struct zn_sqpoll {
	struct zn_uring *r;
	pthread_t thread;
	pthread_mutex_t lock;		/* held for each pass; park() takes it */
	uint64_t idle_ns;
	int cpu;			/* -1: not pinned */
	_Atomic uint32_t stop;
	_Atomic uint32_t wake_seq;	/* futex: wake the thread */
	_Atomic uint32_t cq_seq;	/* futex: CQEs for a waiting application */
	_Atomic uint32_t cq_waiters;
	const void *tag;		/* the thread's zn_uring_thread_tag */
	_Atomic uint32_t parking;	/* register calls waiting for the lock */
	uint64_t irq_failed_at;		/* last_work when an interrupt sleep could not be */
	unsigned fork_gen;		/* zn_uring_fork_gen when it started */
};

static void futex_wake(_Atomic uint32_t *w)
{
	atomic_fetch_add(w, 1);
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void futex_wait(_Atomic uint32_t *w, uint32_t seen, uint64_t deadline)
{
	struct timespec ts, *tsp = NULL;

	if (deadline) {
		uint64_t now = zn_now_ns(), left = deadline > now ? deadline - now : 0;

		ts.tv_sec = (time_t)(left / 1000000000ull);
		ts.tv_nsec = (long)(left % 1000000000ull);
		tsp = &ts;
	}
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, tsp, NULL, 0);
}

static bool sq_pending(const struct zn_uring *r)
{
	return __atomic_load_n(&r->sh->sq_tail, __ATOMIC_ACQUIRE) != r->sh->sq_head;
}

/* One pass: submit what the SQ holds, run the ring. Work done (> 0). */
static unsigned pass(struct zn_uring *r)
{
	uint64_t before = r->st.cqes + r->ovf_count;
	unsigned work = 0;
	int n;

	if (sq_pending(r)) {
		n = zn_uring_submit_sqes(r, r->sq_entries);
		if (n > 0)
			work += (unsigned)n;
	}
	zn_uring_get_events(r);
	work += r->last_work;
	if (r->st.cqes + r->ovf_count != before) {
		work++;
		if (atomic_load(&r->sqp->cq_waiters))
			futex_wake(&r->sqp->cq_seq);
	}
	return work;
}

/*
 * NIC requests in flight, nothing to do: in interrupt mode, sleep on the
 * queues' interrupts. NEED_WAKEUP first, then the SQ looked at once more
 * (the kernel's order for its idle sleep), so that a submit that comes in
 * between either is seen here or wakes the sleep (zn_sqpoll_wake).
 */
static int irq_sleep(struct zn_sqpoll *sp, uint64_t last_work)
{
	struct zn_uring *r = sp->r;
	int rc = -EAGAIN;

	if (sq_pending(r) || last_work == sp->irq_failed_at)
		return rc;
	__atomic_fetch_or(&r->sh->sq_flags, IORING_SQ_NEED_WAKEUP, __ATOMIC_SEQ_CST);
	zn_smp_mb();
	if (!sq_pending(r) && !atomic_load(&sp->stop)) {
		pthread_mutex_lock(&sp->lock);
		if (!atomic_load(&sp->parking))
			rc = zn_uring_irq_idle(r, last_work);
		pthread_mutex_unlock(&sp->lock);
	}
	__atomic_fetch_and(&r->sh->sq_flags, ~IORING_SQ_NEED_WAKEUP, __ATOMIC_SEQ_CST);
	/* a queue without an interrupt: poll, and try again after some work */
	if (rc < 0 && rc != -EAGAIN)
		sp->irq_failed_at = last_work;
	return rc;
}

/* May the thread sleep? Not while a NIC must be polled for requests. */
static bool may_sleep(const struct zn_uring *r)
{
	return !(r->inflight && r->busy_hooks) && !sq_pending(r);
}

static void *sq_thread(void *arg)
{
	struct zn_sqpoll *sp = arg;
	struct zn_uring *r = sp->r;
	uint64_t last_work = zn_now_ns();
	unsigned idle = 0;

	sp->tag = zn_uring_thread_tag();
	while (!atomic_load(&sp->stop)) {
		uint32_t seen = atomic_load(&sp->wake_seq);
		unsigned work = 0;

		if (!atomic_load(&r->disabled)) {
			pthread_mutex_lock(&sp->lock);
			work = pass(r);
			pthread_mutex_unlock(&sp->lock);
		}
		if (work) {
			last_work = zn_now_ns();
			idle = 0;
			continue;
		}
		if (!atomic_load(&r->disabled) &&
		    (zn_now_ns() - last_work < sp->idle_ns || !may_sleep(r))) {
			if (!may_sleep(r) && irq_sleep(sp, last_work) == 0) {
				idle = 0;
				continue;
			}
			if (++idle >= SQPOLL_YIELD_AFTER)
				sched_yield();
			else
				zn_cpu_relax();
			continue;
		}
		/* idle: say so, look once more, sleep (the kernel's order) */
		__atomic_fetch_or(&r->sh->sq_flags, IORING_SQ_NEED_WAKEUP, __ATOMIC_SEQ_CST);
		zn_smp_mb();
		if ((!atomic_load(&r->disabled) && sq_pending(r)) || atomic_load(&sp->stop)) {
			__atomic_fetch_and(&r->sh->sq_flags, ~IORING_SQ_NEED_WAKEUP,
					   __ATOMIC_SEQ_CST);
			continue;
		}
		futex_wait(&sp->wake_seq, seen, zn_uring_timers_next(r));
		__atomic_fetch_and(&r->sh->sq_flags, ~IORING_SQ_NEED_WAKEUP, __ATOMIC_SEQ_CST);
		last_work = zn_now_ns();
		idle = 0;
	}
	return NULL;
}

int zn_sqpoll_start(struct zn_uring *r, const struct io_uring_params *p)
{
	struct zn_sqpoll *sp;
	int rc;

	if (p->flags & IORING_SETUP_SQ_AFF) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		if (p->sq_thread_cpu >= CPU_SETSIZE || (long)p->sq_thread_cpu >= ncpu)
			return -EINVAL;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->r = r;
	sp->cpu = (p->flags & IORING_SETUP_SQ_AFF) ? (int)p->sq_thread_cpu : -1;
	sp->idle_ns = (uint64_t)(p->sq_thread_idle ? p->sq_thread_idle :
				 SQPOLL_IDLE_DEFAULT_MS) * 1000000ull;
	pthread_mutex_init(&sp->lock, NULL);
	r->sqp = sp;
	sp->fork_gen = zn_uring_fork_gen();
	rc = pthread_create(&sp->thread, NULL, sq_thread, sp);
	if (rc) {
		r->sqp = NULL;
		pthread_mutex_destroy(&sp->lock);
		free(sp);
		return -rc;
	}
	if (sp->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(sp->cpu, &set);
		rc = pthread_setaffinity_np(sp->thread, sizeof(set), &set);
		if (rc)
			ZN_LOG_RL(ZN_LOG_WARN, "uring", "SQPOLL thread: cannot pin to CPU %d: %d",
				  sp->cpu, rc);
	}
	pthread_setname_np(sp->thread, "zn-sqpoll");
	return 0;
}

void zn_sqpoll_stop(struct zn_uring *r)
{
	struct zn_sqpoll *sp = r->sqp;

	if (!sp)
		return;
	atomic_store(&sp->stop, 1);
	futex_wake(&sp->wake_seq);
	zn_uring_irq_kick(r);
	pthread_join(sp->thread, NULL);
	pthread_mutex_destroy(&sp->lock);
	r->sqp = NULL;
	free(sp);
}

void zn_sqpoll_wake(struct zn_uring *r)
{
	struct zn_sqpoll *sp = r->sqp;

	if (!sp)
		return;
	futex_wake(&sp->wake_seq);
	/* asleep on its NICs' interrupts (NEED_WAKEUP set), or about to be */
	if (__atomic_load_n(&r->sh->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP)
		zn_uring_irq_kick(r);
}

void zn_sqpoll_park(struct zn_uring *r)
{
	if (r->sqp && r->sqp->tag != zn_uring_thread_tag()) {
		/* an interrupt sleep holds the lock: it sees parking, or we see
		 * the NEED_WAKEUP it set before it looked, and end it */
		atomic_fetch_add(&r->sqp->parking, 1);
		zn_smp_mb();
		if (__atomic_load_n(&r->sh->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP)
			zn_uring_irq_kick(r);
		pthread_mutex_lock(&r->sqp->lock);
	}
}

void zn_sqpoll_unpark(struct zn_uring *r)
{
	if (r->sqp && r->sqp->tag != zn_uring_thread_tag()) {
		pthread_mutex_unlock(&r->sqp->lock);
		atomic_fetch_sub(&r->sqp->parking, 1);
	}
}

bool zn_sqpoll_is_thread(const struct zn_uring *r)
{
	return r->sqp && r->sqp->tag == zn_uring_thread_tag();
}

static int wait_cqes(struct zn_uring *r, struct zn_wait_state *ws)
{
	struct zn_sqpoll *sp = r->sqp;
	uint64_t start = zn_now_ns();
	int rc = 0;

	for (;;) {
		uint32_t seen = atomic_load(&sp->cq_seq);
		unsigned ready = zn_uring_cq_ready(r);
		uint64_t now, until;

		/* CQEs waiting for CQ space: only the thread can move them */
		if (ready < ws->target &&
		    (r->sh->sq_flags & (IORING_SQ_CQ_OVERFLOW | IORING_SQ_NEED_WAKEUP)))
			zn_sqpoll_wake(r);
		now = zn_now_ns();
		if (zn_wait_done(r, ws, ready, now, &rc))
			break;
		if (now - start < CQ_WAIT_SPIN_NS) {
			zn_cpu_relax();
			continue;
		}
		until = zn_wait_next(ws);
		atomic_fetch_add(&sp->cq_waiters, 1);
		zn_smp_mb();
		if (zn_uring_cq_ready(r) < ws->target)
			futex_wait(&sp->cq_seq, seen, until ? until :
				   zn_now_ns() + 10000000ull);	/* 10 ms: overflow re-check */
		atomic_fetch_sub(&sp->cq_waiters, 1);
	}
	return rc;
}

static unsigned cq_ready(struct zn_uring *r)
{
	return zn_uring_cq_ready(r);
}

int zn_sqpoll_enter(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		    unsigned flags, const void *arg, size_t argsz, const struct zn_wait_arg *pre)
{
	struct zn_wait_arg wa;
	int rc = 0;

	if (flags & ~ZN_ENTER_FLAGS)
		return -EINVAL;
	if (zn_sqpoll_is_thread(r))
		return -EEXIST;		/* the thread never enters its own ring */
	/* a forked child has the ring's memory but not its thread: Linux's
	 * answer for an SQPOLL ring whose thread is gone */
	if (r->sqp->fork_gen != zn_uring_fork_gen())
		return -EOWNERDEAD;
	/* liburing's submit wakes it only when it sees NEED_WAKEUP: so do we */
	if ((flags & IORING_ENTER_SQ_WAKEUP) ||
	    (to_submit && (r->sh->sq_flags & IORING_SQ_NEED_WAKEUP)))
		zn_sqpoll_wake(r);
	if (flags & IORING_ENTER_SQ_WAIT) {
		while (__atomic_load_n(&r->sh->sq_tail, __ATOMIC_RELAXED) -
		       __atomic_load_n(&r->sh->sq_head, __ATOMIC_ACQUIRE) >= r->sq_entries) {
			zn_sqpoll_wake(r);
			sched_yield();
		}
	}
	if (flags & IORING_ENTER_GETEVENTS) {
		rc = pre ? 0 : zn_wait_arg_get(r, flags, arg, argsz, &wa);
		if (!rc)
			rc = zn_uring_wait(r, min_complete, flags, pre ? pre : &wa, cq_ready,
					   wait_cqes);
	}
	return to_submit ? (int)to_submit : rc;
}
