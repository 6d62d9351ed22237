/* SPDX-License-Identifier: MIT */
/* Small sysfs file helpers for core/bus PCI code; see pci_sysfs.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bus/pci_sysfs.h"
#include "zcnic/pci.h"

/* Here, not in pci_scan.c, so that users of the root do not pull in libpci. */
const char *zn_sysfs_root(void)
{
	const char *r = getenv(ZN_SYSFS_ROOT_ENV);

	return r && *r ? r : ZN_SYSFS_ROOT_DEFAULT;
}

int zn_sysfs_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int root_len, n;

	root_len = snprintf(buf, len, "%s/", zn_sysfs_root());
	if (root_len < 0 || (size_t)root_len >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	n = vsnprintf(buf + root_len, len - (size_t)root_len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - (size_t)root_len)
		return -ENAMETOOLONG;
	return 0;
}

int zn_sysfs_read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, rc = 0;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		rc = -errno;
		n = 0;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return rc;
}

int zn_sysfs_read_long(const char *path, long *v)
{
	char buf[64], *end;
	long val;
	int rc = zn_sysfs_read_str(path, buf, sizeof(buf));

	if (rc < 0)
		return rc;
	errno = 0;
	val = strtol(buf, &end, 0);
	if (errno || end == buf || *end != '\0')
		return -EINVAL;
	*v = val;
	return 0;
}

int zn_sysfs_read_bin(const char *path, void *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, 0);
	if (n < 0)
		n = -errno;
	close(fd);
	return (int)n;
}

int zn_sysfs_link_name(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, base);
	return 0;
}

int zn_sysfs_write(const char *path, const char *data, size_t len)
{
	ssize_t n;
	int fd, rc = 0;

	/*
	 * No O_CREAT: a missing attribute is an error, never a new file.
	 * O_APPEND: sysfs attributes ignore the file position, and on a fake
	 * tree of plain files every write is kept for the test to inspect.
	 */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

bool zn_sysfs_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool zn_sysfs_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}
