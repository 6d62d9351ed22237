/* SPDX-License-Identifier: MIT */
/*
 * Kernel uAPI pieces the VFIO back end needs that Debian 12's linux-libc-dev
 * (6.1) lacks: the VFIO cdev ioctls (Linux 6.6) and iommufd (Linux 6.2).
 *
 * Source: torvalds/linux include/uapi/linux/vfio.h (VFIO_DEVICE_BIND_IOMMUFD,
 * VFIO_DEVICE_ATTACH_IOMMUFD_PT) and include/uapi/linux/iommufd.h
 * (IOMMU_DESTROY, IOMMU_IOAS_ALLOC, IOMMU_IOAS_IOVA_RANGES, IOMMU_IOAS_MAP,
 * IOMMU_IOAS_UNMAP). Written from the public definitions, not copied.
 *
 * Every name carries a zn_/ZN_ prefix so that a newer <linux/vfio.h> or
 * <linux/iommufd.h> never clashes; when those headers are present, the
 * numbers and sizes are checked against them below.
 *
 * The structs are the first kernel versions' layouts. Later kernels appended
 * fields (bind: token_uuid_ptr; attach: pasid) that are optional by argsz, so
 * the short forms work on every kernel that has the ioctl.
 */
#ifndef ZN_VFIO_UAPI_COMPAT_H
#define ZN_VFIO_UAPI_COMPAT_H

#include <stddef.h>
#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/vfio.h>

/* ---- VFIO device cdev (/dev/vfio/devices/vfioN), Linux >= 6.6 ---- */

struct zn_vfio_device_bind_iommufd {
	__u32 argsz;
	__u32 flags;		/* 0 */
	__s32 iommufd;		/* -1: no-IOMMU */
	__u32 out_devid;
};

struct zn_vfio_device_attach_iommufd_pt {
	__u32 argsz;
	__u32 flags;		/* 0 */
	__u32 pt_id;		/* in: IOAS id; out: the page table attached */
};

#define ZN_VFIO_DEVICE_BIND_IOMMUFD		_IO(VFIO_TYPE, VFIO_BASE + 18)
#define ZN_VFIO_DEVICE_ATTACH_IOMMUFD_PT	_IO(VFIO_TYPE, VFIO_BASE + 19)
#define ZN_VFIO_DEVICE_DETACH_IOMMUFD_PT	_IO(VFIO_TYPE, VFIO_BASE + 20)

_Static_assert(sizeof(struct zn_vfio_device_bind_iommufd) == 16, "bind_iommufd");
_Static_assert(sizeof(struct zn_vfio_device_attach_iommufd_pt) == 12, "attach_pt");
_Static_assert(ZN_VFIO_DEVICE_BIND_IOMMUFD == 0x3b76, "BIND_IOMMUFD nr");
_Static_assert(ZN_VFIO_DEVICE_ATTACH_IOMMUFD_PT == 0x3b77, "ATTACH_IOMMUFD_PT nr");

#ifdef VFIO_DEVICE_BIND_IOMMUFD
_Static_assert(VFIO_DEVICE_BIND_IOMMUFD == ZN_VFIO_DEVICE_BIND_IOMMUFD, "bind nr");
_Static_assert(VFIO_DEVICE_ATTACH_IOMMUFD_PT == ZN_VFIO_DEVICE_ATTACH_IOMMUFD_PT, "attach nr");
_Static_assert(offsetof(struct vfio_device_bind_iommufd, out_devid) ==
	       offsetof(struct zn_vfio_device_bind_iommufd, out_devid), "bind layout");
_Static_assert(offsetof(struct vfio_device_attach_iommufd_pt, pt_id) ==
	       offsetof(struct zn_vfio_device_attach_iommufd_pt, pt_id), "attach layout");
#endif

/* ---- iommufd (/dev/iommu), Linux >= 6.2 ---- */

#define ZN_IOMMUFD_TYPE		';'
#define ZN_IOMMU_DESTROY	_IO(ZN_IOMMUFD_TYPE, 0x80)
#define ZN_IOMMU_IOAS_ALLOC	_IO(ZN_IOMMUFD_TYPE, 0x81)
#define ZN_IOMMU_IOAS_IOVA_RANGES _IO(ZN_IOMMUFD_TYPE, 0x84)
#define ZN_IOMMU_IOAS_MAP	_IO(ZN_IOMMUFD_TYPE, 0x85)
#define ZN_IOMMU_IOAS_UNMAP	_IO(ZN_IOMMUFD_TYPE, 0x86)

enum {
	ZN_IOMMU_IOAS_MAP_FIXED_IOVA = 1u << 0,
	ZN_IOMMU_IOAS_MAP_WRITEABLE = 1u << 1,
	ZN_IOMMU_IOAS_MAP_READABLE = 1u << 2,
};

struct zn_iommu_destroy {
	__u32 size;
	__u32 id;
};

struct zn_iommu_ioas_alloc {
	__u32 size;
	__u32 flags;		/* 0 */
	__u32 out_ioas_id;
};

struct zn_iommu_iova_range {
	__u64 start;
	__u64 last;		/* inclusive */
};

/* Too small an array: -EMSGSIZE with num_iovas set to what is needed. */
struct zn_iommu_ioas_iova_ranges {
	__u32 size;
	__u32 ioas_id;
	__u32 num_iovas;	/* in: array length; out: ranges that exist */
	__u32 reserved;
	__u64 allowed_iovas;	/* user pointer to zn_iommu_iova_range[] */
	__u64 out_iova_alignment;
};

struct zn_iommu_ioas_map {
	__u32 size;
	__u32 flags;
	__u32 ioas_id;
	__u32 reserved;
	__u64 user_va;
	__u64 length;
	__u64 iova;
};

struct zn_iommu_ioas_unmap {
	__u32 size;
	__u32 ioas_id;
	__u64 iova;
	__u64 length;		/* out: bytes unmapped */
};

_Static_assert(sizeof(struct zn_iommu_destroy) == 8, "iommu_destroy");
_Static_assert(sizeof(struct zn_iommu_ioas_alloc) == 12, "ioas_alloc");
_Static_assert(sizeof(struct zn_iommu_iova_range) == 16, "iova_range");
_Static_assert(sizeof(struct zn_iommu_ioas_iova_ranges) == 32, "ioas_iova_ranges");
_Static_assert(sizeof(struct zn_iommu_ioas_map) == 40, "ioas_map");
_Static_assert(sizeof(struct zn_iommu_ioas_unmap) == 24, "ioas_unmap");
_Static_assert(ZN_IOMMU_IOAS_MAP == 0x3b85, "IOAS_MAP nr");

#if defined(__has_include)
#if __has_include(<linux/iommufd.h>)
#include <linux/iommufd.h>
_Static_assert(IOMMU_IOAS_ALLOC == ZN_IOMMU_IOAS_ALLOC, "ioas_alloc nr");
_Static_assert(IOMMU_IOAS_IOVA_RANGES == ZN_IOMMU_IOAS_IOVA_RANGES, "iova_ranges nr");
_Static_assert(IOMMU_IOAS_MAP == ZN_IOMMU_IOAS_MAP, "ioas_map nr");
_Static_assert(IOMMU_IOAS_UNMAP == ZN_IOMMU_IOAS_UNMAP, "ioas_unmap nr");
_Static_assert(sizeof(struct iommu_ioas_map) == sizeof(struct zn_iommu_ioas_map), "map size");
_Static_assert(sizeof(struct iommu_ioas_unmap) == sizeof(struct zn_iommu_ioas_unmap), "unmap size");
_Static_assert(sizeof(struct iommu_ioas_iova_ranges) ==
	       sizeof(struct zn_iommu_ioas_iova_ranges), "iova_ranges size");
#endif
#endif

/* ---- Layouts of the 6.1 structs the back end relies on (x86-64) ---- */

_Static_assert(sizeof(struct vfio_info_cap_header) == 8, "cap header");
_Static_assert(sizeof(struct vfio_group_status) == 8, "group_status");
_Static_assert(sizeof(struct vfio_device_info) >= 20, "device_info");
_Static_assert(sizeof(struct vfio_region_info) == 32, "region_info");
_Static_assert(offsetof(struct vfio_region_info, offset) == 24, "region_info.offset");
_Static_assert(sizeof(struct vfio_region_info_cap_sparse_mmap) == 16, "sparse cap");
_Static_assert(sizeof(struct vfio_region_sparse_mmap_area) == 16, "sparse area");
_Static_assert(sizeof(struct vfio_irq_info) == 16, "irq_info");
_Static_assert(sizeof(struct vfio_irq_set) == 20, "irq_set");
_Static_assert(sizeof(struct vfio_iommu_type1_info) == 24, "type1_info");
_Static_assert(sizeof(struct vfio_iommu_type1_info_cap_iova_range) == 16, "iova cap");
_Static_assert(sizeof(struct vfio_iova_range) == 16, "vfio_iova_range");
_Static_assert(sizeof(struct vfio_iommu_type1_dma_map) == 32, "dma_map");
_Static_assert(sizeof(struct vfio_iommu_type1_dma_unmap) == 24, "dma_unmap");

#endif
