/* SPDX-License-Identifier: MIT */
/*
 * Transport-independent part of core/bus: dispatch by device string, config
 * space and register helpers over the back end's ops.
 */
#include <errno.h>
#include <string.h>

#include "zcnic/bus.h"
#include "zcnic/log.h"

#define PCI_COMMAND		0x04
#define PCI_COMMAND_MEMORY	0x2
#define PCI_COMMAND_MASTER	0x4
#define VFIO_USER_PREFIX	"vfio-user:"

int zn_bus_open(const char *spec, const struct zn_bus_open_opts *opts,
		struct zn_bus_dev **out)
{
	static const struct zn_bus_open_opts defaults;

	if (!spec || !*spec || !out)
		return -EINVAL;
	if (!opts)
		opts = &defaults;
	if (!strncmp(spec, VFIO_USER_PREFIX, strlen(VFIO_USER_PREFIX)))
		return zn_vfio_user_open(spec + strlen(VFIO_USER_PREFIX), opts, out);
	return zn_vfio_open(spec, opts, out);
}

void zn_bus_close(struct zn_bus_dev *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < ZN_BUS_NUM_REGIONS_MAX; i++)
		if (d->region_va[i])
			d->ops->unmap_region(d, i);
	d->ops->close(d);
}

int zn_bus_cfg_read(struct zn_bus_dev *d, uint32_t off, void *buf, size_t len)
{
	return d->ops->region_read(d, ZN_BUS_CONFIG, off, buf, len);
}

int zn_bus_cfg_write(struct zn_bus_dev *d, uint32_t off, const void *buf, size_t len)
{
	return d->ops->region_write(d, ZN_BUS_CONFIG, off, buf, len);
}

int zn_bus_cfg_read16(struct zn_bus_dev *d, uint32_t off, uint16_t *v)
{
	return zn_bus_cfg_read(d, off, v, sizeof(*v));
}

int zn_bus_cfg_read32(struct zn_bus_dev *d, uint32_t off, uint32_t *v)
{
	return zn_bus_cfg_read(d, off, v, sizeof(*v));
}

int zn_bus_cfg_write16(struct zn_bus_dev *d, uint32_t off, uint16_t v)
{
	return zn_bus_cfg_write(d, off, &v, sizeof(v));
}

int zn_bus_enable_bus_master(struct zn_bus_dev *d)
{
	uint16_t cmd;
	int rc = zn_bus_cfg_read16(d, PCI_COMMAND, &cmd);

	if (rc < 0)
		return rc;
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	rc = zn_bus_cfg_write16(d, PCI_COMMAND, cmd);
	if (rc < 0)
		return rc;
	/* Read back: a device that drops the bit cannot DMA, and says nothing. */
	rc = zn_bus_cfg_read16(d, PCI_COMMAND, &cmd);
	if (rc < 0)
		return rc;
	if ((cmd & (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER)) !=
	    (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER)) {
		ZN_ERR("bus", "%s: bus master enable did not stick (command=0x%04x)",
		       d->name, cmd);
		return -EIO;
	}
	return 0;
}

int zn_bus_map_bar(struct zn_bus_dev *d, uint32_t bar, void **va, uint64_t *size)
{
	struct zn_region_info info;
	int rc;

	if (bar > ZN_BUS_BAR5)
		return -EINVAL;
	if (d->region_va[bar])
		goto done;
	rc = d->ops->get_region_info(d, bar, &info);
	if (rc < 0)
		return rc;
	if (info.size == 0) {
		ZN_ERR("bus", "%s: BAR%u is not implemented", d->name, bar);
		return -ENODEV;
	}
	if (info.flags & ZN_REGION_F_MMAP) {
		rc = d->ops->map_region(d, bar, &d->region_va[bar]);
		if (rc < 0)
			return rc;
	}
	d->region[bar] = info;
done:
	if (va)
		*va = d->region_va[bar];
	if (size)
		*size = d->region[bar].size;
	return 0;
}

/* Is [off, off+len) inside a part of the region that is really mapped? */
static volatile void *mapped_ptr(struct zn_bus_dev *d, uint32_t bar, uint64_t off,
				 size_t len)
{
	const struct zn_region_info *ri = &d->region[bar];

	if (bar > ZN_BUS_BAR5 || !d->region_va[bar] || off + len > ri->size)
		return NULL;
	if (ri->nr_sparse == 0)
		return (volatile uint8_t *)d->region_va[bar] + off;
	for (uint32_t i = 0; i < ri->nr_sparse; i++)
		if (off >= ri->sparse[i].offset &&
		    off + len <= ri->sparse[i].offset + ri->sparse[i].size)
			return (volatile uint8_t *)d->region_va[bar] + off;
	return NULL;
}

int zn_bus_read32(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint32_t *v)
{
	volatile uint32_t *p = (volatile uint32_t *)mapped_ptr(d, bar, off, 4);

	if (off & 3)
		return -EINVAL;
	if (p) {
		*v = *p;
		return 0;
	}
	return d->ops->region_read(d, bar, off, v, 4);
}

int zn_bus_write32(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint32_t v)
{
	volatile uint32_t *p = (volatile uint32_t *)mapped_ptr(d, bar, off, 4);

	if (off & 3)
		return -EINVAL;
	if (p) {
		*p = v;
		return 0;
	}
	return d->ops->region_write(d, bar, off, &v, 4);
}

int zn_bus_read64(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint64_t *v)
{
	volatile uint64_t *p = (volatile uint64_t *)mapped_ptr(d, bar, off, 8);

	if (off & 7)
		return -EINVAL;
	if (p) {
		*v = *p;
		return 0;
	}
	return d->ops->region_read(d, bar, off, v, 8);
}

int zn_bus_write64(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint64_t v)
{
	volatile uint64_t *p = (volatile uint64_t *)mapped_ptr(d, bar, off, 8);

	if (off & 7)
		return -EINVAL;
	if (p) {
		*p = v;
		return 0;
	}
	return d->ops->region_write(d, bar, off, &v, 8);
}

int zn_bus_dma_map(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	return d->ops->dma_map(d, r);
}

int zn_bus_dma_unmap(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	return d->ops->dma_unmap(d, r);
}

int zn_bus_set_irqs(struct zn_bus_dev *d, uint32_t index, uint32_t start,
		    uint32_t count, const int *fds)
{
	return d->ops->set_irqs(d, index, start, count, fds);
}

int zn_bus_reset(struct zn_bus_dev *d)
{
	return d->ops->reset(d);
}
