/*
 * Min-timeout waits (IORING_FEAT_MIN_TIMEOUT; Linux io_uring/wait.c
 * io_cqring_wait, io_cqring_min_timer_wakeup): wait_nr CQEs end the wait
 * at any time; once min_wait is over any CQE there, or the first one to
 * come, ends it; the timeout bounds it only after min_wait; -ETIME when
 * nothing came. CQEs come from NOPs, or late from another thread (a
 * MSG_RING without a source ring). Timing is checked as "not before" and
 * "well before" a generous bound: the machine is shared.
 */
#include <errno.h>
#include <pthread.h>
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
#define US		1000u
#define MARGIN_NS	(800ull * MS)	/* how late a wake-up may be on a busy machine */

struct fixture {
	struct io_uring ring;
};

static int setup_flags(void **state, unsigned flags)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || io_uring_queue_init(8, &f->ring, flags))
		return -1;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_flags(state, 0);
}

static int setup_sqpoll(void **state)
{
	return setup_flags(state, IORING_SETUP_SQPOLL);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	io_uring_queue_exit(&f->ring);
	free(f);
	return 0;
}

/* A thread that posts n CQEs to a ring after a delay. */
struct late {
	pthread_t t;
	int fd;
	unsigned n;
	uint64_t delay_ns;
};

static void *late_fn(void *arg)
{
	struct late *l = arg;
	struct timespec ts = { .tv_sec = (time_t)(l->delay_ns / 1000000000ull),
			       .tv_nsec = (long)(l->delay_ns % 1000000000ull) };

	nanosleep(&ts, NULL);
	for (unsigned i = 0; i < l->n; i++) {
		struct io_uring_sqe sqe;

		memset(&sqe, 0, sizeof(sqe));
		io_uring_prep_msg_ring(&sqe, l->fd, 0, 0x500 + i, 0);
		if (io_uring_register_sync_msg(&sqe))
			break;
	}
	return NULL;
}

static void late_start(struct late *l, struct io_uring *ring, unsigned n, uint64_t delay_ns)
{
	l->fd = ring->ring_fd;
	l->n = n;
	l->delay_ns = delay_ns;
	assert_int_equal(pthread_create(&l->t, NULL, late_fn, l), 0);
}

static int wait_min(struct io_uring *ring, unsigned wait_nr, uint64_t ts_ns, unsigned min_us)
{
	struct __kernel_timespec ts = { .tv_sec = (long long)(ts_ns / 1000000000ull),
					.tv_nsec = (long long)(ts_ns % 1000000000ull) };
	struct io_uring_cqe *cqe = NULL;

	return io_uring_wait_cqes_min_timeout(ring, &cqe, wait_nr, &ts, min_us, NULL);
}

/* n CQEs there (on SQPOLL rings the thread posts them a little later) */
static void nops(struct io_uring *ring, unsigned n)
{
	struct __kernel_timespec ts = { .tv_sec = URT_WAIT_MS / 1000 };
	struct io_uring_cqe *cqe;

	assert_int_equal(urt_queue_nops(ring, n, 1, 0), 0);
	assert_int_equal(io_uring_submit(ring), (int)n);
	assert_int_equal(io_uring_wait_cqes(ring, &cqe, n, &ts, NULL), 0);
	assert_int_equal(io_uring_cq_ready(ring), n);
}

/* wait_nr CQEs there: no waiting at all. */
static void test_all_there(void **state)
{
	struct fixture *f = *state;
	uint64_t t0;

	nops(&f->ring, 4);
	t0 = urt_now_ns();
	assert_int_equal(wait_min(&f->ring, 4, 5000 * MS, 2000000), 0);
	assert_true(urt_now_ns() < t0 + MARGIN_NS);
	io_uring_cq_advance(&f->ring, 4);
}

/* Some there: the wait ends when min_wait is over, not at the timeout. */
static void test_some_there(void **state)
{
	struct fixture *f = *state;
	uint64_t t0;

	nops(&f->ring, 2);
	t0 = urt_now_ns();
	assert_int_equal(wait_min(&f->ring, 4, 5000 * MS, 60 * US), 0);
	assert_true(urt_now_ns() >= t0 + 60 * MS);
	assert_true(urt_now_ns() < t0 + 60 * MS + MARGIN_NS);
	assert_int_equal(io_uring_cq_ready(&f->ring), 2);
	io_uring_cq_advance(&f->ring, 2);
}

/* Nothing ever: -ETIME at the timeout, which is later than min_wait. */
static void test_nothing(void **state)
{
	struct fixture *f = *state;
	uint64_t t0 = urt_now_ns();

	assert_int_equal(wait_min(&f->ring, 4, 120 * MS, 30 * US), -ETIME);
	assert_true(urt_now_ns() >= t0 + 120 * MS);
	assert_true(urt_now_ns() < t0 + 120 * MS + MARGIN_NS);
}

/* min_wait longer than the timeout: the wait lasts min_wait. */
static void test_min_longer(void **state)
{
	struct fixture *f = *state;
	uint64_t t0 = urt_now_ns();

	assert_int_equal(wait_min(&f->ring, 4, 20 * MS, 100 * US), -ETIME);
	assert_true(urt_now_ns() >= t0 + 100 * MS);
	assert_true(urt_now_ns() < t0 + 100 * MS + MARGIN_NS);
}

/* One CQE after min_wait: it ends the wait though wait_nr is 4. */
static void test_late_one(void **state)
{
	struct fixture *f = *state;
	struct late l;
	uint64_t t0 = urt_now_ns();

	late_start(&l, &f->ring, 1, 150 * MS);
	assert_int_equal(wait_min(&f->ring, 4, 4000 * MS, 20 * US), 0);
	assert_true(urt_now_ns() >= t0 + 150 * MS);
	assert_true(urt_now_ns() < t0 + 3000 * MS);
	pthread_join(l.t, NULL);
	urt_expect(&f->ring, 0x500, 0);
}

/* wait_nr CQEs inside min_wait: the wait ends when they are there. */
static void test_all_inside_min(void **state)
{
	struct fixture *f = *state;
	struct late l;
	uint64_t t0 = urt_now_ns();

	late_start(&l, &f->ring, 3, 30 * MS);
	assert_int_equal(wait_min(&f->ring, 3, 8000 * MS, 4000000), 0);
	assert_true(urt_now_ns() >= t0 + 30 * MS);
	assert_true(urt_now_ns() < t0 + 3000 * MS);
	pthread_join(l.t, NULL);
	assert_int_equal(io_uring_cq_ready(&f->ring), 3);
	io_uring_cq_advance(&f->ring, 3);
}

/* A minimum wait without a timeout ends the wait: -ETIME with nothing. */
static void test_min_without_timeout(void **state)
{
	struct fixture *f = *state;
	struct io_uring_getevents_arg arg = { .min_wait_usec = 40 * US };
	uint64_t t0 = urt_now_ns();

	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 2,
					 IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
					 &arg, sizeof(arg)), -ETIME);
	assert_true(urt_now_ns() >= t0 + 40 * MS);
	assert_true(urt_now_ns() < t0 + 40 * MS + MARGIN_NS);
	/* with one there: 0 */
	nops(&f->ring, 1);
	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 2,
					 IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
					 &arg, sizeof(arg)), 0);
	io_uring_cq_advance(&f->ring, 1);
}

/* Submit and wait: the count submitted, the first CQE, after min_wait. */
static void test_submit_and_wait_min(void **state)
{
	struct fixture *f = *state;
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe = NULL;
	uint64_t t0;

	assert_int_equal(urt_queue_nops(&f->ring, 2, 0x40, 0), 0);
	t0 = urt_now_ns();
	assert_int_equal(io_uring_submit_and_wait_min_timeout(&f->ring, &cqe, 4, &ts, 50 * US,
							      NULL), 2);
	assert_true(urt_now_ns() >= t0 + 50 * MS);
	assert_true(urt_now_ns() < t0 + 50 * MS + MARGIN_NS);
	assert_non_null(cqe);
	assert_int_equal(cqe->user_data, 0x40);
	io_uring_cq_advance(&f->ring, 2);
	/* nothing to submit, nothing coming */
	ts.tv_sec = 0;
	ts.tv_nsec = 30 * MS;
	assert_int_equal(io_uring_submit_and_wait_min_timeout(&f->ring, &cqe, 1, &ts, 10 * US,
							      NULL), -ETIME);
	assert_null(cqe);
}

/* The signal mask of the wait: the kernel's size, a readable pointer. */
static void test_sigmask_args(void **state)
{
	struct fixture *f = *state;
	struct __kernel_timespec ts = { .tv_nsec = 1 * MS };
	sigset_t sig;
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts, .sigmask = (uintptr_t)&sig,
					      .sigmask_sz = 1 };
	unsigned fl = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;

	sigemptyset(&sig);
	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 1, fl, &arg, sizeof(arg)),
			 -EINVAL);
	arg.sigmask_sz = 8;
	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 1, fl, &arg, sizeof(arg)),
			 -ETIME);
	arg.sigmask = 100;
	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 1, fl, &arg, sizeof(arg)),
			 -EFAULT);
	/* a bad timespec pointer */
	arg.sigmask = 0;
	arg.ts = 100;
	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 1, fl, &arg, sizeof(arg)),
			 -EFAULT);
	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 1, fl, NULL, sizeof(arg)),
			 -EFAULT);
}

/* A TIMEOUT that fires ends a wait for more CQEs, inside min_wait too. */
static void test_timeout_ends_wait(void **state)
{
	struct fixture *f = *state;
	struct __kernel_timespec t = { .tv_nsec = 30 * MS };
	uint64_t t0;

	for (unsigned min_us = 0; min_us <= 3000000; min_us += 3000000) {
		io_uring_prep_timeout(io_uring_get_sqe(&f->ring), &t, 0, 0);
		assert_int_equal(io_uring_submit(&f->ring), 1);
		t0 = urt_now_ns();
		assert_int_equal(wait_min(&f->ring, 4, 6000 * MS, min_us), 0);
		assert_true(urt_now_ns() >= t0 + 25 * MS);
		assert_true(urt_now_ns() < t0 + 2000 * MS);
		assert_int_equal(io_uring_cq_ready(&f->ring), 1);
		io_uring_cq_advance(&f->ring, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_all_there, setup, teardown),
		cmocka_unit_test_setup_teardown(test_some_there, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_min_longer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_inside_min, setup, teardown),
		cmocka_unit_test_setup_teardown(test_min_without_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_and_wait_min, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigmask_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_ends_wait, setup, teardown),
		/* SQPOLL: the application's thread waits, the ring's thread posts */
		cmocka_unit_test_setup_teardown(test_some_there, setup_sqpoll, teardown),
		cmocka_unit_test_setup_teardown(test_nothing, setup_sqpoll, teardown),
		cmocka_unit_test_setup_teardown(test_late_one, setup_sqpoll, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
