/*
 * Provided buffers, with Linux io_uring/kbuf.c's results: PROVIDE_BUFFERS
 * and REMOVE_BUFFERS (results, every prep error), ring-mapped groups
 * (io_uring_setup_buf_ring, register errors, PBUF_STATUS head, incremental
 * rings), and IOSQE_BUFFER_SELECT through the engine's selection API, driven
 * by a test op (uring_test_ops.h) that "receives" into the chosen buffer:
 * order, buffer id in the CQE, -ENOBUFS, recycling, bytes intact.
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
#include "tests/unit/uring_test_ops.h"
#include "zcnic/uring.h"

#define BUF_LEN	64
#define NBUF	8

struct fx {
	struct io_uring ring;
	uint8_t mem[NBUF * BUF_LEN];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || io_uring_queue_init(32, &f->ring, 0))
		return -1;
	top_install();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	io_uring_queue_exit(&f->ring);
	free(f);
	top_uninstall();
	return 0;
}

static struct io_uring_sqe *last_sqe;

static struct io_uring_sqe *get(struct io_uring *ring, uint64_t ud)
{
	last_sqe = urt_sqe(ring, ud);
	return last_sqe;
}

/* Submit the SQE get() gave last (prepared since): its CQE's res. */
static int submit_one(struct io_uring *ring)
{
	uint64_t ud = last_sqe->user_data;
	struct io_uring_cqe c;

	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, ud);
	return c.res;
}

/* a "receive" of len bytes of value v into a buffer of group bgid */
static void prep_bsel(struct io_uring_sqe *sqe, int bgid, unsigned len, uint8_t v, bool recycle)
{
	io_uring_prep_rw(TOP_BSEL, sqe, 0, NULL, len, v | (recycle ? 1ull << 32 : 0));
	sqe->flags = IOSQE_BUFFER_SELECT;
	sqe->buf_group = (__u16)bgid;
}

static void test_provide_remove(void **state)
{
	struct fx *f = *state;

	io_uring_prep_provide_buffers(get(&f->ring, 1), f->mem, BUF_LEN, NBUF, 3, 100);
	assert_int_equal(submit_one(&f->ring), 0);
	io_uring_prep_remove_buffers(get(&f->ring, 2), 3, 3);
	assert_int_equal(submit_one(&f->ring), 3);
	io_uring_prep_remove_buffers(get(&f->ring, 3), 100, 3);
	assert_int_equal(submit_one(&f->ring), NBUF - 3);
	/* an empty group that exists: 0; one that never did: -ENOENT */
	io_uring_prep_remove_buffers(get(&f->ring, 4), 1, 3);
	assert_int_equal(submit_one(&f->ring), 0);
	io_uring_prep_remove_buffers(get(&f->ring, 5), 1, 4);
	assert_int_equal(submit_one(&f->ring), -ENOENT);
}

static void test_provide_errors(void **state)
{
	struct fx *f = *state;
	struct io_uring_sqe *sqe;

#define ONE(stmt, err) do { sqe = get(&f->ring, 9); \
		io_uring_prep_provide_buffers(sqe, f->mem, BUF_LEN, NBUF, 1, 0); stmt; \
		assert_int_equal(io_uring_submit(&f->ring), 1); urt_expect(&f->ring, 9, err); } while (0)
	ONE(sqe->fd = 0, -E2BIG);
	ONE(sqe->fd = 65537, -E2BIG);
	ONE(sqe->len = 0, -EINVAL);
	ONE(sqe->rw_flags = 1, -EINVAL);
	ONE(sqe->file_index = 1, -EINVAL);
	ONE(sqe->addr = UINT64_MAX - 10, -EOVERFLOW);
	ONE(sqe->off = 65536, -E2BIG);
	ONE(sqe->off = 65530, -EINVAL);		/* 65530 + 8 ids overflow the u16 space */
#undef ONE
#define ONE(stmt, err) do { sqe = get(&f->ring, 9); io_uring_prep_remove_buffers(sqe, 1, 1); stmt; \
		assert_int_equal(io_uring_submit(&f->ring), 1); urt_expect(&f->ring, 9, err); } while (0)
	ONE(sqe->fd = 0, -EINVAL);
	ONE(sqe->fd = 65537, -EINVAL);
	ONE(sqe->addr = 1, -EINVAL);
	ONE(sqe->len = 1, -EINVAL);
	ONE(sqe->off = 1, -EINVAL);
	ONE(sqe->rw_flags = 1, -EINVAL);
#undef ONE
}

/* legacy group: oldest first, bid in the CQE, bytes land, -ENOBUFS when empty */
static void test_select_legacy(void **state)
{
	struct fx *f = *state;
	uint32_t fl;

	io_uring_prep_provide_buffers(get(&f->ring, 1), f->mem, BUF_LEN, 3, 7, 10);
	assert_int_equal(submit_one(&f->ring), 0);
	for (unsigned i = 0; i < 3; i++) {
		/* 100 bytes wanted: clamped to the buffer's 64 */
		prep_bsel(get(&f->ring, 20 + i), 7, 100, (uint8_t)(0xa0 + i), false);
		assert_int_equal(io_uring_submit(&f->ring), 1);
		fl = urt_expect(&f->ring, 20 + i, BUF_LEN);
		assert_int_equal(fl, IORING_CQE_F_BUFFER | (10 + i) << IORING_CQE_BUFFER_SHIFT);
		for (unsigned b = 0; b < BUF_LEN; b++)
			assert_int_equal(f->mem[i * BUF_LEN + b], 0xa0 + i);
	}
	prep_bsel(get(&f->ring, 30), 7, 10, 0, false);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	fl = urt_expect(&f->ring, 30, -ENOBUFS);
	assert_int_equal(fl, 0);
	/* no such group: -ENOBUFS too */
	prep_bsel(get(&f->ring, 31), 99, 10, 0, false);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 31, -ENOBUFS);
	/* a buffer given back unused is the next one again */
	io_uring_prep_provide_buffers(get(&f->ring, 2), f->mem, BUF_LEN, 2, 7, 40);
	assert_int_equal(submit_one(&f->ring), 0);
	prep_bsel(get(&f->ring, 32), 7, 10, 1, true);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 32, -EAGAIN);
	prep_bsel(get(&f->ring, 33), 7, 10, 0x55, false);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	fl = urt_expect(&f->ring, 33, 10);
	assert_int_equal(fl >> IORING_CQE_BUFFER_SHIFT, 40);
	/* an op without buffer selection refuses the flag (engine, kernel order) */
	io_uring_prep_nop(get(&f->ring, 34));
	last_sqe->flags = IOSQE_BUFFER_SELECT;
	assert_int_equal(submit_one(&f->ring), -EOPNOTSUPP);
}

/* ring-mapped group: tail published by the program, head by zcnic */
static void test_buf_ring(void **state)
{
	struct fx *f = *state;
	const unsigned entries = 4;
	struct io_uring_buf_ring *br;
	uint32_t fl;
	uint16_t head = 0xffff;
	int err = 1, mask = io_uring_buf_ring_mask(entries);

	br = io_uring_setup_buf_ring(&f->ring, entries, 5, 0, &err);
	assert_non_null(br);
	assert_int_equal(err, 0);
	assert_int_equal(io_uring_buf_ring_head(&f->ring, 5, &head), 0);
	assert_int_equal(head, 0);
	/* nothing added yet */
	prep_bsel(get(&f->ring, 1), 5, 8, 0, false);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 1, -ENOBUFS);
	for (int i = 0; i < 3; i++)
		io_uring_buf_ring_add(br, f->mem + i * BUF_LEN, BUF_LEN, (unsigned short)(200 + i),
				      mask, i);
	io_uring_buf_ring_advance(br, 3);
	assert_int_equal(io_uring_buf_ring_available(&f->ring, br, 5), 3);
	for (int i = 0; i < 3; i++) {
		prep_bsel(get(&f->ring, 10 + i), 5, 16, (uint8_t)(0x10 + i), false);
		assert_int_equal(io_uring_submit(&f->ring), 1);
		fl = urt_expect(&f->ring, 10 + i, 16);
		assert_int_equal(fl, IORING_CQE_F_BUFFER | (200 + i) << IORING_CQE_BUFFER_SHIFT);
		assert_int_equal(f->mem[i * BUF_LEN], 0x10 + i);
		assert_int_equal(f->mem[i * BUF_LEN + 16], 0);
	}
	assert_int_equal(io_uring_buf_ring_head(&f->ring, 5, &head), 0);
	assert_int_equal(head, 3);
	assert_int_equal(io_uring_buf_ring_available(&f->ring, br, 5), 0);
	/* a recycled entry stays at head */
	io_uring_buf_ring_add(br, f->mem, BUF_LEN, 9, mask, 0);
	io_uring_buf_ring_advance(br, 1);
	prep_bsel(get(&f->ring, 20), 5, 16, 0, true);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 20, -EAGAIN);
	assert_int_equal(io_uring_buf_ring_head(&f->ring, 5, &head), 0);
	assert_int_equal(head, 3);
	/* PROVIDE/REMOVE on a ring group: -EINVAL */
	io_uring_prep_provide_buffers(get(&f->ring, 21), f->mem, BUF_LEN, 1, 5, 0);
	assert_int_equal(submit_one(&f->ring), -EINVAL);
	io_uring_prep_remove_buffers(get(&f->ring, 22), 1, 5);
	assert_int_equal(submit_one(&f->ring), -EINVAL);
	assert_int_equal(io_uring_free_buf_ring(&f->ring, br, entries, 5), 0);
	assert_int_equal(io_uring_unregister_buf_ring(&f->ring, 5), -ENOENT);
	assert_int_equal(io_uring_buf_ring_head(&f->ring, 5, &head), -ENOENT);
}

static void test_buf_ring_register_errors(void **state)
{
	struct fx *f = *state;
	struct io_uring_buf_reg reg;
	void *mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err;

	assert_true(mem != MAP_FAILED);
#define REG(stmt, want) do { memset(&reg, 0, sizeof(reg)); reg.ring_addr = (uintptr_t)mem; \
		reg.ring_entries = 8; reg.bgid = 1; stmt; \
		assert_int_equal(io_uring_register_buf_ring(&f->ring, &reg, 0), want); } while (0)
	REG(reg.resv[1] = 1, -EINVAL);
	REG(reg.resv[4] = 1, -EINVAL);
	/* min_left is a property of incremental rings */
	REG(reg.min_left = 1, -EINVAL);
	REG(reg.flags = 4, -EINVAL);
	REG(reg.ring_entries = 6, -EINVAL);
	REG(reg.ring_entries = 0, -EINVAL);
	REG(reg.ring_entries = 65536, -EINVAL);
	REG(reg.ring_addr = 0, -EFAULT);
	REG(reg.ring_addr += 8, -EINVAL);
	REG(reg.flags = IOU_PBUF_RING_MMAP, -EINVAL);
	REG((void)0, 0);
	REG((void)0, -EEXIST);
	assert_int_equal(io_uring_unregister_buf_ring(&f->ring, 1), 0);
	/* a legacy group with buffers: -EEXIST; unregistering it: -EINVAL */
	io_uring_prep_provide_buffers(get(&f->ring, 1), f->mem, BUF_LEN, 1, 2, 0);
	assert_int_equal(submit_one(&f->ring), 0);
	REG(reg.bgid = 2, -EEXIST);
	assert_int_equal(io_uring_unregister_buf_ring(&f->ring, 2), -EINVAL);
	/* the register call's own checks */
	assert_int_equal(io_uring_register(f->ring.ring_fd, IORING_REGISTER_PBUF_RING, NULL, 1),
			 -EINVAL);
	assert_int_equal(io_uring_register(f->ring.ring_fd, IORING_REGISTER_PBUF_RING, &reg, 2),
			 -EINVAL);
	/* setup_buf_ring reports the error and maps nothing */
	assert_null(io_uring_setup_buf_ring(&f->ring, 3, 9, 0, &err));
	assert_int_equal(err, -EINVAL);
#undef REG
	munmap(mem, 8192);
}

/* IOU_PBUF_RING_INC: an entry is used bit by bit, F_BUF_MORE until it is spent */
static void test_buf_ring_incremental(void **state)
{
	struct fx *f = *state;
	struct io_uring_buf_ring *br;
	uint32_t fl;
	uint16_t head;
	int err;

	br = io_uring_setup_buf_ring(&f->ring, 2, 6, IOU_PBUF_RING_INC, &err);
	assert_non_null(br);
	io_uring_buf_ring_add(br, f->mem, 48, 77, io_uring_buf_ring_mask(2), 0);
	io_uring_buf_ring_advance(br, 1);
	for (int i = 0; i < 2; i++) {
		prep_bsel(get(&f->ring, 1), 6, 16, (uint8_t)(1 + i), false);
		assert_int_equal(io_uring_submit(&f->ring), 1);
		fl = urt_expect(&f->ring, 1, 16);
		assert_int_equal(fl, IORING_CQE_F_BUFFER | IORING_CQE_F_BUF_MORE |
				 77u << IORING_CQE_BUFFER_SHIFT);
	}
	assert_int_equal(f->mem[0], 1);
	assert_int_equal(f->mem[16], 2);
	prep_bsel(get(&f->ring, 2), 6, 0, 3, false);	/* 0: what is left */
	assert_int_equal(io_uring_submit(&f->ring), 1);
	fl = urt_expect(&f->ring, 2, 16);
	assert_int_equal(fl, IORING_CQE_F_BUFFER | 77u << IORING_CQE_BUFFER_SHIFT);
	assert_int_equal(f->mem[32], 3);
	assert_int_equal(io_uring_buf_ring_head(&f->ring, 6, &head), 0);
	assert_int_equal(head, 1);
	assert_int_equal(io_uring_free_buf_ring(&f->ring, br, 2, 6), 0);
}

/* min_left: a rest below it retires the entry (Linux io_kbuf_inc_commit) */
static void test_buf_ring_min_left(void **state)
{
	struct fx *f = *state;
	struct io_uring_buf_reg reg;
	struct io_uring_buf_ring *br;
	uint16_t head;
	uint32_t fl;

	br = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(br != MAP_FAILED);
	io_uring_buf_ring_init(br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uintptr_t)br;
	reg.ring_entries = 2;
	reg.bgid = 4;
	reg.min_left = 20;
	assert_int_equal(io_uring_register_buf_ring(&f->ring, &reg, IOU_PBUF_RING_INC), 0);
	io_uring_buf_ring_add(br, f->mem, 48, 5, io_uring_buf_ring_mask(2), 0);
	io_uring_buf_ring_add(br, f->mem + 64, 48, 6, io_uring_buf_ring_mask(2), 1);
	io_uring_buf_ring_advance(br, 2);
	/* 48 - 16 = 32 left: kept */
	prep_bsel(get(&f->ring, 1), 4, 16, 1, false);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	fl = urt_expect(&f->ring, 1, 16);
	assert_int_equal(fl, IORING_CQE_F_BUFFER | IORING_CQE_F_BUF_MORE | 5u << IORING_CQE_BUFFER_SHIFT);
	/* 32 - 16 = 16 left, below 20: the entry is retired */
	prep_bsel(get(&f->ring, 2), 4, 16, 2, false);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	fl = urt_expect(&f->ring, 2, 16);
	assert_int_equal(fl, IORING_CQE_F_BUFFER | 5u << IORING_CQE_BUFFER_SHIFT);
	assert_int_equal(io_uring_buf_ring_head(&f->ring, 4, &head), 0);
	assert_int_equal(head, 1);
	prep_bsel(get(&f->ring, 3), 4, 16, 3, false);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	fl = urt_expect(&f->ring, 3, 16);
	assert_int_equal(fl, IORING_CQE_F_BUFFER | IORING_CQE_F_BUF_MORE | 6u << IORING_CQE_BUFFER_SHIFT);
	assert_int_equal(f->mem[64], 3);
	assert_int_equal(io_uring_unregister_buf_ring(&f->ring, 4), 0);
	munmap(br, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_provide_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_provide_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select_legacy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buf_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buf_ring_register_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buf_ring_incremental, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buf_ring_min_left, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
