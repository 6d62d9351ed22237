/* SPDX-License-Identifier: MIT */
/*
 * core/uring: io_uring rings in process memory, the native face (zn_uring_*).
 * include/compat/liburing.h wraps it with liburing's names.
 *
 * Struct layouts, opcodes and flags are the Linux uAPI's
 * (<liburing/io_uring.h> from include/compat); this header only names them.
 *
 *   application                         zn_uring (owner thread)
 *   -----------                         -------------------------------
 *   SQEs  --sq tail (release)-->        zn_uring_enter(): consume SQEs,
 *                                        prep + issue through the op table
 *   CQEs  <--cq tail (release)--        post CQEs (overflow list when full)
 *         --cq head (release)-->        reuse of CQ slots
 *   other threads --MSG_RING inbox-->   drained in every enter/wait
 *   NIC queues etc. <--poll hooks--     run in every enter/wait
 *
 * Ownership of the rings (same rules as the kernel's, with one thread on
 * both sides): the application owns SQ slots from sq head to the tail it
 * has not yet published, and the CQ from cq head to cq tail; zcnic owns SQ
 * slots between head and the published tail until enter consumes them,
 * and CQ slots from tail up to head + cq entries. Counters are free-running
 * u32; index = counter & mask.
 *
 * Threading: a ring is used by one thread at a time, its owner (the
 * creating thread; with IORING_SETUP_SINGLE_ISSUER a call from another
 * thread fails with -EEXIST). Everything runs inside the owner's calls:
 * there is no kernel and no helper thread. The one cross-thread path is
 * MSG_RING, a lock-free multi-producer inbox per ring; a sleeping owner is
 * woken by a futex only when it actually sleeps.
 */
#ifndef ZCNIC_URING_H
#define ZCNIC_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "zcnic/handle.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

struct io_uring_params;
struct io_uring_sqe;
struct io_uring_cqe;
struct io_uring_zcrx_ifq_reg;
struct zn_uring;

/* Setup flags zcnic accepts; any other bit fails with -EINVAL. */
#define ZN_URING_SETUP_FLAGS (IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP |	\
	IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER |			\
	IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SUBMIT_ALL |			\
	IORING_SETUP_COOP_TASKRUN)

#define ZN_URING_MAX_ENTRIES	32768	/* SQ; the kernel's IORING_MAX_ENTRIES */
#define ZN_URING_MAX_CQ_ENTRIES	(2 * ZN_URING_MAX_ENTRIES)
#define ZN_URING_MAX_HOOKS	32
#define ZN_URING_MAX_EXIT_CBS	64
#define ZN_URING_MAX_REG_BUFFERS 16384	/* the kernel's IORING_MAX_REG_BUFFERS */
#define ZN_URING_MAX_REG_FILES	32768

/*
 * Create a ring, as io_uring_setup(2): entries are rounded and clamped as
 * the kernel does, p is validated (flags, resv) and filled in (sq_entries,
 * cq_entries, features, sq_off/cq_off relative to the ring memory). The
 * calling thread becomes the owner.
 */
int zn_uring_create(unsigned entries, struct io_uring_params *p, struct zn_uring **out);
void zn_uring_destroy(struct zn_uring *r);
/* The ring's handle: its "ring fd" (MSG_RING target, io_uring.ring_fd). */
int zn_uring_handle(const struct zn_uring *r);
/* The ring behind a handle, for its owner; NULL if h is not a live ring. */
struct zn_uring *zn_uring_from_handle(int h);

/* Where the ring memory lives: what io_uring_queue_mmap would map. */
struct zn_uring_map {
	unsigned *sq_head, *sq_tail, *sq_mask, *sq_entries, *sq_flags, *sq_dropped;
	unsigned *sq_array;
	struct io_uring_sqe *sqes;
	unsigned *cq_head, *cq_tail, *cq_mask, *cq_entries, *cq_flags, *cq_overflow;
	struct io_uring_cqe *cqes;
	void *ring_ptr;		/* the block the sq_off/cq_off offsets are relative to */
	size_t ring_sz;
	unsigned flags;		/* setup flags */
	unsigned features;
};
void zn_uring_get_map(struct zn_uring *r, struct zn_uring_map *m);

/*
 * io_uring_enter(2): consume up to to_submit published SQEs, then with
 * IORING_ENTER_GETEVENTS wait until min_complete CQEs are ready, at most
 * timeout_ns (< 0: no limit). Every call also drains the MSG_RING inbox,
 * runs the poll hooks and flushes the CQ overflow list. Returns the number
 * of SQEs consumed if any, else 0 or the wait's error: -ETIME when the time
 * ran out with no CQE ready (some but fewer than min_complete: 0, as the
 * kernel). -EEXIST from a foreign thread on a SINGLE_ISSUER ring.
 */
int zn_uring_enter(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		   unsigned flags, int64_t timeout_ns);
/* Non-blocking progress: inbox, hooks, overflow flush. CQEs ready after it. */
unsigned zn_uring_get_events(struct zn_uring *r);

/* Registered buffers (iovecs) and files (handles; -1 = empty slot). */
int zn_uring_register_buffers(struct zn_uring *r, const struct iovec *iov, unsigned nr);
int zn_uring_unregister_buffers(struct zn_uring *r);
/* Called at the start of every unregister of buffers, so that layers that
 * mapped registered buffers for a device let go (core/uring/net_mem.c). */
void zn_uring_set_buf_unreg_hook(void (*fn)(struct zn_uring *r));
int zn_uring_register_files(struct zn_uring *r, const int *handles, unsigned nr);
int zn_uring_unregister_files(struct zn_uring *r);
/*
 * zcrx interface queues (IORING_REGISTER_ZCRX_IFQ): -EOPNOTSUPP until
 * core/zcrx installs its handler with zn_uring_set_ifq_handler().
 */
int zn_uring_register_ifq(struct zn_uring *r, struct io_uring_zcrx_ifq_reg *reg);
typedef int (*zn_uring_ifq_fn)(struct zn_uring *r, struct io_uring_zcrx_ifq_reg *reg);
void zn_uring_set_ifq_handler(zn_uring_ifq_fn fn);

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
 * MSG_RING without a source ring (IORING_REGISTER_SEND_MSG_RING's
 * semantics), from any thread: target gets {user_data, res, cflags}.
 * 0, -EBADFD (not a live ring), -ENOMEM.
 */
int zn_uring_msg(int target, uint64_t user_data, int32_t res, uint32_t cflags);
/* Wake the owner if it sleeps in a wait (any thread; a no-op otherwise). */
void zn_uring_wake(struct zn_uring *r);

/*
 * The op table: opcode -> prep/issue. Built in: NOP and MSG_RING. SEND,
 * RECV, SEND_ZC, SENDMSG_ZC and RECV_ZC have placeholders that fail with
 * -EOPNOTSUPP until core/net/core/zcrx install theirs with
 * zn_uring_op_register(); every other opcode below IORING_OP_LAST is
 * -EOPNOTSUPP, and >= IORING_OP_LAST is -EINVAL, as in the kernel.
 *
 * A request (struct zn_uring_req) lives from its SQE until its last CQE.
 * prep runs at submission and must copy what issue needs from the SQE into
 * req->pdu (SQE memory is the application's again once enter returns). The
 * core checks the SQE flags and, for ZN_URING_OP_NEEDS_FILE ops, resolves
 * sqe->fd (fixed or not) into req->file before prep. issue runs when the
 * request's turn comes (after its link predecessor); it returns
 *   ZN_URING_ISSUE_DONE   req->res/req->cflags (and req->big) are the CQE;
 *   ZN_URING_ISSUE_ASYNC  the op keeps the request and later calls
 *                         zn_uring_req_complete() (or posts several CQEs
 *                         with zn_uring_post_cqe and completes at the end).
 * A link member is issued only after its predecessor completed. Destroying
 * a ring with requests in flight calls each op's cancel().
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
	uint32_t internal;	/* core bookkeeping */
	struct zn_uring_req *link;	/* next in a link chain */
	union {
		uint8_t pdu[ZN_URING_REQ_PDU];	/* the op's private state */
		uint64_t pdu64[ZN_URING_REQ_PDU / 8];
	};
};

enum { ZN_URING_ISSUE_DONE = 0, ZN_URING_ISSUE_ASYNC = 1 };

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
	 * Optional: the ring is being destroyed with req in flight (ASYNC, not
	 * completed). Drop every reference to req and post nothing; the core
	 * frees it and its link chain. NULL: the op holds no reference.
	 */
	void (*cancel)(struct zn_uring_req *req);
};

/* Install ops for opcode (process-wide; at start-up, before rings run). */
int zn_uring_op_register(unsigned opcode, const struct zn_uring_op *op);
const struct zn_uring_op *zn_uring_op_get(unsigned opcode);
/* Does the opcode do something (not a -EOPNOTSUPP placeholder)? */
bool zn_uring_op_supported(unsigned opcode);
/* Finish an ASYNC request: post its CQE (subject to CQE_SKIP_SUCCESS), go on with its link. */
void zn_uring_req_complete(struct zn_uring_req *req, int32_t res, uint32_t cflags);

/* For ops: the registered buffer idx, if [addr, addr+len) lies inside it. */
int zn_uring_fixed_buf(struct zn_uring *r, unsigned idx, uint64_t addr, uint64_t len,
		       void **ptr);
/* For ops: the handle in registered-file slot idx; -EBADF if none. */
int zn_uring_fixed_file(struct zn_uring *r, unsigned idx);

/* Counters, for tests and zn-stat. */
struct zn_uring_stats {
	uint64_t sqes;		/* SQEs consumed */
	uint64_t cqes;		/* CQEs written to the CQ */
	uint64_t overflowed;	/* CQEs that went through the overflow list */
	uint64_t msgs_in;	/* MSG_RING messages received through the inbox */
	uint64_t inbox_spill;	/* ... of which took the unbounded spill path */
	uint64_t sleeps;	/* futex sleeps of the owner */
	uint64_t hook_polls;
};
void zn_uring_get_stats(const struct zn_uring *r, struct zn_uring_stats *st);

#pragma GCC visibility pop

#endif
