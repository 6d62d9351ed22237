/* SPDX-License-Identifier: MIT */
/*
 * The arguments of a wait and when it ends, as Linux io_uring/io_uring.c
 * (io_get_ext_arg, io_get_ext_arg_reg), io_uring/wait.c (io_cqring_wait,
 * io_cqring_min_timer_wakeup) and io_uring/register.c (io_register_clock).
 *
 * A wait ends with wait_nr CQEs, or when a TIMEOUT request completed
 * since it began (Linux io_should_wake), or at its timeout.
 *
 * A minimum wait (min_wait_usec) holds the waiter until it passes even if
 * the timeout passes first, and only wait_nr CQEs end it early. When it
 * passes: no timeout, or any CQE there, ends the wait; otherwise the wait
 * goes on until the timeout or the first new CQE.
 *
 * Timeouts are kept on CLOCK_MONOTONIC (what the wait loops read); an
 * absolute one (IORING_ENTER_ABS_TIMER) is read on the ring's clock
 * (IORING_REGISTER_CLOCK: CLOCK_MONOTONIC or CLOCK_BOOTTIME) and converted
 * when the wait starts.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"
#include "core/uring/wait_arg.h"

#define KERNEL_SIGSET_SIZE	(_NSIG / 8)	/* the kernel's sizeof(sigset_t) */

int zn_uring_register_clock(struct zn_uring *r, const struct io_uring_clock_register *arg)
{
	struct io_uring_clock_register reg;

	if (zn_ucopy_from(&reg, arg, sizeof(reg)))
		return -EFAULT;
	if (reg.__resv[0] || reg.__resv[1] || reg.__resv[2])
		return -EINVAL;
	if (reg.clockid != CLOCK_MONOTONIC && reg.clockid != CLOCK_BOOTTIME)
		return -EINVAL;
	r->clock_boottime = reg.clockid == CLOCK_BOOTTIME;
	return 0;
}

/* A registered io_uring_reg_wait at byte offset off of the wait region. */
static int get_reg(struct zn_uring *r, uintptr_t off, struct zn_wait_arg *wa)
{
	const struct io_uring_reg_wait *w;
	uint32_t wflags;
	uintptr_t end;

	if (off % sizeof(long))
		return -EFAULT;
	/* no region: its size is 0, so every offset is out of it */
	if (__builtin_add_overflow(off, sizeof(*w), &end) || end > r->cq_wait_size)
		return -EFAULT;
	w = (const void *)((const char *)r->cq_wait_arg + off);
	/* the program may write the entry meanwhile: each field read once */
	wflags = __atomic_load_n(&w->flags, __ATOMIC_RELAXED);
	if (wflags & ~(uint32_t)IORING_REG_WAIT_TS)
		return -EINVAL;
	wa->min_ns = (uint64_t)__atomic_load_n(&w->min_wait_usec, __ATOMIC_RELAXED) * 1000;
	wa->sigmask = __atomic_load_n(&w->sigmask, __ATOMIC_RELAXED);
	wa->sigmask_sz = __atomic_load_n(&w->sigmask_sz, __ATOMIC_RELAXED);
	if (wflags & IORING_REG_WAIT_TS) {
		struct __kernel_timespec ts = {
			.tv_sec = __atomic_load_n(&w->ts.tv_sec, __ATOMIC_RELAXED),
			.tv_nsec = __atomic_load_n(&w->ts.tv_nsec, __ATOMIC_RELAXED),
		};

		return zn_wait_ts_ns(&ts, &wa->ts_ns) ? 0 : -EINVAL;
	}
	return 0;
}

bool zn_wait_ts_ns(const struct __kernel_timespec *ts, int64_t *ns)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000 ||
	    ts->tv_sec > INT64_MAX / 1000000000 - 1)
		return false;
	*ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
	return true;
}

int zn_wait_arg_get(struct zn_uring *r, unsigned flags, const void *arg, size_t argsz,
		    struct zn_wait_arg *wa)
{
	struct io_uring_getevents_arg ea;
	struct __kernel_timespec ts;

	memset(wa, 0, sizeof(*wa));
	wa->ts_ns = -1;
	if (!(flags & IORING_ENTER_EXT_ARG)) {
		/* arg is the sigset itself */
		wa->sigmask = (uintptr_t)arg;
		wa->sigmask_sz = (uint32_t)argsz;
		return 0;
	}
	if (flags & IORING_ENTER_EXT_ARG_REG) {
		/* Linux's IOPOLL rings only check the argument (io_validate_ext_arg) */
		if ((r->flags & (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL)) == IORING_SETUP_IOPOLL)
			return -EINVAL;
		if (argsz != sizeof(struct io_uring_reg_wait))
			return -EINVAL;
		return get_reg(r, (uintptr_t)arg, wa);
	}
	if (argsz != sizeof(ea))
		return -EINVAL;
	if (zn_ucopy_from(&ea, arg, sizeof(ea)))
		return -EFAULT;
	wa->min_ns = (uint64_t)ea.min_wait_usec * 1000;
	wa->sigmask = ea.sigmask;
	wa->sigmask_sz = ea.sigmask_sz;
	if (ea.ts) {
		if (zn_ucopy_from(&ts, (const void *)(uintptr_t)ea.ts, sizeof(ts)))
			return -EFAULT;
		if (!zn_wait_ts_ns(&ts, &wa->ts_ns))
			return -EINVAL;
	}
	return 0;
}

/* An absolute time on the ring's clock, as a CLOCK_MONOTONIC one. */
static uint64_t abs_to_mono(const struct zn_uring *r, uint64_t t, uint64_t now)
{
	struct timespec c;
	uint64_t cnow;

	if (!r->clock_boottime)
		return t > now ? t : now;
	clock_gettime(CLOCK_BOOTTIME, &c);
	cnow = (uint64_t)c.tv_sec * 1000000000ull + (uint64_t)c.tv_nsec;
	return t > cnow ? now + (t - cnow) : now;
}

void zn_wait_begin(struct zn_uring *r, const struct zn_wait_arg *wa, unsigned flags,
		   unsigned min_complete, struct zn_wait_state *ws)
{
	uint64_t now = zn_now_ns();

	ws->target = min_complete;
	ws->nr_timeouts = __atomic_load_n(&r->cq_timeouts, __ATOMIC_RELAXED);
	ws->deadline = 0;
	ws->min_until = wa->min_ns ? now + wa->min_ns : 0;
	if (wa->ts_ns >= 0) {
		if (flags & IORING_ENTER_ABS_TIMER)
			ws->deadline = abs_to_mono(r, (uint64_t)wa->ts_ns, now);
		else
			ws->deadline = now + (uint64_t)wa->ts_ns;
	}
}

bool zn_wait_done(struct zn_uring *r, struct zn_wait_state *ws, unsigned ready, uint64_t now,
		  int *rc)
{
	*rc = 0;
	if (ready >= ws->target ||
	    __atomic_load_n(&r->cq_timeouts, __ATOMIC_RELAXED) != ws->nr_timeouts)
		return true;
	if (ws->min_until) {
		/* the timeout is not looked at before the minimum wait is over */
		if (now < ws->min_until)
			return false;
		ws->min_until = 0;
		if (!ws->deadline || ready) {
			*rc = ready ? 0 : -ETIME;
			return true;
		}
		/* from now on the first new CQE ends the wait */
		ws->target = 1;
	}
	if (ws->deadline && now >= ws->deadline) {
		*rc = ready ? 0 : -ETIME;
		return true;
	}
	return false;
}

int zn_wait_sigmask_set(const struct zn_wait_arg *wa, sigset_t *old, bool *set)
{
	sigset_t mask;

	*set = false;
	if (!wa->sigmask)
		return 0;
	if (wa->sigmask_sz != KERNEL_SIGSET_SIZE)
		return -EINVAL;
	sigemptyset(&mask);
	if (zn_ucopy_from(&mask, (const void *)(uintptr_t)wa->sigmask, KERNEL_SIGSET_SIZE))
		return -EFAULT;
	pthread_sigmask(SIG_SETMASK, &mask, old);
	*set = true;
	return 0;
}

void zn_wait_sigmask_restore(const sigset_t *old, bool set)
{
	if (set)
		pthread_sigmask(SIG_SETMASK, old, NULL);
}
