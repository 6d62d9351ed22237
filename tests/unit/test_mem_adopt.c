/*
 * core/mem zn_mem_adopt: private anonymous memory made fd-backed in place.
 * Contents kept byte for byte, the VA and the memfd are one memory both ways,
 * the refusals (alignment, overlap, read-only, holes, files, shared, special
 * mappings) with their errno, free keeps the range usable, re-adoption,
 * hugetlb memory when the machine has free hugepages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "zcnic/log.h"
#include "zcnic/mem.h"

#define PG	4096ul
#define NPG	16
#define LOW_MEMLOCK	(64 * 1024)
#define CHILD_TIMEOUT_S	20

static int nerr;
static char last[512];

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)comp;
	(void)arg;
	if (level == ZN_LOG_ERR)
		nerr++;
	snprintf(last, sizeof(last), "%s", msg);
}

static int setup(void **state)
{
	(void)state;
	nerr = 0;
	last[0] = '\0';
	zn_log_set_sink(sink, NULL);
	return zn_log_configure("info");
}

static int teardown(void **state)
{
	(void)state;
	zn_log_set_sink(NULL, NULL);
	return zn_log_configure("");
}

static uint8_t *anon(size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(m != MAP_FAILED);
	return m;
}

/* A pattern that differs per byte and per call (seed). */
static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

static void check_fill(const uint8_t *p, size_t len, uint32_t seed)
{
	uint8_t *want = malloc(len);

	assert_non_null(want);
	fill(want, len, seed);
	assert_memory_equal(p, want, len);
	free(want);
}

/* The whole range read through the region's fd equals the memory. */
static void check_fd_equals(const struct zn_dma_region *r, const uint8_t *va, size_t len)
{
	uint8_t *buf = malloc(len);
	uint64_t off;
	int fd;

	assert_non_null(buf);
	assert_int_equal(zn_mem_va_to_fd(va, len, &fd, &off), 0);
	assert_int_equal(fd, r->fd);
	assert_int_equal(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	assert_memory_equal(buf, va, len);
	free(buf);
}

static void test_adopt_keeps_contents(void **state)
{
	const size_t len = NPG * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r = NULL;
	uint64_t iova;

	(void)state;
	fill(m, len, 1);
	assert_null(zn_mem_find(m));
	assert_int_equal(zn_mem_adopt(m, len, &r), 0);
	assert_non_null(r);
	assert_ptr_equal(r->va, m);
	assert_int_equal(r->len, len);
	assert_true(r->adopted);
	assert_false(r->hugetlb);
	assert_int_equal(r->page_size, PG);
	assert_int_equal(r->fd_offset, 0);
	assert_string_equal(r->name, "adopted");
	assert_true(r->fd >= 0);
	assert_ptr_equal(zn_mem_find(m + len - 1), r);
	assert_null(zn_mem_find(m + len));
	assert_int_equal(zn_mem_va_to_iova(m + 5 * PG, PG, &iova), 0);
	assert_int_equal(iova, (uintptr_t)m + 5 * PG);
	check_fill(m, len, 1);
	check_fd_equals(r, m, len);
	assert_int_equal(nerr, 0);
	zn_dma_region_free(r);
	check_fill(m, len, 1);
	munmap(m, len);
}

static void test_adopt_va_and_fd_are_one_memory(void **state)
{
	const size_t len = 4 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r;
	uint8_t buf[64], pat[64];

	(void)state;
	memset(m, 0x5a, len);
	assert_int_equal(zn_mem_adopt(m, len, &r), 0);
	/* through the VA -> seen through the fd */
	memcpy(m + 3 * PG + 100, "written through the VA", 22);
	assert_int_equal(pread(r->fd, buf, 22, 3 * PG + 100), 22);
	assert_memory_equal(buf, "written through the VA", 22);
	/* through the fd -> seen through the VA */
	fill(pat, sizeof(pat), 7);
	assert_int_equal(pwrite(r->fd, pat, sizeof(pat), PG - 32), (ssize_t)sizeof(pat));
	assert_memory_equal(m + PG - 32, pat, sizeof(pat));
	assert_int_equal(m[PG - 33], 0x5a);
	assert_int_equal(m[PG + 32], 0x5a);
	check_fd_equals(r, m, len);
	zn_dma_region_free(r);
	munmap(m, len);
}

static void test_adopt_free_keeps_memory_and_readopt(void **state)
{
	const size_t len = 8 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r, *r2;

	(void)state;
	fill(m, len, 3);
	assert_int_equal(zn_mem_adopt(m, len, &r), 0);
	zn_dma_region_free(r);
	assert_null(zn_mem_find(m));
	check_fill(m, len, 3);
	fill(m, len, 4);	/* still writable */
	check_fill(m, len, 4);
	/* The range is now our own (freed) memfd mapping: it adopts again, as
	 * the kernel lets a program register the same memory twice (liburing
	 * test/zcrx.c), with its contents... */
	nerr = 0;
	assert_int_equal(zn_mem_adopt(m, len, &r2), 0);
	assert_int_equal(nerr, 0);
	check_fill(m, len, 4);
	check_fd_equals(r2, m, len);
	fill(m, len, 6);
	check_fd_equals(r2, m, len);
	zn_dma_region_free(r2);
	check_fill(m, len, 6);
	/* ...and so does fresh private memory at the same address. */
	assert_true(mmap(m, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == m);
	fill(m, len, 5);
	assert_int_equal(zn_mem_adopt(m, len, &r2), 0);
	check_fill(m, len, 5);
	check_fd_equals(r2, m, len);
	zn_dma_region_free(r2);
	check_fill(m, len, 5);
	munmap(m, len);
}

static void test_adopt_part_of_a_mapping(void **state)
{
	const size_t len = 8 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r;

	(void)state;
	fill(m, len, 9);
	assert_int_equal(zn_mem_adopt(m + 2 * PG, 3 * PG, &r), 0);
	check_fill(m, len, 9);	/* the pages around it are untouched */
	assert_null(zn_mem_find(m + 2 * PG - 1));
	assert_ptr_equal(zn_mem_find(m + 2 * PG), r);
	assert_null(zn_mem_find(m + 5 * PG));
	m[0] = 1;
	m[7 * PG] = 2;
	check_fd_equals(r, m + 2 * PG, 3 * PG);
	zn_dma_region_free(r);
	munmap(m, len);
}

static void test_adopt_posix_memalign(void **state)
{
	const size_t len = 4 * PG;
	struct zn_dma_region *r;
	void *p = NULL;

	(void)state;
	assert_int_equal(posix_memalign(&p, PG, len), 0);
	fill(p, len, 11);
	assert_int_equal(zn_mem_adopt(p, len, &r), 0);
	check_fill(p, len, 11);
	check_fd_equals(r, p, len);
	zn_dma_region_free(r);
	check_fill(p, len, 11);
	/* Heap pages left shared would be the child's too after the fork of
	 * test_adopt_memlock_too_low (mem.h's fork caveat): private again first. */
	{
		uint8_t *save = malloc(len);

		assert_non_null(save);
		memcpy(save, p, len);
		assert_true(mmap(p, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p);
		memcpy(p, save, len);
		free(save);
	}
	free(p);
}

static void test_adopt_einval(void **state)
{
	const size_t len = 4 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r = NULL;

	(void)state;
	assert_int_equal(zn_mem_adopt(m + 1, PG, &r), -EINVAL);
	assert_int_equal(zn_mem_adopt(m, PG + 1, &r), -EINVAL);
	assert_int_equal(zn_mem_adopt(m, 100, &r), -EINVAL);
	assert_int_equal(zn_mem_adopt(m, 0, &r), -EINVAL);
	assert_int_equal(zn_mem_adopt(m, PG, NULL), -EINVAL);
	assert_int_equal(zn_mem_adopt((void *)(UINTPTR_MAX - PG + 1), 2 * PG, &r), -EINVAL);
	assert_null(r);
	assert_null(zn_mem_find(m));
	munmap(m, len);
}

static void test_adopt_inside_live_region(void **state)
{
	struct zn_dma_region *z, *r = NULL;
	uint8_t *v;

	(void)state;
	assert_int_equal(zn_dma_region_alloc("t", 8 * PG, -1, ZN_DMA_NO_HUGE, &z), 0);
	v = z->va;
	assert_int_equal(zn_mem_adopt(v, z->len, &r), 1);
	assert_ptr_equal(r, z);
	r = NULL;
	assert_int_equal(zn_mem_adopt(v + 2 * PG, 3 * PG, &r), 1);
	assert_ptr_equal(r, z);
	assert_false(z->adopted);
	zn_dma_region_free(z);
}

static void test_adopt_adopted_again_is_inside(void **state)
{
	const size_t len = 4 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r, *r2 = NULL;

	(void)state;
	assert_int_equal(zn_mem_adopt(m, len, &r), 0);
	assert_int_equal(zn_mem_adopt(m + PG, PG, &r2), 1);
	assert_ptr_equal(r2, r);
	zn_dma_region_free(r);
	munmap(m, len);
}

static void test_adopt_partial_overlap(void **state)
{
	const size_t len = 12 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r, *r2 = NULL;

	(void)state;
	fill(m, len, 13);
	assert_int_equal(zn_mem_adopt(m + 4 * PG, 4 * PG, &r), 0);
	nerr = 0;
	/* starts before, ends inside */
	assert_int_equal(zn_mem_adopt(m + 2 * PG, 4 * PG, &r2), -EEXIST);
	/* starts inside, ends after */
	assert_int_equal(zn_mem_adopt(m + 6 * PG, 4 * PG, &r2), -EEXIST);
	/* covers it whole */
	assert_int_equal(zn_mem_adopt(m, len, &r2), -EEXIST);
	assert_int_equal(nerr, 3);
	assert_non_null(strstr(last, "overlaps"));
	/* touching it on either side is fine */
	assert_int_equal(zn_mem_adopt(m + 2 * PG, 2 * PG, &r2), 0);
	zn_dma_region_free(r2);
	assert_int_equal(zn_mem_adopt(m + 8 * PG, 2 * PG, &r2), 0);
	zn_dma_region_free(r2);
	zn_dma_region_free(r);
	check_fill(m, len, 13);
	munmap(m, len);
}

static void test_adopt_read_only(void **state)
{
	const size_t len = 4 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r = NULL;

	(void)state;
	fill(m, len, 17);
	assert_int_equal(mprotect(m + PG, PG, PROT_READ), 0);
	nerr = 0;
	assert_int_equal(zn_mem_adopt(m, len, &r), -EFAULT);
	assert_int_equal(nerr, 1);
	assert_non_null(strstr(last, "not readable and writable"));
	assert_int_equal(zn_mem_adopt(m + PG, PG, &r), -EFAULT);
	/* the writable pages alone are fine; nothing was changed by the refusals */
	check_fill(m, len, 17);
	assert_int_equal(zn_mem_adopt(m + 2 * PG, 2 * PG, &r), 0);
	zn_dma_region_free(r);
	check_fill(m, len, 17);
	munmap(m, len);
}

static void test_adopt_hole(void **state)
{
	const size_t len = 6 * PG;
	uint8_t *m = anon(len);
	struct zn_dma_region *r = NULL;

	(void)state;
	fill(m, len, 19);
	assert_int_equal(munmap(m + 3 * PG, PG), 0);
	nerr = 0;
	assert_int_equal(zn_mem_adopt(m, len, &r), -EFAULT);
	assert_int_equal(nerr, 1);
	assert_non_null(strstr(last, "nothing is mapped"));
	/* a range that starts in the hole, and one that ends in it */
	assert_int_equal(zn_mem_adopt(m + 3 * PG, 2 * PG, &r), -EFAULT);
	assert_int_equal(zn_mem_adopt(m + 2 * PG, 2 * PG, &r), -EFAULT);
	assert_null(r);
	check_fill(m, 3 * PG, 19);
	munmap(m, 3 * PG);
	munmap(m + 4 * PG, 2 * PG);
	/* nothing at all mapped there any more */
	assert_int_equal(zn_mem_adopt(m, len, &r), -EFAULT);
}

static void test_adopt_file_backed_and_shared(void **state)
{
	const size_t len = 4 * PG;
	struct zn_dma_region *r = NULL;
	FILE *f = tmpfile();
	uint8_t *m;

	(void)state;
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), (off_t)len), 0);
	/* private file mapping: copy-on-write but still file-backed */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fileno(f), 0);
	assert_true(m != MAP_FAILED);
	nerr = 0;
	assert_int_equal(zn_mem_adopt(m, len, &r), -EFAULT);
	assert_non_null(strstr(last, "file-backed"));
	munmap(m, len);
	/* shared file mapping */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(zn_mem_adopt(m, len, &r), -EFAULT);
	munmap(m, len);
	/* shared anonymous */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(zn_mem_adopt(m, len, &r), -EFAULT);
	assert_non_null(strstr(last, "shared"));
	munmap(m, len);
	assert_int_equal(nerr, 3);
	assert_null(r);
	fclose(f);
}

/* The start of the mapping named name in /proc/self/maps, NULL if none. */
static void *mapping_named(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	void *at = NULL;

	assert_non_null(f);
	while (!at && fgets(line, sizeof(line), f)) {
		unsigned long start;

		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) > strlen(name) &&
		    strcmp(line + strlen(line) - strlen(name), name) == 0 &&
		    sscanf(line, "%lx-", &start) == 1)
			at = (void *)start;
	}
	fclose(f);
	return at;
}

static void test_adopt_special_refused(void **state)
{
	struct zn_dma_region *r = NULL;
	void *stack = mapping_named("[stack]");

	(void)state;
	/* The lowest page of the main stack mapping: far below any frame, and
	 * refused before anything is changed. */
	assert_non_null(stack);
	nerr = 0;
	assert_int_equal(zn_mem_adopt(stack, PG, &r), -EFAULT);
	assert_non_null(strstr(last, "[stack]"));
	assert_non_null(strstr(last, "special"));
	assert_int_equal(nerr, 1);
	assert_null(r);
}

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

/* In a child (it drops CAP_IPC_LOCK for good): the exit code names the first
 * check that failed. */
static int child_memlock(void)
{
	struct rlimit rl = { LOW_MEMLOCK, LOW_MEMLOCK };
	const size_t len = 64 * PG;	/* 4 x the limit */
	struct zn_dma_region *r = NULL;
	uint8_t *m, *want;

	alarm(CHILD_TIMEOUT_S);
	if (drop_cap_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	want = malloc(len);
	if (m == MAP_FAILED || !want)
		return 11;
	fill(m, len, 29);
	fill(want, len, 29);
	nerr = 0;
	if (zn_mem_adopt(m, len, &r) != -ENOMEM || r)
		return 12;
	if (nerr != 1 || !strstr(last, "adopted: cannot lock 262144 bytes of DMA memory: "
				 "RLIMIT_MEMLOCK is 65536 bytes") || !strstr(last, "ulimit -l"))
		return 13;
	/* Put back as it was: same bytes, private anonymous again (so adoptable
	 * within the limit, which a leftover shared mapping would not be). */
	if (memcmp(m, want, len) || zn_mem_find(m))
		return 14;
	if (zn_mem_adopt(m, 4 * PG, &r) != 0 || memcmp(m, want, len))
		return 15;
	zn_dma_region_free(r);
	munmap(m, len);
	free(want);
	return 0;
}

static void test_adopt_memlock_too_low(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_memlock());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
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

static void test_adopt_hugetlb(void **state)
{
	const size_t len = 2 * ZN_PAGE_2M;
	struct zn_dma_region *r = NULL;
	uint8_t *m;

	(void)state;
	if (free_hugepages() < 4) {
		print_message("no 4 free 2 MiB hugepages: hugetlb adoption not checked\n");
		skip();
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT), -1, 0);
	if (m == MAP_FAILED)
		skip();
	fill(m, len, 23);
	assert_int_equal(zn_mem_adopt(m + PG, PG, &r), -EINVAL);	/* 4 KiB aligned only */
	assert_int_equal(zn_mem_adopt(m, len, &r), 0);
	assert_true(r->hugetlb);
	assert_int_equal(r->page_size, ZN_PAGE_2M);
	check_fill(m, len, 23);
	check_fd_equals(r, m, len);
	zn_dma_region_free(r);
	check_fill(m, len, 23);
	munmap(m, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_adopt_keeps_contents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_va_and_fd_are_one_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_free_keeps_memory_and_readopt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_adopt_part_of_a_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_posix_memalign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_einval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_inside_live_region, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_adopted_again_is_inside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_partial_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_hole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_file_backed_and_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_special_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_memlock_too_low, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_hugetlb, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
