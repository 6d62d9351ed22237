/* SPDX-License-Identifier: MIT */
/*
 * The iommufd path (Linux >= 6.6): the device is opened through its own
 * character device and DMA goes through an IO address space (IOAS) of
 * /dev/iommu instead of a type1 container. Sequence
 * [torvalds/linux: include/uapi/linux/iommufd.h, include/uapi/linux/vfio.h;
 *  tools/testing/selftests/vfio/lib/iommu.c; DPDK/dpdk: lib/eal/linux/eal_vfio_cdev.c]:
 *
 *   iommufd = open /dev/iommu; IOMMU_IOAS_ALLOC -> ioas_id
 *   dev = open /dev/vfio/devices/vfioN
 *   VFIO_DEVICE_BIND_IOMMUFD(iommufd)       no device ioctl works before it
 *   VFIO_DEVICE_ATTACH_IOMMUFD_PT(ioas_id)
 *   IOMMU_IOAS_IOVA_RANGES (EMSGSIZE, then again with room) after the attach
 *   then IOMMU_IOAS_MAP/UNMAP with FIXED_IOVA, and the usual device ioctls.
 *
 * Closing the device fd detaches and unbinds; closing /dev/iommu destroys the
 * IOAS and its mappings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus/vfio_priv.h"
#include "core/bus/vfio_sys.h"
#include "core/bus/vfio_uapi_compat.h"
#include "zcnic/log.h"

#define PATH_LEN 512
/* More IOVA ranges than this is not a real IOMMU. */
#define MAX_IOVA_RANGES 4096u

static int open_node(const char *bdf, const char *rel, int *out)
{
	char path[PATH_LEN];
	int fd, err;

	zn_vfio_dev_path(path, sizeof(path), rel);
	fd = zn_vfio_sys->open(path, O_RDWR);
	if (fd >= 0) {
		*out = fd;
		return 0;
	}
	err = errno;
	if (err == EACCES) {
		ZN_ERR(ZN_VFIO_LOG, "%s: permission denied opening %s: run as root, or give "
		       "it to your user ('sudo chown $USER %s')", bdf, path, path);
		return -EACCES;
	}
	if (err == EBUSY) {
		ZN_ERR(ZN_VFIO_LOG, "%s: %s is busy: the device is open elsewhere (through its "
		       "group or another process)", bdf, path);
		return -EBUSY;
	}
	ZN_ERR(ZN_VFIO_LOG, "%s: cannot open %s: %s", bdf, path, strerror(err));
	return err == ENOENT ? -ENODEV : -err;
}

static int read_ranges(const char *bdf, struct zn_vfio_dma *dma)
{
	struct zn_iommu_ioas_iova_ranges q = {
		.size = sizeof(q),
		.ioas_id = dma->ioas_id,
	};
	struct zn_iommu_iova_range *r = NULL;
	int rc = 0;

	if (zn_vfio_sys->ioctl(dma->fd, ZN_IOMMU_IOAS_IOVA_RANGES, &q) < 0) {
		rc = -errno;
		if (rc != -EMSGSIZE)
			goto fail;
		if (!q.num_iovas || q.num_iovas > MAX_IOVA_RANGES) {
			rc = -EOVERFLOW;
			goto fail;
		}
		r = calloc(q.num_iovas, sizeof(*r));
		if (!r)
			return -ENOMEM;
		q.allowed_iovas = (uintptr_t)r;
		if (zn_vfio_sys->ioctl(dma->fd, ZN_IOMMU_IOAS_IOVA_RANGES, &q) < 0) {
			rc = -errno;
			goto fail;
		}
		rc = 0;
	}
	dma->align = q.out_iova_alignment ? q.out_iova_alignment : 1;
	if (q.num_iovas && r) {
		dma->ranges = calloc(q.num_iovas, sizeof(*dma->ranges));
		if (!dma->ranges) {
			rc = -ENOMEM;
			goto fail;
		}
		for (uint32_t i = 0; i < q.num_iovas; i++) {
			dma->ranges[i].start = r[i].start;
			dma->ranges[i].last = r[i].last;
		}
		dma->nr_ranges = q.num_iovas;
		dma->ranges_known = true;
	}
	free(r);
	return 0;
fail:
	free(r);
	ZN_ERR(ZN_VFIO_LOG, "%s: IOMMU_IOAS_IOVA_RANGES failed: %s", bdf, strerror(-rc));
	return rc;
}

int zn_vfio_iommufd_open(const char *bdf, const char *cdev, struct zn_vfio_dma *dma,
			 int *dev_fd)
{
	struct zn_iommu_ioas_alloc alloc = { .size = sizeof(alloc) };
	struct zn_vfio_device_bind_iommufd bind = { .argsz = sizeof(bind) };
	struct zn_vfio_device_attach_iommufd_pt attach = { .argsz = sizeof(attach) };
	char rel[PATH_LEN];
	int fd = -1, rc;

	memset(dma, 0, sizeof(*dma));
	dma->kind = ZN_VFIO_DMA_IOMMUFD;
	rc = open_node(bdf, "iommu", &dma->fd);
	if (rc < 0)
		return rc;
	if (zn_vfio_sys->ioctl(dma->fd, ZN_IOMMU_IOAS_ALLOC, &alloc) < 0) {
		rc = -errno;
		ZN_ERR(ZN_VFIO_LOG, "%s: IOMMU_IOAS_ALLOC failed: %s", bdf, strerror(-rc));
		goto err_iommufd;
	}
	dma->ioas_id = alloc.out_ioas_id;

	snprintf(rel, sizeof(rel), "vfio/devices/%s", cdev);
	rc = open_node(bdf, rel, &fd);
	if (rc < 0)
		goto err_iommufd;
	bind.iommufd = dma->fd;
	if (zn_vfio_sys->ioctl(fd, ZN_VFIO_DEVICE_BIND_IOMMUFD, &bind) < 0) {
		rc = -errno;
		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_DEVICE_BIND_IOMMUFD failed: %s%s", bdf,
		       strerror(-rc), rc == -EBUSY ? " (the device or its group is in use)" : "");
		goto err_dev;
	}
	attach.pt_id = dma->ioas_id;
	if (zn_vfio_sys->ioctl(fd, ZN_VFIO_DEVICE_ATTACH_IOMMUFD_PT, &attach) < 0) {
		rc = -errno;
		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_DEVICE_ATTACH_IOMMUFD_PT(ioas %u) failed: %s",
		       bdf, dma->ioas_id, strerror(-rc));
		goto err_dev;
	}
	rc = read_ranges(bdf, dma);
	if (rc < 0)
		goto err_dev;
	*dev_fd = fd;
	return 0;

err_dev:
	zn_vfio_sys->close(fd);
err_iommufd:
	zn_vfio_dma_release(dma);
	zn_vfio_sys->close(dma->fd);
	dma->fd = -1;
	return rc;
}

void zn_vfio_iommufd_close(struct zn_vfio_dma *dma)
{
	zn_vfio_dma_release(dma);
	if (dma->fd >= 0)
		zn_vfio_sys->close(dma->fd);
	dma->fd = -1;
}
