/* SPDX-License-Identifier: MIT */
/*
 * DMA map/unmap through the kernel IOMMU: VFIO_IOMMU_MAP_DMA on a type1
 * container, or IOMMU_IOAS_MAP with a fixed IOVA on an iommufd IOAS.
 *
 * Checked here before the kernel sees it, so that the user gets a reason
 * rather than a bare EINVAL: alignment to the smallest IOMMU page and the
 * usable IOVA ranges the kernel reported (x86 keeps the MSI window out).
 *
 * Pinned pages count against RLIMIT_MEMLOCK unless the process has
 * CAP_IPC_LOCK [torvalds/linux: drivers/vfio/vfio_iommu_type1.c
 * vfio_pin_pages_remote]; the kernel then fails with a bare ENOMEM, which we
 * turn into the limit, the need and how to raise it.
 *
 * A container is shared by the devices of one IOMMU group, so a mapping is
 * reference counted: the second device mapping the same region is a no-op,
 * and the range leaves the IOMMU when the last one unmaps it.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <linux/vfio.h>

#include "core/bus/vfio_priv.h"
#include "core/bus/vfio_sys.h"
#include "core/bus/vfio_uapi_compat.h"
#include "zcnic/log.h"

#define MAPS_INITIAL 16
#define RANGES_TEXT 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pinned_total;	/* under lock */

uint64_t zn_vfio_dma_pinned_total(void)
{
	uint64_t v;

	pthread_mutex_lock(&lock);
	v = pinned_total;
	pthread_mutex_unlock(&lock);
	return v;
}

void zn_vfio_dma_log_ranges(const struct zn_vfio_dma *dma, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < dma->nr_ranges && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s0x%" PRIx64 "-0x%" PRIx64,
				 i ? ", " : "", dma->ranges[i].start, dma->ranges[i].last);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static bool in_ranges(const struct zn_vfio_dma *dma, uint64_t iova, uint64_t last)
{
	if (!dma->ranges_known)
		return true;
	for (uint32_t i = 0; i < dma->nr_ranges; i++)
		if (iova >= dma->ranges[i].start && last <= dma->ranges[i].last)
			return true;
	return false;
}

static struct zn_vfio_mapping *find_map(struct zn_vfio_dma *dma, uint64_t iova,
					uint64_t len)
{
	for (uint32_t i = 0; i < dma->nr_maps; i++)
		if (dma->maps[i].iova == iova && dma->maps[i].len == len)
			return &dma->maps[i];
	return NULL;
}

static int check_region(struct zn_vfio_dma *dma, const char *dev,
			const struct zn_dma_region *r)
{
	uint64_t va = (uintptr_t)r->va, last = r->iova + r->len - 1;
	uint64_t mask = dma->align ? dma->align - 1 : 0;

	if (!r->len || last < r->iova) {
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA region '%s' has an empty or wrapping IOVA range",
		       dev, r->name);
		return -EINVAL;
	}
	if ((va | r->iova | r->len) & mask) {
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA region '%s' (va %p, iova 0x%" PRIx64 ", %zu bytes) "
		       "is not aligned to the IOMMU page size %" PRIu64,
		       dev, r->name, r->va, r->iova, r->len, dma->align);
		return -EINVAL;
	}
	if (!in_ranges(dma, r->iova, last)) {
		char ranges[RANGES_TEXT];

		zn_vfio_dma_log_ranges(dma, ranges, sizeof(ranges));
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA region '%s' IOVA 0x%" PRIx64 "-0x%" PRIx64
		       " is outside the IOMMU's usable IOVA ranges (%s); give it an IOVA "
		       "inside them (zn_dma_region_set_iova)",
		       dev, r->name, r->iova, last, ranges[0] ? ranges : "none");
		return -EINVAL;
	}
	return 0;
}

static int kernel_map(struct zn_vfio_dma *dma, const struct zn_dma_region *r)
{
	if (dma->kind == ZN_VFIO_DMA_TYPE1) {
		struct vfio_iommu_type1_dma_map m = {
			.argsz = sizeof(m),
			.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
			.vaddr = (uintptr_t)r->va,
			.iova = r->iova,
			.size = r->len,
		};
		return zn_vfio_sys->ioctl(dma->fd, VFIO_IOMMU_MAP_DMA, &m) < 0 ? -errno : 0;
	}
	struct zn_iommu_ioas_map m = {
		.size = sizeof(m),
		.flags = ZN_IOMMU_IOAS_MAP_FIXED_IOVA | ZN_IOMMU_IOAS_MAP_READABLE |
			 ZN_IOMMU_IOAS_MAP_WRITEABLE,
		.ioas_id = dma->ioas_id,
		.user_va = (uintptr_t)r->va,
		.length = r->len,
		.iova = r->iova,
	};
	return zn_vfio_sys->ioctl(dma->fd, ZN_IOMMU_IOAS_MAP, &m) < 0 ? -errno : 0;
}

/* Returns the bytes the kernel unmapped, or a negative errno. */
static int64_t kernel_unmap(struct zn_vfio_dma *dma, uint64_t iova, uint64_t len)
{
	if (dma->kind == ZN_VFIO_DMA_TYPE1) {
		struct vfio_iommu_type1_dma_unmap u = {
			.argsz = sizeof(u),
			.iova = iova,
			.size = len,
		};
		if (zn_vfio_sys->ioctl(dma->fd, VFIO_IOMMU_UNMAP_DMA, &u) < 0)
			return -errno;
		return (int64_t)u.size;
	}
	struct zn_iommu_ioas_unmap u = {
		.size = sizeof(u),
		.ioas_id = dma->ioas_id,
		.iova = iova,
		.length = len,
	};
	if (zn_vfio_sys->ioctl(dma->fd, ZN_IOMMU_IOAS_UNMAP, &u) < 0)
		return -errno;
	return (int64_t)u.length;
}

static void report_map_error(const char *dev, const struct zn_dma_region *r, int rc)
{
	struct rlimit rl;

	if (rc == -ENOMEM && zn_vfio_sys->getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY) {
		uint64_t need = pinned_total + r->len;

		if ((uint64_t)rl.rlim_cur < need) {
			ZN_ERR(ZN_VFIO_LOG, "%s: DMA map of '%s' (%zu bytes) failed: the "
			       "locked-memory limit (RLIMIT_MEMLOCK) is %llu bytes but %" PRIu64
			       " bytes must be pinned; raise it with 'ulimit -l unlimited', a "
			       "memlock line in /etc/security/limits.conf or LimitMEMLOCK=infinity "
			       "in the systemd unit (or grant CAP_IPC_LOCK)",
			       dev, r->name, r->len, (unsigned long long)rl.rlim_cur, need);
			return;
		}
		/*
		 * Below the limit by our count, but type1 counts pinned pages
		 * on top of the process's mlocked memory (core/mem mlocks every
		 * region): the limit is still the likely cause.
		 */
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA map of '%s' (%zu bytes) failed: out of memory, "
		       "or the locked-memory limit (RLIMIT_MEMLOCK, %llu bytes) is too low: "
		       "the kernel counts pinned pages on top of mlocked ones, and zcnic "
		       "mlocks its DMA memory, so allow twice the DMA memory; raise it with "
		       "'ulimit -l unlimited', a memlock line in /etc/security/limits.conf or "
		       "LimitMEMLOCK=infinity in the systemd unit (or grant CAP_IPC_LOCK)",
		       dev, r->name, r->len, (unsigned long long)rl.rlim_cur);
		return;
	}
	switch (rc) {
	case -ENOMEM:
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA map of '%s' (%zu bytes) failed: the kernel is "
		       "out of memory for IOMMU page tables or pinning", dev, r->name, r->len);
		break;
	case -EEXIST:
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA map of '%s' failed: IOVA 0x%" PRIx64
		       " (%zu bytes) overlaps an existing mapping", dev, r->name, r->iova, r->len);
		break;
	case -ENOSPC:
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA map of '%s' failed: the IOMMU mapping limit is "
		       "reached (vfio_iommu_type1 dma_entry_limit); use fewer, larger regions",
		       dev, r->name);
		break;
	default:
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA map of '%s' (iova 0x%" PRIx64 ", %zu bytes) "
		       "failed: %s", dev, r->name, r->iova, r->len, strerror(-rc));
		break;
	}
}

int zn_vfio_dma_map(struct zn_vfio_dma *dma, const char *dev,
		    const struct zn_dma_region *r)
{
	struct zn_vfio_mapping *m;
	int rc;

	if (!r || !r->va)
		return -EINVAL;
	if (dma->kind == ZN_VFIO_DMA_NOIOMMU)
		return 0;	/* no translation: the device uses what it is given */
	rc = check_region(dma, dev, r);
	if (rc < 0)
		return rc;

	pthread_mutex_lock(&lock);
	m = find_map(dma, r->iova, r->len);
	if (m) {
		if (m->va != (uintptr_t)r->va) {
			ZN_ERR(ZN_VFIO_LOG, "%s: DMA map of '%s' failed: IOVA 0x%" PRIx64
			       " is already mapped to other memory", dev, r->name, r->iova);
			rc = -EEXIST;
		} else {
			m->refs++;
		}
		goto out;
	}
	if (dma->nr_maps == dma->cap_maps) {
		uint32_t cap = dma->cap_maps ? dma->cap_maps * 2 : MAPS_INITIAL;
		struct zn_vfio_mapping *n = realloc(dma->maps, cap * sizeof(*n));

		if (!n) {
			rc = -ENOMEM;
			goto out;
		}
		dma->maps = n;
		dma->cap_maps = cap;
	}
	rc = kernel_map(dma, r);
	if (rc < 0) {
		report_map_error(dev, r, rc);
		goto out;
	}
	dma->maps[dma->nr_maps++] = (struct zn_vfio_mapping){
		.iova = r->iova, .len = r->len, .va = (uintptr_t)r->va, .refs = 1,
	};
	dma->mapped += r->len;
	pinned_total += r->len;
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

int zn_vfio_dma_unmap(struct zn_vfio_dma *dma, const char *dev,
		      const struct zn_dma_region *r)
{
	struct zn_vfio_mapping *m;
	int64_t done;
	int rc = 0;

	if (!r)
		return -EINVAL;
	if (dma->kind == ZN_VFIO_DMA_NOIOMMU)
		return 0;

	pthread_mutex_lock(&lock);
	m = find_map(dma, r->iova, r->len);
	if (!m) {
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA unmap of '%s' failed: IOVA 0x%" PRIx64
		       " (%zu bytes) is not mapped", dev, r->name, r->iova, r->len);
		rc = -ENOENT;
		goto out;
	}
	if (--m->refs)
		goto out;
	done = kernel_unmap(dma, r->iova, r->len);
	if (done < 0 || (uint64_t)done != r->len) {
		/* The kernel state is unknown now; keep counting it as pinned. */
		m->refs = 1;
		rc = done < 0 ? (int)done : -EIO;
		ZN_ERR(ZN_VFIO_LOG, "%s: DMA unmap of '%s' (iova 0x%" PRIx64 ", %zu bytes) "
		       "failed: %s", dev, r->name, r->iova, r->len,
		       done < 0 ? strerror((int)-done) : "the kernel unmapped a different size");
		goto out;
	}
	*m = dma->maps[--dma->nr_maps];
	dma->mapped -= r->len;
	pinned_total -= r->len;
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

void zn_vfio_dma_release(struct zn_vfio_dma *dma)
{
	pthread_mutex_lock(&lock);
	pinned_total -= dma->mapped;
	pthread_mutex_unlock(&lock);
	free(dma->maps);
	free(dma->ranges);
	dma->maps = NULL;
	dma->ranges = NULL;
	dma->nr_maps = dma->cap_maps = dma->nr_ranges = 0;
	dma->mapped = 0;
}
