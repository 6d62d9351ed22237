/*
 * MSG_RING IORING_MSG_SEND_FD (io_uring_prep_msg_ring_fd, _fd_alloc): a
 * registered file of the sending ring into the target's table, with the
 * results of Linux io_uring/msg_ring.c (io_msg_send_fd,
 * io_msg_install_complete) and io_uring/filetable.c. The file passed is
 * a third ring's handle, so that the target can prove it holds it: a
 * MSG_RING through the slot it landed in reaches that ring.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"

#define UD 0x89

struct rings {
	struct io_uring src, dst, third;
};

static int setup(void **state)
{
	struct rings *r = calloc(1, sizeof(*r));
	int files[2] = { -1, -1 };

	if (!r || io_uring_queue_init(8, &r->src, 0) || io_uring_queue_init(8, &r->dst, 0) ||
	    io_uring_queue_init(8, &r->third, 0))
		return -1;
	files[1] = r->third.ring_fd;
	if (io_uring_register_files(&r->src, files, 2))
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rings *r = *state;

	io_uring_queue_exit(&r->src);
	io_uring_queue_exit(&r->dst);
	io_uring_queue_exit(&r->third);
	free(r);
	return 0;
}

static void expect_empty(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	assert_int_equal(io_uring_peek_cqe(ring, &cqe), -EAGAIN);
}

/* Submit one prepared SQE (user_data 0x99) and return its res. */
static int send_one(struct io_uring *src)
{
	struct io_uring_cqe c;

	assert_int_equal(io_uring_submit(src), 1);
	assert_int_equal(urt_get_cqe(src, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0x99);
	assert_int_equal(c.flags, 0);
	return c.res;
}

static struct io_uring_sqe *fd_sqe(struct io_uring *src, int target, int src_slot,
				   int dst_slot, unsigned flags)
{
	struct io_uring_sqe *sqe = urt_sqe(src, 0x99);

	io_uring_prep_msg_ring_fd(sqe, target, src_slot, dst_slot, UD, flags);
	return sqe;
}

/* The target's slot holds the third ring: a message through it arrives. */
static void expect_third_in(struct io_uring *dst, struct io_uring *third, unsigned slot)
{
	struct io_uring_sqe *sqe = urt_sqe(dst, 0x77);

	io_uring_prep_msg_ring(sqe, (int)slot, 0x13, 0x3333, 0);
	sqe->flags = IOSQE_FIXED_FILE;
	assert_int_equal(io_uring_submit(dst), 1);
	urt_expect(dst, 0x77, 0);
	urt_expect(third, 0x3333, 0x13);
}

static void test_pass_to_slot(void **state)
{
	struct rings *r = *state;

	assert_int_equal(io_uring_register_files_sparse(&r->dst, 4), 0);
	fd_sqe(&r->src, r->dst.ring_fd, 1, 2, 0);
	assert_int_equal(send_one(&r->src), 0);
	urt_expect_cqe(&r->dst, UD, 0, 0);
	expect_third_in(&r->dst, &r->third, 2);
	/* the sender keeps its own slot */
	expect_third_in(&r->src, &r->third, 1);
	/* over a filled slot: replaced */
	fd_sqe(&r->src, r->dst.ring_fd, 1, 2, IORING_MSG_RING_FLAGS_PASS);
	assert_int_equal(send_one(&r->src), 0);
	urt_expect_cqe(&r->dst, UD, 0, 0);	/* FLAGS_PASS: no flags for SEND_FD */
	/* CQE_SKIP: installed, the target hears nothing */
	fd_sqe(&r->src, r->dst.ring_fd, 1, 0, IORING_MSG_RING_CQE_SKIP);
	assert_int_equal(send_one(&r->src), 0);
	expect_empty(&r->dst);
	expect_third_in(&r->dst, &r->third, 0);
}

static void test_pass_alloc(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe;

	/* no table at the target: ALLOC -ENFILE, a slot -ENXIO */
	sqe = urt_sqe(&r->src, 0x99);
	io_uring_prep_msg_ring_fd_alloc(sqe, r->dst.ring_fd, 1, UD, 0);
	assert_int_equal(send_one(&r->src), -ENFILE);
	fd_sqe(&r->src, r->dst.ring_fd, 1, 0, 0);
	assert_int_equal(send_one(&r->src), -ENXIO);
	assert_int_equal(io_uring_register_files_sparse(&r->dst, 3), 0);
	assert_int_equal(io_uring_register_file_alloc_range(&r->dst, 1, 1), 0);
	sqe = urt_sqe(&r->src, 0x99);
	io_uring_prep_msg_ring_fd_alloc(sqe, r->dst.ring_fd, 1, UD, 0);
	assert_int_equal(send_one(&r->src), 1);
	urt_expect_cqe(&r->dst, UD, 1, 0);
	expect_third_in(&r->dst, &r->third, 1);
	/* the range is full */
	fd_sqe(&r->src, r->dst.ring_fd, 1, (int)IORING_FILE_INDEX_ALLOC, 0);
	assert_int_equal(send_one(&r->src), -ENFILE);
	expect_empty(&r->dst);
	assert_int_equal(io_uring_register_file_alloc_range(&r->dst, 0, 3), 0);
	fd_sqe(&r->src, r->dst.ring_fd, 1, (int)IORING_FILE_INDEX_ALLOC, 0);
	assert_int_equal(send_one(&r->src), 0);
	urt_expect_cqe(&r->dst, UD, 0, 0);
}

static void test_errors(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe;
	struct io_uring off;

	assert_int_equal(io_uring_register_files_sparse(&r->dst, 2), 0);
	/* len != 0, then the sending ring itself: -EINVAL */
	sqe = fd_sqe(&r->src, r->dst.ring_fd, 1, 0, 0);
	sqe->len = 1;
	assert_int_equal(send_one(&r->src), -EINVAL);
	fd_sqe(&r->src, r->src.ring_fd, 1, 0, 0);
	assert_int_equal(send_one(&r->src), -EINVAL);
	/* source slot empty, past the table, a huge addr3 */
	fd_sqe(&r->src, r->dst.ring_fd, 0, 0, 0);
	assert_int_equal(send_one(&r->src), -EBADF);
	fd_sqe(&r->src, r->dst.ring_fd, 2, 0, 0);
	assert_int_equal(send_one(&r->src), -EBADF);
	sqe = fd_sqe(&r->src, r->dst.ring_fd, 1, 0, 0);
	sqe->addr3 = 1ull << 32 | 1;	/* Linux reads the low 32 bits: slot 1 */
	assert_int_equal(send_one(&r->src), 0);
	urt_expect_cqe(&r->dst, UD, 0, 0);
	/* target slot past its table; file_index 0 is no slot */
	fd_sqe(&r->src, r->dst.ring_fd, 1, 2, 0);
	assert_int_equal(send_one(&r->src), -EINVAL);
	sqe = fd_sqe(&r->src, r->dst.ring_fd, 1, 0, 0);
	sqe->file_index = 0;
	assert_int_equal(send_one(&r->src), -EINVAL);
	/* prep's checks */
	sqe = fd_sqe(&r->src, r->dst.ring_fd, 1, 0, 1u << 2);
	assert_int_equal(send_one(&r->src), -EINVAL);
	sqe = fd_sqe(&r->src, r->dst.ring_fd, 1, 0, 0);
	sqe->buf_index = 1;
	assert_int_equal(send_one(&r->src), -EINVAL);
	/* target not a ring, a target still disabled (before the source check) */
	fd_sqe(&r->src, 1, 1, 0, 0);
	assert_int_equal(send_one(&r->src), -EBADFD);
	assert_int_equal(io_uring_queue_init(2, &off, IORING_SETUP_R_DISABLED), 0);
	fd_sqe(&r->src, off.ring_fd, 0, 0, 0);
	assert_int_equal(send_one(&r->src), -EBADFD);
	io_uring_queue_exit(&off);
	expect_empty(&r->dst);
	/* a source without a table */
	assert_int_equal(io_uring_unregister_files(&r->src), 0);
	fd_sqe(&r->src, r->dst.ring_fd, 0, 0, 0);
	assert_int_equal(send_one(&r->src), -EBADF);
}

/* Between DATA messages to the same target in one submission: in order. */
static void test_order_in_batch(void **state)
{
	struct rings *r = *state;
	struct io_uring_sqe *sqe;

	assert_int_equal(io_uring_register_files_sparse(&r->dst, 2), 0);
	sqe = urt_sqe(&r->src, 1);
	io_uring_prep_msg_ring(sqe, r->dst.ring_fd, 7, 0x71, 0);
	sqe = urt_sqe(&r->src, 2);
	io_uring_prep_msg_ring_fd(sqe, r->dst.ring_fd, 1, 1, 0x72, 0);
	sqe = urt_sqe(&r->src, 3);
	io_uring_prep_msg_ring(sqe, r->dst.ring_fd, 9, 0x73, 0);
	assert_int_equal(io_uring_submit(&r->src), 3);
	urt_expect(&r->src, 1, 0);
	urt_expect(&r->src, 2, 0);
	urt_expect(&r->src, 3, 0);
	urt_expect(&r->dst, 0x71, 7);
	urt_expect(&r->dst, 0x72, 0);
	urt_expect(&r->dst, 0x73, 9);
}

struct remote {
	pthread_barrier_t bar;
	int ring_fd, third_fd;
	int got_res, got_ud, through;
};

static void *remote_fn(void *arg)
{
	struct remote *d = arg;
	struct io_uring ring, third;
	struct io_uring_cqe c;
	struct io_uring_sqe *sqe;

	d->got_res = -1;
	if (io_uring_queue_init(8, &ring, IORING_SETUP_SINGLE_ISSUER |
				IORING_SETUP_DEFER_TASKRUN) ||
	    io_uring_register_files_sparse(&ring, 4) || io_uring_queue_init(2, &third, 0)) {
		pthread_barrier_wait(&d->bar);
		return NULL;
	}
	d->ring_fd = ring.ring_fd;
	d->third_fd = third.ring_fd;
	pthread_barrier_wait(&d->bar);
	if (urt_get_cqe(&ring, &c, URT_WAIT_MS) == 0) {
		d->got_res = c.res;
		d->got_ud = (int)c.user_data;
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_msg_ring(sqe, c.res, 1, 0x4444, 0);
		sqe->flags = IOSQE_FIXED_FILE;
		io_uring_submit(&ring);
		if (urt_get_cqe(&ring, &c, URT_WAIT_MS) == 0 && c.res == 0 &&
		    urt_get_cqe(&third, &c, URT_WAIT_MS) == 0 && c.user_data == 0x4444)
			d->through = 1;
	}
	pthread_barrier_wait(&d->bar);	/* the sender's checks are done */
	io_uring_queue_exit(&third);
	io_uring_queue_exit(&ring);
	return NULL;
}

/* A DEFER_TASKRUN target owned by another thread (msg-ring-fd.c's remote
 * case): the file lands, the target's owner reads it and uses it. */
static void test_remote_thread(void **state)
{
	struct remote d = { 0 };
	struct io_uring src;
	struct io_uring_sqe *sqe;
	pthread_t t;
	int fd;

	(void)state;
	assert_int_equal(pthread_barrier_init(&d.bar, NULL, 2), 0);
	assert_int_equal(pthread_create(&t, NULL, remote_fn, &d), 0);
	pthread_barrier_wait(&d.bar);
	assert_int_equal(io_uring_queue_init(8, &src, 0), 0);
	fd = d.third_fd;
	assert_int_equal(io_uring_register_files(&src, &fd, 1), 0);
	sqe = urt_sqe(&src, 0x99);
	io_uring_prep_msg_ring_fd_alloc(sqe, d.ring_fd, 0, UD, 0);
	assert_int_equal(send_one(&src), 0);
	pthread_barrier_wait(&d.bar);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(d.got_ud, UD);
	assert_int_equal(d.got_res, 0);
	assert_int_equal(d.through, 1);
	io_uring_queue_exit(&src);
	pthread_barrier_destroy(&d.bar);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pass_to_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pass_alloc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_in_batch, setup, teardown),
		cmocka_unit_test(test_remote_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
