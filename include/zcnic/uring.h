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
 * This is the application's view. How other layers add ops, poll hooks and
 * register handlers to the engine is core/uring/uring_op.h (not installed).
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
	IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG |		\
	IORING_SETUP_R_DISABLED | IORING_SETUP_SQE128 |				\
	IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF |	\
	IORING_SETUP_IOPOLL | IORING_SETUP_HYBRID_IOPOLL |			\
	IORING_SETUP_SQE_MIXED | IORING_SETUP_CQE_MIXED | IORING_SETUP_SQ_REWIND)

#define ZN_URING_MAX_ENTRIES	32768	/* SQ; the kernel's IORING_MAX_ENTRIES */
#define ZN_URING_MAX_CQ_ENTRIES	(2 * ZN_URING_MAX_ENTRIES)
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
 * IORING_ENTER_EXT_ARG, _EXT_ARG_REG and _ABS_TIMER need an argument:
 * io_uring_enter2 (<liburing.h>) takes them; here they are ignored.
 */
int zn_uring_enter(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		   unsigned flags, int64_t timeout_ns);
/* Non-blocking progress: inbox, hooks, overflow flush. CQEs ready after it. */
unsigned zn_uring_get_events(struct zn_uring *r);

/* Registered buffers (iovecs) and files (handles; -1 = empty slot). */
int zn_uring_register_buffers(struct zn_uring *r, const struct iovec *iov, unsigned nr);
int zn_uring_unregister_buffers(struct zn_uring *r);
int zn_uring_register_files(struct zn_uring *r, const int *handles, unsigned nr);
int zn_uring_unregister_files(struct zn_uring *r);
/* zcrx interface queues (IORING_REGISTER_ZCRX_IFQ; include/zcnic/zcrx.h). */
int zn_uring_register_ifq(struct zn_uring *r, struct io_uring_zcrx_ifq_reg *reg);
/*
 * io_uring_register(2) on a ring: opcode (IORING_REGISTER_*), arg and
 * nr_args as the kernel takes them, with its argument checks and error
 * codes. The "blind" ops (no ring: SEND_MSG_RING, QUERY) go to
 * zn_uring_register_blind. See docs/uring.md for what each op does here.
 */
int zn_uring_register(struct zn_uring *r, unsigned opcode, void *arg, unsigned nr_args);
int zn_uring_register_blind(unsigned opcode, void *arg, unsigned nr_args);

/*
 * MSG_RING without a source ring (IORING_REGISTER_SEND_MSG_RING's
 * semantics), from any thread: target gets {user_data, res, cflags}.
 * 0, -EBADFD (open but not a ring), -EBADF (nothing open: a closed ring's
 * handle), -ENOMEM.
 */
int zn_uring_msg(int target, uint64_t user_data, int32_t res, uint32_t cflags);

/*
 * Memory the ring allocated for the program (a zcrx refill region
 * registered without user memory), where Linux has it mmap the ring fd at
 * mmap_offset: an fd to map instead, at offset 0, len bytes at most
 * (mmap(..., fd, 0); the fd stays the ring's: do not close it), or
 * -EINVAL when the ring has nothing there.
 */
int zn_uring_mmap_fd(struct zn_uring *r, uint64_t mmap_offset, size_t len);
/* Wake the owner if it sleeps in a wait (any thread; a no-op otherwise). */
void zn_uring_wake(struct zn_uring *r);

/*
 * How a wait spends its time while it polls NIC queues (sockets, zcrx) and
 * nothing is ready (docs/uring.md, "Waiting"):
 *   ZN_URING_WAIT_POLL (the default): it polls until the wait ends, on a
 *     core of its own at the lowest latency;
 *   ZN_URING_WAIT_IRQ: it polls for spin_us (0: 50 us) after the last work,
 *     then arms the queues' interrupts and sleeps on their MSI-X eventfds
 *     (and on MSG_RING wake-ups, timeouts and protocol timers), and polls
 *     again when woken. Where some source has no interrupt (a transport
 *     without MSI-X, a POLL_ADD) the ring keeps polling. An SQPOLL ring's
 *     thread does the same, with IORING_SQ_NEED_WAKEUP set while it sleeps.
 * The environment variable ZN_URING_WAIT=irq or =poll sets the mode of
 * rings that never call this (unchanged liburing programs). Owner thread
 * only. 0 or -EINVAL.
 */
enum { ZN_URING_WAIT_POLL = 0, ZN_URING_WAIT_IRQ = 1 };
int zn_uring_set_wait(struct zn_uring *r, unsigned mode, uint32_t spin_us);

/* Counters, for tests and for applications that report them. */
struct zn_uring_stats {
	uint64_t sqes;		/* SQEs consumed */
	uint64_t cqes;		/* CQEs written to the CQ */
	uint64_t overflowed;	/* CQEs that went through the overflow list */
	uint64_t msgs_in;	/* MSG_RING messages received through the inbox */
	uint64_t inbox_spill;	/* ... of which took the unbounded spill path */
	uint64_t sleeps;	/* futex sleeps of the owner */
	uint64_t hook_polls;
	uint64_t irq_sleeps;	/* sleeps on NIC interrupts (ZN_URING_WAIT_IRQ) */
};
void zn_uring_get_stats(const struct zn_uring *r, struct zn_uring_stats *st);

#pragma GCC visibility pop

#endif
