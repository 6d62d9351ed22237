/* SPDX-License-Identifier: MIT */
/*
 * The vfio-user wire protocol, as far as zcnic speaks it: shared by the
 * client (core/bus/vfio_user*.c) and the server library (sim/).
 *
 * Source: the vfio-user specification, QEMU docs/interop/vfio-user.rst
 * (sections "Header", "Commands" and one per command); the VFIO structures it
 * reuses are those of Linux include/uapi/linux/vfio.h. hw-docs/vfio-user.md
 * explains the subset in prose.
 *
 * Transport: AF_UNIX SOCK_STREAM, one connection per client/device; every
 * message is a 16-byte header followed by a command-specific payload; all
 * fields in host byte order; file descriptors travel as SCM_RIGHTS with the
 * first byte of the message they belong to. Every command is answered by a
 * reply with the same msg_id and command, unless it set NO_REPLY; an error
 * reply is the header alone, with the ERROR flag and an errno.
 *
 * argsz: in a request, the largest reply payload the sender can take (for
 * DMA_MAP and SET_IRQS, the size of the request structure itself); in a
 * reply, the size the full reply needs, which may exceed what was offered.
 */
#ifndef ZCNIC_VFIO_USER_H
#define ZCNIC_VFIO_USER_H

#include <stddef.h>
#include <stdint.h>

#define ZN_VFU_VERSION_MAJOR	0
#define ZN_VFU_VERSION_MINOR	2	/* libvfio-user's; QEMU proposes 0.0 */

/* Capability defaults when a peer's VERSION JSON leaves a key out. */
#define ZN_VFU_DEFAULT_MAX_MSG_FDS	1
#define ZN_VFU_DEFAULT_MAX_XFER		(1u << 20)
#define ZN_VFU_DEFAULT_MAX_DMA_MAPS	65535
#define ZN_VFU_DEFAULT_PGSIZES		4096

enum zn_vfu_command {
	ZN_VFU_VERSION = 1,
	ZN_VFU_DMA_MAP = 2,
	ZN_VFU_DMA_UNMAP = 3,
	ZN_VFU_DEVICE_GET_INFO = 4,
	ZN_VFU_DEVICE_GET_REGION_INFO = 5,
	ZN_VFU_DEVICE_GET_REGION_IO_FDS = 6,
	ZN_VFU_DEVICE_GET_IRQ_INFO = 7,
	ZN_VFU_DEVICE_SET_IRQS = 8,
	ZN_VFU_REGION_READ = 9,
	ZN_VFU_REGION_WRITE = 10,
	ZN_VFU_DMA_READ = 11,		/* server -> client */
	ZN_VFU_DMA_WRITE = 12,		/* server -> client */
	ZN_VFU_DEVICE_RESET = 13,
	/* 14 was DIRTY_PAGES, removed from the protocol */
	ZN_VFU_REGION_WRITE_MULTI = 15,
	ZN_VFU_DEVICE_FEATURE = 16,
	ZN_VFU_MIG_DATA_READ = 17,
	ZN_VFU_MIG_DATA_WRITE = 18,
	ZN_VFU_MAX_COMMAND,
};

/* Header flags: bits 0-3 are the type. */
#define ZN_VFU_F_TYPE_MASK	0xfu
#define ZN_VFU_F_TYPE_COMMAND	0x0u
#define ZN_VFU_F_TYPE_REPLY	0x1u
#define ZN_VFU_F_NO_REPLY	(1u << 4)
#define ZN_VFU_F_ERROR		(1u << 5)

struct zn_vfu_hdr {
	uint16_t msg_id;
	uint16_t cmd;
	uint32_t msg_size;	/* header included */
	uint32_t flags;
	uint32_t error_no;	/* errno, meaningful in a reply with F_ERROR */
} __attribute__((packed));
_Static_assert(sizeof(struct zn_vfu_hdr) == 16, "vfio-user header");
_Static_assert(offsetof(struct zn_vfu_hdr, msg_size) == 4, "msg_size");
_Static_assert(offsetof(struct zn_vfu_hdr, error_no) == 12, "error");

/* VERSION: followed by an optional NUL-terminated JSON object:
 * {"capabilities":{"max_msg_fds":N,"max_data_xfer_size":N,"pgsizes":N,
 *  "max_dma_maps":N, ...}}. A reply's capabilities are a subset of the
 * request's; its major equals the proposed one, its minor is <= it. */
struct zn_vfu_version {
	uint16_t major;
	uint16_t minor;
	char data[];
} __attribute__((packed));
_Static_assert(sizeof(struct zn_vfu_version) == 4, "version");

/* DMA_MAP / DMA_UNMAP flags */
#define ZN_VFU_DMA_F_READ	(1u << 0)
#define ZN_VFU_DMA_F_WRITE	(1u << 1)

/* DMA_MAP request (argsz = 32); 0 or 1 fd; no reply payload. A map that
 * overlaps an existing one fails with EEXIST. */
struct zn_vfu_dma_map {
	uint32_t argsz;
	uint32_t flags;
	uint64_t offset;	/* into the fd; 0 without one */
	uint64_t addr;		/* DMA address (IOVA) */
	uint64_t size;
};
_Static_assert(sizeof(struct zn_vfu_dma_map) == 32, "dma_map");
_Static_assert(offsetof(struct zn_vfu_dma_map, addr) == 16, "dma_map.addr");

/* DMA_UNMAP request and reply (the reply echoes the entry); must match a
 * previous map exactly, unless flags is F_ALL (Linux vfio.h
 * VFIO_DMA_UNMAP_FLAG_ALL) with address and size 0: every window. */
#define ZN_VFU_DMA_UNMAP_F_ALL	(1u << 1)
struct zn_vfu_dma_unmap {
	uint32_t argsz;
	uint32_t flags;
	uint64_t addr;
	uint64_t size;
};
_Static_assert(sizeof(struct zn_vfu_dma_unmap) == 24, "dma_unmap");

/* DEVICE_GET_INFO, request and reply; flags are VFIO_DEVICE_FLAGS_*. */
#define ZN_VFU_DEV_F_RESET	(1u << 0)
#define ZN_VFU_DEV_F_PCI	(1u << 1)
struct zn_vfu_device_info {
	uint32_t argsz;
	uint32_t flags;
	uint32_t num_regions;
	uint32_t num_irqs;
};
_Static_assert(sizeof(struct zn_vfu_device_info) == 16, "device_info");

/* DEVICE_GET_REGION_INFO = struct vfio_region_info; capabilities follow in
 * the reply at cap_offset (from the start of this struct), fd(s) with MMAP. */
#define ZN_VFU_REGION_F_READ	(1u << 0)
#define ZN_VFU_REGION_F_WRITE	(1u << 1)
#define ZN_VFU_REGION_F_MMAP	(1u << 2)
#define ZN_VFU_REGION_F_CAPS	(1u << 3)
struct zn_vfu_region_info {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t cap_offset;
	uint64_t size;
	uint64_t offset;	/* mmap offset in the fd; base for sparse areas */
};
_Static_assert(sizeof(struct zn_vfu_region_info) == 32, "region_info");
_Static_assert(offsetof(struct zn_vfu_region_info, size) == 16, "region_info.size");

/* struct vfio_info_cap_header; next is relative to the region info start. */
struct zn_vfu_cap_header {
	uint16_t id;
	uint16_t version;
	uint32_t next;
};
_Static_assert(sizeof(struct zn_vfu_cap_header) == 8, "cap_header");

#define ZN_VFU_REGION_CAP_SPARSE_MMAP	1	/* VFIO_REGION_INFO_CAP_SPARSE_MMAP */
#define ZN_VFU_REGION_CAP_SPARSE_MMAP_VERSION 1

struct zn_vfu_sparse_area {
	uint64_t offset;	/* added to region_info.offset for mmap() */
	uint64_t size;
};
_Static_assert(sizeof(struct zn_vfu_sparse_area) == 16, "sparse_area");

struct zn_vfu_cap_sparse_mmap {
	struct zn_vfu_cap_header header;
	uint32_t nr_areas;
	uint32_t reserved;
	struct zn_vfu_sparse_area areas[];
};
_Static_assert(sizeof(struct zn_vfu_cap_sparse_mmap) == 16, "cap_sparse_mmap");

/* DEVICE_GET_IRQ_INFO = struct vfio_irq_info */
#define ZN_VFU_IRQ_INFO_EVENTFD		(1u << 0)
#define ZN_VFU_IRQ_INFO_MASKABLE	(1u << 1)
#define ZN_VFU_IRQ_INFO_AUTOMASKED	(1u << 2)
#define ZN_VFU_IRQ_INFO_NORESIZE	(1u << 3)
struct zn_vfu_irq_info {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t count;
};
_Static_assert(sizeof(struct zn_vfu_irq_info) == 16, "irq_info");

/* DEVICE_SET_IRQS = struct vfio_irq_set; argsz = 20 + data (bools only:
 * eventfds travel as SCM_RIGHTS, never in data). DATA_EVENTFD with no fds
 * de-assigns; DATA_NONE with start = count = 0 disables the whole index. */
#define ZN_VFU_IRQ_SET_DATA_NONE	(1u << 0)
#define ZN_VFU_IRQ_SET_DATA_BOOL	(1u << 1)
#define ZN_VFU_IRQ_SET_DATA_EVENTFD	(1u << 2)
#define ZN_VFU_IRQ_SET_ACTION_MASK	(1u << 3)
#define ZN_VFU_IRQ_SET_ACTION_UNMASK	(1u << 4)
#define ZN_VFU_IRQ_SET_ACTION_TRIGGER	(1u << 5)
#define ZN_VFU_IRQ_SET_DATA_MASK	0x7u
#define ZN_VFU_IRQ_SET_ACTION_MASK_ALL	0x38u
struct zn_vfu_irq_set {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t start;
	uint32_t count;
	uint8_t data[];
} __attribute__((packed));
_Static_assert(sizeof(struct zn_vfu_irq_set) == 20, "irq_set");

/* REGION_READ request / REGION_WRITE reply: this alone. REGION_READ reply and
 * REGION_WRITE request: followed by count bytes of data. count must not
 * exceed the peer's max_data_xfer_size. */
struct zn_vfu_region_access {
	uint64_t offset;
	uint32_t region;
	uint32_t count;
	uint8_t data[];
};
_Static_assert(sizeof(struct zn_vfu_region_access) == 16, "region_access");

/* DMA_READ / DMA_WRITE (server -> client): zn-nicsim never sends them (it
 * maps DMA memory by fd); zcnic's client serves them from its DMA windows.
 * count is 64-bit in requests and, as libvfio-user has it, in replies. */
struct zn_vfu_dma_access {
	uint64_t addr;
	uint64_t count;
	uint8_t data[];
};
_Static_assert(sizeof(struct zn_vfu_dma_access) == 16, "dma_access");

/* VFIO region and IRQ indices of a PCI device (VFIO_PCI_*_INDEX). */
enum {
	ZN_VFU_PCI_BAR0_REGION = 0,
	ZN_VFU_PCI_BAR5_REGION = 5,
	ZN_VFU_PCI_ROM_REGION = 6,
	ZN_VFU_PCI_CONFIG_REGION = 7,
	ZN_VFU_PCI_VGA_REGION = 8,
	ZN_VFU_PCI_NUM_REGIONS = 9,
};
enum {
	ZN_VFU_PCI_INTX_IRQ = 0,
	ZN_VFU_PCI_MSI_IRQ = 1,
	ZN_VFU_PCI_MSIX_IRQ = 2,
	ZN_VFU_PCI_ERR_IRQ = 3,
	ZN_VFU_PCI_REQ_IRQ = 4,
	ZN_VFU_PCI_NUM_IRQS = 5,
};

/* Our own limits, advertised in VERSION. */
#define ZN_VFU_MAX_MSG_FDS	8
#define ZN_VFU_MAX_XFER		(1u << 20)
#define ZN_VFU_MAX_MSG_SIZE	(sizeof(struct zn_vfu_hdr) + sizeof(struct zn_vfu_region_access) + ZN_VFU_MAX_XFER)

#endif
