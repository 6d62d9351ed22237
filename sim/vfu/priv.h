/* SPDX-License-Identifier: MIT */
/* sim/vfu internals, shared by the files of the server library only. */
#ifndef ZN_SIM_VFU_PRIV_H
#define ZN_SIM_VFU_PRIV_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "sim/log.h"
#include "sim/vfu/vfu.h"

#define VFU_NAME_MAX		32
#define VFU_PATH_MAX		sizeof(((struct sockaddr_un *)0)->sun_path)
/* Page sizes we can mmap DMA windows at: anything 4 KiB-aligned. */
#define VFU_PGSIZES		(4096ull | (2ull << 20) | (1ull << 30))
#define VFU_MAX_DMA_MAPS	ZN_VFU_DEFAULT_MAX_DMA_MAPS
/* A client's max_msg_fds above this is refused, as libvfio-user does. */
#define VFU_CLIENT_MAX_FDS_LIMIT 1024

/* Single writer (the loop thread), readers anywhere: plain relaxed atomics. */
#define VFU_INC(c)  __atomic_store_n(&(c), __atomic_load_n(&(c), __ATOMIC_RELAXED) + 1, \
				     __ATOMIC_RELAXED)
#define VFU_ADD(c, n) __atomic_store_n(&(c), __atomic_load_n(&(c), __ATOMIC_RELAXED) + (n), \
				       __ATOMIC_RELAXED)

/* PCI config space: type-0 header offsets and bits (PCI Local Bus spec 3.0,
 * as in Linux include/uapi/linux/pci_regs.h). */
#define PCI_VENDOR_ID		0x00
#define PCI_DEVICE_ID		0x02
#define PCI_COMMAND		0x04
#define  PCI_COMMAND_IO		ZN_VFU_CMD_IO
#define  PCI_COMMAND_MEMORY	ZN_VFU_CMD_MEMORY
#define  PCI_COMMAND_MASTER	ZN_VFU_CMD_MASTER
#define  PCI_COMMAND_PARITY	0x0040
#define  PCI_COMMAND_SERR	0x0100
#define  PCI_COMMAND_INTX_DISABLE ZN_VFU_CMD_INTX_DISABLE
#define PCI_STATUS		0x06
#define  PCI_STATUS_INTERRUPT	0x0008
#define  PCI_STATUS_CAP_LIST	0x0010
#define  PCI_STATUS_REC_MASTER_ABORT 0x2000
#define  PCI_STATUS_W1C		0xf900	/* parity, aborts, SERR, detected parity */
#define PCI_REVISION_ID		0x08
#define PCI_CLASS_PROG		0x09
#define PCI_CACHE_LINE_SIZE	0x0c
#define PCI_LATENCY_TIMER	0x0d
#define PCI_HEADER_TYPE		0x0e
#define PCI_BASE_ADDRESS_0	0x10
#define  PCI_BASE_ADDRESS_SPACE_IO 0x01
#define  PCI_BASE_ADDRESS_MEM_TYPE_64 0x04
#define  PCI_BASE_ADDRESS_MEM_PREFETCH 0x08
#define PCI_SUBSYSTEM_VENDOR_ID	0x2c
#define PCI_SUBSYSTEM_ID	0x2e
#define PCI_CAPABILITY_LIST	0x34
#define PCI_INTERRUPT_LINE	0x3c
#define PCI_INTERRUPT_PIN	0x3d
#define PCI_CAP_ID_MSI		0x05
#define PCI_CAP_ID_MSIX		0x11
#define  PCI_MSI_FLAGS_ENABLE	0x0001
#define  PCI_MSI_FLAGS_64BIT	0x0080
#define  PCI_MSIX_FLAGS_MASKALL	0x4000
#define  PCI_MSIX_FLAGS_ENABLE	0x8000
#define PCI_MSI_CAP_OFF		0x40	/* where QEMU's edu has it */
#define PCI_MSI_CAP_SIZE	14	/* 64-bit address, no per-vector mask */
#define PCI_MSIX_CAP_SIZE	12
#define PCI_MSIX_ENTRY_SIZE	16
/* PCI Express Base Specification: capability 7.5.3, extended capabilities 7.6,
 * Device Serial Number 7.9.3 (offsets as in Linux pci_regs.h). */
#define PCI_CAP_ID_EXP		0x10
#define PCI_EXP_CAP_SIZE	0x3c	/* version 2, endpoint */
#define PCI_EXP_FLAGS		0x02	/* capabilities register: version, port type */
#define  PCI_EXP_FLAGS_V2	0x0002
#define  PCI_EXP_TYPE_ENDPOINT	0x0000	/* bits 7:4 */
#define PCI_EXP_DEVCAP		0x04
#define PCI_EXP_DEVCTL		0x08
#define PCI_EXP_DEVSTA		0x0a
#define PCI_EXP_LNKCAP		0x0c
#define PCI_EXP_LNKCTL		0x10
#define PCI_EXP_LNKSTA		0x12
#define PCI_EXP_DEVCTL2		0x28
#define PCI_EXP_LNKCAP2		0x2c
#define PCI_EXP_LNKCTL2		0x30
#define PCI_EXT_CAP_OFF		0x100
#define PCI_EXT_CAP_ID_DSN	0x0003
#define PCI_EXT_CAP_DSN_SIZE	12

/* An incoming message being assembled, then handled. */
struct vfu_req {
	struct zn_vfu_hdr hdr;
	uint8_t *data;		/* payload, hdr.msg_size - 16 bytes */
	uint32_t len;
	int *fds;		/* owned by the connection: a handler that keeps one sets it to -1 */
	unsigned nfds;
};

struct vfu_out {
	struct vfu_out *next;
	size_t len, sent;
	unsigned nfds;
	int fds[ZN_VFU_MAX_MSG_FDS];	/* the device's own fds: never closed here */
	uint8_t data[];
};

struct vfu_conn {
	bool active;
	bool closing;		/* stop reading, flush replies, then close */
	bool negotiated;
	int sock;		/* -1 in buffer mode */
	zn_vfu_reply_sink_fn sink;
	void *sink_arg;
	/* receive state: header, then body, or skipping an oversized body */
	uint8_t hdr[sizeof(struct zn_vfu_hdr)];
	size_t hdr_have;
	uint8_t *body;
	size_t body_cap, body_have, body_need;
	uint64_t skip;
	int fds[ZN_VFU_MAX_MSG_FDS];
	unsigned nfds;
	bool fds_truncated;
	/* replies not yet written to the socket */
	struct vfu_out *out_head, **out_tail;
	/* Stall clocks (zn_vfu_now_ns): since the accept (until VERSION), since
	 * the first byte of the message being assembled, since the replies last
	 * moved. The device is the client's alone, so none may run forever. */
	uint64_t t_open, t_rx, t_tx;
	/* the client's capabilities (VERSION), defaults until then */
	uint32_t client_max_fds;
	uint64_t client_max_xfer;
	uint64_t pgsizes;
	uint64_t max_dma_maps;
};

struct vfu_win {
	uint64_t iova, size, offset;
	uint32_t flags;
	void *va;		/* NULL: mapped without an fd */
};

struct vfu_irq {
	uint32_t count;
	uint32_t flags;		/* ZN_VFU_IRQ_INFO_* */
	int *efd;		/* count entries, -1 when unassigned */
};

struct zn_vfu_dev {
	char name[VFU_NAME_MAX + 1];
	char path[VFU_PATH_MAX];
	int listen_fd;
	bool realized;
	struct zn_vfu_dev_desc desc;
	/* config space and its write masks */
	uint8_t cfg[ZN_VFU_CFG_SIZE_PCIE];
	uint8_t cfg_reset[ZN_VFU_CFG_SIZE_PCIE];
	uint8_t cfg_wmask[ZN_VFU_CFG_SIZE_PCIE];
	uint8_t cfg_w1c[ZN_VFU_CFG_SIZE_PCIE];
	uint32_t cfg_size;		/* ZN_VFU_CFG_SIZE, or _PCIE with desc.pcie */
	uint8_t msi_cap, msix_cap, pcie_cap;	/* offsets, 0 if absent */
	/* memfd-backed BAR memory for mmap areas */
	int bar_fd[ZN_VFU_NUM_BARS];
	void *bar_va[ZN_VFU_NUM_BARS];
	/* MSI-X table and PBA storage */
	uint8_t *msix_table;
	uint8_t *msix_pba;
	uint32_t msix_pba_size;
	/* interrupts */
	struct vfu_irq irq[ZN_VFU_PCI_NUM_IRQS];
	bool intx_level, intx_masked;
	/* DMA windows, sorted by iova, disjoint */
	struct vfu_win *win;
	size_t nwin, capwin;
	struct vfu_conn conn;
	uint64_t handshake_ns, stall_ns;	/* zn_vfu_dev_set_timeouts */
	bool (*dma_gate)(void *ctx);		/* zn_vfu_dev_set_dma_gate */
	void *dma_gate_ctx;
	struct zn_vfu_stats stats;
	/* log limiters: refusals (client-driven), device-side faults */
	struct zn_sim_ratelimit rl_refuse, rl_fault;
};

/* conn.c */
int vfu_conn_open(struct zn_vfu_dev *dev, int sock);
void vfu_conn_close(struct zn_vfu_dev *dev, const char *why);
int vfu_sock_readable(struct zn_vfu_dev *dev);
int vfu_sock_writable(struct zn_vfu_dev *dev);
bool vfu_conn_want_read(const struct zn_vfu_dev *dev);
bool vfu_conn_want_write(const struct zn_vfu_dev *dev);
int vfu_conn_check_stall(struct zn_vfu_dev *dev, uint64_t now, uint64_t *deadline);
int vfu_conn_queue(struct zn_vfu_dev *dev, const void *msg, size_t len, const int *fds,
		   unsigned nfds);

/* dispatch.c */
void vfu_dispatch(struct zn_vfu_dev *dev, struct vfu_req *rq);
int vfu_reply(struct zn_vfu_dev *dev, const struct vfu_req *rq, const void *payload,
	      size_t len, const int *fds, unsigned nfds);
int vfu_refuse(struct zn_vfu_dev *dev, const struct vfu_req *rq, enum zn_vfu_err why,
	       int err, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void vfu_send_error(struct zn_vfu_dev *dev, const struct zn_vfu_hdr *hdr, int err);

/* version.c */
int vfu_handle_version(struct zn_vfu_dev *dev, struct vfu_req *rq);

/* dma.c */
int vfu_handle_dma_map(struct zn_vfu_dev *dev, struct vfu_req *rq);
int vfu_handle_dma_unmap(struct zn_vfu_dev *dev, struct vfu_req *rq);
void vfu_dma_unmap_all(struct zn_vfu_dev *dev);

/* irq.c */
int vfu_irq_init(struct zn_vfu_dev *dev);
void vfu_irq_fini(struct zn_vfu_dev *dev);
void vfu_irq_close_all(struct zn_vfu_dev *dev);
int vfu_handle_get_irq_info(struct zn_vfu_dev *dev, struct vfu_req *rq);
int vfu_handle_set_irqs(struct zn_vfu_dev *dev, struct vfu_req *rq);
void vfu_intx_reevaluate(struct zn_vfu_dev *dev, uint16_t old_cmd);

/* pci.c */
int vfu_pci_build(struct zn_vfu_dev *dev);
void vfu_pci_reset(struct zn_vfu_dev *dev);
void vfu_pci_read(struct zn_vfu_dev *dev, uint64_t off, void *buf, uint32_t count);
void vfu_pci_write(struct zn_vfu_dev *dev, uint64_t off, const void *buf, uint32_t count);
uint16_t vfu_pci_cmd(const struct zn_vfu_dev *dev);
void vfu_pci_set_status(struct zn_vfu_dev *dev, uint16_t bits, bool on);

/* region.c */
int vfu_regions_alloc(struct zn_vfu_dev *dev);
void vfu_regions_free(struct zn_vfu_dev *dev);
uint64_t vfu_region_size(const struct zn_vfu_dev *dev, unsigned index);
int vfu_handle_region_info(struct zn_vfu_dev *dev, struct vfu_req *rq);
int vfu_handle_region_rw(struct zn_vfu_dev *dev, struct vfu_req *rq);

/* dev.c */
void vfu_dev_reset(struct zn_vfu_dev *dev, enum zn_vfu_reset_why why);
int vfu_dev_accept(struct zn_vfu_dev *dev);

static inline uint16_t vfu_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t vfu_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void vfu_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void vfu_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#endif
