/*
 * io_uring_register_ifq conformance (reference/uring.md 1.3, the kernel's
 * test/zcrx.c test_rq / test_area / test_area_ro / test_ro_params and the
 * older device-based cases): each error code, over a netdev of zn-nicsim
 * bnxt models. The area is a zn DMA region (what zn_mem_adopt accepts as
 * is); the refill ring is plain application memory.
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

#include "tests/unit/support/netdev_pair.h"
#include "tests/unit/uring_test.h"
#include "zcnic/log.h"
#include "zcnic/uring.h"
#include "zcnic/zcrx.h"

#define PAGE		4096
#define AREA_LEN	(64 * PAGE)
#define RQ_ENTRIES	128
#define RING_FLAGS	(IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_CQE32)

struct fx {
	struct ndp n;
	struct io_uring ring;
	struct zn_dma_region *area;
	void *rqmem;
	size_t rqlen;
	struct io_uring_zcrx_ifq_reg reg;
	struct io_uring_zcrx_area_reg ar;
	struct io_uring_region_desc rd;
	char logbuf[512];
};

static void sink(enum zn_log_level lvl, const char *comp, const char *msg, void *arg)
{
	struct fx *f = arg;

	(void)lvl;
	(void)comp;
	snprintf(f->logbuf, sizeof(f->logbuf), "%s", msg);
}

static void reset_reg(struct fx *f)
{
	memset(&f->reg, 0, sizeof(f->reg));
	memset(&f->ar, 0, sizeof(f->ar));
	memset(&f->rd, 0, sizeof(f->rd));
	f->ar.addr = (uintptr_t)f->area->va;
	f->ar.len = AREA_LEN;
	f->rd.user_addr = (uintptr_t)f->rqmem;
	f->rd.size = f->rqlen;
	f->rd.flags = IORING_MEM_REGION_TYPE_USER;
	f->reg.if_idx = (uint32_t)zn_netdev_ifindex(f->n.a);
	f->reg.if_rxq = 1;
	f->reg.rq_entries = RQ_ENTRIES;
	f->reg.area_ptr = (uintptr_t)&f->ar;
	f->reg.region_ptr = (uintptr_t)&f->rd;
	f->logbuf[0] = 0;
}

static int ring_init(struct io_uring *ring, unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	return io_uring_queue_init_params(8, ring, &p);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || ndp_open(&f->n, "") < 0)
		goto err;
	if (ring_init(&f->ring, RING_FLAGS))
		goto err_ndp;
	if (zn_dma_region_alloc("zcrx-test", AREA_LEN, -1, ZN_DMA_NO_HUGE, &f->area))
		goto err_ring;
	f->rqlen = 2 * PAGE + RQ_ENTRIES * 16;
	f->rqlen = (f->rqlen + PAGE - 1) & ~(size_t)(PAGE - 1);
	f->rqmem = mmap(NULL, f->rqlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->rqmem == MAP_FAILED)
		goto err_area;
	reset_reg(f);
	zn_log_set_sink(sink, f);
	*state = f;
	return 0;

err_area:
	zn_dma_region_free(f->area);
err_ring:
	io_uring_queue_exit(&f->ring);
err_ndp:
	ndp_close(&f->n);
err:
	free(f);
	return -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	zn_log_set_sink(NULL, NULL);
	io_uring_queue_exit(&f->ring);
	ndp_close(&f->n);
	zn_dma_region_free(f->area);
	munmap(f->rqmem, f->rqlen);
	free(f);
	return 0;
}

#define REG(f) io_uring_register_ifq(&(f)->ring, &(f)->reg)
#define EXPECT(f, stmt, err) do { reset_reg(f); stmt; assert_int_equal(REG(f), err); } while (0)

static void test_ring_flags(void **state)
{
	struct fx *f = *state;
	static const unsigned bad[] = {
		0, IORING_SETUP_CQE32, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_CQE32,
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct io_uring r;

		assert_int_equal(ring_init(&r, bad[i]), 0);
		reset_reg(f);
		assert_int_equal(io_uring_register_ifq(&r, &f->reg), -EINVAL);
		io_uring_queue_exit(&r);
	}
}

static void test_reg_fields(void **state)
{
	struct fx *f = *state;

	EXPECT(f, f->reg.zcrx_id = 1, -EINVAL);
	EXPECT(f, f->reg.flags = ZCRX_REG_IMPORT, -EINVAL);
	EXPECT(f, f->reg.flags = 1u << 7, -EINVAL);
	EXPECT(f, f->reg.__resv[2] = 1, -EINVAL);
	EXPECT(f, f->reg.if_rxq = UINT32_MAX, -EINVAL);
	EXPECT(f, f->reg.rq_entries = 0, -EINVAL);
	EXPECT(f, f->reg.rq_entries = ZN_ZCRX_MAX_RQ_ENTRIES + 1, -EINVAL);
	EXPECT(f, f->reg.rq_entries = ~0u, -EINVAL);
	EXPECT(f, f->ar.rq_area_token = 1ull << 48, -EINVAL);
	EXPECT(f, f->reg.rx_buf_len = ~0u, -EINVAL);
	EXPECT(f, f->reg.rx_buf_len = 1024, -EINVAL);
	EXPECT(f, f->reg.rx_buf_len = 1u << 16, -EOPNOTSUPP);
	EXPECT(f, f->reg.area_ptr = 0, -EFAULT);
	EXPECT(f, f->reg.region_ptr = 0, -EFAULT);
	/* nothing written back on failure */
	assert_int_equal(f->reg.offsets.rqes, 0);
}

static void test_region(void **state)
{
	struct fx *f = *state;

	/* too small for the entries (rqes at 128 + 16 per entry) */
	EXPECT(f, f->reg.rq_entries = (uint32_t)(f->rqlen / 16), -EINVAL);
	EXPECT(f, f->rd.size = 0, -EINVAL);
	EXPECT(f, f->rd.user_addr = 0, -EFAULT);
	EXPECT(f, f->rd.id = 1, -EINVAL);
	EXPECT(f, f->rd.mmap_offset = PAGE, -EINVAL);
	EXPECT(f, f->rd.__resv[3] = 1, -EINVAL);
	EXPECT(f, f->rd.flags |= 2, -EINVAL);
	EXPECT(f, f->rd.size += 1, -EINVAL);
	EXPECT(f, f->rd.user_addr += 8, -EINVAL);
	EXPECT(f, f->rd.user_addr = 0x1000, -EFAULT);	/* nothing mapped there */
	/* a kernel-allocated region with an address: -EFAULT (test_region_allocated) */
	EXPECT(f, f->rd.flags = 0, -EFAULT);
	/* read-only refill memory: zcnic must write head */
	assert_int_equal(mprotect(f->rqmem, f->rqlen, PROT_READ), 0);
	EXPECT(f, (void)0, -EFAULT);
	assert_int_equal(mprotect(f->rqmem, f->rqlen, PROT_READ | PROT_WRITE), 0);
}

static void test_device(void **state)
{
	struct fx *f = *state;

	EXPECT(f, f->reg.if_idx = 0, -ENODEV);
	EXPECT(f, f->reg.if_idx = ZN_NETDEV_MAX + 5, -ENODEV);
	EXPECT(f, f->reg.if_idx = 0x80000001u, -ENODEV);
	EXPECT(f, f->reg.if_rxq = NDP_RXQ, -EINVAL);
	EXPECT(f, f->reg.if_rxq = 1000, -EINVAL);
}

/* test_area / test_area_ro of the kernel's test */
static void test_area(void **state)
{
	struct fx *f = *state;
	void *ro;

	EXPECT(f, f->ar.len = 0, -EFAULT);
	EXPECT(f, f->ar.addr = 0, -EFAULT);
	EXPECT(f, f->ar.len -= PAGE / 2, -EINVAL);
	EXPECT(f, f->ar.addr += PAGE / 2, -EINVAL);
	EXPECT(f, f->ar.addr = ~0ull - PAGE + 1, -EOVERFLOW);
	EXPECT(f, f->ar.flags = 2, -EINVAL);
	EXPECT(f, f->ar.__resv2[1] = 1, -EINVAL);
	EXPECT(f, f->ar.dmabuf_fd = 3, -EINVAL);
	EXPECT(f, f->ar.flags = IORING_ZCRX_AREA_DMABUF, -EOPNOTSUPP);
	assert_non_null(strstr(f->logbuf, "dmabuf"));
	/* runs past the mapping, starts before it */
	EXPECT(f, f->ar.len += PAGE, -EFAULT);
	EXPECT(f, f->ar.addr -= PAGE, -EFAULT);
	/* read-only memory */
	ro = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	EXPECT(f, (f->ar.addr = (uintptr_t)ro, f->ar.len = 4 * PAGE), -EFAULT);
	munmap(ro, 4 * PAGE);
}

/* test_ro_params: the write-back would fault, so nothing is registered */
static void test_ro_params(void **state)
{
	struct fx *f = *state;
	struct io_uring_zcrx_ifq_reg *ro;

	reset_reg(f);
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	memcpy(ro, &f->reg, sizeof(*ro));
	assert_int_equal(mprotect(ro, PAGE, PROT_READ), 0);
	assert_int_equal(io_uring_register_ifq(&f->ring, ro), -EFAULT);
	munmap(ro, PAGE);
}

/*
 * No user memory for the refill ring: zcnic allocates it, writes Linux's
 * zcrx mmap offset (0x30000000 | id << 16) back, and the program maps it
 * as liburing's examples/zcrx.c does, mmap(ring_fd, rd.mmap_offset).
 */
static void test_region_allocated(void **state)
{
	struct fx *f = *state;
	uint8_t *rq, *again;
	uint64_t off;
	int mfd;

	reset_reg(f);
	f->rd.flags = 0;
	f->rd.user_addr = 0;
	assert_int_equal(REG(f), 0);
	off = 0x30000000ull | (uint64_t)f->reg.zcrx_id << 16;
	assert_int_equal(f->rd.mmap_offset, off);
	assert_int_equal(f->rd.user_addr, 0);
	rq = mmap(NULL, f->rqlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  f->ring.ring_fd, (off_t)off);
	assert_true(rq != MAP_FAILED);
	assert_int_equal(*(uint32_t *)(rq + f->reg.offsets.head), 0);
	assert_int_equal(*(uint32_t *)(rq + f->reg.offsets.tail), 0);
	/* one memory: what the program writes, zcnic's mapping of it sees */
	mfd = zn_uring_mmap_fd(zn_uring_from_handle(f->ring.ring_fd), off, f->rqlen);
	assert_true(mfd >= 0);
	again = mmap(NULL, f->rqlen, PROT_READ, MAP_SHARED, mfd, 0);
	assert_true(again != MAP_FAILED);
	*(uint32_t *)(rq + f->reg.offsets.tail) = 5;
	assert_int_equal(*(uint32_t *)(again + f->reg.offsets.tail), 5);
	*(uint32_t *)(rq + f->reg.offsets.tail) = 0;
	munmap(again, f->rqlen);
	/* longer than the region, or an offset with nothing there: EINVAL */
	errno = 0;
	assert_true(mmap(NULL, f->rqlen + PAGE, PROT_READ, MAP_SHARED, f->ring.ring_fd,
			 (off_t)off) == MAP_FAILED);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_true(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, f->ring.ring_fd,
			 (off_t)(off + (1u << 16))) == MAP_FAILED);
	assert_int_equal(errno, EINVAL);
	/* the program's mapping outlives the ring, as a kernel region's does */
	io_uring_queue_exit(&f->ring);
	assert_int_equal(*(uint32_t *)(rq + f->reg.offsets.head), 0);
	errno = 0;
	assert_true(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, f->ring.ring_fd, (off_t)off) ==
		    MAP_FAILED);
	assert_int_equal(errno, EBADF);
	assert_int_equal(munmap(rq, f->rqlen), 0);
	assert_int_equal(ring_init(&f->ring, RING_FLAGS), 0);	/* for teardown */
}

static void test_register_ok(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	struct io_uring r2;

	/* non-power-of-two entries are rounded up and written back */
	EXPECT(f, f->reg.rq_entries = RQ_ENTRIES - 1, 0);
	assert_int_equal(f->reg.rq_entries, RQ_ENTRIES);
	assert_int_equal(f->reg.zcrx_id, 0);
	assert_int_equal(f->reg.offsets.head, 0);
	assert_int_equal(f->reg.offsets.tail, 64);
	assert_int_equal(f->reg.offsets.rqes, 128);
	assert_int_equal(f->reg.rx_buf_len, PAGE);
	assert_int_equal(f->ar.rq_area_token, 0);
	assert_int_equal(zn_zcrx_get_stats(zn_uring_from_handle(f->ring.ring_fd), 0, &st), 0);
	assert_int_equal(st.nbufs, AREA_LEN / PAGE);
	assert_int_equal(st.free + st.nic + st.stack + st.user, st.nbufs);
	/* the same queue again, from this ring or another: -EBUSY */
	EXPECT(f, (void)0, -EBUSY);
	assert_int_equal(ring_init(&r2, RING_FLAGS), 0);
	reset_reg(f);
	assert_int_equal(io_uring_register_ifq(&r2, &f->reg), -EBUSY);
	/* the other queue: id 1 on this ring */
	EXPECT(f, f->reg.if_rxq = 0, 0);
	assert_int_equal(f->reg.zcrx_id, 1);
	io_uring_queue_exit(&r2);
}

/* CLAMP: more than 32768 entries are clamped instead of refused */
static void test_clamp(void **state)
{
	struct fx *f = *state;
	struct io_uring r;
	size_t len = 128 + 32768 * 16;
	void *mem;

	len = (len + PAGE - 1) & ~(size_t)(PAGE - 1);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	assert_int_equal(ring_init(&r, RING_FLAGS | IORING_SETUP_CLAMP), 0);
	reset_reg(f);
	f->reg.rq_entries = 100000;
	f->rd.user_addr = (uintptr_t)mem;
	f->rd.size = len;
	assert_int_equal(io_uring_register_ifq(&r, &f->reg), 0);
	assert_int_equal(f->reg.rq_entries, 32768);
	io_uring_queue_exit(&r);
	munmap(mem, len);
}

/*
 * The same anonymous memory registered as an area again once the ring that
 * had it exited, by a new ring: Linux allows it (liburing test/zcrx.c does
 * it), so zcnic does too, three times over, with the bytes left alone.
 */
static void test_area_again_after_exit(void **state)
{
	struct fx *f = *state;
	uint8_t *mem = mmap(NULL, AREA_LEN, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct io_uring r;
	unsigned round;

	assert_true(mem != MAP_FAILED);
	for (size_t i = 0; i < AREA_LEN; i++)
		mem[i] = (uint8_t)(i * 7);
	for (round = 0; round < 3; round++) {
		assert_int_equal(ring_init(&r, RING_FLAGS), 0);
		reset_reg(f);
		f->ar.addr = (uintptr_t)mem;
		assert_int_equal(io_uring_register_ifq(&r, &f->reg), 0);
		assert_int_equal(f->reg.zcrx_id, 0);
		io_uring_queue_exit(&r);
	}
	for (size_t i = 0; i < AREA_LEN; i++)
		assert_int_equal(mem[i], (uint8_t)(i * 7));
	munmap(mem, AREA_LEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ring_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_area, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ro_params, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_allocated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_area_again_after_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clamp, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
