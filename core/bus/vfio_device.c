/* SPDX-License-Identifier: MIT */
/*
 * The VFIO device fd: device info, regions, config space, interrupts, reset
 * [torvalds/linux: include/uapi/linux/vfio.h; Documentation/driver-api/vfio.rst].
 *
 * Regions are windows of the device fd at the offset GET_REGION_INFO gives
 * (never computed: vfio-pci's index << 40 is kernel-internal). Config space
 * is region 7, reached with pread/pwrite only. A BAR may be mmap-able as a
 * whole, or only in the "sparse" areas its SPARSE_MMAP capability lists (the
 * MSI-X table is usually carved out); the rest goes through pread/pwrite.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "core/bus/vfio_priv.h"
#include "core/bus/vfio_sys.h"
#include "zcnic/log.h"

#define PAGE 4096ull
/* PCI allows 2048 MSI-X vectors per function. */
#define MAX_IRQ_VECTORS 2048u

int zn_vfio_device_query(struct zn_vfio_dev *v)
{
	struct vfio_device_info info = { .argsz = sizeof(info) };
	const char *bdf = v->bus.name;

	if (zn_vfio_sys->ioctl(v->fd, VFIO_DEVICE_GET_INFO, &info) < 0) {
		int err = errno;

		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_DEVICE_GET_INFO failed: %s", bdf, strerror(err));
		return -err;
	}
	if (!(info.flags & VFIO_DEVICE_FLAGS_PCI) || info.num_regions <= ZN_BUS_CONFIG) {
		ZN_ERR(ZN_VFIO_LOG, "%s: not a vfio-pci device (flags 0x%x, %u regions)",
		       bdf, info.flags, info.num_regions);
		return -ENODEV;
	}
	v->bus.info.flags = info.flags;
	v->bus.info.num_regions = info.num_regions;
	v->bus.info.num_irqs = info.num_irqs;
	return 0;
}

int zn_vfio_get_device_info(struct zn_bus_dev *d, struct zn_device_info *info)
{
	*info = d->info;
	return 0;
}

/* Keep the sparse areas that are page-aligned and inside the region. */
static void parse_sparse(const char *bdf, struct zn_region_info *ri, const void *buf,
			 size_t len, uint32_t cap_offset)
{
	struct vfio_region_info_cap_sparse_mmap cap;
	const uint8_t *c = zn_vfio_find_cap(buf, len, cap_offset, sizeof(struct vfio_region_info),
					    VFIO_REGION_INFO_CAP_SPARSE_MMAP, sizeof(cap));
	size_t room;

	if (!c)
		return;
	memcpy(&cap, c, sizeof(cap));
	room = (len - (size_t)(c - (const uint8_t *)buf) - sizeof(cap)) /
	       sizeof(struct vfio_region_sparse_mmap_area);
	if (cap.nr_areas > room) {
		ZN_WARN(ZN_VFIO_LOG, "%s: region %u: sparse-mmap capability truncated; "
			"using register access for it", bdf, ri->index);
		cap.nr_areas = 0;
	}
	ri->nr_sparse = 0;
	for (uint32_t i = 0; i < cap.nr_areas; i++) {
		struct vfio_region_sparse_mmap_area a;

		memcpy(&a, c + sizeof(cap) + i * sizeof(a), sizeof(a));
		if (!a.size)
			continue;
		if ((a.offset | a.size) & (PAGE - 1) || a.offset > ri->size ||
		    a.size > ri->size - a.offset) {
			ZN_WARN(ZN_VFIO_LOG, "%s: region %u: ignoring sparse area 0x%llx+0x%llx "
				"(unaligned or outside the region)", bdf, ri->index,
				(unsigned long long)a.offset, (unsigned long long)a.size);
			continue;
		}
		if (ri->nr_sparse == ZN_BUS_MAX_SPARSE) {
			ZN_WARN(ZN_VFIO_LOG, "%s: region %u: more than %d sparse areas; the "
				"rest use register access", bdf, ri->index, ZN_BUS_MAX_SPARSE);
			break;
		}
		ri->sparse[ri->nr_sparse].offset = a.offset;
		ri->sparse[ri->nr_sparse].size = a.size;
		ri->nr_sparse++;
	}
	/* A sparse capability with no usable area: nothing may be mmapped. */
	if (!ri->nr_sparse)
		ri->flags &= ~(uint32_t)ZN_REGION_F_MMAP;
}

static int region_info(struct zn_vfio_dev *v, uint32_t index, struct zn_region_info **out)
{
	struct vfio_region_info tmpl = { .index = index }, ri;
	struct zn_region_info *zi;
	void *buf;
	size_t len;
	int rc;

	if (index >= ZN_BUS_NUM_REGIONS_MAX || index >= v->bus.info.num_regions)
		return -EINVAL;
	zi = &v->region[index];
	if (v->region_known[index])
		goto done;
	rc = zn_vfio_info_ioctl(v->fd, VFIO_DEVICE_GET_REGION_INFO, &tmpl, sizeof(tmpl),
				&buf, &len);
	if (rc < 0) {
		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_DEVICE_GET_REGION_INFO(%u) failed: %s",
		       v->bus.name, index, strerror(-rc));
		return rc;
	}
	memcpy(&ri, buf, sizeof(ri));
	memset(zi, 0, sizeof(*zi));
	zi->index = index;
	zi->flags = ri.flags & (ZN_REGION_F_READ | ZN_REGION_F_WRITE | ZN_REGION_F_MMAP);
	zi->size = ri.size;
	zi->offset = ri.offset;
	if ((ri.flags & VFIO_REGION_INFO_FLAG_CAPS) && (zi->flags & ZN_REGION_F_MMAP))
		parse_sparse(v->bus.name, zi, buf, len, ri.cap_offset);
	free(buf);
	v->region_known[index] = true;
done:
	*out = zi;
	return 0;
}

int zn_vfio_get_region_info(struct zn_bus_dev *d, uint32_t index,
			    struct zn_region_info *info)
{
	struct zn_region_info *ri;
	int rc = region_info(zn_vfio_dev(d), index, &ri);

	if (rc == 0)
		*info = *ri;
	return rc;
}

int zn_vfio_map_region(struct zn_bus_dev *d, uint32_t index, void **va)
{
	struct zn_vfio_dev *v = zn_vfio_dev(d);
	struct zn_region_info *ri;
	uint8_t *base;
	size_t len;
	int prot = 0, rc = region_info(v, index, &ri);

	if (rc < 0)
		return rc;
	if (v->map_va[index]) {
		*va = v->map_va[index];
		return 0;
	}
	if (!(ri->flags & ZN_REGION_F_MMAP) || !ri->size || ri->size > SIZE_MAX - PAGE) {
		ZN_ERR(ZN_VFIO_LOG, "%s: region %u cannot be mmapped", d->name, index);
		return -EINVAL;
	}
	if (ri->flags & ZN_REGION_F_READ)
		prot |= PROT_READ;
	if (ri->flags & ZN_REGION_F_WRITE)
		prot |= PROT_WRITE;
	len = (size_t)((ri->size + PAGE - 1) & ~(PAGE - 1));

	if (!ri->nr_sparse) {
		base = zn_vfio_sys->mmap(NULL, len, prot, MAP_SHARED, v->fd, (off_t)ri->offset);
		if (base == MAP_FAILED) {
			rc = -errno;
			ZN_ERR(ZN_VFIO_LOG, "%s: mmap of region %u (%zu bytes) failed: %s",
			       d->name, index, len, strerror(-rc));
			return rc;
		}
		goto done;
	}
	/*
	 * Reserve the whole region inaccessible, then lay the sparse areas over
	 * it: a stray access outside them faults instead of hitting whatever
	 * else the address space holds.
	 */
	base = zn_vfio_sys->mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
	if (base == MAP_FAILED) {
		rc = -errno;
		ZN_ERR(ZN_VFIO_LOG, "%s: cannot reserve %zu bytes for region %u: %s",
		       d->name, len, index, strerror(-rc));
		return rc;
	}
	for (uint32_t i = 0; i < ri->nr_sparse; i++) {
		uint8_t *want = base + ri->sparse[i].offset;
		void *p = zn_vfio_sys->mmap(want, (size_t)ri->sparse[i].size, prot,
					    MAP_SHARED | MAP_FIXED, v->fd,
					    (off_t)(ri->offset + ri->sparse[i].offset));

		if (p != want) {
			rc = p == MAP_FAILED ? -errno : -EFAULT;
			ZN_ERR(ZN_VFIO_LOG, "%s: mmap of region %u area 0x%" PRIx64 "+0x%" PRIx64
			       " failed: %s", d->name, index, ri->sparse[i].offset,
			       ri->sparse[i].size, strerror(-rc));
			zn_vfio_sys->munmap(base, len);
			return rc;
		}
	}
done:
	v->map_va[index] = base;
	v->map_len[index] = len;
	*va = base;
	return 0;
}

int zn_vfio_unmap_region(struct zn_bus_dev *d, uint32_t index)
{
	struct zn_vfio_dev *v = zn_vfio_dev(d);

	if (index >= ZN_BUS_NUM_REGIONS_MAX || !v->map_va[index])
		return -EINVAL;
	/* One munmap covers the reservation and every area laid over it. */
	zn_vfio_sys->munmap(v->map_va[index], v->map_len[index]);
	v->map_va[index] = NULL;
	v->map_len[index] = 0;
	d->region_va[index] = NULL;
	return 0;
}

static int region_rw(struct zn_bus_dev *d, uint32_t index, uint64_t off, void *rbuf,
		     const void *wbuf, size_t len)
{
	struct zn_vfio_dev *v = zn_vfio_dev(d);
	struct zn_region_info *ri;
	uint32_t need = rbuf ? ZN_REGION_F_READ : ZN_REGION_F_WRITE;
	ssize_t n;
	int rc = region_info(v, index, &ri);

	if (rc < 0)
		return rc;
	if (!(ri->flags & need) || off > ri->size || len > ri->size - off) {
		ZN_LOG_RL(ZN_LOG_ERR, ZN_VFIO_LOG, "%s: region %u: bad %s of %zu bytes at "
			  "0x%" PRIx64 " (size 0x%" PRIx64 ", flags 0x%x)", d->name, index,
			  rbuf ? "read" : "write", len, off, ri->size, ri->flags);
		return -EINVAL;
	}
	if (rbuf)
		n = zn_vfio_sys->pread(v->fd, rbuf, len, (off_t)(ri->offset + off));
	else
		n = zn_vfio_sys->pwrite(v->fd, wbuf, len, (off_t)(ri->offset + off));
	if (n == (ssize_t)len)
		return 0;
	rc = n < 0 ? -errno : -EIO;
	ZN_LOG_RL(ZN_LOG_ERR, ZN_VFIO_LOG, "%s: region %u: %s of %zu bytes at 0x%" PRIx64
		  " failed: %s", d->name, index, rbuf ? "read" : "write", len, off,
		  n < 0 ? strerror(-rc) : "short transfer");
	return rc;
}

int zn_vfio_region_read(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			void *buf, size_t len)
{
	if (!buf)
		return -EINVAL;
	return region_rw(d, index, off, buf, NULL, len);
}

int zn_vfio_region_write(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			 const void *buf, size_t len)
{
	if (!buf)
		return -EINVAL;
	return region_rw(d, index, off, NULL, buf, len);
}

int zn_vfio_get_irq_info(struct zn_bus_dev *d, uint32_t index, struct zn_irq_info *info)
{
	struct zn_vfio_dev *v = zn_vfio_dev(d);
	struct vfio_irq_info ii = { .argsz = sizeof(ii), .index = index };

	if (index >= d->info.num_irqs)
		return -EINVAL;
	if (zn_vfio_sys->ioctl(v->fd, VFIO_DEVICE_GET_IRQ_INFO, &ii) < 0) {
		int err = errno;

		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_DEVICE_GET_IRQ_INFO(%u) failed: %s", d->name,
		       index, strerror(err));
		return -err;
	}
	info->index = index;
	info->flags = ii.flags;
	info->count = ii.count;
	return 0;
}

int zn_vfio_set_irqs(struct zn_bus_dev *d, uint32_t index, uint32_t start,
		     uint32_t count, const int *fds)
{
	struct zn_vfio_dev *v = zn_vfio_dev(d);
	size_t len = sizeof(struct vfio_irq_set) + (size_t)count * sizeof(int32_t);
	struct vfio_irq_set *s;
	int rc = 0;

	if (index >= d->info.num_irqs || count > MAX_IRQ_VECTORS || (count && !fds) ||
	    start > MAX_IRQ_VECTORS - count)
		return -EINVAL;
	s = calloc(1, len);
	if (!s)
		return -ENOMEM;
	s->argsz = (uint32_t)len;
	s->index = index;
	if (count) {
		/* One eventfd per vector; -1 leaves that vector without one. */
		s->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
		s->start = start;
		s->count = count;
		for (uint32_t i = 0; i < count; i++) {
			int32_t fd = fds[i] < 0 ? -1 : fds[i];

			memcpy(s->data + i * sizeof(fd), &fd, sizeof(fd));
		}
	} else {
		/* DATA_NONE + TRIGGER with count 0 turns the whole index off. */
		s->flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
	}
	if (zn_vfio_sys->ioctl(v->fd, VFIO_DEVICE_SET_IRQS, s) < 0) {
		rc = -errno;
		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_DEVICE_SET_IRQS(index %u, start %u, count %u) "
		       "failed: %s", d->name, index, start, count, strerror(-rc));
	}
	free(s);
	return rc;
}

int zn_vfio_reset(struct zn_bus_dev *d)
{
	struct zn_vfio_dev *v = zn_vfio_dev(d);

	if (!(d->info.flags & VFIO_DEVICE_FLAGS_RESET)) {
		ZN_DEBUG(ZN_VFIO_LOG, "%s: the device offers no reset method", d->name);
		return -ENOTSUP;
	}
	if (zn_vfio_sys->ioctl(v->fd, VFIO_DEVICE_RESET, NULL) < 0) {
		int err = errno;

		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_DEVICE_RESET failed: %s", d->name, strerror(err));
		return -err;
	}
	return 0;
}
