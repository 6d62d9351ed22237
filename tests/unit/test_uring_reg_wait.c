/*
 * IORING_REGISTER_MEM_REGION and registered wait arguments
 * (IORING_ENTER_EXT_ARG_REG), as Linux io_uring/register.c
 * io_register_mem_region, io_uring/memmap.c io_create_region and
 * io_uring/io_uring.c io_get_ext_arg_reg: the descriptor checks and their
 * errors, the program's memory and memory zcnic allocates (mapped through
 * the ring handle), and waits named by an offset into the region.
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

#define MS		1000000ull
#define PAGE		4096u
#define MARGIN_NS	(800ull * MS)
#define PARAM_OFF	0x20000000ull	/* Linux's IORING_MAP_OFF_PARAM_REGION */
#define REG_FLAGS	(IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG | IORING_ENTER_EXT_ARG_REG)

struct fixture {
	struct io_uring ring;
	void *mem;		/* 4 pages of the program's memory */
	struct io_uring_region_desc rd;
	struct io_uring_mem_region_reg mr;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || io_uring_queue_init(8, &f->ring, IORING_SETUP_R_DISABLED))
		return -1;
	f->mem = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->mem == MAP_FAILED)
		return -1;
	f->rd.user_addr = (uintptr_t)f->mem;
	f->rd.size = PAGE;
	f->rd.flags = IORING_MEM_REGION_TYPE_USER;
	f->mr.region_uptr = (uintptr_t)&f->rd;
	f->mr.flags = IORING_MEM_REGION_REG_WAIT_ARG;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	io_uring_queue_exit(&f->ring);
	munmap(f->mem, 4 * PAGE);
	free(f);
	return 0;
}

static int reg_region(struct fixture *f)
{
	return io_uring_register_region(&f->ring, &f->mr);
}

/* Every descriptor error, in the kernel's order; nothing is registered. */
static void test_region_errors(void **state)
{
	struct fixture *f = *state;
	struct io_uring_region_desc good = f->rd;
	void *ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(ro != MAP_FAILED);
	assert_int_equal(io_uring_register((unsigned)f->ring.ring_fd, IORING_REGISTER_MEM_REGION,
					   NULL, 1), -EINVAL);
	assert_int_equal(io_uring_register((unsigned)f->ring.ring_fd, IORING_REGISTER_MEM_REGION,
					   &f->mr, 0), -EINVAL);
	assert_int_equal(io_uring_register((unsigned)f->ring.ring_fd, IORING_REGISTER_MEM_REGION,
					   (void *)0x10, 1), -EFAULT);
	f->mr.region_uptr = 0;
	assert_int_equal(reg_region(f), -EFAULT);
	f->mr.region_uptr = (uintptr_t)&f->rd;
	f->mr.__resv[1] = 1;
	assert_int_equal(reg_region(f), -EINVAL);
	f->mr.__resv[1] = 0;
	f->mr.flags = 2;
	assert_int_equal(reg_region(f), -EINVAL);
	f->mr.flags = IORING_MEM_REGION_REG_WAIT_ARG;
	f->rd.__resv[3] = 1;
	assert_int_equal(reg_region(f), -EINVAL);
	f->rd = good;
	f->rd.flags |= 2;
	assert_int_equal(reg_region(f), -EINVAL);
	f->rd = good;
	f->rd.user_addr = 0;			/* the program's memory, no address */
	assert_int_equal(reg_region(f), -EFAULT);
	f->rd = good;
	f->rd.flags = 0;			/* zcnic's memory, with an address */
	assert_int_equal(reg_region(f), -EFAULT);
	f->rd = good;
	f->rd.size = 0;
	assert_int_equal(reg_region(f), -EINVAL);
	f->rd = good;
	f->rd.id = 1;
	assert_int_equal(reg_region(f), -EINVAL);
	f->rd = good;
	f->rd.mmap_offset = PAGE;
	assert_int_equal(reg_region(f), -EINVAL);
	f->rd = good;
	f->rd.user_addr += 16;
	assert_int_equal(reg_region(f), -EINVAL);
	f->rd = good;
	f->rd.size = PAGE + 8;
	assert_int_equal(reg_region(f), -EINVAL);
	f->rd = good;
	f->rd.user_addr = 0xfffffffffffff000ull;
	f->rd.size = 2 * PAGE;
	assert_int_equal(reg_region(f), -EOVERFLOW);
	f->rd = good;
	f->rd.user_addr = 0x1000;		/* nothing mapped there */
	assert_int_equal(reg_region(f), -EFAULT);
	f->rd = good;
	f->rd.user_addr = (uintptr_t)ro;	/* read-only: the kernel cannot pin it */
	assert_int_equal(reg_region(f), -EFAULT);
	f->rd = good;
	/* none of these registered anything */
	assert_int_equal(reg_region(f), 0);
	assert_int_equal(reg_region(f), -EBUSY);
	munmap(ro, PAGE);
}

/* Wait arguments only on a ring still disabled; a plain region on any. */
static void test_region_needs_disabled(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(io_uring_enable_rings(&f->ring), 0);
	assert_int_equal(reg_region(f), -EINVAL);
	f->mr.flags = 0;
	assert_int_equal(reg_region(f), 0);
	assert_int_equal(reg_region(f), -EBUSY);
	/* a region that holds no wait arguments: every offset is outside */
	assert_int_equal(io_uring_enter2((unsigned)f->ring.ring_fd, 0, 1, REG_FLAGS, NULL,
					 sizeof(struct io_uring_reg_wait)), -EFAULT);
}

static void reg_ts(struct io_uring_reg_wait *w, uint64_t ns, unsigned min_us)
{
	memset(w, 0, sizeof(*w));
	w->ts.tv_sec = (long long)(ns / 1000000000ull);
	w->ts.tv_nsec = (long long)(ns % 1000000000ull);
	w->min_wait_usec = min_us;
	w->flags = IORING_REG_WAIT_TS;
}

static int wait_off(struct fixture *f, unsigned wait_nr, uintptr_t off, size_t sz)
{
	return io_uring_enter2((unsigned)f->ring.ring_fd, 0, wait_nr, REG_FLAGS, (void *)off, sz);
}

/* Waits through the registered entries of region memory w of size bytes. */
static void reg_waits(struct fixture *f, struct io_uring_reg_wait *w, size_t size)
{
	unsigned max = (unsigned)(size / sizeof(*w));
	struct io_uring_cqe *cqe;
	uint64_t t0;

	reg_ts(&w[0], 40 * MS, 0);
	t0 = urt_now_ns();
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 1, 0), -ETIME);
	assert_true(urt_now_ns() >= t0 + 40 * MS);
	assert_true(urt_now_ns() < t0 + 40 * MS + MARGIN_NS);
	/* the last entry; one past it; offsets out of the region or unaligned */
	reg_ts(&w[max - 1], 1000, 0);
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 1, (int)max - 1), -ETIME);
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 1, (int)max), -EFAULT);
	assert_int_equal(wait_off(f, 1, size - sizeof(long), sizeof(*w)), -EFAULT);
	assert_int_equal(wait_off(f, 1, 0UL - sizeof(long), sizeof(*w)), -EFAULT);
	assert_int_equal(wait_off(f, 1, 4, sizeof(*w)), -EFAULT);
	assert_int_equal(wait_off(f, 1, 0, sizeof(*w) - 1), -EINVAL);
	/* an entry's own checks */
	w[1] = w[0];
	w[1].flags |= 2;
	assert_int_equal(wait_off(f, 1, sizeof(*w), sizeof(*w)), -EINVAL);
	w[1] = w[0];
	w[1].sigmask = (uintptr_t)&t0;
	w[1].sigmask_sz = 1;
	assert_int_equal(wait_off(f, 1, sizeof(*w), sizeof(*w)), -EINVAL);
	w[1].sigmask = 100;
	w[1].sigmask_sz = 8;
	assert_int_equal(wait_off(f, 1, sizeof(*w), sizeof(*w)), -EFAULT);
	/* without IORING_REG_WAIT_TS and with CQEs there: no timeout needed */
	memset(&w[2], 0, sizeof(w[2]));
	assert_int_equal(urt_queue_nops(&f->ring, 1, 0x70, 0), 0);
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 1, 2), 1);
	assert_int_equal(cqe->user_data, 0x70);
	io_uring_cqe_seen(&f->ring, cqe);
	/* a minimum wait: 2 of 4 there, the wait ends when it is over */
	reg_ts(&w[3], 5000 * MS, 50000);
	assert_int_equal(urt_queue_nops(&f->ring, 2, 0x80, 0), 0);
	t0 = urt_now_ns();
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 4, 3), 2);
	assert_true(urt_now_ns() >= t0 + 50 * MS);
	assert_true(urt_now_ns() < t0 + 50 * MS + MARGIN_NS);
	assert_int_equal(cqe->user_data, 0x80);
	io_uring_cq_advance(&f->ring, 2);
}

static void test_user_region_waits(void **state)
{
	struct fixture *f = *state;

	f->rd.size = 2 * PAGE;
	assert_int_equal(reg_region(f), 0);
	assert_int_equal(f->rd.mmap_offset, 0);
	assert_int_equal(io_uring_enable_rings(&f->ring), 0);
	reg_waits(f, f->mem, 2 * PAGE);
}

/* zcnic's memory: mapped through the ring handle at the kernel's offset. */
static void test_kernel_region_waits(void **state)
{
	struct fixture *f = *state;
	void *p;

	f->rd.user_addr = 0;
	f->rd.flags = 0;
	f->rd.size = 2 * PAGE;
	assert_int_equal(reg_region(f), 0);
	assert_int_equal(f->rd.mmap_offset, PARAM_OFF);
	assert_true(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, f->ring.ring_fd,
			 PARAM_OFF + PAGE) == MAP_FAILED);
	assert_true(mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, f->ring.ring_fd,
			 PARAM_OFF) == MAP_FAILED);
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, f->ring.ring_fd, PARAM_OFF);
	assert_true(p != MAP_FAILED);
	assert_int_equal(((const uint8_t *)p)[PAGE + 7], 0);	/* zeroed */
	assert_int_equal(io_uring_enable_rings(&f->ring), 0);
	reg_waits(f, p, 2 * PAGE);
	munmap(p, 2 * PAGE);
}

/* liburing checks the feature bit before it publishes any SQE. */
static void test_reg_wait_needs_ext_arg(void **state)
{
	struct fixture *f = *state;
	struct io_uring_cqe *cqe;
	unsigned tail;

	assert_int_equal(io_uring_enable_rings(&f->ring), 0);
	assert_int_equal(urt_queue_nops(&f->ring, 1, 1, 0), 0);
	tail = *f->ring.sq.ktail;
	f->ring.features &= ~IORING_FEAT_EXT_ARG;
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 1, 0), -EINVAL);
	assert_int_equal(*f->ring.sq.ktail, tail);
	/* no region: every index is outside it */
	f->ring.features |= IORING_FEAT_EXT_ARG;
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 1, 0), 1);
	urt_expect(&f->ring, 1, 0);
	assert_int_equal(io_uring_submit_and_wait_reg(&f->ring, &cqe, 1, 0), -EFAULT);
}

/* Linux's IOPOLL rings refuse registered wait arguments (io_validate_ext_arg). */
static void test_iopoll_refuses(void **state)
{
	struct io_uring ring;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_IOPOLL), 0);
	assert_int_equal(io_uring_enter2((unsigned)ring.ring_fd, 0, 1, REG_FLAGS, NULL,
					 sizeof(struct io_uring_reg_wait)), -EINVAL);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_region_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_needs_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_region_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_region_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_wait_needs_ext_arg, setup, teardown),
		cmocka_unit_test(test_iopoll_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
