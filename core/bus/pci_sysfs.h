/* SPDX-License-Identifier: MIT */
/*
 * Small sysfs file helpers shared by the PCI scan and bind code (private to
 * core/bus). Paths are absolute; callers build them under zn_sysfs_root().
 * Every function returns 0 or a negative errno.
 */
#ifndef ZCNIC_CORE_BUS_PCI_SYSFS_H
#define ZCNIC_CORE_BUS_PCI_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

#define ZN_SYSFS_PATH_MAX 512

/* snprintf of "ROOT/" + fmt into buf; -ENAMETOOLONG when it does not fit. */
int zn_sysfs_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The file's text with trailing white space removed. */
int zn_sysfs_read_str(const char *path, char *buf, size_t len);
/* A number in any C base ("0x14e4", "-1", "7"); -EINVAL when malformed. */
int zn_sysfs_read_long(const char *path, long *v);
/* Up to len bytes from the start of a binary file; returns bytes read. */
int zn_sysfs_read_bin(const char *path, void *buf, size_t len);
/* The last component of a symlink's target (driver, iommu_group). */
int zn_sysfs_link_name(const char *path, char *buf, size_t len);
/* One write(2) of exactly len bytes to an existing file. */
int zn_sysfs_write(const char *path, const char *data, size_t len);
bool zn_sysfs_is_dir(const char *path);
bool zn_sysfs_exists(const char *path);

#endif
