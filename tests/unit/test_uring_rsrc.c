/*
 * Registered buffers and files (error codes of the kernel's rsrc.c), the
 * zcnic handle table behind sqe->fd, and io_uring_register_ifq before
 * zcrx exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "zcnic/handle.h"
#include "core/uring/uring_op.h"
#include "zcnic/uring.h"

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

static int nop_flags_res(struct io_uring *ring, unsigned nop_flags, int fd, unsigned buf_index,
			 unsigned sqe_flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe c;

	io_uring_prep_nop(sqe);
	sqe->nop_flags = nop_flags;
	sqe->fd = fd;
	sqe->buf_index = (__u16)buf_index;
	sqe->flags = (__u8)sqe_flags;
	sqe->user_data = 0x5;
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0x5);
	return c.res;
}

static void test_buffers(void **state)
{
	struct io_uring *ring = *state;
	static char a[4096], b[100];
	struct iovec iov[3] = {
		{ .iov_base = a, .iov_len = sizeof(a) },
		{ .iov_base = NULL, .iov_len = 0 },	/* sparse */
		{ .iov_base = b, .iov_len = sizeof(b) },
	};
	struct iovec bad;
	struct zn_uring *r = zn_uring_from_handle(ring->ring_fd);
	void *p;

	assert_int_equal(io_uring_unregister_buffers(ring), -ENXIO);
	assert_int_equal(io_uring_register_buffers(ring, iov, 0), -EINVAL);
	assert_int_equal(io_uring_register_buffers(ring, iov, ZN_URING_MAX_REG_BUFFERS + 1), -EINVAL);
	bad = (struct iovec){ .iov_base = NULL, .iov_len = 10 };
	assert_int_equal(io_uring_register_buffers(ring, &bad, 1), -EFAULT);
	bad = (struct iovec){ .iov_base = (void *)(UINTPTR_MAX - 10), .iov_len = 100 };
	assert_int_equal(io_uring_register_buffers(ring, &bad, 1), -EOVERFLOW);
	assert_int_equal(io_uring_register_buffers(ring, iov, 3), 0);
	assert_int_equal(io_uring_register_buffers(ring, iov, 3), -EBUSY);
	/* NOP's FIXED_BUFFER check: a registered, non-sparse index */
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FIXED_BUFFER, -1, 0, 0), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FIXED_BUFFER, -1, 2, 0), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FIXED_BUFFER, -1, 1, 0), -EFAULT);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FIXED_BUFFER, -1, 3, 0), -EFAULT);
	/* the range check ops use: inside the buffer, or -EFAULT */
	assert_int_equal(zn_uring_fixed_buf(r, 0, (uintptr_t)a + 10, 100, &p), 0);
	assert_ptr_equal(p, a + 10);
	assert_int_equal(zn_uring_fixed_buf(r, 0, (uintptr_t)a, sizeof(a), NULL), 0);
	assert_int_equal(zn_uring_fixed_buf(r, 0, (uintptr_t)a + 1, sizeof(a), NULL), -EFAULT);
	assert_int_equal(zn_uring_fixed_buf(r, 0, (uintptr_t)a - 1, 2, NULL), -EFAULT);
	assert_int_equal(zn_uring_fixed_buf(r, 2, (uintptr_t)a, 1, NULL), -EFAULT);
	assert_int_equal(zn_uring_fixed_buf(r, 1, 0, 0, NULL), -EFAULT);
	assert_int_equal(zn_uring_fixed_buf(r, 3, (uintptr_t)b, 1, NULL), -EFAULT);
	assert_int_equal(io_uring_unregister_buffers(ring), 0);
	assert_int_equal(io_uring_unregister_buffers(ring), -ENXIO);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FIXED_BUFFER, -1, 0, 0), -EFAULT);
}

static int dummy_obj;

static void test_files(void **state)
{
	struct io_uring *ring = *state;
	int h = zn_handle_alloc(ZN_HANDLE_TEST, &dummy_obj);
	int stale = zn_handle_alloc(ZN_HANDLE_TEST, &dummy_obj);
	int osfd = open("/dev/null", O_RDONLY);
	int files[4];

	assert_true(h >= ZN_HANDLE_BASE);
	assert_int_equal(zn_handle_close(stale), 0);
	assert_int_equal(io_uring_unregister_files(ring), -ENXIO);
	assert_int_equal(io_uring_register_files(ring, files, 0), -EINVAL);
	files[0] = stale;
	assert_int_equal(io_uring_register_files(ring, files, 1), -EBADF);
	files[0] = IORING_REGISTER_FILES_SKIP;	/* fget(-2) in the kernel */
	assert_int_equal(io_uring_register_files(ring, files, 1), -EBADF);
	files[0] = -7;
	assert_int_equal(io_uring_register_files(ring, files, 1), -EBADF);
	files[0] = h;
	files[1] = -1;
	files[2] = ring->ring_fd;
	files[3] = osfd;	/* an OS fd: kept, a file when used */
	assert_int_equal(io_uring_register_files(ring, files, 4), 0);
	assert_int_equal(io_uring_register_files(ring, files, 4), -EBUSY);
	/* NOP with IORING_NOP_FILE resolves fds, fixed and not */
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE, h, 0, 0), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE, stale, 0, 0), -EBADF);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE, osfd, 0, 0), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE | IORING_NOP_FIXED_FILE, 0, 0, 0), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE | IORING_NOP_FIXED_FILE, 1, 0, 0), -EBADF);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE | IORING_NOP_FIXED_FILE, 2, 0, 0), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE | IORING_NOP_FIXED_FILE, 3, 0, 0), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE | IORING_NOP_FIXED_FILE, 4, 0, 0), -EBADF);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE | IORING_NOP_FIXED_FILE, -1, 0, 0), -EBADF);
	assert_int_equal(zn_uring_fixed_file(zn_uring_from_handle(ring->ring_fd), 0), h);
	assert_int_equal(io_uring_unregister_files(ring), 0);
	close(osfd);
	/* once closed, the handle stops resolving */
	assert_int_equal(zn_handle_close(h), 0);
	assert_int_equal(nop_flags_res(ring, IORING_NOP_FILE, h, 0, 0), -EBADF);
}

static void test_handles(void **state)
{
	int h, h2, n = 0;

	(void)state;
	assert_int_equal(zn_handle_alloc(ZN_HANDLE_TEST, NULL), -EINVAL);
	assert_int_equal(zn_handle_alloc(ZN_HANDLE_ANY, &dummy_obj), -EINVAL);
	assert_int_equal(zn_handle_alloc(16, &dummy_obj), -EINVAL);
	h = zn_handle_alloc(ZN_HANDLE_TEST, &dummy_obj);
	assert_true(zn_handle_is_handle(h));
	assert_false(zn_handle_is_handle(1));
	assert_false(zn_handle_is_handle(-1));
	assert_int_equal(zn_handle_type(h), ZN_HANDLE_TEST);
	assert_ptr_equal(zn_handle_peek(h, ZN_HANDLE_TEST), &dummy_obj);
	assert_ptr_equal(zn_handle_peek(h, ZN_HANDLE_ANY), &dummy_obj);
	assert_null(zn_handle_peek(h, ZN_HANDLE_URING));	/* wrong type */
	assert_ptr_equal(zn_handle_get(h, ZN_HANDLE_TEST), &dummy_obj);
	zn_handle_put(h);
	assert_null(zn_handle_get(h, ZN_HANDLE_SOCKET));
	assert_int_equal(zn_handle_close(h), 0);
	assert_int_equal(zn_handle_close(h), -EBADF);
	assert_null(zn_handle_get(h, ZN_HANDLE_TEST));
	assert_int_equal(zn_handle_type(h), -EBADF);
	assert_int_equal(zn_handle_type(1), -EBADF);
	/* the slot is reused with a new generation: the old handle stays dead */
	h2 = zn_handle_alloc(ZN_HANDLE_TEST, &n);
	assert_true(h2 != h);
	assert_null(zn_handle_peek(h, ZN_HANDLE_ANY));
	assert_ptr_equal(zn_handle_peek(h2, ZN_HANDLE_TEST), &n);
	assert_int_equal(zn_handle_close(h2), 0);
}

/* close waits for a reference taken before it */
struct holder {
	int h;
	_Atomic int state;	/* 1 = holding, 2 = released */
};

static void *hold_ref(void *arg)
{
	struct holder *ho = arg;

	if (!zn_handle_get(ho->h, ZN_HANDLE_TEST))
		return NULL;
	atomic_store(&ho->state, 1);
	for (int i = 0; i < 50; i++)	/* 50 ms */
		usleep(1000);
	atomic_store(&ho->state, 2);
	zn_handle_put(ho->h);
	return NULL;
}

static void test_close_waits_for_refs(void **state)
{
	struct holder ho = { .state = 0 };
	pthread_t t;

	(void)state;
	ho.h = zn_handle_alloc(ZN_HANDLE_TEST, &dummy_obj);
	assert_int_equal(pthread_create(&t, NULL, hold_ref, &ho), 0);
	for (int i = 0; i < 5000 && atomic_load(&ho.state) == 0; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&ho.state), 1);
	assert_int_equal(zn_handle_close(ho.h), 0);
	assert_int_equal(atomic_load(&ho.state), 2);	/* returned only after the put */
	assert_int_equal(pthread_join(t, NULL), 0);
}

static void test_register_ifq(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_zcrx_ifq_reg reg;

	/* core/zcrx's handler is installed: a ring without DEFER_TASKRUN and
	 * CQE32 cannot have an ifq (tests/unit/test_zcrx_reg.c has the rest) */
	memset(&reg, 0, sizeof(reg));
	assert_int_equal(io_uring_register_ifq(ring, &reg), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test(test_handles),
		cmocka_unit_test(test_close_waits_for_refs),
		cmocka_unit_test_setup_teardown(test_register_ifq, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
