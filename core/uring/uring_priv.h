/* SPDX-License-Identifier: MIT */
/*
 * core/uring internals: the ring object, its shared block, the MSG_RING
 * inbox. One ring = one owner thread (see include/zcnic/uring.h). Private
 * to core/uring: other layers use core/uring/uring_op.h.
 */
#ifndef ZN_URING_PRIV_H
#define ZN_URING_PRIV_H

#include <stdatomic.h>
#include <stdint.h>

#include "compat/liburing/io_uring.h"
#include "core/uring/uring_op.h"
#include "zcnic/uring.h"

#define ZN_CACHELINE 64

/* What rings report in io_uring_params.features and accept in enter. */
#define ZN_URING_FEATURES (IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP |	\
	IORING_FEAT_SUBMIT_STABLE | IORING_FEAT_EXT_ARG |			\
	IORING_FEAT_CQE_SKIP | IORING_FEAT_LINKED_FILE |			\
	IORING_FEAT_SQPOLL_NONFIXED | IORING_FEAT_MIN_TIMEOUT | IORING_FEAT_CUR_PERSONALITY)

#define ZN_ENTER_FLAGS (IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP |		\
	IORING_ENTER_SQ_WAIT | IORING_ENTER_EXT_ARG | IORING_ENTER_REGISTERED_RING |	\
	IORING_ENTER_ABS_TIMER | IORING_ENTER_EXT_ARG_REG)

/*
 * The ring memory the kernel would share by mmap: counters first, then the
 * SQ index array, then (cache-line aligned) the CQEs. Offsets into this
 * block are what io_uring_params.sq_off/cq_off report.
 */
struct zn_uring_shared {
	uint32_t sq_head, sq_tail;
	uint32_t cq_head, cq_tail;
	uint32_t sq_mask, cq_mask;
	uint32_t sq_entries, cq_entries;
	uint32_t sq_dropped;
	uint32_t sq_flags;
	uint32_t cq_flags;
	uint32_t cq_overflow;
	uint32_t array[];	/* sq_entries */
};

/* A CQE waiting for CQ space (kept in submission order). */
struct zn_ovf_cqe {
	struct zn_ovf_cqe *next;
	uint64_t user_data;
	int32_t res;
	uint32_t cflags;
	uint64_t big[2];
};

/*
 * MSG_RING inbox, many producers (any thread), one consumer (the owner).
 *
 * Fast path: a bounded array of slots in the style of D. Vyukov's bounded
 * MPMC queue: a producer claims position p by CAS on tail, fills slot
 * p & mask, then publishes it by storing seq = p + 1 (release); the owner
 * takes slot `head` once its seq reads head + 1 (acquire) and hands the slot
 * back for lap p + size by storing seq = head + size.
 *
 * Full array: the message goes to the spill list (an intrusive unbounded
 * MPSC list, one malloc per message, freed by the owner) and `spilled`
 * counts the messages there. While spilled != 0 every producer uses the
 * list, and the owner reads the list only when the array is empty up to
 * its tail: so messages of one producer are delivered in the order sent.
 * Nothing is dropped; a message fails only with -ENOMEM.
 */
struct zn_inbox_slot {
	_Atomic uint64_t seq;
	uint64_t user_data;
	int32_t res;
	uint32_t cflags;
	uint64_t pad;
};

struct zn_spill_msg {
	struct zn_spill_msg *_Atomic next;
	uint64_t user_data;
	int32_t res;
	uint32_t cflags;
};

struct zn_inbox {
	/* producers' side */
	_Alignas(ZN_CACHELINE) _Atomic uint64_t tail;
	_Atomic uint64_t spilled;
	struct zn_spill_msg *_Atomic spill_in;	/* last pushed (producers) */
	/* owner's side */
	_Alignas(ZN_CACHELINE) uint64_t head;
	struct zn_spill_msg *spill_out;		/* consumer position */
	struct zn_spill_msg spill_stub;
	uint64_t size, mask;
	struct zn_inbox_slot *slots;
};

struct zn_hook {
	zn_uring_poll_fn fn;
	zn_uring_arm_fn arm;		/* NULL: cannot sleep on it (interrupt mode) */
	void *arg;
	unsigned flags;
	bool used;
};

/* What IORING_REGISTER_RESTRICTIONS allows (Linux struct io_restriction). */
struct zn_restrictions {
	uint64_t register_op;			/* bit per IORING_REGISTER_* (< 64) */
	uint64_t sqe_op[(IORING_OP_LAST + 63) / 64];	/* bit per IORING_OP_* */
	uint8_t sqe_flags_allowed, sqe_flags_required;
	bool registered;
};

typedef int64_t (*zn_uring_direct_fn)(struct zn_uring *r, const struct io_uring_sqe *sqe);
#define ZN_URING_OPCODES 256	/* every value of sqe->opcode */

struct zn_uring {
	int handle;
	uint32_t flags;
	uint32_t features;
	uint32_t sq_entries, cq_entries, sq_mask, cq_mask;
	unsigned cqe_shift;		/* 1 on CQE32 rings */
	bool cqe_mixed;			/* CQE_MIXED: IORING_CQE_F_32 CQEs take two slots */
	struct zn_uring_shared *sh;
	size_t sh_size;
	uint32_t cqes_off;
	struct io_uring_cqe *cqes;
	struct io_uring_sqe *sqes;
	const void *owner;		/* thread tag of the owner */

	/* CQ overflow list, FIFO */
	struct zn_ovf_cqe *ovf_head, *ovf_tail;
	uint32_t ovf_count;

	/* the SQ-direct path (submit.c), chosen when the ring is created */
	unsigned (*direct_run)(struct zn_uring *r, uint32_t head, unsigned n);
	zn_uring_direct_fn direct[ZN_URING_OPCODES];	/* each op's direct, or NULL */

	/* requests */
	struct zn_uring_req_int *req_free;
	void **req_chunks;
	unsigned nreq_chunks;
	/* a link chain being assembled during one submit */
	struct zn_uring_req *link_head, *link_last;
	unsigned inflight;		/* ASYNC requests not yet completed */
	struct zn_uring_req_int *inflight_head;

	/* poll hooks */
	struct zn_hook hooks[ZN_URING_MAX_HOOKS];
	unsigned nhooks;		/* highest used index + 1 */
	unsigned busy_hooks;
	bool in_hooks;
	unsigned last_work;		/* what the last pass of the hooks did */

	/* exit callbacks (zn_uring_on_exit), run in reverse order */
	struct zn_exit_cb {
		void (*fn)(struct zn_uring *r, void *arg);
		void *arg;
	} exit_cbs[ZN_URING_MAX_EXIT_CBS];
	unsigned nexit_cbs;

	/* registered resources */
	struct iovec *bufs;
	unsigned nbufs;
	int *files;
	unsigned nfiles;

	/* MSG_RING's target of this submission, referenced (msg_ring.c) */
	bool msg_batch;			/* inside zn_uring_submit_sqes */
	int msg_tgt_h;
	struct zn_uring *msg_tgt;

	/* MSG_RING inbox and the owner's sleep */
	struct zn_inbox inbox;
	_Alignas(ZN_CACHELINE) _Atomic uint32_t wake_seq;
	_Atomic uint32_t sleeping;

	struct zn_uring_stats st;

	/*
	 * Set-up and register extras, each owned by its own file (kept apart
	 * from the hot fields above).
	 */
	unsigned sqe_shift;		/* 1 on SQE128 rings */
	_Atomic uint32_t disabled;	/* R_DISABLED until enable_rings (register.c) */
	int evfd;			/* eventfd signalled on new CQEs; -1 none */
	bool evfd_async;		/* ... only for CQEs posted outside submit */
	uint32_t evfd_seen;		/* CQE count at the last signal */
	/* TIMEOUT / LINK_TIMEOUT (timeout.c): armed timers, earliest first */
	struct zn_uring_req *timers;
	uint32_t cq_timeouts;		/* CQEs of timeouts: not counted by TIMEOUT off */
	/* provided buffer groups (kbuf.c) */
	struct zn_buf_group *bgroups;
	/* IOSQE_IO_DRAIN (drain.c): chains held back, in submission order */
	struct zn_drain_ent *drain_head, *drain_tail;
	bool drain_active;		/* new chains go to the FIFO */
	bool drain_after;		/* a drain was issued: the next waits for it */
	/* armed POLL_ADDs (poll.c) and their hook's id + 1 (0: none) */
	struct zn_uring_req *polls;
	int poll_hook;
	/* requests on OS fds waiting for readiness (osfd_wait.c) */
	struct zn_osfd *osfd;
	/* the SQPOLL thread (sqpoll.c); NULL without IORING_SETUP_SQPOLL */
	struct zn_sqpoll *sqp;
	/* interrupt wait mode (wait.c) */
	uint8_t wait_mode;		/* ZN_URING_WAIT_* */
	bool wait_env_read;		/* ZN_URING_WAIT looked at */
	uint64_t wait_spin_ns;		/* busy time before a sleep; 0: ZN_URING_SPIN_NS */
	_Atomic int wake_fd1;		/* eventfd a MSG_RING wakes a sleeper with, + 1 */
	/* IORING_REGISTER_RESTRICTIONS (restrict.c): registered while disabled,
	 * enforced from enable_rings on */
	struct zn_restrictions rst;
	bool restricted;
	/* IORING_REGISTER_PERSONALITY (personality.c); NULL: none yet */
	struct zn_pers_table *pers;
	/* registered-file slot allocation (filetable.c) and the lock that lets
	 * a MSG_RING SEND_FD from another thread install into files[] */
	uint32_t file_alloc_start, file_alloc_end, file_alloc_hint;
	_Atomic uint32_t files_lock;
	/* waits' clock (wait_arg.c) and the parameter region (region.c) */
	bool clock_boottime;		/* IORING_REGISTER_CLOCK CLOCK_BOOTTIME */
	bool param_set;			/* IORING_REGISTER_MEM_REGION done */
	struct zn_dma_region *param_mem; /* the region zcnic allocated; NULL: none */
	void *cq_wait_arg;		/* registered io_uring_reg_wait array */
	size_t cq_wait_size;		/* its bytes; 0: none */
};

/* ring.c */
const void *zn_uring_thread_tag(void);
/* The kernel's io_uring_fill_params: checks, rounding, sizes into p. */
int zn_uring_fill_params(unsigned entries, struct io_uring_params *p);
/* The offsets into the ring block that p->sq_off / cq_off report. */
void zn_uring_fill_offsets(unsigned flags, uint32_t cqes_off, struct io_uring_params *p);
/* A ring's memory: the shared block (counters, SQ array, CQEs) and the SQEs. */
struct zn_uring_rings {
	struct zn_uring_shared *sh;
	size_t sh_size;
	uint32_t cqes_off;
	struct io_uring_sqe *sqes;
};
uint32_t zn_uring_cqes_off(uint32_t sq_entries);
int zn_uring_rings_alloc(struct zn_uring_rings *n, unsigned flags, uint32_t sq_entries,
			 uint32_t cq_entries);
void zn_uring_rings_install(struct zn_uring *r, const struct zn_uring_rings *n,
			    uint32_t sq_entries, uint32_t cq_entries);
/* cqe_mixed.c: a 32-byte CQE on a CQE_MIXED ring, at the CQ tail */
void zn_cq_write_mixed32(struct zn_uring *r, uint64_t user_data, int32_t res, uint32_t cflags,
			 const uint64_t big[2]);
/* resize.c: IORING_REGISTER_RESIZE_RINGS */
int zn_uring_resize_rings(struct zn_uring *r, void *arg, unsigned nr_args);
/* Forks seen by this process's line (a child counts one more than its
 * parent), once any ring was created: threads do not survive a fork. */
unsigned zn_uring_fork_gen(void);
/* A MSG_RING target fd that is no live ring: -EBADF if it names nothing
 * open (a closed handle, no such fd), -EBADFD if it is something else. */
int zn_uring_not_a_ring(int fd);
int zn_uring_flush_overflow(struct zn_uring *r);
/* submit.c */
void zn_uring_submit_setup(struct zn_uring *r);
zn_uring_direct_fn zn_uring_direct_of(unsigned opcode);
int zn_uring_submit_sqes(struct zn_uring *r, unsigned to_submit);
void zn_uring_req_cache_free(struct zn_uring *r);
void zn_uring_req_cancel_all(struct zn_uring *r);
/* submit.c: the in-flight (ASYNC) requests, for cancellation */
struct zn_uring_req *zn_uring_inflight_first(struct zn_uring *r);
struct zn_uring_req *zn_uring_inflight_next(struct zn_uring_req *req);
bool zn_uring_req_is_inflight(struct zn_uring *r, struct zn_uring_req *req);
/* Cancel an in-flight request: its op lets go, it completes with res. 0,
 * or -EALREADY when its op cannot be stopped. */
int zn_uring_req_cancel(struct zn_uring_req *req, int32_t res);
/* Complete a request that is not in flight (a LINK_TIMEOUT unhooked from
 * its chain): post res, free it. */
void zn_uring_req_finish(struct zn_uring_req *req, int32_t res);
/* Issue a chain assembled at submission (drain.c runs deferred ones). */
void zn_uring_run_chain(struct zn_uring *r, struct zn_uring_req *head);
/* drain.c */
int zn_uring_drain_defer(struct zn_uring *r, struct zn_uring_req *head, bool drain);
void zn_uring_drain_flush(struct zn_uring *r);
void zn_uring_drain_destroy(struct zn_uring *r);
/* timeout.c */
void zn_uring_timers_run(struct zn_uring *r);
uint64_t zn_uring_timers_next(const struct zn_uring *r);	/* 0: none */
void zn_uring_link_timeout_arm(struct zn_uring_req *lt, struct zn_uring_req *head);
void zn_uring_link_timeout_disarm(struct zn_uring *r, struct zn_uring_req *lt);
void zn_uring_timers_cancel_all(struct zn_uring *r);
int zn_uring_timeout_cancel(struct zn_uring *r, uint64_t user_data);
/* cancel.c */
struct zn_cancel_data {
	uint64_t user_data;
	uint32_t flags;		/* IORING_ASYNC_CANCEL_* */
	int file;
	uint8_t opcode;
};
int zn_uring_cancel(struct zn_uring *r, const struct zn_cancel_data *cd);
int zn_uring_cancel_resolve_fd(struct zn_uring *r, struct zn_cancel_data *cd, int fd, bool fixed);
/* Registered files beyond the installed API (rsrc.c): FILES2 (SPARSE) and
 * the FILES_UPDATE / FILES_UPDATE2 updates. */
struct io_uring_rsrc_register;
int zn_uring_register_files2(struct zn_uring *r, const struct io_uring_rsrc_register *rr,
			     unsigned size);
int zn_uring_files_update(struct zn_uring *r, unsigned off, const int *handles, unsigned nr);
/* filetable.c: slot allocation (IORING_FILE_INDEX_ALLOC) and the table's
 * lock. Writers of files[] hold the lock; the owner reads without it. */
void zn_files_lock(struct zn_uring *r);
void zn_files_unlock(struct zn_uring *r);
void zn_files_set_slot(struct zn_uring *r, unsigned idx, int h);	/* locked */
void zn_files_alloc_range(struct zn_uring *r, uint32_t off, uint32_t len);
/* Linux __io_fixed_fd_install: slot + 1, or IORING_FILE_INDEX_ALLOC; the
 * slot used (ALLOC) or 0, -ENXIO, -EINVAL, -ENFILE. Locked. */
int zn_files_install(struct zn_uring *r, int h, uint32_t file_slot);
int zn_files_register_alloc_range(struct zn_uring *r, const void *arg, unsigned nr);
/* A handle a file table may hold (fget's answer): 0 or -EBADF. */
int zn_files_check_handle(int h);
/* restrict.c */
int zn_uring_register_restrictions(struct zn_uring *r, const void *arg, unsigned nr);
void zn_uring_restrictions_enable(struct zn_uring *r);
bool zn_uring_restrict_sqe_ok(const struct zn_uring *r, unsigned opcode, unsigned flags);
static inline bool zn_uring_restrict_reg_ok(const struct zn_uring *r, unsigned opcode)
{
	return opcode < 64 && (r->rst.register_op >> opcode & 1);
}
/* personality.c */
int zn_uring_register_personality(struct zn_uring *r);
int zn_uring_unregister_personality(struct zn_uring *r, unsigned id);
/* 0 if id is registered on r, else -EINVAL (io_init_req). */
int zn_uring_personality_check(const struct zn_uring *r, unsigned id);
/* msg_fd.c: IORING_MSG_SEND_FD from self to the ring t (held). */
struct zn_msg_fd {
	uint64_t user_data;
	uint32_t len, src_fd, dst_fd, flags;
};
int zn_msg_send_fd(struct zn_uring *self, struct zn_uring *t, const struct zn_msg_fd *m);
/* kbuf.c */
void zn_uring_bufs_destroy(struct zn_uring *r);
int zn_uring_pbuf_ring_register(struct zn_uring *r, const struct io_uring_buf_reg *reg);
int zn_uring_pbuf_ring_unregister(struct zn_uring *r, const struct io_uring_buf_reg *reg);
int zn_uring_pbuf_status(struct zn_uring *r, struct io_uring_buf_status *st);
/* register.c */
void zn_uring_evfd_signal(struct zn_uring *r, bool from_submit);
/* Another thread posted into r's inbox (TASKRUN flag, eventfd, SQPOLL). */
void zn_uring_notify(struct zn_uring *r);
/* wait.c: the SQPOLL thread's sleep on its NICs' interrupts, and its wake-up */
int zn_uring_irq_idle(struct zn_uring *r, uint64_t last_work_ns);
void zn_uring_irq_kick(struct zn_uring *r);
/* wait_arg.c, region.c: IORING_REGISTER_CLOCK, IORING_REGISTER_MEM_REGION
 * and the mmap of a region zcnic allocated */
int zn_uring_register_clock(struct zn_uring *r, const struct io_uring_clock_register *arg);
int zn_uring_register_mem_region(struct zn_uring *r, const struct io_uring_mem_region_reg *arg);
int zn_uring_param_region_fd(struct zn_uring *r, uint64_t off, uint64_t len);
/* sqpoll.c */
int zn_sqpoll_start(struct zn_uring *r, const struct io_uring_params *p);
void zn_sqpoll_stop(struct zn_uring *r);
void zn_sqpoll_wake(struct zn_uring *r);
/* Hold the polling thread out of the ring (register calls); no-ops without SQPOLL. */
void zn_sqpoll_park(struct zn_uring *r);
void zn_sqpoll_unpark(struct zn_uring *r);
bool zn_sqpoll_is_thread(const struct zn_uring *r);
/* zn_uring_enter of an SQPOLL ring, from the application's thread. */
struct zn_wait_arg;
int zn_sqpoll_enter(struct zn_uring *r, unsigned to_submit, unsigned min_complete,
		    unsigned flags, const void *arg, size_t argsz, const struct zn_wait_arg *pre);
/* msg_ring.c */
int zn_inbox_init(struct zn_inbox *ib, uint32_t cq_entries);
void zn_inbox_fini(struct zn_inbox *ib);
unsigned zn_inbox_drain(struct zn_uring *r);
bool zn_inbox_empty(struct zn_inbox *ib);
int zn_inbox_post(struct zn_uring *target, uint64_t user_data, int32_t res, uint32_t cflags);
void zn_msg_ring_batch_end(struct zn_uring *r);

static inline uint32_t zn_load_acq(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void zn_store_rel(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline struct io_uring_cqe *zn_cqe_at(struct zn_uring *r, uint32_t idx)
{
	return &r->cqes[(idx & r->cq_mask) << r->cqe_shift];
}

/*
 * CQ slots a CQE takes at tail: 1; on a CQE_MIXED ring a 32-byte one
 * (IORING_CQE_F_32) takes 2, and 3 at the last slot, which a pad CQE
 * (IORING_CQE_F_SKIP) fills first so that the two halves stay together.
 */
static inline uint32_t zn_cq_slots(const struct zn_uring *r, uint32_t tail, uint32_t cflags)
{
	if (__builtin_expect(!(cflags & IORING_CQE_F_32), 1) || !r->cqe_mixed)
		return 1;
	return (tail & r->cq_mask) == r->cq_mask ? 3 : 2;
}

/* Write one CQE into a free CQ slot; the tail store publishes it. */
static inline void zn_cq_write(struct zn_uring *r, uint64_t user_data, int32_t res,
			       uint32_t cflags, const uint64_t big[2])
{
	struct zn_uring_shared *sh = r->sh;
	uint32_t tail = sh->cq_tail;
	struct io_uring_cqe *cqe = zn_cqe_at(r, tail);

	if (__builtin_expect(cflags & IORING_CQE_F_32, 0) && r->cqe_mixed) {
		zn_cq_write_mixed32(r, user_data, res, cflags, big);
		return;
	}
	cqe->user_data = user_data;
	cqe->res = res;
	cqe->flags = cflags;
	if (r->cqe_shift) {
		cqe->big_cqe[0] = big ? big[0] : 0;
		cqe->big_cqe[1] = big ? big[1] : 0;
	}
	/* CQE contents before the tail that hands it to the application */
	zn_store_rel(&sh->cq_tail, tail + 1);
	r->st.cqes++;
}

/*
 * zn_uring_post_cqe inside core/uring, its common case inline: no overflow
 * backlog and a free CQ slot.
 */
static inline int zn_cq_post(struct zn_uring *r, uint64_t user_data, int32_t res,
			     uint32_t cflags, const uint64_t big[2])
{
	uint32_t tail = r->sh->cq_tail;

	if (__builtin_expect(r->ovf_count || r->cq_entries - (tail - zn_load_acq(&r->sh->cq_head)) <
			     zn_cq_slots(r, tail, cflags), 0))
		return zn_uring_post_cqe(r, user_data, res, cflags, big, 0);
	zn_cq_write(r, user_data, res, cflags, big);
	return 0;
}

/*
 * The op of a valid opcode (< IORING_OP_LAST): the composition root's
 * table read directly unless a test overrode an op (op_nop.c).
 */
extern bool zn_uring_ops_overridden;

static inline const struct zn_uring_op *zn_uring_op_lookup(unsigned opcode)
{
	const struct zn_uring_op *op = zn_uring_plugins.ops[opcode];

	if (__builtin_expect(!op || __atomic_load_n(&zn_uring_ops_overridden, __ATOMIC_RELAXED), 0))
		return zn_uring_op_get(opcode);
	return op;
}

/* The ops whose SQE is 128 bytes on an SQE_MIXED ring (Linux's is_128). */
static inline bool zn_uring_op_is_128(unsigned opcode)
{
	return opcode == IORING_OP_NOP128 || opcode == IORING_OP_URING_CMD128;
}

/*
 * The plain NOP's direct result (op_nop.c), inline for the SQ-direct run:
 * one with nop_flags goes through prep.
 */
static inline int64_t zn_nop_direct(const struct io_uring_sqe *sqe)
{
	return sqe->nop_flags ? ZN_URING_DIRECT_NO : 0;
}

#endif
