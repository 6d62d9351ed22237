/* SPDX-License-Identifier: MIT */
/*
 * Kernel VFIO back end of core/bus: zn_vfio_open and the ops table.
 *
 * Before touching /dev/vfio it checks, in the order a user has to fix them:
 * the address names a PCI device, VFIO is loaded, the device has an IOMMU
 * group, the device is bound to vfio-pci. Each failure is one line saying
 * what to do. Then it takes one of two paths (vfio_priv.h):
 *
 *   iommufd/cdev  when /dev/iommu and the device's /dev/vfio/devices/vfioN
 *                 exist and either the caller prefers it or there is no
 *                 /dev/vfio/vfio (kernels built without the container);
 *   group/type1   otherwise; no-IOMMU groups only with opts->noiommu.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bus/vfio_priv.h"
#include "core/bus/vfio_sys.h"
#include "zcnic/log.h"

#define PATH_LEN 512
#define NAME_LEN 64
#define VFIO_DRIVER "vfio-pci"
#define BDF_CHARS "0123456789abcdefABCDEF:."

static void vfio_close(struct zn_bus_dev *d);

static int vfio_dma_map(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	return zn_vfio_dma_map(zn_vfio_dev(d)->dma, d->name, r);
}

static int vfio_dma_unmap(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	return zn_vfio_dma_unmap(zn_vfio_dev(d)->dma, d->name, r);
}

static const struct zn_bus_ops vfio_ops = {
	.name = "vfio",
	.get_device_info = zn_vfio_get_device_info,
	.get_region_info = zn_vfio_get_region_info,
	.map_region = zn_vfio_map_region,
	.unmap_region = zn_vfio_unmap_region,
	.region_read = zn_vfio_region_read,
	.region_write = zn_vfio_region_write,
	.get_irq_info = zn_vfio_get_irq_info,
	.set_irqs = zn_vfio_set_irqs,
	.dma_map = vfio_dma_map,
	.dma_unmap = vfio_dma_unmap,
	.reset = zn_vfio_reset,
	.close = vfio_close,
};

/* "0000:3b:00.0" or "3b:00.0" -> "0000:3b:00.0" (the form sysfs and the kernel use). */
static int normalize_bdf(const char *in, char *out, size_t len)
{
	unsigned dom = 0, bus, dev, fn;
	char tail;

	if (strspn(in, BDF_CHARS) != strlen(in))
		return -EINVAL;
	if (sscanf(in, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4) {
		dom = 0;
		if (sscanf(in, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
			return -EINVAL;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* The checks a user meets first, each with what to do about it. */
static int check_device(const char *bdf, char *group, size_t glen)
{
	char path[PATH_LEN], drv[NAME_LEN];
	int rc;

	zn_vfio_sysfs_path(path, sizeof(path), bdf, NULL);
	if (zn_vfio_sys->access(path, F_OK) < 0) {
		ZN_ERR(ZN_VFIO_LOG, "%s: no such PCI device (%s does not exist); list devices "
		       "with 'lspci -D'", bdf, path);
		return -ENODEV;
	}
	if (!zn_vfio_dev_exists("vfio/vfio") && !zn_vfio_dev_exists("vfio/devices")) {
		ZN_ERR(ZN_VFIO_LOG, "%s: %s/vfio/vfio does not exist: the VFIO module is not "
		       "loaded; load it with 'modprobe vfio-pci'", bdf, zn_vfio_dev_root());
		return -ENODEV;
	}
	if (zn_vfio_sysfs_link(bdf, "iommu_group", group, glen) < 0) {
		ZN_ERR(ZN_VFIO_LOG, "%s: the device has no IOMMU group: there is no IOMMU or "
		       "it is off; enable it (intel_iommu=on or amd_iommu=on on the kernel "
		       "command line, VT-d/AMD-Vi in firmware), or for unprotected DMA enable "
		       "vfio's no-IOMMU mode and pass --noiommu", bdf);
		return -ENODEV;
	}
	rc = zn_vfio_sysfs_link(bdf, "driver", drv, sizeof(drv));
	if (rc < 0) {
		ZN_ERR(ZN_VFIO_LOG, "%s: the device is bound to no driver; bind it to "
		       "vfio-pci with 'zn-devbind --bind %s'", bdf, bdf);
		return -ENODEV;
	}
	if (strcmp(drv, VFIO_DRIVER)) {
		ZN_ERR(ZN_VFIO_LOG, "%s: the device is bound to %s, not vfio-pci; bind it "
		       "with 'zn-devbind --bind %s'", bdf, drv, bdf);
		return -EBUSY;
	}
	return 0;
}

/* The cdev path needs /dev/iommu and the device's /dev/vfio/devices node. */
static bool cdev_usable(const char *bdf, const char *group, char *cdev, size_t len)
{
	char rel[PATH_LEN];

	if (!zn_vfio_dev_exists("iommu"))
		return false;
	snprintf(rel, sizeof(rel), "vfio/noiommu-%s", group);
	if (zn_vfio_dev_exists(rel))
		return false;	/* no-IOMMU stays on the group path */
	if (zn_vfio_sysfs_cdev(bdf, cdev, len) < 0)
		return false;
	snprintf(rel, sizeof(rel), "vfio/devices/%s", cdev);
	return zn_vfio_dev_exists(rel);
}

int zn_vfio_open(const char *bdf_in, const struct zn_bus_open_opts *opts,
		 struct zn_bus_dev **out)
{
	static const struct zn_bus_open_opts defaults;
	char bdf[NAME_LEN], group[NAME_LEN], cdev[NAME_LEN];
	struct zn_vfio_dev *v;
	bool use_cdev;
	int rc;

	if (!bdf_in || !out)
		return -EINVAL;
	if (!opts)
		opts = &defaults;
	if (normalize_bdf(bdf_in, bdf, sizeof(bdf)) < 0) {
		ZN_ERR(ZN_VFIO_LOG, "'%s' is not a PCI address (expected DDDD:BB:DD.F, "
		       "e.g. 0000:3b:00.0)", bdf_in);
		return -EINVAL;
	}
	rc = check_device(bdf, group, sizeof(group));
	if (rc < 0)
		return rc;
	use_cdev = cdev_usable(bdf, group, cdev, sizeof(cdev)) &&
		   (opts->prefer_iommufd || !zn_vfio_dev_exists("vfio/vfio"));

	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->bus.ops = &vfio_ops;
	v->bus.priv = v;
	snprintf(v->bus.name, sizeof(v->bus.name), "%s", bdf);
	v->fd = -1;

	if (use_cdev) {
		rc = zn_vfio_iommufd_open(bdf, cdev, &v->own, &v->fd);
		if (rc < 0)
			goto err_free;
		v->dma = &v->own;
	} else {
		rc = zn_vfio_group_get(bdf, group, opts->noiommu, &v->group);
		if (rc < 0)
			goto err_free;
		v->dma = zn_vfio_group_dma(v->group);
		rc = zn_vfio_group_device_fd(v->group, bdf);
		if (rc < 0)
			goto err_dma;
		v->fd = rc;
	}
	rc = zn_vfio_device_query(v);
	if (rc < 0)
		goto err_dev;
	ZN_DEBUG(ZN_VFIO_LOG, "%s: opened through %s (%u regions, %u irqs)", bdf,
		 use_cdev ? "iommufd" : "its VFIO group", v->bus.info.num_regions,
		 v->bus.info.num_irqs);
	*out = &v->bus;
	return 0;

err_dev:
	zn_vfio_sys->close(v->fd);
err_dma:
	if (v->group)
		zn_vfio_group_put(v->group);
	else
		zn_vfio_iommufd_close(&v->own);
err_free:
	free(v);
	return rc;
}

/* Reverse of open: mappings, device fd, then group/container or iommufd. */
static void vfio_close(struct zn_bus_dev *d)
{
	struct zn_vfio_dev *v = zn_vfio_dev(d);

	for (uint32_t i = 0; i < ZN_BUS_NUM_REGIONS_MAX; i++)
		if (v->map_va[i])
			zn_vfio_unmap_region(d, i);
	zn_vfio_sys->close(v->fd);
	if (v->group)
		zn_vfio_group_put(v->group);
	else
		zn_vfio_iommufd_close(&v->own);
	free(v);
}
