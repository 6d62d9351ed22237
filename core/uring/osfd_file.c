/* SPDX-License-Identifier: MIT */
/*
 * core/uring: CLOSE, FSYNC, SYNC_FILE_RANGE, FALLOCATE, FADVISE, MADVISE
 * and FTRUNCATE, as Linux io_uring/openclose.c, sync.c, advise.c and
 * truncate.c: each prep's checks, then the system call's own answer
 * (SPLICE, TEE and PIPE: osfd_pipe.c):
 *  - CLOSE: off, addr, len, rw_flags, buf_index -EINVAL; IOSQE_FIXED_FILE
 *    -EBADF; file_index and fd both set -EINVAL. file_index (slot + 1)
 *    empties a registered-file slot: no table -ENXIO, past it -EINVAL, an
 *    empty slot -EBADF. Otherwise fd: an OS fd is close(2)d (not open
 *    -EBADF); a zcnic handle goes to the socket layer's CLOSE (a ring's
 *    handle -EBADF, as Linux refuses an io_uring fd);
 *  - FSYNC: addr, buf_index, splice_fd_in -EINVAL; fsync_flags other than
 *    IORING_FSYNC_DATASYNC -EINVAL; the whole file is synced (a range is a
 *    hint the kernel may widen too);
 *  - SYNC_FILE_RANGE: addr, buf_index, splice_fd_in -EINVAL;
 *  - FALLOCATE (off, len in addr, mode in len): buf_index, rw_flags,
 *    splice_fd_in -EINVAL;
 *  - FADVISE (off, len in addr, or in len if addr is 0) and MADVISE
 *    (addr, len): buf_index, splice_fd_in -EINVAL;
 *  - FTRUNCATE (length in off): rw_flags, addr, len, buf_index,
 *    splice_fd_in, addr3 -EINVAL.
 * These are inline system calls: a regular file's sync or allocation waits
 * in the ring thread, as in an io-wq worker. On a zcnic handle (a socket)
 * they answer what Linux answers for a socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/uring/osfd.h"

struct file_pdu {
	uint64_t off;
	uint64_t len;
	uint32_t flags;
};
_Static_assert(sizeof(struct file_pdu) <= ZN_URING_REQ_PDU, "file pdu too big");

#define PDU(req) ((struct file_pdu *)(req)->pdu)

static int sys_res(int rc)
{
	return rc < 0 ? -errno : rc;
}

/* ---- CLOSE ---- */

static int close_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	const struct zn_uring_op *sock_close = zn_uring_plugins.close_handle;

	memset(PDU(req), 0, sizeof(struct file_pdu));
	if (sqe->off || sqe->addr || sqe->len || sqe->rw_flags || sqe->buf_index)
		return -EINVAL;
	if (req->sqe_flags & IOSQE_FIXED_FILE)
		return -EBADF;
	if (sqe->file_index && sqe->fd)
		return -EINVAL;
	req->file = sqe->fd;
	if (sqe->file_index) {
		PDU(req)->flags = 1;	/* a slot, not an fd */
		PDU(req)->off = sqe->file_index - 1;
		return 0;
	}
	if (zn_handle_is_handle(sqe->fd) && sock_close)
		return sock_close->prep(req, sqe);
	return 0;
}

static int close_slot(struct zn_uring *r, uint64_t slot)
{
	if (!r->files)
		return -ENXIO;
	if (slot >= r->nfiles)
		return -EINVAL;
	if (r->files[slot] == -1)
		return -EBADF;
	r->files[slot] = -1;
	return 0;
}

static int close_issue(struct zn_uring_req *req)
{
	const struct zn_uring_op *sock_close = zn_uring_plugins.close_handle;
	int fd = req->file;

	if (zn_handle_is_handle(fd)) {
		if (sock_close)
			return sock_close->issue(req);
		req->res = -EBADF;
	} else if (PDU(req)->flags) {
		req->res = close_slot(req->ring, PDU(req)->off);
	} else {
		req->res = fd < 0 ? -EBADF : sys_res(close(fd));
	}
	return ZN_URING_ISSUE_DONE;
}

/* ---- FSYNC, SYNC_FILE_RANGE, FALLOCATE, FADVISE, MADVISE, FTRUNCATE ---- */

static int sync_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct file_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->addr || sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	p->off = sqe->off;
	p->len = sqe->len;
	if (req->opcode == IORING_OP_FSYNC) {
		p->flags = sqe->fsync_flags;
		if (p->flags & ~IORING_FSYNC_DATASYNC)
			return -EINVAL;
	} else {
		p->flags = sqe->sync_range_flags;
	}
	return 0;
}

static int fallocate_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct file_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	p->off = sqe->off;
	p->len = sqe->addr;
	p->flags = sqe->len;
	return 0;
}

static int advise_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct file_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->buf_index || sqe->splice_fd_in)
		return -EINVAL;
	p->flags = sqe->fadvise_advice;
	if (req->opcode == IORING_OP_MADVISE) {
		p->off = sqe->addr;
		p->len = sqe->len;
	} else {
		p->off = sqe->off;
		p->len = sqe->addr ? sqe->addr : sqe->len;
	}
	return 0;
}

static int ftruncate_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct file_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->rw_flags || sqe->addr || sqe->len || sqe->buf_index || sqe->splice_fd_in ||
	    sqe->addr3)
		return -EINVAL;
	p->len = sqe->off;
	return 0;
}

/* What Linux answers for these ops on a socket. */
static int on_socket(unsigned opcode)
{
	switch (opcode) {
	case IORING_OP_FALLOCATE:
		return -ENODEV;
	case IORING_OP_FADVISE:
	case IORING_OP_SYNC_FILE_RANGE:
		return -ESPIPE;
	default:
		return -EINVAL;
	}
}

static int file_issue(struct zn_uring_req *req)
{
	struct file_pdu *p = PDU(req);
	int fd = req->file, rc;

	if (req->opcode != IORING_OP_MADVISE && zn_handle_is_handle(fd)) {
		req->res = on_socket(req->opcode);
		return ZN_URING_ISSUE_DONE;
	}
	switch (req->opcode) {
	case IORING_OP_FSYNC:
		rc = sys_res((p->flags & IORING_FSYNC_DATASYNC) ? fdatasync(fd) : fsync(fd));
		break;
	case IORING_OP_SYNC_FILE_RANGE:
		rc = sys_res(sync_file_range(fd, (off_t)p->off, (off_t)p->len, p->flags));
		break;
	case IORING_OP_FALLOCATE:
		rc = sys_res(fallocate(fd, (int)p->flags, (off_t)p->off, (off_t)p->len));
		break;
	case IORING_OP_FADVISE:
		rc = -posix_fadvise(fd, (off_t)p->off, (off_t)p->len, (int)p->flags);
		break;
	case IORING_OP_MADVISE:
		rc = sys_res(madvise((void *)(uintptr_t)p->off, p->len, (int)p->flags));
		break;
	default:	/* FTRUNCATE */
		rc = sys_res(ftruncate(fd, (off_t)p->len));
		break;
	}
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

#define FILE_OP(NAME, PREP) {							\
	.name = NAME, .flags = ZN_URING_OP_NEEDS_FILE, .prep = PREP, .issue = file_issue,	\
}

const struct zn_uring_op zn_osfd_close_op = {
	.name = "CLOSE", .prep = close_prep, .issue = close_issue,
};
const struct zn_uring_op zn_osfd_fsync_op = FILE_OP("FSYNC", sync_prep);
const struct zn_uring_op zn_osfd_sync_range_op = FILE_OP("SYNC_FILE_RANGE", sync_prep);
const struct zn_uring_op zn_osfd_fallocate_op = FILE_OP("FALLOCATE", fallocate_prep);
const struct zn_uring_op zn_osfd_fadvise_op = FILE_OP("FADVISE", advise_prep);
const struct zn_uring_op zn_osfd_madvise_op = {
	.name = "MADVISE", .prep = advise_prep, .issue = file_issue,
};
const struct zn_uring_op zn_osfd_ftruncate_op = FILE_OP("FTRUNCATE", ftruncate_prep);
