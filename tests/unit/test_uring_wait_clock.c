/*
 * IORING_REGISTER_CLOCK and IORING_ENTER_ABS_TIMER (Linux io_uring/register.c
 * io_register_clock, io_uring/wait.c io_cqring_wait): the argument checks,
 * and absolute wait deadlines read on the registered clock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"

#define MS		1000000ull
#define LATE_NS		(2000ull * MS)	/* a generous bound on a noisy machine */

static int setup(void **state)
{
	return urt_ring_setup(state, 0);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int reg_clock(struct io_uring *ring, const void *arg, unsigned nr)
{
	return io_uring_register((unsigned)ring->ring_fd, IORING_REGISTER_CLOCK, arg, nr);
}

static void test_register_clock_args(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_clock_register cr = { .clockid = CLOCK_MONOTONIC };

	assert_int_equal(reg_clock(ring, NULL, 0), -EINVAL);
	assert_int_equal(reg_clock(ring, &cr, 1), -EINVAL);
	assert_int_equal(reg_clock(ring, (void *)0x10, 0), -EFAULT);
	cr.clockid = CLOCK_REALTIME;
	assert_int_equal(io_uring_register_clock(ring, &cr), -EINVAL);
	cr.clockid = (__u32)-1;
	assert_int_equal(io_uring_register_clock(ring, &cr), -EINVAL);
	cr.clockid = CLOCK_MONOTONIC;
	cr.__resv[2] = 1;
	assert_int_equal(io_uring_register_clock(ring, &cr), -EINVAL);
	cr.__resv[2] = 0;
	assert_int_equal(io_uring_register_clock(ring, &cr), 0);
	cr.clockid = CLOCK_BOOTTIME;
	assert_int_equal(io_uring_register_clock(ring, &cr), 0);
}

/* An absolute wait until `at` on the ring's clock: its result. */
static int wait_abs(struct io_uring *ring, uint64_t at)
{
	struct __kernel_timespec ts = { .tv_sec = (long long)(at / 1000000000ull),
					.tv_nsec = (long long)(at % 1000000000ull) };
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };

	return io_uring_enter2((unsigned)ring->ring_fd, 0, 1,
			       IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG |
			       IORING_ENTER_ABS_TIMER, &arg, sizeof(arg));
}

static void abs_wait_on(struct io_uring *ring, clockid_t id)
{
	uint64_t t0 = clock_ns(id), m0 = urt_now_ns();

	assert_int_equal(wait_abs(ring, t0 + 40 * MS), -ETIME);
	assert_true(clock_ns(id) >= t0 + 40 * MS);
	assert_true(urt_now_ns() < m0 + LATE_NS);
	/* a deadline already past: a poll */
	m0 = urt_now_ns();
	assert_int_equal(wait_abs(ring, t0), -ETIME);
	assert_true(urt_now_ns() < m0 + LATE_NS / 4);
	/* a CQE there: 0 at once */
	assert_int_equal(urt_queue_nops(ring, 1, 7, 0), 0);
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(wait_abs(ring, clock_ns(id) + 10000 * MS), 0);
	urt_expect(ring, 7, 0);
}

static void test_abs_timer_monotonic(void **state)
{
	abs_wait_on(*state, CLOCK_MONOTONIC);
}

static void test_abs_timer_boottime(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_clock_register cr = { .clockid = CLOCK_BOOTTIME };

	assert_int_equal(io_uring_register_clock(ring, &cr), 0);
	abs_wait_on(ring, CLOCK_BOOTTIME);
}

/* A relative timeout is the same length whatever the clock. */
static void test_relative_on_boottime(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_clock_register cr = { .clockid = CLOCK_BOOTTIME };
	struct __kernel_timespec ts = { .tv_nsec = 30 * MS };
	struct io_uring_cqe *cqe;
	uint64_t t0;

	assert_int_equal(io_uring_register_clock(ring, &cr), 0);
	t0 = urt_now_ns();
	assert_int_equal(io_uring_wait_cqe_timeout(ring, &cqe, &ts), -ETIME);
	assert_true(urt_now_ns() >= t0 + 30 * MS);
	assert_true(urt_now_ns() < t0 + LATE_NS);
}

/* What the ring reports: IORING_FEAT_MIN_TIMEOUT, ABS_TIMER and EXT_ARG_REG. */
static void test_reported(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_query_opcode op;
	struct io_uring_query_hdr h = { .query_op = IO_URING_QUERY_OPCODES,
					.query_data = (uintptr_t)&op, .size = sizeof(op) };

	assert_true(ring->features & IORING_FEAT_MIN_TIMEOUT);
	assert_int_equal(io_uring_register_query(&h), 0);
	assert_int_equal(h.result, 0);
	assert_true(op.feature_flags & IORING_FEAT_MIN_TIMEOUT);
	assert_true(op.enter_flags & IORING_ENTER_ABS_TIMER);
	assert_true(op.enter_flags & IORING_ENTER_EXT_ARG_REG);
	assert_false(op.enter_flags & IORING_ENTER_NO_IOWAIT);
	assert_int_equal(io_uring_enter2((unsigned)ring->ring_fd, 0, 0, IORING_ENTER_NO_IOWAIT,
					 NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_register_clock_args, setup, urt_ring_teardown),
		cmocka_unit_test_setup_teardown(test_abs_timer_monotonic, setup, urt_ring_teardown),
		cmocka_unit_test_setup_teardown(test_abs_timer_boottime, setup, urt_ring_teardown),
		cmocka_unit_test_setup_teardown(test_relative_on_boottime, setup, urt_ring_teardown),
		cmocka_unit_test_setup_teardown(test_reported, setup, urt_ring_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
