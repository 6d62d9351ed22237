/* SPDX-License-Identifier: MIT */
/*
 * The legacy VFIO path: a container (/dev/vfio/vfio) holding the IOMMU
 * context and a group (/dev/vfio/N), the unit of ownership. The sequence is
 * the one in [torvalds/linux: Documentation/driver-api/vfio.rst] and
 * [DPDK/dpdk: lib/eal/linux/eal_vfio.c]:
 *
 *   container = open /dev/vfio/vfio; GET_API_VERSION == VFIO_API_VERSION
 *   CHECK_EXTENSION(TYPE1v2, else TYPE1; or NOIOMMU when allowed)
 *   group = open /dev/vfio/N; GROUP_GET_STATUS must say VIABLE
 *   GROUP_SET_CONTAINER(&container); SET_IOMMU(type)
 *   IOMMU_GET_INFO (two calls) -> page sizes, usable IOVA ranges
 *   GROUP_GET_DEVICE_FD("0000:BB:DD.F")
 *
 * A group can be open only once in the whole system, so the devices of one
 * group opened by this process share it (and its container) by reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/vfio.h>

#include "core/bus/vfio_priv.h"
#include "core/bus/vfio_sys.h"
#include "core/bus/vfio_uapi_compat.h"
#include "zcnic/log.h"

#define PATH_LEN 512
#define GROUP_NAME_LEN 32
#define BLOCKERS_TEXT 512
#define DEFAULT_IOMMU_PAGE 4096u

struct zn_vfio_group {
	char name[GROUP_NAME_LEN];	/* the IOMMU group number */
	int fd;
	bool noiommu;
	int refs;
	struct zn_vfio_dma dma;		/* dma.fd is the container */
	struct zn_vfio_group *next;
};

static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zn_vfio_group *groups;	/* under groups_lock */

struct zn_vfio_dma *zn_vfio_group_dma(struct zn_vfio_group *g)
{
	return &g->dma;
}

bool zn_vfio_group_noiommu(const struct zn_vfio_group *g)
{
	return g->noiommu;
}

static int container_open(const char *bdf, int *out)
{
	char path[PATH_LEN];
	int fd, ver, err;

	zn_vfio_dev_path(path, sizeof(path), "vfio/vfio");
	fd = zn_vfio_sys->open(path, O_RDWR);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT) {
			ZN_ERR(ZN_VFIO_LOG, "%s: %s does not exist: the VFIO module is not "
			       "loaded; load it with 'modprobe vfio-pci'", bdf, path);
			return -ENODEV;
		}
		ZN_ERR(ZN_VFIO_LOG, "%s: cannot open %s: %s", bdf, path, strerror(err));
		return -err;
	}
	ver = zn_vfio_sys->ioctl(fd, VFIO_GET_API_VERSION, NULL);
	if (ver != VFIO_API_VERSION) {
		ZN_ERR(ZN_VFIO_LOG, "%s: %s speaks VFIO API version %d, zcnic knows %d",
		       bdf, path, ver, VFIO_API_VERSION);
		zn_vfio_sys->close(fd);
		return -EPROTO;
	}
	*out = fd;
	return 0;
}

static bool has_extension(int fd, int ext)
{
	return zn_vfio_sys->ioctl(fd, VFIO_CHECK_EXTENSION, ZN_VFIO_IOCTL_INT(ext)) > 0;
}

static int pick_iommu_type(const char *bdf, int fd, bool noiommu, int *type)
{
	if (noiommu) {
		if (has_extension(fd, VFIO_NOIOMMU_IOMMU)) {
			*type = VFIO_NOIOMMU_IOMMU;
			return 0;
		}
		ZN_ERR(ZN_VFIO_LOG, "%s: the VFIO container does not offer no-IOMMU mode; "
		       "enable it with 'echo 1 > /sys/module/vfio/parameters/"
		       "enable_unsafe_noiommu_mode'", bdf);
		return -ENODEV;
	}
	/* v2 first: its unmap semantics are the strict ones (no splitting). */
	if (has_extension(fd, VFIO_TYPE1v2_IOMMU)) {
		*type = VFIO_TYPE1v2_IOMMU;
		return 0;
	}
	if (has_extension(fd, VFIO_TYPE1_IOMMU)) {
		*type = VFIO_TYPE1_IOMMU;
		return 0;
	}
	ZN_ERR(ZN_VFIO_LOG, "%s: the VFIO container offers no type1 IOMMU; load "
	       "vfio_iommu_type1 ('modprobe vfio_iommu_type1')", bdf);
	return -ENODEV;
}

static int group_file_open(const char *bdf, const char *rel, bool noiommu, int *out)
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
	switch (err) {
	case EACCES:
		ZN_ERR(ZN_VFIO_LOG, "%s: permission denied opening %s: run as root, or give "
		       "the group file to your user ('sudo chown $USER %s', or "
		       "'zn-devbind --bind %s --uid $USER')", bdf, path, path, bdf);
		return -EACCES;
	case EPERM:
		if (noiommu) {
			ZN_ERR(ZN_VFIO_LOG, "%s: opening the no-IOMMU group %s needs "
			       "CAP_SYS_RAWIO: run as root", bdf, path);
			return -EPERM;
		}
		break;
	case EBUSY:
		ZN_ERR(ZN_VFIO_LOG, "%s: %s is busy: another process has this IOMMU group "
		       "(or one of its devices through /dev/vfio/devices) open", bdf, path);
		return -EBUSY;
	case ENOENT:
		ZN_ERR(ZN_VFIO_LOG, "%s: %s does not exist: is the device bound to vfio-pci? "
		       "('zn-devbind --bind %s')", bdf, path, bdf);
		return -ENODEV;
	}
	ZN_ERR(ZN_VFIO_LOG, "%s: cannot open %s: %s", bdf, path, strerror(err));
	return -err;
}

static int check_viable(const char *bdf, struct zn_vfio_group *g, bool *container_set)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	char blockers[BLOCKERS_TEXT];

	if (zn_vfio_sys->ioctl(g->fd, VFIO_GROUP_GET_STATUS, &st) < 0) {
		int err = errno;

		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_GROUP_GET_STATUS on group %s failed: %s",
		       bdf, g->name, strerror(err));
		return -err;
	}
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		zn_vfio_sysfs_group_blockers(g->name, blockers, sizeof(blockers));
		ZN_ERR(ZN_VFIO_LOG, "%s: IOMMU group %s is not viable: every device in it must "
		       "be bound to vfio-pci or to no driver; still bound elsewhere: %s; "
		       "bind each with 'zn-devbind --bind BDF'",
		       bdf, g->name, blockers[0] ? blockers : "(could not list them)");
		return -EBUSY;
	}
	*container_set = st.flags & VFIO_GROUP_FLAGS_CONTAINER_SET;
	return 0;
}

/* IOMMU_GET_INFO: page sizes and, from the capability chain, the IOVA ranges. */
static int read_iommu_info(const char *bdf, struct zn_vfio_dma *dma)
{
	struct vfio_iommu_type1_info tmpl = { 0 }, info;
	struct vfio_iommu_type1_info_cap_iova_range cap;
	const uint8_t *c;
	void *buf;
	size_t len;
	int rc = zn_vfio_info_ioctl(dma->fd, VFIO_IOMMU_GET_INFO, &tmpl, sizeof(tmpl),
				    &buf, &len);

	if (rc < 0) {
		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_IOMMU_GET_INFO failed: %s", bdf, strerror(-rc));
		return rc;
	}
	memcpy(&info, buf, sizeof(info));
	dma->align = DEFAULT_IOMMU_PAGE;
	if ((info.flags & VFIO_IOMMU_INFO_PGSIZES) && info.iova_pgsizes)
		dma->align = info.iova_pgsizes & -info.iova_pgsizes;

	c = (info.flags & VFIO_IOMMU_INFO_CAPS) ?
		zn_vfio_find_cap(buf, len, info.cap_offset, sizeof(info),
				 VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE, sizeof(cap)) : NULL;
	if (c) {
		size_t off = (size_t)(c - (const uint8_t *)buf);

		memcpy(&cap, c, sizeof(cap));
		if (cap.nr_iovas && cap.nr_iovas <= (len - off - sizeof(cap)) /
						    sizeof(struct vfio_iova_range)) {
			dma->ranges = calloc(cap.nr_iovas, sizeof(*dma->ranges));
			if (!dma->ranges) {
				free(buf);
				return -ENOMEM;
			}
			for (uint32_t i = 0; i < cap.nr_iovas; i++) {
				struct vfio_iova_range r;

				memcpy(&r, c + sizeof(cap) + i * sizeof(r), sizeof(r));
				dma->ranges[i].start = r.start;
				dma->ranges[i].last = r.end;
			}
			dma->nr_ranges = cap.nr_iovas;
			dma->ranges_known = true;
		}
	}
	if (!dma->ranges_known)
		ZN_DEBUG(ZN_VFIO_LOG, "%s: the kernel reports no IOVA ranges; not checking", bdf);
	free(buf);
	return 0;
}

static int attach(const char *bdf, struct zn_vfio_group *g, int type)
{
	bool container_set = false;
	int rc = check_viable(bdf, g, &container_set);

	if (rc < 0)
		return rc;
	if (!container_set &&
	    zn_vfio_sys->ioctl(g->fd, VFIO_GROUP_SET_CONTAINER, &g->dma.fd) < 0) {
		rc = -errno;
		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_GROUP_SET_CONTAINER for group %s failed: %s%s",
		       bdf, g->name, strerror(-rc),
		       rc == -EPERM ? " (no-IOMMU groups need CAP_SYS_RAWIO)" : "");
		return rc;
	}
	if (zn_vfio_sys->ioctl(g->dma.fd, VFIO_SET_IOMMU, ZN_VFIO_IOCTL_INT(type)) < 0) {
		rc = -errno;
		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_SET_IOMMU(%d) failed: %s", bdf, type,
		       strerror(-rc));
		return rc;
	}
	if (type == VFIO_NOIOMMU_IOMMU) {
		g->dma.kind = ZN_VFIO_DMA_NOIOMMU;
		return 0;
	}
	g->dma.kind = ZN_VFIO_DMA_TYPE1;
	return read_iommu_info(bdf, &g->dma);
}

static int group_create(const char *bdf, const char *group, bool allow_noiommu,
			struct zn_vfio_group **out)
{
	char rel[GROUP_NAME_LEN + 32];
	struct zn_vfio_group *g;
	bool noiommu = false;
	int type, rc;

	snprintf(rel, sizeof(rel), "vfio/%s", group);
	if (!zn_vfio_dev_exists(rel)) {
		snprintf(rel, sizeof(rel), "vfio/noiommu-%s", group);
		if (zn_vfio_dev_exists(rel)) {
			if (!allow_noiommu) {
				ZN_ERR(ZN_VFIO_LOG, "%s: the device is in a no-IOMMU group (%s/%s): "
				       "its DMA would be unprotected; pass --noiommu to accept that",
				       bdf, zn_vfio_dev_root(), rel);
				return -EPERM;
			}
			noiommu = true;
		} else {
			snprintf(rel, sizeof(rel), "vfio/%s", group);
		}
	}

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	snprintf(g->name, sizeof(g->name), "%s", group);
	g->noiommu = noiommu;
	g->fd = -1;
	g->refs = 1;

	rc = container_open(bdf, &g->dma.fd);
	if (rc < 0)
		goto err_free;
	rc = pick_iommu_type(bdf, g->dma.fd, noiommu, &type);
	if (rc < 0)
		goto err_container;
	rc = group_file_open(bdf, rel, noiommu, &g->fd);
	if (rc < 0)
		goto err_container;
	rc = attach(bdf, g, type);
	if (rc < 0)
		goto err_group;
	if (noiommu)
		ZN_WARN(ZN_VFIO_LOG, "%s: NO-IOMMU MODE: DMA IS UNPROTECTED; the device can "
			"read and write any physical memory and must be given physical "
			"addresses", bdf);
	*out = g;
	return 0;

err_group:
	zn_vfio_dma_release(&g->dma);
	zn_vfio_sys->close(g->fd);
err_container:
	zn_vfio_sys->close(g->dma.fd);
err_free:
	free(g);
	return rc;
}

int zn_vfio_group_get(const char *bdf, const char *group, bool allow_noiommu,
		      struct zn_vfio_group **out)
{
	struct zn_vfio_group *g;
	int rc = 0;

	pthread_mutex_lock(&groups_lock);
	for (g = groups; g; g = g->next)
		if (!strcmp(g->name, group))
			break;
	if (g) {
		if (g->noiommu && !allow_noiommu) {
			ZN_ERR(ZN_VFIO_LOG, "%s: the device is in the no-IOMMU group %s: its DMA "
			       "would be unprotected; pass --noiommu to accept that", bdf, group);
			rc = -EPERM;
			goto out;
		}
		g->refs++;
		*out = g;
		goto out;
	}
	rc = group_create(bdf, group, allow_noiommu, &g);
	if (rc < 0)
		goto out;
	g->next = groups;
	groups = g;
	*out = g;
out:
	pthread_mutex_unlock(&groups_lock);
	return rc;
}

int zn_vfio_group_device_fd(struct zn_vfio_group *g, const char *bdf)
{
	int fd = zn_vfio_sys->ioctl(g->fd, VFIO_GROUP_GET_DEVICE_FD, (void *)bdf);

	if (fd < 0) {
		int err = errno;

		ZN_ERR(ZN_VFIO_LOG, "%s: VFIO_GROUP_GET_DEVICE_FD in group %s failed: %s%s",
		       bdf, g->name, strerror(err),
		       err == EBUSY ? " (the device is already open elsewhere)" : "");
		return -err;
	}
	return fd;
}

void zn_vfio_group_put(struct zn_vfio_group *g)
{
	struct zn_vfio_group **pp;

	pthread_mutex_lock(&groups_lock);
	if (--g->refs > 0) {
		pthread_mutex_unlock(&groups_lock);
		return;
	}
	for (pp = &groups; *pp; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	pthread_mutex_unlock(&groups_lock);
	/* Closing the container drops every DMA mapping and unpins the pages. */
	zn_vfio_dma_release(&g->dma);
	zn_vfio_sys->close(g->fd);
	zn_vfio_sys->close(g->dma.fd);
	free(g);
}
