/* SPDX-License-Identifier: MIT */
/*
 * core/uring: looking ops up in the composition root's table
 * (core/uring/uring_op.h says how ops get there), and NOP.
 *
 * NOP follows the kernel's io_uring/nop.c: nop_flags outside the known set
 * are -EINVAL; IORING_NOP_INJECT_RESULT makes res = (int)sqe->len (a
 * negative value is a failure, which is how tests drive link cancellation);
 * IORING_NOP_FILE resolves sqe->fd (IORING_NOP_FIXED_FILE: as a fixed-file
 * index) and fails with -EBADF if it names nothing; IORING_NOP_FIXED_BUFFER
 * checks sqe->buf_index against the registered buffers (-EFAULT).
 * IORING_NOP_TW is accepted (there is no task work to go through).
 * IORING_NOP_CQE32 needs a CQE32 or CQE_MIXED ring (-EINVAL) and posts a
 * 32-byte CQE whose big_cqe words are sqe->off and sqe->addr; on a mixed
 * ring it carries IORING_CQE_F_32. NOP128 is the same op in a 128-byte SQE
 * (the submission checks where it may stand, submit.c).
 */
#include <errno.h>
#include <pthread.h>

#include "core/uring/osfd.h"

#define NOP_FLAGS (IORING_NOP_INJECT_RESULT | IORING_NOP_FILE |		\
	IORING_NOP_FIXED_FILE | IORING_NOP_FIXED_BUFFER | IORING_NOP_TW |	\
	IORING_NOP_CQE32)

struct nop_pdu {
	int32_t result;
	uint32_t cflags;	/* IORING_CQE_F_32 for a big CQE on a mixed ring */
	uint64_t extra[2];	/* IORING_NOP_CQE32: big_cqe */
};

/* NOP with nop_flags: out of line, so that a plain NOP's prep saves no registers */
static __attribute__((noinline)) int nop_prep_flags(struct zn_uring_req *req,
						    const struct io_uring_sqe *sqe, uint32_t flags)
{
	struct nop_pdu *pdu = (struct nop_pdu *)req->pdu;
	int rc;

	if (flags & ~NOP_FLAGS)
		return -EINVAL;
	pdu->cflags = 0;
	pdu->extra[0] = pdu->extra[1] = 0;
	/* Linux's prep refuses it; the file and buffer are looked at after */
	if (flags & IORING_NOP_CQE32) {
		if (!(req->ring->flags & (IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED)))
			return -EINVAL;
		pdu->extra[0] = sqe->off;
		pdu->extra[1] = sqe->addr;
		pdu->cflags = req->ring->cqe_mixed ? IORING_CQE_F_32 : 0;
	}
	pdu->result = (flags & IORING_NOP_INJECT_RESULT) ? (int32_t)sqe->len : 0;
	if (flags & IORING_NOP_FILE) {
		int h = sqe->fd;

		if (flags & IORING_NOP_FIXED_FILE)
			h = sqe->fd < 0 ? -EBADF : zn_uring_fixed_file(req->ring, (unsigned)sqe->fd);
		if (!zn_osfd_open(h))	/* a live handle or an open OS fd */
			return -EBADF;
		req->file = h;
	}
	if (flags & IORING_NOP_FIXED_BUFFER) {
		rc = sqe->buf_index < req->ring->nbufs && req->ring->bufs[sqe->buf_index].iov_base ?
			0 : -EFAULT;
		if (rc)
			return rc;
	}
	return 0;
}

static int nop_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	uint32_t flags = sqe->nop_flags;

	if (__builtin_expect(flags != 0, 0))
		return nop_prep_flags(req, sqe, flags);
	*(struct nop_pdu *)req->pdu = (struct nop_pdu){ 0 };
	return 0;
}

static int nop_issue(struct zn_uring_req *req)
{
	const struct nop_pdu *pdu = (const struct nop_pdu *)req->pdu;

	req->res = pdu->result;
	req->cflags = pdu->cflags;
	req->big[0] = pdu->extra[0];
	req->big[1] = pdu->extra[1];
	return ZN_URING_ISSUE_DONE;
}

/* The plain NOP on the SQ-direct path (the run answers it inline, the same way). */
static int64_t nop_direct(struct zn_uring *r, const struct io_uring_sqe *sqe)
{
	(void)r;
	return zn_nop_direct(sqe);
}

const struct zn_uring_op zn_nop_op = {
	.name = "NOP", .prep = nop_prep, .issue = nop_issue, .direct = nop_direct,
};

/* No direct way: the submission must see where its two slots are. */
const struct zn_uring_op zn_nop128_op = {
	.name = "NOP128", .prep = nop_prep, .issue = nop_issue,
};

static int eopnotsupp_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	(void)req;
	(void)sqe;
	return -EOPNOTSUPP;
}

static int eopnotsupp_issue(struct zn_uring_req *req)
{
	req->res = -EOPNOTSUPP;
	return ZN_URING_ISSUE_DONE;
}

/* Opcodes zcnic does not implement at all. */
static const struct zn_uring_op unsupported_op = {
	.name = "unsupported", .flags = ZN_URING_OP_PLACEHOLDER, .prep = eopnotsupp_prep, .issue = eopnotsupp_issue,
};

/* zn_uring_op_override's; NULL: the table's */
static const struct zn_uring_op *op_override[IORING_OP_LAST];
/* Has any op ever been overridden? (zn_uring_op_lookup's fast test) */
bool zn_uring_ops_overridden;

static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;

int zn_uring_op_override(unsigned opcode, const struct zn_uring_op *op)
{
	if (opcode >= IORING_OP_LAST || (op && (!op->prep || !op->issue)))
		return -EINVAL;
	pthread_mutex_lock(&op_lock);
	__atomic_store_n(&op_override[opcode], op, __ATOMIC_RELEASE);
	if (op)
		__atomic_store_n(&zn_uring_ops_overridden, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&op_lock);
	return 0;
}

const struct zn_uring_op *zn_uring_op_get(unsigned opcode)
{
	const struct zn_uring_op *op;

	if (opcode >= IORING_OP_LAST)
		return NULL;
	op = __atomic_load_n(&op_override[opcode], __ATOMIC_ACQUIRE);
	if (!op)
		op = zn_uring_plugins.ops[opcode];
	return op ? op : &unsupported_op;
}

bool zn_uring_op_supported(unsigned opcode)
{
	const struct zn_uring_op *op = zn_uring_op_get(opcode);

	return op && !(op->flags & ZN_URING_OP_PLACEHOLDER);
}
