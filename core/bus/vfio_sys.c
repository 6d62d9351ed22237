/* SPDX-License-Identifier: MIT */
/* The libc system-call table of the kernel VFIO back end. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/bus/vfio_sys.h"

#define DEFAULT_SYSFS_ROOT "/sys"
#define DEFAULT_DEV_ROOT "/dev"

static int libc_open(const char *path, int flags)
{
	return open(path, flags | O_CLOEXEC);
}

static int libc_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg);
}

static int libc_getrlimit(int resource, struct rlimit *rl)
{
	return getrlimit((__rlimit_resource_t)resource, rl);
}

const struct zn_vfio_sys zn_vfio_sys_libc = {
	.open = libc_open,
	.close = close,
	.ioctl = libc_ioctl,
	.mmap = mmap,
	.munmap = munmap,
	.pread = pread,
	.pwrite = pwrite,
	.readlink = readlink,
	.getrlimit = libc_getrlimit,
	.access = access,
};

const struct zn_vfio_sys *zn_vfio_sys = &zn_vfio_sys_libc;

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

const char *zn_vfio_sysfs_root(void)
{
	return env_or("ZN_SYSFS_ROOT", DEFAULT_SYSFS_ROOT);
}

const char *zn_vfio_dev_root(void)
{
	return env_or("ZN_DEV_ROOT", DEFAULT_DEV_ROOT);
}
