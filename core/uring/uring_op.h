/* SPDX-License-Identifier: MIT */
/*
 * The ring engine's plug-in API: what a layer above core/uring (sockets and
 * their ops in core/sock, zcrx in core/zcrx) may use. Not installed: an
 * application sees include/zcnic/uring.h only. Nothing else of core/uring
 * (uring_priv.h) is for other folders.
 *
 * How ops and register handlers get into the engine: one table,
 * zn_uring_plugins (below), defined in core/opdef/opdef.c, the one file
 * that names every layer's ops, the zcrx IFQ register handler and the
 * socket layer's "registered buffers are going away" callback, like the
 * kernel's io_uring/opdef.c. The engine reads the table; each layer only
 * exports its const structs. The engine refers to the table, so a static
 * link always pulls every op in, with no constructor and nothing installed
 * at run time. (A table rather than registration calls: the set of ops is
 * known when libzcnic is built, a const table cannot be half set up, and
 * the whole opcode map is one file to read.)
 *
 * Dependencies point down: core/sock -> core/zcrx, core/net, this header;
 * core/zcrx -> this header, core/net/netif.h, core/port. core/uring includes
 * nobody's header.
 */
#ifndef ZCNIC_CORE_URING_URING_OP_H
#define ZCNIC_CORE_URING_URING_OP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "compat/liburing/io_uring.h"
#include "zcnic/uring.h"

#define ZN_URING_MAX_HOOKS	32
#define ZN_URING_MAX_EXIT_CBS	64

/*
 * A request lives from its SQE until its last CQE. prep runs at submission
 * and must copy what issue needs from the SQE into req->pdu (SQE memory is
 * the application's again once enter returns). The engine checks the SQE
 * flags and, for ZN_URING_OP_NEEDS_FILE ops, resolves sqe->fd (fixed or
 * not) into req->file before prep. issue runs when the request's turn
 * comes (after its link predecessor); it returns
 *   ZN_URING_ISSUE_DONE   req->res/req->cflags (and req->big) are the CQE;
 *   ZN_URING_ISSUE_ASYNC  the op keeps the request and later calls
 *                         zn_uring_req_complete() (or posts several CQEs
 *                         with zn_uring_post_cqe and completes at the end).
 * A link member is issued only after its predecessor completed. Destroying
 * a ring with requests in flight calls each op's cancel(). Opcodes with no
 * op in the table are -EOPNOTSUPP; >= IORING_OP_LAST -EINVAL, as in the
 * kernel.
 */
#define ZN_URING_REQ_PDU	64

struct zn_uring_req {
	struct zn_uring *ring;
	uint64_t user_data;
	int32_t res;
	uint32_t cflags;
	uint64_t big[2];	/* CQE32 second half */
	int file;		/* resolved handle (NEEDS_FILE ops), else -1 */
	uint8_t opcode;
	uint8_t sqe_flags;
	uint16_t ioprio;
	uint32_t internal;	/* engine bookkeeping */
	uint16_t buf_group;	/* IOSQE_BUFFER_SELECT: the group; then the chosen bid */
	uint16_t buf_flags;	/* kbuf.c bookkeeping */
	struct zn_uring_req *link;	/* next in a link chain */
	union {
		uint8_t pdu[ZN_URING_REQ_PDU];	/* the op's private state */
		uint64_t pdu64[ZN_URING_REQ_PDU / 8];
	};
};

enum { ZN_URING_ISSUE_DONE = 0, ZN_URING_ISSUE_ASYNC = 1 };

/* op->direct's "not here": the SQE goes the generic way (outside int32_t) */
#define ZN_URING_DIRECT_NO	INT64_MIN

#define ZN_URING_OP_NEEDS_FILE		(1u << 0)	/* resolve sqe->fd */
#define ZN_URING_OP_BUFFER_SELECT	(1u << 1)	/* accepts IOSQE_BUFFER_SELECT */
#define ZN_URING_OP_PLACEHOLDER		(1u << 31)	/* -EOPNOTSUPP stand-in */

struct zn_uring_op {
	const char *name;
	unsigned flags;
	/* 0 or -errno (the request completes with it, unissued). */
	int (*prep)(struct zn_uring_req *req, const struct io_uring_sqe *sqe);
	int (*issue)(struct zn_uring_req *req);
	/*
	 * Optional: req (ASYNC, not completed) is to stop: the ring is being
	 * destroyed, or an ASYNC_CANCEL, a LINK_TIMEOUT or a sync cancel
	 * matched it. Drop every reference to req and post nothing; the engine
	 * then frees it (ring exit) or completes it with -ECANCELED (the
	 * others). Called by the owner thread, never from inside the op's own
	 * callbacks. NULL: the request cannot be stopped (a cancel answers
	 * -EALREADY, as the kernel's for a request already running).
	 */
	void (*cancel)(struct zn_uring_req *req);
	/*
	 * Optional: the SQ-direct path (submit.c). An op whose common SQE
	 * finishes at once with one CQE {user_data, res, 0} may finish it here,
	 * without a request: the engine calls it only for an SQE with no flag
	 * but IOSQE_CQE_SKIP_SUCCESS and no personality, outside a link chain,
	 * with a CQ slot kept for it. It returns the CQE's res (a negative one
	 * is a failure, as issue's), or ZN_URING_DIRECT_NO, having changed
	 * nothing, to send the SQE the generic way (prep, then issue): every
	 * SQE whose prep would fail goes there, so that its error stops the
	 * submission as prep's does. It must not post CQEs on r itself (the
	 * engine holds r's CQ tail for the run).
	 */
	int64_t (*direct)(struct zn_uring *r, const struct io_uring_sqe *sqe);
};

/* The composition root's table (core/opdef/opdef.c). */
struct zn_uring_plugins {
	const struct zn_uring_op *ops[IORING_OP_LAST];	/* NULL: -EOPNOTSUPP */
	/* IORING_REGISTER_ZCRX_IFQ; NULL: -EOPNOTSUPP. */
	int (*register_ifq)(struct zn_uring *r, struct io_uring_zcrx_ifq_reg *reg);
	/* IORING_REGISTER_ZCRX_CTRL; NULL: -EOPNOTSUPP. */
	int (*zcrx_ctrl)(struct zn_uring *r, struct zcrx_ctrl *ctrl, unsigned nr_args);
	/*
	 * IORING_OP_POLL_ADD on a handle of another layer (a socket): the
	 * events ready on fd now (POLLIN, POLLOUT, ...; >= 0), with a count in
	 * *seq that moves with every new arrival (so that a multishot poll
	 * sees more data as a new edge); -ENOENT if fd is not that layer's.
	 * It makes r poll whatever can change them. May be NULL.
	 */
	int (*poll_ready)(struct zn_uring *r, int fd, uint32_t *seq);
	/* The fd whose mapping stands for r's memory at mmap offset off (len
	 * bytes; a refill region zcnic allocated), or -errno. May be NULL. */
	int (*region_fd)(struct zn_uring *r, uint64_t off, uint64_t len);
	/* Called at the start of every unregister of buffers, so that layers
	 * that mapped registered buffers for a device let go. May be NULL. */
	void (*bufs_unregistering)(struct zn_uring *r);
	/* IORING_OP_CLOSE of a handle (the engine's CLOSE closes OS fds and
	 * registered-file slots itself). May be NULL: -EBADF. */
	const struct zn_uring_op *close_handle;
};
extern const struct zn_uring_plugins zn_uring_plugins;

/* The engine's own ops (core/uring), for the table. */
extern const struct zn_uring_op zn_nop_op;
extern const struct zn_uring_op zn_nop128_op;
extern const struct zn_uring_op zn_msg_ring_op;
extern const struct zn_uring_op zn_timeout_op;
extern const struct zn_uring_op zn_timeout_remove_op;
extern const struct zn_uring_op zn_link_timeout_op;
extern const struct zn_uring_op zn_async_cancel_op;
extern const struct zn_uring_op zn_provide_buffers_op;
extern const struct zn_uring_op zn_remove_buffers_op;
extern const struct zn_uring_op zn_poll_add_op;
extern const struct zn_uring_op zn_poll_remove_op;
extern const struct zn_uring_op zn_files_update_op;
/* ... on OS file descriptors (osfd_rw.c, osfd_file.c, osfd_pipe.c) */
extern const struct zn_uring_op zn_osfd_read_op, zn_osfd_write_op;
extern const struct zn_uring_op zn_osfd_readv_op, zn_osfd_writev_op;
extern const struct zn_uring_op zn_osfd_read_fixed_op, zn_osfd_write_fixed_op;
extern const struct zn_uring_op zn_osfd_read_mshot_op;
extern const struct zn_uring_op zn_osfd_close_op, zn_osfd_fsync_op, zn_osfd_sync_range_op;
extern const struct zn_uring_op zn_osfd_fallocate_op, zn_osfd_fadvise_op, zn_osfd_madvise_op;
extern const struct zn_uring_op zn_osfd_ftruncate_op, zn_osfd_splice_op, zn_osfd_tee_op;
extern const struct zn_uring_op zn_osfd_pipe_op;

/* The op of an opcode (never NULL below IORING_OP_LAST: unsupported ones
 * get a -EOPNOTSUPP stand-in); NULL for >= IORING_OP_LAST. */
const struct zn_uring_op *zn_uring_op_get(unsigned opcode);
/* Does the opcode do something (not a -EOPNOTSUPP stand-in)? */
bool zn_uring_op_supported(unsigned opcode);
/*
 * For tests only: make opcode use op instead of the table's (process-wide,
 * while no ring runs); NULL goes back to the table. Not a way to add ops:
 * those go in zn_uring_plugins.
 */
int zn_uring_op_override(unsigned opcode, const struct zn_uring_op *op);

/* Finish an ASYNC request: post its CQE (subject to CQE_SKIP_SUCCESS), go on with its link. */
void zn_uring_req_complete(struct zn_uring_req *req, int32_t res, uint32_t cflags);
/* The same with a negative res that does not fail the chain (a TIMEOUT with
 * IORING_TIMEOUT_ETIME_SUCCESS). */
void zn_uring_req_complete_nofail(struct zn_uring_req *req, int32_t res, uint32_t cflags);

/*
 * Post a CQE (owner thread). A full CQ sends it to the overflow list,
 * flushed in order as CQ space frees: no CQE is lost (koverflow counts the
 * ones lost only if the overflow entry could not be allocated; -ENOMEM).
 * With ZN_CQE_NO_OVERFLOW a full CQ (or a non-empty overflow list) gives
 * -ENOSPC instead, as RECV_ZC needs. big (may be NULL) fills the second
 * half of a CQE32.
 */
#define ZN_CQE_NO_OVERFLOW	(1u << 0)
int zn_uring_post_cqe(struct zn_uring *r, uint64_t user_data, int32_t res,
		      uint32_t cflags, const uint64_t big[2], unsigned how);
/* CQEs ready to be reaped / free CQ slots, as seen by zcnic. */
unsigned zn_uring_cq_ready(const struct zn_uring *r);
unsigned zn_uring_cq_space(const struct zn_uring *r);
/* CQEs waiting in the overflow list. */
unsigned zn_uring_overflow_pending(const struct zn_uring *r);

/*
 * Provided buffers (IOSQE_BUFFER_SELECT; core/uring/kbuf.c). An op with
 * ZN_URING_OP_BUFFER_SELECT calls zn_uring_buf_select when it has data for
 * the request: the next buffer of group req->buf_group; returns its buffer
 * id (>= 0) with *addr, and *len clamped to the buffer (0: the whole
 * buffer); -ENOBUFS when the group is empty or does not exist (the kernel's
 * result). Once used bytes are in the buffer, zn_uring_buf_done consumes it
 * and returns the CQE flags naming it (IORING_CQE_F_BUFFER | bid <<
 * IORING_CQE_BUFFER_SHIFT, + IORING_CQE_F_BUF_MORE for a partly used entry
 * of an incremental ring); a request that ends without using it calls
 * zn_uring_buf_recycle and the buffer goes back to its group, first.
 */
int zn_uring_buf_select(struct zn_uring_req *req, void **addr, uint32_t *len);
uint32_t zn_uring_buf_done(struct zn_uring_req *req, int bid, uint32_t used);
void zn_uring_buf_recycle(struct zn_uring_req *req, int bid);

/* The ring's setup flags (IORING_SETUP_*). */
unsigned zn_uring_flags(const struct zn_uring *r);
/* The registered buffer idx, if [addr, addr+len) lies inside it: 0 (and
 * *ptr = addr if ptr) or -EFAULT. */
int zn_uring_fixed_buf(struct zn_uring *r, unsigned idx, uint64_t addr, uint64_t len,
		       void **ptr);
/* Registered buffer idx as registered (maybe a sparse {NULL, 0}); NULL if
 * idx is out of range. */
const struct iovec *zn_uring_buf(const struct zn_uring *r, unsigned idx);
/* The handle in registered-file slot idx; -EBADF if none. */
int zn_uring_fixed_file(struct zn_uring *r, unsigned idx);

/*
 * Poll hooks: the way other layers (NIC queues of core/port through
 * core/net and core/zcrx) get run by the ring owner. Every enter/wait calls
 * each hook once per pass, in the order added; poll returns how much work
 * it did (>= 0; it may post CQEs with zn_uring_post_cqe). A hook with
 * ZN_URING_HOOK_BUSY is a source that cannot wake a sleeping owner (a NIC
 * queue without interrupts): while one is registered the owner never
 * sleeps, it keeps polling until its wait ends.
 */
#define ZN_URING_HOOK_BUSY	(1u << 0)
typedef int (*zn_uring_poll_fn)(struct zn_uring *r, void *arg);
/* Returns a hook id (>= 0), -ENOSPC (ZN_URING_MAX_HOOKS), -EINVAL. */
int zn_uring_hook_add(struct zn_uring *r, zn_uring_poll_fn fn, void *arg, unsigned flags);
/*
 * What lets a ring in interrupt wait mode (zn_uring_set_wait) sleep on a
 * busy hook's source instead of polling it: arm makes the source signal
 * one of the eventfds it writes to fds (at most max) when new work comes,
 * lowers *deadline (CLOCK_MONOTONIC ns, UINT64_MAX: none) to when the hook
 * must run anyway, and returns how many fds it wrote, or a negative errno
 * when it cannot (the ring keeps polling). The ring runs a pass of every
 * hook after the arms and sleeps only if that pass found nothing (wait.c).
 */
typedef int (*zn_uring_arm_fn)(struct zn_uring *r, void *arg, int *fds, unsigned max,
			       uint64_t *deadline);
/* 0 or -ENOENT. */
int zn_uring_hook_set_arm(struct zn_uring *r, int id, zn_uring_arm_fn arm);
/* Safe from inside a hook. 0 or -ENOENT. */
int zn_uring_hook_del(struct zn_uring *r, int id);

/*
 * Exit callbacks: layers that hang state on a ring (socket bindings, zcrx
 * interface queues) let go of it when the ring is destroyed. They run in
 * reverse order of registration, after every in-flight request's op was
 * cancelled and before the ring memory is freed; they must post no CQE.
 * An id (>= 0) for zn_uring_on_exit_del, -ENOSPC, -EINVAL.
 */
int zn_uring_on_exit(struct zn_uring *r, void (*fn)(struct zn_uring *r, void *arg), void *arg);
void zn_uring_on_exit_del(struct zn_uring *r, int id);

/*
 * A struct io_uring_region_desc as the kernel's io_create_region checks it
 * (core/uring/region.c), in its order: 0, or -EINVAL, -EFAULT (user_addr
 * set for zcnic's memory, missing for the program's, or memory not mapped
 * writable), -E2BIG, -EOVERFLOW.
 */
int zn_uring_region_check(const struct io_uring_region_desc *rd);

#endif
