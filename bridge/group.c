/* SPDX-License-Identifier: MIT */
/*
 * /dev/vfio/N: one bridged device per group, always viable (every device of
 * it is "bound to vfio-pci"). Rules as the kernel's
 * [torvalds/linux: drivers/vfio/group.c]: the group file opens once at a
 * time (EBUSY), SET_CONTAINER once (EINVAL), UNSET_CONTAINER not while a
 * device fd is open (EBUSY), GET_DEVICE_FD only with a container whose
 * IOMMU is set (EINVAL), by the device's name (ENODEV otherwise).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/vfio.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"

static bool said_ioctl;

int znb_group_open(struct znb_group *g, bool cloexec)
{
	struct znb_obj *o;
	int fd;

	if (g->open)
		return -EBUSY;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->kind = ZNB_GROUP;
	o->p = g;
	fd = znb_fd_new(o, "vfio-group", cloexec);
	if (fd < 0) {
		free(o);
		return fd;
	}
	g->open = true;
	return fd;
}

/* The group file closed: its container goes once no device needs it. */
void znb_group_release(struct znb_group *g)
{
	g->open = false;
	if (!g->dev_open && g->c)
		znb_container_detach(g->c, g);
}

static long get_status(struct znb_group *g, void *arg)
{
	struct vfio_group_status st;

	memcpy(&st, arg, sizeof(st));
	if (st.argsz < sizeof(st))
		return -EINVAL;
	st.flags = VFIO_GROUP_FLAGS_VIABLE | (g->c ? VFIO_GROUP_FLAGS_CONTAINER_SET : 0);
	memcpy(arg, &st, sizeof(st));
	return 0;
}

static long set_container(struct znb_group *g, const void *arg)
{
	struct znb_obj *o;
	int fd;

	memcpy(&fd, arg, sizeof(fd));
	if (g->c)
		return -EINVAL;
	o = znb_fd_get(fd);
	if (!o)
		return fd < 0 ? -EBADF : -EINVAL;
	if (o->kind != ZNB_CONTAINER)
		return -EINVAL;
	return znb_container_attach(o->p, g);
}

static long unset_container(struct znb_group *g)
{
	if (!g->c)
		return -EINVAL;
	if (g->dev_open)
		return -EBUSY;
	znb_container_detach(g->c, g);
	return 0;
}

long znb_group_ioctl(struct znb_group *g, unsigned long req, void *arg)
{
	if (req == VFIO_GROUP_UNSET_CONTAINER)
		return unset_container(g);
	if (!arg && (req == VFIO_GROUP_GET_STATUS || req == VFIO_GROUP_SET_CONTAINER ||
		     req == VFIO_GROUP_GET_DEVICE_FD))
		return -EFAULT;
	switch (req) {
	case VFIO_GROUP_GET_STATUS:
		return get_status(g, arg);
	case VFIO_GROUP_SET_CONTAINER:
		return set_container(g, arg);
	case VFIO_GROUP_GET_DEVICE_FD:
		if (!g->c || !znb_container_has_iommu(g->c))
			return -EINVAL;
		return znb_device_open(g, arg);
	}
	znb_warn_once(&said_ioctl, "ioctl 0x%lx on a VFIO group is not emulated (GET_STATUS, "
		      "SET_CONTAINER, UNSET_CONTAINER and GET_DEVICE_FD are): ENOTTY", req);
	return -ENOTTY;
}
