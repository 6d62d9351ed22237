/* SPDX-License-Identifier: MIT */
/*
 * The system calls of the kernel VFIO back end, behind one table, so that
 * unit tests can put a fake kernel in their place (tests/unit/test_vfio.c).
 *
 * Every entry follows the libc convention: -1 (MAP_FAILED for mmap) with
 * errno set on failure. The table is process-wide and not locked: swap it
 * only while no VFIO device is open.
 *
 * Sysfs directories are listed with libc's opendir directly; tests point
 * ZN_SYSFS_ROOT at a real temporary tree instead of faking them.
 */
#ifndef ZN_VFIO_SYS_H
#define ZN_VFIO_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct zn_vfio_sys {
	int (*open)(const char *path, int flags);
	int (*close)(int fd);
	int (*ioctl)(int fd, unsigned long req, void *arg);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *addr, size_t len);
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, off_t off);
	ssize_t (*readlink)(const char *path, char *buf, size_t len);
	int (*getrlimit)(int resource, struct rlimit *rl);
	int (*access)(const char *path, int mode);
};

extern const struct zn_vfio_sys zn_vfio_sys_libc;
/* The table in use; defaults to &zn_vfio_sys_libc. */
extern const struct zn_vfio_sys *zn_vfio_sys;

/* Pass an integer argument (CHECK_EXTENSION, SET_IOMMU) through ioctl's void *. */
#define ZN_VFIO_IOCTL_INT(v) ((void *)(uintptr_t)(v))

/*
 * Roots of the trees the back end reads, from the environment on every call
 * so that tests and zn-devbind can point them at fake trees:
 * ZN_SYSFS_ROOT (default "/sys") and ZN_DEV_ROOT (default "/dev").
 */
const char *zn_vfio_sysfs_root(void);
const char *zn_vfio_dev_root(void);

#endif
