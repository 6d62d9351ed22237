/*
 * IORING_OP_MSG_RING, mirroring liburing test/msg-ring.c,
 * msg-ring-flags.c and msg-ring-overflow.c, plus the zcnic inbox under
 * several producer threads (per-producer order, nothing lost, the spill
 * path past the inbox size) and a sleeping owner woken by a message.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "core/uring/uring_op.h"
#include "zcnic/uring.h"

struct rings {
	struct io_uring src, dst;
};

static int setup(void **state)
{
	struct rings *r = calloc(1, sizeof(*r));

	if (!r || io_uring_queue_init(8, &r->src, 0) || io_uring_queue_init(8, &r->dst, 0))
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rings *r = *state;

	io_uring_queue_exit(&r->src);
	io_uring_queue_exit(&r->dst);
	free(r);
	return 0;
}

static void expect_empty(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	assert_int_equal(io_uring_peek_cqe(ring, &cqe), -EAGAIN);
}

/* msg-ring.c test_own: a message to oneself gives two CQEs */
static void test_own(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->src);
	struct io_uring_cqe c;
	int seen = 0;

	io_uring_prep_msg_ring(sqe, r->src.ring_fd, 0x10, 0x1234, 0);
	sqe->user_data = 1;
	assert_int_equal(io_uring_submit(&r->src), 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(urt_get_cqe(&r->src, &c, URT_WAIT_MS), 0);
		if (c.user_data == 1) {
			assert_int_equal(c.res, 0);
			seen |= 1;
		} else {
			assert_int_equal(c.user_data, 0x1234);
			assert_int_equal(c.res, 0x10);
			seen |= 2;
		}
	}
	assert_int_equal(seen, 3);
	expect_empty(&r->src);
}

/* the target sees the message when it next looks: peek, wait or submit */
static void test_same_thread_other_ring(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->src);

	io_uring_prep_msg_ring(sqe, r->dst.ring_fd, 0x20, 0x5aa5, 0);
	sqe->user_data = 7;
	assert_int_equal(io_uring_submit(&r->src), 1);
	urt_expect_cqe(&r->src, 7, 0, 0);
	assert_int_equal(io_uring_cq_ready(&r->dst), 0);	/* still in the inbox */
	urt_expect_cqe(&r->dst, 0x5aa5, 0x20, 0);
	expect_empty(&r->dst);
}

/* msg-ring-flags.c: FLAGS_PASS puts sqe->file_index in the target cqe->flags */
static void test_flags_pass(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->src);

	io_uring_prep_msg_ring_cqe_flags(sqe, r->dst.ring_fd, 0x30, 0xbeef, 0, 0x11220000u);
	sqe->user_data = 8;
	assert_int_equal(io_uring_submit(&r->src), 1);
	urt_expect_cqe(&r->src, 8, 0, 0);
	urt_expect_cqe(&r->dst, 0xbeef, 0x30, 0x11220000u);
}

static int send_one(struct io_uring *src, struct io_uring_sqe *sqe)
{
	struct io_uring_cqe c;

	(void)sqe;
	assert_int_equal(io_uring_submit(src), 1);
	assert_int_equal(urt_get_cqe(src, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0x99);
	return c.res;
}

/* msg-ring.c test_invalid and the kernel's DATA checks */
static void test_invalid(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe;
	struct io_uring dead;
	int dead_fd, fd1 = 1;

#define MSG(fd, prep) do { sqe = io_uring_get_sqe(&r->src); \
		io_uring_prep_msg_ring(sqe, fd, 0, 0x8989, 0); sqe->user_data = 0x99; prep; } while (0)
	MSG(1, (void)0);			/* an OS fd, not a ring */
	assert_int_equal(send_one(&r->src, sqe), -EBADFD);
	MSG(-1, (void)0);			/* nothing open: the file lookup fails */
	assert_int_equal(send_one(&r->src, sqe), -EBADF);
	assert_int_equal(io_uring_queue_init(2, &dead, 0), 0);
	dead_fd = dead.ring_fd;
	io_uring_queue_exit(&dead);
	MSG(dead_fd, (void)0);			/* a ring that is gone: a closed fd */
	assert_int_equal(send_one(&r->src, sqe), -EBADF);
	MSG(r->dst.ring_fd, sqe->msg_ring_flags = IORING_MSG_RING_CQE_SKIP);
	assert_int_equal(send_one(&r->src, sqe), -EINVAL);	/* not for DATA */
	MSG(r->dst.ring_fd, sqe->msg_ring_flags = 1u << 2);
	assert_int_equal(send_one(&r->src, sqe), -EINVAL);
	MSG(r->dst.ring_fd, sqe->file_index = 3);		/* without FLAGS_PASS */
	assert_int_equal(send_one(&r->src, sqe), -EINVAL);
	MSG(r->dst.ring_fd, sqe->addr3 = 1);
	assert_int_equal(send_one(&r->src, sqe), -EINVAL);
	MSG(r->dst.ring_fd, sqe->buf_index = 1);
	assert_int_equal(send_one(&r->src, sqe), -EINVAL);
	MSG(r->dst.ring_fd, sqe->addr = 7);			/* unknown command */
	assert_int_equal(send_one(&r->src, sqe), -EINVAL);
	MSG(r->dst.ring_fd, sqe->addr = IORING_MSG_SEND_FD);	/* the sender has no files */
	assert_int_equal(send_one(&r->src, sqe), -EBADF);
	expect_empty(&r->dst);
	/* fixed-file flavour: slot 0 holds fd 1 */
	assert_int_equal(io_uring_register_files(&r->src, &fd1, 1), 0);
	MSG(0, sqe->flags = IOSQE_FIXED_FILE);
	assert_int_equal(send_one(&r->src, sqe), -EBADFD);
	MSG(5, sqe->flags = IOSQE_FIXED_FILE);			/* no such slot */
	assert_int_equal(send_one(&r->src, sqe), -EBADF);
	assert_int_equal(io_uring_unregister_files(&r->src), 0);
#undef MSG
}

/*
 * The same checks on a message that follows a good one to the same target
 * in one submission (the target already held for the batch): each still
 * fails with the kernel's error, and only the good messages arrive.
 */
static void test_invalid_in_batch(void **state)
{
	static const struct {
		int err;
		uint32_t flags, file_index, buf_index;
		uint64_t addr, addr3;
	} bad[] = {
		{ -EINVAL, IORING_MSG_RING_CQE_SKIP, 0, 0, IORING_MSG_DATA, 0 },
		{ -EINVAL, 1u << 2, 0, 0, IORING_MSG_DATA, 0 },
		{ -EINVAL, 0, 3, 0, IORING_MSG_DATA, 0 },	/* without FLAGS_PASS */
		{ -EINVAL, 0, 0, 0, IORING_MSG_DATA, 1 },
		{ -EINVAL, 0, 0, 1, IORING_MSG_DATA, 0 },
		{ -EINVAL, 0, 0, 0, 7, 0 },			/* unknown command */
		{ -EINVAL, 0, 0, 0, IORING_MSG_SEND_FD, 0 },	/* len 5 */
		{ 0, IORING_MSG_RING_FLAGS_PASS, 0x44, 0, IORING_MSG_DATA, 0 },
	};
	struct rings *r = *state;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r->src);

		io_uring_prep_msg_ring(sqe, r->dst.ring_fd, 0, 0x8989, 0);
		sqe->user_data = 0x98;
		sqe = io_uring_get_sqe(&r->src);
		io_uring_prep_msg_ring(sqe, r->dst.ring_fd, 5, 0x8a8a, 0);
		sqe->user_data = 0x99;
		sqe->msg_ring_flags = bad[i].flags;
		sqe->file_index = bad[i].file_index;
		sqe->buf_index = (uint16_t)bad[i].buf_index;
		sqe->addr = bad[i].addr;
		sqe->addr3 = bad[i].addr3;
		assert_int_equal(io_uring_submit(&r->src), 2);
		urt_expect_cqe(&r->src, 0x98, 0, 0);
		urt_expect_cqe(&r->src, 0x99, bad[i].err, 0);
		urt_expect_cqe(&r->dst, 0x8989, 0, 0);
		if (!bad[i].err)
			urt_expect_cqe(&r->dst, 0x8a8a, 5, bad[i].file_index);
		expect_empty(&r->dst);
	}
}

static void test_fixed_target(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe;
	int files[2] = { -1, r->dst.ring_fd };

	assert_int_equal(io_uring_register_files(&r->src, files, 2), 0);
	sqe = io_uring_get_sqe(&r->src);
	io_uring_prep_msg_ring(sqe, 1, 0x40, 0xabc, 0);
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->user_data = 3;
	assert_int_equal(io_uring_submit(&r->src), 1);
	urt_expect_cqe(&r->src, 3, 0, 0);
	urt_expect_cqe(&r->dst, 0xabc, 0x40, 0);
}

/* IOSQE_CQE_SKIP_SUCCESS drops the sender's CQE, not the target's */
static void test_skip_sender_cqe(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->src);

	io_uring_prep_msg_ring(sqe, r->dst.ring_fd, 1, 2, 0);
	sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
	assert_int_equal(io_uring_submit(&r->src), 1);
	urt_expect_cqe(&r->dst, 2, 1, 0);
	expect_empty(&r->src);
}

/* msg-ring-overflow.c: 8 messages into a 4-entry CQ all arrive */
static void test_overflow_target(void **state)
{
	struct io_uring src, dst;
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		.cq_entries = 4,
	};

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &src, 0), 0);
	assert_int_equal(io_uring_queue_init_params(2, &dst, &p), 0);
	for (int i = 0; i < 8; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&src);

		io_uring_prep_msg_ring(sqe, dst.ring_fd, (unsigned)i, 0x100 + (unsigned)i, 0);
		sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
	}
	assert_int_equal(io_uring_submit(&src), 8);
	for (int i = 0; i < 8; i++)
		urt_expect_cqe(&dst, 0x100 + (unsigned)i, i, 0);
	expect_empty(&dst);
	assert_int_equal(*dst.cq.koverflow, 0);
	io_uring_queue_exit(&src);
	io_uring_queue_exit(&dst);
}

/*
 * msg-ring.c test_remote: the target ring belongs to another thread, which
 * creates it (SINGLE_ISSUER rings belong to their creator) and waits on it.
 */
struct waiter {
	unsigned flags;
	_Atomic int ring_fd;	/* published once the ring exists */
	struct io_uring_cqe cqe;
	struct zn_uring_stats st;
	int rc;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	struct io_uring ring;

	w->rc = io_uring_queue_init(8, &ring, w->flags);
	if (w->rc) {
		atomic_store(&w->ring_fd, -2);
		return NULL;
	}
	atomic_store(&w->ring_fd, ring.ring_fd);
	w->rc = urt_get_cqe(&ring, &w->cqe, URT_WAIT_MS);
	zn_uring_get_stats(zn_uring_from_handle(ring.ring_fd), &w->st);
	io_uring_queue_exit(&ring);
	return NULL;
}

static void remote(unsigned dst_flags, useconds_t delay_us, bool expect_sleep)
{
	struct waiter w = { .flags = dst_flags, .ring_fd = -1 };
	struct io_uring src;
	struct io_uring_sqe *sqe;
	pthread_t t;
	int fd;

	assert_int_equal(io_uring_queue_init(8, &src, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	for (int i = 0; i < 5000 && (fd = atomic_load(&w.ring_fd)) == -1; i++)
		usleep(1000);
	assert_true(fd >= 0);
	if (delay_us)
		usleep(delay_us);
	sqe = io_uring_get_sqe(&src);
	io_uring_prep_msg_ring(sqe, fd, 0x20, 0x5aa5, 0);
	sqe->user_data = 1;
	assert_int_equal(io_uring_submit(&src), 1);
	urt_expect_cqe(&src, 1, 0, 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.rc, 0);
	assert_int_equal(w.cqe.user_data, 0x5aa5);
	assert_int_equal(w.cqe.res, 0x20);
	if (expect_sleep)
		assert_true(w.st.sleeps >= 1);	/* it slept and the message woke it */
	io_uring_queue_exit(&src);
}

static void test_remote(void **state)
{
	(void)state;
	remote(0, 0, false);
	remote(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 0, false);
}

/* a waiter that went to sleep (past its spin) is woken by the message */
static void test_remote_sleeping_waiter(void **state)
{
	(void)state;
	remote(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 200000, true);
}

/* several producer threads, one consumer; a small CQ and inbox force the spill path */
#define PRODUCERS 4
#define PER_PRODUCER 5000

struct producer {
	int target;
	unsigned id;
	int errors;
};

static void *producer_thread(void *arg)
{
	struct producer *p = arg;
	struct io_uring ring;
	struct io_uring_params prm = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	unsigned sent = 0;

	if (io_uring_queue_init_params(32, &ring, &prm)) {
		p->errors++;
		return NULL;
	}
	while (sent < PER_PRODUCER) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0, batch = 0;
		struct io_uring_sqe *sqe;

		while (batch < 16 && sent + batch < PER_PRODUCER && (sqe = io_uring_get_sqe(&ring))) {
			io_uring_prep_msg_ring(sqe, p->target, sent + batch,
					       (uint64_t)p->id << 32 | (sent + batch), 0);
			sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
			batch++;
		}
		if (io_uring_submit(&ring) != (int)batch)
			p->errors++;
		sent += batch;
		io_uring_for_each_cqe(&ring, head, cqe) {
			p->errors++;	/* only failures post */
			n++;
		}
		io_uring_cq_advance(&ring, n);
	}
	io_uring_queue_exit(&ring);
	return NULL;
}

static void test_many_producers(void **state)
{
	struct io_uring dst;
	struct io_uring_params prm = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE,
		.cq_entries = 8,
	};
	struct producer p[PRODUCERS];
	pthread_t t[PRODUCERS];
	uint32_t next[PRODUCERS] = { 0 };
	struct zn_uring_stats st;
	uint64_t deadline;
	unsigned got = 0, i;

	(void)state;
	assert_int_equal(io_uring_queue_init_params(4, &dst, &prm), 0);
	for (i = 0; i < PRODUCERS; i++) {
		p[i] = (struct producer){ .target = dst.ring_fd, .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, producer_thread, &p[i]), 0);
	}
	/* let the inbox fill past its size before reaping */
	usleep(20000);
	deadline = urt_now_ns() + 20ull * 1000000000ull;
	while (got < PRODUCERS * PER_PRODUCER && urt_now_ns() < deadline) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		if (io_uring_wait_cqe_timeout(&dst, &cqe, &(struct __kernel_timespec){ .tv_sec = 1 }))
			continue;
		io_uring_for_each_cqe(&dst, head, cqe) {
			unsigned id = (unsigned)(cqe->user_data >> 32);
			uint32_t seq = (uint32_t)cqe->user_data;

			assert_true(id < PRODUCERS);
			assert_int_equal(seq, next[id]);	/* in order per producer */
			assert_int_equal(cqe->res, (int)seq);
			next[id]++;
			n++;
		}
		io_uring_cq_advance(&dst, n);
		got += n;
	}
	for (i = 0; i < PRODUCERS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(p[i].errors, 0);
		assert_int_equal(next[i], PER_PRODUCER);
	}
	assert_int_equal(got, PRODUCERS * PER_PRODUCER);
	zn_uring_get_stats(zn_uring_from_handle(dst.ring_fd), &st);
	assert_int_equal(st.msgs_in, PRODUCERS * PER_PRODUCER);
	assert_true(st.inbox_spill > 0);
	assert_int_equal(*dst.cq.koverflow, 0);
	io_uring_queue_exit(&dst);
}

/* io_uring_register_sync_msg: a message with no source ring */
static void test_sync_msg(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	io_uring_prep_msg_ring(&sqe, r->dst.ring_fd, 0x55, 0x66, 0);
	assert_int_equal(io_uring_register_sync_msg(&sqe), 0);
	urt_expect_cqe(&r->dst, 0x66, 0x55, 0);
	io_uring_prep_msg_ring(&sqe, 1, 0x55, 0x66, 0);
	assert_int_equal(io_uring_register_sync_msg(&sqe), -EBADFD);
	io_uring_prep_msg_ring(&sqe, -1, 0x55, 0x66, 0);
	assert_int_equal(io_uring_register_sync_msg(&sqe), -EBADF);
	io_uring_prep_msg_ring(&sqe, r->dst.ring_fd, 0, 0, IORING_MSG_RING_CQE_SKIP);
	assert_int_equal(io_uring_register_sync_msg(&sqe), -EINVAL);
	/* the native call, from any thread */
	assert_int_equal(zn_uring_msg(r->dst.ring_fd, 9, -5, 1), 0);
	urt_expect_cqe(&r->dst, 9, -5, 1);
	expect_empty(&r->dst);
}

/* messages still queued when the target exits are freed (ASan) */
static void test_exit_with_queued(void **state)
{
	struct io_uring dst;

	(void)state;
	assert_int_equal(io_uring_queue_init(2, &dst, 0), 0);
	for (int i = 0; i < 300; i++)	/* past the 64-entry inbox: spill list too */
		assert_int_equal(zn_uring_msg(dst.ring_fd, (uint64_t)i, i, 0), 0);
	io_uring_queue_exit(&dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_own, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_thread_other_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flags_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_in_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixed_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_sender_cqe, setup, teardown),
		cmocka_unit_test(test_overflow_target),
		cmocka_unit_test(test_remote),
		cmocka_unit_test(test_remote_sleeping_waiter),
		cmocka_unit_test(test_many_producers),
		cmocka_unit_test_setup_teardown(test_sync_msg, setup, teardown),
		cmocka_unit_test(test_exit_with_queued),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
