/* SPDX-License-Identifier: MIT */
/*
 * The device fd, as vfio-pci presents it [torvalds/linux:
 * include/uapi/linux/vfio.h, drivers/vfio/pci/vfio_pci_core.c]: region i
 * lives at fd offset i << 40; GET_REGION_INFO gives READ/WRITE/MMAP flags
 * and, when only parts of a BAR may be mapped, a SPARSE_MMAP capability;
 * pread/pwrite reach every byte of a region (vfio-user REGION_READ/WRITE);
 * mmap maps the server's region fd in place of ours.
 *
 * The vfio-user connection is made when the first device fd is opened and
 * closed with the last one, as vfio-pci enables and disables the device.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "bridge/bridge.h"
#include "core/bus/vfio_user_priv.h"
#include "zcnic/log.h"

#define REGION_MASK	((1ull << ZNB_REGION_SHIFT) - 1)
#define PAGE		4096ull

static bool said_ioctl, said_trapped, said_private, said_hot_reset;

static void query_regions(struct znb_dev *d)
{
	uint32_t n = d->bus->info.num_regions;

	for (uint32_t i = 0; i < ZNB_NUM_REGIONS; i++) {
		d->region_ok[i] = false;
		memset(&d->region[i], 0, sizeof(d->region[i]));
		d->region[i].index = i;
		if (i < n && i < ZN_BUS_NUM_REGIONS_MAX &&
		    d->bus->ops->get_region_info(d->bus, i, &d->region[i]) == 0)
			d->region_ok[i] = true;
	}
}

static int connect_dev(struct znb_dev *d)
{
	int rc = zn_vfio_user_open(d->sock, NULL, &d->bus);

	if (rc < 0) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: cannot connect to %s: %s", d->bdf, d->sock,
		       strerror(-rc));
		d->bus = NULL;
		return rc == -ENOENT || rc == -ECONNREFUSED ? -ENODEV : rc;
	}
	query_regions(d);
	return 0;
}

static void disconnect_dev(struct znb_dev *d)
{
	znb_irq_release(d);
	d->bus->ops->close(d->bus);
	d->bus = NULL;
}

int znb_device_open(struct znb_group *g, const char *name)
{
	struct znb_dev *d = znb_group_dev(g);
	struct znb_obj *o;
	int fd, rc;

	if (strnlen(name, ZNB_BDF_LEN) >= ZNB_BDF_LEN || strcmp(name, d->bdf))
		return -ENODEV;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->kind = ZNB_DEVICE;
	o->p = d;
	if (!d->bus) {
		rc = connect_dev(d);
		if (rc == 0) {
			rc = znb_container_replay(g->c, d);
			if (rc < 0)
				disconnect_dev(d);
		}
		if (rc < 0) {
			free(o);
			return rc;
		}
	}
	fd = znb_fd_new(o, "vfio-device", true);
	if (fd < 0) {
		free(o);
		if (!d->fd_refs)
			disconnect_dev(d);
		return fd;
	}
	d->fd_refs++;
	g->dev_open++;
	return fd;
}

void znb_device_release(struct znb_dev *d)
{
	struct znb_group *g = &znb.group[d - znb.dev];

	if (--d->fd_refs == 0)
		disconnect_dev(d);
	if (--g->dev_open == 0 && !g->open && g->c)
		znb_container_detach(g->c, g);
}

static long get_info(struct znb_dev *d, void *arg)
{
	struct vfio_device_info info;
	size_t minsz = ZNB_OFFSETOFEND(struct vfio_device_info, num_irqs);

	memcpy(&info, arg, minsz);
	if (info.argsz < minsz)
		return -EINVAL;
	info.flags = d->bus->info.flags & (VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI);
	info.num_regions = d->bus->info.num_regions < ZNB_NUM_REGIONS ?
			   d->bus->info.num_regions : ZNB_NUM_REGIONS;
	info.num_irqs = ZNB_NUM_IRQS;
	memcpy(arg, &info, minsz);
	if (info.argsz >= sizeof(info))
		memset((uint8_t *)arg + offsetof(struct vfio_device_info, cap_offset), 0,
		       sizeof(info.cap_offset));
	return 0;
}

static long get_region_info(struct znb_dev *d, void *arg)
{
	struct vfio_region_info ri;
	size_t minsz = ZNB_OFFSETOFEND(struct vfio_region_info, offset);
	const struct zn_region_info *zi;
	struct {
		struct vfio_region_info_cap_sparse_mmap h;
		struct vfio_region_sparse_mmap_area a[ZN_BUS_MAX_SPARSE];
	} cap;
	size_t capsz = 0;

	memcpy(&ri, arg, minsz);
	if (ri.argsz < minsz)
		return -EINVAL;
	if (ri.index >= ZNB_NUM_REGIONS || ri.index >= d->bus->info.num_regions)
		return -EINVAL;
	zi = &d->region[ri.index];
	ri.offset = (uint64_t)ri.index << ZNB_REGION_SHIFT;
	ri.size = d->region_ok[ri.index] ? zi->size : 0;
	ri.flags = d->region_ok[ri.index] ? zi->flags & (VFIO_REGION_INFO_FLAG_READ |
			VFIO_REGION_INFO_FLAG_WRITE | VFIO_REGION_INFO_FLAG_MMAP) : 0;
	ri.cap_offset = 0;
	if ((ri.flags & VFIO_REGION_INFO_FLAG_MMAP) && zi->nr_sparse) {
		memset(&cap, 0, sizeof(cap));
		cap.h.header.id = VFIO_REGION_INFO_CAP_SPARSE_MMAP;
		cap.h.header.version = 1;
		cap.h.nr_areas = zi->nr_sparse;
		for (uint32_t i = 0; i < zi->nr_sparse; i++) {
			cap.a[i].offset = zi->sparse[i].offset;
			cap.a[i].size = zi->sparse[i].size;
		}
		capsz = sizeof(cap.h) + zi->nr_sparse * sizeof(cap.a[0]);
		ri.flags |= VFIO_REGION_INFO_FLAG_CAPS;
		if (ri.argsz < sizeof(ri) + capsz) {
			ri.argsz = (uint32_t)(sizeof(ri) + capsz);
		} else {
			memcpy((uint8_t *)arg + sizeof(ri), &cap, capsz);
			ri.cap_offset = sizeof(ri);
		}
	}
	memcpy(arg, &ri, minsz);
	return 0;
}

static long get_irq_info(struct znb_dev *d, void *arg)
{
	struct vfio_irq_info ii;
	size_t minsz = ZNB_OFFSETOFEND(struct vfio_irq_info, count);
	int rc;

	memcpy(&ii, arg, minsz);
	if (ii.argsz < minsz || ii.index >= ZNB_NUM_IRQS)
		return -EINVAL;
	rc = znb_irq_info(d, ii.index, &ii.flags, &ii.count);
	if (rc < 0)
		return rc;
	memcpy(arg, &ii, minsz);
	return 0;
}

long znb_device_ioctl(struct znb_dev *d, unsigned long req, void *arg)
{
	if (req == VFIO_DEVICE_RESET) {
		if (!(d->bus->info.flags & VFIO_DEVICE_FLAGS_RESET))
			return -EINVAL;
		return d->bus->ops->reset(d->bus);
	}
	if (!arg && (req == VFIO_DEVICE_GET_INFO || req == VFIO_DEVICE_GET_REGION_INFO ||
		     req == VFIO_DEVICE_GET_IRQ_INFO || req == VFIO_DEVICE_SET_IRQS))
		return -EFAULT;
	switch (req) {
	case VFIO_DEVICE_GET_INFO:
		return get_info(d, arg);
	case VFIO_DEVICE_GET_REGION_INFO:
		return get_region_info(d, arg);
	case VFIO_DEVICE_GET_IRQ_INFO:
		return get_irq_info(d, arg);
	case VFIO_DEVICE_SET_IRQS:
		return znb_irq_set(d, arg);
	case VFIO_DEVICE_GET_PCI_HOT_RESET_INFO:
	case VFIO_DEVICE_PCI_HOT_RESET:
		znb_warn_once(&said_hot_reset, "%s: PCI hot reset is not emulated (use "
			      "VFIO_DEVICE_RESET): ENOTTY", d->bdf);
		return -ENOTTY;
	}
	znb_warn_once(&said_ioctl, "%s: ioctl 0x%lx on a VFIO device is not emulated "
		      "(GET_INFO, GET_REGION_INFO, GET_IRQ_INFO, SET_IRQS and RESET are): ENOTTY",
		      d->bdf, req);
	return -ENOTTY;
}

/* Region index and offset of a device fd offset, and the bytes left in it. */
static int locate(struct znb_dev *d, uint64_t off, uint32_t *index, uint64_t *roff,
		  uint64_t *left)
{
	uint64_t i = off >> ZNB_REGION_SHIFT;

	if (i >= ZNB_NUM_REGIONS || !d->region_ok[i])
		return -EINVAL;
	*index = (uint32_t)i;
	*roff = off & REGION_MASK;
	if (*roff >= d->region[i].size)
		return -EINVAL;
	*left = d->region[i].size - *roff;
	return 0;
}

ssize_t znb_device_rw(struct znb_dev *d, void *buf, size_t len, uint64_t off, bool write)
{
	uint32_t index, need = write ? VFIO_REGION_INFO_FLAG_WRITE : VFIO_REGION_INFO_FLAG_READ;
	uint64_t roff, left;
	int rc;

	if (!len)
		return 0;
	rc = locate(d, off, &index, &roff, &left);
	if (rc < 0)
		return rc;
	if (!(d->region[index].flags & need))
		return -EINVAL;
	if (len > left)
		len = (size_t)left;
	rc = write ? d->bus->ops->region_write(d->bus, index, roff, buf, len)
		   : d->bus->ops->region_read(d->bus, index, roff, buf, len);
	return rc < 0 ? (rc == -ENOTCONN || rc == -EPIPE ? -EIO : rc) : (ssize_t)len;
}

/* [lo, hi) of the region clipped to mappable area i; false if they miss. */
static bool area_clip(const struct zn_region_info *ri, uint32_t i, uint64_t lo, uint64_t hi,
		      uint64_t *alo, uint64_t *ahi)
{
	uint64_t s = ri->nr_sparse ? ri->sparse[i].offset : 0;
	uint64_t e = ri->nr_sparse ? s + ri->sparse[i].size : (ri->size + PAGE - 1) & ~(PAGE - 1);

	*alo = lo > s ? lo : s;
	*ahi = hi < e ? hi : e;
	return *alo < *ahi;
}

void *znb_device_mmap(struct znb_dev *d, void *addr, size_t len, int prot, int flags,
		      uint64_t off, int *err)
{
	const struct zn_region_info *ri;
	uint32_t index;
	uint64_t roff, left, covered = 0, rfd_off;
	int rfd;
	uint8_t *base;

	*err = EINVAL;
	if (!len || (off & (PAGE - 1)) || locate(d, off, &index, &roff, &left) < 0)
		return MAP_FAILED;
	ri = &d->region[index];
	if (!(ri->flags & VFIO_REGION_INFO_FLAG_MMAP) ||
	    len > ((ri->size + PAGE - 1) & ~(PAGE - 1)) - roff)
		return MAP_FAILED;
	if (!(flags & MAP_SHARED)) {
		znb_warn_once(&said_private, "%s: a device region must be mapped MAP_SHARED, as "
			      "vfio-pci requires: EINVAL", d->bdf);
		return MAP_FAILED;
	}
	if (zn_vfuc_region_fd(d->bus, index, &rfd, &rfd_off) < 0)
		return MAP_FAILED;
	/* Reserve the range, then lay the mappable areas over it: a part the
	 * server traps (not in any area) faults instead of silently missing the
	 * device, since no kernel is there to turn the access into a message. */
	base = znb_real.mmap(addr, len, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (flags & MAP_FIXED),
			     -1, 0);
	if (base == MAP_FAILED) {
		*err = errno;
		return MAP_FAILED;
	}
	for (uint32_t i = 0; i < (ri->nr_sparse ? ri->nr_sparse : 1); i++) {
		uint64_t alo, ahi;

		if (!area_clip(ri, i, roff, roff + len, &alo, &ahi))
			continue;
		if (znb_real.mmap(base + (alo - roff), ahi - alo, prot, MAP_SHARED | MAP_FIXED, rfd,
				  (off_t)(rfd_off + alo)) == MAP_FAILED) {
			*err = errno;
			munmap(base, len);
			return MAP_FAILED;
		}
		covered += ahi - alo;
	}
	if (covered < len) {
		/* the inaccessible pages fault; mmio_trap.c turns that into
		 * the device access the kernel would have made */
		znb_trap_add(d, index, base, roff, len);
		znb_warn_once(&said_trapped, "%s: mmap of region %u [0x%llx, +0x%zx) covers "
			      "registers the device traps; accesses there are emulated "
			      "(one message per access, slow)", d->bdf, index,
			      (unsigned long long)roff, len);
	}
	return base;
}
