/*
 * io_uring_register(2) over zcnic rings, with the results of Linux
 * io_uring/register.c: the raw call (opcode range, a handle that is no
 * ring), the probe, the eventfd (signalled on CQEs; _async only for CQEs
 * that did not complete inline; IORING_CQ_EVENTFD_DISABLED), R_DISABLED and
 * io_uring_enable_rings, the io-wq calls, and the query interface.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "zcnic/uring.h"

static struct io_uring *new_ring(unsigned flags)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));

	assert_non_null(ring);
	assert_int_equal(io_uring_queue_init(8, ring, flags), 0);
	return ring;
}

static void free_ring(struct io_uring *ring)
{
	io_uring_queue_exit(ring);
	free(ring);
}

static void test_raw_register(void **state)
{
	struct io_uring *ring = new_ring(0);
	struct iovec iov = { malloc(64), 64 };

	(void)state;
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_LAST, NULL, 0), -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, 200, NULL, 0), -EINVAL);
	/* USE_REGISTERED_RING is stripped: every zcnic handle is "registered" */
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_BUFFERS |
					   IORING_REGISTER_USE_REGISTERED_RING, &iov, 1), 0);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_UNREGISTER_BUFFERS, &iov, 0),
			 -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_UNREGISTER_BUFFERS, NULL, 0), 0);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_BUFFERS, NULL, 1), -EFAULT);
	/* not a handle at all: -EBADF; an OS fd: -EBADF; a closed ring: -EBADF */
	assert_int_equal(io_uring_register(12345, IORING_REGISTER_PROBE, NULL, 0), -EBADF);
	/* ring-less ops need fd -1; others with -1: -EINVAL */
	assert_int_equal(io_uring_register(-1, IORING_REGISTER_BUFFERS, &iov, 1), -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_SEND_MSG_RING, NULL, 1),
			 -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_RESTRICTIONS, NULL, 0),
			 -EBADFD);	/* only on a disabled ring, as Linux */
	{
		int h = ring->ring_fd;

		free_ring(ring);
		assert_int_equal(io_uring_register(h, IORING_REGISTER_PROBE, NULL, 0), -EBADF);
	}
	free(iov.iov_base);
}

static void test_probe(void **state)
{
	struct io_uring *ring = new_ring(0);
	size_t sz = sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op);
	struct io_uring_probe *p = calloc(1, sz);

	(void)state;
	assert_int_equal(io_uring_register_probe(ring, p, 256), 0);
	assert_int_equal(p->last_op, IORING_OP_LAST - 1);
	assert_int_equal(p->ops_len, IORING_OP_LAST);	/* nr clamped to IORING_OP_LAST */
	for (unsigned op = 0; op < IORING_OP_LAST; op++)
		assert_int_equal(p->ops[op].op, op);
	assert_true(io_uring_opcode_supported(p, IORING_OP_NOP));
	assert_true(io_uring_opcode_supported(p, IORING_OP_TIMEOUT));
	assert_true(io_uring_opcode_supported(p, IORING_OP_LINK_TIMEOUT));
	assert_true(io_uring_opcode_supported(p, IORING_OP_TIMEOUT_REMOVE));
	assert_true(io_uring_opcode_supported(p, IORING_OP_ASYNC_CANCEL));
	assert_true(io_uring_opcode_supported(p, IORING_OP_PROVIDE_BUFFERS));
	assert_true(io_uring_opcode_supported(p, IORING_OP_REMOVE_BUFFERS));
	assert_true(io_uring_opcode_supported(p, IORING_OP_MSG_RING));
	assert_true(io_uring_opcode_supported(p, IORING_OP_POLL_ADD));
	assert_true(io_uring_opcode_supported(p, IORING_OP_POLL_REMOVE));
	assert_true(io_uring_opcode_supported(p, IORING_OP_READV));
	assert_false(io_uring_opcode_supported(p, IORING_OP_OPENAT));
	/* the probe must come zeroed; nr above 256 or no buffer: -EINVAL */
	assert_int_equal(io_uring_register_probe(ring, p, 4), -EINVAL);
	memset(p, 0, sz);
	assert_int_equal(io_uring_register_probe(ring, p, 257), -EINVAL);
	assert_int_equal(io_uring_register_probe(ring, NULL, 4), -EINVAL);
	/* fewer slots than ops: only those are filled */
	assert_int_equal(io_uring_register_probe(ring, p, 4), 0);
	assert_int_equal(p->ops_len, 4);
	assert_int_equal(p->last_op, IORING_OP_LAST - 1);
	assert_int_equal(p->ops[4].flags, 0);
	free(p);
	free_ring(ring);
}

static uint64_t evfd_read(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v = 0;

	if (poll(&pfd, 1, 0) != 1)
		return 0;
	assert_int_equal(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	return v;
}

static void nop_and_reap(struct io_uring *ring)
{
	struct io_uring_cqe c;

	io_uring_prep_nop(io_uring_get_sqe(ring));
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
}

static void test_eventfd(void **state)
{
	struct io_uring *ring = new_ring(0);
	struct __kernel_timespec ts = { 0, 5000000 };
	struct io_uring_cqe c;
	int efd = eventfd(0, EFD_NONBLOCK), pipefd[2];

	(void)state;
	assert_true(efd >= 0);
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(io_uring_unregister_eventfd(ring), -ENXIO);
	assert_int_equal(io_uring_register_eventfd(ring, pipefd[0]), -EINVAL);	/* not an eventfd */
	assert_int_equal(io_uring_register_eventfd(ring, 9999), -EBADF);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_EVENTFD, &efd, 2),
			 -EINVAL);
	assert_int_equal(io_uring_register_eventfd(ring, efd), 0);
	assert_int_equal(io_uring_register_eventfd(ring, efd), -EBUSY);
	nop_and_reap(ring);
	assert_true(evfd_read(efd) >= 1);
	/* disabled by the CQ flag */
	*ring->cq.kflags |= IORING_CQ_EVENTFD_DISABLED;
	nop_and_reap(ring);
	assert_int_equal(evfd_read(efd), 0);
	*ring->cq.kflags &= ~IORING_CQ_EVENTFD_DISABLED;
	/* a MSG_RING from elsewhere signals at once, before anyone reaps */
	assert_int_equal(zn_uring_msg(ring->ring_fd, 5, 0, 0), 0);
	assert_true(evfd_read(efd) >= 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 5);
	evfd_read(efd);
	assert_int_equal(io_uring_unregister_eventfd(ring), 0);
	nop_and_reap(ring);
	assert_int_equal(evfd_read(efd), 0);
	/* _async: not for a NOP (inline), but for a timeout (later) */
	assert_int_equal(io_uring_register_eventfd_async(ring, efd), 0);
	nop_and_reap(ring);
	assert_int_equal(evfd_read(efd), 0);
	io_uring_prep_timeout(io_uring_get_sqe(ring), &ts, 0, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.res, -ETIME);
	assert_true(evfd_read(efd) >= 1);
	/* the ring holds its own reference: closing ours changes nothing */
	close(efd);
	nop_and_reap(ring);
	free_ring(ring);
	close(pipefd[0]);
	close(pipefd[1]);
}

struct enable_arg {
	struct io_uring *ring;
	int rc;
};

static void *enabler(void *arg)
{
	struct enable_arg *a = arg;

	a->rc = io_uring_enable_rings(a->ring);
	return NULL;
}

static void test_r_disabled(void **state)
{
	struct io_uring *ring = new_ring(IORING_SETUP_R_DISABLED);
	struct io_uring *other = new_ring(0);
	struct io_uring_cqe c;
	struct io_uring_sqe *sqe;
	struct enable_arg a;
	pthread_t t;

	(void)state;
	io_uring_prep_nop(io_uring_get_sqe(ring));
	assert_int_equal(io_uring_submit(ring), -EBADFD);
	assert_int_equal(io_uring_get_events(ring), -EBADFD);
	/* a MSG_RING to it: -EBADFD */
	sqe = io_uring_get_sqe(other);
	io_uring_prep_msg_ring(sqe, ring->ring_fd, 0, 1, 0);
	assert_int_equal(io_uring_submit(other), 1);
	assert_int_equal(urt_get_cqe(other, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.res, -EBADFD);
	/* registration works while disabled */
	assert_int_equal(io_uring_register_files(ring, &other->ring_fd, 1), 0);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_ENABLE_RINGS, &a, 0),
			 -EINVAL);
	assert_int_equal(io_uring_enable_rings(ring), 0);
	assert_int_equal(io_uring_enable_rings(ring), -EBADFD);
	/* the NOP queued before is submitted now */
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.res, 0);
	assert_int_equal(io_uring_enable_rings(other), -EBADFD);
	free_ring(ring);
	/* SINGLE_ISSUER created disabled: the enabling thread is the issuer */
	ring = new_ring(IORING_SETUP_R_DISABLED | IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN);
	a.ring = ring;
	assert_int_equal(pthread_create(&t, NULL, enabler, &a), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a.rc, 0);
	assert_int_equal(io_uring_get_events(ring), -EEXIST);
	assert_int_equal(io_uring_register_eventfd(ring, 0), -EEXIST);
	free_ring(ring);
	free_ring(other);
}

static void test_iowq(void **state)
{
	struct io_uring *ring = new_ring(0);
	unsigned vals[2] = { 4, 8 };
	cpu_set_t set;

	(void)state;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_int_equal(io_uring_register_iowq_aff(ring, sizeof(set), &set), 0);
	assert_int_equal(io_uring_register_iowq_aff(ring, 0, &set), -EINVAL);
	assert_int_equal(io_uring_register_iowq_aff(ring, sizeof(set), NULL), -EINVAL);
	assert_int_equal(io_uring_register_iowq_aff(ring, 1ull << 31, &set), -EINVAL);
	assert_int_equal(io_uring_unregister_iowq_aff(ring), 0);
	assert_int_equal(io_uring_register_iowq_max_workers(ring, vals), 0);
	assert_int_equal(vals[0], 0);	/* no io-wq: no workers, as Linux before the first */
	assert_int_equal(vals[1], 0);
	vals[0] = 0x80000000u;
	assert_int_equal(io_uring_register_iowq_max_workers(ring, vals), -EINVAL);
	free_ring(ring);
}

static void test_query(void **state)
{
	struct io_uring_query_opcode op;
	struct io_uring_query_zcrx zc;
	struct io_uring_query_hdr h[3];
	uint64_t big[8];

	(void)state;
	memset(h, 0, sizeof(h));
	memset(&op, 0xff, sizeof(op));
	memset(&zc, 0xff, sizeof(zc));
	h[0].query_op = IO_URING_QUERY_OPCODES;
	h[0].query_data = (uintptr_t)&op;
	h[0].size = sizeof(op);
	h[0].next_entry = (uintptr_t)&h[1];
	h[1].query_op = IO_URING_QUERY_ZCRX;
	h[1].query_data = (uintptr_t)&zc;
	h[1].size = sizeof(zc);
	h[1].next_entry = (uintptr_t)&h[2];
	h[2].query_op = 77;
	h[2].query_data = (uintptr_t)big;
	h[2].size = sizeof(big);
	assert_int_equal(io_uring_register_query(h), 0);
	assert_int_equal(h[0].result, 0);
	assert_int_equal(h[0].size, sizeof(op));
	assert_int_equal(op.nr_request_opcodes, IORING_OP_LAST);
	assert_int_equal(op.nr_register_opcodes, IORING_REGISTER_LAST);
	assert_true(op.ring_setup_flags & IORING_SETUP_SQPOLL);
	assert_true(op.ring_setup_flags & IORING_SETUP_R_DISABLED);
	assert_false(op.ring_setup_flags & IORING_SETUP_NO_MMAP);
	assert_int_equal(op.sqe_flags, 0x7f);
	assert_int_equal(op.nr_query_opcodes, __IO_URING_QUERY_MAX);
	assert_int_equal(h[1].result, 0);
	assert_int_equal(zc.register_flags, 0);
	assert_int_equal(zc.area_flags, 0);
	assert_int_equal(zc.nr_ctrl_opcodes, 1);	/* ZCRX_CTRL_FLUSH_RQ */
	assert_int_equal(zc.rq_hdr_size, 128);
	assert_int_equal(zc.rq_hdr_alignment, 64);
	assert_int_equal(h[2].result, -EOPNOTSUPP);
	assert_int_equal(h[2].size, 0);
	/* a bigger buffer: the rest zeroed; reserved words or result set: -EINVAL */
	memset(big, 0xff, sizeof(big));
	memset(h, 0, sizeof(h));
	h[0].query_op = IO_URING_QUERY_ZCRX;
	h[0].query_data = (uintptr_t)big;
	h[0].size = sizeof(big);
	assert_int_equal(io_uring_register_query(h), 0);
	assert_int_equal(h[0].size, sizeof(zc));
	assert_int_equal(big[7], 0);
	h[0].result = 1;
	h[0].size = sizeof(big);
	assert_int_equal(io_uring_register_query(h), 0);
	assert_int_equal(h[0].result, -EINVAL);
	/* nr_args must be 0 */
	assert_int_equal(io_uring_register(-1, IORING_REGISTER_QUERY, h, 1), -EINVAL);
	/* from a ring too */
	{
		struct io_uring *ring = new_ring(0);

		memset(h, 0, sizeof(h));
		h[0].query_op = IO_URING_QUERY_OPCODES;
		h[0].query_data = (uintptr_t)&op;
		h[0].size = sizeof(op);
		assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_QUERY, h, 0), 0);
		assert_int_equal(h[0].result, 0);
		free_ring(ring);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_register),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_eventfd),
		cmocka_unit_test(test_r_disabled),
		cmocka_unit_test(test_iowq),
		cmocka_unit_test(test_query),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
