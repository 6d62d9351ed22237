/* SPDX-License-Identifier: MIT */
/*
 * What a wait is told (Linux io_uring/io_uring.c io_get_ext_arg, wait.c
 * io_cqring_wait): the timeout (relative, or absolute on the ring's clock
 * with IORING_ENTER_ABS_TIMER), the minimum wait (IORING_FEAT_MIN_TIMEOUT)
 * and a signal mask, from a struct io_uring_getevents_arg or a registered
 * struct io_uring_reg_wait. Private to core/uring.
 */
#ifndef ZN_URING_WAIT_ARG_H
#define ZN_URING_WAIT_ARG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/liburing/io_uring.h"

struct zn_uring;

struct zn_wait_arg {
	int64_t ts_ns;		/* -1: no timeout */
	uint64_t min_ns;	/* 0: no minimum wait */
	uint64_t sigmask;	/* the program's sigset_t, 0: none */
	uint32_t sigmask_sz;
};

/* A wait in progress: when it ends, and what ends it. */
struct zn_wait_state {
	uint64_t deadline;	/* CLOCK_MONOTONIC ns; 0: none */
	uint64_t min_until;	/* end of the minimum wait; 0: none or over */
	unsigned target;	/* CQEs that end the wait */
	uint32_t nr_timeouts;	/* TIMEOUTs completed when it started */
};

/* The wait arguments of an enter with these flags (io_get_ext_arg). */
int zn_wait_arg_get(struct zn_uring *r, unsigned flags, const void *arg, size_t argsz,
		    struct zn_wait_arg *wa);
/* A relative timespec in ns; false for a malformed one. */
bool zn_wait_ts_ns(const struct __kernel_timespec *ts, int64_t *ns);
/* Start a wait for min_complete CQEs, now. */
void zn_wait_begin(struct zn_uring *r, const struct zn_wait_arg *wa, unsigned flags,
		  unsigned min_complete, struct zn_wait_state *ws);
/* Whether the wait ends with `ready` CQEs at `now` (its result in *rc). A
 * TIMEOUT that completed since it started ends it too (io_should_wake). */
bool zn_wait_done(struct zn_uring *r, struct zn_wait_state *ws, unsigned ready, uint64_t now,
		  int *rc);
/* The next moment the wait must look again without new CQEs (0: never). */
static inline uint64_t zn_wait_next(const struct zn_wait_state *ws)
{
	return ws->min_until ? ws->min_until : ws->deadline;
}
/* The program's signal mask for the wait, installed (old saved in *old);
 * *set says whether there was one. -EINVAL bad size, -EFAULT bad pointer. */
int zn_wait_sigmask_set(const struct zn_wait_arg *wa, sigset_t *old, bool *set);
void zn_wait_sigmask_restore(const sigset_t *old, bool set);

/*
 * io_uring_enter(2) with its argument: arg and argsz as the syscall takes
 * them (a sigset, a struct io_uring_getevents_arg with
 * IORING_ENTER_EXT_ARG, a byte offset into the registered wait region
 * with IORING_ENTER_EXT_ARG_REG too). The compat layer's enter.
 */
int zn_uring_enter_arg(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		       unsigned flags, const void *arg, size_t argsz);
/* The wait of an enter (wait.c): done at once when ready() finds enough
 * CQEs, else wait() under the program's signal mask. */
int zn_uring_wait(struct zn_uring *r, unsigned min_complete, unsigned flags,
		  const struct zn_wait_arg *wa, unsigned (*ready)(struct zn_uring *r),
		  int (*wait)(struct zn_uring *r, struct zn_wait_state *ws));

#endif
