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
 *
 * Interrupt wait mode (ZN_URING_WAIT_IRQ) lets a ring with busy hooks
 * sleep too: it polls for a spin budget after the last work, then
 *   1. arms every busy hook's source (their NIC queues' interrupts, one
 *      shot each) and gathers the eventfds they signal,
 *   2. publishes `sleeping` and runs one more pass: a completion that came
 *      before an arm took effect is found here (the device raises the
 *      vector for it as well), a MSG_RING sent before `sleeping` was seen
 *      is in the inbox,
 *   3. sleeps in ppoll on those eventfds and the ring's wake eventfd (a
 *      producer that finds `sleeping` writes it), until the earliest of the
 *      wait's deadline, an armed TIMEOUT, the hooks' timers and 100 ms,
 *   4. reads the eventfds that fired and polls again (spinning first).
 * An interrupt that fires for a completion step 2 already took only wakes
 * the next sleep early, once: nothing is lost, at worst a pass is spent.
 *
 * What a wait is told (timeout, clock, minimum wait, signal mask) and when
 * it ends: core/uring/wait_arg.c.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/barrier.h"
#include "base/clock.h"
#include "core/uring/uring_priv.h"
#include "core/uring/wait_arg.h"

#define ZN_URING_SPIN_NS	50000	/* busy passes before a wait may sleep */
/*
 * A wait that keeps polling a NIC gives the CPU away (sched_yield) after
 * this many passes in a row found nothing to do. On a core of its own the
 * call returns at once; on a shared one it lets whatever the wait is waiting
 * for run (another process's thread, a device model) instead of burning the
 * time slice.
 */
#define ZN_URING_YIELD_AFTER	64
#define ZN_URING_IRQ_FDS	64	/* eventfds one interrupt sleep waits on */
/*
 * The longest interrupt sleep: a safety net, not a poll. An interrupt the
 * device never sends (a function reset during a driver's recovery may
 * drop its MSI-X set-up until the port is restarted) then costs at most
 * this much latency, and ten wake-ups a second cost nothing measurable.
 */
#define ZN_URING_IRQ_SLEEP_MAX_NS	(100ull * 1000 * 1000)
#define ZN_URING_SPIN_MAX_US	1000000	/* zn_uring_set_wait's bound on spin_us */


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

/* ---- interrupt wait mode ---- */

int zn_uring_hook_set_arm(struct zn_uring *r, int id, zn_uring_arm_fn arm)
{
	if (id < 0 || id >= ZN_URING_MAX_HOOKS || !r->hooks[id].used)
		return -ENOENT;
	r->hooks[id].arm = arm;
	return 0;
}

int zn_uring_set_wait(struct zn_uring *r, unsigned mode, uint32_t spin_us)
{
	if (!r || mode > ZN_URING_WAIT_IRQ || spin_us > ZN_URING_SPIN_MAX_US)
		return -EINVAL;
	r->wait_mode = (uint8_t)mode;
	r->wait_spin_ns = (uint64_t)spin_us * 1000;
	r->wait_env_read = true;	/* the program's choice wins */
	return 0;
}

static void wait_env(struct zn_uring *r)
{
	const char *v = getenv("ZN_URING_WAIT");

	r->wait_env_read = true;
	if (v && !strcmp(v, "irq"))
		r->wait_mode = ZN_URING_WAIT_IRQ;
}

static void wake_fd_close(struct zn_uring *r, void *arg)
{
	int fd = atomic_exchange(&r->wake_fd1, 0) - 1;

	(void)arg;
	if (fd >= 0)
		close(fd);
}

/* The eventfd producers wake a sleeper with, made on the first sleep. */
static int wake_fd(struct zn_uring *r)
{
	int fd = atomic_load(&r->wake_fd1) - 1, rc;

	if (fd >= 0)
		return fd;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = zn_uring_on_exit(r, wake_fd_close, NULL);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	atomic_store(&r->wake_fd1, fd + 1);
	return fd;
}

/* Step 1: every busy hook armed; the number of fds in fds, or why not. */
static int arm_hooks(struct zn_uring *r, int *fds, unsigned max, uint64_t *until)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nhooks; i++) {
		struct zn_hook *h = &r->hooks[i];
		int rc;

		if (!h->used || !(h->flags & ZN_URING_HOOK_BUSY))
			continue;
		if (!h->arm)
			return -EOPNOTSUPP;
		rc = h->arm(r, h->arg, fds + n, max - n, until);
		if (rc < 0)
			return rc;
		n += (unsigned)rc;
	}
	return (int)n;
}

static void drain_fd(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		;
}

/* Steps 1-4; 0 (slept, or found work on the way), or why it cannot sleep. */
static int sleep_irq(struct zn_uring *r, uint64_t deadline, unsigned min_complete)
{
	struct pollfd pfd[ZN_URING_IRQ_FDS];
	int fds[ZN_URING_IRQ_FDS];
	uint64_t until = deadline ? deadline : UINT64_MAX, timer = zn_uring_timers_next(r), now;
	struct timespec ts;
	unsigned nfd;
	int n, wfd = wake_fd(r);

	if (wfd < 0)
		return wfd;
	if (timer && timer < until)
		until = timer;
	fds[0] = wfd;
	n = arm_hooks(r, fds + 1, ZN_URING_IRQ_FDS - 1, &until);
	if (n < 0)
		return n;
	nfd = (unsigned)n + 1 < ZN_URING_IRQ_FDS ? (unsigned)n + 1 : ZN_URING_IRQ_FDS;
	atomic_store(&r->sleeping, 1);
	zn_smp_mb();
	if (zn_uring_get_events(r) >= min_complete || r->last_work ||
	    !zn_inbox_empty(&r->inbox)) {
		atomic_store(&r->sleeping, 0);
		return 0;
	}
	now = zn_now_ns();
	until = until > now ? until - now : 0;
	if (until > ZN_URING_IRQ_SLEEP_MAX_NS)
		until = ZN_URING_IRQ_SLEEP_MAX_NS;
	ts.tv_sec = (time_t)(until / 1000000000ull);
	ts.tv_nsec = (long)(until % 1000000000ull);
	for (unsigned i = 0; i < nfd; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	if (ppoll(pfd, nfd, &ts, NULL) > 0)
		for (unsigned i = 0; i < nfd; i++)
			if (pfd[i].revents & POLLIN)
				drain_fd(pfd[i].fd);
	r->st.irq_sleeps++;
	atomic_store(&r->sleeping, 0);
	return 0;
}

static int wait_cqes(struct zn_uring *r, struct zn_wait_state *ws)
{
	uint64_t start = zn_now_ns();
	uint64_t spin, spin_until;
	unsigned idle = 0;
	bool irq;

	if (!r->wait_env_read)
		wait_env(r);
	irq = r->wait_mode == ZN_URING_WAIT_IRQ;
	spin = irq && r->wait_spin_ns ? r->wait_spin_ns : ZN_URING_SPIN_NS;
	spin_until = start + spin;
	for (;;) {
		uint64_t now;
		unsigned ready = zn_uring_get_events(r);
		int rc;

		now = zn_now_ns();
		if (zn_wait_done(r, ws, ready, now, &rc))
			return rc;
		/* adaptive: while work flows, an interrupt would cost more than a spin */
		if (irq && r->last_work)
			spin_until = now + spin;
		if (now < spin_until || (r->busy_hooks && !irq)) {
			idle = r->last_work ? 0 : idle + 1;
			if (idle >= ZN_URING_YIELD_AFTER)
				sched_yield();
			else
				zn_cpu_relax();
			continue;
		}
		if (!r->busy_hooks) {
			sleep_once(r, zn_wait_next(ws));
			continue;
		}
		/* some source cannot interrupt: poll for the rest of this wait */
		if (sleep_irq(r, zn_wait_next(ws), ws->target) < 0)
			irq = false;
		spin_until = zn_now_ns() + spin;
	}
}

/* io_cqring_wait: the wait of an enter, its signal mask around it. */
int zn_uring_wait(struct zn_uring *r, unsigned min_complete, unsigned flags,
		  const struct zn_wait_arg *wa, unsigned (*ready)(struct zn_uring *r),
		  int (*wait)(struct zn_uring *r, struct zn_wait_state *ws))
{
	struct zn_wait_state ws;
	sigset_t old;
	bool sig;
	int rc;

	if (min_complete > r->cq_entries)
		min_complete = r->cq_entries;
	if (ready(r) >= min_complete)
		return 0;
	rc = zn_wait_sigmask_set(wa, &old, &sig);
	if (rc)
		return rc;
	zn_wait_begin(r, wa, flags, min_complete, &ws);
	rc = wait(r, &ws);
	zn_wait_sigmask_restore(&old, sig);
	return rc;
}

static int enter(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		 unsigned flags, const void *arg, size_t argsz, const struct zn_wait_arg *pre)
{
	struct zn_wait_arg wa;
	int submitted = 0, ret = 0;

	if (flags & ~ZN_ENTER_FLAGS)
		return -EINVAL;
	if (atomic_load_explicit(&r->disabled, memory_order_relaxed))
		return -EBADFD;		/* R_DISABLED until enable_rings (kernel) */
	if (r->sqp)	/* the polling thread submits and reaps (sqpoll.c) */
		return zn_sqpoll_enter(r, to_submit, min_complete, flags, arg, argsz, pre);
	if ((r->flags & IORING_SETUP_SINGLE_ISSUER) && r->owner != zn_uring_thread_tag())
		return -EEXIST;
	if (r->ovf_count)
		zn_uring_flush_overflow(r);
	if (to_submit) {
		submitted = zn_uring_submit_sqes(r, to_submit);
		if (submitted < 0)
			return submitted;
		if (r->evfd >= 0)
			zn_uring_evfd_signal(r, true);
	}
	if (flags & IORING_ENTER_GETEVENTS) {
		ret = pre ? 0 : zn_wait_arg_get(r, flags, arg, argsz, &wa);
		if (!ret)
			ret = zn_uring_wait(r, min_complete, flags, pre ? pre : &wa,
					    zn_uring_get_events, wait_cqes);
	} else {
		zn_uring_get_events(r);	/* progress even for a plain submit */
	}
	return submitted ? submitted : ret;
}

/*
 * SQPOLL (sqpoll.c): the polling thread of a ring in interrupt mode, with
 * requests in flight on its NIC queues and nothing to do for the spin
 * time, sleeps on the queues' MSI-X eventfds as a waiter does. 0: slept
 * (or found work on the way); -EAGAIN: not yet (poll mode, or still in
 * the spin time); another negative errno: it cannot sleep (a queue has no
 * interrupt).
 */
int zn_uring_irq_idle(struct zn_uring *r, uint64_t last_work_ns)
{
	uint64_t spin;

	if (!r->wait_env_read)
		wait_env(r);
	if (r->wait_mode != ZN_URING_WAIT_IRQ)
		return -EAGAIN;
	spin = r->wait_spin_ns ? r->wait_spin_ns : ZN_URING_SPIN_NS;
	if (zn_now_ns() - last_work_ns < spin)
		return -EAGAIN;
	return sleep_irq(r, 0, UINT_MAX);
}

/* Ends an interrupt-mode sleep of the ring's thread now or, if it is not
 * asleep yet, its next one at once (an eventfd keeps the count). */
void zn_uring_irq_kick(struct zn_uring *r)
{
	int wfd = atomic_load(&r->wake_fd1) - 1;

	if (wfd >= 0)
		eventfd_write(wfd, 1);
}

int zn_uring_enter(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		   unsigned flags, int64_t timeout_ns)
{
	struct zn_wait_arg wa = { .ts_ns = timeout_ns < 0 ? -1 : timeout_ns };

	/* the native call has no argument struct: a timeout or none */
	flags &= ~(IORING_ENTER_EXT_ARG | IORING_ENTER_EXT_ARG_REG | IORING_ENTER_ABS_TIMER);
	return enter(r, to_submit, min_complete, flags, NULL, 0, &wa);
}

int zn_uring_enter_arg(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		       unsigned flags, const void *arg, size_t argsz)
{
	return enter(r, to_submit, min_complete, flags, arg, argsz, NULL);
}
