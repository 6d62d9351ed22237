/*
 * Set-up flags beyond sizing, as Linux takes them: SQE128 (128-byte SQEs,
 * every second slot), NO_SQARRAY (no index array, sq_off.array 0),
 * TASKRUN_FLAG (IORING_SQ_TASKRUN while a message waits for the owner),
 * IOPOLL accepted, the combinations Linux refuses, and SQPOLL: a thread
 * consumes the SQ with no enter, sleeps with IORING_SQ_NEED_WAKEUP after
 * sq_thread_idle, and wakes on IORING_ENTER_SQ_WAKEUP.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "zcnic/uring.h"

static int init_p(unsigned flags, struct io_uring *ring, struct io_uring_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flags = flags;
	/* the ring as asked: io_uring_queue_init_params would add NO_SQARRAY */
	return __io_uring_queue_init_params(8, ring, p, NULL, 0);
}

static void nop_res(struct io_uring *ring, uint64_t ud, int res)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, ud);
	assert_int_equal(c.res, res);
}

static void test_sqe128(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;
	struct io_uring_sqe *a, *b;

	(void)state;
	assert_int_equal(init_p(IORING_SETUP_SQE128, &ring, &p), 0);
	a = io_uring_get_sqe(&ring);
	b = io_uring_get_sqe(&ring);
	assert_ptr_equal((char *)b - (char *)a, 128);
	io_uring_prep_nop(a);
	a->user_data = 1;
	memset(a->cmd + 16, 0xee, 64);		/* the second half belongs to the SQE */
	io_uring_prep_nop(b);
	b->user_data = 2;
	assert_int_equal(io_uring_submit(&ring), 2);
	nop_res(&ring, 1, 0);
	nop_res(&ring, 2, 0);
	/* wrap around the SQ twice: slots stay 128 bytes apart */
	for (int i = 0; i < 20; i++) {
		io_uring_prep_nop(io_uring_get_sqe(&ring));
		assert_int_equal(io_uring_submit(&ring), 1);
		assert_int_equal(urt_get_cqe(&ring, &(struct io_uring_cqe){ 0 }, URT_WAIT_MS), 0);
	}
	io_uring_queue_exit(&ring);
}

static void test_no_sqarray(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;

	(void)state;
	assert_int_equal(init_p(IORING_SETUP_NO_SQARRAY, &ring, &p), 0);
	assert_int_equal(p.sq_off.array, 0);
	assert_null(ring.sq.array);
	for (int i = 0; i < 20; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_nop(sqe);
		sqe->user_data = (uint64_t)i;
		assert_int_equal(io_uring_submit(&ring), 1);
		nop_res(&ring, (uint64_t)i, 0);
	}
	io_uring_queue_exit(&ring);
	/* with an array the offset is not 0 */
	assert_int_equal(init_p(0, &ring, &p), 0);
	assert_true(p.sq_off.array != 0);
	io_uring_queue_exit(&ring);
}

static void test_taskrun_flag(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;
	struct io_uring_cqe c;

	(void)state;
	assert_int_equal(init_p(IORING_SETUP_TASKRUN_FLAG, &ring, &p), -EINVAL);
	assert_int_equal(init_p(IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_COOP_TASKRUN, &ring, &p), 0);
	assert_false(*ring.sq.kflags & IORING_SQ_TASKRUN);
	/* a message from outside waits for the owner: the flag says so */
	assert_int_equal(zn_uring_msg(ring.ring_fd, 3, 0, 0), 0);
	assert_true(*ring.sq.kflags & IORING_SQ_TASKRUN);
	assert_int_equal(urt_get_cqe(&ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 3);
	assert_false(*ring.sq.kflags & IORING_SQ_TASKRUN);
	io_uring_queue_exit(&ring);
	/* without the flag it is never set */
	assert_int_equal(init_p(IORING_SETUP_COOP_TASKRUN, &ring, &p), 0);
	assert_int_equal(zn_uring_msg(ring.ring_fd, 3, 0, 0), 0);
	assert_false(*ring.sq.kflags & IORING_SQ_TASKRUN);
	io_uring_queue_exit(&ring);
}

/* IOPOLL: accepted (zcnic's completions are always polled); the refused mixes */
static void test_iopoll_and_mixes(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;

	(void)state;
	assert_int_equal(init_p(IORING_SETUP_IOPOLL, &ring, &p), 0);
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	assert_int_equal(io_uring_submit(&ring), 1);
	nop_res(&ring, 0, 0);
	io_uring_queue_exit(&ring);
	assert_int_equal(init_p(IORING_SETUP_IOPOLL | IORING_SETUP_HYBRID_IOPOLL, &ring, &p), 0);
	io_uring_queue_exit(&ring);
	assert_int_equal(init_p(IORING_SETUP_HYBRID_IOPOLL, &ring, &p), -EINVAL);
	assert_int_equal(init_p(IORING_SETUP_SQ_AFF, &ring, &p), -EINVAL);
	assert_int_equal(init_p(IORING_SETUP_SQPOLL | IORING_SETUP_COOP_TASKRUN, &ring, &p),
			 -EINVAL);
	assert_int_equal(init_p(IORING_SETUP_SQPOLL | IORING_SETUP_SINGLE_ISSUER |
				IORING_SETUP_DEFER_TASKRUN, &ring, &p), -EINVAL);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF;
	p.sq_thread_cpu = 100000;
	assert_int_equal(io_uring_queue_init_params(8, &ring, &p), -EINVAL);
}

/* Spin, without any library call, until n CQEs are there (or ~5 s). */
static int spin_for_cqes(struct io_uring *ring, unsigned n)
{
	uint64_t end = urt_now_ns() + 5000000000ull;

	while (io_uring_cq_ready(ring) < n) {
		if (urt_now_ns() > end)
			return -ETIME;
		sched_yield();
	}
	return 0;
}

static void test_sqpoll(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned tail;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL;
	p.sq_thread_idle = 20;	/* ms */
	assert_int_equal(io_uring_queue_init_params(8, &ring, &p), 0);
	assert_true(p.features & IORING_FEAT_SQPOLL_NONFIXED);
	/* publish an SQE by hand, as a program that never calls submit: the
	 * thread takes it; if it already went to sleep (a loaded machine can
	 * hold the test past sq_thread_idle), wake it, as liburing does */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 1;
	tail = ring.sq.sqe_tail;
	ring.sq.sqe_head = tail;
	io_uring_smp_store_release(ring.sq.ktail, tail);
	io_uring_smp_mb();
	if (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP)
		assert_true(io_uring_submit(&ring) >= 0);
	assert_int_equal(spin_for_cqes(&ring, 1), 0);
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), 0);
	assert_int_equal(cqe->user_data, 1);
	io_uring_cqe_seen(&ring, cqe);
	/* idle past sq_thread_idle: NEED_WAKEUP, and it sleeps */
	{
		uint64_t end = urt_now_ns() + 5000000000ull;

		while (!(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP))
			assert_true(urt_now_ns() < end);
	}
	/* submit sees the flag and wakes it; a wait gets the CQE */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 2;
	assert_int_equal(io_uring_submit(&ring), 1);
	assert_int_equal(io_uring_wait_cqe(&ring, &cqe), 0);
	assert_int_equal(cqe->user_data, 2);
	io_uring_cqe_seen(&ring, cqe);
	/* submit_and_wait, a batch, a timeout run by the thread */
	for (int i = 0; i < 4; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 10 + (uint64_t)i;
	}
	assert_int_equal(io_uring_submit_and_wait(&ring, 4), 4);
	assert_int_equal(io_uring_cq_ready(&ring), 4);
	io_uring_cq_advance(&ring, 4);
	{
		struct __kernel_timespec ts = { 0, 10000000 };
		struct io_uring_cqe c;

		io_uring_prep_timeout(io_uring_get_sqe(&ring), &ts, 0, 0);
		assert_int_equal(io_uring_submit(&ring), 1);
		assert_int_equal(urt_get_cqe(&ring, &c, URT_WAIT_MS), 0);
		assert_int_equal(c.res, -ETIME);
	}
	/* a wait with a timeout and nothing coming: -ETIME */
	{
		struct __kernel_timespec ts = { 0, 10000000 };

		assert_int_equal(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), -ETIME);
	}
	io_uring_queue_exit(&ring);
}

/* SQPOLL + R_DISABLED: nothing is taken before enable_rings */
static void test_sqpoll_disabled(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SQPOLL |
					     IORING_SETUP_R_DISABLED), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 7;
	/* Linux too: -EBADFD if submit enters (thread asleep), else queued */
	{
		int rc = io_uring_submit(&ring);

		assert_true(rc == -EBADFD || rc == 1);
	}
	usleep(20000);
	assert_int_equal(io_uring_cq_ready(&ring), 0);
	assert_int_equal(io_uring_enable_rings(&ring), 0);
	assert_int_equal(spin_for_cqes(&ring, 1), 0);
	nop_res(&ring, 7, 0);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sqe128),
		cmocka_unit_test(test_no_sqarray),
		cmocka_unit_test(test_taskrun_flag),
		cmocka_unit_test(test_iopoll_and_mixes),
		cmocka_unit_test(test_sqpoll),
		cmocka_unit_test(test_sqpoll_disabled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
