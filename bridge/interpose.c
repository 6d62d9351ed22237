/* SPDX-License-Identifier: MIT */
/*
 * The libc entry points libznvfio.so replaces. Each looks at its path or fd
 * first: a bridged one is served by the bridge, anything else goes to the
 * next definition (dlsym RTLD_NEXT: libc, or a sanitizer's interceptor)
 * with the same arguments. Without ZN_VFIO_DEVICES every call passes
 * straight through.
 *
 * glibc reaches the same system call under several names, all of which a
 * program may call: the *64 forms, the _FORTIFY_SOURCE checked forms
 * (__open_2, __pread_chk, ...), and the pre-2.33 stat entry points
 * (__xstat, ...), which programs built against older glibc still call.
 * glibc's internal calls (inside fopen, opendir, realpath) do not come
 * through here, so those are replaced as a whole.
 */
#undef _FORTIFY_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "bridge/bridge.h"

#define EXPORT __attribute__((visibility("default")))

struct znb_real znb_real;

static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		static const char msg[] = "libznvfio: a libc function is missing\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	return p;
}

/* The next definition of fn, resolved once. */
#define REAL(fn) ({							\
	static __typeof__(fn) *real_;					\
	__typeof__(fn) *r_ = __atomic_load_n(&real_, __ATOMIC_RELAXED);	\
	if (!r_) {							\
		r_ = (__typeof__(fn) *)next(#fn);			\
		__atomic_store_n(&real_, r_, __ATOMIC_RELAXED);		\
	}								\
	r_;								\
})

static int fail(long rc)
{
	errno = (int)-rc;
	return -1;
}

__attribute__((constructor)) static void znb_init(void)
{
	znb_real.mmap = REAL(mmap);
	znb_real.close = REAL(close);
	znb_config_init();
}

__attribute__((destructor)) static void znb_fini(void)
{
	znb_sysfs_cleanup();
}

/* ---- Paths ---- */

#define REDIRECT(path, how) \
	znb_redirect((path), (char[ZNB_PATH_MAX]){ 0 }, ZNB_PATH_MAX, (how))

static enum znb_lookup how_open(int flags)
{
	return (flags & O_DIRECTORY) ? ZNB_LIST : ZNB_LOOKUP;
}

/* /dev/vfio/vfio and bridged /dev/vfio/N become bridged fds: 1 and *fd. */
static int open_node(const char *path, int flags, int *fd)
{
	struct znb_group *g = NULL;
	int kind = znb_dev_node(path, &g);
	bool cloexec = flags & O_CLOEXEC;

	if (kind < 0)
		return 0;
	pthread_mutex_lock(&znb_lock);
	*fd = kind == 0 ? znb_container_open(cloexec) : znb_group_open(g, cloexec);
	pthread_mutex_unlock(&znb_lock);
	if (*fd < 0)
		*fd = fail(*fd);
	return 1;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

#define OPEN_BODY(fn, path, flags)					\
	do {								\
		va_list ap;						\
		mode_t mode;						\
		int fd;							\
									\
		va_start(ap, flags);					\
		mode = mode_arg(flags, ap);				\
		va_end(ap);						\
		if (open_node(path, flags, &fd))			\
			return fd;					\
		return REAL(fn)(REDIRECT(path, how_open(flags)), flags, mode); \
	} while (0)

#define OPENAT_BODY(fn, dirfd, path, flags)				\
	do {								\
		va_list ap;						\
		mode_t mode;						\
		int fd;							\
									\
		va_start(ap, flags);					\
		mode = mode_arg(flags, ap);				\
		va_end(ap);						\
		if (open_node(path, flags, &fd))			\
			return fd;					\
		return REAL(fn)(dirfd, REDIRECT(path, how_open(flags)), flags, mode); \
	} while (0)

EXPORT int open(const char *path, int flags, ...) { OPEN_BODY(open, path, flags); }
EXPORT int open64(const char *path, int flags, ...) { OPEN_BODY(open64, path, flags); }
EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	OPENAT_BODY(openat, dirfd, path, flags);
}
EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	OPENAT_BODY(openat64, dirfd, path, flags);
}

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

EXPORT int __open_2(const char *path, int flags)
{
	int fd;

	if (open_node(path, flags, &fd))
		return fd;
	return REAL(__open_2)(REDIRECT(path, how_open(flags)), flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	int fd;

	if (open_node(path, flags, &fd))
		return fd;
	return REAL(__open64_2)(REDIRECT(path, how_open(flags)), flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	int fd;

	if (open_node(path, flags, &fd))
		return fd;
	return REAL(__openat_2)(dirfd, REDIRECT(path, how_open(flags)), flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	int fd;

	if (open_node(path, flags, &fd))
		return fd;
	return REAL(__openat64_2)(dirfd, REDIRECT(path, how_open(flags)), flags);
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	return REAL(fopen)(REDIRECT(path, ZNB_LOOKUP), mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return REAL(fopen64)(REDIRECT(path, ZNB_LOOKUP), mode);
}

EXPORT DIR *opendir(const char *path)
{
	return REAL(opendir)(REDIRECT(path, ZNB_LIST));
}

EXPORT int scandir(const char *path, struct dirent ***list,
		   int (*filter)(const struct dirent *),
		   int (*compar)(const struct dirent **, const struct dirent **))
{
	return REAL(scandir)(REDIRECT(path, ZNB_LIST), list, filter, compar);
}

EXPORT int scandir64(const char *path, struct dirent64 ***list,
		     int (*filter)(const struct dirent64 *),
		     int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	return REAL(scandir64)(REDIRECT(path, ZNB_LIST), list, filter, compar);
}

/* ls -l asks for ACLs of what it lists. */
EXPORT ssize_t getxattr(const char *path, const char *name, void *value, size_t size)
{
	return REAL(getxattr)(REDIRECT(path, ZNB_LOOKUP), name, value, size);
}

EXPORT ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)
{
	return REAL(lgetxattr)(REDIRECT(path, ZNB_LOOKUP), name, value, size);
}

EXPORT ssize_t listxattr(const char *path, char *list, size_t size)
{
	return REAL(listxattr)(REDIRECT(path, ZNB_LOOKUP), list, size);
}

EXPORT ssize_t llistxattr(const char *path, char *list, size_t size)
{
	return REAL(llistxattr)(REDIRECT(path, ZNB_LOOKUP), list, size);
}

EXPORT int stat(const char *path, struct stat *st)
{
	return REAL(stat)(REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	return REAL(stat64)(REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	return REAL(lstat)(REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return REAL(lstat64)(REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return REAL(fstatat)(dirfd, REDIRECT(path, ZNB_LOOKUP), st, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return REAL(fstatat64)(dirfd, REDIRECT(path, ZNB_LOOKUP), st, flags);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *st)
{
	return REAL(statx)(dirfd, REDIRECT(path, ZNB_LOOKUP), flags, mask, st);
}

int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);

EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	return REAL(__xstat)(ver, REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	return REAL(__xstat64)(ver, REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	return REAL(__lxstat)(ver, REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	return REAL(__lxstat64)(ver, REDIRECT(path, ZNB_LOOKUP), st);
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	return REAL(__fxstatat)(ver, dirfd, REDIRECT(path, ZNB_LOOKUP), st, flags);
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	return REAL(__fxstatat64)(ver, dirfd, REDIRECT(path, ZNB_LOOKUP), st, flags);
}

EXPORT int access(const char *path, int mode)
{
	return REAL(access)(REDIRECT(path, ZNB_LOOKUP), mode);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	return REAL(faccessat)(dirfd, REDIRECT(path, ZNB_LOOKUP), mode, flags);
}

EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
	return REAL(readlink)(REDIRECT(path, ZNB_LOOKUP), buf, len);
}

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	return REAL(readlinkat)(dirfd, REDIRECT(path, ZNB_LOOKUP), buf, len);
}

ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen)
{
	return REAL(__readlink_chk)(REDIRECT(path, ZNB_LOOKUP), buf, len, buflen);
}

/* The answer names the path the program asked about, not the tree. */
EXPORT char *realpath(const char *path, char *resolved)
{
	char buf[ZNB_PATH_MAX];
	const char *p = znb_redirect(path, buf, sizeof(buf), ZNB_LOOKUP);
	char *r = REAL(realpath)(p, resolved);

	if (r && p != path)
		znb_unredirect(r, PATH_MAX);
	return r;
}

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);
EXPORT char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	char buf[ZNB_PATH_MAX];
	const char *p = znb_redirect(path, buf, sizeof(buf), ZNB_LOOKUP);
	char *r = REAL(__realpath_chk)(p, resolved, resolvedlen);

	if (r && p != path)
		znb_unredirect(r, resolvedlen);
	return r;
}

/* ---- Fds ---- */

EXPORT int close(int fd)
{
	if (znb_fd_is_ours(fd)) {
		pthread_mutex_lock(&znb_lock);
		znb_fd_forget(fd);
		pthread_mutex_unlock(&znb_lock);
	}
	return REAL(close)(fd);
}

static int dup_done(int oldfd, int newfd)
{
	if (newfd >= 0 && (znb_fd_is_ours(oldfd) || znb_fd_is_ours(newfd))) {
		pthread_mutex_lock(&znb_lock);
		znb_fd_dup(oldfd, newfd);
		pthread_mutex_unlock(&znb_lock);
	}
	return newfd;
}

EXPORT int dup(int fd)
{
	return dup_done(fd, REAL(dup)(fd));
}

EXPORT int dup2(int fd, int fd2)
{
	if (fd == fd2)
		return REAL(dup2)(fd, fd2);
	return dup_done(fd, REAL(dup2)(fd, fd2));
}

EXPORT int dup3(int fd, int fd2, int flags)
{
	return dup_done(fd, REAL(dup3)(fd, fd2, flags));
}

static int fcntl_done(int fd, int cmd, int rc)
{
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return dup_done(fd, rc);
	return rc;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_done(fd, cmd, REAL(fcntl)(fd, cmd, arg));
}

int fcntl64(int fd, int cmd, ...);
EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_done(fd, cmd, REAL(fcntl64)(fd, cmd, arg));
}

static long bridged_ioctl(int fd, unsigned long req, void *arg)
{
	struct znb_obj *o;
	long rc = -EBADF;

	pthread_mutex_lock(&znb_lock);
	o = znb_fd_get(fd);
	if (o && o->kind == ZNB_CONTAINER)
		rc = znb_container_ioctl(o->p, req, arg);
	else if (o && o->kind == ZNB_GROUP)
		rc = znb_group_ioctl(o->p, req, arg);
	else if (o && o->kind == ZNB_DEVICE)
		rc = znb_device_ioctl(o->p, req, arg);
	pthread_mutex_unlock(&znb_lock);
	return rc;
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	long rc;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!znb_fd_is_ours(fd))
		return REAL(ioctl)(fd, req, arg);
	rc = bridged_ioctl(fd, req, arg);
	return rc < 0 ? fail(rc) : (int)rc;
}

static void *bridged_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct znb_obj *o;
	void *p = MAP_FAILED;
	int err = ENODEV;

	pthread_mutex_lock(&znb_lock);
	o = znb_fd_get(fd);
	if (o && o->kind == ZNB_DEVICE)
		p = znb_device_mmap(o->p, addr, len, prot, flags, (uint64_t)off, &err);
	pthread_mutex_unlock(&znb_lock);
	if (p == MAP_FAILED)
		errno = err;
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if ((flags & MAP_ANONYMOUS) || !znb_fd_is_ours(fd))
		return REAL(mmap)(addr, len, prot, flags, fd, off);
	return bridged_mmap(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if ((flags & MAP_ANONYMOUS) || !znb_fd_is_ours(fd))
		return REAL(mmap64)(addr, len, prot, flags, fd, off);
	return bridged_mmap(addr, len, prot, flags, fd, off);
}

static ssize_t bridged_rw(int fd, void *buf, size_t len, off_t off, bool write)
{
	struct znb_obj *o;
	ssize_t rc = -EINVAL;

	if (off < 0)
		return fail(-EINVAL);
	pthread_mutex_lock(&znb_lock);
	o = znb_fd_get(fd);
	if (o && o->kind == ZNB_DEVICE)
		rc = znb_device_rw(o->p, buf, len, (uint64_t)off, write);
	pthread_mutex_unlock(&znb_lock);
	return rc < 0 ? fail(rc) : rc;
}

EXPORT ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	if (!znb_fd_is_ours(fd))
		return REAL(pread)(fd, buf, len, off);
	return bridged_rw(fd, buf, len, off, false);
}

EXPORT ssize_t pread64(int fd, void *buf, size_t len, off64_t off)
{
	if (!znb_fd_is_ours(fd))
		return REAL(pread64)(fd, buf, len, off);
	return bridged_rw(fd, buf, len, off, false);
}

ssize_t __pread_chk(int fd, void *buf, size_t len, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t len, off64_t off, size_t buflen);

EXPORT ssize_t __pread_chk(int fd, void *buf, size_t len, off_t off, size_t buflen)
{
	if (!znb_fd_is_ours(fd) || len > buflen)
		return REAL(__pread_chk)(fd, buf, len, off, buflen);
	return bridged_rw(fd, buf, len, off, false);
}

EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t len, off64_t off, size_t buflen)
{
	if (!znb_fd_is_ours(fd) || len > buflen)
		return REAL(__pread64_chk)(fd, buf, len, off, buflen);
	return bridged_rw(fd, buf, len, off, false);
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (!znb_fd_is_ours(fd))
		return REAL(pwrite)(fd, buf, len, off);
	return bridged_rw(fd, (void *)buf, len, off, true);
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	if (!znb_fd_is_ours(fd))
		return REAL(pwrite64)(fd, buf, len, off);
	return bridged_rw(fd, (void *)buf, len, off, true);
}
