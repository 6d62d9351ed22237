/* core/mem: DMA regions (memfd, hugetlb fallback, NUMA, mlock), registry, pools. */
#include <errno.h>
#include <linux/capability.h>
#include <numa.h>
#include <numaif.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "zcnic/log.h"
#include "zcnic/mem.h"

#define FALLBACK_NOTE "using 4 KiB pages"
#define CHILD_TIMEOUT_S 20

/* Log capture. */
static int nlines, nnotes;
static char last[512], last_comp[32];
static enum zn_log_level last_level;

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)arg;
	nlines++;
	if (strstr(msg, FALLBACK_NOTE))
		nnotes++;
	last_level = level;
	snprintf(last_comp, sizeof(last_comp), "%s", comp ? comp : "");
	snprintf(last, sizeof(last), "%s", msg);
}

static void capture_reset(void)
{
	nlines = nnotes = 0;
	last[0] = last_comp[0] = '\0';
}

static int setup(void **state)
{
	(void)state;
	capture_reset();
	zn_log_set_sink(sink, NULL);
	return zn_log_configure("info");
}

static int teardown(void **state)
{
	(void)state;
	zn_log_set_sink(NULL, NULL);
	return zn_log_configure("");
}

static long free_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	long n = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/*
 * Some checks need a fresh process (the once-per-process note: a fork would
 * inherit it) or one with fewer privileges (memlock): run them in a re-exec
 * of this binary that sends back a result through a pipe.
 */
struct child_result {
	int rc[4];
	int nlines, nnotes;
	enum zn_log_level level;
	char comp[32];
	char msg[512];
	char note[512];
};

static void child_hugepages(struct child_result *cr);
static void child_memlock(struct child_result *cr);

static const struct {
	const char *name;
	void (*fn)(struct child_result *);
} children[] = {
	{ "hugepages", child_hugepages },
	{ "memlock", child_memlock },
};

static int child_main(const char *name, int fd)
{
	struct child_result cr;

	alarm(CHILD_TIMEOUT_S);
	memset(&cr, 0, sizeof(cr));
	zn_log_set_sink(sink, NULL);
	zn_log_configure("info");
	for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++)
		if (!strcmp(children[i].name, name))
			children[i].fn(&cr);
	cr.nlines = nlines;
	cr.nnotes = nnotes;
	cr.level = last_level;
	snprintf(cr.comp, sizeof(cr.comp), "%s", last_comp);
	snprintf(cr.msg, sizeof(cr.msg), "%s", last);
	return write(fd, &cr, sizeof(cr)) == (ssize_t)sizeof(cr) ? 0 : 1;
}

static void run_child(const char *name, struct child_result *res)
{
	int pfd[2], status;
	char fdstr[16];
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		snprintf(fdstr, sizeof(fdstr), "%d", pfd[1]);
		execl("/proc/self/exe", "test_mem", "--child", name, fdstr, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	memset(res, 0, sizeof(*res));
	n = read(pfd[0], res, sizeof(*res));	/* EOF if the child dies: bounded by its alarm */
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(n, (ssize_t)sizeof(*res));
}

/* --- regions ------------------------------------------------------------ */

static void check_shared(const struct zn_dma_region *r)
{
	uint8_t *a = r->va, *b;
	struct stat st;

	assert_int_equal(fstat(r->fd, &st), 0);
	assert_int_equal((size_t)st.st_size, r->len);
	b = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	assert_true(b != MAP_FAILED);
	assert_ptr_not_equal(a, b);
	for (size_t i = 0; i < r->len; i++)
		a[i] = (uint8_t)(i * 7 + 3);
	for (size_t i = 0; i < r->len; i++)
		if (b[i] != (uint8_t)(i * 7 + 3))
			fail_msg("byte %zu differs through the second mapping", i);
	/* And the other way round, at the edges and in the middle. */
	b[0] = 0xa5;
	b[r->len / 2] = 0x5a;
	b[r->len - 1] = 0xc3;
	assert_int_equal(a[0], 0xa5);
	assert_int_equal(a[r->len / 2], 0x5a);
	assert_int_equal(a[r->len - 1], 0xc3);
	assert_int_equal(munmap(b, r->len), 0);
}

static void test_alloc_sizes_shared(void **state)
{
	static const size_t sizes[] = { 1, 4096, 4097, 100000, (1u << 20) + 1 };
	(void)state;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct zn_dma_region *r = NULL;

		assert_int_equal(zn_dma_region_alloc("sizes", sizes[i], -1, 0, &r), 0);
		assert_non_null(r);
		assert_true(r->page_size == ZN_PAGE_4K || r->page_size == ZN_PAGE_2M);
		assert_int_equal(r->hugetlb, r->page_size == ZN_PAGE_2M);
		assert_true(r->len >= sizes[i] && r->len - sizes[i] < r->page_size);
		assert_int_equal(r->len % r->page_size, 0);
		assert_int_equal((uintptr_t)r->va % r->page_size, 0);
		assert_int_equal(r->iova, (uintptr_t)r->va);
		assert_int_equal(r->fd_offset, 0);
		assert_true(r->fd >= 0);
		assert_int_equal(r->numa_node, -1);
		assert_string_equal(r->name, "sizes");
		check_shared(r);
		zn_dma_region_free(r);
	}
}

static void test_bad_args(void **state)
{
	struct zn_dma_region *r = NULL;
	(void)state;

	assert_int_equal(zn_dma_region_alloc("x", 0, -1, 0, &r), -EINVAL);
	assert_int_equal(zn_dma_region_alloc("x", 4096, -1, 1u << 7, &r), -EINVAL);
	assert_int_equal(zn_dma_region_alloc("x", 4096, -1,
					     ZN_DMA_NO_HUGE | ZN_DMA_HUGE_ONLY, &r), -EINVAL);
	assert_int_equal(zn_dma_region_alloc("x", 4096, -1, 0, NULL), -EINVAL);
	assert_null(r);
	/* A long name is cut to fit, not overflowed. */
	assert_int_equal(zn_dma_region_alloc("a-name-much-longer-than-thirty-two-bytes",
					     4096, -1, ZN_DMA_NO_HUGE, &r), 0);
	assert_int_equal(strlen(r->name), sizeof(r->name) - 1);
	zn_dma_region_free(r);
	zn_dma_region_free(NULL);
}

static void test_translate(void **state)
{
	struct zn_dma_region *r;
	uint8_t *va;
	uint64_t iova, off;
	int fd;
	(void)state;

	assert_int_equal(zn_dma_region_alloc("xl", 65536, -1, ZN_DMA_NO_HUGE, &r), 0);
	va = r->va;
	const size_t at[] = { 0, r->len / 2, r->len - 1 };
	for (size_t i = 0; i < 3; i++) {
		iova = off = 0;
		fd = -1;
		assert_int_equal(zn_mem_va_to_iova(va + at[i], 1, &iova), 0);
		assert_int_equal(iova, (uintptr_t)va + at[i]);
		assert_int_equal(zn_mem_va_to_fd(va + at[i], 1, &fd, &off), 0);
		assert_int_equal(fd, r->fd);
		assert_int_equal(off, at[i]);
		assert_ptr_equal(zn_mem_find(va + at[i]), r);
	}
	/* The whole region is one valid range; one byte more is not. */
	assert_int_equal(zn_mem_va_to_iova(va, r->len, &iova), 0);
	assert_int_equal(iova, (uintptr_t)va);
	assert_int_equal(zn_mem_va_to_iova(va, r->len + 1, &iova), -EFAULT);
	assert_int_equal(zn_mem_va_to_iova(va + r->len - 1, 2, &iova), -EFAULT);
	assert_int_equal(zn_mem_va_to_fd(va + r->len - 1, 2, &fd, &off), -EFAULT);
	assert_int_equal(zn_mem_va_to_iova(va + r->len / 2, SIZE_MAX, &iova), -EFAULT);
	assert_int_equal(zn_mem_va_to_iova(va + r->len, 1, &iova), -EFAULT);
	assert_int_equal(zn_mem_va_to_iova(va - 1, 1, &iova), -EFAULT);
	assert_int_equal(zn_mem_va_to_fd(va + r->len, 1, &fd, &off), -EFAULT);
	assert_null(zn_mem_find(va + r->len));
	assert_null(zn_mem_find(va - 1));
	assert_null(zn_mem_find(&fd));
	zn_dma_region_free(r);
}

static void test_set_iova(void **state)
{
	struct zn_dma_region *a, *b;
	const uint64_t base = 0x100000;
	uint64_t iova, off;
	int fd;
	(void)state;

	assert_int_equal(zn_dma_region_alloc("a", 65536, -1, ZN_DMA_NO_HUGE, &a), 0);
	assert_int_equal(zn_dma_region_alloc("b", 8192, -1, ZN_DMA_NO_HUGE, &b), 0);
	assert_int_equal(zn_dma_region_set_iova(a, base), 0);
	assert_int_equal(a->iova, base);
	assert_int_equal(zn_mem_va_to_iova((uint8_t *)a->va + 100, 8, &iova), 0);
	assert_int_equal(iova, base + 100);
	assert_int_equal(zn_mem_va_to_iova((uint8_t *)a->va + a->len - 1, 1, &iova), 0);
	assert_int_equal(iova, base + a->len - 1);
	/* The fd side does not move with the IOVA. */
	assert_int_equal(zn_mem_va_to_fd((uint8_t *)a->va + 100, 8, &fd, &off), 0);
	assert_int_equal(fd, a->fd);
	assert_int_equal(off, 100);

	/* b's last page on a's first, b's first page on a's last: both refused. */
	capture_reset();
	assert_int_equal(zn_dma_region_set_iova(b, base - b->len + 4096), -EEXIST);
	assert_int_equal(zn_dma_region_set_iova(b, base + a->len - 4096), -EEXIST);
	assert_int_equal(b->iova, (uintptr_t)b->va);
	assert_int_equal(nlines, 2);
	assert_non_null(strstr(last, "overlaps another live region's IOVA range"));
	/* Touching ranges are fine. */
	assert_int_equal(zn_dma_region_set_iova(b, base + a->len), 0);
	assert_int_equal(zn_dma_region_set_iova(b, base - b->len), 0);
	assert_int_equal(zn_dma_region_set_iova(b, base + 1), -EINVAL);
	assert_int_equal(zn_dma_region_set_iova(b, UINT64_MAX - 4095), -EINVAL);
	/* A freed region releases its IOVA range. */
	zn_dma_region_free(a);
	assert_int_equal(zn_dma_region_set_iova(b, base), 0);
	assert_int_equal(zn_mem_va_to_iova(b->va, b->len, &iova), 0);
	assert_int_equal(iova, base);
	zn_dma_region_free(b);
}

static void test_free_unregisters(void **state)
{
	struct zn_dma_region *r[5];
	void *va[5];
	uint64_t iova;
	(void)state;

	for (int i = 0; i < 5; i++) {
		assert_int_equal(zn_dma_region_alloc("reg", 4096 * (size_t)(i + 1), -1,
						     ZN_DMA_NO_HUGE, &r[i]), 0);
		va[i] = r[i]->va;
	}
	for (int i = 0; i < 5; i++)
		assert_ptr_equal(zn_mem_find((uint8_t *)va[i] + r[i]->len - 1), r[i]);
	zn_dma_region_free(r[2]);
	assert_null(zn_mem_find(va[2]));
	assert_int_equal(zn_mem_va_to_iova(va[2], 1, &iova), -EFAULT);
	for (int i = 0; i < 5; i++) {
		if (i == 2)
			continue;
		assert_ptr_equal(zn_mem_find(va[i]), r[i]);
		zn_dma_region_free(r[i]);
		assert_null(zn_mem_find(va[i]));
	}
}

static void test_numa(void **state)
{
	struct zn_dma_region *r = NULL;
	int bad = numa_available() < 0 ? 1 : numa_max_node() + 1;
	(void)state;

	capture_reset();
	assert_int_equal(zn_dma_region_alloc("numa", 4096, bad, 0, &r), -EINVAL);
	assert_null(r);
	assert_int_equal(nlines, 1);
	assert_int_equal(last_level, ZN_LOG_ERR);
	assert_string_equal(last_comp, "mem");
	assert_non_null(strstr(last, "NUMA node"));
	assert_int_equal(zn_dma_region_alloc("numa", 4096, 4096, 0, &r), -EINVAL);
	assert_int_equal(zn_dma_region_alloc("numa", 4096, -2, 0, &r), -EINVAL);

	assert_int_equal(zn_dma_region_alloc("numa", 65536, 0, ZN_DMA_NO_HUGE, &r), 0);
	if (numa_available() >= 0) {
		int node = -1;

		assert_int_equal(r->numa_node, 0);
		assert_int_equal(get_mempolicy(&node, NULL, 0, r->va, MPOL_F_NODE | MPOL_F_ADDR), 0);
		assert_int_equal(node, 0);
	} else {
		assert_int_equal(r->numa_node, -1);
	}
	zn_dma_region_free(r);
}

/* Fresh process: NO_HUGE is silent, the fallback is noted once, HUGE_ONLY fails. */
static void child_hugepages(struct child_result *cr)
{
	struct zn_dma_region *r[3] = { NULL };
	struct zn_dma_region *h = NULL;

	cr->rc[0] = zn_dma_region_alloc("nohuge", 4096, -1, ZN_DMA_NO_HUGE, &r[0]);
	if (!cr->rc[0] && (r[0]->hugetlb || r[0]->page_size != ZN_PAGE_4K))
		cr->rc[0] = 1000;
	zn_dma_region_free(r[0]);
	cr->rc[3] = nlines;	/* lines after NO_HUGE */

	cr->rc[1] = 0;
	for (int i = 0; i < 3 && !cr->rc[1]; i++) {
		cr->rc[1] = zn_dma_region_alloc("dflt", 4096u << i, -1, 0, &r[i]);
		if (!cr->rc[1] && free_hugepages() == 0 &&
		    (r[i]->hugetlb || r[i]->page_size != ZN_PAGE_4K))
			cr->rc[1] = 1000;
	}
	for (int i = 0; i < 3; i++)
		zn_dma_region_free(r[i]);
	snprintf(cr->note, sizeof(cr->note), "%s", last);

	cr->rc[2] = zn_dma_region_alloc("hugeonly", 4096, -1, ZN_DMA_HUGE_ONLY, &h);
	if (!cr->rc[2] && (!h->hugetlb || h->page_size != ZN_PAGE_2M || h->len != ZN_PAGE_2M))
		cr->rc[2] = 1000;
	zn_dma_region_free(h);
}

static void test_hugepage_fallback(void **state)
{
	struct child_result cr;
	(void)state;

	run_child("hugepages", &cr);
	assert_int_equal(cr.rc[0], 0);
	assert_int_equal(cr.rc[3], 0);
	assert_int_equal(cr.rc[1], 0);
	if (free_hugepages() > 0) {
		/* A machine with hugepages: no fallback, HUGE_ONLY works. */
		assert_int_equal(cr.nnotes, 0);
		assert_int_equal(cr.rc[2], 0);
		return;
	}
	assert_int_equal(cr.nnotes, 1);
	assert_non_null(strstr(cr.note, "no free 2 MiB hugepages: " FALLBACK_NOTE));
	assert_non_null(strstr(cr.note, "/proc/sys/vm/nr_hugepages"));
	assert_int_equal(cr.rc[2], -ENOMEM);
	assert_int_equal(cr.nlines, 2);
	assert_int_equal(cr.level, ZN_LOG_ERR);
	assert_string_equal(cr.comp, "mem");
	assert_non_null(strstr(cr.msg, "HUGE_ONLY"));
}

/* CAP_IPC_LOCK lets root ignore RLIMIT_MEMLOCK: drop it (capset, no libcap). */
static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	uint32_t bit = 1u << (CAP_IPC_LOCK % 32);

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~bit;
	d[CAP_IPC_LOCK / 32].permitted &= ~bit;
	d[CAP_IPC_LOCK / 32].inheritable &= ~bit;
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

#define LOW_MEMLOCK (64 * 1024)

static void child_memlock(struct child_result *cr)
{
	struct rlimit rl = { LOW_MEMLOCK, LOW_MEMLOCK };
	struct zn_dma_region *small = NULL, *big = NULL;

	cr->rc[0] = drop_cap_ipc_lock();
	if (!cr->rc[0] && setrlimit(RLIMIT_MEMLOCK, &rl))
		cr->rc[0] = -errno;
	if (cr->rc[0])
		return;
	/* Under the limit: fine. Over it: refused, and said so. */
	cr->rc[1] = zn_dma_region_alloc("small", 16384, -1, ZN_DMA_NO_HUGE, &small);
	cr->rc[2] = zn_dma_region_alloc("big", 1 << 20, -1, ZN_DMA_NO_HUGE, &big);
	cr->rc[3] = big != NULL;
	zn_dma_region_free(big);
	zn_dma_region_free(small);
}

static void test_memlock_too_low(void **state)
{
	struct child_result cr;
	char want[128];
	(void)state;

	run_child("memlock", &cr);
	assert_int_equal(cr.rc[0], 0);
	assert_int_equal(cr.rc[1], 0);
	assert_int_equal(cr.rc[2], -ENOMEM);
	assert_int_equal(cr.rc[3], 0);
	assert_int_equal(cr.level, ZN_LOG_ERR);
	assert_string_equal(cr.comp, "mem");
	snprintf(want, sizeof(want), "big: cannot lock %u bytes of DMA memory: "
		 "RLIMIT_MEMLOCK is %u bytes (zcnic already holds 16384)",
		 1u << 20, LOW_MEMLOCK);
	if (!strstr(cr.msg, want))
		fail_msg("message '%s' lacks '%s'", cr.msg, want);
	assert_non_null(strstr(cr.msg, "ulimit -l"));
	assert_non_null(strstr(cr.msg, "limits.conf"));
	assert_non_null(strstr(cr.msg, "LimitMEMLOCK"));
}

/* --- pools -------------------------------------------------------------- */

#define POOL_OFF 128u
#define POOL_BUF 100u		/* rounds up to 128 */
#define POOL_N 37u

static void test_pool_exhaust(void **state)
{
	struct zn_dma_region *r;
	struct zn_pool *p;
	uint8_t *bufs[POOL_N];
	uint8_t *lo, *hi;
	(void)state;

	assert_int_equal(zn_dma_region_alloc("pool", 8192, -1, ZN_DMA_NO_HUGE, &r), 0);
	assert_int_equal(zn_pool_create(r, POOL_OFF, POOL_BUF, POOL_N, &p), 0);
	assert_int_equal(zn_pool_buf_size(p), 128);
	assert_int_equal(zn_pool_count(p), POOL_N);
	assert_int_equal(zn_pool_avail(p), POOL_N);
	lo = (uint8_t *)r->va + POOL_OFF;
	hi = (uint8_t *)r->va + r->len;
	for (uint32_t i = 0; i < POOL_N; i++) {
		uint32_t idx = UINT32_MAX;

		bufs[i] = zn_pool_get(p);
		assert_non_null(bufs[i]);
		assert_int_equal(zn_pool_avail(p), POOL_N - i - 1);
		assert_true(bufs[i] >= lo && bufs[i] + 128 <= hi);
		assert_int_equal((uintptr_t)bufs[i] % 64, 0);
		for (uint32_t j = 0; j < i; j++)
			assert_ptr_not_equal(bufs[i], bufs[j]);
		assert_int_equal(zn_pool_index(p, bufs[i], &idx), 0);
		assert_true(idx < POOL_N);
		assert_ptr_equal(zn_pool_buf(p, idx), bufs[i]);
		memset(bufs[i], (int)i, 128);	/* ASan/valgrind: really ours */
	}
	assert_null(zn_pool_get(p));
	assert_null(zn_pool_get(p));
	assert_int_equal(zn_pool_avail(p), 0);
	for (uint32_t i = 0; i < POOL_N; i++)
		assert_int_equal(zn_pool_put(p, bufs[i]), 0);
	assert_int_equal(zn_pool_avail(p), POOL_N);
	zn_pool_destroy(p);
	zn_dma_region_free(r);
}

static void test_pool_put_checks(void **state)
{
	struct zn_dma_region *r;
	struct zn_pool *p, *q;
	uint8_t *a, *b, *x;
	uint32_t idx;
	(void)state;

	assert_int_equal(zn_dma_region_alloc("pool", 8192, -1, ZN_DMA_NO_HUGE, &r), 0);
	assert_int_equal(zn_pool_create(r, 0, 64, 16, &p), 0);
	assert_int_equal(zn_pool_create(r, 4096, 64, 16, &q), 0);
	a = zn_pool_get(p);
	b = zn_pool_get(p);
	assert_int_equal(zn_pool_avail(p), 14);
	/* LIFO round trip: what went back comes out next. */
	assert_int_equal(zn_pool_put(p, b), 0);
	assert_ptr_equal(zn_pool_get(p), b);
	assert_int_equal(zn_pool_put(p, b), 0);
	assert_int_equal(zn_pool_put(p, b), -EINVAL);		/* double put */
	assert_int_equal(zn_pool_put(p, a + 1), -EINVAL);	/* misaligned */
	assert_int_equal(zn_pool_put(p, a + 32), -EINVAL);
	x = zn_pool_get(q);
	assert_int_equal(zn_pool_put(p, x), -EINVAL);		/* another pool's */
	assert_int_equal(zn_pool_put(p, &idx), -EINVAL);	/* not DMA memory */
	assert_int_equal(zn_pool_put(p, a - 64), -EINVAL);	/* below the pool */
	assert_int_equal(zn_pool_put(p, a + 16 * 64), -EINVAL);	/* just past it */
	assert_int_equal(zn_pool_avail(p), 15);
	assert_int_equal(zn_pool_put(q, x), 0);
	assert_int_equal(zn_pool_put(p, a), 0);
	assert_int_equal(zn_pool_avail(p), 16);
	assert_int_equal(zn_pool_put(p, a), -EINVAL);		/* never out */
	assert_int_equal(zn_pool_avail(p), 16);

	assert_int_equal(zn_pool_index(p, (uint8_t *)r->va + 5 * 64, &idx), 0);
	assert_int_equal(idx, 5);
	assert_ptr_equal(zn_pool_buf(p, 15), (uint8_t *)r->va + 15 * 64);
	assert_null(zn_pool_buf(p, 16));
	assert_int_equal(zn_pool_index(p, (uint8_t *)r->va + 16 * 64, &idx), -EINVAL);
	zn_pool_destroy(q);
	zn_pool_destroy(p);
	zn_dma_region_free(r);
}

static void test_pool_create_limits(void **state)
{
	struct zn_dma_region *r;
	struct zn_pool *p = NULL;
	(void)state;

	assert_int_equal(zn_dma_region_alloc("pool", 8192, -1, ZN_DMA_NO_HUGE, &r), 0);
	/* Exactly full fits; one more buffer does not. */
	assert_int_equal(zn_pool_create(r, 256, 100, (8192 - 256) / 128, &p), 0);
	assert_ptr_equal(zn_pool_buf(p, (8192 - 256) / 128 - 1), (uint8_t *)r->va + 8192 - 128);
	zn_pool_destroy(p);
	p = NULL;
	assert_int_equal(zn_pool_create(r, 256, 100, (8192 - 256) / 128 + 1, &p), -ENOSPC);
	assert_int_equal(zn_pool_create(r, 0, 8192, 1, &p), 0);
	zn_pool_destroy(p);
	p = NULL;
	assert_int_equal(zn_pool_create(r, 0, 8193, 1, &p), -ENOSPC);
	assert_int_equal(zn_pool_create(r, 8192, 64, 1, &p), -ENOSPC);
	assert_int_equal(zn_pool_create(r, 16384, 64, 1, &p), -ENOSPC);
	assert_int_equal(zn_pool_create(r, 0, SIZE_MAX, 1, &p), -ENOSPC);
	assert_int_equal(zn_pool_create(r, 0, 64, UINT32_MAX, &p), -ENOSPC);
	assert_int_equal(zn_pool_create(r, 32, 64, 1, &p), -EINVAL);
	assert_int_equal(zn_pool_create(r, 0, 0, 1, &p), -EINVAL);
	assert_int_equal(zn_pool_create(r, 0, 64, 0, &p), -EINVAL);
	assert_null(p);
	zn_dma_region_free(r);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child_main(argv[2], atoi(argv[3]));

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alloc_sizes_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_translate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_iova, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_unregisters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numa, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hugepage_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memlock_too_low, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_exhaust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_put_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_create_limits, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
