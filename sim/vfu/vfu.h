/* SPDX-License-Identifier: MIT */
/*
 * sim/vfu: a vfio-user server for zn-nicsim's device models.
 *
 * One zn_vfu_dev is one emulated PCI function on one UNIX socket. A model
 * describes its device once (IDs, BARs, interrupts) and gets back:
 *   - trapped BAR ranges, served through its bar_access callback;
 *   - mmap-able BAR areas (doorbell pages), memfd-backed and shared with the
 *     client, which the model polls (zn_vfu_bar_mem);
 *   - PCI config space (type-0 header, MSI and MSI-X capabilities, BAR sizing,
 *     COMMAND.MEMORY / BUS_MASTER honoured), emulated here;
 *   - the MSI-X table and PBA, emulated here;
 *   - DMA into client memory shared by DMA_MAP (zn_vfu_dma_*), refused unless
 *     bus mastering is on and the range lies in one mapped window;
 *   - interrupts as writes to the client's eventfds (zn_vfu_irq_*).
 *
 * Protocol: include/zcnic/vfio_user.h; behaviour: hw-docs/vfio-user.md.
 *
 * Threading: none. A zn_vfu_loop runs sockets and model polls in one thread,
 * so a model needs no locks; every callback runs on that thread. The stats
 * counters have one writer (that thread) and may be read from any thread.
 */
#ifndef ZN_SIM_VFU_H
#define ZN_SIM_VFU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zcnic/vfio_user.h"

struct zn_vfu_dev;
struct zn_vfu_loop;

/* ---- Device description ------------------------------------------------ */

#define ZN_VFU_NUM_BARS		6
#define ZN_VFU_MAX_AREAS	4
#define ZN_VFU_PAGE_SIZE	4096u
#define ZN_VFU_CFG_SIZE		256u	/* conventional PCI config space */
#define ZN_VFU_CFG_SIZE_PCIE	4096u	/* PCI Express: with extended capabilities */

enum zn_vfu_bar_type {
	ZN_VFU_BAR_MEM32 = 0,
	ZN_VFU_BAR_MEM64,	/* takes this BAR and the next one */
	ZN_VFU_BAR_IO,
};

struct zn_vfu_area {
	uint64_t offset;	/* page-aligned, within the BAR */
	uint64_t size;		/* page multiple */
};

struct zn_vfu_bar {
	uint64_t size;		/* 0: not implemented; else a power of two */
	enum zn_vfu_bar_type type;
	bool prefetch;
	unsigned nr_areas;	/* mmap-able areas; the rest is trapped */
	struct zn_vfu_area areas[ZN_VFU_MAX_AREAS];
};

enum zn_vfu_reset_why {
	ZN_VFU_RESET_DEVICE,	/* DEVICE_RESET from the client */
	ZN_VFU_RESET_LOST_CONN,	/* the client went away */
	ZN_VFU_RESET_REALIZE,	/* power-on */
};

struct zn_vfu_dev_ops {
	/* A trapped BAR access (not an mmap area, not the MSI-X table/PBA).
	 * count is 1..max_data_xfer_size; return 0 or a negative errno, which
	 * the client gets as the error of its REGION_READ/WRITE. */
	int (*bar_access)(void *opaque, unsigned bar, uint64_t offset, void *buf,
			  uint32_t count, bool is_write);
	/* Called by the loop between socket events; returns how much work it
	 * did (0: idle, lets the loop back off). May lower *deadline_ns (an
	 * absolute CLOCK_MONOTONIC time) to be polled again by then. */
	int (*poll)(void *opaque, uint64_t now_ns, uint64_t *deadline_ns);
	/* Back to power-on state. Config space, BAR memory and client state
	 * (DMA maps, eventfds) are handled by the server before this. */
	void (*reset)(void *opaque, enum zn_vfu_reset_why why);
	/* Optional: a DMA window is about to go away; drop cached pointers. */
	void (*dma_unmap)(void *opaque, uint64_t iova, uint64_t size);
	/* Optional: the PCI COMMAND register changed (MEMORY, BUS_MASTER, ...),
	 * called before the client's config write is answered. */
	void (*command)(void *opaque, uint16_t old_cmd, uint16_t new_cmd);
};

struct zn_vfu_dev_desc {
	uint16_t vendor_id, device_id;
	uint16_t subsys_vendor_id, subsys_id;
	uint32_t class_code;	/* 24 bits: base class, subclass, prog-if */
	uint8_t revision;
	uint8_t intx_pin;	/* 0: none; 1..4: INTA#..INTD# */
	uint8_t msi_vectors;	/* 0: no MSI capability; else 1, 2, 4, 8, 16 or 32 */
	uint16_t msix_vectors;	/* 0: no MSI-X capability; else 1..2048 */
	uint8_t msix_table_bar, msix_pba_bar;
	uint32_t msix_table_offset, msix_pba_offset;	/* 8-byte aligned, trapped */
	/* PCI Express endpoint: a PCI Express capability and the 4 KiB config
	 * space, with extended capabilities from 0x100. */
	bool pcie;
	uint64_t dsn;		/* with pcie: non-zero adds a Device Serial Number cap */
	struct zn_vfu_bar bar[ZN_VFU_NUM_BARS];
	const struct zn_vfu_dev_ops *ops;
	void *opaque;
};

/* ---- Life cycle --------------------------------------------------------- */

/* A device named `name` (used in logs and stats), no socket yet. */
int zn_vfu_dev_new(const char *name, struct zn_vfu_dev **out);
/* Builds config space, BAR memory and interrupt tables from desc (copied),
 * then resets the model. -EINVAL with a log line if desc is inconsistent. */
int zn_vfu_dev_realize(struct zn_vfu_dev *dev, const struct zn_vfu_dev_desc *desc);
/* Listens on a UNIX socket at path (a stale socket file is replaced, a live
 * one is -EADDRINUSE). Clients are served one at a time, in order. */
int zn_vfu_dev_listen(struct zn_vfu_dev *dev, const char *path);
/*
 * A client holds its device alone, so one that stalls is dropped (one log
 * line, errors.stalled) and the next is served: VERSION must complete within
 * handshake_ms of the accept; a message, once its first byte arrived, must
 * complete within stall_ms; replies the client does not read must move
 * within stall_ms. A connected client may stay idle between messages for
 * ever. 0 keeps the default (ZN_VFU_HANDSHAKE_MS, ZN_VFU_STALL_MS).
 */
#define ZN_VFU_HANDSHAKE_MS	2000u
#define ZN_VFU_STALL_MS		2000u
void zn_vfu_dev_set_timeouts(struct zn_vfu_dev *dev, uint32_t handshake_ms, uint32_t stall_ms);
/* Fault injection (sim/fault.h): refuse(ctx) is asked about each valid
 * DMA_MAP; true refuses it with ENOMEM, as an IOMMU out of room would. */
void zn_vfu_dev_set_dma_gate(struct zn_vfu_dev *dev, bool (*refuse)(void *ctx), void *ctx);
/* Closes the client and the socket (unlinking it), frees everything. */
void zn_vfu_dev_free(struct zn_vfu_dev *dev);

const char *zn_vfu_dev_name(const struct zn_vfu_dev *dev);
const char *zn_vfu_dev_path(const struct zn_vfu_dev *dev);
bool zn_vfu_dev_connected(const struct zn_vfu_dev *dev);

/* Signals the client's REQ eventfd, if it gave one (the VFIO way of asking a
 * user to release the device); returns 0 or -ENOENT. */
int zn_vfu_dev_request_release(struct zn_vfu_dev *dev);

/* ---- For models --------------------------------------------------------- */

/* The server-side mapping of a BAR's mmap areas (NULL if it has none). The
 * pointer changes when a client disconnects (each client gets fresh pages),
 * so fetch it again in reset. Areas live at their BAR offset from it. */
void *zn_vfu_bar_mem(struct zn_vfu_dev *dev, unsigned bar);
/* PCI COMMAND register bits a model may look at (PCI 3.0, 6.2.2) */
#define ZN_VFU_CMD_IO		0x0001
#define ZN_VFU_CMD_MEMORY	0x0002
#define ZN_VFU_CMD_MASTER	0x0004
#define ZN_VFU_CMD_INTX_DISABLE	0x0400
bool zn_vfu_mem_enabled(const struct zn_vfu_dev *dev);	/* COMMAND.MEMORY */
bool zn_vfu_bus_master(const struct zn_vfu_dev *dev);	/* COMMAND.BUS_MASTER */

/* DMA, device's view. Every failure is counted, logged (rate-limited) and
 * latched as Received Master Abort in the PCI status register:
 *   -EPERM   bus mastering off (nothing is transferred)
 *   -EFAULT  not inside one mapped window (or zero length / wrap)
 *   -EACCES  the window does not allow this direction
 *   -ENODEV  the window came without an fd (DMA_READ/WRITE not implemented)
 *   -EIO     zn_vfu_dma_read/write only: the client's file no longer backs
 *            the range (shrunk after DMA_MAP); the copy may have moved part
 * A pointer from zn_vfu_dma_ptr is valid until the loop runs the next
 * client message (which may be a DMA_UNMAP); do not keep it.
 *
 * The rule for zn_vfu_dma_ptr: only the copies of zn_vfu_dma_read/write are
 * guarded against a client that shrinks its file after DMA_MAP. A load or
 * store through the pointer into a page the client truncated away raises
 * SIGBUS there, and the daemon dies of it. So a model moves client memory
 * with zn_vfu_dma_read/write (descriptors are small: copy them in and out),
 * and touches it in place through zn_vfu_dma_ptr only where a client that
 * sabotages its own memory may take the server down with it. */
enum zn_vfu_dma_dir {
	ZN_VFU_DMA_FROM_RAM = 1,	/* device reads client memory */
	ZN_VFU_DMA_TO_RAM = 2,		/* device writes client memory */
};
void *zn_vfu_dma_ptr(struct zn_vfu_dev *dev, uint64_t iova, uint64_t len,
		     enum zn_vfu_dma_dir dir, int *err);
int zn_vfu_dma_read(struct zn_vfu_dev *dev, uint64_t iova, void *dst, uint64_t len);
/* The same checks as zn_vfu_dma_ptr (0 or its negative errno), but nothing is
 * counted, logged or latched: for validating an address a device has been
 * given (firmware checking a command) before it does any DMA to it. */
int zn_vfu_dma_probe(struct zn_vfu_dev *dev, uint64_t iova, uint64_t len,
		     enum zn_vfu_dma_dir dir);
int zn_vfu_dma_write(struct zn_vfu_dev *dev, uint64_t iova, const void *src, uint64_t len);

/* Interrupts. The message-signalled type in use is the one the client gave
 * eventfds for with SET_IRQS (as with vfio-pci, which programs the device's
 * MSI/MSI-X itself); MSI and MSI-X are memory writes, so they need bus
 * mastering. Failures are counted (no eventfd, no bus master, bad vector). */
enum zn_vfu_irq_mode {
	ZN_VFU_IRQ_NONE = -1,
	ZN_VFU_IRQ_INTX = ZN_VFU_PCI_INTX_IRQ,
	ZN_VFU_IRQ_MSI = ZN_VFU_PCI_MSI_IRQ,
	ZN_VFU_IRQ_MSIX = ZN_VFU_PCI_MSIX_IRQ,
};
enum zn_vfu_irq_mode zn_vfu_irq_mode(const struct zn_vfu_dev *dev);
/* Raise vector n of the active MSI/MSI-X type: 0, or -ENOENT (no such type
 * active or no eventfd for n), -EPERM (no bus master), -EINVAL (n too big). */
int zn_vfu_irq_notify(struct zn_vfu_dev *dev, unsigned vector);
/* INTx is a level: the eventfd is signalled on a rising edge (and again on
 * UNMASK while still asserted) unless COMMAND.INTX_DISABLE is set. */
void zn_vfu_intx_set(struct zn_vfu_dev *dev, bool asserted);
/* The ERR index (count 1): a model's way to report a fatal device error. */
int zn_vfu_irq_err(struct zn_vfu_dev *dev);

/* ---- Statistics --------------------------------------------------------- */

/* X(NAME, "key", errno, what) for every reason a message is refused. */
#define ZN_VFU_ERRORS(X)                                                          \
	X(BAD_MSG_SIZE, "bad_msg_size", EINVAL, "msg_size below the header size (stream lost)")   \
	X(OVERSIZED, "oversized", EMSGSIZE, "msg_size above the largest message we accept")    \
	X(BAD_TYPE, "bad_type", EINVAL, "not a command, or unknown header flags")            \
	X(NOT_NEGOTIATED, "not_negotiated", EINVAL, "a command before VERSION")                    \
	X(VERSION_AGAIN, "version_again", EINVAL, "VERSION after the handshake")                  \
	X(BAD_VERSION, "bad_version", ENOTSUP, "unsupported major version")                      \
	X(BAD_JSON, "bad_json", EINVAL, "VERSION data not a valid capabilities object")      \
	X(BAD_SIZE, "bad_size", EINVAL, "payload size wrong for the command")                \
	X(BAD_ARGSZ, "bad_argsz", EINVAL, "argsz too small or inconsistent")                  \
	X(BAD_FLAGS, "bad_flags", EINVAL, "unknown or invalid flags")                         \
	X(NONZERO_FIELD, "nonzero_field", EINVAL, "a field that must be zero is not")             \
	X(BAD_INDEX, "bad_index", EINVAL, "region or IRQ index out of range")                 \
	X(BAD_RANGE, "bad_range", EINVAL, "offset/count or start/count out of range")         \
	X(XFER_TOO_BIG, "xfer_too_big", E2BIG, "count above max_data_xfer_size")                 \
	X(TOO_MANY_FDS, "too_many_fds", EINVAL, "more fds than max_msg_fds (truncated)")         \
	X(MISSING_FDS, "missing_fds", EINVAL, "fewer fds than the command needs")               \
	X(UNEXPECTED_FDS, "unexpected_fds", EINVAL, "fds with a command that takes none")          \
	X(BAD_FD, "bad_fd", EINVAL, "fd of the wrong kind or size")                        \
	X(UNKNOWN_CMD, "unknown_cmd", ENOSYS, "unknown command")                                \
	X(UNSUPPORTED_CMD, "unsupported_cmd", ENOTSUP, "command not implemented here")              \
	X(DMA_OVERLAP, "dma_overlap", EEXIST, "DMA_MAP overlaps a mapped window")               \
	X(DMA_NOT_FOUND, "dma_not_found", ENOENT, "DMA_UNMAP of no mapped window")                \
	X(DMA_PARTIAL, "dma_partial", EINVAL, "DMA_UNMAP not matching a window exactly")        \
	X(DMA_LIMIT, "dma_limit", ENOSPC, "max_dma_maps windows already mapped")              \
	X(DMA_MMAP, "dma_mmap", ENOMEM, "mmap of the DMA fd failed")                         \
	X(IRQ_BUSY, "irq_busy", EINVAL, "another interrupt type is enabled")                 \
	X(IRQ_UNSUPPORTED, "irq_unsupported", EINVAL, "action not supported for this IRQ index")    \
	X(MEM_DISABLED, "mem_disabled", EIO, "BAR access with COMMAND.MEMORY/IO off")            \
	X(DEVICE_ERROR, "device_error", EIO, "the model refused the access")                     \
	X(TRUNCATED, "truncated", 0, "connection closed inside a message")                 \
	X(STALLED, "stalled", 0, "client dropped: no VERSION, a partial message or unread replies too long")

enum zn_vfu_err {
#define ZN_VFU_X(name, key, err, what) ZN_VFU_ERR_##name,
	ZN_VFU_ERRORS(ZN_VFU_X)
#undef ZN_VFU_X
	ZN_VFU_ERR_COUNT
};

struct zn_vfu_stats {
	uint64_t msgs[ZN_VFU_MAX_COMMAND];	/* [0]: unknown command numbers */
	uint64_t errors[ZN_VFU_ERR_COUNT];
	uint64_t clients, disconnects;
	uint64_t dma_maps, dma_unmaps;		/* successful messages */
	uint64_t dma_err_unmapped, dma_err_no_master, dma_err_no_fd, dma_err_perm;
	uint64_t dma_err_bus;			/* a copy hit SIGBUS (file shrunk) */
	uint64_t irqs[ZN_VFU_PCI_NUM_IRQS];	/* eventfd writes per index */
	uint64_t irq_no_eventfd, irq_no_master, irq_masked, irq_bad_vector;
	uint64_t resets;
};

/* A consistent-enough copy (each counter read atomically). */
void zn_vfu_dev_stats(const struct zn_vfu_dev *dev, struct zn_vfu_stats *out);
uint64_t zn_vfu_dev_dma_windows(const struct zn_vfu_dev *dev);	/* mapped now */
const char *zn_vfu_err_name(enum zn_vfu_err e);		/* "bad_size" */
int zn_vfu_err_errno(enum zn_vfu_err e);
const char *zn_vfu_cmd_name(unsigned cmd);		/* "DMA_MAP"; "UNKNOWN" */

/* Writes "NAME.KEY VALUE" lines, one per counter (all of them, zeros too). */
typedef void (*zn_vfu_emit_fn)(void *ctx, const char *key, uint64_t value);
void zn_vfu_dev_stats_emit(const struct zn_vfu_dev *dev, zn_vfu_emit_fn emit, void *ctx);

/* ---- Without a socket (fuzzers, tests) ----------------------------------- */

/* Starts a client session with no socket: zn_vfu_dev_feed then parses an
 * arbitrary byte stream exactly as the socket path does (fds attach to the
 * message being assembled when the chunk starts; they are always consumed).
 * Replies go to `sink` (may be NULL) and are dropped. zn_vfu_dev_detach ends
 * the session as a client disconnect would. */
typedef void (*zn_vfu_reply_sink_fn)(void *arg, const void *msg, size_t len,
				     const int *fds, unsigned nfds);
int zn_vfu_dev_attach_buffer(struct zn_vfu_dev *dev, zn_vfu_reply_sink_fn sink, void *arg);
/* 0, or -ECONNRESET when the session ended (the server would close). */
int zn_vfu_dev_feed(struct zn_vfu_dev *dev, const void *data, size_t len,
		    int *fds, unsigned nfds);
void zn_vfu_dev_detach(struct zn_vfu_dev *dev);
/* One model poll, as the loop would do it. */
int zn_vfu_dev_poll(struct zn_vfu_dev *dev);

/* ---- The event loop ----------------------------------------------------- */

/*
 * One thread, no locks: poll(2) on the listening and client sockets, model
 * polls in between. After activity (a message, or a model reporting work) the
 * loop spins without sleeping for ZN_VFU_SPIN_NS, then sleeps in poll with a
 * timeout that starts at ZN_VFU_SLEEP_MIN_NS and grows by 1/ZN_VFU_SLEEP_GROWTH
 * per sleep up to ZN_VFU_SLEEP_MAX_NS (reached about 7 ms after the last
 * activity). So a doorbell rung within a few ms of the last one is seen within
 * microseconds, one rung a little later within tens of them, and one after a
 * long idle spell within the longest sleep; an idle daemon with a client wakes
 * about 1000 times a second (about 1% of a CPU), and spins only after work.
 * With no client on any device it blocks outright.
 */
#define ZN_VFU_SPIN_NS		3000000ull	/* busy polling after activity */
#define ZN_VFU_SLEEP_MIN_NS	10000ull	/* first sleep after the spin */
#define ZN_VFU_SLEEP_GROWTH	4		/* each sleep 1/4 longer than the last */
#define ZN_VFU_SLEEP_MAX_NS	1000000ull	/* longest sleep with a client */
/* While models report work the loop skips poll(2) on the sockets for up to
 * this long: a busy data path pays no syscall per iteration, and a message
 * waits at most this much longer. */
#define ZN_VFU_BUSY_SOCK_NS	20000ull

int zn_vfu_loop_new(struct zn_vfu_loop **out);
void zn_vfu_loop_free(struct zn_vfu_loop *loop);	/* does not free devices */
int zn_vfu_loop_add_dev(struct zn_vfu_loop *loop, struct zn_vfu_dev *dev);
/* Extra fds (a signalfd, ...): cb runs on the loop thread when ready. */
int zn_vfu_loop_add_fd(struct zn_vfu_loop *loop, int fd, short events,
		       void (*cb)(void *arg, short revents), void *arg);
/* Extra pollers (wires): same contract as zn_vfu_dev_ops.poll. */
int zn_vfu_loop_add_poller(struct zn_vfu_loop *loop,
			   int (*poll)(void *arg, uint64_t now_ns, uint64_t *deadline_ns),
			   void *arg);
/* Runs until zn_vfu_loop_stop; 0 or a negative errno. */
int zn_vfu_loop_run(struct zn_vfu_loop *loop);
/* From any thread or a signal handler. */
void zn_vfu_loop_stop(struct zn_vfu_loop *loop);

uint64_t zn_vfu_now_ns(void);

#endif
