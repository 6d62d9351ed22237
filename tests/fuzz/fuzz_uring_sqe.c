/*
 * libFuzzer target: SQE decoding and validation in core/uring, through
 * the liburing-compatible API as an application drives it.
 *
 * Input: byte 0 picks the ring (bit 0 CQE32, bit 1 SUBMIT_ALL, bit 2 keep
 * link flags, bit 3 a CQ as small as the SQ so CQEs overflow, bit 4
 * SQE_MIXED: a 128-byte opcode takes its SQE and the next, bit 5 CQE_MIXED
 * unless CQE32: NOP_CQE32 posts two-slot CQEs, pads at the wrap); then up to
 * 8 raw 64-byte SQEs. user_data is set to the SQE's index, and small fds
 * 0..3 are mapped onto live objects (this ring, a second ring, a non-ring
 * handle, an OS fd) so that the valid paths are reachable too.
 *
 * The OS-fd ops (READ/WRITE family, READ_MULTISHOT, CLOSE, FSYNC, the file
 * ops, SPLICE, TEE) only ever see the read end of an empty harness pipe or
 * an fd number that is not open (PIPE writes its fds to the harness and
 * they are closed after the batch; READV/WRITEV get a NULL vector), so
 * nothing is read into a random address,
 * nothing of the process is closed or truncated: reads wait (cancelled at
 * ring exit), the rest fail with the kernel's codes. MADVISE gets addr 0
 * and a harmless advice; CLOSE's file_index names an empty or a missing
 * slot, so the table stays as the reference knows it.
 *
 * The engine's own ops get harness-owned pointers: TIMEOUT / LINK_TIMEOUT
 * addr and TIMEOUT_REMOVE addr2 name one of { NULL, a zero timespec (due at
 * once), a negative one }, PROVIDE_BUFFERS addr a harness buffer and at most
 * 64 buffers (the count's error cases stay reachable).
 *
 * MSG_RING's passed CQE flags lose IORING_CQE_F_32 and F_SKIP: a reader
 * (liburing's iterator, this harness) takes them as the CQ's layout.
 *
 * Checks: nothing crashes or leaks (ASan/UBSan); every SQE gets at most one
 * CQE of its own (MSG_RING target CQEs are recognised by their off; a
 * multishot TIMEOUT's F_MORE CQEs are counted apart), plus, for
 * SEND_ZC/SENDMSG_ZC, exactly one notification after a result with F_MORE
 * and none otherwise; no CQE is lost (koverflow stays 0); without link
 * flags, each SQE's result and the number of SQEs consumed match a
 * reference decode written here from the kernel rules (see
 * core/uring/submit.c, op_nop.c, msg_ring.c, msg_fd.c, timeout.c, cancel.c,
 * kbuf.c; FILES_UPDATE at prep only, its array the harness's);
 * results that depend on other SQEs of the batch (what a cancel or a
 * remove finds) are checked at prep only.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sys/socket.h>
#include <unistd.h>

#include "zcnic/handle.h"
#include "zcnic/log.h"
#include "zcnic/socket.h"
#include "zcnic/uring.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define MAX_SQES 8
#define MSG_OFF_BASE 1000u
#define REF_ANY INT32_MIN	/* issued; the result depends on the batch */

static const struct __kernel_timespec ts_zero = { 0, 0 }, ts_neg = { -1, 0 };
static char pbuf[4096];
/* FILES_UPDATE's array: the ring, empty, a handle, the other ring, an OS
 * fd, SKIP, a bad value, a stale handle */
static int upd_fds[8];
static const int upd_init[8] = { 0, -1, 0, 0, 5, IORING_REGISTER_FILES_SKIP, -7, 0x1fffffff };
static const struct io_uring_sqe *g_sq;	/* the batch, for reap() */

static int test_obj;
static int test_handle;
static char bufs[2][256];
static int pipe_rd;			/* an empty pipe's read end (its writer kept open) */
static int pipe_out[MAX_SQES][2];	/* where each PIPE writes its fds */
#define CLOSED_FD 900000		/* an fd number nothing opens */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	zn_log_configure("off");
	test_handle = zn_handle_alloc(ZN_HANDLE_TEST, &test_obj);
	{
		int p[2];

		if (pipe(p))
			__builtin_trap();
		pipe_rd = p[0];
	}
	return 0;
}

struct env {
	int self, other;
	bool sqe_mixed, big_cqes;	/* SQE_MIXED; CQE32 or CQE_MIXED */
	int files[5];
	unsigned nfiles;
	struct iovec iov[3];
};

static int live(int h)
{
	return zn_handle_type(h) >= 0;
}

/* A live handle or an open OS fd. */
static int open_fd(int h)
{
	if (zn_handle_is_handle(h))
		return live(h);
	return h >= 0 && fcntl(h, F_GETFD) >= 0;
}

static int is_osfd_op(unsigned op)
{
	switch (op) {
	case IORING_OP_READV: case IORING_OP_WRITEV: case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED: case IORING_OP_READ: case IORING_OP_WRITE:
	case IORING_OP_READ_MULTISHOT: case IORING_OP_FSYNC: case IORING_OP_SYNC_FILE_RANGE:
	case IORING_OP_FALLOCATE: case IORING_OP_FADVISE: case IORING_OP_MADVISE:
	case IORING_OP_FTRUNCATE: case IORING_OP_SPLICE: case IORING_OP_TEE:
		return 1;
	default:
		return 0;
	}
}

/* Linux opdef.c's .ioprio: the opcodes that read sqe->ioprio. */
static int takes_ioprio(unsigned op)
{
	switch (op) {
	case IORING_OP_READV: case IORING_OP_WRITEV: case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED: case IORING_OP_SENDMSG: case IORING_OP_RECVMSG:
	case IORING_OP_ACCEPT: case IORING_OP_SEND: case IORING_OP_RECV:
	case IORING_OP_READ: case IORING_OP_WRITE: case IORING_OP_SEND_ZC:
	case IORING_OP_SENDMSG_ZC: case IORING_OP_READ_MULTISHOT: case IORING_OP_RECV_ZC:
		return 1;
	default:
		return 0;
	}
}

static int selects_buffers(unsigned op)
{
	return op == IORING_OP_RECV || op == IORING_OP_RECVMSG || op == IORING_OP_READ ||
	       op == IORING_OP_READV || op == IORING_OP_READ_MULTISHOT;
}

/*
 * The OS-fd ops (core/uring/osfd_rw.c, osfd_file.c): prep's checks; then
 * what the fd (the harness pipe, a closed fd, a handle) answers, which is
 * the kernel's: REF_ANY, except where it cannot vary.
 */
static int osfd_result(const struct io_uring_sqe *s, int file, int *at_init)
{
	unsigned op = s->opcode, fl = s->flags;
	unsigned cls = s->ioprio >> 13, lvl = s->ioprio & 7;
	int handle = zn_handle_is_handle(file);

	switch (op) {
	case IORING_OP_READ_MULTISHOT:
		if (!(fl & IOSQE_BUFFER_SELECT))
			return -EINVAL;
		/* fall through */
	case IORING_OP_READV: case IORING_OP_WRITEV: case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED: case IORING_OP_READ: case IORING_OP_WRITE:
		if (handle && (op == IORING_OP_READ || op == IORING_OP_WRITE)) {
			/* a socket's RECV / SEND; not a socket: -EOPNOTSUPP */
			if (zn_handle_type(file) != ZN_HANDLE_SOCKET)
				return -EOPNOTSUPP;
			break;
		}
		if (handle && op != IORING_OP_READ_MULTISHOT)
			return -EOPNOTSUPP;
		if (s->ioprio && (cls > 3 || (cls == 0 && lvl)))
			return -EINVAL;
		if (s->attr_type_mask)
			return s->attr_type_mask == 1 ? -EOPNOTSUPP : -EINVAL;
		if (op == IORING_OP_READ_MULTISHOT && (s->addr || s->len))
			return -EINVAL;
		if (handle)	/* READ_MULTISHOT's last check */
			return -EOPNOTSUPP;
		if ((op == IORING_OP_READV || op == IORING_OP_WRITEV) &&
		    !(fl & IOSQE_BUFFER_SELECT) && s->len > 1024)
			return -EINVAL;
		if (op == IORING_OP_READV && (fl & IOSQE_BUFFER_SELECT) && s->len != 1)
			return -EINVAL;
		/* the harness's vector pointer is NULL: unreadable */
		if ((op == IORING_OP_READV || op == IORING_OP_WRITEV) && s->len)
			return -EFAULT;
		break;
	case IORING_OP_FSYNC:
		if (s->addr || s->buf_index || s->splice_fd_in || (s->fsync_flags & ~1u))
			return -EINVAL;
		break;
	case IORING_OP_SYNC_FILE_RANGE:
		if (s->addr || s->buf_index || s->splice_fd_in)
			return -EINVAL;
		break;
	case IORING_OP_FALLOCATE:
		if (s->buf_index || s->rw_flags || s->splice_fd_in)
			return -EINVAL;
		break;
	case IORING_OP_FADVISE: case IORING_OP_MADVISE:
		if (s->buf_index || s->splice_fd_in)
			return -EINVAL;
		break;
	case IORING_OP_FTRUNCATE:
		if (s->rw_flags || s->addr || s->len || s->buf_index || s->splice_fd_in || s->addr3)
			return -EINVAL;
		break;
	case IORING_OP_PIPE:
		if (s->fd || s->off || s->addr3 || (s->pipe_flags & ~(unsigned)(O_CLOEXEC |
		    O_NONBLOCK | O_DIRECT | O_EXCL)) || (s->file_index && (s->pipe_flags & O_CLOEXEC)))
			return -EINVAL;
		if (s->file_index)
			return -EOPNOTSUPP;
		break;
	case IORING_OP_SPLICE: case IORING_OP_TEE:
		if (s->splice_flags & ~(SPLICE_F_FD_IN_FIXED | 0xfu))
			return -EINVAL;
		if (op == IORING_OP_TEE && (s->splice_off_in || s->off))
			return -EINVAL;
		if (handle)
			return -EOPNOTSUPP;
		break;
	}
	*at_init = 0;
	return REF_ANY;
}

static int is_ring(int h)
{
	return zn_handle_type(h) == ZN_HANDLE_URING;
}

/* A MSG_RING target that is no ring: open (-EBADFD) or not (-EBADF). */
static int not_ring(int h)
{
	if (zn_handle_is_handle(h))
		return live(h) ? -EBADFD : -EBADF;
	return h >= 0 && fcntl(h, F_GETFD) >= 0 ? -EBADFD : -EBADF;
}

/* A file that is no socket: an OS fd number with nothing open there fails
 * the kernel's fget first (-EBADF); anything else is -ENOTSOCK. */
static int not_sock(int file)
{
	return !zn_handle_is_handle(file) && !open_fd(file) ? -EBADF : -ENOTSOCK;
}

/*
 * The network ops (core/sock/op_send.c, op_recv.c) on a file that is no
 * socket (none of the mapped fds is one), with addr2 = 0 and, for
 * SENDMSG_ZC, a NULL msghdr (the harness sets them): prep's checks, then
 * -ENOTSOCK at issue.
 */
static int net_result(const struct io_uring_sqe *s, int file, int *at_init)
{
	unsigned pr = s->ioprio, fl = s->flags;
	unsigned zc = IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_FIXED_BUF |
		      IORING_SEND_ZC_REPORT_USAGE | IORING_SEND_VECTORIZED;

	switch (s->opcode) {
	case IORING_OP_SEND:
		if ((int)s->len < 0 || (pr & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_BUNDLE |
		     IORING_SEND_VECTORIZED | IORING_RECVSEND_FIXED_BUF)) ||
		    (pr & IORING_RECVSEND_BUNDLE) || s->__pad3[0] ||
		    ((pr & IORING_RECVSEND_FIXED_BUF) && (pr & IORING_SEND_VECTORIZED)) ||
		    ((pr & IORING_SEND_VECTORIZED) && s->len > 1024))
			return -EINVAL;
		break;
	case IORING_OP_RECV:
		if ((int)s->len < 0 || (pr & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT |
		     IORING_RECVSEND_BUNDLE | IORING_RECVSEND_FIXED_BUF)) ||
		    (pr & IORING_RECVSEND_BUNDLE) ||
		    ((pr & IORING_RECVSEND_FIXED_BUF) && (fl & IOSQE_BUFFER_SELECT)) ||
		    ((pr & IORING_RECV_MULTISHOT) &&
		     (!(fl & IOSQE_BUFFER_SELECT) || (s->msg_flags & MSG_WAITALL))) ||
		    (!(pr & IORING_RECV_MULTISHOT) && s->optlen))
			return -EINVAL;
		break;
	case IORING_OP_SEND_ZC:
	case IORING_OP_SENDMSG_ZC:
		if (s->__pad2[0] || s->addr3 || (fl & IOSQE_CQE_SKIP_SUCCESS))
			return -EINVAL;
		/* later failures come at issue, with a notification */
		*at_init = 0;
		if (pr & ~zc)
			return -EINVAL;
		if (s->opcode == IORING_OP_SEND_ZC) {
			if (s->__pad3[0] || ((pr & IORING_SEND_VECTORIZED) && s->len > 1024))
				return -EINVAL;
		} else {
			return s->file_index ? -EINVAL : -EFAULT;
		}
		break;
	default:
		/* RECV_ZC: the fuzzed ring has no zcrx ifq, so prep refuses it */
		return -EINVAL;
	}
	*at_init = 0;
	return not_sock(file);
}

/* The harness's timespec pointers: 0 NULL, else zero or negative. */
static int ts_result(uint64_t addr)
{
	if (!addr)
		return -EFAULT;
	return addr == (uintptr_t)&ts_neg ? -EINVAL : 0;
}

/* TIMEOUT / LINK_TIMEOUT prep (timeout.c), then what issue gives. */
static int timeout_result(const struct io_uring_sqe *s, int *at_init)
{
	uint32_t fl = s->timeout_flags;
	bool link = s->opcode == IORING_OP_LINK_TIMEOUT;
	int rc;

	if (s->buf_index || s->len != 1 || s->splice_fd_in)
		return -EINVAL;
	if ((uint32_t)s->off && link)	/* a u32 in the kernel too */
		return -EINVAL;
	if (fl & ~0x6du || __builtin_popcount(fl & IORING_TIMEOUT_CLOCK_MASK) > 1 ||
	    ((fl & IORING_TIMEOUT_MULTISHOT) && (fl & IORING_TIMEOUT_ABS)))
		return -EINVAL;
	rc = ts_result(s->addr);
	if (rc)
		return rc;
	if (link)
		return -EINVAL;		/* no chain to guard (links are off) */
	*at_init = 0;
	/* a zero timespec is due at the first pass: -ETIME (count or not) */
	return (fl & IORING_TIMEOUT_MULTISHOT) ? REF_ANY : -ETIME;
}

static int timeout_remove_result(const struct io_uring_sqe *s, int *at_init)
{
	uint32_t fl = s->timeout_flags;
	int rc;

	if ((s->flags & IOSQE_FIXED_FILE) || s->buf_index || s->len || s->splice_fd_in)
		return -EINVAL;
	if (fl & IORING_TIMEOUT_UPDATE_MASK) {
		if (__builtin_popcount(fl & IORING_TIMEOUT_CLOCK_MASK) > 1 ||
		    (fl & ~(IORING_TIMEOUT_UPDATE_MASK | IORING_TIMEOUT_ABS)))
			return -EINVAL;
		rc = ts_result(s->addr2);
		if (rc)
			return rc;
	} else if (fl) {
		return -EINVAL;
	}
	*at_init = 0;
	return REF_ANY;
}

static int cancel_result(const struct io_uring_sqe *s, int *at_init)
{
	uint32_t fl = s->cancel_flags;

	if (s->off || s->splice_fd_in || (fl & ~0x3fu))
		return -EINVAL;
	if ((fl & IORING_ASYNC_CANCEL_ANY) &&
	    (fl & (IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_OP)))
		return -EINVAL;
	*at_init = 0;
	return REF_ANY;
}

static int kbuf_result(const struct io_uring_sqe *s, int *at_init)
{
	if (s->opcode == IORING_OP_PROVIDE_BUFFERS) {
		if (s->rw_flags || s->splice_fd_in)
			return -EINVAL;
		if (s->fd <= 0 || s->fd > 65536)
			return -E2BIG;
		if (!s->len)
			return -EINVAL;
		if (s->addr + (uint64_t)s->len * (uint32_t)s->fd < s->addr)
			return -EOVERFLOW;
		if (s->off > 0xffff)
			return -E2BIG;
		if (s->off + (uint32_t)s->fd > 65536)
			return -EINVAL;
		*at_init = 0;
		return 0;
	}
	if (s->rw_flags || s->addr || s->len || s->off || s->splice_fd_in)
		return -EINVAL;
	if (s->fd <= 0 || s->fd > 65536)
		return -EINVAL;
	*at_init = 0;
	return REF_ANY;		/* removed count, or -ENOENT: the batch decides */
}

/* SOCKET's result when it makes a socket (any handle > 0). */
#define REF_HANDLE	(1 << 30)

/*
 * The socket ops (core/sock/op_sock.c) and SENDMSG/RECVMSG, with the
 * harness's addr = 0 (a sockaddr or msghdr there is unreadable) and files
 * that are no sockets: prep's checks, then -ENOTSOCK at issue (SOCKET: its
 * own answers; CLOSE: -EBADF, nothing it is given is a socket or may be
 * closed).
 */
static int sock_result(const struct io_uring_sqe *s, int file, int *at_init)
{
	unsigned pr = s->ioprio, fl = s->flags, type = (unsigned)s->off;

	switch (s->opcode) {
	case IORING_OP_SOCKET:
		if (s->addr || s->rw_flags || s->buf_index ||
		    ((type & ~0xfu) & ~(unsigned)(SOCK_CLOEXEC | SOCK_NONBLOCK)) || s->file_index)
			return -EINVAL;
		*at_init = 0;
		if (s->fd != AF_INET)
			return -EAFNOSUPPORT;
		if ((type & 0xfu) >= 10)
			return -EINVAL;
		if ((type & 0xfu) == SOCK_STREAM)
			return s->len == 0 || s->len == 6 ? REF_HANDLE : -EPROTONOSUPPORT;
		if ((type & 0xfu) == SOCK_DGRAM)
			return s->len == 0 || s->len == 17 ? REF_HANDLE : -EPROTONOSUPPORT;
		return -ESOCKTNOSUPPORT;
	case IORING_OP_BIND:
	case IORING_OP_CONNECT:
		if (s->len || s->buf_index || s->rw_flags || s->splice_fd_in)
			return -EINVAL;
		if ((int64_t)s->addr2 < 0 || s->addr2 > 128)
			return -EINVAL;
		if (s->addr2)
			return -EFAULT;
		break;
	case IORING_OP_LISTEN:
		if (s->addr || s->buf_index || s->rw_flags || s->splice_fd_in || s->addr2)
			return -EINVAL;
		break;
	case IORING_OP_ACCEPT:
		if (s->len || s->buf_index || (pr & ~7u) || s->file_index ||
		    (s->accept_flags & ~(unsigned)(SOCK_CLOEXEC | SOCK_NONBLOCK)))
			return -EINVAL;
		break;
	case IORING_OP_SHUTDOWN:
		if (s->off || s->addr || s->rw_flags || s->buf_index || s->splice_fd_in || s->addr3)
			return -EINVAL;
		break;
	case IORING_OP_CLOSE:
		if (s->off || s->addr || s->len || s->rw_flags || s->buf_index)
			return -EINVAL;
		if (fl & IOSQE_FIXED_FILE)
			return -EBADF;
		if (s->file_index && s->fd)
			return -EINVAL;
		*at_init = 0;
		/* the harness's slots: 1 is empty, past 5 is no slot; fds: none closable */
		if (s->file_index)
			return s->file_index - 1 < 5 ? -EBADF : -EINVAL;
		return -EBADF;
	case IORING_OP_SENDMSG:
		if ((pr & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_BUNDLE |
			    IORING_SEND_VECTORIZED)) || (pr & IORING_RECVSEND_BUNDLE) ||
		    s->addr2 || s->file_index)
			return -EINVAL;
		return -EFAULT;
	case IORING_OP_RECVMSG:
		if (s->addr2 || (pr & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT |
		     IORING_RECVSEND_BUNDLE | IORING_RECVSEND_FIXED_BUF)) ||
		    (pr & (IORING_RECVSEND_BUNDLE | IORING_RECVSEND_FIXED_BUF)) ||
		    /* multishot needs provided buffers and refuses MSG_WAITALL */
		    ((pr & IORING_RECV_MULTISHOT) &&
		     (!(fl & IOSQE_BUFFER_SELECT) || (s->msg_flags & MSG_WAITALL))))
			return -EINVAL;
		return -EFAULT;
	}
	*at_init = 0;
	return not_sock(file);
}

/* 128-byte SQE opcodes (two slots on an SQE_MIXED ring) */
static bool is_128(unsigned op)
{
	return op == IORING_OP_NOP128 || op == IORING_OP_URING_CMD128;
}

static int is_sock_op(unsigned op)
{
	return op == IORING_OP_SOCKET || op == IORING_OP_BIND || op == IORING_OP_LISTEN ||
	       op == IORING_OP_CONNECT || op == IORING_OP_ACCEPT || op == IORING_OP_SHUTDOWN ||
	       op == IORING_OP_CLOSE || op == IORING_OP_SENDMSG || op == IORING_OP_RECVMSG;
}

/*
 * POLL_ADD / POLL_REMOVE (core/uring/poll.c): prep's checks; what a poll
 * sees and what a remove finds depend on the batch.
 */
static int poll_result(const struct io_uring_sqe *s, int *at_init)
{
	unsigned fl = s->flags, len = s->len;

	if (s->opcode == IORING_OP_POLL_ADD) {
		if (s->buf_index || s->off || s->addr || (len & ~IORING_POLL_ADD_MULTI) ||
		    ((len & IORING_POLL_ADD_MULTI) && (fl & IOSQE_CQE_SKIP_SUCCESS)))
			return -EINVAL;
	} else if (s->buf_index || s->splice_fd_in ||
		   (len & ~(IORING_POLL_UPDATE_EVENTS | IORING_POLL_UPDATE_USER_DATA |
			    IORING_POLL_ADD_MULTI)) ||
		   len == IORING_POLL_ADD_MULTI ||
		   (!(len & IORING_POLL_UPDATE_USER_DATA) && s->off) ||
		   (!(len & IORING_POLL_UPDATE_EVENTS) && s->poll32_events)) {
		return -EINVAL;
	}
	*at_init = 0;
	return REF_ANY;
}

/* Reference result of one SQE (no links); *at_init: failed before issue. */
static int ref_result(const struct env *e, const struct io_uring_sqe *s, int *at_init)
{
	unsigned op = s->opcode, fl = s->flags;
	int h = s->fd;

	*at_init = 1;
	if (op >= IORING_OP_LAST || (fl & 0x80) ||
	    ((fl & IOSQE_BUFFER_SELECT) && !selects_buffers(op)))
		return (op < IORING_OP_LAST && !(fl & 0x80)) ? -EOPNOTSUPP : -EINVAL;
	if (s->ioprio && !takes_ioprio(op))
		return -EINVAL;
	if (s->personality)
		return -EINVAL;
	if (is_osfd_op(op) || op == IORING_OP_PIPE) {
		if ((fl & IOSQE_FIXED_FILE) && op != IORING_OP_MADVISE && op != IORING_OP_PIPE &&
		    (s->fd < 0 || (unsigned)s->fd >= e->nfiles || e->files[s->fd] == -1))
			return -EBADF;
		return osfd_result(s, (fl & IOSQE_FIXED_FILE) && op != IORING_OP_MADVISE &&
				   op != IORING_OP_PIPE ? e->files[s->fd] : s->fd, at_init);
	}
	switch (op) {
	case IORING_OP_NOP: case IORING_OP_NOP128: {
		uint32_t nf = s->nop_flags;

		if (nf & ~0x3fu)
			return -EINVAL;
		if ((nf & IORING_NOP_CQE32) && !e->big_cqes)
			return -EINVAL;
		if (nf & IORING_NOP_FILE) {
			if (nf & IORING_NOP_FIXED_FILE)
				h = (s->fd < 0 || (unsigned)s->fd >= e->nfiles) ? -1 : e->files[s->fd];
			if (!open_fd(h))
				return -EBADF;
		}
		if ((nf & IORING_NOP_FIXED_BUFFER) &&
		    (s->buf_index >= 3 || !e->iov[s->buf_index].iov_base))
			return -EFAULT;
		*at_init = 0;
		return (nf & IORING_NOP_INJECT_RESULT) ? (int)s->len : 0;
	}
	case IORING_OP_MSG_RING:
		if (fl & IOSQE_FIXED_FILE) {
			if (s->fd < 0 || (unsigned)s->fd >= e->nfiles || e->files[s->fd] == -1)
				return -EBADF;
			h = e->files[s->fd];
		}
		if (s->buf_index || (s->msg_ring_flags & ~3u))
			return -EINVAL;
		*at_init = 0;
		if (!is_ring(h))
			return not_ring(h);
		if (s->addr == IORING_MSG_DATA) {
			if (s->addr3 || (s->msg_ring_flags & ~IORING_MSG_RING_FLAGS_PASS))
				return -EINVAL;
			if (!(s->msg_ring_flags & IORING_MSG_RING_FLAGS_PASS) && s->file_index)
				return -EINVAL;
			return 0;
		}
		if (s->addr != IORING_MSG_SEND_FD)
			return -EINVAL;
		/* SEND_FD (msg_fd.c): the other ring has no file table */
		if (s->len || h == e->self)
			return -EINVAL;
		if ((uint32_t)s->addr3 >= e->nfiles || e->files[(uint32_t)s->addr3] == -1)
			return -EBADF;
		return s->file_index == IORING_FILE_INDEX_ALLOC ? -ENFILE : -ENXIO;
	case IORING_OP_FILES_UPDATE:
		if (s->ioprio || s->rw_flags || s->splice_fd_in || !s->len)
			return -EINVAL;
		*at_init = 0;
		return REF_ANY;	/* judged by files_update_op.c's own tests */
	case IORING_OP_SEND: case IORING_OP_RECV: case IORING_OP_SEND_ZC:
	case IORING_OP_SENDMSG_ZC: case IORING_OP_RECV_ZC:
		if ((fl & IOSQE_FIXED_FILE) &&
		    (s->fd < 0 || (unsigned)s->fd >= e->nfiles || e->files[s->fd] == -1))
			return -EBADF;
		return net_result(s, (fl & IOSQE_FIXED_FILE) ? e->files[s->fd] : s->fd, at_init);
	case IORING_OP_TIMEOUT: case IORING_OP_LINK_TIMEOUT:
		return timeout_result(s, at_init);
	case IORING_OP_TIMEOUT_REMOVE:
		return timeout_remove_result(s, at_init);
	case IORING_OP_ASYNC_CANCEL:
		return cancel_result(s, at_init);
	case IORING_OP_PROVIDE_BUFFERS: case IORING_OP_REMOVE_BUFFERS:
		return kbuf_result(s, at_init);
	case IORING_OP_POLL_ADD:
		if ((fl & IOSQE_FIXED_FILE) &&
		    (s->fd < 0 || (unsigned)s->fd >= e->nfiles || e->files[s->fd] == -1))
			return -EBADF;
		return poll_result(s, at_init);
	case IORING_OP_POLL_REMOVE:
		return poll_result(s, at_init);
	case IORING_OP_SOCKET: case IORING_OP_CLOSE:
		return sock_result(s, (fl & IOSQE_FIXED_FILE) && s->fd >= 0 &&
				   (unsigned)s->fd < e->nfiles ? e->files[s->fd] : s->fd, at_init);
	case IORING_OP_BIND: case IORING_OP_LISTEN: case IORING_OP_CONNECT:
	case IORING_OP_ACCEPT: case IORING_OP_SHUTDOWN: case IORING_OP_SENDMSG:
	case IORING_OP_RECVMSG:
		if ((fl & IOSQE_FIXED_FILE) &&
		    (s->fd < 0 || (unsigned)s->fd >= e->nfiles || e->files[s->fd] == -1))
			return -EBADF;
		return sock_result(s, (fl & IOSQE_FIXED_FILE) && s->fd >= 0 &&
				   (unsigned)s->fd < e->nfiles ? e->files[s->fd] : s->fd, at_init);
	default:
		return -EOPNOTSUPP;
	}
}

struct seen {
	unsigned own[MAX_SQES];		/* CQEs with user_data = index */
	unsigned more[MAX_SQES];	/* ... multishot TIMEOUT ones with F_MORE */
	unsigned notif[MAX_SQES];	/* ... of which SEND_ZC notifications */
	unsigned flags[MAX_SQES];	/* of the last non-notification one */
	unsigned msgs[MAX_SQES];	/* MSG_RING target CQEs, by off - base */
	int res[MAX_SQES];
	unsigned total;
};

static void reap(struct io_uring *ring, struct seen *sn, unsigned nsqe)
{
	for (int pass = 0; pass < 64; pass++) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0, slots = 0;

		io_uring_for_each_cqe(ring, head, cqe) {
			uint64_t ud = cqe->user_data;

			slots += io_uring_cqe_nr(cqe);
			if (cqe->flags & IORING_CQE_F_SKIP) {
				/* a pad before a two-slot CQE at the wrap: mixed CQs only */
				CHECK((ring->flags & IORING_SETUP_CQE_MIXED) && !ud && !cqe->res &&
				      cqe->flags == IORING_CQE_F_SKIP);
				continue;
			}
			/* two slots: a mixed CQ's, flagged, with the NOP's words */
			if (cqe->flags & IORING_CQE_F_32)
				CHECK((ring->flags & IORING_SETUP_CQE_MIXED) && ud < nsqe &&
				      cqe->big_cqe[0] == g_sq[ud].off &&
				      cqe->big_cqe[1] == g_sq[ud].addr);
			if (ud < nsqe && (cqe->flags & IORING_CQE_F_NOTIF)) {
				/* only after a result that announced it, once */
				CHECK(sn->own[ud] == 1 && (sn->flags[ud] & IORING_CQE_F_MORE));
				CHECK(cqe->flags == IORING_CQE_F_NOTIF && !sn->notif[ud]);
				sn->notif[ud]++;
			} else if (ud < nsqe && g_sq[ud].opcode == IORING_OP_TIMEOUT &&
				   (cqe->flags & IORING_CQE_F_MORE)) {
				CHECK(cqe->res == -ETIME && !sn->own[ud]);
				sn->more[ud]++;
			} else if (ud < nsqe && g_sq[ud].opcode == IORING_OP_POLL_ADD &&
				   (cqe->flags & IORING_CQE_F_MORE)) {
				/* a multishot poll: one CQE per edge, the events */
				CHECK(cqe->res > 0 && !sn->own[ud]);
				sn->more[ud]++;
			} else if (ud < nsqe) {
				sn->own[ud]++;
				sn->res[ud] = cqe->res;
				sn->flags[ud] = cqe->flags;
			} else {
				CHECK(ud >= MSG_OFF_BASE && ud < MSG_OFF_BASE + nsqe);
				sn->msgs[ud - MSG_OFF_BASE]++;
			}
			n++;
		}
		io_uring_cq_advance(ring, slots);
		sn->total += n;
		/* the next enter flushes overflowed CQEs and drains the inbox */
		CHECK(io_uring_get_events(ring) == 0);
		if (!n && !io_uring_cq_ready(ring) && !io_uring_cq_has_overflow(ring))
			break;
	}
	CHECK(!io_uring_cq_has_overflow(ring));
	CHECK(*ring->cq.koverflow == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct io_uring ring, other;
	struct io_uring_params p;
	struct io_uring_sqe sq[MAX_SQES];
	struct seen sn, so;
	struct env e;
	unsigned n, i, cfg;
	int consumed, refs[MAX_SQES], init_fail[MAX_SQES], links;
	bool half[MAX_SQES];	/* the second slot of a 128-byte SQE */

	if (size < 1)
		return 0;
	cfg = data[0];
	n = (unsigned)((size - 1) / sizeof(struct io_uring_sqe));
	if (n > MAX_SQES)
		n = MAX_SQES;
	memset(&p, 0, sizeof(p));
	p.flags = ((cfg & 1) ? IORING_SETUP_CQE32 : 0) | ((cfg & 2) ? IORING_SETUP_SUBMIT_ALL : 0) |
		  ((cfg & 16) ? IORING_SETUP_SQE_MIXED : 0) |
		  ((cfg & 32) && !(cfg & 1) ? IORING_SETUP_CQE_MIXED : 0);
	if (cfg & 8) {
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = MAX_SQES;
	}
	links = cfg & 4;
	if (io_uring_queue_init_params(MAX_SQES, &ring, &p))
		return 0;
	if (io_uring_queue_init(2, &other, 0)) {
		io_uring_queue_exit(&ring);
		return 0;
	}
	memset(&e, 0, sizeof(e));
	e.self = ring.ring_fd;
	e.other = other.ring_fd;
	e.sqe_mixed = p.flags & IORING_SETUP_SQE_MIXED;
	e.big_cqes = p.flags & (IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED);
	e.files[0] = e.self;
	e.files[1] = -1;
	e.files[2] = test_handle;
	e.files[3] = e.other;
	e.files[4] = pipe_rd;	/* an OS fd */
	e.nfiles = 5;
	e.iov[0] = (struct iovec){ bufs[0], sizeof(bufs[0]) };
	e.iov[2] = (struct iovec){ bufs[1], sizeof(bufs[1]) };
	CHECK(io_uring_register_files(&ring, e.files, e.nfiles) == 0);
	CHECK(io_uring_register_buffers(&ring, e.iov, 3) == 0);

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(&ring);

		CHECK(s);
		memcpy(s, data + 1 + i * sizeof(*s), sizeof(*s));
		s->user_data = i;
		if (!links)
			s->flags &= (__u8)~(IOSQE_IO_LINK | IOSQE_IO_HARDLINK);
		/* the engine's ops: harness pointers (see the top) */
		switch (s->opcode) {
		case IORING_OP_TIMEOUT: case IORING_OP_LINK_TIMEOUT: case IORING_OP_TIMEOUT_REMOVE: {
			const void *pick[3] = { NULL, &ts_zero, &ts_neg };
			__u64 *field = s->opcode == IORING_OP_TIMEOUT_REMOVE ? &s->addr2 : &s->addr;

			*field = (uintptr_t)pick[*field % 3];
			break;
		}
		case IORING_OP_FILES_UPDATE:
			/* the harness's array (writable: ALLOC writes slots back) */
			memcpy(upd_fds, upd_init, sizeof(upd_fds));
			upd_fds[0] = e.self;
			upd_fds[2] = test_handle;
			upd_fds[3] = e.other;
			if (s->addr)
				s->addr = (uintptr_t)upd_fds;
			if (s->len > 8)
				s->len = 8;
			break;
		case IORING_OP_PROVIDE_BUFFERS:
			if (s->addr)
				s->addr = (uintptr_t)pbuf;
			if (s->fd > 64 && s->fd <= 65536)
				s->fd = 64;
			break;
		default:
			break;
		}
		/* OS-fd ops: the harness pipe or a closed fd (see the top) */
		if (is_osfd_op(s->opcode) || s->opcode == IORING_OP_CLOSE) {
			if (!(s->flags & IOSQE_FIXED_FILE) && s->fd > 3)
				s->fd = CLOSED_FD;
			if ((s->opcode == IORING_OP_SPLICE || s->opcode == IORING_OP_TEE) &&
			    !(s->splice_flags & SPLICE_F_FD_IN_FIXED))
				s->splice_fd_in = s->splice_fd_in == 3 ? pipe_rd : CLOSED_FD;
			if (s->opcode == IORING_OP_MADVISE) {
				s->addr = 0;
				s->fadvise_advice %= 5;	/* NORMAL..DONTNEED: nothing to harm */
			}
		}
		if (s->opcode == IORING_OP_READV || s->opcode == IORING_OP_WRITEV)
			s->addr = 0;
		if (s->opcode == IORING_OP_PIPE) {
			s->addr = (uintptr_t)pipe_out[i];	/* closed after the batch */
			pipe_out[i][0] = pipe_out[i][1] = -1;
		}
		if (s->opcode == IORING_OP_CLOSE) {
			if (s->file_index)
				s->file_index = (s->file_index & 1) ? 2 : 7;
			if (s->fd == 3 && !(s->flags & IOSQE_FIXED_FILE))
				s->fd = CLOSED_FD;	/* not the harness pipe */
		}
		/* a socket made by an earlier SOCKET of the batch is never named:
		 * its handle is not small */
		if ((is_sock_op(s->opcode) || s->opcode == IORING_OP_SEND ||
		     s->opcode == IORING_OP_RECV || s->opcode == IORING_OP_SEND_ZC ||
		     s->opcode == IORING_OP_SENDMSG_ZC || s->opcode == IORING_OP_RECV_ZC) &&
		    s->opcode != IORING_OP_SOCKET && !(s->flags & IOSQE_FIXED_FILE) && s->fd > 3)
			s->fd &= 0xffff;
		if (s->opcode != IORING_OP_PROVIDE_BUFFERS && s->opcode != IORING_OP_REMOVE_BUFFERS &&
		    s->opcode != IORING_OP_SOCKET && s->opcode != IORING_OP_PIPE &&
		    !(s->flags & IOSQE_FIXED_FILE) &&
		    s->fd >= 0 && s->fd <= 3) {
			static const int map_idx[4] = { 0, 3, 2, 4 };

			s->fd = e.files[map_idx[s->fd]];
		}
		if (s->opcode == IORING_OP_MSG_RING) {
			s->off = MSG_OFF_BASE + i;
			if (s->msg_ring_flags & IORING_MSG_RING_FLAGS_PASS)
				s->file_index &= ~(IORING_CQE_F_32 | IORING_CQE_F_SKIP);
		}
		/* network ops: no pointers the reference cannot judge */
		if (s->opcode == IORING_OP_SEND || s->opcode == IORING_OP_RECV ||
		    s->opcode == IORING_OP_SEND_ZC || s->opcode == IORING_OP_SENDMSG_ZC) {
			s->addr2 = 0;
			if (s->opcode == IORING_OP_SENDMSG_ZC)
				s->addr = 0;
		}
		/* every socket made is seen, so that it can be closed */
		if (s->opcode == IORING_OP_SOCKET)
			s->flags &= (__u8)~IOSQE_CQE_SKIP_SUCCESS;
		if (s->opcode == IORING_OP_BIND || s->opcode == IORING_OP_CONNECT ||
		    s->opcode == IORING_OP_SENDMSG || s->opcode == IORING_OP_RECVMSG ||
		    s->opcode == IORING_OP_ACCEPT)
			s->addr = 0;
		sq[i] = *s;
	}
	g_sq = sq;
	consumed = io_uring_submit(&ring);
	CHECK(consumed >= 0 && consumed <= (int)n);

	memset(&sn, 0, sizeof(sn));
	memset(&so, 0, sizeof(so));
	reap(&ring, &sn, n);
	reap(&other, &so, n);
	memset(half, 0, sizeof(half));
	for (i = 0; i < n; i++) {
		CHECK(sn.own[i] <= 1);
		CHECK(sn.notif[i] == ((sn.flags[i] & IORING_CQE_F_MORE) ? 1u : 0u));
		CHECK(so.own[i] == 0);
		CHECK(sn.msgs[i] + so.msgs[i] <= 1);
		if ((int)i >= consumed)
			CHECK(!sn.own[i] && !sn.msgs[i] && !so.msgs[i]);
	}
	if (!links) {
		int expect_consumed = (int)n;

		for (i = 0; i < n; i++) {
			if (is_128(sq[i].opcode) && !(e.sqe_mixed && i + 1 < n && i < MAX_SQES - 1)) {
				/* not SQE_MIXED, or its second slot is not in the batch
				 * or would wrap: -EINVAL, one slot (io_init_req) */
				refs[i] = -EINVAL;
				init_fail[i] = 1;
			} else {
				refs[i] = ref_result(&e, &sq[i], &init_fail[i]);
				if (is_128(sq[i].opcode)) {
					half[++i] = true;
					refs[i] = REF_ANY;
					init_fail[i] = init_fail[i - 1];
				}
			}
			if (refs[i] < 0 && init_fail[i] && !(p.flags & IORING_SETUP_SUBMIT_ALL)) {
				expect_consumed = (int)i + 1;
				break;
			}
		}
		CHECK(consumed == expect_consumed);
		/* a cancel or a remove in the batch may end a TIMEOUT with -ECANCELED */
		for (i = 0; i < (unsigned)consumed; i++)
			if (sq[i].opcode == IORING_OP_ASYNC_CANCEL ||
			    sq[i].opcode == IORING_OP_TIMEOUT_REMOVE)
				break;
		if (i < (unsigned)consumed)
			for (i = 0; i < (unsigned)consumed; i++)
				if (sq[i].opcode == IORING_OP_TIMEOUT && refs[i] == -ETIME)
					refs[i] = REF_ANY;
		/* a FILES_UPDATE issued changes the table later SQEs may name */
		for (i = 0; i < (unsigned)consumed; i++)
			if (sq[i].opcode == IORING_OP_FILES_UPDATE && !init_fail[i])
				break;
		for (i++; i < (unsigned)consumed; i++)
			refs[i] = REF_ANY;
		/* IOSQE_IO_DRAIN behind a request that may stay in flight (a
		 * TIMEOUT, a poll) holds itself and what follows: any outcome */
		for (i = 0; i < (unsigned)consumed; i++)
			if ((sq[i].opcode == IORING_OP_TIMEOUT || sq[i].opcode == IORING_OP_POLL_ADD ||
			     is_osfd_op(sq[i].opcode)) && !init_fail[i])
				break;
		for (; i < (unsigned)consumed; i++)
			if ((sq[i].flags & IOSQE_IO_DRAIN) && !init_fail[i])
				break;
		for (; i < (unsigned)consumed; i++)
			refs[i] = REF_ANY;
		for (i = 0; i < (unsigned)consumed; i++) {
			int skip = (sq[i].flags & IOSQE_CQE_SKIP_SUCCESS) && refs[i] >= 0;
			int delivered = sq[i].opcode == IORING_OP_MSG_RING && refs[i] == 0;

			/* ETIME_SUCCESS: -ETIME is no failure, so SKIP_SUCCESS hides it */
			if (sq[i].opcode == IORING_OP_TIMEOUT && refs[i] == -ETIME &&
			    (sq[i].timeout_flags & IORING_TIMEOUT_ETIME_SUCCESS) &&
			    (sq[i].flags & IOSQE_CQE_SKIP_SUCCESS))
				skip = 1;
			if (half[i]) {
				CHECK(!sn.own[i] && !sn.msgs[i] && !so.msgs[i]);
				continue;
			}
			if (refs[i] == REF_ANY) {
				CHECK(sn.own[i] <= 1);
				continue;
			}
			CHECK(sn.own[i] == (skip ? 0u : 1u));
			if (!skip && refs[i] == REF_HANDLE)
				CHECK(sn.res[i] > 0);
			else if (!skip)
				CHECK(sn.res[i] == refs[i]);
			CHECK(sn.msgs[i] + so.msgs[i] == (delivered ? 1u : 0u));
		}
	}
	/* the pipes PIPE made */
	for (i = 0; i < n; i++)
		if (sq[i].opcode == IORING_OP_PIPE && pipe_out[i][0] >= 0) {
			close(pipe_out[i][0]);
			close(pipe_out[i][1]);
			pipe_out[i][0] = -1;
		}
	/* the sockets SOCKET made (whatever links did to the checks above) */
	for (i = 0; i < n; i++)
		if (sq[i].opcode == IORING_OP_SOCKET && sn.own[i] && sn.res[i] > 0)
			CHECK(zn_socket_close(sn.res[i]) == 0);
	io_uring_queue_exit(&other);
	io_uring_queue_exit(&ring);
	return 0;
}
