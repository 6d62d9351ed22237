/* SPDX-License-Identifier: MIT */
/*
 * zn_mem_adopt: make an application's private anonymous memory fd-backed in
 * place (see mem.h). The range is checked against /proc/self/maps, its
 * contents copied into a memfd through a temporary mapping (hugetlbfs has no
 * write()), and the memfd mapped MAP_FIXED over the range, which replaces
 * the old pages in one step. Any failure after that puts private anonymous
 * memory with the same contents back.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/mem/mem_internal.h"
#include "zcnic/log.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MFD_HUGE_SHIFT
#define MFD_HUGE_SHIFT 26
#endif

#define ADOPT_NAME	"adopted"
#define MAPS_PATH	"/proc/self/maps"
#define SMAPS_PATH	"/proc/self/smaps"
/* What /proc/PID/maps shows for MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB memory
 * (the kernel backs it with an unlinked hugetlbfs file). */
#define ANON_HUGE_PATH	"/anon_hugepage (deleted)"
/* An earlier adoption's memfd, still mapped after its region was freed. */
#define ADOPTED_PATH	"/memfd:zcnic:" ADOPT_NAME " (deleted)"

/*
 * One adoption at a time: two overlapping ones racing past the overlap
 * check would both replace the pages, and the loser's restore would unmap
 * the winner's memfd.
 */
static pthread_mutex_t adopt_lock = PTHREAD_MUTEX_INITIALIZER;

/* One /proc/self/maps line. */
struct vma {
	uintptr_t start, end;
	char perms[5];
	unsigned long inode;
	const char *path;	/* "" when anonymous */
};

static bool parse_vma(char *line, struct vma *v)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s %*x %*x:%*x %lu %n", &v->start, &v->end,
		   v->perms, &v->inode, &n) < 4 || n == 0)
		return false;
	v->path = line + n;
	return true;
}

/* KernelPageSize of the mapping that starts at start, 0 if not found. */
static size_t vma_page_size(uintptr_t start)
{
	FILE *f = fopen(SMAPS_PATH, "re");
	char *line = NULL;
	size_t cap = 0, pg = 0;
	bool in = false;
	struct vma v;

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned long kb;

		if (parse_vma(line, &v) && strchr(line, '-')) {
			in = v.start == start;
			continue;
		}
		if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1) {
			pg = (size_t)kb * 1024;
			break;
		}
	}
	free(line);
	fclose(f);
	return pg;
}

/* Why a mapping cannot be adopted, or NULL if it can. */
static const char *vma_refusal(const struct vma *v, bool *huge)
{
	*huge = false;
	if (v->perms[0] != 'r' || v->perms[1] != 'w')
		return "not readable and writable";
	/*
	 * Memory adopted before and let go (its region freed, say when the ring
	 * of a zcrx area exited) stays our memfd's: the application's memory
	 * still, only no longer registered. It adopts again like private memory
	 * (a new memfd with its contents), as the kernel lets a program register
	 * the same memory again (liburing test/zcrx.c does).
	 */
	if (v->perms[3] == 's' && strcmp(v->path, ADOPTED_PATH) == 0) {
		*huge = vma_page_size(v->start) > ZN_PAGE_4K;
		return NULL;
	}
	if (v->perms[3] != 'p')
		return "shared";
	if (strcmp(v->path, ANON_HUGE_PATH) == 0) {
		*huge = true;
		return NULL;
	}
	if (v->inode != 0 || (v->path[0] != '\0' && v->path[0] != '['))
		return "file-backed";
	if (v->path[0] == '\0' || strcmp(v->path, "[heap]") == 0 ||
	    strncmp(v->path, "[anon:", 6) == 0)
		return NULL;
	return "a special mapping";	/* [stack], [vdso], [vvar], [vsyscall], ... */
}

/*
 * Check every byte of [a, a+len) against the process's mappings; *pg gets
 * the page size (4 KiB, or the hugetlb page size when the range is hugetlb).
 */
static int check_range(uintptr_t a, size_t len, size_t *pg)
{
	FILE *f = fopen(MAPS_PATH, "re");
	const uintptr_t end = a + len;
	uintptr_t cur = a;
	char *line = NULL;
	size_t cap = 0;
	int kind = -1;		/* -1 unknown, 0 normal pages, 1 hugetlb */
	uintptr_t huge_start = 0;
	int rc = 0;

	if (!f) {
		rc = -errno;
		ZN_ERR("mem", "adopt: cannot read %s: %s", MAPS_PATH, strerror(-rc));
		return rc;
	}
	while (cur < end && getline(&line, &cap, f) > 0) {
		const char *why;
		struct vma v;
		bool huge;

		if (!parse_vma(line, &v) || v.end <= cur)
			continue;
		if (v.start > cur)
			break;	/* a hole at cur */
		why = vma_refusal(&v, &huge);
		if (why) {
			ZN_ERR("mem", "adopt: %p+%zu: the mapping %" PRIxPTR "-%" PRIxPTR " %s is %s; "
			       "only private anonymous read-write memory can be adopted",
			       (void *)a, len, v.start, v.end, v.path, why);
			rc = -EFAULT;
			goto out;
		}
		if (kind >= 0 && kind != huge) {
			ZN_ERR("mem", "adopt: %p+%zu mixes hugetlb and normal pages; adopt each "
			       "part on its own", (void *)a, len);
			rc = -EFAULT;
			goto out;
		}
		if (huge && kind < 0)
			huge_start = v.start;
		kind = huge;
		cur = v.end;
	}
	if (cur < end) {
		ZN_ERR("mem", "adopt: %p+%zu: nothing is mapped at %p", (void *)a, len, (void *)cur);
		rc = -EFAULT;
		goto out;
	}
	*pg = ZN_PAGE_4K;
	if (kind == 1) {
		*pg = vma_page_size(huge_start);
		if (*pg == 0) {
			ZN_ERR("mem", "adopt: %p+%zu: cannot find the hugetlb page size in %s",
			       (void *)a, len, SMAPS_PATH);
			rc = -EFAULT;
		}
	}
out:
	free(line);
	fclose(f);
	return rc;
}

/* Private anonymous memory with the contents of src back at va (failure path). */
static void restore(void *va, size_t len, const void *src, size_t pg)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	void *m;

	if (pg != ZN_PAGE_4K)
		flags |= MAP_HUGETLB | (__builtin_ctzl(pg) << MAP_HUGE_SHIFT);
	m = mmap(va, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (m == MAP_FAILED) {
		ZN_ERR("mem", "adopt: %p+%zu: cannot restore the original memory (%s); the "
		       "range stays fd-backed", va, len, strerror(errno));
		return;
	}
	memcpy(va, src, len);
}

static int adopt_locked(void *va, size_t len, struct zn_dma_region **out)
{
	const uintptr_t a = (uintptr_t)va;
	struct zn_dma_region *r;
	unsigned mfd_flags = MFD_CLOEXEC;
	size_t pg = ZN_PAGE_4K;
	bool logged = false;
	void *tmp;
	int fd, rc;

	rc = zn_mem_reg_overlap(va, len, out);
	if (rc == 1)
		return 1;
	if (rc < 0) {
		ZN_ERR("mem", "adopt: %p+%zu overlaps a live DMA region partly; pass a range "
		       "inside it or outside every region", va, len);
		return rc;
	}
	rc = check_range(a, len, &pg);
	if (rc)
		return rc;
	if (pg != ZN_PAGE_4K) {
		if (a % pg || len % pg) {
			ZN_ERR("mem", "adopt: %p+%zu is not aligned to its %zu-byte hugetlb pages",
			       va, len, pg);
			return -EINVAL;
		}
		mfd_flags |= MFD_HUGETLB | ((unsigned)__builtin_ctzl(pg) << MFD_HUGE_SHIFT);
	}

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	snprintf(r->name, sizeof(r->name), ADOPT_NAME);
	fd = memfd_create("zcnic:" ADOPT_NAME, mfd_flags);
	if (fd < 0) {
		rc = -errno;
		goto err_free;
	}
	if (ftruncate(fd, (off_t)len) < 0) {
		rc = -errno;
		goto err_close;
	}
	/* hugetlb reserves its pages at mmap: no hugepages -> ENOMEM here. */
	tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (tmp == MAP_FAILED) {
		rc = -errno;
		goto err_close;
	}
	memcpy(tmp, va, len);
	/* From here on the range is the memfd's; tmp keeps a copy for a restore. */
	if (mmap(va, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		rc = -errno;
		goto err_tmp;
	}
	r->va = va;
	r->len = len;
	r->fd = fd;
	r->fd_offset = 0;
	r->page_size = pg;
	r->hugetlb = pg != ZN_PAGE_4K;
	r->numa_node = -1;
	r->iova = a;
	r->adopted = true;
	rc = zn_mem_prefault(va, len);
	if (rc)
		goto err_restore;
	rc = zn_mem_lock_region(r);
	if (rc) {
		logged = true;
		goto err_restore;
	}
	rc = zn_mem_reg_add(r);
	if (rc) {
		ZN_ERR("mem", "adopt: IOVA %p+%zu already used by another region's chosen IOVA",
		       va, len);
		logged = true;
		syscall(SYS_munlock, va, len);
		goto err_restore;
	}
	munmap(tmp, len);
	*out = r;
	return 0;

err_restore:
	restore(va, len, tmp, pg);
err_tmp:
	munmap(tmp, len);
err_close:
	close(fd);
err_free:
	free(r);
	if (logged)
		return rc;
	if (rc == -ENOMEM && pg != ZN_PAGE_4K)
		ZN_ERR("mem", "adopt: %p+%zu: no free %zu-byte hugepages for the copy; reserve "
		       "some (echo N > /proc/sys/vm/nr_hugepages)", va, len, pg);
	else
		ZN_ERR("mem", "adopt: %p+%zu: cannot back the range with a memfd: %s", va, len,
		       strerror(-rc));
	return rc;
}

int zn_mem_adopt(void *va, size_t len, struct zn_dma_region **out)
{
	int rc;

	if (!out || len == 0 || (uintptr_t)va % ZN_PAGE_4K || len % ZN_PAGE_4K ||
	    (uintptr_t)va > UINTPTR_MAX - len)
		return -EINVAL;
	pthread_mutex_lock(&adopt_lock);
	rc = adopt_locked(va, len, out);
	pthread_mutex_unlock(&adopt_lock);
	return rc;
}
