/* SPDX-License-Identifier: MIT */
/*
 * The liburing-named library functions (include/compat/liburing.h) over
 * the native zn_uring_* API. The only place in zcnic with io_uring_* names.
 *
 * Waits with a timeout, a minimum wait or a signal mask go through the
 * engine's enter with a struct io_uring_getevents_arg, as liburing's
 * IORING_ENTER_EXT_ARG path does (core/uring/wait_arg.c reads it). A
 * sigmask is installed for the duration of the wait (pthread_sigmask); a
 * signal does not interrupt a zcnic wait (there is no -EINTR).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

#define ZN_COMPAT_NO_MMAP	/* this file calls the real mmap */
#include "compat/liburing.h"
#include "core/uring/uring_op.h"
#include "core/uring/wait_arg.h"
#include "zcnic/uring.h"

static struct zn_uring *ring_of(struct io_uring *ring)
{
	return zn_uring_from_handle(ring->ring_fd);
}

/*
 * liburing's internal set-up steps (its src/setup.c), exported because its
 * tests call them. "Mapping" a ring is pointing at the memory the ring
 * owns: the pointers stay valid until the ring exits or is resized, and
 * there is nothing to unmap.
 */
void io_uring_setup_ring_pointers(struct io_uring_params *p, struct io_uring_sq *sq,
				  struct io_uring_cq *cq)
{
	char *sp = sq->ring_ptr, *cp = cq->ring_ptr;

	sq->khead = (unsigned *)(sp + p->sq_off.head);
	sq->ktail = (unsigned *)(sp + p->sq_off.tail);
	sq->kring_mask = (unsigned *)(sp + p->sq_off.ring_mask);
	sq->kring_entries = (unsigned *)(sp + p->sq_off.ring_entries);
	sq->kflags = (unsigned *)(sp + p->sq_off.flags);
	sq->kdropped = (unsigned *)(sp + p->sq_off.dropped);
	if (!(p->flags & IORING_SETUP_NO_SQARRAY))
		sq->array = (unsigned *)(sp + p->sq_off.array);
	cq->khead = (unsigned *)(cp + p->cq_off.head);
	cq->ktail = (unsigned *)(cp + p->cq_off.tail);
	cq->kring_mask = (unsigned *)(cp + p->cq_off.ring_mask);
	cq->kring_entries = (unsigned *)(cp + p->cq_off.ring_entries);
	cq->koverflow = (unsigned *)(cp + p->cq_off.overflow);
	cq->cqes = (struct io_uring_cqe *)(cp + p->cq_off.cqes);
	if (p->cq_off.flags)
		cq->kflags = (unsigned *)(cp + p->cq_off.flags);
	sq->ring_mask = *sq->kring_mask;
	sq->ring_entries = *sq->kring_entries;
	cq->ring_mask = *cq->kring_mask;
	cq->ring_entries = *cq->kring_entries;
}

/*
 * The sizes liburing maps from p; a ring smaller than they say is -EINVAL,
 * as the kernel's mmap of more than the region is (params of a ring since
 * resized, say).
 */
int io_uring_mmap(int fd, struct io_uring_params *p, struct io_uring_sq *sq,
		  struct io_uring_cq *cq)
{
	struct zn_uring *r = zn_uring_from_handle(fd);
	size_t sq_sz, cq_sz, sqes_sz;
	struct zn_uring_map m;

	if (!r)
		return -EBADF;
	zn_uring_get_map(r, &m);
	sq_sz = p->sq_off.array + (size_t)p->sq_entries * sizeof(unsigned);
	cq_sz = p->cq_off.cqes + ((size_t)p->cq_entries << io_uring_cqe_shift_from_flags(p->flags)) *
		sizeof(struct io_uring_cqe);
	sqes_sz = ((size_t)p->sq_entries << io_uring_sqe_shift_from_flags(p->flags)) *
		sizeof(struct io_uring_sqe);
	if (sq_sz < cq_sz)
		sq_sz = cq_sz;		/* IORING_FEAT_SINGLE_MMAP: one block */
	if (sq_sz > m.ring_sz || p->sq_entries != *m.sq_entries ||
	    p->cq_entries != *m.cq_entries)
		return -EINVAL;
	sq->ring_ptr = cq->ring_ptr = m.ring_ptr;
	sq->ring_sz = cq->ring_sz = sq_sz;
	sq->sqes = m.sqes;
	sq->sqes_sz = (unsigned)sqes_sz;
	io_uring_setup_ring_pointers(p, sq, cq);
	return 0;
}

void io_uring_unmap_rings(struct io_uring_sq *sq, struct io_uring_cq *cq)
{
	(void)sq;
	(void)cq;
}

/* SQ slot i names SQE i, as liburing sets it up. */
static void sq_array_identity(struct io_uring *ring, const struct io_uring_params *p)
{
	if (!(p->flags & IORING_SETUP_NO_SQARRAY))
		for (unsigned i = 0; i < ring->sq.ring_entries; i++)
			ring->sq.array[i] = i;
}

/* struct io_uring for ring handle fd, as liburing's io_uring_queue_mmap fills it. */
static int fill_ring(struct io_uring *ring, int fd, struct io_uring_params *p)
{
	int rc;

	memset(ring, 0, sizeof(*ring));
	rc = io_uring_mmap(fd, p, &ring->sq, &ring->cq);
	if (rc)
		return rc;
	ring->flags = p->flags;
	ring->features = p->features;
	ring->ring_fd = ring->enter_ring_fd = fd;
	return 0;
}

/* buf (IORING_SETUP_NO_MMAP memory): zcnic refuses NO_MMAP when the ring is made. */
int __io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
				 struct io_uring_params *p, void *buf, size_t buf_size)
{
	struct zn_uring *r;
	int rc;

	(void)buf;
	(void)buf_size;
	memset(ring, 0, sizeof(*ring));
	rc = zn_uring_create(entries, p, &r);
	if (rc)
		return rc;
	rc = fill_ring(ring, zn_uring_handle(r), p);
	if (rc) {
		zn_uring_destroy(r);
		return rc;
	}
	sq_array_identity(ring, p);
	return 0;
}

/*
 * As liburing's: a ring without the SQ index array (IORING_SETUP_NO_SQARRAY)
 * unless that is refused and was not asked for; a program that wants the
 * array calls __io_uring_queue_init_params, as liburing's tests do.
 */
int io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
			       struct io_uring_params *p)
{
	unsigned flags = p->flags;
	int rc;

	p->flags |= IORING_SETUP_NO_SQARRAY;
	rc = __io_uring_queue_init_params(entries, ring, p, NULL, 0);
	if (rc != -EINVAL || (flags & IORING_SETUP_NO_SQARRAY))
		return rc;
	p->flags = flags;
	return __io_uring_queue_init_params(entries, ring, p, NULL, 0);
}

int io_uring_queue_mmap(int fd, struct io_uring_params *p, struct io_uring *ring)
{
	int rc = fill_ring(ring, fd, p);

	if (!rc)
		sq_array_identity(ring, p);
	return rc;
}

int io_uring_setup(unsigned int entries, struct io_uring_params *p)
{
	struct zn_uring *r;
	int rc;

	if (!p)
		return -EFAULT;
	rc = zn_uring_create(entries, p, &r);
	return rc ? rc : zn_uring_handle(r);
}

int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	return io_uring_queue_init_params(entries, ring, &p);
}

void io_uring_queue_exit(struct io_uring *ring)
{
	struct zn_uring *r = ring_of(ring);

	if (r)
		zn_uring_destroy(r);
	ring->ring_fd = ring->enter_ring_fd = -1;
}

/* Publish the SQEs prepared since the last flush; pending SQE count. */
static unsigned flush_sq(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned tail = sq->sqe_tail;

	/* SQ_REWIND: the ring reads index 0 on; the next SQEs start there again */
	if (ring->flags & IORING_SETUP_SQ_REWIND) {
		sq->sqe_tail = 0;
		return tail;
	}

	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		/* SQE contents before the tail that hands them over */
		io_uring_smp_store_release(sq->ktail, tail);
	}
	return tail - IO_URING_READ_ONCE(*sq->khead);
}

static int peek(struct io_uring *ring, struct io_uring_cqe **cqe_ptr)
{
	__io_uring_peek_cqe(ring, cqe_ptr, NULL);
	return *cqe_ptr ? 0 : -EAGAIN;
}

/* The kernel's sigset size, as liburing passes it. */
#define SIGSET_SZ	(_NSIG / 8)

/* An IORING_ENTER_EXT_ARG enter, as liburing's io_uring_getevents_arg. */
static int enter_ext(struct zn_uring *r, unsigned submit, unsigned wait_nr, unsigned flags,
		     const struct __kernel_timespec *ts, unsigned min_wait_usec,
		     const sigset_t *sigmask)
{
	struct io_uring_getevents_arg arg = {
		.sigmask = (uintptr_t)sigmask, .sigmask_sz = SIGSET_SZ,
		.min_wait_usec = min_wait_usec, .ts = (uintptr_t)ts,
	};

	return zn_uring_enter_arg(r, submit, wait_nr, flags | IORING_ENTER_EXT_ARG, &arg,
				  sizeof(arg));
}

int __io_uring_get_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
		       unsigned submit, unsigned wait_nr, sigset_t *sigmask)
{
	struct zn_uring *r = ring_of(ring);
	int rc;

	*cqe_ptr = NULL;
	if (!r)
		return -EBADF;
	if (submit)
		flush_sq(ring);
	rc = zn_uring_enter_arg(r, submit, wait_nr, wait_nr ? IORING_ENTER_GETEVENTS : 0,
				sigmask, SIGSET_SZ);
	if (rc < 0)
		return rc;
	return peek(ring, cqe_ptr);
}

/* liburing's io_uring_wait_cqes_new: wait without submitting. */
static int wait_new(struct io_uring *ring, struct io_uring_cqe **cqe_ptr, unsigned wait_nr,
		    const struct __kernel_timespec *ts, unsigned min_wait_usec,
		    const sigset_t *sigmask)
{
	struct zn_uring *r = ring_of(ring);
	int rc;

	*cqe_ptr = NULL;
	if (!r)
		return -EBADF;
	if (wait_nr && io_uring_cq_ready(ring) >= wait_nr)
		return peek(ring, cqe_ptr);
	rc = enter_ext(r, 0, wait_nr, IORING_ENTER_GETEVENTS, ts, min_wait_usec, sigmask);
	if (!peek(ring, cqe_ptr))
		return 0;
	return rc < 0 ? rc : -EAGAIN;
}

int io_uring_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
		       unsigned wait_nr, struct __kernel_timespec *ts, sigset_t *sigmask)
{
	return wait_new(ring, cqe_ptr, wait_nr, ts, 0, sigmask);
}

int io_uring_wait_cqes_min_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				   unsigned wait_nr, struct __kernel_timespec *ts,
				   unsigned int min_wait_usec, sigset_t *sigmask)
{
	if (!(ring->features & IORING_FEAT_MIN_TIMEOUT))
		return -EINVAL;
	return wait_new(ring, cqe_ptr, wait_nr, ts, min_wait_usec, sigmask);
}

/*
 * Submit and wait in one enter with a timeout, as liburing's
 * _io_uring_get_cqe with a timeout: 0 with the CQE that was there before,
 * else the number submitted with the first CQE, -ETIME when none came and
 * nothing was submitted, or the enter's error.
 */
static int submit_wait(struct io_uring *ring, struct io_uring_cqe **cqe_ptr, unsigned wait_nr,
		       unsigned flags, const void *arg, size_t sz)
{
	struct zn_uring *r = ring_of(ring);
	unsigned submit;
	int rc;

	*cqe_ptr = NULL;
	if (!r)
		return -EBADF;
	submit = flush_sq(ring);
	peek(ring, cqe_ptr);
	if (*cqe_ptr && wait_nr <= io_uring_cq_ready(ring) && !submit)
		return 0;
	if (wait_nr > io_uring_cq_ready(ring))
		flags |= IORING_ENTER_GETEVENTS;
	rc = zn_uring_enter_arg(r, submit, wait_nr, flags, arg, sz);
	if (rc < 0 || *cqe_ptr)
		return rc < 0 ? rc : 0;
	if (!peek(ring, cqe_ptr))
		return rc;
	return rc ? rc : -ETIME;
}

int io_uring_wait_cqe_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      struct __kernel_timespec *ts)
{
	return io_uring_wait_cqes(ring, cqe_ptr, 1, ts, NULL);
}

/*
 * A mixed CQ (IORING_SETUP_CQE_MIXED): CQEs of one or two slots, and pads
 * (IORING_CQE_F_SKIP) before a 32-byte CQE that would wrap. Pads are
 * consumed when they are at the head and end a batch elsewhere (they are
 * at the head for the next one), as liburing's.
 */
static unsigned peek_batch_mixed(struct io_uring *ring, struct io_uring_cqe **cqes,
				 unsigned count, unsigned ready)
{
	unsigned head = *ring->cq.khead, last = head + ready, nr = 0;

	while (head != last && nr < count) {
		struct io_uring_cqe *cqe = &ring->cq.cqes[head & ring->cq.ring_mask];

		if (cqe->flags & IORING_CQE_F_SKIP) {
			if (nr)
				break;
			io_uring_cq_advance(ring, 1);
			head++;
			continue;
		}
		head += io_uring_cqe_nr(cqe);
		cqes[nr++] = cqe;
	}
	return nr;
}

unsigned io_uring_peek_batch_cqe(struct io_uring *ring, struct io_uring_cqe **cqes,
				 unsigned count)
{
	struct zn_uring *r = ring_of(ring);
	unsigned ready = io_uring_cq_ready(ring), head, i;

	if (!ready && r) {
		zn_uring_get_events(r);
		ready = io_uring_cq_ready(ring);
	}
	if (ring->flags & IORING_SETUP_CQE_MIXED)
		return peek_batch_mixed(ring, cqes, count, ready);
	if (ready > count)
		ready = count;
	head = *ring->cq.khead;
	for (i = 0; i < ready; i++)
		cqes[i] = &ring->cq.cqes[io_uring_cqe_index(ring, head + i, ring->cq.ring_mask)];
	return ready;
}

/*
 * SQPOLL: the thread consumes what flush_sq published; enter only to wake it
 * (liburing's sq_ring_needs_enter). The count is what is now queued.
 */
static int sqpoll_submit(struct zn_uring *r, struct io_uring *ring, unsigned n)
{
	/* the tail store before the flag load: the thread sets the flag, then
	 * reads the tail, so one of the two sees the other (as liburing) */
	io_uring_smp_mb();
	if (IO_URING_READ_ONCE(*ring->sq.kflags) & IORING_SQ_NEED_WAKEUP)
		return zn_uring_enter(r, n, 0, IORING_ENTER_SQ_WAKEUP, -1);
	return (int)n;
}

/*
 * enter on an fd that is no ring: an open one (a handle of something else,
 * an OS fd) is -EOPNOTSUPP, as the kernel's io_uring_enter says for a file
 * that is no io_uring; nothing open -EBADF.
 */
static int enter_not_a_ring(int fd)
{
	if (zn_handle_is_handle(fd))
		return zn_handle_type(fd) >= 0 ? -EOPNOTSUPP : -EBADF;
	return fd >= 0 && fcntl(fd, F_GETFD) >= 0 ? -EOPNOTSUPP : -EBADF;
}

/* io_uring_enter(2) on a ring handle; the program manages the SQ tail. */
int io_uring_enter(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
		   unsigned int flags, sigset_t *sig)
{
	return io_uring_enter2(fd, to_submit, min_complete, flags, sig, SIGSET_SZ);
}

/* arg and sz as the syscall takes them: a sigset; with IORING_ENTER_EXT_ARG
 * a struct io_uring_getevents_arg; with IORING_ENTER_EXT_ARG_REG as well a
 * byte offset into the registered wait region. */
int io_uring_enter2(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
		    unsigned int flags, void *arg, size_t sz)
{
	struct zn_uring *r = zn_uring_from_handle((int)fd);

	if (!r)
		return enter_not_a_ring((int)fd);
	return zn_uring_enter_arg(r, to_submit, min_complete, flags, arg, sz);
}

int __io_uring_sqring_wait(struct io_uring *ring)
{
	struct zn_uring *r = ring_of(ring);

	if (!r)
		return -EBADF;
	return zn_uring_enter(r, 0, 0, IORING_ENTER_SQ_WAIT, -1);
}

int io_uring_sqring_wait(struct io_uring *ring)
{
	if (!(ring->flags & IORING_SETUP_SQPOLL) || io_uring_sq_space_left(ring))
		return 0;
	return __io_uring_sqring_wait(ring);
}

/* liburing's __io_uring_submit_and_wait_timeout: without a timeout a plain wait. */
static int submit_and_wait_ts(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      unsigned wait_nr, struct __kernel_timespec *ts, unsigned min_wait,
			      sigset_t *sigmask)
{
	struct io_uring_getevents_arg arg = {
		.sigmask = (uintptr_t)sigmask, .sigmask_sz = SIGSET_SZ,
		.min_wait_usec = min_wait, .ts = (uintptr_t)ts,
	};

	if (!ts)
		return __io_uring_get_cqe(ring, cqe_ptr, flush_sq(ring), wait_nr, sigmask);
	return submit_wait(ring, cqe_ptr, wait_nr, IORING_ENTER_EXT_ARG, &arg, sizeof(arg));
}

int io_uring_submit_and_wait_min_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
					 unsigned wait_nr, struct __kernel_timespec *ts,
					 unsigned min_wait, sigset_t *sigmask)
{
	if (!(ring->features & IORING_FEAT_MIN_TIMEOUT))
		return -EINVAL;
	return submit_and_wait_ts(ring, cqe_ptr, wait_nr, ts, min_wait, sigmask);
}

/* reg_index names an io_uring_reg_wait of the registered wait region. */
int io_uring_submit_and_wait_reg(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				 unsigned wait_nr, int reg_index)
{
	uintptr_t off = (uintptr_t)(long)reg_index * sizeof(struct io_uring_reg_wait);

	if (!(ring->features & IORING_FEAT_EXT_ARG))
		return -EINVAL;
	return submit_wait(ring, cqe_ptr, wait_nr, IORING_ENTER_EXT_ARG | IORING_ENTER_EXT_ARG_REG,
			   (const void *)off, sizeof(struct io_uring_reg_wait));
}

int io_uring_submit(struct io_uring *ring)
{
	struct zn_uring *r = ring_of(ring);

	if (!r)
		return -EBADF;
	if (ring->flags & IORING_SETUP_SQPOLL)
		return sqpoll_submit(r, ring, flush_sq(ring));
	return zn_uring_enter(r, flush_sq(ring), 0, 0, -1);
}

int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
	struct zn_uring *r = ring_of(ring);

	if (!r)
		return -EBADF;
	return zn_uring_enter(r, flush_sq(ring), wait_nr,
			      wait_nr ? IORING_ENTER_GETEVENTS : 0, -1);
}

int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				     unsigned wait_nr, struct __kernel_timespec *ts,
				     sigset_t *sigmask)
{
	return submit_and_wait_ts(ring, cqe_ptr, wait_nr, ts, 0, sigmask);
}

int io_uring_submit_and_get_events(struct io_uring *ring)
{
	struct zn_uring *r = ring_of(ring);

	if (!r)
		return -EBADF;
	return zn_uring_enter(r, flush_sq(ring), 0, IORING_ENTER_GETEVENTS, -1);
}

int io_uring_get_events(struct io_uring *ring)
{
	struct zn_uring *r = ring_of(ring);

	if (!r)
		return -EBADF;
	return zn_uring_enter(r, 0, 0, IORING_ENTER_GETEVENTS, -1);
}

struct io_uring_probe *io_uring_get_probe_ring(struct io_uring *ring)
{
	struct io_uring_probe *p;
	unsigned op;

	(void)ring;
	p = calloc(1, sizeof(*p) + IORING_OP_LAST * sizeof(p->ops[0]));
	if (!p)
		return NULL;
	p->last_op = IORING_OP_LAST - 1;
	p->ops_len = IORING_OP_LAST;
	for (op = 0; op < IORING_OP_LAST; op++) {
		p->ops[op].op = (__u8)op;
		if (zn_uring_op_supported(op))
			p->ops[op].flags = IO_URING_OP_SUPPORTED;
	}
	return p;
}

struct io_uring_probe *io_uring_get_probe(void)
{
	return io_uring_get_probe_ring(NULL);
}

void io_uring_free_probe(struct io_uring_probe *probe)
{
	free(probe);
}

static int do_register(struct io_uring *ring, unsigned opcode, const void *arg, unsigned nr);

/* Through the dispatch, as liburing's go through the syscall: the
 * SINGLE_ISSUER, restriction and SQPOLL rules apply to them too. */
int io_uring_register_buffers(struct io_uring *ring, const struct iovec *iovecs,
			      unsigned nr_iovecs)
{
	return do_register(ring, IORING_REGISTER_BUFFERS, iovecs, nr_iovecs);
}

int io_uring_unregister_buffers(struct io_uring *ring)
{
	return do_register(ring, IORING_UNREGISTER_BUFFERS, NULL, 0);
}

int io_uring_register_files(struct io_uring *ring, const int *files, unsigned nr_files)
{
	return do_register(ring, IORING_REGISTER_FILES, files, nr_files);
}

int io_uring_unregister_files(struct io_uring *ring)
{
	return do_register(ring, IORING_UNREGISTER_FILES, NULL, 0);
}

int io_uring_register_ring_fd(struct io_uring *ring)
{
	return ring_of(ring) ? 1 : -EBADF;
}

int io_uring_unregister_ring_fd(struct io_uring *ring)
{
	return ring_of(ring) ? 1 : -EBADF;
}

int io_uring_register_ifq(struct io_uring *ring, struct io_uring_zcrx_ifq_reg *reg)
{
	struct zn_uring *r = ring_of(ring);

	return r ? zn_uring_register_ifq(r, reg) : -EBADF;
}

int io_uring_register_sync_msg(struct io_uring_sqe *sqe)
{
	if (!sqe)
		return -EFAULT;
	return zn_uring_register_blind(IORING_REGISTER_SEND_MSG_RING, sqe, 1);
}

void *io_uring_compat_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct zn_uring *r;
	int mfd;

	if (!zn_handle_is_handle(fd))
		return mmap(addr, len, prot, flags, fd, off);
	r = zn_uring_from_handle(fd);
	/* a closed handle: EBADF; a handle of something else has no mmap: ENODEV */
	mfd = r ? zn_uring_mmap_fd(r, (uint64_t)off, len) :
		zn_handle_type(fd) >= 0 ? -ENODEV : -EBADF;
	if (mfd < 0) {
		errno = -mfd;
		return MAP_FAILED;
	}
	return mmap(addr, len, prot, flags, mfd, 0);
}

/*
 * io_uring_register(2): the ring handle names the ring; -1 the ring-less
 * ("blind") ops. An fd that is no ring: -EBADF when it is not a zcnic
 * handle, -EOPNOTSUPP when it is a handle of something else (the kernel's
 * answer for an fd that is not an io_uring).
 */
int io_uring_register(unsigned int fd, unsigned int opcode, const void *arg,
		      unsigned int nr_args)
{
	struct zn_uring *r;

	if ((opcode & ~(unsigned)IORING_REGISTER_USE_REGISTERED_RING) >= IORING_REGISTER_LAST)
		return -EINVAL;
	if ((int)fd == -1)
		return zn_uring_register_blind(opcode, (void *)(uintptr_t)arg, nr_args);
	r = zn_uring_from_handle((int)fd);
	if (!r)
		return zn_handle_type((int)fd) >= 0 ? -EOPNOTSUPP : -EBADF;
	return zn_uring_register(r, opcode, (void *)(uintptr_t)arg, nr_args);
}

static int do_register(struct io_uring *ring, unsigned opcode, const void *arg, unsigned nr)
{
	return io_uring_register((unsigned)ring->ring_fd, opcode, arg, nr);
}

int io_uring_register_probe(struct io_uring *ring, struct io_uring_probe *p, unsigned nr_ops)
{
	return do_register(ring, IORING_REGISTER_PROBE, p, nr_ops);
}

int io_uring_register_eventfd(struct io_uring *ring, int fd)
{
	return do_register(ring, IORING_REGISTER_EVENTFD, &fd, 1);
}

int io_uring_register_eventfd_async(struct io_uring *ring, int fd)
{
	return do_register(ring, IORING_REGISTER_EVENTFD_ASYNC, &fd, 1);
}

int io_uring_unregister_eventfd(struct io_uring *ring)
{
	return do_register(ring, IORING_UNREGISTER_EVENTFD, NULL, 0);
}

int io_uring_enable_rings(struct io_uring *ring)
{
	return do_register(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
}

int io_uring_register_iowq_aff(struct io_uring *ring, size_t cpusz, const cpu_set_t *mask)
{
	if (cpusz >= (1U << 31))
		return -EINVAL;
	return do_register(ring, IORING_REGISTER_IOWQ_AFF, mask, (unsigned)cpusz);
}

int io_uring_unregister_iowq_aff(struct io_uring *ring)
{
	return do_register(ring, IORING_UNREGISTER_IOWQ_AFF, NULL, 0);
}

int io_uring_register_iowq_max_workers(struct io_uring *ring, unsigned int *values)
{
	return do_register(ring, IORING_REGISTER_IOWQ_MAX_WORKERS, values, 2);
}

int io_uring_register_buf_ring(struct io_uring *ring, struct io_uring_buf_reg *reg,
			       unsigned int flags)
{
	reg->flags |= (__u16)flags;
	return do_register(ring, IORING_REGISTER_PBUF_RING, reg, 1);
}

int io_uring_unregister_buf_ring(struct io_uring *ring, int bgid)
{
	struct io_uring_buf_reg reg = { .bgid = (__u16)bgid };

	return do_register(ring, IORING_UNREGISTER_PBUF_RING, &reg, 1);
}

int io_uring_buf_ring_head(struct io_uring *ring, int buf_group, uint16_t *head)
{
	struct io_uring_buf_status st = { .buf_group = (__u32)buf_group };
	int rc = do_register(ring, IORING_REGISTER_PBUF_STATUS, &st, 1);

	if (!rc)
		*head = (uint16_t)st.head;
	return rc;
}

struct io_uring_buf_ring *io_uring_setup_buf_ring(struct io_uring *ring, unsigned int nentries,
						  int bgid, unsigned int flags, int *err)
{
	size_t size = (size_t)nentries * sizeof(struct io_uring_buf);
	struct io_uring_buf_reg reg;
	struct io_uring_buf_ring *br;
	int rc;

	/* the program's memory, page aligned: liburing's own way (no mmap of the ring) */
	br = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE,
		  -1, 0);
	if (br == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uintptr_t)br;
	reg.ring_entries = nentries;
	reg.bgid = (__u16)bgid;
	rc = io_uring_register_buf_ring(ring, &reg, flags);
	if (rc) {
		munmap(br, size ? size : 1);
		*err = rc;
		return NULL;
	}
	*err = 0;
	io_uring_buf_ring_init(br);
	return br;
}

int io_uring_free_buf_ring(struct io_uring *ring, struct io_uring_buf_ring *br,
			   unsigned int nentries, int bgid)
{
	int rc = io_uring_unregister_buf_ring(ring, bgid);

	if (rc)
		return rc;
	munmap(br, nentries * sizeof(struct io_uring_buf));
	return 0;
}

int io_uring_register_sync_cancel(struct io_uring *ring, struct io_uring_sync_cancel_reg *reg)
{
	return do_register(ring, IORING_REGISTER_SYNC_CANCEL, reg, 1);
}

int io_uring_register_zcrx_ctrl(struct io_uring *ring, struct zcrx_ctrl *ctrl)
{
	return do_register(ring, IORING_REGISTER_ZCRX_CTRL, ctrl, 0);
}

int io_uring_register_query(struct io_uring_query_hdr *query)
{
	return io_uring_register((unsigned)-1, IORING_REGISTER_QUERY, query, 0);
}
