/* SPDX-License-Identifier: MIT */
/*
 * core/bus: a PCI device as drivers see it, whatever the transport.
 *
 * Two back ends sit behind one ops table, each call mapping onto a VFIO ioctl
 * or a vfio-user message:
 *   - kernel VFIO, for real NICs: the device string is a PCI address
 *     ("0000:3b:00.0");
 *   - vfio-user, for zn-nicsim or any vfio-user server: "vfio-user:PATH".
 *
 * Region indices follow VFIO: BARs 0-5, ROM 6, config space 7. IRQ indices:
 * INTx 0, MSI 1, MSI-X 2, ERR 3, REQ 4.
 */
#ifndef ZCNIC_BUS_H
#define ZCNIC_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcnic/mem.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

enum {
	ZN_BUS_BAR0 = 0,
	ZN_BUS_BAR5 = 5,
	ZN_BUS_ROM = 6,
	ZN_BUS_CONFIG = 7,
	ZN_BUS_NUM_REGIONS_MAX = 9,
};

enum {
	ZN_IRQ_INTX = 0,
	ZN_IRQ_MSI = 1,
	ZN_IRQ_MSIX = 2,
	ZN_IRQ_ERR = 3,
	ZN_IRQ_REQ = 4,
};

#define ZN_BUS_MAX_SPARSE 8

/* Region flags; values are VFIO's (VFIO_REGION_INFO_FLAG_*). */
enum {
	ZN_REGION_F_READ = 1u << 0,
	ZN_REGION_F_WRITE = 1u << 1,
	ZN_REGION_F_MMAP = 1u << 2,
};

struct zn_region_info {
	uint32_t index;
	uint32_t flags;
	uint64_t size;
	uint64_t offset;	/* back-end specific (device fd offset) */
	uint32_t nr_sparse;	/* 0 with F_MMAP: the whole region is mappable */
	struct {
		uint64_t offset;
		uint64_t size;
	} sparse[ZN_BUS_MAX_SPARSE];
};

struct zn_device_info {
	uint32_t flags;		/* VFIO_DEVICE_FLAGS_* */
	uint32_t num_regions;
	uint32_t num_irqs;
};

struct zn_irq_info {
	uint32_t index;
	uint32_t flags;		/* VFIO_IRQ_INFO_* */
	uint32_t count;
};

struct zn_bus_dev;

struct zn_bus_ops {
	const char *name;
	int (*get_device_info)(struct zn_bus_dev *d, struct zn_device_info *info);
	int (*get_region_info)(struct zn_bus_dev *d, uint32_t index,
			       struct zn_region_info *info);
	/*
	 * Map a region: *va covers the whole region; the mappable (sparse)
	 * parts are device memory, the rest is reserved PROT_NONE and must be
	 * reached with region_read/region_write.
	 */
	int (*map_region)(struct zn_bus_dev *d, uint32_t index, void **va);
	int (*unmap_region)(struct zn_bus_dev *d, uint32_t index);
	int (*region_read)(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			   void *buf, size_t len);
	int (*region_write)(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			    const void *buf, size_t len);
	int (*get_irq_info)(struct zn_bus_dev *d, uint32_t index,
			    struct zn_irq_info *info);
	/* count == 0 disables the index; fds[i] < 0 leaves vector start+i unset. */
	int (*set_irqs)(struct zn_bus_dev *d, uint32_t index, uint32_t start,
			uint32_t count, const int *fds);
	int (*dma_map)(struct zn_bus_dev *d, const struct zn_dma_region *r);
	int (*dma_unmap)(struct zn_bus_dev *d, const struct zn_dma_region *r);
	int (*reset)(struct zn_bus_dev *d);
	void (*close)(struct zn_bus_dev *d);
};

struct zn_bus_dev {
	const struct zn_bus_ops *ops;
	char name[128];			/* the device string it was opened with */
	struct zn_device_info info;
	/* Filled by zn_bus_map_bar: the mapping and the info it was made from. */
	void *region_va[ZN_BUS_NUM_REGIONS_MAX];
	struct zn_region_info region[ZN_BUS_NUM_REGIONS_MAX];
	void *priv;			/* back end state */
};

struct zn_bus_open_opts {
	bool noiommu;		/* kernel VFIO: allow no-IOMMU mode (unsafe) */
	bool prefer_iommufd;	/* kernel VFIO: try iommufd/cdev first */
	int timeout_ms;		/* vfio-user: per-reply wait; 0 = default */
};

/* Open by device string; opts may be NULL. */
int zn_bus_open(const char *spec, const struct zn_bus_open_opts *opts,
		struct zn_bus_dev **out);
void zn_bus_close(struct zn_bus_dev *d);

/* Config space helpers (region 7). */
int zn_bus_cfg_read(struct zn_bus_dev *d, uint32_t off, void *buf, size_t len);
int zn_bus_cfg_write(struct zn_bus_dev *d, uint32_t off, const void *buf, size_t len);
int zn_bus_cfg_read16(struct zn_bus_dev *d, uint32_t off, uint16_t *v);
int zn_bus_cfg_read32(struct zn_bus_dev *d, uint32_t off, uint32_t *v);
int zn_bus_cfg_write16(struct zn_bus_dev *d, uint32_t off, uint16_t v);
/* Set MEMORY and BUS_MASTER in the command register. */
int zn_bus_enable_bus_master(struct zn_bus_dev *d);

/* BAR mapping and register access (mapped where possible, else trapped). */
int zn_bus_map_bar(struct zn_bus_dev *d, uint32_t bar, void **va, uint64_t *size);
int zn_bus_read32(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint32_t *v);
int zn_bus_write32(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint32_t v);
int zn_bus_read64(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint64_t *v);
int zn_bus_write64(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint64_t v);

/* Thin wrappers over the ops, for symmetry. */
int zn_bus_dma_map(struct zn_bus_dev *d, const struct zn_dma_region *r);
int zn_bus_dma_unmap(struct zn_bus_dev *d, const struct zn_dma_region *r);
int zn_bus_set_irqs(struct zn_bus_dev *d, uint32_t index, uint32_t start,
		    uint32_t count, const int *fds);
int zn_bus_reset(struct zn_bus_dev *d);

/* Back ends (core/bus/vfio.c, core/bus/vfio_user.c). */
int zn_vfio_open(const char *bdf, const struct zn_bus_open_opts *opts,
		 struct zn_bus_dev **out);
int zn_vfio_user_open(const char *path, const struct zn_bus_open_opts *opts,
		      struct zn_bus_dev **out);

#pragma GCC visibility pop

#endif
