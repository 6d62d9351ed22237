/* SPDX-License-Identifier: MIT */
/*
 * liburing-compatible API over zcnic rings.
 *
 * A program written against liburing builds against this header with only
 * the include path changed (-I<prefix>/include/zcnic-compat, which
 * `pkg-config --cflags zcnic` gives): the names, signatures, return
 * conventions (0 / count, or a negative errno) and inline/library split
 * follow liburing (axboe/liburing src/include/liburing.h). Written for
 * zcnic.
 *
 * What is different underneath (docs/uring.md has the full list):
 *  - there is no kernel: io_uring_submit/wait run zcnic's ring code in the
 *    calling thread, which also polls the NIC queues bound to the ring;
 *  - "file descriptors" in SQEs and ring.ring_fd are zcnic handles
 *    (include/zcnic/handle.h), not OS fds;
 *  - only the opcodes zcnic implements do something (NOP, MSG_RING,
 *    TIMEOUT, TIMEOUT_REMOVE, LINK_TIMEOUT, ASYNC_CANCEL, PROVIDE_BUFFERS,
 *    REMOVE_BUFFERS, and on zcnic sockets SEND, RECV, SEND_ZC, SENDMSG_ZC,
 *    RECV_ZC); io_uring_opcode_supported says which; others complete with
 *    -EOPNOTSUPP.
 *
 * struct io_uring has liburing's layout (216 bytes on LP64), so code that
 * reads ring.ring_fd, ring.flags, ring.features or the sq/cq members works.
 */
#ifndef LIB_URING_H
#define LIB_URING_H

/* What liburing's header pulls in, so programs that rely on it build. */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/swab.h>
#include <linux/filter.h>
#include <linux/ioctl.h>
#include <linux/openat2.h>
#include <linux/time_types.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>	/* syscall(2)'s declaration before the macro below */

#include "liburing/io_uring.h"
#include "liburing/io_uring/query.h"
#include "liburing/io_uring/bpf_filter.h"
#include "liburing/barrier.h"
#include "liburing/io_uring_version.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

/* <linux/io_uring.h> of an older kernel may have won the include guard. */
#ifndef IORING_MSG_RING_FLAGS_PASS
#define IORING_MSG_RING_FLAGS_PASS	(1U << 1)
#endif
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE	(1U << 3)
#endif

#ifndef uring_unlikely
#define uring_unlikely(cond)	__builtin_expect(!!(cond), 0)
#endif
#ifndef uring_likely
#define uring_likely(cond)	__builtin_expect(!!(cond), 1)
#endif

#ifndef IOURINGINLINE
#define IOURINGINLINE static inline
#endif

/* For the SQE fields that carry user pointers as u64. */
IOURINGINLINE __u64 uring_ptr_to_u64(const void *ptr)
{
	return (__u64)(uintptr_t)ptr;
}

#ifdef __cplusplus
extern "C" {
#endif

struct io_uring_sq {
	unsigned *khead;
	unsigned *ktail;
	unsigned *kring_mask;		/* deprecated in liburing: use ring_mask */
	unsigned *kring_entries;	/* deprecated in liburing: use ring_entries */
	unsigned *kflags;
	unsigned *kdropped;
	unsigned *array;
	struct io_uring_sqe *sqes;

	unsigned sqe_head;
	unsigned sqe_tail;

	size_t ring_sz;
	void *ring_ptr;

	unsigned ring_mask;
	unsigned ring_entries;

	unsigned sqes_sz;
	unsigned pad;
};

struct io_uring_cq {
	unsigned *khead;
	unsigned *ktail;
	unsigned *kring_mask;
	unsigned *kring_entries;
	unsigned *kflags;
	unsigned *koverflow;
	struct io_uring_cqe *cqes;

	size_t ring_sz;
	void *ring_ptr;

	unsigned ring_mask;
	unsigned ring_entries;

	unsigned pad[2];
};

struct io_uring {
	struct io_uring_sq sq;
	struct io_uring_cq cq;
	unsigned flags;
	int ring_fd;		/* the ring's zcnic handle */

	unsigned features;
	int enter_ring_fd;
	__u8 int_flags;
	__u8 pad[3];
	unsigned pad2;
};

/* liburing's helper for a zcrx refill queue (no functions use it; apps fill it
 * from io_uring_zcrx_ifq_reg.offsets). */
struct io_uring_zcrx_rq {
	__u32 *khead;
	__u32 *ktail;
	__u32 rq_tail;
	unsigned ring_entries;
	struct io_uring_zcrx_rqe *rqes;
	void *ring_ptr;
};

#if !defined(__cplusplus) && defined(__LP64__)
_Static_assert(sizeof(struct io_uring_zcrx_rq) == 40, "liburing layout: io_uring_zcrx_rq");
_Static_assert(sizeof(struct io_uring_sq) == 104, "liburing layout: io_uring_sq");
_Static_assert(sizeof(struct io_uring_cq) == 88, "liburing layout: io_uring_cq");
_Static_assert(sizeof(struct io_uring) == 216, "liburing layout: io_uring");
_Static_assert(offsetof(struct io_uring, ring_fd) == 196, "liburing layout: ring_fd");
#endif

/* Library interface (core/uring/compat/liburing.c). */
int io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
			       struct io_uring_params *p);
int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags);
void io_uring_queue_exit(struct io_uring *ring);
unsigned io_uring_peek_batch_cqe(struct io_uring *ring, struct io_uring_cqe **cqes,
				 unsigned count);
int io_uring_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
		       unsigned wait_nr, struct __kernel_timespec *ts, sigset_t *sigmask);
int io_uring_wait_cqe_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      struct __kernel_timespec *ts);
int io_uring_submit(struct io_uring *ring);
int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr);
int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				     unsigned wait_nr, struct __kernel_timespec *ts,
				     sigset_t *sigmask);
int io_uring_submit_and_get_events(struct io_uring *ring);
int io_uring_get_events(struct io_uring *ring);

struct io_uring_probe *io_uring_get_probe_ring(struct io_uring *ring);
struct io_uring_probe *io_uring_get_probe(void);
void io_uring_free_probe(struct io_uring_probe *probe);

IOURINGINLINE int io_uring_opcode_supported(const struct io_uring_probe *p, int op)
{
	if (op > p->last_op)
		return 0;
	return (p->ops[op].flags & IO_URING_OP_SUPPORTED) != 0;
}

int io_uring_register_buffers(struct io_uring *ring, const struct iovec *iovecs,
			      unsigned nr_iovecs);
int io_uring_unregister_buffers(struct io_uring *ring);
int io_uring_register_files(struct io_uring *ring, const int *files, unsigned nr_files);
int io_uring_unregister_files(struct io_uring *ring);
/* Ring fds need no registering in zcnic: succeeds (1) and changes nothing. */
int io_uring_register_ring_fd(struct io_uring *ring);
int io_uring_unregister_ring_fd(struct io_uring *ring);
/*
 * IORING_REGISTER_ZCRX_IFQ. Returns -EOPNOTSUPP until zcnic's zcrx layer
 * (core/zcrx) is built in and installs itself; the struct layouts are
 * final already.
 */
int io_uring_register_ifq(struct io_uring *ring, struct io_uring_zcrx_ifq_reg *reg);
/* A MSG_RING data message without a source ring (any thread). */
int io_uring_register_sync_msg(struct io_uring_sqe *sqe);

/*
 * io_uring_register(2) itself, over zcnic rings: fd is ring.ring_fd (a
 * handle), or -1 for the ring-less ops (SEND_MSG_RING, QUERY). The
 * wrappers below go through it, as liburing's do.
 */
/*
 * mmap(2) of a ring handle, as liburing programs map memory the kernel
 * allocated for them (a zcrx refill region registered without user memory:
 * mmap(NULL, size, ..., ring_fd, region.mmap_offset)). Ring handles are no
 * files, so this header routes mmap here: a ring handle maps the memory the
 * ring allocated (errno EINVAL if it has none at that offset), any other
 * fd goes to mmap(2) unchanged. The mapping is the program's: munmap(2) it
 * as usual. Define ZN_COMPAT_NO_MMAP before including to keep mmap as is.
 */
void *io_uring_compat_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
#ifndef ZN_COMPAT_NO_MMAP
#define mmap(addr, len, prot, flags, fd, off) io_uring_compat_mmap(addr, len, prot, flags, fd, off)
#endif

int io_uring_register(unsigned int fd, unsigned int opcode, const void *arg,
		      unsigned int nr_args);
/*
 * syscall(2), for programs that make the io_uring system calls themselves
 * (syscall(__NR_io_uring_enter, ring.ring_fd, ...), as liburing's own
 * tests do through its syscall.h): this header routes syscall here.
 * io_uring_setup always makes a zcnic ring; io_uring_enter and
 * io_uring_register on a zcnic handle (or register with fd -1) go to
 * zcnic's; everything else goes to syscall(2) unchanged. As syscall(2):
 * -1 with errno set on failure. Define ZN_COMPAT_NO_SYSCALL before
 * including to keep syscall as is.
 */
long io_uring_compat_syscall(long number, ...);
#ifndef ZN_COMPAT_NO_SYSCALL
#define syscall(...) io_uring_compat_syscall(__VA_ARGS__)
#endif
int io_uring_register_probe(struct io_uring *ring, struct io_uring_probe *p, unsigned nr_ops);
/* An eventfd written when CQEs are posted (_async: only by requests that
 * did not complete inside submit). */
int io_uring_register_eventfd(struct io_uring *ring, int fd);
int io_uring_register_eventfd_async(struct io_uring *ring, int fd);
int io_uring_unregister_eventfd(struct io_uring *ring);
/* IORING_SETUP_R_DISABLED rings: submissions are -EBADFD until this. */
int io_uring_enable_rings(struct io_uring *ring);
/* zcnic has no io-wq workers: these check their arguments and succeed. */
int io_uring_register_iowq_aff(struct io_uring *ring, size_t cpusz, const cpu_set_t *mask);
int io_uring_unregister_iowq_aff(struct io_uring *ring);
int io_uring_register_iowq_max_workers(struct io_uring *ring, unsigned int *values);
/* Ring-mapped provided buffers (IOSQE_BUFFER_SELECT). */
int io_uring_register_buf_ring(struct io_uring *ring, struct io_uring_buf_reg *reg,
			       unsigned int flags);
int io_uring_unregister_buf_ring(struct io_uring *ring, int bgid);
int io_uring_buf_ring_head(struct io_uring *ring, int buf_group, uint16_t *head);
struct io_uring_buf_ring *io_uring_setup_buf_ring(struct io_uring *ring, unsigned int nentries,
						  int bgid, unsigned int flags, int *err);
int io_uring_free_buf_ring(struct io_uring *ring, struct io_uring_buf_ring *br,
			   unsigned int nentries, int bgid);
int io_uring_register_sync_cancel(struct io_uring *ring, struct io_uring_sync_cancel_reg *reg);
int io_uring_register_query(struct io_uring_query_hdr *query);
/* IORING_REGISTER_ZCRX_CTRL: ZCRX_CTRL_FLUSH_RQ (EXPORT: -EOPNOTSUPP). */
int io_uring_register_zcrx_ctrl(struct io_uring *ring, struct zcrx_ctrl *ctrl);
/* IORING_REGISTER_BPF_FILTER: -EINVAL, a kernel without BPF filters' answer. */
int io_uring_register_bpf_filter(struct io_uring *ring, struct io_uring_bpf *bpf);
int io_uring_register_bpf_filter_task(struct io_uring_bpf *bpf);


/* liburing's version: the compat header follows 2.15 (IO_URING_VERSION_*). */
int io_uring_major_version(void);
int io_uring_minor_version(void);
bool io_uring_check_version(int major, int minor);
#define IO_URING_CHECK_VERSION(major, minor)				\
	((major) > IO_URING_VERSION_MAJOR ||				\
	 ((major) == IO_URING_VERSION_MAJOR && (minor) > IO_URING_VERSION_MINOR))

/*
 * The raw calls, over zcnic rings: io_uring_setup creates a ring and
 * returns its handle (a ring handle is no OS fd: io_uring_queue_mmap,
 * not mmap(2), gives the struct io_uring for it, and close(2) does not
 * free it); io_uring_enter/enter2 are the kernel's call on that handle
 * (negative errno, as liburing's wrappers return).
 */
int io_uring_setup(unsigned int entries, struct io_uring_params *p);
int io_uring_enter(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
		   unsigned int flags, sigset_t *sig);
int io_uring_enter2(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
		    unsigned int flags, void *arg, size_t sz);
int io_uring_queue_mmap(int fd, struct io_uring_params *p, struct io_uring *ring);
/*
 * liburing's internal set-up steps (its src/setup.h), which its tests call:
 * io_uring_queue_init_params with NO_MMAP memory (refused: zcnic refuses
 * NO_MMAP), "mapping" a ring handle into struct io_uring_sq/cq (pointers
 * into the memory the ring owns, valid until it exits or is resized;
 * -EINVAL when p describes another size than the ring has), pointers from
 * p's offsets, and unmapping (nothing to undo).
 */
int __io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
				 struct io_uring_params *p, void *buf, size_t buf_size);
int io_uring_mmap(int fd, struct io_uring_params *p, struct io_uring_sq *sq,
		  struct io_uring_cq *cq);
void io_uring_setup_ring_pointers(struct io_uring_params *p, struct io_uring_sq *sq,
				  struct io_uring_cq *cq);
void io_uring_unmap_rings(struct io_uring_sq *sq, struct io_uring_cq *cq);
/* Rings in memory the program gives (IORING_SETUP_NO_MMAP): -EINVAL, as
 * zcnic refuses NO_MMAP; the sizes are the program's to pass anyway. */
int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring, struct io_uring_params *p,
			    void *buf, size_t buf_size);
ssize_t io_uring_memory_size(unsigned entries, unsigned flags);
ssize_t io_uring_memory_size_params(unsigned entries, struct io_uring_params *p);
/* No memory is locked for a ring (the kernel's FEAT_NATIVE_WORKERS answer). */
ssize_t io_uring_mlock_size(unsigned entries, unsigned flags);
ssize_t io_uring_mlock_size_params(unsigned entries, struct io_uring_params *p);
/* Ring memory is the library's; nothing to keep from a child. */
int io_uring_ring_dontfork(struct io_uring *ring);
/* The ring fd cannot be closed: zcnic has no registered-ring-only mode. */
int io_uring_close_ring_fd(struct io_uring *ring);
/* Wait for SQ space on an SQPOLL ring (0 at once on others). */
int io_uring_sqring_wait(struct io_uring *ring);
int __io_uring_sqring_wait(struct io_uring *ring);
/* Min-timeout waits (IORING_FEAT_MIN_TIMEOUT): wait_nr CQEs end the wait
 * early; after min_wait any CQE does; ts bounds the wait after min_wait. */
int io_uring_submit_and_wait_min_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
					 unsigned wait_nr, struct __kernel_timespec *ts,
					 unsigned min_wait, sigset_t *sigmask);
int io_uring_wait_cqes_min_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				   unsigned wait_nr, struct __kernel_timespec *ts,
				   unsigned int min_wait_usec, sigset_t *sigmask);
int io_uring_submit_and_wait_reg(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				 unsigned wait_nr, int reg_index);
/* Registration wrappers over io_uring_register(): the engine's dispatch
 * answers each as docs/uring.md says (-EOPNOTSUPP where not implemented). */
int io_uring_register_files_update(struct io_uring *ring, unsigned off, const int *files,
				   unsigned nr_files);
int io_uring_register_files_sparse(struct io_uring *ring, unsigned nr);
int io_uring_register_files_tags(struct io_uring *ring, const int *files, const __u64 *tags,
				 unsigned nr);
int io_uring_register_files_update_tag(struct io_uring *ring, unsigned off, const int *files,
				       const __u64 *tags, unsigned nr_files);
int io_uring_register_buffers_sparse(struct io_uring *ring, unsigned nr);
int io_uring_register_buffers_tags(struct io_uring *ring, const struct iovec *iovecs,
				   const __u64 *tags, unsigned nr);
int io_uring_register_buffers_update_tag(struct io_uring *ring, unsigned off,
					 const struct iovec *iovecs, const __u64 *tags,
					 unsigned nr);
int io_uring_register_file_alloc_range(struct io_uring *ring, unsigned off, unsigned len);
int io_uring_register_personality(struct io_uring *ring);
int io_uring_unregister_personality(struct io_uring *ring, int id);
int io_uring_register_restrictions(struct io_uring *ring, struct io_uring_restriction *res,
				   unsigned int nr_res);
int io_uring_register_clock(struct io_uring *ring, struct io_uring_clock_register *arg);
int io_uring_register_napi(struct io_uring *ring, struct io_uring_napi *napi);
int io_uring_unregister_napi(struct io_uring *ring, struct io_uring_napi *napi);
int io_uring_register_region(struct io_uring *ring, struct io_uring_mem_region_reg *reg);
int io_uring_register_wait_reg(struct io_uring *ring, struct io_uring_reg_wait *reg, int nr);
int io_uring_resize_rings(struct io_uring *ring, struct io_uring_params *p);
int io_uring_clone_buffers(struct io_uring *dst, struct io_uring *src);
int io_uring_clone_buffers_offset(struct io_uring *dst, struct io_uring *src,
				  unsigned int dst_off, unsigned int src_off, unsigned int nr,
				  unsigned int flags);
int __io_uring_clone_buffers(struct io_uring *dst, struct io_uring *src, unsigned int flags);
int __io_uring_clone_buffers_offset(struct io_uring *dst, struct io_uring *src,
				    unsigned int dst_off, unsigned int src_off, unsigned int nr,
				    unsigned int flags);

/* An eventfd registered on the ring is muted while the flag is set. */
IOURINGINLINE bool io_uring_cq_eventfd_enabled(const struct io_uring *ring)
{
	if (!ring->cq.kflags)
		return true;
	return !(*ring->cq.kflags & IORING_CQ_EVENTFD_DISABLED);
}

IOURINGINLINE int io_uring_cq_eventfd_toggle(struct io_uring *ring, bool enabled)
{
	uint32_t flags;

	if (!!enabled == io_uring_cq_eventfd_enabled(ring))
		return 0;
	if (!ring->cq.kflags)
		return -EOPNOTSUPP;
	flags = *ring->cq.kflags;
	if (enabled)
		flags &= ~IORING_CQ_EVENTFD_DISABLED;
	else
		flags |= IORING_CQ_EVENTFD_DISABLED;
	IO_URING_WRITE_ONCE(*ring->cq.kflags, flags);
	return 0;
}

/* IORING_FEAT_NO_IOWAIT is not reported: there is no iowait accounting. */
IOURINGINLINE int io_uring_set_iowait(struct io_uring *ring, bool enable_iowait)
{
	(void)ring;
	(void)enable_iowait;
	return -EOPNOTSUPP;
}

/* The SQ head as the ring publishes it (SQPOLL rings move it themselves). */
IOURINGINLINE unsigned io_uring_load_sq_head(const struct io_uring *ring)
{
	if (ring->flags & IORING_SETUP_SQPOLL)
		return io_uring_smp_load_acquire(ring->sq.khead);
	return *ring->sq.khead;
}

/* Helper behind the peek/wait inlines, exported as in liburing. */
int __io_uring_get_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
		       unsigned submit, unsigned wait_nr, sigset_t *sigmask);

/* SQE index step: 1 on IORING_SETUP_SQE128 rings (SQE i is sqes[i << 1]). */
IOURINGINLINE unsigned io_uring_sqe_shift_from_flags(unsigned flags)
{
	return !!(flags & IORING_SETUP_SQE128);
}

IOURINGINLINE unsigned io_uring_sqe_shift(const struct io_uring *ring)
{
	return io_uring_sqe_shift_from_flags(ring->flags);
}

/* CQE index step: 1 on IORING_SETUP_CQE32 rings. A CQE_MIXED ring indexes
 * 16-byte slots; its 32-byte CQEs (IORING_CQE_F_32) take two. */
IOURINGINLINE unsigned io_uring_cqe_shift_from_flags(unsigned flags)
{
	return !!(flags & IORING_SETUP_CQE32);
}

IOURINGINLINE unsigned io_uring_cqe_shift(const struct io_uring *ring)
{
	return io_uring_cqe_shift_from_flags(ring->flags);
}

#define io_uring_cqe_index(ring, ptr, mask) (((ptr) & (mask)) << io_uring_cqe_shift(ring))

/* CQ slots one CQE takes (2 for an IORING_CQE_F_32 CQE on mixed rings). */
IOURINGINLINE unsigned io_uring_cqe_nr(const struct io_uring_cqe *cqe)
{
	return 1U << !!(cqe->flags & IORING_CQE_F_32);
}

/* A walk over the CQEs ready when it starts, as liburing's. */
struct io_uring_cqe_iter {
	struct io_uring_cqe *cqes;
	unsigned mask;
	unsigned shift;
	unsigned head;
	unsigned tail;
};

IOURINGINLINE struct io_uring_cqe_iter io_uring_cqe_iter_init(const struct io_uring *ring)
{
	return (struct io_uring_cqe_iter) {
		.cqes = ring->cq.cqes,
		.mask = ring->cq.ring_mask,
		.shift = io_uring_cqe_shift(ring),
		.head = *ring->cq.khead,
		/* the acquire orders the CQE reads after the tail */
		.tail = io_uring_smp_load_acquire(ring->cq.ktail),
	};
}

IOURINGINLINE bool io_uring_cqe_iter_next(struct io_uring_cqe_iter *iter,
					  struct io_uring_cqe **cqe)
{
	if (iter->head == iter->tail)
		return false;
	*cqe = &iter->cqes[(iter->head++ & iter->mask) << iter->shift];
	if ((*cqe)->flags & IORING_CQE_F_32)
		iter->head++;
	return true;
}

/*
 * Walk the ready CQEs without consuming them; call io_uring_cq_advance()
 * with the slots seen afterwards. head is written for compatibility only,
 * as in liburing (the iterator keeps head and tail).
 */
#define io_uring_for_each_cqe(ring, __head__, cqe)					\
	for (struct io_uring_cqe_iter __ITER__ = io_uring_cqe_iter_init(ring);		\
	     (__head__) = __ITER__.head, io_uring_cqe_iter_next(&__ITER__, &(cqe));	\
	     (void)(__head__))

/* Give nr CQ slots back; the release orders our CQE reads before it. */
IOURINGINLINE void io_uring_cq_advance(struct io_uring *ring, unsigned nr)
{
	if (nr) {
		struct io_uring_cq *cq = &ring->cq;

		io_uring_smp_store_release(cq->khead, *cq->khead + nr);
	}
}

IOURINGINLINE void io_uring_cqe_seen(struct io_uring *ring, struct io_uring_cqe *cqe)
{
	if (cqe)
		io_uring_cq_advance(ring, io_uring_cqe_nr(cqe));
}

IOURINGINLINE void io_uring_sqe_set_data(struct io_uring_sqe *sqe, void *data)
{
	sqe->user_data = (unsigned long)data;
}

IOURINGINLINE void *io_uring_cqe_get_data(const struct io_uring_cqe *cqe)
{
	return (void *)(uintptr_t)cqe->user_data;
}

IOURINGINLINE void io_uring_sqe_set_data64(struct io_uring_sqe *sqe, __u64 data)
{
	sqe->user_data = data;
}

IOURINGINLINE __u64 io_uring_cqe_get_data64(const struct io_uring_cqe *cqe)
{
	return cqe->user_data;
}

#define LIBURING_HAVE_DATA64

IOURINGINLINE void io_uring_sqe_set_flags(struct io_uring_sqe *sqe, unsigned flags)
{
	sqe->flags = (__u8)flags;
}

IOURINGINLINE void io_uring_prep_rw(int op, struct io_uring_sqe *sqe, int fd,
				    const void *addr, unsigned len, __u64 offset)
{
	sqe->opcode = (__u8)op;
	sqe->fd = fd;
	sqe->off = offset;
	sqe->addr = (unsigned long)addr;
	sqe->len = len;
}

IOURINGINLINE void io_uring_prep_nop(struct io_uring_sqe *sqe)
{
	io_uring_prep_rw(IORING_OP_NOP, sqe, -1, NULL, 0, 0);
}

/* A NOP in a 128-byte SQE (io_uring_get_sqe128; IORING_SETUP_SQE_MIXED). */
IOURINGINLINE void io_uring_prep_nop128(struct io_uring_sqe *sqe)
{
	io_uring_prep_rw(IORING_OP_NOP128, sqe, -1, NULL, 0, 0);
}

/*
 * liburing's other prep helpers, with its signatures, so that programs that
 * use them build. What zcnic does not implement completes with -EOPNOTSUPP
 * (io_uring_get_probe tells which opcodes work).
 */
IOURINGINLINE void io_uring_prep_read(struct io_uring_sqe *sqe, int fd, void *buf,
				      unsigned nbytes, __u64 offset)
{
	io_uring_prep_rw(IORING_OP_READ, sqe, fd, buf, nbytes, offset);
}

IOURINGINLINE void io_uring_prep_write(struct io_uring_sqe *sqe, int fd, const void *buf,
				       unsigned nbytes, __u64 offset)
{
	io_uring_prep_rw(IORING_OP_WRITE, sqe, fd, buf, nbytes, offset);
}

IOURINGINLINE void io_uring_prep_readv(struct io_uring_sqe *sqe, int fd,
				       const struct iovec *iovecs, unsigned nr_vecs, __u64 offset)
{
	io_uring_prep_rw(IORING_OP_READV, sqe, fd, iovecs, nr_vecs, offset);
}

IOURINGINLINE void io_uring_prep_writev(struct io_uring_sqe *sqe, int fd,
					const struct iovec *iovecs, unsigned nr_vecs, __u64 offset)
{
	io_uring_prep_rw(IORING_OP_WRITEV, sqe, fd, iovecs, nr_vecs, offset);
}

IOURINGINLINE void io_uring_prep_read_fixed(struct io_uring_sqe *sqe, int fd, void *buf,
					    unsigned nbytes, __u64 offset, int buf_index)
{
	io_uring_prep_rw(IORING_OP_READ_FIXED, sqe, fd, buf, nbytes, offset);
	sqe->buf_index = (__u16)buf_index;
}

IOURINGINLINE void io_uring_prep_write_fixed(struct io_uring_sqe *sqe, int fd, const void *buf,
					     unsigned nbytes, __u64 offset, int buf_index)
{
	io_uring_prep_rw(IORING_OP_WRITE_FIXED, sqe, fd, buf, nbytes, offset);
	sqe->buf_index = (__u16)buf_index;
}

IOURINGINLINE void io_uring_prep_fsync(struct io_uring_sqe *sqe, int fd, unsigned fsync_flags)
{
	io_uring_prep_rw(IORING_OP_FSYNC, sqe, fd, NULL, 0, 0);
	sqe->fsync_flags = fsync_flags;
}

IOURINGINLINE void io_uring_prep_close(struct io_uring_sqe *sqe, int fd)
{
	io_uring_prep_rw(IORING_OP_CLOSE, sqe, fd, NULL, 0, 0);
}

/* ts must stay valid until the timeout completes (the SQE points at it) */
IOURINGINLINE void io_uring_prep_timeout(struct io_uring_sqe *sqe, struct __kernel_timespec *ts,
					 unsigned count, unsigned flags)
{
	io_uring_prep_rw(IORING_OP_TIMEOUT, sqe, -1, ts, 1, count);
	sqe->timeout_flags = flags;
}

IOURINGINLINE void io_uring_prep_timeout_remove(struct io_uring_sqe *sqe, __u64 user_data,
						unsigned flags)
{
	io_uring_prep_rw(IORING_OP_TIMEOUT_REMOVE, sqe, -1, NULL, 0, 0);
	sqe->addr = user_data;
	sqe->timeout_flags = flags;
}

IOURINGINLINE void io_uring_prep_link_timeout(struct io_uring_sqe *sqe,
					      struct __kernel_timespec *ts, unsigned flags)
{
	io_uring_prep_rw(IORING_OP_LINK_TIMEOUT, sqe, -1, ts, 1, 0);
	sqe->timeout_flags = flags;
}

IOURINGINLINE void io_uring_prep_poll_add(struct io_uring_sqe *sqe, int fd, unsigned poll_mask)
{
	io_uring_prep_rw(IORING_OP_POLL_ADD, sqe, fd, NULL, 0, 0);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	poll_mask = (poll_mask << 16) | (poll_mask >> 16);	/* the uAPI's 32-bit halves */
#endif
	sqe->poll32_events = poll_mask;
}

IOURINGINLINE void io_uring_prep_poll_multishot(struct io_uring_sqe *sqe, int fd,
					       unsigned poll_mask)
{
	io_uring_prep_poll_add(sqe, fd, poll_mask);
	sqe->len = IORING_POLL_ADD_MULTI;
}

IOURINGINLINE void io_uring_prep_poll_update(struct io_uring_sqe *sqe, __u64 old_user_data,
					     __u64 new_user_data, unsigned poll_mask,
					     unsigned flags)
{
	io_uring_prep_rw(IORING_OP_POLL_REMOVE, sqe, -1, NULL, flags, new_user_data);
	sqe->addr = old_user_data;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	poll_mask = (poll_mask << 16) | (poll_mask >> 16);
#endif
	sqe->poll32_events = poll_mask;
}

IOURINGINLINE void io_uring_prep_poll_remove(struct io_uring_sqe *sqe, __u64 user_data)
{
	io_uring_prep_rw(IORING_OP_POLL_REMOVE, sqe, -1, NULL, 0, 0);
	sqe->addr = user_data;
}

IOURINGINLINE void io_uring_prep_cancel64(struct io_uring_sqe *sqe, __u64 user_data, int flags)
{
	io_uring_prep_rw(IORING_OP_ASYNC_CANCEL, sqe, -1, NULL, 0, 0);
	sqe->addr = user_data;
	sqe->cancel_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_cancel(struct io_uring_sqe *sqe, void *user_data, int flags)
{
	io_uring_prep_cancel64(sqe, (__u64)(uintptr_t)user_data, flags);
}

IOURINGINLINE void io_uring_prep_accept(struct io_uring_sqe *sqe, int fd, struct sockaddr *addr,
					socklen_t *addrlen, int flags)
{
	io_uring_prep_rw(IORING_OP_ACCEPT, sqe, fd, addr, 0, (__u64)(uintptr_t)addrlen);
	sqe->accept_flags = (__u32)flags;
}

/* One SQE, one CQE per connection (IORING_CQE_F_MORE while it stays armed). */
IOURINGINLINE void io_uring_prep_multishot_accept(struct io_uring_sqe *sqe, int fd,
						  struct sockaddr *addr, socklen_t *addrlen,
						  int flags)
{
	io_uring_prep_accept(sqe, fd, addr, addrlen, flags);
	sqe->ioprio |= IORING_ACCEPT_MULTISHOT;
}

IOURINGINLINE void io_uring_prep_connect(struct io_uring_sqe *sqe, int fd,
					 const struct sockaddr *addr, socklen_t addrlen)
{
	io_uring_prep_rw(IORING_OP_CONNECT, sqe, fd, addr, 0, addrlen);
}

IOURINGINLINE void io_uring_prep_bind(struct io_uring_sqe *sqe, int fd, struct sockaddr *addr,
				      socklen_t addrlen)
{
	io_uring_prep_rw(IORING_OP_BIND, sqe, fd, addr, 0, addrlen);
}

IOURINGINLINE void io_uring_prep_listen(struct io_uring_sqe *sqe, int fd, int backlog)
{
	io_uring_prep_rw(IORING_OP_LISTEN, sqe, fd, NULL, (unsigned)backlog, 0);
}

IOURINGINLINE void io_uring_prep_socket(struct io_uring_sqe *sqe, int domain, int type,
					int protocol, unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_SOCKET, sqe, domain, NULL, (unsigned)protocol, (__u64)type);
	sqe->rw_flags = (int)flags;
}

IOURINGINLINE void io_uring_prep_shutdown(struct io_uring_sqe *sqe, int fd, int how)
{
	io_uring_prep_rw(IORING_OP_SHUTDOWN, sqe, fd, NULL, (unsigned)how, 0);
}

IOURINGINLINE void io_uring_prep_files_update(struct io_uring_sqe *sqe, int *fds,
					      unsigned nr_fds, int offset)
{
	io_uring_prep_rw(IORING_OP_FILES_UPDATE, sqe, -1, fds, nr_fds, (__u64)offset);
}

IOURINGINLINE void io_uring_prep_provide_buffers(struct io_uring_sqe *sqe, void *addr, int len,
						 int nr, int bgid, int bid)
{
	io_uring_prep_rw(IORING_OP_PROVIDE_BUFFERS, sqe, nr, addr, (unsigned)len, (__u64)bid);
	sqe->buf_group = (__u16)bgid;
}

IOURINGINLINE void io_uring_prep_remove_buffers(struct io_uring_sqe *sqe, int nr, int bgid)
{
	io_uring_prep_rw(IORING_OP_REMOVE_BUFFERS, sqe, nr, NULL, 0, 0);
	sqe->buf_group = (__u16)bgid;
}

IOURINGINLINE void io_uring_prep_timeout_update(struct io_uring_sqe *sqe,
						struct __kernel_timespec *ts,
						__u64 user_data, unsigned flags)
{
	io_uring_prep_rw(IORING_OP_TIMEOUT_REMOVE, sqe, -1, NULL, 0, (uintptr_t)ts);
	sqe->addr = user_data;
	sqe->timeout_flags = flags | IORING_TIMEOUT_UPDATE;
}

IOURINGINLINE void io_uring_prep_cancel_fd(struct io_uring_sqe *sqe, int fd, unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_ASYNC_CANCEL, sqe, fd, NULL, 0, 0);
	sqe->cancel_flags = (__u32)flags | IORING_ASYNC_CANCEL_FD;
}

IOURINGINLINE void io_uring_sqe_set_buf_group(struct io_uring_sqe *sqe, int bgid)
{
	sqe->buf_group = (__u16)bgid;
}

IOURINGINLINE void io_uring_prep_send(struct io_uring_sqe *sqe, int sockfd,
				      const void *buf, size_t len, int flags)
{
	io_uring_prep_rw(IORING_OP_SEND, sqe, sockfd, buf, (__u32)len, 0);
	sqe->msg_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_send_set_addr(struct io_uring_sqe *sqe,
					       const struct sockaddr *dest_addr,
					       __u16 addr_len)
{
	sqe->addr2 = (unsigned long)(const void *)dest_addr;
	sqe->addr_len = addr_len;
}

IOURINGINLINE void io_uring_prep_sendto(struct io_uring_sqe *sqe, int sockfd,
					const void *buf, size_t len, int flags,
					const struct sockaddr *addr, socklen_t addrlen)
{
	io_uring_prep_send(sqe, sockfd, buf, len, flags);
	io_uring_prep_send_set_addr(sqe, addr, (__u16)addrlen);
}

IOURINGINLINE void io_uring_prep_send_zc(struct io_uring_sqe *sqe, int sockfd,
					 const void *buf, size_t len, int flags,
					 unsigned zc_flags)
{
	io_uring_prep_rw(IORING_OP_SEND_ZC, sqe, sockfd, buf, (__u32)len, 0);
	sqe->msg_flags = (__u32)flags;
	sqe->ioprio = (__u16)zc_flags;
}

IOURINGINLINE void io_uring_prep_send_zc_fixed(struct io_uring_sqe *sqe, int sockfd,
					       const void *buf, size_t len, int flags,
					       unsigned zc_flags, unsigned buf_index)
{
	io_uring_prep_send_zc(sqe, sockfd, buf, len, flags, zc_flags);
	sqe->ioprio |= IORING_RECVSEND_FIXED_BUF;
	sqe->buf_index = (__u16)buf_index;
}

IOURINGINLINE void io_uring_prep_sendmsg(struct io_uring_sqe *sqe, int fd,
					 const struct msghdr *msg, unsigned flags)
{
	io_uring_prep_rw(IORING_OP_SENDMSG, sqe, fd, msg, 1, 0);
	sqe->msg_flags = flags;
}

IOURINGINLINE void io_uring_prep_sendmsg_zc(struct io_uring_sqe *sqe, int fd,
					    const struct msghdr *msg, unsigned flags)
{
	io_uring_prep_sendmsg(sqe, fd, msg, flags);
	sqe->opcode = IORING_OP_SENDMSG_ZC;
}

IOURINGINLINE void io_uring_prep_sendmsg_zc_fixed(struct io_uring_sqe *sqe, int fd,
						  const struct msghdr *msg, unsigned flags,
						  unsigned buf_index)
{
	io_uring_prep_sendmsg_zc(sqe, fd, msg, flags);
	sqe->ioprio |= IORING_RECVSEND_FIXED_BUF;
	sqe->buf_index = (__u16)buf_index;
}

IOURINGINLINE void io_uring_prep_recv(struct io_uring_sqe *sqe, int sockfd,
				      void *buf, size_t len, int flags)
{
	io_uring_prep_rw(IORING_OP_RECV, sqe, sockfd, buf, (__u32)len, 0);
	sqe->msg_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_recv_multishot(struct io_uring_sqe *sqe, int sockfd,
						void *buf, size_t len, int flags)
{
	io_uring_prep_recv(sqe, sockfd, buf, len, flags);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
}

IOURINGINLINE void io_uring_prep_recvmsg(struct io_uring_sqe *sqe, int fd,
					 struct msghdr *msg, unsigned flags)
{
	io_uring_prep_rw(IORING_OP_RECVMSG, sqe, fd, msg, 1, 0);
	sqe->msg_flags = flags;
}

IOURINGINLINE void io_uring_prep_recvmsg_multishot(struct io_uring_sqe *sqe, int fd,
						   struct msghdr *msg, unsigned flags)
{
	io_uring_prep_recvmsg(sqe, fd, msg, flags);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
}

/*
 * A multishot RECVMSG's buffer (res bytes of it): io_uring_recvmsg_out, the
 * name (msgh->msg_namelen bytes), the control data (msgh->msg_controllen),
 * the payload. validate: NULL if the buffer cannot even hold the header.
 */
IOURINGINLINE struct io_uring_recvmsg_out *io_uring_recvmsg_validate(void *buf, int buf_len,
								    struct msghdr *msgh)
{
	unsigned long need = sizeof(struct io_uring_recvmsg_out) + msgh->msg_namelen +
			     msgh->msg_controllen;

	if (buf_len < 0 || (unsigned long)buf_len < need)
		return NULL;
	return (struct io_uring_recvmsg_out *)buf;
}

IOURINGINLINE void *io_uring_recvmsg_name(struct io_uring_recvmsg_out *o)
{
	return (void *)&o[1];
}

IOURINGINLINE struct cmsghdr *io_uring_recvmsg_cmsg_firsthdr(struct io_uring_recvmsg_out *o,
							     struct msghdr *msgh)
{
	if (o->controllen < sizeof(struct cmsghdr))
		return NULL;
	return (struct cmsghdr *)((unsigned char *)io_uring_recvmsg_name(o) + msgh->msg_namelen);
}

IOURINGINLINE struct cmsghdr *io_uring_recvmsg_cmsg_nexthdr(struct io_uring_recvmsg_out *o,
							    struct msghdr *msgh,
							    struct cmsghdr *cmsg)
{
	unsigned char *end;

	if (cmsg->cmsg_len < sizeof(struct cmsghdr))
		return NULL;
	end = (unsigned char *)io_uring_recvmsg_cmsg_firsthdr(o, msgh) + o->controllen;
	cmsg = (struct cmsghdr *)((unsigned char *)cmsg + CMSG_ALIGN(cmsg->cmsg_len));
	if ((unsigned char *)(cmsg + 1) > end)
		return NULL;
	if ((unsigned char *)cmsg + CMSG_ALIGN(cmsg->cmsg_len) > end)
		return NULL;
	return cmsg;
}

IOURINGINLINE void *io_uring_recvmsg_payload(struct io_uring_recvmsg_out *o, struct msghdr *msgh)
{
	return (unsigned char *)io_uring_recvmsg_name(o) + msgh->msg_namelen +
	       msgh->msg_controllen;
}

IOURINGINLINE unsigned int io_uring_recvmsg_payload_length(struct io_uring_recvmsg_out *o,
							   int buf_len, struct msghdr *msgh)
{
	/* offsets, not pointers: name and control area may reach past the
	 * buffer, and then there is no payload (0), never a wrapped length */
	unsigned long start = sizeof(*o) + (unsigned long)msgh->msg_namelen +
			      (unsigned long)msgh->msg_controllen;

	(void)o;
	if (buf_len < 0 || start >= (unsigned long)buf_len)
		return 0;
	return (unsigned int)((unsigned long)buf_len - start);
}

IOURINGINLINE void io_uring_prep_msg_ring_cqe_flags(struct io_uring_sqe *sqe, int fd,
						    unsigned int len, __u64 data,
						    unsigned int flags, unsigned int cqe_flags)
{
	io_uring_prep_rw(IORING_OP_MSG_RING, sqe, fd, NULL, len, data);
	sqe->msg_ring_flags = IORING_MSG_RING_FLAGS_PASS | flags;
	sqe->file_index = cqe_flags;
}

IOURINGINLINE void io_uring_prep_msg_ring(struct io_uring_sqe *sqe, int fd,
					  unsigned int len, __u64 data, unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_MSG_RING, sqe, fd, NULL, len, data);
	sqe->msg_ring_flags = flags;
}

IOURINGINLINE void io_uring_prep_msg_ring_fd(struct io_uring_sqe *sqe, int fd,
					     int source_fd, int target_fd, __u64 data,
					     unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_MSG_RING, sqe, fd,
			 (void *)(uintptr_t)IORING_MSG_SEND_FD, 0, data);
	sqe->addr3 = (__u64)source_fd;
	/* slots travel as index + 1 (0 is "no slot"); ALLOC must stay ALLOC */
	if ((unsigned int)target_fd == IORING_FILE_INDEX_ALLOC)
		target_fd--;
	sqe->file_index = (__u32)target_fd + 1;
	sqe->msg_ring_flags = flags;
}

/* Ring-mapped provided buffers: the program's side of the ring. */
IOURINGINLINE int io_uring_buf_ring_mask(__u32 ring_entries)
{
	return (int)(ring_entries - 1);
}

IOURINGINLINE void io_uring_buf_ring_init(struct io_uring_buf_ring *br)
{
	br->tail = 0;
}

/* Fill the entry buf_offset places past the tail (not visible yet). */
IOURINGINLINE void io_uring_buf_ring_add(struct io_uring_buf_ring *br, void *addr,
					 unsigned int len, unsigned short bid, int mask,
					 int buf_offset)
{
	struct io_uring_buf *buf = &br->bufs[(br->tail + buf_offset) & mask];

	buf->addr = (unsigned long)(uintptr_t)addr;
	buf->len = len;
	buf->bid = bid;
}

/* Hand count added entries over; the release orders the entries before it. */
IOURINGINLINE void io_uring_buf_ring_advance(struct io_uring_buf_ring *br, int count)
{
	unsigned short new_tail = (unsigned short)(br->tail + count);

	io_uring_smp_store_release(&br->tail, new_tail);
}

IOURINGINLINE void __io_uring_buf_ring_cq_advance(struct io_uring *ring,
						  struct io_uring_buf_ring *br,
						  int cq_count, int buf_count)
{
	io_uring_buf_ring_advance(br, buf_count);
	io_uring_cq_advance(ring, (unsigned)cq_count);
}

IOURINGINLINE void io_uring_buf_ring_cq_advance(struct io_uring *ring,
						struct io_uring_buf_ring *br, int count)
{
	__io_uring_buf_ring_cq_advance(ring, br, count, count);
}

/* Entries the group still holds (tail - head), or -errno. */
IOURINGINLINE int io_uring_buf_ring_available(struct io_uring *ring,
					      struct io_uring_buf_ring *br,
					      unsigned short bgid)
{
	uint16_t head;
	int ret = io_uring_buf_ring_head(ring, bgid, &head);

	if (ret)
		return ret;
	return (uint16_t)(br->tail - head);
}

/* SQ state as the application sees it (entries queued, not yet consumed). */
IOURINGINLINE unsigned io_uring_sq_ready(const struct io_uring *ring)
{
	return ring->sq.sqe_tail - io_uring_smp_load_acquire(ring->sq.khead);
}

IOURINGINLINE unsigned io_uring_sq_space_left(const struct io_uring *ring)
{
	return ring->sq.ring_entries - io_uring_sq_ready(ring);
}

IOURINGINLINE unsigned io_uring_cq_ready(const struct io_uring *ring)
{
	return io_uring_smp_load_acquire(ring->cq.ktail) - *ring->cq.khead;
}

/* CQEs are waiting in the overflow list (the next peek/wait flushes them). */
IOURINGINLINE bool io_uring_cq_has_overflow(const struct io_uring *ring)
{
	return IO_URING_READ_ONCE(*ring->sq.kflags) & IORING_SQ_CQ_OVERFLOW;
}

IOURINGINLINE int io_uring_wait_cqe_nr(struct io_uring *ring,
				       struct io_uring_cqe **cqe_ptr, unsigned wait_nr)
{
	return __io_uring_get_cqe(ring, cqe_ptr, 0, wait_nr, NULL);
}

/*
 * The first ready CQE, or NULL. Pads (IORING_CQE_F_SKIP: the rest of a mixed
 * CQ before a 32-byte CQE wraps) are consumed on the way, as liburing's.
 * zcnic's rings report IORING_FEAT_EXT_ARG, so no timeout CQE of liburing's
 * own is ever among them. Not for applications (liburing's name).
 */
IOURINGINLINE int __io_uring_peek_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				      unsigned *nr_available)
{
	unsigned mask = ring->cq.ring_mask, shift = io_uring_cqe_shift(ring);
	struct io_uring_cqe *cqe = NULL;
	unsigned available;

	for (;;) {
		unsigned tail = io_uring_smp_load_acquire(ring->cq.ktail);
		unsigned head = *ring->cq.khead;

		cqe = NULL;
		available = tail - head;
		if (!available)
			break;
		cqe = &ring->cq.cqes[(head & mask) << shift];
		if (!(cqe->flags & IORING_CQE_F_SKIP))
			break;
		io_uring_cq_advance(ring, io_uring_cqe_nr(cqe));
	}
	*cqe_ptr = cqe;
	if (nr_available)
		*nr_available = available;
	return 0;
}

/* The first ready CQE without waiting; may run a progress pass (inbox, NIC). */
IOURINGINLINE int io_uring_peek_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr)
{
	if (!__io_uring_peek_cqe(ring, cqe_ptr, NULL) && *cqe_ptr)
		return 0;
	return io_uring_wait_cqe_nr(ring, cqe_ptr, 0);
}

IOURINGINLINE int io_uring_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr)
{
	if (!__io_uring_peek_cqe(ring, cqe_ptr, NULL) && *cqe_ptr)
		return 0;
	return io_uring_wait_cqe_nr(ring, cqe_ptr, 1);
}

/* The fields prep helpers do not set, zeroed as liburing >= 2.6 does (not user_data). */
IOURINGINLINE void io_uring_initialize_sqe(struct io_uring_sqe *sqe)
{
	sqe->flags = 0;
	sqe->ioprio = 0;
	sqe->rw_flags = 0;
	sqe->buf_index = 0;
	sqe->personality = 0;
	sqe->file_index = 0;
	sqe->addr3 = 0;
	sqe->__pad2[0] = 0;
}

/* The next free SQE, or NULL when the SQ is full. */
IOURINGINLINE struct io_uring_sqe *_io_uring_get_sqe(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned head = io_uring_smp_load_acquire(sq->khead);
	unsigned tail = sq->sqe_tail;
	struct io_uring_sqe *sqe;

	if (tail - head >= sq->ring_entries)
		return NULL;
	/* 128-byte SQEs take two slots of the array (IORING_SETUP_SQE128) */
	sqe = &sq->sqes[(tail & sq->ring_mask) << io_uring_sqe_shift(ring)];
	sq->sqe_tail = tail + 1;
	io_uring_initialize_sqe(sqe);
	return sqe;
}

IOURINGINLINE struct io_uring_sqe *io_uring_get_sqe(struct io_uring *ring)
{
	return _io_uring_get_sqe(ring);
}

/*
 * A 128-byte SQE: any SQE of an SQE128 ring; on an SQE_MIXED ring two
 * adjacent slots, which cannot wrap: at the last slot a NOP with
 * IOSQE_CQE_SKIP_SUCCESS fills it first. NULL without room, or on other
 * rings. The SQE must carry a 128-byte opcode (IORING_OP_NOP128,
 * IORING_OP_URING_CMD128), which tells the ring to step over both slots.
 */
IOURINGINLINE struct io_uring_sqe *io_uring_get_sqe128(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned head = io_uring_smp_load_acquire(sq->khead), tail = sq->sqe_tail;
	struct io_uring_sqe *sqe;

	if (ring->flags & IORING_SETUP_SQE128)
		return io_uring_get_sqe(ring);
	if (!(ring->flags & IORING_SETUP_SQE_MIXED))
		return NULL;
	if (((tail + 1) & sq->ring_mask) == 0) {
		if ((tail + 2) - head >= sq->ring_entries)
			return NULL;
		sqe = _io_uring_get_sqe(ring);
		io_uring_prep_nop(sqe);
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
		tail = sq->sqe_tail;
	} else if ((tail + 1) - head >= sq->ring_entries) {
		return NULL;
	}
	sqe = &sq->sqes[tail & sq->ring_mask];
	sq->sqe_tail = tail + 2;
	io_uring_initialize_sqe(sqe);
	return sqe;
}

#include "liburing/prep_files.h"

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* LIB_URING_H */
