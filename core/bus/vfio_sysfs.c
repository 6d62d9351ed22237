/* SPDX-License-Identifier: MIT */
/*
 * Sysfs and /dev look-ups of the kernel VFIO back end, rooted at
 * ZN_SYSFS_ROOT and ZN_DEV_ROOT so that tests and zn-devbind can use fake
 * trees. Layout [torvalds/linux: Documentation/driver-api/vfio.rst]:
 *   /sys/bus/pci/devices/BDF/iommu_group -> .../kernel/iommu_groups/N
 *   /sys/bus/pci/devices/BDF/driver      -> .../bus/pci/drivers/NAME
 *   /sys/bus/pci/devices/BDF/vfio-dev/vfioX   (cdev, Linux >= 6.6)
 *   /sys/kernel/iommu_groups/N/devices/BDF    (the group's members)
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/bus/vfio_priv.h"
#include "core/bus/vfio_sys.h"

#define PATH_LEN 512
#define VFIO_DRIVER "vfio-pci"

int zn_vfio_dev_path(char *buf, size_t len, const char *rel)
{
	int n = snprintf(buf, len, "%s/%s", zn_vfio_dev_root(), rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int zn_vfio_sysfs_path(char *buf, size_t len, const char *bdf, const char *rel)
{
	int n = snprintf(buf, len, "%s/bus/pci/devices/%s%s%s", zn_vfio_sysfs_root(),
			 bdf, rel ? "/" : "", rel ? rel : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool zn_vfio_dev_exists(const char *rel)
{
	char path[PATH_LEN];

	return !zn_vfio_dev_path(path, sizeof(path), rel) &&
	       zn_vfio_sys->access(path, F_OK) == 0;
}

static int link_basename(const char *path, char *buf, size_t len)
{
	char target[PATH_LEN];
	ssize_t n = zn_vfio_sys->readlink(path, target, sizeof(target) - 1);
	const char *base;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base || strlen(base) >= len)
		return -EINVAL;
	strcpy(buf, base);
	return 0;
}

int zn_vfio_sysfs_link(const char *bdf, const char *link, char *buf, size_t len)
{
	char path[PATH_LEN];
	int rc = zn_vfio_sysfs_path(path, sizeof(path), bdf, link);

	return rc < 0 ? rc : link_basename(path, buf, len);
}

int zn_vfio_sysfs_cdev(const char *bdf, char *buf, size_t len)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *dir;
	int rc = zn_vfio_sysfs_path(path, sizeof(path), bdf, "vfio-dev");

	if (rc < 0)
		return rc;
	dir = opendir(path);
	if (!dir)
		return -errno;
	rc = -ENOENT;
	while ((e = readdir(dir))) {
		if (strncmp(e->d_name, "vfio", 4) || strlen(e->d_name) >= len)
			continue;
		strcpy(buf, e->d_name);
		rc = 0;
		break;
	}
	closedir(dir);
	return rc;
}

void zn_vfio_sysfs_group_blockers(const char *group, char *buf, size_t len)
{
	char path[PATH_LEN];
	struct dirent *e;
	size_t used = 0;
	DIR *dir;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/kernel/iommu_groups/%s/devices",
		 zn_vfio_sysfs_root(), group);
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir)) && used < len) {
		char drv[64];
		int n;

		if (e->d_name[0] == '.')
			continue;
		if (zn_vfio_sysfs_link(e->d_name, "driver", drv, sizeof(drv)) < 0)
			continue;	/* no driver: does not block viability */
		if (!strcmp(drv, VFIO_DRIVER))
			continue;
		n = snprintf(buf + used, len - used, "%s%s (%s)", used ? ", " : "",
			     e->d_name, drv);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	closedir(dir);
}
