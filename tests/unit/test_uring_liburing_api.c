/* SPDX-License-Identifier: MIT */
/*
 * The liburing calls that real programs (liburing's own test/ and
 * examples/) use beyond the common ones, with the results Linux and
 * liburing give: the version, the raw setup/enter calls over a ring
 * handle, sparse file tables and their updates (io_uring/rsrc.c's codes),
 * the query interface and buffer rings at bad addresses (-EFAULT, never a
 * crash), the eventfd toggle, SQ-space waits, min-timeout waits on a ring
 * without IORING_FEAT_MIN_TIMEOUT, and rings across fork().
 */
#include <errno.h>
#include <liburing.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "zcnic/handle.h"

static int setup(void **state)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));

	if (!ring || io_uring_queue_init(8, ring, 0))
		return -1;
	*state = ring;
	return 0;
}

static int teardown(void **state)
{
	io_uring_queue_exit(*state);
	free(*state);
	return 0;
}

static int32_t nop_res(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int32_t res;

	io_uring_prep_nop(sqe);
	sqe->user_data = 9;
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		return INT32_MIN;
	res = cqe->user_data == 9 ? cqe->res : INT32_MIN;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

static void test_version(void **state)
{
	(void)state;
	assert_int_equal(io_uring_major_version(), IO_URING_VERSION_MAJOR);
	assert_int_equal(io_uring_minor_version(), IO_URING_VERSION_MINOR);
	/* true when the library is older than asked */
	assert_false(io_uring_check_version(2, 0));
	assert_true(io_uring_check_version(IO_URING_VERSION_MAJOR, IO_URING_VERSION_MINOR + 1));
	assert_false(IO_URING_CHECK_VERSION(2, 2));
	assert_true(IO_URING_CHECK_VERSION(3, 0));
}

/* io_uring_setup + io_uring_queue_mmap + io_uring_enter, as raw programs do. */
static void test_raw_setup_enter(void **state)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 64 };
	struct io_uring_getevents_arg ea = { 0 };
	struct __kernel_timespec ts = { .tv_nsec = 1000000 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd;

	(void)state;
	assert_int_equal(io_uring_setup(4, NULL), -EFAULT);
	p.cq_entries = 0;
	assert_int_equal(io_uring_setup(4, &p), -EINVAL);
	p.cq_entries = 64;
	fd = io_uring_setup(4, &p);
	assert_true(fd >= ZN_HANDLE_BASE);
	assert_int_equal(p.sq_entries, 4);
	assert_int_equal(p.cq_entries, 64);
	assert_int_equal(io_uring_queue_mmap(-1, &p, &ring), -EBADF);
	assert_int_equal(io_uring_queue_mmap(fd, &p, &ring), 0);
	assert_int_equal(ring.ring_fd, fd);
	assert_int_equal(*ring.cq.kring_entries, 64);
	assert_int_equal(nop_res(&ring), 0);
	/* enter: no open fd -EBADF, an OS fd -EOPNOTSUPP; unknown flags -EINVAL */
	assert_int_equal(io_uring_enter(12345, 0, 0, 0, NULL), -EBADF);
	{
		int pfd[2];

		assert_int_equal(pipe(pfd), 0);
		assert_int_equal(io_uring_enter((unsigned)pfd[0], 0, 0, 0, NULL), -EOPNOTSUPP);
		close(pfd[0]);
		close(pfd[1]);
	}
	assert_int_equal(io_uring_enter((unsigned)fd, 0, 0, 1u << 30, NULL), -EINVAL);
	/* enter2 with EXT_ARG: a wrong size -EINVAL, a timeout -ETIME */
	assert_int_equal(io_uring_enter2((unsigned)fd, 0, 1,
					 IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
					 &ea, sizeof(ea) - 1), -EINVAL);
	ea.ts = (uintptr_t)&ts;
	assert_int_equal(io_uring_enter2((unsigned)fd, 0, 1,
					 IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
					 &ea, sizeof(ea)), -ETIME);
	ea.min_wait_usec = 10;
	assert_int_equal(io_uring_enter2((unsigned)fd, 0, 1,
					 IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
					 &ea, sizeof(ea)), -ETIME);
	/* raw SQE: the program publishes the tail itself */
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	*ring.sq.ktail = ring.sq.sqe_tail;
	ring.sq.sqe_head = ring.sq.sqe_tail;
	assert_int_equal(io_uring_enter((unsigned)fd, 1, 1, IORING_ENTER_GETEVENTS, NULL), 1);
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), 0);
	io_uring_cqe_seen(&ring, cqe);
	/* min timeouts need the feature bit, as in liburing; no closable ring fds */
	ring.features &= ~IORING_FEAT_MIN_TIMEOUT;
	assert_int_equal(io_uring_wait_cqes_min_timeout(&ring, &cqe, 1, &ts, 10, NULL), -EINVAL);
	assert_int_equal(io_uring_submit_and_wait_min_timeout(&ring, &cqe, 1, &ts, 10, NULL),
			 -EINVAL);
	assert_int_equal(io_uring_close_ring_fd(&ring), -EOPNOTSUPP);
	assert_int_equal(io_uring_set_iowait(&ring, false), -EOPNOTSUPP);
	assert_int_equal(io_uring_queue_init_mem(8, &ring, &p, NULL, 0), -EINVAL);
	assert_int_equal(io_uring_mlock_size(8, 0), 0);
	assert_int_equal(io_uring_ring_dontfork(&ring), 0);
	assert_int_equal(io_uring_sqring_wait(&ring), 0);	/* not SQPOLL */
	io_uring_queue_exit(&ring);
}

/* FILES2 (sparse), FILES_UPDATE and FILES_UPDATE2: io_uring/rsrc.c's codes. */
static void test_files_sparse_update(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_rsrc_register rr = { 0 };
	struct io_uring_rsrc_update2 up = { 0 };
	int obj, h = zn_handle_alloc(ZN_HANDLE_TEST, &obj), stale = zn_handle_alloc(ZN_HANDLE_TEST, &obj);
	int fds[3] = { h, IORING_REGISTER_FILES_SKIP, -1 };
	__u64 tags[1] = { 1 };

	assert_true(h > 0 && stale > 0);
	assert_int_equal(zn_handle_close(stale), 0);
	/* updates need a table */
	assert_int_equal(io_uring_register_files_update(ring, 0, fds, 1), -ENXIO);
	/* FILES2's argument checks, in the kernel's order */
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILES2, &rr,
					   sizeof(rr) - 1), -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILES2, &rr,
					   sizeof(rr)), -EINVAL);	/* nr 0 */
	rr.nr = 4;
	rr.flags = 2;
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILES2, &rr,
					   sizeof(rr)), -EINVAL);
	rr.flags = IORING_RSRC_REGISTER_SPARSE;
	rr.data = (uintptr_t)fds;
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILES2, &rr,
					   sizeof(rr)), -EINVAL);	/* sparse with data */
	assert_int_equal(io_uring_register_files_tags(ring, fds, tags, 1), -EOPNOTSUPP);
	/* IORING_REGISTER_FILES_SKIP is no fd to register: fget(-2) */
	fds[0] = IORING_REGISTER_FILES_SKIP;
	assert_int_equal(io_uring_register_files(ring, fds, 1), -EBADF);
	fds[0] = h;
	assert_int_equal(io_uring_register_files_sparse(ring, 4), 0);
	assert_int_equal(io_uring_register_files_sparse(ring, 4), -EBUSY);
	/* empty slots: a fixed-file NOP is -EBADF */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		struct io_uring_cqe *cqe;

		io_uring_prep_nop(sqe);
		sqe->nop_flags = IORING_NOP_FILE | IORING_NOP_FIXED_FILE;
		sqe->fd = 0;
		sqe->flags = IOSQE_FIXED_FILE;
		assert_int_equal(io_uring_submit(ring), 1);
		assert_int_equal(io_uring_wait_cqe(ring, &cqe), 0);
		assert_int_equal(cqe->res, -EBADF);
		io_uring_cqe_seen(ring, cqe);
	}
	/* FILES_UPDATE: done count; SKIP keeps, -1 empties; beyond the table -EINVAL */
	assert_int_equal(io_uring_register_files_update(ring, 0, fds, 3), 3);
	assert_int_equal(io_uring_register_files_update(ring, 2, fds, 3), -EINVAL);
	assert_int_equal(io_uring_register_files_update(ring, 0, fds, 0), -EINVAL);
	assert_int_equal(io_uring_register_files_update(ring, UINT32_MAX, fds, 2), -EOVERFLOW);
	/* a bad handle ends the update; what was done before it counts */
	fds[1] = stale;
	assert_int_equal(io_uring_register_files_update(ring, 0, fds, 2), 1);
	assert_int_equal(io_uring_register_files_update(ring, 1, fds + 1, 1), -EBADF);
	/* FILES_UPDATE2: size and nr checked, tags not kept */
	up.offset = 3;
	up.data = (uintptr_t)fds;
	up.nr = 1;
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILES_UPDATE2, &up,
					   sizeof(up) - 8), -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILES_UPDATE2, &up,
					   sizeof(up)), 1);
	up.nr = 0;
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILES_UPDATE2, &up,
					   sizeof(up)), -EINVAL);
	assert_int_equal(io_uring_register_files_update_tag(ring, 0, fds, tags, 1), -EOPNOTSUPP);
	assert_int_equal(io_uring_unregister_files(ring), 0);
	assert_int_equal(zn_handle_close(h), 0);
}

/* Registrations zcnic does not implement: the wrappers reach the dispatch. */
static void test_unimplemented_registers(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_napi napi = { 0 };
	struct io_uring_restriction res = { .opcode = IORING_RESTRICTION_SQE_OP };

	assert_int_equal(io_uring_register_napi(ring, &napi), -EOPNOTSUPP);
	/* restrictions only while the ring is disabled (-EBADFD after) */
	assert_int_equal(io_uring_register_restrictions(ring, &res, 1), -EBADFD);
	/* liburing's stub of the old wait-region interface */
	assert_int_equal(io_uring_register_wait_reg(ring, NULL, 4), -EINVAL);
	assert_int_equal(nop_res(ring), 0);
}

/* Bad pointers in register arguments: -EFAULT, no crash. */
static void test_bad_pointers(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_query_opcode op;
	struct io_uring_query_hdr h = { .query_op = IO_URING_QUERY_OPCODES,
					.query_data = 0xdeadbeefUL, .size = sizeof(op) };
	struct io_uring_query_hdr bad_next = { .query_op = IO_URING_QUERY_OPCODES,
					       .query_data = (uintptr_t)&op, .size = sizeof(op),
					       .next_entry = 0xdeadbeefUL };
	struct io_uring_buf_reg reg = { .ring_addr = 4096, .ring_entries = 32, .bgid = 1 };
	void *hole = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(hole != MAP_FAILED);
	assert_int_equal(io_uring_register_query((struct io_uring_query_hdr *)0xdeadbeefUL),
			 -EFAULT);
	assert_int_equal(io_uring_register_query(&h), -EFAULT);
	assert_int_equal(io_uring_register_query(&bad_next), -EFAULT);
	assert_int_equal(bad_next.result, 0);		/* the first entry was answered */
	assert_int_equal(op.nr_request_opcodes, IORING_OP_LAST);
	/* a buffer ring at an unmapped or inaccessible address */
	assert_int_equal(io_uring_register_buf_ring(ring, &reg, 0), -EFAULT);
	reg.ring_addr = (uintptr_t)hole;
	assert_int_equal(io_uring_register_buf_ring(ring, &reg, 0), -EFAULT);
	munmap(hole, 8192);
	assert_int_equal(nop_res(ring), 0);
}

/* IORING_CQ_EVENTFD_DISABLED: the registered eventfd stays quiet. */
static void test_eventfd_toggle(void **state)
{
	struct io_uring *ring = *state;
	int efd = eventfd(0, EFD_NONBLOCK);
	uint64_t v;

	assert_true(efd >= 0);
	assert_true(io_uring_cq_eventfd_enabled(ring));
	assert_int_equal(io_uring_register_eventfd(ring, efd), 0);
	assert_int_equal(io_uring_cq_eventfd_toggle(ring, false), 0);
	assert_false(io_uring_cq_eventfd_enabled(ring));
	assert_int_equal(nop_res(ring), 0);
	assert_int_equal(read(efd, &v, sizeof(v)), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(io_uring_cq_eventfd_toggle(ring, true), 0);
	assert_int_equal(io_uring_cq_eventfd_toggle(ring, true), 0);
	assert_int_equal(nop_res(ring), 0);
	assert_int_equal(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	assert_true(v >= 1);
	assert_int_equal(io_uring_unregister_eventfd(ring), 0);
	close(efd);
}

/* A child of fork is not its parent's thread: SINGLE_ISSUER -EEXIST; an
 * SQPOLL ring has no thread in the child: -EOWNERDEAD, as Linux for an
 * SQPOLL ring whose thread died. */
static int child_result(struct io_uring *ring)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		struct io_uring_cqe *cqe;
		int rc;

		io_uring_prep_nop(sqe);
		rc = io_uring_submit(ring);
		if (rc >= 0)
			rc = io_uring_wait_cqe(ring, &cqe);
		_exit(rc < 0 ? -rc : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return -WEXITSTATUS(st);
}

static void test_fork(void **state)
{
	struct io_uring ring;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SINGLE_ISSUER), 0);
	assert_int_equal(nop_res(&ring), 0);
	assert_int_equal(child_result(&ring), -EEXIST);
	assert_int_equal(nop_res(&ring), 0);
	io_uring_queue_exit(&ring);
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SQPOLL), 0);
	assert_int_equal(nop_res(&ring), 0);
	assert_int_equal(child_result(&ring), -EOWNERDEAD);
	assert_int_equal(nop_res(&ring), 0);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_raw_setup_enter),
		cmocka_unit_test_setup_teardown(test_files_sparse_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unimplemented_registers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_pointers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eventfd_toggle, setup, teardown),
		cmocka_unit_test(test_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
