/* SPDX-License-Identifier: MIT */
/*
 * RDMA devices: names from rdma-core (ibv_get_device_list), everything else
 * from sysfs under zn_sysfs_root(), as zcnic/pci.h describes, so that tests
 * can run it against a fake tree and a stand-in rdma-core.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus/pci_sysfs.h"
#include "core/bus/rdma_lib.h"
#include "zcnic/log.h"
#include "zcnic/pci.h"

#define RDMA_LOG	"rdma"

/* The first entry of ROOT/class/infiniband/NAME/device/net by name. */
static void first_netdev(const char *name, char *buf, size_t len)
{
	char path[ZN_SYSFS_PATH_MAX];
	struct dirent *e;
	DIR *d;

	buf[0] = 0;
	if (zn_sysfs_path(path, sizeof(path), "class/infiniband/%s/device/net", name) < 0)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && (!buf[0] || strcmp(e->d_name, buf) < 0) &&
		    strlen(e->d_name) < len)
			strcpy(buf, e->d_name);
	closedir(d);
}

static uint16_t read_id(const char *name, const char *file)
{
	char path[ZN_SYSFS_PATH_MAX];
	long v;

	if (zn_sysfs_path(path, sizeof(path), "class/infiniband/%s/device/%s", name, file) < 0 ||
	    zn_sysfs_read_long(path, &v) < 0 || v < 0 || v > 0xffff)
		return 0;
	return (uint16_t)v;
}

int zn_rdma_dev_get(const char *name, struct zn_rdma_dev *out)
{
	char path[ZN_SYSFS_PATH_MAX], bdf[64];

	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= sizeof(out->name) || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (zn_sysfs_path(path, sizeof(path), "class/infiniband/%s", name) < 0)
		return -ENAMETOOLONG;
	if (!zn_sysfs_exists(path))
		return -ENODEV;
	strcpy(out->name, name);
	if (zn_sysfs_path(path, sizeof(path), "class/infiniband/%s/device", name) == 0 &&
	    zn_sysfs_link_name(path, bdf, sizeof(bdf)) == 0 &&
	    zn_pci_parse_bdf(bdf, out->pci) < 0)
		out->pci[0] = 0;	/* not a PCI function (a soft device such as rxe) */
	if (zn_sysfs_path(path, sizeof(path), "class/infiniband/%s/device/driver", name) == 0 &&
	    zn_sysfs_link_name(path, out->driver, sizeof(out->driver)) < 0)
		out->driver[0] = 0;
	first_netdev(name, out->netdev, sizeof(out->netdev));
	out->vendor = read_id(name, "vendor");
	out->device = read_id(name, "device");
	out->mlx5 = !strcmp(out->driver, "mlx5_core");
	return 0;
}

int zn_rdma_list(struct zn_rdma_dev **devs, size_t *n)
{
	const struct zn_rdma_lib *lib;
	struct ibv_device **list;
	struct zn_rdma_dev *v;
	char err[256];
	int num = 0;

	if (!devs || !n)
		return -EINVAL;
	*devs = NULL;
	*n = 0;
	lib = zn_rdma_lib(err, sizeof(err));
	if (!lib) {
		ZN_DEBUG(RDMA_LOG, "no RDMA device list: %s", err);
		return -ENOSYS;
	}
	list = lib->get_device_list(&num);
	if (!list || num <= 0) {	/* no device (or no uverbs support): none */
		if (list)
			lib->free_device_list(list);
		return 0;
	}
	v = calloc((size_t)num, sizeof(*v));
	if (!v) {
		lib->free_device_list(list);
		return -ENOMEM;
	}
	for (int i = 0; i < num; i++) {
		const char *name = lib->get_device_name(list[i]);

		if (!name || zn_rdma_dev_get(name, &v[*n]) < 0) {
			/* Listed but absent from this sysfs: its name alone. */
			memset(&v[*n], 0, sizeof(v[*n]));
			snprintf(v[*n].name, sizeof(v[*n].name), "%s", name ? name : "?");
		}
		if (lib->mlx5dv_is_supported(list[i]))
			v[*n].mlx5 = true;
		(*n)++;
	}
	lib->free_device_list(list);
	*devs = v;
	return 0;
}

void zn_rdma_free(struct zn_rdma_dev *devs)
{
	free(devs);
}
