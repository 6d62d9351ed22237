/* SPDX-License-Identifier: MIT */
/*
 * DMA regions: a memfd (hugetlb when possible) mapped MAP_SHARED, placed on
 * a NUMA node before first touch, prefaulted and mlocked, so that the device
 * never meets a missing page and the fd can be handed to a vfio-user server.
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/mem/mem_internal.h"
#include "zcnic/log.h"

#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21u << 26)	/* log2(2 MiB) << MFD_HUGE_SHIFT */
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23		/* Linux 5.14 */
#endif

#define MEMFD_PREFIX "zcnic:"
#define IOVA_ALIGN ZN_PAGE_4K		/* IOMMU page granularity */
#define KNOWN_FLAGS (ZN_DMA_NO_HUGE | ZN_DMA_HUGE_ONLY)

static atomic_bool fallback_noted;

/* -1 stays -1; a real node is checked; without NUMA, node 0 means "any". */
static int check_node(const char *name, int node, int *placed)
{
	*placed = -1;
	if (node == -1)
		return 0;
	if (numa_available() < 0) {
		if (node == 0)
			return 0;
		ZN_ERR("mem", "%s: NUMA node %d requested but this machine has no NUMA "
		       "support; use -1 (or 0)", name, node);
		return -EINVAL;
	}
	if (node < 0 || node > numa_max_node() ||
	    !numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)node)) {
		ZN_ERR("mem", "%s: NUMA node %d does not exist or has no usable memory "
		       "(nodes here: 0-%d); use -1 for no placement", name, node,
		       numa_max_node());
		return -EINVAL;
	}
	*placed = node;
	return 0;
}

/* Bind before the first touch: a page is placed when it is first faulted. */
static int bind_node(void *va, size_t len, int node)
{
	struct bitmask *bm;
	int rc = 0;

	if (node < 0)
		return 0;
	bm = numa_allocate_nodemask();
	if (!bm)
		return -ENOMEM;
	numa_bitmask_setbit(bm, (unsigned)node);
	if (mbind(va, len, MPOL_BIND, bm->maskp, bm->size + 1, 0) < 0)
		rc = -errno;
	numa_free_nodemask(bm);
	return rc;
}

/*
 * Prefault every page now. MADV_POPULATE_WRITE reports a failure (e.g. no
 * hugepage left on the bound node) as an error where a memset would SIGBUS.
 */
int zn_mem_prefault(void *va, size_t len)
{
	if (madvise(va, len, MADV_POPULATE_WRITE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	memset(va, 0, len);	/* kernel older than 5.14 */
	return 0;
}

/* Fill r->fd, va, len, page_size, hugetlb; on failure r is left untouched. */
static int map_backing(struct zn_dma_region *r, size_t want, bool huge)
{
	size_t pg = huge ? ZN_PAGE_2M : ZN_PAGE_4K;
	char fdname[sizeof(MEMFD_PREFIX) + sizeof(r->name)];
	size_t len;
	void *va;
	int fd, rc;

	if (want > SIZE_MAX - (pg - 1))
		return -ENOMEM;
	len = (want + pg - 1) & ~(pg - 1);
	snprintf(fdname, sizeof(fdname), MEMFD_PREFIX "%s", r->name);
	fd = memfd_create(fdname, MFD_CLOEXEC | (huge ? MFD_HUGETLB | MFD_HUGE_2MB : 0));
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) < 0) {
		rc = -errno;
		goto err_close;
	}
	/* hugetlb reserves its pages here: no free hugepages -> ENOMEM now, not SIGBUS later. */
	va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (va == MAP_FAILED) {
		rc = -errno;
		goto err_close;
	}
	rc = bind_node(va, len, r->numa_node);
	if (rc)
		goto err_unmap;
	rc = zn_mem_prefault(va, len);
	if (rc)
		goto err_unmap;
	r->fd = fd;
	r->va = va;
	r->len = len;
	r->page_size = pg;
	r->hugetlb = huge;
	return 0;

err_unmap:
	munmap(va, len);
err_close:
	close(fd);
	return rc;
}

static void note_fallback_once(int rc)
{
	if (atomic_exchange(&fallback_noted, true))
		return;
	if (rc == -ENOMEM)
		ZN_INFO("mem", "no free 2 MiB hugepages: using 4 KiB pages "
			"(echo N > /proc/sys/vm/nr_hugepages to reserve some)");
	else
		ZN_INFO("mem", "2 MiB hugepages unavailable (%s): using 4 KiB pages "
			"(echo N > /proc/sys/vm/nr_hugepages to reserve some)", strerror(-rc));
}

/* Locked pages cannot be swapped or migrated under a DMA in flight. */
int zn_mem_lock_region(const struct zn_dma_region *r)
{
	struct rlimit rl;
	int e;

	/* The raw syscall: ASan turns mlock() into a no-op that always succeeds. */
	if (syscall(SYS_mlock, r->va, r->len) == 0)
		return 0;
	e = errno;
	if ((e == ENOMEM || e == EPERM) && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY) {
		ZN_ERR("mem", "%s: cannot lock %zu bytes of DMA memory: RLIMIT_MEMLOCK is "
		       "%llu bytes (zcnic already holds %zu); raise it with `ulimit -l "
		       "unlimited`, a memlock line in /etc/security/limits.conf or "
		       "LimitMEMLOCK=infinity in the systemd unit", r->name, r->len,
		       (unsigned long long)rl.rlim_cur, zn_mem_reg_locked_bytes());
		return -ENOMEM;
	}
	ZN_ERR("mem", "%s: mlock of %zu bytes failed: %s", r->name, r->len, strerror(e));
	return -e;
}

int zn_dma_region_alloc(const char *name, size_t len, int numa_node,
			unsigned flags, struct zn_dma_region **out)
{
	struct zn_dma_region *r;
	int node, rc;

	if (!name)
		name = "dma";
	if (!out || len == 0 || (flags & ~KNOWN_FLAGS) ||
	    (flags & KNOWN_FLAGS) == KNOWN_FLAGS)
		return -EINVAL;
	rc = check_node(name, numa_node, &node);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->numa_node = node;
	snprintf(r->name, sizeof(r->name), "%s", name);

	if (!(flags & ZN_DMA_NO_HUGE)) {
		rc = map_backing(r, len, true);
		if (rc && (flags & ZN_DMA_HUGE_ONLY)) {
			ZN_ERR("mem", "%s: cannot get %zu bytes of 2 MiB hugepages (%s) and "
			       "HUGE_ONLY forbids 4 KiB pages; reserve some with "
			       "echo N > /proc/sys/vm/nr_hugepages", r->name, len, strerror(-rc));
			rc = -ENOMEM;
			goto err_free;
		}
		if (rc)
			note_fallback_once(rc);
	}
	if (!r->va) {
		rc = map_backing(r, len, false);
		if (rc) {
			ZN_ERR("mem", "%s: cannot map %zu bytes of shared memory: %s",
			       r->name, len, strerror(-rc));
			goto err_free;
		}
	}
	rc = zn_mem_lock_region(r);
	if (rc)
		goto err_unmap;
	r->iova = (uintptr_t)r->va;
	r->fd_offset = 0;
	rc = zn_mem_reg_add(r);
	if (rc) {
		/* Only when a caller moved another region's IOVA onto this VA. */
		ZN_ERR("mem", "%s: IOVA %p+%zu already used by another region's chosen IOVA",
		       r->name, r->va, r->len);
		goto err_unmap;
	}
	*out = r;
	return 0;

err_unmap:
	munmap(r->va, r->len);
	close(r->fd);
err_free:
	free(r);
	return rc;
}

void zn_dma_region_free(struct zn_dma_region *r)
{
	if (!r)
		return;
	zn_mem_reg_remove(r);
	if (r->adopted)		/* the addresses stay the application's */
		syscall(SYS_munlock, r->va, r->len);
	else
		munmap(r->va, r->len);	/* unlocks too */
	close(r->fd);
	free(r);
}

int zn_dma_region_set_iova(struct zn_dma_region *r, uint64_t iova)
{
	int rc;

	if (!r || iova % IOVA_ALIGN || iova > UINT64_MAX - r->len)
		return -EINVAL;
	rc = zn_mem_reg_set_iova(r, iova);
	if (rc == -EEXIST)
		ZN_ERR("mem", "%s: IOVA 0x%llx-0x%llx overlaps another live region's IOVA range",
		       r->name, (unsigned long long)iova,
		       (unsigned long long)(iova + r->len - 1));
	return rc;
}
