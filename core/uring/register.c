/* SPDX-License-Identifier: MIT */
/*
 * core/uring: io_uring_register(2) for zcnic rings (zn_uring_register), and
 * what it alone owns: the probe, the eventfd, ring enabling (R_DISABLED) and
 * the query interface.
 *
 * The dispatch follows the kernel's io_uring/register.c: opcode >=
 * IORING_REGISTER_LAST -EINVAL (after IORING_REGISTER_USE_REGISTERED_RING is
 * stripped: every zcnic ring handle is "registered"); another thread on a
 * SINGLE_ISSUER ring -EEXIST; then each op's argument checks in the
 * kernel's order; on a restricted ring an op not allowed -EACCES
 * (restrict.c). Ops zcnic does not implement (buffer updates, NAPI,
 * clone) are -EOPNOTSUPP, so that a program can tell them from a bad
 * argument.
 *
 * Decisions where zcnic has no kernel counterpart (docs/uring.md):
 *  - IOWQ_AFF / IOWQ_MAX_WORKERS: zcnic has no io-wq workers (every op
 *    completes inline or is held by its op), so there is nothing to pin or
 *    to bound: the calls check their arguments as the kernel does and
 *    succeed; MAX_WORKERS reports 0 and 0 (the kernel's answer when the
 *    task has no io-wq yet).
 *  - The eventfd is signalled once per pass that posted CQEs (not once per
 *    CQE): the count read from it is not the number of CQEs, in the kernel
 *    neither. A MSG_RING sent from another thread signals it at once, so an
 *    owner that sleeps in epoll on it wakes up and reaps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "compat/liburing/io_uring/query.h"
#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"

#define PROBE_MAX_OPS		256	/* the kernel's nr_args bound */
#define QUERY_MAX_ENTRIES	1000	/* a chain longer than this is a cycle */
#define ZCRX_RQ_HDR_SIZE	128	/* refill ring: head 0, tail 64, rqes 128 */

/* ---- eventfd ---- */

/* fd is an open eventfd: 0, -EBADF (not open), -EINVAL (another file). */
static int check_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -EBADF;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") == 0 ? 0 : -EINVAL;
}

static int eventfd_register(struct zn_uring *r, const int *arg, bool async)
{
	int rc, fd;

	if (!arg)
		return -EFAULT;
	if (r->evfd >= 0)
		return -EBUSY;
	rc = check_eventfd(*arg);
	if (rc)
		return rc;
	/* our own reference, as the kernel's: the program may close its fd */
	fd = fcntl(*arg, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r->evfd_async = async;
	r->evfd_seen = (uint32_t)(r->st.cqes + r->ovf_count);
	__atomic_store_n(&r->evfd, fd, __ATOMIC_RELEASE);
	return 0;
}

static int eventfd_unregister(struct zn_uring *r)
{
	int fd = r->evfd;

	if (fd < 0)
		return -ENXIO;
	__atomic_store_n(&r->evfd, -1, __ATOMIC_RELEASE);
	close(fd);
	return 0;
}

static void evfd_write(struct zn_uring *r)
{
	uint64_t one = 1;
	int fd = __atomic_load_n(&r->evfd, __ATOMIC_ACQUIRE);

	if (fd < 0 || (__atomic_load_n(&r->sh->cq_flags, __ATOMIC_RELAXED) &
		       IORING_CQ_EVENTFD_DISABLED))
		return;
	/* a full counter (EAGAIN) still wakes the reader: nothing to do */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

void zn_uring_evfd_signal(struct zn_uring *r, bool from_submit)
{
	uint32_t n = (uint32_t)(r->st.cqes + r->ovf_count);

	if (n == r->evfd_seen)
		return;
	r->evfd_seen = n;
	/* EVENTFD_ASYNC: only CQEs of requests that did not complete inline */
	if (r->evfd_async && from_submit)
		return;
	evfd_write(r);
}

void zn_uring_notify(struct zn_uring *r)
{
	/* a sender on another thread: the owner must come and reap */
	if (r->flags & IORING_SETUP_TASKRUN_FLAG)
		__atomic_fetch_or(&r->sh->sq_flags, IORING_SQ_TASKRUN, __ATOMIC_RELEASE);
	if (__atomic_load_n(&r->evfd, __ATOMIC_ACQUIRE) >= 0)
		evfd_write(r);
	if (r->sqp)
		zn_sqpoll_wake(r);
}

/* ---- probe, enable ---- */

static int probe(struct io_uring_probe *p, unsigned nr)
{
	size_t size;
	unsigned i;

	if (nr > IORING_OP_LAST)
		nr = IORING_OP_LAST;
	size = sizeof(*p) + nr * sizeof(p->ops[0]);
	for (i = 0; i < size; i++)
		if (((const uint8_t *)p)[i])
			return -EINVAL;	/* the kernel wants it zeroed */
	p->last_op = IORING_OP_LAST - 1;
	for (i = 0; i < nr; i++) {
		p->ops[i].op = (uint8_t)i;
		if (zn_uring_op_supported(i))
			p->ops[i].flags = IO_URING_OP_SUPPORTED;
	}
	p->ops_len = (uint8_t)nr;
	return 0;
}

static int enable_rings(struct zn_uring *r)
{
	if (!atomic_load(&r->disabled))
		return -EBADFD;
	/* a SINGLE_ISSUER ring created disabled belongs to who enables it */
	if (r->flags & IORING_SETUP_SINGLE_ISSUER)
		r->owner = zn_uring_thread_tag();
	zn_uring_restrictions_enable(r);
	atomic_store(&r->disabled, 0);
	if (r->sqp)
		zn_sqpoll_wake(r);
	return 0;
}

/* ---- sync cancel, buffer rings ---- */

static int sync_cancel(struct zn_uring *r, const struct io_uring_sync_cancel_reg *sc)
{
	struct zn_cancel_data cd = { .user_data = sc->addr, .flags = sc->flags,
				     .opcode = sc->opcode };
	int64_t left = -1;
	uint64_t until = 0;
	unsigned i;
	int rc;

	if (sc->flags & ~(IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_FD |
			  IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_FD_FIXED |
			  IORING_ASYNC_CANCEL_USERDATA | IORING_ASYNC_CANCEL_OP))
		return -EINVAL;
	for (i = 0; i < 7; i++)
		if (sc->pad[i])
			return -EINVAL;
	for (i = 0; i < 3; i++)
		if (sc->pad2[i])
			return -EINVAL;
	if (sc->flags & IORING_ASYNC_CANCEL_FD) {
		rc = zn_uring_cancel_resolve_fd(r, &cd, sc->fd,
						sc->flags & IORING_ASYNC_CANCEL_FD_FIXED);
		if (rc)
			return rc;
	}
	rc = zn_uring_cancel(r, &cd);
	if (rc != -EALREADY)
		return rc;
	/* Running and not stoppable: wait for it to end, as the kernel does. */
	if (sc->timeout.tv_sec != -1 || sc->timeout.tv_nsec != -1) {
		left = sc->timeout.tv_sec * 1000000000ll + sc->timeout.tv_nsec;
		until = zn_now_ns() + (uint64_t)(left > 0 ? left : 0);
	}
	for (;;) {
		zn_uring_get_events(r);
		rc = zn_uring_cancel(r, &cd);
		if (rc != -EALREADY)
			break;
		if (left >= 0 && zn_now_ns() >= until)
			return -ETIME;
	}
	return rc == -ENOENT || rc > 0 ? 0 : rc;
}

/* ---- query ---- */

static ssize_t query_one(struct zn_uring *r, uint32_t op, void *buf)
{
	(void)r;
	switch (op) {
	case IO_URING_QUERY_OPCODES: {
		struct io_uring_query_opcode *e = buf;

		e->nr_request_opcodes = IORING_OP_LAST;
		e->nr_register_opcodes = IORING_REGISTER_LAST;
		e->feature_flags = ZN_URING_FEATURES;
		e->ring_setup_flags = ZN_URING_SETUP_FLAGS;
		e->enter_flags = ZN_ENTER_FLAGS;
		e->sqe_flags = IOSQE_FIXED_FILE | IOSQE_IO_DRAIN | IOSQE_IO_LINK |
			IOSQE_IO_HARDLINK | IOSQE_ASYNC | IOSQE_BUFFER_SELECT |
			IOSQE_CQE_SKIP_SUCCESS;
		e->nr_query_opcodes = __IO_URING_QUERY_MAX;
		return sizeof(*e);
	}
	case IO_URING_QUERY_ZCRX: {
		struct io_uring_query_zcrx *e = buf;

		/* no IMPORT/NODEV, no dmabuf areas, ZCRX_CTRL_FLUSH_RQ only, 4 KiB buffers */
		e->register_flags = 0;
		e->area_flags = 0;
		e->nr_ctrl_opcodes = ZCRX_CTRL_FLUSH_RQ + 1;
		e->features = 0;
		e->rq_hdr_size = ZCRX_RQ_HDR_SIZE;
		e->rq_hdr_alignment = ZN_CACHELINE;
		return sizeof(*e);
	}
	case IO_URING_QUERY_SCQ: {
		struct io_uring_query_scq *e = buf;

		e->hdr_size = sizeof(struct zn_uring_shared);
		e->hdr_alignment = ZN_CACHELINE;
		return sizeof(*e);
	}
	default:
		return -EOPNOTSUPP;
	}
}

static int query(struct zn_uring *r, void *arg, unsigned nr_args)
{
	struct io_uring_query_hdr hb, *h = &hb;
	void *uh = arg;		/* the program's header: any alignment, copied in and out */
	unsigned n = 0;

	if (nr_args)
		return -EINVAL;
	while (uh) {
		union {
			struct io_uring_query_opcode o;
			struct io_uring_query_zcrx z;
			struct io_uring_query_scq s;
		} data;
		size_t usize, rsize = 0;
		ssize_t ret = -EINVAL;

		if (zn_ucopy_from(h, uh, sizeof(*h)))
			return -EFAULT;
		usize = h->size;
		memset(&data, 0, sizeof(data));
		if (h->query_op >= __IO_URING_QUERY_MAX) {
			ret = -EOPNOTSUPP;
		} else if (!h->__resv[0] && !h->__resv[1] && !h->__resv[2] && !h->result &&
			   h->size) {
			/* the kernel reads the entry's data first: a bad
			 * pointer ends the whole call with -EFAULT */
			if (!h->query_data ||
			    zn_ucopy_from(&data, (const void *)(uintptr_t)h->query_data,
					  usize < sizeof(data) ? usize : sizeof(data)))
				return -EFAULT;
			memset(&data, 0, sizeof(data));
			ret = query_one(r, h->query_op, &data);
		}
		if (ret >= 0) {
			rsize = (size_t)ret;
			ret = 0;
		}
		if (h->query_data && usize) {
			/* what we know, zeros past it (copy_struct_to_user) */
			static const char zero[256];
			size_t copy = usize < rsize ? usize : rsize;
			char *u = (char *)(uintptr_t)h->query_data;

			if (zn_ucopy_to(u, &data, copy))
				return -EFAULT;
			for (size_t off = copy; off < usize; ) {
				size_t k = usize - off < sizeof(zero) ? usize - off : sizeof(zero);

				if (zn_ucopy_to(u + off, zero, k))
					return -EFAULT;
				off += k;
			}
		}
		h->result = (int32_t)ret;
		h->size = (uint32_t)(usize < rsize ? usize : rsize);
		if (zn_ucopy_to(uh, h, sizeof(*h)))
			return -EFAULT;
		uh = (void *)(uintptr_t)h->next_entry;
		if (++n >= QUERY_MAX_ENTRIES)
			return -ERANGE;
	}
	return 0;
}

/* ---- dispatch ---- */

static int ring_fds(struct io_uring_rsrc_update *up, unsigned nr, bool reg)
{
	unsigned i;

	if (!up)
		return -EFAULT;
	/* zcnic handles need no registering: each entry names itself */
	for (i = 0; i < nr; i++)
		if (reg && up[i].offset == UINT32_MAX)
			up[i].offset = i;
	return (int)nr;
}

/* io_register_files_update / io_register_rsrc_update: the two layouts. */
static int files_update(struct zn_uring *r, unsigned opcode, void *arg, unsigned nr)
{
	struct io_uring_rsrc_update2 up;

	memset(&up, 0, sizeof(up));
	if (opcode == IORING_REGISTER_FILES_UPDATE) {
		if (!nr)
			return -EINVAL;
		if (!arg || zn_ucopy_from(&up, arg, sizeof(struct io_uring_rsrc_update)))
			return -EFAULT;
	} else {
		if (nr != sizeof(up))
			return -EINVAL;
		if (!arg || zn_ucopy_from(&up, arg, sizeof(up)))
			return -EFAULT;
		nr = up.nr;
		if (!nr)
			return -EINVAL;
	}
	if (up.resv || up.resv2)
		return -EINVAL;
	if ((uint64_t)up.offset + nr > UINT32_MAX)
		return -EOVERFLOW;
	if (up.tags)
		return -EOPNOTSUPP;	/* tag CQEs at removal are not kept */
	return zn_uring_files_update(r, up.offset, (const int *)(uintptr_t)up.data, nr);
}

static int do_register(struct zn_uring *r, unsigned opcode, void *arg, unsigned nr)
{
	switch (opcode) {
	case IORING_REGISTER_BUFFERS:
		return arg ? zn_uring_register_buffers(r, arg, nr) : -EFAULT;
	case IORING_UNREGISTER_BUFFERS:
		return arg || nr ? -EINVAL : zn_uring_unregister_buffers(r);
	case IORING_REGISTER_FILES:
		return arg ? zn_uring_register_files(r, arg, nr) : -EFAULT;
	case IORING_UNREGISTER_FILES:
		return arg || nr ? -EINVAL : zn_uring_unregister_files(r);
	case IORING_REGISTER_FILES2:
		return arg ? zn_uring_register_files2(r, arg, nr) : -EFAULT;
	case IORING_REGISTER_FILES_UPDATE:
	case IORING_REGISTER_FILES_UPDATE2:
		return files_update(r, opcode, arg, nr);
	case IORING_REGISTER_EVENTFD:
	case IORING_REGISTER_EVENTFD_ASYNC:
		if (nr != 1)
			return -EINVAL;
		return eventfd_register(r, arg, opcode == IORING_REGISTER_EVENTFD_ASYNC);
	case IORING_UNREGISTER_EVENTFD:
		return arg || nr ? -EINVAL : eventfd_unregister(r);
	case IORING_REGISTER_PROBE:
		return !arg || nr > PROBE_MAX_OPS ? -EINVAL : probe(arg, nr);
	case IORING_REGISTER_ENABLE_RINGS:
		return arg || nr ? -EINVAL : enable_rings(r);
	case IORING_REGISTER_RESTRICTIONS:
		return zn_uring_register_restrictions(r, arg, nr);
	case IORING_REGISTER_PERSONALITY:
		return arg || nr ? -EINVAL : zn_uring_register_personality(r);
	case IORING_UNREGISTER_PERSONALITY:
		return arg ? -EINVAL : zn_uring_unregister_personality(r, nr);
	case IORING_REGISTER_FILE_ALLOC_RANGE:
		return zn_files_register_alloc_range(r, arg, nr);
	case IORING_REGISTER_IOWQ_AFF:
		return !arg || !nr ? -EINVAL : 0;
	case IORING_UNREGISTER_IOWQ_AFF:
		return arg || nr ? -EINVAL : 0;
	case IORING_REGISTER_IOWQ_MAX_WORKERS: {
		uint32_t *v = arg;

		if (!arg || nr != 2)
			return -EINVAL;
		if (v[0] > INT_MAX || v[1] > INT_MAX)
			return -EINVAL;
		v[0] = v[1] = 0;
		return 0;
	}
	case IORING_REGISTER_RING_FDS:
	case IORING_UNREGISTER_RING_FDS:
		return ring_fds(arg, nr, opcode == IORING_REGISTER_RING_FDS);
	case IORING_REGISTER_PBUF_RING:
		return !arg || nr != 1 ? -EINVAL : zn_uring_pbuf_ring_register(r, arg);
	case IORING_UNREGISTER_PBUF_RING:
		return !arg || nr != 1 ? -EINVAL : zn_uring_pbuf_ring_unregister(r, arg);
	case IORING_REGISTER_PBUF_STATUS:
		return !arg || nr != 1 ? -EINVAL : zn_uring_pbuf_status(r, arg);
	case IORING_REGISTER_SYNC_CANCEL:
		return !arg || nr != 1 ? -EINVAL : sync_cancel(r, arg);
	case IORING_REGISTER_ZCRX_IFQ:
		return !arg || nr != 1 ? -EINVAL : zn_uring_register_ifq(r, arg);
	case IORING_REGISTER_QUERY:
		return query(r, arg, nr);
	case IORING_REGISTER_ZCRX_CTRL:
		return zn_uring_plugins.zcrx_ctrl ? zn_uring_plugins.zcrx_ctrl(r, arg, nr) :
			-EOPNOTSUPP;
	case IORING_REGISTER_RESIZE_RINGS:
		return zn_uring_resize_rings(r, arg, nr);
	case IORING_REGISTER_BPF_FILTER:
		return -EINVAL;		/* as a kernel before BPF filters (REGISTER_LAST 37) */
	case IORING_REGISTER_SEND_MSG_RING:
		return -EINVAL;		/* blind only (ring fd -1) */
	case IORING_REGISTER_CLOCK:
		return !arg || nr ? -EINVAL : zn_uring_register_clock(r, arg);
	case IORING_REGISTER_MEM_REGION:
		return !arg || nr != 1 ? -EINVAL : zn_uring_register_mem_region(r, arg);
	default:
		return -EOPNOTSUPP;
	}
}

int zn_uring_register(struct zn_uring *r, unsigned opcode, void *arg, unsigned nr_args)
{
	int rc;

	if (!r)
		return -EBADF;
	opcode &= ~(unsigned)IORING_REGISTER_USE_REGISTERED_RING;
	if (opcode >= IORING_REGISTER_LAST)
		return -EINVAL;
	if ((r->flags & IORING_SETUP_SINGLE_ISSUER) && !atomic_load(&r->disabled) &&
	    r->owner != zn_uring_thread_tag())
		return -EEXIST;
	if (r->restricted && !zn_uring_restrict_reg_ok(r, opcode))
		return -EACCES;
	/* an SQPOLL thread runs the ring: it pauses while the ring changes */
	zn_sqpoll_park(r);
	rc = do_register(r, opcode, arg, nr_args);
	zn_sqpoll_unpark(r);
	return rc;
}

/* A DATA message without a source ring, with the kernel's checks. */
static int send_msg_ring(const struct io_uring_sqe *sqe, unsigned nr)
{
	if (!sqe || nr != 1)
		return -EINVAL;
	if (sqe->flags || sqe->opcode != IORING_OP_MSG_RING)
		return -EINVAL;
	if (sqe->addr != IORING_MSG_DATA || sqe->buf_index || sqe->personality ||
	    sqe->addr3 || (sqe->msg_ring_flags & ~IORING_MSG_RING_FLAGS_PASS) ||
	    (!(sqe->msg_ring_flags & IORING_MSG_RING_FLAGS_PASS) && sqe->file_index))
		return -EINVAL;
	return zn_uring_msg(sqe->fd, sqe->off, (int32_t)sqe->len,
			    (sqe->msg_ring_flags & IORING_MSG_RING_FLAGS_PASS) ? sqe->file_index : 0);
}

int zn_uring_register_blind(unsigned opcode, void *arg, unsigned nr_args)
{
	opcode &= ~(unsigned)IORING_REGISTER_USE_REGISTERED_RING;
	switch (opcode) {
	case IORING_REGISTER_SEND_MSG_RING:
		return send_msg_ring(arg, nr_args);
	case IORING_REGISTER_QUERY:
		return query(NULL, arg, nr_args);
	default:
		return -EINVAL;
	}
}

int zn_uring_mmap_fd(struct zn_uring *r, uint64_t mmap_offset, size_t len)
{
	int fd = r ? zn_uring_param_region_fd(r, mmap_offset, len) : -EINVAL;

	if (fd >= 0 || !r || !zn_uring_plugins.region_fd)
		return fd;
	return zn_uring_plugins.region_fd(r, mmap_offset, len);
}
