/* SPDX-License-Identifier: MIT */
/*
 * Bridged fds are real fds: an empty memfd per open stands in for the
 * kernel's anonymous inode, so that poll, close, dup, fcntl and exec's
 * O_CLOEXEC behave on them as on any fd, and a fd number is never shared
 * with something else while we hold it. The table maps the number to the
 * object (container, group, device); dups share the object, which goes
 * with its last fd, as a kernel file does.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"

struct znb_obj *znb_fdtab[ZNB_FDTAB_SIZE];

int znb_fd_new(struct znb_obj *obj, const char *name, bool cloexec)
{
	int fd = memfd_create(name, cloexec ? MFD_CLOEXEC : 0);

	if (fd < 0)
		return -errno;
	if (fd >= ZNB_FDTAB_SIZE) {
		znb_real.close(fd);
		zn_log(ZN_LOG_ERR, ZNB_LOG, "fd %d is past the %d fds the bridge tracks",
		       fd, ZNB_FDTAB_SIZE);
		return -EMFILE;
	}
	obj->fds = 1;
	__atomic_store_n(&znb_fdtab[fd], obj, __ATOMIC_RELEASE);
	return fd;
}

struct znb_obj *znb_fd_get(int fd)
{
	if (fd < 0 || fd >= ZNB_FDTAB_SIZE)
		return NULL;
	return __atomic_load_n(&znb_fdtab[fd], __ATOMIC_ACQUIRE);
}

static void release(struct znb_obj *obj)
{
	switch (obj->kind) {
	case ZNB_CONTAINER:
		znb_container_release(obj->p);
		break;
	case ZNB_GROUP:
		znb_group_release(obj->p);
		break;
	case ZNB_DEVICE:
		znb_device_release(obj->p);
		break;
	}
	free(obj);
}

void znb_fd_forget(int fd)
{
	struct znb_obj *obj;

	if (fd < 0 || fd >= ZNB_FDTAB_SIZE)
		return;
	obj = __atomic_exchange_n(&znb_fdtab[fd], NULL, __ATOMIC_ACQ_REL);
	if (obj && --obj->fds == 0)
		release(obj);
}

void znb_fd_dup(int oldfd, int newfd)
{
	struct znb_obj *obj = znb_fd_get(oldfd);

	if (newfd == oldfd || newfd < 0)
		return;
	znb_fd_forget(newfd);	/* dup2/dup3 closed what newfd was */
	if (!obj)
		return;
	if (newfd >= ZNB_FDTAB_SIZE) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "fd %d (a dup of bridged fd %d) is past the %d fds "
		       "the bridge tracks: it is a plain fd now", newfd, oldfd, ZNB_FDTAB_SIZE);
		return;
	}
	obj->fds++;
	__atomic_store_n(&znb_fdtab[newfd], obj, __ATOMIC_RELEASE);
}
