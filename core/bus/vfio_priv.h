/* SPDX-License-Identifier: MIT */
/*
 * Internals of the kernel VFIO back end (core/bus/vfio*.c).
 *
 *   vfio.c            zn_vfio_open: checks, path choice, the bus ops, close
 *   vfio_device.c     device fd: info, regions (sparse mmap), config, IRQs, reset
 *   vfio_container.c  /dev/vfio/vfio + /dev/vfio/GROUP, type1 and no-IOMMU
 *   vfio_iommufd.c    /dev/iommu + /dev/vfio/devices/vfioN (Linux >= 6.6)
 *   vfio_dma.c        DMA map/unmap over either, IOVA ranges, memlock advice
 *   vfio_sysfs.c      sysfs look-ups and paths under ZN_SYSFS_ROOT/ZN_DEV_ROOT
 *   vfio_info.c       the argsz two-call pattern and capability chains
 *   vfio_sys.c        the system-call table tests replace
 *
 * Objects and ownership: a device holds its device fd and a reference on
 * either a group (which owns the group fd and the type1 container, shared by
 * every device of the IOMMU group opened in this process) or its own iommufd
 * address space. Closing releases them in the reverse order of set-up.
 */
#ifndef ZN_VFIO_PRIV_H
#define ZN_VFIO_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcnic/bus.h"
#include "zcnic/mem.h"

#define ZN_VFIO_LOG "bus"

struct zn_vfio_iova_range {
	uint64_t start;
	uint64_t last;		/* inclusive */
};

enum zn_vfio_dma_kind {
	ZN_VFIO_DMA_TYPE1,	/* VFIO_IOMMU_MAP_DMA on a container */
	ZN_VFIO_DMA_IOMMUFD,	/* IOMMU_IOAS_MAP on an IOAS */
	ZN_VFIO_DMA_NOIOMMU,	/* no translation: nothing to map */
};

struct zn_vfio_mapping {
	uint64_t iova;
	uint64_t len;
	uint64_t va;
	uint32_t refs;		/* devices of a shared container mapping it */
};

/* One IOMMU address space: a type1 container or an iommufd IOAS. */
struct zn_vfio_dma {
	enum zn_vfio_dma_kind kind;
	int fd;			/* container or /dev/iommu; owned by the creator */
	uint32_t ioas_id;
	uint64_t align;		/* smallest IOMMU page: va, iova and len multiples */
	bool ranges_known;	/* false: the kernel did not say, do not check */
	uint32_t nr_ranges;
	struct zn_vfio_iova_range *ranges;
	uint32_t nr_maps;
	uint32_t cap_maps;
	struct zn_vfio_mapping *maps;
	uint64_t mapped;	/* bytes pinned through this address space */
};

/* vfio_dma.c */
int zn_vfio_dma_map(struct zn_vfio_dma *dma, const char *dev,
		    const struct zn_dma_region *r);
int zn_vfio_dma_unmap(struct zn_vfio_dma *dma, const char *dev,
		      const struct zn_dma_region *r);
/* Forget the mappings (the kernel drops them when the fd closes). */
void zn_vfio_dma_release(struct zn_vfio_dma *dma);
/* Bytes currently pinned by every address space of the process. */
uint64_t zn_vfio_dma_pinned_total(void);
void zn_vfio_dma_log_ranges(const struct zn_vfio_dma *dma, char *buf, size_t len);

/* vfio_container.c: the group path */
struct zn_vfio_group;
int zn_vfio_group_get(const char *bdf, const char *group, bool allow_noiommu,
		      struct zn_vfio_group **out);
int zn_vfio_group_device_fd(struct zn_vfio_group *g, const char *bdf);
struct zn_vfio_dma *zn_vfio_group_dma(struct zn_vfio_group *g);
bool zn_vfio_group_noiommu(const struct zn_vfio_group *g);
void zn_vfio_group_put(struct zn_vfio_group *g);

/* vfio_iommufd.c: the cdev path; fills *dma (fd = /dev/iommu) and *dev_fd */
int zn_vfio_iommufd_open(const char *bdf, const char *cdev, struct zn_vfio_dma *dma,
			 int *dev_fd);
void zn_vfio_iommufd_close(struct zn_vfio_dma *dma);

/* vfio_sysfs.c */
int zn_vfio_dev_path(char *buf, size_t len, const char *rel);
int zn_vfio_sysfs_path(char *buf, size_t len, const char *bdf, const char *rel);
bool zn_vfio_dev_exists(const char *rel);
/* Basename of the link /sys/bus/pci/devices/BDF/<link>; -ENOENT if none. */
int zn_vfio_sysfs_link(const char *bdf, const char *link, char *buf, size_t len);
/* Name of the VFIO cdev ("vfio3") under /sys/bus/pci/devices/BDF/vfio-dev. */
int zn_vfio_sysfs_cdev(const char *bdf, char *buf, size_t len);
/* "BDF (driver), ..." for the devices of a group not bound to vfio-pci. */
void zn_vfio_sysfs_group_blockers(const char *group, char *buf, size_t len);

/* vfio_info.c */
/*
 * Issue an INFO ioctl whose struct starts with argsz and may carry a
 * capability chain: once with the fixed part (tmpl, minsz bytes), then again
 * with the size the kernel asked for. *out is malloc'ed; *out_len its size.
 */
int zn_vfio_info_ioctl(int fd, unsigned long req, const void *tmpl, size_t minsz,
		       void **out, size_t *out_len);
/* Find capability id in the chain starting at first; NULL if absent or bad. */
const void *zn_vfio_find_cap(const void *buf, size_t len, uint32_t first,
			     size_t minoff, uint16_t id, size_t cap_minsz);

/* vfio_device.c */
struct zn_vfio_dev {
	struct zn_bus_dev bus;
	int fd;				/* device fd */
	struct zn_vfio_group *group;	/* group path; NULL on iommufd */
	struct zn_vfio_dma *dma;	/* the group's, or &own */
	struct zn_vfio_dma own;		/* iommufd path */
	bool region_known[ZN_BUS_NUM_REGIONS_MAX];
	struct zn_region_info region[ZN_BUS_NUM_REGIONS_MAX];
	void *map_va[ZN_BUS_NUM_REGIONS_MAX];
	size_t map_len[ZN_BUS_NUM_REGIONS_MAX];
};

static inline struct zn_vfio_dev *zn_vfio_dev(struct zn_bus_dev *d)
{
	return (struct zn_vfio_dev *)d->priv;
}

int zn_vfio_device_query(struct zn_vfio_dev *v);
int zn_vfio_get_device_info(struct zn_bus_dev *d, struct zn_device_info *info);
int zn_vfio_get_region_info(struct zn_bus_dev *d, uint32_t index,
			    struct zn_region_info *info);
int zn_vfio_map_region(struct zn_bus_dev *d, uint32_t index, void **va);
int zn_vfio_unmap_region(struct zn_bus_dev *d, uint32_t index);
int zn_vfio_region_read(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			void *buf, size_t len);
int zn_vfio_region_write(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			 const void *buf, size_t len);
int zn_vfio_get_irq_info(struct zn_bus_dev *d, uint32_t index, struct zn_irq_info *info);
int zn_vfio_set_irqs(struct zn_bus_dev *d, uint32_t index, uint32_t start,
		     uint32_t count, const int *fds);
int zn_vfio_reset(struct zn_bus_dev *d);

#endif
