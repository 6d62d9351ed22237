/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the tests/unit/test_uring_*.c conformance tests. The
 * tests use the liburing-compatible API the way a liburing program does.
 */
#ifndef ZN_URING_TEST_H
#define ZN_URING_TEST_H

#include <liburing.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define URT_WAIT_MS 5000	/* bound on any wait expected to succeed */

static inline uint64_t urt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A CMocka fixture's ring of 8 entries with these setup flags in *state. */
static inline int urt_ring_setup(void **state, unsigned flags)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));

	if (!ring || io_uring_queue_init(8, ring, flags)) {
		free(ring);
		return -1;
	}
	*state = ring;
	return 0;
}

static inline int urt_ring_teardown(void **state)
{
	io_uring_queue_exit(*state);
	free(*state);
	return 0;
}

/* Wait for one CQE, at most ms; copies it and marks it seen. 0 or -errno. */
static inline int urt_get_cqe(struct io_uring *ring, struct io_uring_cqe *out, int ms)
{
	struct __kernel_timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000ll };
	struct io_uring_cqe *cqe;
	int rc = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

	if (rc)
		return rc;
	*out = *cqe;
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

/*
 * The helpers below assert with CMocka: include <cmocka.h> first.
 * urt_sqe: the next SQE, with user_data set. urt_expect: the next CQE must
 * be {ud, res} (waits up to URT_WAIT_MS); returns its flags.
 * urt_expect_cqe: the same with the flags too.
 */
static inline struct io_uring_sqe *urt_sqe(struct io_uring *ring, uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	assert_non_null(sqe);
	sqe->user_data = ud;
	return sqe;
}

static inline uint32_t urt_expect(struct io_uring *ring, uint64_t ud, int res)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, ud);
	assert_int_equal(c.res, res);
	return c.flags;
}

static inline void urt_expect_cqe(struct io_uring *ring, uint64_t ud, int res, unsigned flags)
{
	assert_int_equal(urt_expect(ring, ud, res), flags);
}

/* Queue n NOPs with user_data base..base+n-1 (and sqe flags). */
static inline int urt_queue_nops(struct io_uring *ring, unsigned n, uint64_t base, unsigned flags)
{
	for (unsigned i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe)
			return -EBUSY;
		io_uring_prep_nop(sqe);
		sqe->user_data = base + i;
		sqe->flags = (__u8)flags;
	}
	return 0;
}

/* A NOP that completes with res (IORING_NOP_INJECT_RESULT). */
static inline void urt_prep_nop_res(struct io_uring_sqe *sqe, int res)
{
	io_uring_prep_nop(sqe);
	sqe->nop_flags = IORING_NOP_INJECT_RESULT;
	sqe->len = (__u32)res;
}

#endif
