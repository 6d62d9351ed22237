/* SPDX-License-Identifier: MIT */
/*
 * DMA memory.
 *
 * Every DMA region is fd-backed (a memfd, MFD_HUGETLB with 2 MiB pages when
 * hugepages are available) and mapped MAP_SHARED, so that the same memory can
 * be given to the kernel IOMMU (VFIO_IOMMU_MAP_DMA needs only the VA) or to a
 * vfio-user device model (DMA_MAP passes the fd and an offset). IOVA = VA
 * unless the caller picks another with zn_dma_region_set_iova(). Regions are
 * prefaulted and mlocked at allocation (RLIMIT_MEMLOCK must allow it, or
 * CAP_IPC_LOCK), so that DMA never meets a missing page.
 *
 * A process-wide registry knows every live region and translates a VA to its
 * IOVA and to (fd, offset). Buffer pools carve fixed-size buffers from a
 * region with no allocation per buffer.
 */
#ifndef ZCNIC_MEM_H
#define ZCNIC_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

#define ZN_PAGE_4K (4096ul)
#define ZN_PAGE_2M (2ul << 20)

enum zn_dma_flags {
	ZN_DMA_NO_HUGE = 1u << 0,	/* never try hugetlb */
	ZN_DMA_HUGE_ONLY = 1u << 1,	/* fail with -ENOMEM rather than fall back */
};

struct zn_dma_region {
	void *va;
	uint64_t iova;		/* (uintptr_t)va unless set_iova chose another */
	size_t len;		/* rounded up to page_size */
	int fd;			/* memfd, owned by the region */
	uint64_t fd_offset;	/* offset of va within fd (0 today) */
	size_t page_size;
	int numa_node;		/* -1: no placement requested or no NUMA */
	bool hugetlb;
	bool adopted;		/* zn_mem_adopt: the VA range is the application's */
	char name[32];
};

/*
 * Allocate a region of at least len bytes, placed on numa_node (-1 = any).
 * Returns 0 or a negative errno: -EINVAL (len 0, unknown or conflicting
 * flags, a NUMA node that does not exist), -ENOMEM (no memory, no hugepages
 * with ZN_DMA_HUGE_ONLY, RLIMIT_MEMLOCK too low). Every failure logs one line.
 */
int zn_dma_region_alloc(const char *name, size_t len, int numa_node,
			unsigned flags, struct zn_dma_region **out);
/*
 * Forget a region. An adopted one (zn_mem_adopt) is removed from the
 * registry, munlocked and its fd closed, but never unmapped: the addresses
 * stay the application's and keep working (the mapping holds the memfd).
 * The caller DMA-unmaps it from every device first.
 */
void zn_dma_region_free(struct zn_dma_region *r);
/*
 * Give the region another IOVA before it is DMA-mapped, for devices whose
 * DMA mask cannot reach the VA (e.g. QEMU's edu: 28 bits). -EINVAL if iova
 * is not 4 KiB aligned or the range wraps; -EEXIST if it overlaps another
 * live region's IOVA range.
 */
int zn_dma_region_set_iova(struct zn_dma_region *r, uint64_t iova);

/*
 * Make ordinary memory a DMA region in place, for memory an application
 * hands us (io_uring zcrx areas, registered buffers): a vfio-user device
 * model can only reach fd-backed memory. [va, va+len) must be page aligned
 * (4 KiB, or the mapping's page size for MAP_HUGETLB memory), len > 0.
 *
 * Returns:
 *   1        the range already lies inside one live region (a zcnic buffer,
 *            or adopted before); *out is that region, nothing was adopted
 *            and the caller must not free it.
 *   0        adopted: the range's pages were replaced by a memfd mapping
 *            (MAP_SHARED|MAP_FIXED, same address, same contents, read-write),
 *            prefaulted, mlocked and registered (IOVA = VA, name "adopted",
 *            adopted = true); free it with zn_dma_region_free, which never
 *            unmaps the range.
 *   -EINVAL  unaligned, len 0, wrapping range, or NULL out.
 *   -EEXIST  the range partly overlaps a live region.
 *   -EFAULT  some byte of the range is unmapped, not readable and writable,
 *            shared, file-backed, or a special mapping ([stack], [vdso],
 *            [vvar], ...): only private anonymous memory (mmap
 *            MAP_PRIVATE|MAP_ANONYMOUS with or without MAP_HUGETLB, the heap,
 *            malloc'd memory) can be adopted. The kernel's zcrx registration
 *            gives -EFAULT for unmapped or read-only memory too.
 *   -ENOMEM  no memory (or no free hugepages) for the copy, RLIMIT_MEMLOCK
 *            too low (one log line, as zn_dma_region_alloc); the range is left
 *            as it was (private anonymous, same contents).
 *
 * Caveats: after adoption the range is shared memory: a fork() child shares
 * its pages with the parent instead of getting a copy (as with any
 * MAP_SHARED memory). The contents are copied before the new mapping takes
 * the range: a write made by another thread in between is lost; adopt
 * memory no other thread is writing. The process's /proc/self/maps is read:
 * a control-path call, not per I/O.
 */
int zn_mem_adopt(void *va, size_t len, struct zn_dma_region **out);

/*
 * Registry look-ups; [va, va+len) must lie within one live region, else
 * -EFAULT (NULL). They take a lock: for control paths, not per packet.
 */
int zn_mem_va_to_iova(const void *va, size_t len, uint64_t *iova);
int zn_mem_va_to_fd(const void *va, size_t len, int *fd, uint64_t *fd_offset);
struct zn_dma_region *zn_mem_find(const void *va);

/*
 * Fixed-size buffer pool over part of a region, from offset (a multiple of
 * 64) on. buf_size is rounded up to 64 bytes; -ENOSPC if count buffers do not
 * fit. All bookkeeping is allocated at creation; get/put never allocate and
 * take no lock: a pool has one owner thread.
 */
struct zn_pool;

int zn_pool_create(struct zn_dma_region *r, size_t offset, size_t buf_size,
		   uint32_t count, struct zn_pool **out);
void zn_pool_destroy(struct zn_pool *p);
void *zn_pool_get(struct zn_pool *p);		/* NULL when exhausted */
int zn_pool_put(struct zn_pool *p, void *buf);	/* -EINVAL: not ours or double put */
uint32_t zn_pool_avail(const struct zn_pool *p);
uint32_t zn_pool_count(const struct zn_pool *p);
size_t zn_pool_buf_size(const struct zn_pool *p);
/* Buffer index <-> pointer, for rings that carry indices. */
void *zn_pool_buf(const struct zn_pool *p, uint32_t idx);
int zn_pool_index(const struct zn_pool *p, const void *buf, uint32_t *idx);

#pragma GCC visibility pop

#endif
