/* SPDX-License-Identifier: MIT */
/*
 * core/uring: io_uring_enter() for rings without a kernel: submission,
 * the owner's progress pass (overflow flush, MSG_RING inbox, poll hooks)
 * and waiting.
 *
 * A wait spins through progress passes; it sleeps only when nothing can
 * arrive but a MSG_RING message (no ZN_URING_HOOK_BUSY hook) and the spin
 * budget is spent. Sleeping is a futex on wake_seq: the waiter publishes
 * `sleeping`, re-checks the inbox, and sleeps only if wake_seq has not
 * moved; a producer that finds `sleeping` set bumps wake_seq and wakes it
 * (msg_ring.c zn_uring_wake). Seq-cst fences on both sides make sure one
 * of them sees the other, so no message is left unnoticed by a sleeper.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/barrier.h"
#include "base/clock.h"
#include "core/uring/uring_priv.h"

#define ZN_URING_SPIN_NS	50000	/* busy passes before a wait may sleep */
/*
 * A wait that keeps polling a NIC gives the CPU away (sched_yield) after
 * this many passes in a row found nothing to do. On a core of its own the
 * call returns at once; on a shared one it lets whatever the wait is waiting
 * for run (another process's thread, a device model) instead of burning the
 * time slice.
 */
#define ZN_URING_YIELD_AFTER	64


static unsigned run_hooks(struct zn_uring *r)
{
	unsigned i, work = 0;

	if (r->in_hooks)	/* a hook that enters its own ring does not recurse */
		return 0;
	r->in_hooks = true;
	for (i = 0; i < r->nhooks; i++) {
		struct zn_hook *h = &r->hooks[i];
		int rc;

		if (!h->used)
			continue;
		rc = h->fn(r, h->arg);
		r->st.hook_polls++;
		if (rc > 0)
			work += (unsigned)rc;
	}
	r->in_hooks = false;
	return work;
}

unsigned zn_uring_get_events(struct zn_uring *r)
{
	/* an SQPOLL ring is run by its thread alone */
	if (r->sqp && !zn_sqpoll_is_thread(r))
		return zn_uring_cq_ready(r);
	/* overflowed CQEs are older than anything the inbox or hooks bring */
	if (r->ovf_count)
		zn_uring_flush_overflow(r);
	/* TASKRUN: cleared before the drain, so a message after it sets it again */
	if (r->sh->sq_flags & IORING_SQ_TASKRUN)
		__atomic_fetch_and(&r->sh->sq_flags, ~IORING_SQ_TASKRUN, __ATOMIC_RELAXED);
	zn_inbox_drain(r);
	r->last_work = run_hooks(r);
	if (r->timers)
		zn_uring_timers_run(r);
	if (r->drain_active)	/* completions of this pass may release held chains */
		zn_uring_drain_flush(r);
	if (r->evfd >= 0)
		zn_uring_evfd_signal(r, false);
	return zn_uring_cq_ready(r);
}

/* Sleep until a producer wakes us or deadline (0: none) passes. */
static void sleep_once(struct zn_uring *r, uint64_t deadline)
{
	uint32_t seq = atomic_load(&r->wake_seq);
	struct timespec ts, *tsp = NULL;
	uint64_t timer = zn_uring_timers_next(r);

	/* an armed TIMEOUT is a deadline of its own */
	if (timer && (!deadline || timer < deadline))
		deadline = timer;

	atomic_store(&r->sleeping, 1);
	zn_smp_mb();
	if (zn_inbox_empty(&r->inbox)) {
		if (deadline) {
			uint64_t now = zn_now_ns();
			uint64_t left = deadline > now ? deadline - now : 0;

			ts.tv_sec = (time_t)(left / 1000000000ull);
			ts.tv_nsec = (long)(left % 1000000000ull);
			tsp = &ts;
		}
		/* returns at once if a producer bumped wake_seq since we read it */
		syscall(SYS_futex, &r->wake_seq, FUTEX_WAIT_PRIVATE, seq, tsp, NULL, 0);
		r->st.sleeps++;
	}
	atomic_store(&r->sleeping, 0);
}

static int wait_cqes(struct zn_uring *r, unsigned min_complete, int64_t timeout_ns)
{
	bool timed = timeout_ns >= 0;
	uint64_t start = zn_now_ns();
	uint64_t deadline = timed ? start + (uint64_t)timeout_ns : 0;
	uint64_t spin_until = start + ZN_URING_SPIN_NS;
	unsigned idle = 0;

	for (;;) {
		uint64_t now;
		unsigned ready = zn_uring_get_events(r);

		if (ready >= min_complete)
			return 0;
		now = zn_now_ns();
		if (timed && now >= deadline)
			return ready ? 0 : -ETIME;
		if (r->busy_hooks || now < spin_until) {
			idle = r->last_work ? 0 : idle + 1;
			if (idle >= ZN_URING_YIELD_AFTER)
				sched_yield();
			else
				zn_cpu_relax();
			continue;
		}
		sleep_once(r, deadline);
	}
}

int zn_uring_enter(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		   unsigned flags, int64_t timeout_ns)
{
	int submitted = 0, ret = 0;

	if (atomic_load_explicit(&r->disabled, memory_order_relaxed))
		return -EBADFD;		/* R_DISABLED until enable_rings (kernel) */
	if (r->sqp)	/* the polling thread submits and reaps (sqpoll.c) */
		return zn_sqpoll_enter(r, to_submit, min_complete, flags, timeout_ns);
	if ((r->flags & IORING_SETUP_SINGLE_ISSUER) && r->owner != zn_uring_thread_tag())
		return -EEXIST;
	if (flags & ~ZN_ENTER_FLAGS)
		return -EINVAL;
	if (r->ovf_count)
		zn_uring_flush_overflow(r);
	if (to_submit) {
		submitted = zn_uring_submit_sqes(r, to_submit);
		if (submitted < 0)
			return submitted;
		if (r->evfd >= 0)
			zn_uring_evfd_signal(r, true);
	}
	if ((flags & IORING_ENTER_GETEVENTS) && min_complete)
		ret = wait_cqes(r, min_complete, timeout_ns);
	else
		zn_uring_get_events(r);	/* progress even for a plain submit */
	return submitted ? submitted : ret;
}
