/* SPDX-License-Identifier: MIT */
/*
 * core/uring: READ, WRITE, READV, WRITEV, READ_FIXED, WRITE_FIXED and
 * READ_MULTISHOT on OS file descriptors, as Linux io_uring/rw.c:
 *  - prep: attr_type_mask other than PI -EINVAL (PI needs O_DIRECT block
 *    devices: -EOPNOTSUPP); READV/WRITEV: more than UIO_MAXIOV vectors
 *    -EINVAL, an unreadable vector -EFAULT; READV with IOSQE_BUFFER_SELECT
 *    takes one vector (else -EINVAL) whose length caps the buffer;
 *    READ_MULTISHOT needs IOSQE_BUFFER_SELECT, addr and len 0 (-EINVAL);
 *  - off -1 is the file position (read and moved, as read(2)); on a file
 *    that is no regular file or block device (a pipe, an eventfd, a
 *    socket, a tty) the offset is ignored, as for Linux's stream files;
 *  - rw_flags are RWF_* as preadv2(2): the kernel checks them (unknown ones
 *    -EOPNOTSUPP); RWF_HIPRI without IORING_SETUP_IOPOLL -EINVAL; on an
 *    IOPOLL ring only O_DIRECT files (else -EOPNOTSUPP);
 *  - a regular file is read or written inline (a page-cache hit, or the
 *    disk: the ring thread waits as an io-wq worker would); the result is
 *    what preadv2/pwritev2 return (short at end of file);
 *  - anything else is tried without blocking (RWF_NOWAIT, or a zero-time
 *    poll first where the file has no nowait support); if it would block,
 *    the request is armed (osfd.h) and retried when the fd is ready, unless
 *    the SQE asked RWF_NOWAIT (-EAGAIN then). A pipe read returns what is
 *    there (short); a pipe write what fits once there is room;
 *  - IOSQE_BUFFER_SELECT (READ, READV, READ_MULTISHOT): the buffer is
 *    taken when the read is tried (-ENOBUFS if the group is empty), given
 *    back if it would block or fails, and named in the CQE when used;
 *  - READ_MULTISHOT: on a file that cannot be polled (a regular file)
 *    -EBADFD; each read posts a CQE with IORING_CQE_F_MORE and its
 *    buffer; it ends with end of file (0), an error, -ENOBUFS, or a full
 *    CQ (that read's CQE is the last, as Linux's io_req_post_cqe failing).
 * READ and WRITE on a zcnic socket handle are the socket's RECV and SEND
 * (read(2) on a socket is recv(2)); the other kinds on a handle
 * -EOPNOTSUPP.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/mem/ucopy.h"
#include "core/uring/osfd.h"

#define RW_ATTR_PI	(1ull << 0)	/* IORING_RW_ATTR_FLAG_PI */
#define RW_WAIT		INT32_MIN	/* rw_try: would block, arm it */
#define MSHOT_BURST	64		/* reads of one multishot per pass */

enum { K_WRITE = 1, K_VEC = 2, K_FIXED = 4, K_MSHOT = 8 };

struct rw_pdu {
	struct zn_osfd_arm arm;
	uint64_t addr;
	int64_t off;
	struct iovec *iov;	/* the vector's copy while armed (READV/WRITEV) */
	uint32_t len;
	uint32_t rw_flags;
	uint16_t buf_index;
	uint8_t kind;
};
_Static_assert(sizeof(struct rw_pdu) <= ZN_URING_REQ_PDU, "rw pdu too big");

#define PDU(req) ((struct rw_pdu *)(req)->pdu)

/* ---- READ / WRITE on a zcnic socket: its RECV / SEND ---- */

static const struct zn_uring_op *delegate(const struct zn_uring_req *req)
{
	if (!zn_handle_is_handle(req->file) ||
	    (req->opcode != IORING_OP_READ && req->opcode != IORING_OP_WRITE))
		return NULL;
	return zn_uring_op_get(req->opcode == IORING_OP_READ ? IORING_OP_RECV : IORING_OP_SEND);
}

static int delegate_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct io_uring_sqe s;

	if (zn_handle_type(req->file) != ZN_HANDLE_SOCKET)
		return -EOPNOTSUPP;
	memset(&s, 0, sizeof(s));
	s.opcode = req->opcode == IORING_OP_READ ? IORING_OP_RECV : IORING_OP_SEND;
	s.flags = sqe->flags;
	s.fd = sqe->fd;
	s.addr = sqe->addr;
	s.len = sqe->len;
	s.buf_group = sqe->buf_group;
	s.user_data = sqe->user_data;
	return delegate(req)->prep(req, &s);
}

/* ---- prep ---- */

/* Linux's ioprio_check_cap: class 3 bits, level 3 bits (bits 3-12 are hints). */
static int ioprio_check(uint16_t ioprio)
{
	unsigned class = ioprio >> 13, level = ioprio & 7;

	switch (class) {
	case 1:		/* RT */
		if (geteuid())
			return -EPERM;
		return 0;
	case 2:		/* BE */
	case 3:		/* IDLE */
		return 0;
	case 0:		/* NONE */
		return level ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

static int rw_prep_common(struct zn_uring_req *req, const struct io_uring_sqe *sqe, uint8_t kind)
{
	struct rw_pdu *p = PDU(req);
	int rc = sqe->ioprio ? ioprio_check(sqe->ioprio) : 0;

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->off = (int64_t)sqe->off;
	p->addr = sqe->addr;
	p->len = sqe->len;
	p->rw_flags = sqe->rw_flags;
	p->buf_index = sqe->buf_index;
	if (rc)
		return rc;
	if (sqe->attr_type_mask)
		return sqe->attr_type_mask == RW_ATTR_PI ? -EOPNOTSUPP : -EINVAL;
	return 0;
}

static int rw_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	uint8_t kind = 0;
	int rc;

	if (delegate(req))
		return delegate_prep(req, sqe);
	if (zn_handle_is_handle(req->file))
		return -EOPNOTSUPP;
	if (req->opcode == IORING_OP_READV || req->opcode == IORING_OP_WRITEV)
		kind = K_VEC;
	if (req->opcode == IORING_OP_READ_FIXED || req->opcode == IORING_OP_WRITE_FIXED)
		kind = K_FIXED;
	if (req->opcode == IORING_OP_WRITE || req->opcode == IORING_OP_WRITEV ||
	    req->opcode == IORING_OP_WRITE_FIXED)
		kind |= K_WRITE;
	rc = rw_prep_common(req, sqe, kind);
	if (rc)
		return rc;
	if (kind & K_VEC) {
		struct rw_pdu *p = PDU(req);
		struct iovec one;

		if (req->sqe_flags & IOSQE_BUFFER_SELECT) {
			/* one vector, its length the most to read */
			if (p->len != 1)
				return -EINVAL;
			if (zn_ucopy_from(&one, (const void *)(uintptr_t)p->addr, sizeof(one)))
				return -EFAULT;
			p->len = (uint32_t)(one.iov_len > UINT32_MAX ? UINT32_MAX : one.iov_len);
			p->kind &= (uint8_t)~K_VEC;
			return 0;
		}
		if (p->len > UIO_MAXIOV)
			return -EINVAL;
		/* readable now: the kernel copies it here */
		for (uint32_t i = 0; i < p->len; i++)
			if (zn_ucopy_from(&one, (const void *)(uintptr_t)(p->addr + i * sizeof(one)),
					  sizeof(one)))
				return -EFAULT;
	}
	return 0;
}

static int mshot_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	int rc;

	if (!(req->sqe_flags & IOSQE_BUFFER_SELECT))
		return -EINVAL;
	rc = rw_prep_common(req, sqe, K_MSHOT);
	if (rc)
		return rc;
	if (sqe->addr || sqe->len)
		return -EINVAL;
	return zn_handle_is_handle(req->file) ? -EOPNOTSUPP : 0;
}

/* ---- one try ---- */

/* Regular file or block device: positioned, done inline. -errno if fd is bad. */
static int file_kind(int fd, bool *seekable)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	*seekable = S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
	return 0;
}

static ssize_t do_io(const struct rw_pdu *p, int fd, const struct iovec *iov, int n,
		     off_t off, int flags)
{
	ssize_t rc = (p->kind & K_WRITE) ? pwritev2(fd, iov, n, off, flags) :
		preadv2(fd, iov, n, off, flags);

	return rc < 0 ? -errno : rc;
}

/*
 * One attempt at req's I/O: the result (bytes or -errno, *cflags the
 * buffer's CQE flags), or RW_WAIT when it would block and may wait.
 */
static int rw_try(struct zn_uring_req *req, uint32_t *cflags)
{
	struct rw_pdu *p = PDU(req);
	struct zn_uring *r = req->ring;
	bool seekable = false, nowait = p->rw_flags & RWF_NOWAIT;
	short events = (p->kind & K_WRITE) ? POLLOUT : POLLIN;
	struct iovec one, *iov = &one;
	int fd = req->file, n = 1, bid = -1, rc;
	ssize_t ret;

	*cflags = 0;
	if ((p->rw_flags & RWF_HIPRI) && !(r->flags & IORING_SETUP_IOPOLL))
		return -EINVAL;
	rc = file_kind(fd, &seekable);
	if (rc)
		return rc;
	if ((r->flags & IORING_SETUP_IOPOLL) && (!seekable || !(fcntl(fd, F_GETFL) & O_DIRECT)))
		return -EOPNOTSUPP;	/* nothing to poll for completion */
	if ((p->kind & K_MSHOT) && seekable)
		return -EBADFD;		/* multishot needs a file that can be polled */
	if (p->kind & K_FIXED) {
		void *ptr;

		rc = zn_uring_fixed_buf(r, p->buf_index, p->addr, p->len, &ptr);
		if (rc)
			return rc;
		one = (struct iovec){ ptr, p->len };
	} else if (p->kind & K_VEC) {
		iov = p->iov ? p->iov : (struct iovec *)(uintptr_t)p->addr;
		n = (int)p->len;
	} else if (req->sqe_flags & IOSQE_BUFFER_SELECT) {
		uint32_t len = p->len;
		void *addr;

		bid = zn_uring_buf_select(req, &addr, &len);
		if (bid < 0)
			return bid;
		one = (struct iovec){ addr, len };
	} else {
		one = (struct iovec){ (void *)(uintptr_t)p->addr, p->len };
	}
	if (seekable) {
		ret = do_io(p, fd, iov, n, p->off, (int)p->rw_flags);
	} else {
		ret = do_io(p, fd, iov, n, -1, (int)(p->rw_flags | RWF_NOWAIT));
		if (ret == -EOPNOTSUPP && !nowait && !(p->rw_flags & ~RWF_SUPPORTED)) {
			/* no nowait support: ask poll first, then the plain call */
			struct pollfd pfd = { .fd = fd, .events = events };

			ret = poll(&pfd, 1, 0) == 1 ? do_io(p, fd, iov, n, -1, (int)p->rw_flags) :
				-EAGAIN;
		}
		if (ret == -EAGAIN && !nowait) {
			if (bid >= 0)
				zn_uring_buf_recycle(req, bid);
			return RW_WAIT;
		}
	}
	if (bid >= 0) {
		/* a failure keeps no buffer; end of file neither, for a multishot (Linux) */
		if (ret < 0 || (ret == 0 && (p->kind & K_MSHOT)))
			zn_uring_buf_recycle(req, bid);
		else
			*cflags = zn_uring_buf_done(req, bid, (uint32_t)ret);
	}
	return ret > INT32_MAX ? INT32_MAX : (int)ret;
}

/* ---- READ, WRITE, READV, WRITEV, READ_FIXED, WRITE_FIXED ---- */

static void rw_ready(struct zn_uring_req *req, short revents);

/* Wait for the fd: the vector is copied first (the program's may go). */
static int rw_arm(struct zn_uring_req *req)
{
	struct rw_pdu *p = PDU(req);

	if ((p->kind & K_VEC) && !p->iov && p->len) {
		size_t sz = p->len * sizeof(struct iovec);

		p->iov = malloc(sz);
		if (!p->iov)
			return -ENOMEM;
		if (zn_ucopy_from(p->iov, (const void *)(uintptr_t)p->addr, sz)) {
			free(p->iov);
			p->iov = NULL;
			return -EFAULT;
		}
	}
	return zn_osfd_arm(req, req->file, (p->kind & K_WRITE) ? POLLOUT : POLLIN, rw_ready);
}

static void rw_release(struct zn_uring_req *req)
{
	free(PDU(req)->iov);
	PDU(req)->iov = NULL;
}

static void rw_ready(struct zn_uring_req *req, short revents)
{
	uint32_t cflags;
	int res = rw_try(req, &cflags);

	(void)revents;
	if (res == RW_WAIT) {
		res = rw_arm(req);
		if (!res)
			return;
	}
	rw_release(req);
	zn_uring_req_complete(req, res, cflags);
}

static int rw_issue(struct zn_uring_req *req)
{
	const struct zn_uring_op *d = delegate(req);
	uint32_t cflags;
	int res;

	if (d)
		return d->issue(req);
	res = rw_try(req, &cflags);
	if (res == RW_WAIT) {
		res = rw_arm(req);
		if (!res)
			return ZN_URING_ISSUE_ASYNC;
		rw_release(req);
	}
	req->res = res;
	req->cflags = cflags;
	return ZN_URING_ISSUE_DONE;
}

static void rw_cancel(struct zn_uring_req *req)
{
	const struct zn_uring_op *d = delegate(req);

	if (d) {
		if (d->cancel)
			d->cancel(req);
		return;
	}
	zn_osfd_disarm(req);
	rw_release(req);
}

/* ---- READ_MULTISHOT ---- */

static void mshot_ready(struct zn_uring_req *req, short revents);

/* Reads while there is data: 1 when it ended (*res, *cflags its last CQE), 0 when armed. */
static int mshot_run(struct zn_uring_req *req, int *res, uint32_t *cflags)
{
	struct zn_uring *r = req->ring;

	for (unsigned i = 0; i < MSHOT_BURST; i++) {
		int rc = rw_try(req, cflags);

		if (rc == RW_WAIT)
			break;
		if (rc <= 0 || !zn_uring_cq_space(r) || zn_uring_overflow_pending(r)) {
			/* the end: EOF, an error, no buffer, or no room for more CQEs */
			*res = rc;
			return 1;
		}
		zn_uring_post_cqe(r, req->user_data, rc, *cflags | IORING_CQE_F_MORE, NULL, 0);
	}
	*cflags = 0;
	*res = zn_osfd_arm(req, req->file, POLLIN, mshot_ready);
	return *res != 0;
}

static void mshot_ready(struct zn_uring_req *req, short revents)
{
	uint32_t cflags;
	int res;

	(void)revents;
	if (mshot_run(req, &res, &cflags))
		zn_uring_req_complete(req, res, cflags);
}

static int mshot_issue(struct zn_uring_req *req)
{
	int res;
	uint32_t cflags;

	if (mshot_run(req, &res, &cflags)) {
		req->res = res;
		req->cflags = cflags;
		return ZN_URING_ISSUE_DONE;
	}
	return ZN_URING_ISSUE_ASYNC;
}

static void mshot_cancel(struct zn_uring_req *req)
{
	zn_osfd_disarm(req);
}

#define RW_OP(NAME, FLAGS) {							\
	.name = NAME, .flags = ZN_URING_OP_NEEDS_FILE | (FLAGS),		\
	.prep = rw_prep, .issue = rw_issue, .cancel = rw_cancel,		\
}

const struct zn_uring_op zn_osfd_read_op = RW_OP("READ", ZN_URING_OP_BUFFER_SELECT);
const struct zn_uring_op zn_osfd_write_op = RW_OP("WRITE", 0);
const struct zn_uring_op zn_osfd_readv_op = RW_OP("READV", ZN_URING_OP_BUFFER_SELECT);
const struct zn_uring_op zn_osfd_writev_op = RW_OP("WRITEV", 0);
const struct zn_uring_op zn_osfd_read_fixed_op = RW_OP("READ_FIXED", 0);
const struct zn_uring_op zn_osfd_write_fixed_op = RW_OP("WRITE_FIXED", 0);
const struct zn_uring_op zn_osfd_read_mshot_op = {
	.name = "READ_MULTISHOT", .flags = ZN_URING_OP_NEEDS_FILE | ZN_URING_OP_BUFFER_SELECT,
	.prep = mshot_prep, .issue = mshot_issue, .cancel = mshot_cancel,
};
