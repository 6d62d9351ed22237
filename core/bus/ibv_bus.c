/* SPDX-License-Identifier: MIT */
/* The "ibv:NAME" bus back end; ibv_bus.h says what it is and is not. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus/ibv_bus.h"
#include "zcnic/log.h"
#include "zcnic/pci.h"

#define IBV_LOG		"ibv"
#define CFG_SIZE	64	/* the standard header: IDs, the rest reads as 0 */

struct ibv_bus {
	struct zn_bus_dev dev;
	struct zn_rdma_dev rdma;
	uint8_t cfg[CFG_SIZE];
};

static struct ibv_bus *of(struct zn_bus_dev *d)
{
	return (struct ibv_bus *)d;
}

static int ibv_device_info(struct zn_bus_dev *d, struct zn_device_info *info)
{
	(void)d;
	*info = (struct zn_device_info){ .num_regions = ZN_BUS_CONFIG + 1 };
	return 0;
}

static int ibv_region_info(struct zn_bus_dev *d, uint32_t index, struct zn_region_info *info)
{
	(void)d;
	if (index != ZN_BUS_CONFIG)
		return -ENODEV;	/* the BARs are the kernel driver's */
	*info = (struct zn_region_info){ .index = index, .flags = ZN_REGION_F_READ,
					 .size = CFG_SIZE };
	return 0;
}

static int ibv_map_region(struct zn_bus_dev *d, uint32_t index, void **va)
{
	(void)index;
	(void)va;
	ZN_ERR(IBV_LOG, "%s: no BAR is mapped through rdma-core; the kernel driver owns them",
	       d->name);
	return -ENODEV;
}

static int ibv_unmap_region(struct zn_bus_dev *d, uint32_t index)
{
	(void)d;
	(void)index;
	return 0;
}

static int ibv_region_read(struct zn_bus_dev *d, uint32_t index, uint64_t off, void *buf,
			   size_t len)
{
	if (index != ZN_BUS_CONFIG || off > CFG_SIZE || len > CFG_SIZE - off)
		return -ENODEV;
	memcpy(buf, of(d)->cfg + off, len);
	return 0;
}

/* Config writes (bus master, ...) are the kernel driver's: accepted, ignored. */
static int ibv_region_write(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			    const void *buf, size_t len)
{
	(void)d;
	(void)buf;
	return index == ZN_BUS_CONFIG && off <= CFG_SIZE && len <= CFG_SIZE - off ? 0 : -ENODEV;
}

static int ibv_irq_info(struct zn_bus_dev *d, uint32_t index, struct zn_irq_info *info)
{
	(void)d;
	*info = (struct zn_irq_info){ .index = index };
	return 0;
}

static int ibv_set_irqs(struct zn_bus_dev *d, uint32_t index, uint32_t start, uint32_t count,
			const int *fds)
{
	(void)d;
	(void)index;
	(void)start;
	(void)fds;
	return count ? -ENOTSUP : 0;
}

/* IOVA = VA: the DevX driver names memory by umem or memory region. */
static int ibv_dma_map(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	if (r->iova != (uint64_t)(uintptr_t)r->va) {
		ZN_ERR(IBV_LOG, "%s: region %s has IOVA 0x%llx != its address; rdma-core "
		       "devices use virtual addresses", d->name, r->name,
		       (unsigned long long)r->iova);
		return -EINVAL;
	}
	return 0;
}

static int ibv_dma_unmap(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	(void)d;
	(void)r;
	return 0;
}

static int ibv_reset(struct zn_bus_dev *d)
{
	(void)d;
	return -ENOTSUP;
}

static void ibv_close(struct zn_bus_dev *d)
{
	free(of(d));
}

static const struct zn_bus_ops ibv_ops = {
	.name = "ibv",
	.get_device_info = ibv_device_info,
	.get_region_info = ibv_region_info,
	.map_region = ibv_map_region,
	.unmap_region = ibv_unmap_region,
	.region_read = ibv_region_read,
	.region_write = ibv_region_write,
	.get_irq_info = ibv_irq_info,
	.set_irqs = ibv_set_irqs,
	.dma_map = ibv_dma_map,
	.dma_unmap = ibv_dma_unmap,
	.reset = ibv_reset,
	.close = ibv_close,
};

int zn_ibv_bus_open(const char *name, struct zn_bus_dev **out)
{
	struct zn_rdma_dev rd;
	struct ibv_bus *b;
	int rc;

	rc = zn_rdma_dev_get(name, &rd);
	if (rc == -ENODEV) {
		ZN_ERR(IBV_LOG, "ibv:%s: no such RDMA device (nothing at %s/class/infiniband/%s; "
		       "zn-devbind --status lists them)", name, zn_sysfs_root(), name);
		return rc;
	}
	if (rc < 0) {
		ZN_ERR(IBV_LOG, "ibv:%s: not an RDMA device name", name);
		return rc;
	}
	if (!rd.mlx5) {
		ZN_ERR(IBV_LOG, "ibv:%s: not an mlx5 device (its driver is %s); zcnic drives "
		       "only ConnectX through rdma-core DevX", name,
		       rd.driver[0] ? rd.driver : "unknown");
		return -ENODEV;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->rdma = rd;
	b->dev.ops = &ibv_ops;
	snprintf(b->dev.name, sizeof(b->dev.name), ZN_IBV_PREFIX "%s", name);
	b->dev.info = (struct zn_device_info){ .num_regions = ZN_BUS_CONFIG + 1 };
	memcpy(b->cfg, &rd.vendor, 2);	/* little-endian, as config space is */
	memcpy(b->cfg + 2, &rd.device, 2);
	*out = &b->dev;
	return 0;
}

const char *zn_bus_ibv_name(const struct zn_bus_dev *d)
{
	return d && d->ops == &ibv_ops ? ((const struct ibv_bus *)d)->rdma.name : NULL;
}
