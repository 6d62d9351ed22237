/*
 * IORING_OP_FILES_UPDATE (io_uring_prep_files_update) and
 * IORING_REGISTER_FILE_ALLOC_RANGE, as Linux io_uring/rsrc.c
 * (io_files_update_prep, io_files_update,
 * io_files_update_with_index_alloc) and io_uring/filetable.c. The files
 * are ring handles (H[]); IORING_NOP_FILE with IORING_NOP_FIXED_FILE
 * tells a filled slot (0) from an empty one (-EBADF).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"

#define NH 6
static struct io_uring aux[NH];
static int H[NH];

static int setup(void **state)
{
	if (urt_ring_setup(state, 0))
		return -1;
	for (int i = 0; i < NH; i++) {
		if (io_uring_queue_init(2, &aux[i], 0))
			return -1;
		H[i] = aux[i].ring_fd;
	}
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < NH; i++)
		io_uring_queue_exit(&aux[i]);
	return urt_ring_teardown(state);
}

/* FILES_UPDATE of fds[0..nr) at off; the CQE's res. */
static int update(struct io_uring *ring, int *fds, unsigned nr, int off)
{
	struct io_uring_sqe *sqe = urt_sqe(ring, 0x61);
	struct io_uring_cqe c;

	io_uring_prep_files_update(sqe, fds, nr, off);
	sqe->user_data = 0x61;
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0x61);
	return c.res;
}

/* 0 if slot holds a file, -EBADF if empty. */
static int slot_res(struct io_uring *ring, unsigned slot)
{
	struct io_uring_sqe *sqe = urt_sqe(ring, 0x62);
	struct io_uring_cqe c;

	io_uring_prep_nop(sqe);
	sqe->nop_flags = IORING_NOP_FILE | IORING_NOP_FIXED_FILE;
	sqe->fd = (int)slot;
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	return c.res;
}

static void expect_slots(struct io_uring *ring, const char *want)
{
	for (unsigned i = 0; want[i]; i++)
		assert_int_equal(slot_res(ring, i), want[i] == 'x' ? 0 : -EBADF);
}

static void test_prep_and_no_table(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe;
	int fds[2] = { H[0], H[1] };

	assert_int_equal(update(ring, fds, 1, 0), -ENXIO);
	assert_int_equal(update(ring, fds, 1, -1), -ENXIO);	/* ALLOC */
	assert_int_equal(update(ring, fds, 0, 0), -EINVAL);	/* len 0 */
	sqe = urt_sqe(ring, 1);
	io_uring_prep_files_update(sqe, fds, 1, 0);
	sqe->rw_flags = 1;
	sqe = urt_sqe(ring, 2);
	io_uring_prep_files_update(sqe, fds, 1, 0);
	sqe->splice_fd_in = 1;
	sqe = urt_sqe(ring, 3);
	io_uring_prep_files_update(sqe, fds, 1, 0);
	sqe->ioprio = 1;
	io_uring_submit(ring);
	/* each prep error ends the submission */
	urt_expect(ring, 1, -EINVAL);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 2, -EINVAL);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 3, -EINVAL);
}

static void test_update_at_offset(void **state)
{
	struct io_uring *ring = *state;
	int fds[3] = { H[0], H[1], H[2] };
	int up[3];

	assert_int_equal(io_uring_register_files_sparse(ring, 4), 0);
	assert_int_equal(update(ring, fds, 2, 1), 2);
	expect_slots(ring, ".xx.");
	/* past the table, a wrapping range, a NULL array */
	assert_int_equal(update(ring, fds, 2, 3), -EINVAL);
	assert_int_equal(update(ring, fds, 2, (int)0xfffffffe), -EOVERFLOW);
	assert_int_equal(update(ring, NULL, 1, 0), -EFAULT);
	/* SKIP keeps a slot, -1 empties one */
	up[0] = IORING_REGISTER_FILES_SKIP;
	up[1] = -1;
	up[2] = H[3];
	assert_int_equal(update(ring, up, 3, 1), 3);
	expect_slots(ring, ".x.x");
	/* a bad handle stops it; its slot was emptied first (Linux resets the
	 * slot before it looks up the new file) */
	up[0] = H[4];
	up[1] = -7;
	assert_int_equal(update(ring, up, 2, 0), 1);
	expect_slots(ring, "x..x");
	up[0] = -7;
	assert_int_equal(update(ring, up, 1, 3), -EBADF);
	expect_slots(ring, "x...");
	/* the register op shares the rules */
	up[0] = -7;
	assert_int_equal(io_uring_register_files_update(ring, 0, up, 1), -EBADF);
	expect_slots(ring, "....");
}

static void test_alloc(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring other;
	int fds[3] = { H[0], H[1], H[2] };
	int more[2] = { H[3], H[4] };
	int bad[2] = { H[5], -1 };

	assert_int_equal(io_uring_register_files_sparse(ring, 4), 0);
	assert_int_equal(update(ring, fds, 2, IORING_FILE_INDEX_ALLOC), 2);
	assert_int_equal(fds[0], 0);
	assert_int_equal(fds[1], 1);
	/* a ring handle may go in a table too (docs/uring.md) */
	assert_int_equal(io_uring_queue_init(2, &other, 0), 0);
	fds[2] = other.ring_fd;
	assert_int_equal(update(ring, &fds[2], 1, IORING_FILE_INDEX_ALLOC), 1);
	assert_int_equal(fds[2], 2);
	/* one slot left: the first goes in, the second finds none */
	assert_int_equal(update(ring, more, 2, IORING_FILE_INDEX_ALLOC), 1);
	assert_int_equal(more[0], 3);
	assert_int_equal(more[1], H[4]);
	assert_int_equal(update(ring, &more[1], 1, IORING_FILE_INDEX_ALLOC), -ENFILE);
	expect_slots(ring, "xxxx");
	/* a freed slot is where the next allocation looks first */
	bad[1] = -1;
	assert_int_equal(io_uring_register_files_update(ring, 1, &bad[1], 1), 1);
	assert_int_equal(update(ring, bad, 1, IORING_FILE_INDEX_ALLOC), 1);
	assert_int_equal(bad[0], 1);
	/* -1 and SKIP are no files here: -EBADF */
	bad[0] = -1;
	assert_int_equal(update(ring, bad, 1, IORING_FILE_INDEX_ALLOC), -EBADF);
	bad[0] = IORING_REGISTER_FILES_SKIP;
	assert_int_equal(update(ring, bad, 1, IORING_FILE_INDEX_ALLOC), -EBADF);
	io_uring_queue_exit(&other);
}

/* The index cannot be written back: -EFAULT and the slot is emptied again. */
static void test_alloc_write_back_fault(void **state)
{
	struct io_uring *ring = *state;
	int *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(ro != MAP_FAILED);
	ro[0] = H[0];
	assert_int_equal(mprotect(ro, 4096, PROT_READ), 0);
	assert_int_equal(io_uring_register_files_sparse(ring, 2), 0);
	assert_int_equal(update(ring, ro, 1, IORING_FILE_INDEX_ALLOC), -EFAULT);
	expect_slots(ring, "..");
	munmap(ro, 4096);
}

static void test_alloc_range(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_file_index_range rg = { .off = 1, .len = 2 };
	int fds[3] = { H[0], H[1], H[2] };

	/* no table: nothing fits */
	assert_int_equal(io_uring_register_file_alloc_range(ring, 0, 1), -EINVAL);
	assert_int_equal(io_uring_register_file_alloc_range(ring, 0, 0), 0);
	assert_int_equal(io_uring_register_files_sparse(ring, 4), 0);
	assert_int_equal(io_uring_register_file_alloc_range(ring, 3, 2), -EINVAL);
	assert_int_equal(io_uring_register_file_alloc_range(ring, 0xffffffffu, 2), -EOVERFLOW);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILE_ALLOC_RANGE,
					   &rg, 1), -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILE_ALLOC_RANGE,
					   NULL, 0), -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILE_ALLOC_RANGE,
					   (void *)8, 0), -EFAULT);
	rg.resv = 1;
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_FILE_ALLOC_RANGE,
					   &rg, 0), -EINVAL);
	assert_int_equal(io_uring_register_file_alloc_range(ring, 1, 2), 0);
	assert_int_equal(update(ring, fds, 3, IORING_FILE_INDEX_ALLOC), 2);
	assert_int_equal(fds[0], 1);
	assert_int_equal(fds[1], 2);
	expect_slots(ring, ".xx.");
	/* a new table allocates over all of it again */
	assert_int_equal(io_uring_unregister_files(ring), 0);
	assert_int_equal(io_uring_register_files_sparse(ring, 2), 0);
	fds[0] = H[0];
	assert_int_equal(update(ring, fds, 1, IORING_FILE_INDEX_ALLOC), 1);
	assert_int_equal(fds[0], 0);
}

static void test_probe(void **state)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(*state);

	assert_non_null(p);
	assert_true(io_uring_opcode_supported(p, IORING_OP_FILES_UPDATE));
	io_uring_free_probe(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prep_and_no_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_at_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_write_back_fault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
