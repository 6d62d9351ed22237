/* SPDX-License-Identifier: MIT */
/*
 * core/uring: consuming SQEs, validating them, link chains, completion.
 *
 * Follows the kernel's io_uring/io_uring.c (io_submit_sqes, io_init_req,
 * io_submit_sqe, io_submit_fail_init, io_fail_links, req_set_fail):
 *  - an SQ array index >= sq_entries is dropped (sq_dropped++) and stops
 *    the submission; it does not count as submitted;
 *  - an SQE that fails validation or prep completes with that error and
 *    counts as submitted; without IORING_SETUP_SUBMIT_ALL the submission
 *    stops after it (when it ends its link chain, as in the kernel);
 *  - opcode >= IORING_OP_LAST or an unknown IOSQE_ bit: -EINVAL;
 *    IOSQE_BUFFER_SELECT on an op without buffer selection: -EOPNOTSUPP;
 *    ioprio on an op that has none: -EINVAL; on a restricted ring an op
 *    or flags not allowed: -EACCES (restrict.c); a personality not
 *    registered: -EINVAL;
 *  - links: a member is issued after its predecessor completes; a failed
 *    member (res < 0) completes the rest with -ECANCELED, unless it is a
 *    HARDLINK; a member that fails at submission fails its whole chain
 *    (the head with -ECANCELED, itself with its error, the rest -ECANCELED);
 *  - CQE_SKIP_SUCCESS: no CQE on success; a failing request with it posts
 *    its CQE and suppresses the CQEs of the members it cancels.
 * IOSQE_ASYNC is accepted: every op here completes or goes asynchronous
 * inside submit. IOSQE_IO_DRAIN holds chains back (drain.c).
 *
 * Two ways through: SQEs whose op has a direct function (uring_op.h) and
 * nothing the generic way must see (a flag, a link, a drain in progress)
 * are answered straight from the SQ, in runs (sq_direct_run); every other
 * SQE gets a request, init_req's checks, prep and issue. Both keep
 * submission order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/uring/uring_priv.h"
#include "zcnic/log.h"

#define REQ_CHUNK 64

#define SQE_VALID_FLAGS (IOSQE_FIXED_FILE | IOSQE_IO_DRAIN | IOSQE_IO_LINK |	\
	IOSQE_IO_HARDLINK | IOSQE_ASYNC | IOSQE_BUFFER_SELECT |			\
	IOSQE_CQE_SKIP_SUCCESS)

/* req->internal bits */
enum {
	RQ_FAILED = 1u << 0,		/* completes with res, unissued or failed */
	RQ_SKIP_LINK_CQES = 1u << 1,	/* canceled links post no CQE */
	RQ_NOFAIL = 1u << 2,		/* a negative res that is no failure */
};

struct zn_uring_req_int {
	struct zn_uring_req pub;
	const struct zn_uring_op *op;
	struct zn_uring_req_int *next_free;
	/* on the ring's in-flight list while ASYNC */
	struct zn_uring_req_int *if_prev, *if_next;
};

#define RI(req) ((struct zn_uring_req_int *)(req))

static void inflight_add(struct zn_uring *r, struct zn_uring_req *req)
{
	struct zn_uring_req_int *ri = RI(req);

	ri->if_prev = NULL;
	ri->if_next = r->inflight_head;
	if (ri->if_next)
		ri->if_next->if_prev = ri;
	r->inflight_head = ri;
	r->inflight++;
}

static void inflight_del(struct zn_uring *r, struct zn_uring_req *req)
{
	struct zn_uring_req_int *ri = RI(req);

	if (ri->if_prev)
		ri->if_prev->if_next = ri->if_next;
	else
		r->inflight_head = ri->if_next;
	if (ri->if_next)
		ri->if_next->if_prev = ri->if_prev;
	r->inflight--;
}

/* A LINK_TIMEOUT that guards req (the next member, valid). */
static struct zn_uring_req *link_timeout_of(struct zn_uring_req *req)
{
	struct zn_uring_req *lt = req->link;

	return lt && lt->opcode == IORING_OP_LINK_TIMEOUT && !(lt->internal & RQ_FAILED) ?
		lt : NULL;
}

/* Issue one request; true when it went asynchronous. */
static bool issue(struct zn_uring *r, struct zn_uring_req *req)
{
	struct zn_uring_req *lt;

	if (RI(req)->op->issue(req) != ZN_URING_ISSUE_ASYNC)
		return false;
	inflight_add(r, req);
	/* its LINK_TIMEOUT runs from now (timeout.c) */
	lt = link_timeout_of(req);
	if (lt)
		zn_uring_link_timeout_arm(lt, req);
	return true;
}

struct zn_uring_req *zn_uring_inflight_first(struct zn_uring *r)
{
	return r->inflight_head ? &r->inflight_head->pub : NULL;
}

struct zn_uring_req *zn_uring_inflight_next(struct zn_uring_req *req)
{
	return RI(req)->if_next ? &RI(req)->if_next->pub : NULL;
}

bool zn_uring_req_is_inflight(struct zn_uring *r, struct zn_uring_req *req)
{
	struct zn_uring_req_int *ri;

	for (ri = r->inflight_head; ri; ri = ri->if_next)
		if (&ri->pub == req)
			return true;
	return false;
}

int zn_uring_req_cancel(struct zn_uring_req *req, int32_t res)
{
	const struct zn_uring_op *op = RI(req)->op;

	if (!op->cancel)
		return -EALREADY;	/* nothing to stop it with: it runs on */
	op->cancel(req);
	zn_uring_req_complete(req, res, 0);
	return 0;
}

static struct zn_uring_req *req_alloc(struct zn_uring *r)
{
	struct zn_uring_req_int *ri = r->req_free;

	if (!ri) {
		struct zn_uring_req_int *chunk = malloc(sizeof(*chunk) * REQ_CHUNK);
		void **chunks;
		unsigned i;

		if (!chunk)
			return NULL;
		chunks = realloc(r->req_chunks, sizeof(*chunks) * (r->nreq_chunks + 1));
		if (!chunks) {
			free(chunk);
			return NULL;
		}
		r->req_chunks = chunks;
		r->req_chunks[r->nreq_chunks++] = chunk;
		for (i = 0; i < REQ_CHUNK; i++) {
			chunk[i].next_free = r->req_free;
			r->req_free = &chunk[i];
		}
		ri = r->req_free;
	}
	r->req_free = ri->next_free;
	return &ri->pub;
}

static void req_free(struct zn_uring *r, struct zn_uring_req *req)
{
	RI(req)->next_free = r->req_free;
	r->req_free = RI(req);
}

void zn_uring_req_cancel_all(struct zn_uring *r)
{
	/* Ring exit with requests in flight: their ops let go, no CQEs. */
	while (r->inflight_head) {
		struct zn_uring_req *req = &r->inflight_head->pub;

		inflight_del(r, req);
		if (RI(req)->op->cancel)
			RI(req)->op->cancel(req);
	}
}

void zn_uring_req_cache_free(struct zn_uring *r)
{
	unsigned i;

	zn_uring_req_cancel_all(r);

	for (i = 0; i < r->nreq_chunks; i++)
		free(r->req_chunks[i]);
	free(r->req_chunks);
	r->req_chunks = NULL;
	r->nreq_chunks = 0;
	r->req_free = NULL;
}

static void req_set_fail(struct zn_uring_req *req)
{
	req->internal |= RQ_FAILED;
	if (req->sqe_flags & IOSQE_CQE_SKIP_SUCCESS) {
		req->sqe_flags &= (uint8_t)~IOSQE_CQE_SKIP_SUCCESS;
		req->internal |= RQ_SKIP_LINK_CQES;
	}
}

static void req_fail_node(struct zn_uring_req *req, int res)
{
	req_set_fail(req);
	req->res = res;
}

static void req_post(struct zn_uring *r, struct zn_uring_req *req)
{
	if ((req->sqe_flags & IOSQE_CQE_SKIP_SUCCESS) && !(req->internal & RQ_FAILED))
		return;
	zn_uring_post_cqe(r, req->user_data, req->res, req->cflags, req->big, 0);
}

static void fail_links(struct zn_uring *r, struct zn_uring_req *req)
{
	bool ignore = req->internal & RQ_SKIP_LINK_CQES;
	struct zn_uring_req *l = req->link, *next;

	req->link = NULL;
	for (; l; l = next) {
		next = l->link;
		if (!(l->internal & RQ_FAILED))
			l->res = -ECANCELED;
		l->cflags = 0;
		if (!ignore)
			zn_uring_post_cqe(r, l->user_data, l->res, 0, NULL, 0);
		req_free(r, l);
	}
}

/*
 * req completed before its LINK_TIMEOUT fired: the timer stops and the
 * LINK_TIMEOUT leaves the chain with -ECANCELED (which fails nothing: the
 * chain goes on after it), as the kernel's io_disarm_next.
 */
static void link_timeout_drop(struct zn_uring *r, struct zn_uring_req *req)
{
	struct zn_uring_req *lt = req->link;

	zn_uring_link_timeout_disarm(r, lt);
	req->link = lt->link;
	lt->link = NULL;
	if (!(lt->sqe_flags & IOSQE_CQE_SKIP_SUCCESS))
		zn_uring_post_cqe(r, lt->user_data, -ECANCELED, 0, NULL, 0);
	req_free(r, lt);
}

/*
 * req has its result: post it, then run the rest of its chain until a
 * member goes asynchronous or the chain ends.
 */
static void req_done(struct zn_uring *r, struct zn_uring_req *req)
{
	while (req) {
		struct zn_uring_req *next;

		if (req->res < 0 && !(req->internal & (RQ_FAILED | RQ_NOFAIL)))
			req_set_fail(req);
		req_post(r, req);
		/* a LINK_TIMEOUT guarding req is done with: -ECANCELED, unlinked */
		if (link_timeout_of(req))
			link_timeout_drop(r, req);
		next = req->link;
		if ((req->internal & RQ_FAILED) && !(req->sqe_flags & IOSQE_IO_HARDLINK)) {
			fail_links(r, req);
			next = NULL;
		}
		req_free(r, req);
		req = next;
		if (req && !(req->internal & RQ_FAILED) && issue(r, req))
			return;
	}
}

/* req_done for a request that is no chain: post and free, inline. */
static inline void req_finish(struct zn_uring *r, struct zn_uring_req *req)
{
	if (__builtin_expect(req->res < 0, 0)) {
		req_done(r, req);
		return;
	}
	if (!(req->sqe_flags & IOSQE_CQE_SKIP_SUCCESS))
		zn_cq_post(r, req->user_data, req->res, req->cflags, req->big);
	req_free(r, req);
}

void zn_uring_run_chain(struct zn_uring *r, struct zn_uring_req *head)
{
	if (head->internal & RQ_FAILED) {
		/* Failed while assembling: the whole chain fails, hard or not. */
		head->sqe_flags = (uint8_t)((head->sqe_flags & ~IOSQE_IO_HARDLINK) | IOSQE_IO_LINK);
		req_done(r, head);
		return;
	}
	if (!issue(r, head))
		req_done(r, head);
}

/* Does any member of the chain carry IOSQE_IO_DRAIN? */
static bool chain_drains(const struct zn_uring_req *req)
{
	for (; req; req = req->link)
		if (req->sqe_flags & IOSQE_IO_DRAIN)
			return true;
	return false;
}

/* A chain assembled: issued now, or held behind a drain (drain.c). */
static void start_chain(struct zn_uring *r, struct zn_uring_req *head)
{
	bool drain;

	if (!(head->internal & RQ_FAILED)) {
		drain = chain_drains(head);
		if ((drain || r->drain_active) && !zn_uring_drain_defer(r, head, drain))
			return;
	}
	zn_uring_run_chain(r, head);
}

void zn_uring_req_complete_nofail(struct zn_uring_req *req, int32_t res, uint32_t cflags)
{
	req->internal |= RQ_NOFAIL;
	zn_uring_req_complete(req, res, cflags);
}

void zn_uring_req_finish(struct zn_uring_req *req, int32_t res)
{
	/* a fired LINK_TIMEOUT's -ETIME fails nothing: CQE_SKIP_SUCCESS holds (Linux) */
	req->internal |= RQ_NOFAIL;
	req->res = res;
	req->cflags = 0;
	req_done(req->ring, req);
}

void zn_uring_req_complete(struct zn_uring_req *req, int32_t res, uint32_t cflags)
{
	struct zn_uring *r = req->ring;

	inflight_del(r, req);
	req->res = res;
	req->cflags = cflags;
	req_done(r, req);
}

static int resolve_file(struct zn_uring *r, struct zn_uring_req *req,
			const struct io_uring_sqe *sqe)
{
	if (req->sqe_flags & IOSQE_FIXED_FILE) {
		if (sqe->fd < 0)
			return -EBADF;
		req->file = zn_uring_fixed_file(r, (unsigned)sqe->fd);
		return req->file < 0 ? req->file : 0;
	}
	req->file = sqe->fd;
	return 0;
}

/* The opcodes that read sqe->ioprio (Linux opdef.c's .ioprio). */
static bool takes_ioprio(unsigned opcode)
{
	switch (opcode) {
	case IORING_OP_READV: case IORING_OP_WRITEV: case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED: case IORING_OP_SENDMSG: case IORING_OP_RECVMSG:
	case IORING_OP_ACCEPT: case IORING_OP_SEND: case IORING_OP_RECV:
	case IORING_OP_READ: case IORING_OP_WRITE: case IORING_OP_SEND_ZC:
	case IORING_OP_SENDMSG_ZC: case IORING_OP_READ_MULTISHOT: case IORING_OP_RECV_ZC:
		return true;
	default:
		return false;
	}
}

/* The precise error of an SQE that fails the fast check below. */
static int init_req_slow(struct zn_uring *r, const struct zn_uring_op *op,
			 const struct io_uring_sqe *sqe)
{
	if ((sqe->flags & IOSQE_BUFFER_SELECT) && !(op->flags & ZN_URING_OP_BUFFER_SELECT))
		return -EOPNOTSUPP;
	if (r->restricted && !zn_uring_restrict_sqe_ok(r, sqe->opcode, sqe->flags))
		return -EACCES;
	if (sqe->ioprio && !takes_ioprio(sqe->opcode))
		return -EINVAL;
	if (sqe->personality)
		return zn_uring_personality_check(r, sqe->personality);
	return 0;
}

static int init_req(struct zn_uring *r, struct zn_uring_req *req, const struct io_uring_sqe *sqe,
		    bool bad128)
{
	const struct zn_uring_op *op;
	unsigned opcode = sqe->opcode;
	uint8_t flags = sqe->flags;
	int rc;

	req->ring = r;
	req->user_data = sqe->user_data;
	req->opcode = (uint8_t)opcode;
	req->sqe_flags = flags;
	req->ioprio = sqe->ioprio;
	req->res = 0;
	req->cflags = 0;
	req->big[0] = req->big[1] = 0;
	req->file = -1;
	req->internal = 0;
	req->link = NULL;
	req->buf_group = sqe->buf_group;	/* the group, for IOSQE_BUFFER_SELECT (kbuf.c) */
	req->buf_flags = 0;

	if (__builtin_expect(opcode >= IORING_OP_LAST || (flags & ~SQE_VALID_FLAGS), 0)) {
		RI(req)->op = &zn_nop_op;	/* never issued: it failed */
		return -EINVAL;	/* a bad flag's LINK bit still joins the chain (kernel) */
	}
	op = zn_uring_op_lookup(opcode);
	RI(req)->op = op;
	if (__builtin_expect(bad128, 0))	/* where a 128-byte SQE may not stand */
		return -EINVAL;
	/* the rare fields in one test: buffer selection, ioprio, restrictions,
	 * personalities */
	if (__builtin_expect((flags & IOSQE_BUFFER_SELECT) | sqe->ioprio | sqe->personality |
			     r->restricted, 0)) {
		rc = init_req_slow(r, op, sqe);
		if (rc)
			return rc;
	}
	if (op->flags & ZN_URING_OP_NEEDS_FILE) {
		rc = resolve_file(r, req, sqe);
		if (rc)
			return rc;
	}
	return op->prep(req, sqe);
}

/* One SQE; < 0 when it failed and ended its chain (the caller may stop). */
static int submit_one(struct zn_uring *r, struct zn_uring_req *req, const struct io_uring_sqe *sqe,
		      bool bad128)
{
	bool links_on;
	int rc;

	rc = init_req(r, req, sqe, bad128);
	links_on = req->sqe_flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK);
	/* The common case: valid, unlinked, done at once, no chain to run. */
	if (__builtin_expect(!rc && !links_on && !r->link_head &&
			     !((req->sqe_flags & IOSQE_IO_DRAIN) | r->drain_active), 1)) {
		if (!issue(r, req))
			req_finish(r, req);
		return 0;
	}
	if (rc) {
		req_fail_node(req, rc);
		if (r->link_head && !(r->link_head->internal & RQ_FAILED))
			req_fail_node(r->link_head, -ECANCELED);
		if (!links_on) {
			struct zn_uring_req *head = req;

			if (r->link_head) {
				r->link_last->link = req;
				head = r->link_head;
				r->link_head = r->link_last = NULL;
			}
			start_chain(r, head);
			return rc;
		}
	}
	if (r->link_head) {
		r->link_last->link = req;
		r->link_last = req;
		if (links_on)
			return 0;
		req = r->link_head;
		r->link_head = r->link_last = NULL;
		start_chain(r, req);
		return 0;
	}
	if (links_on) {
		r->link_head = r->link_last = req;
		return 0;
	}
	start_chain(r, req);
	return 0;
}

/*
 * The SQ-direct run: from SQ position head, the SQEs that their op finishes
 * at once (op->direct) are consumed without a request and their CQEs
 * written into the CQ behind a local tail, published once at the end. The
 * run stops at the first SQE that needs the generic way (a flag, a link, an
 * op without direct, an SQE direct declines), at a bad SQ index, or when
 * the free CQ slots are used up; the caller goes on from there. Returns the
 * SQEs consumed.
 *
 * The SQE and CQE sizes are constants here: the ring picks one of the four
 * instances below when it is created (zn_uring_submit_setup), instead of
 * shifting by its set-up flags for every SQE. A plain NOP is answered in
 * the loop (its direct would be a call that returns 0); every other op's
 * direct is called through the ring's table, or, once a test overrode an
 * op, looked up per SQE (table false: sq_direct_lookup).
 */
static inline __attribute__((always_inline)) unsigned
sq_direct_run(struct zn_uring *r, uint32_t head, unsigned n, const unsigned sqe_shift,
	      const unsigned cqe_shift, const bool table)
{
	/* the ring's geometry in locals: the CQE stores below could alias r */
	struct zn_uring_shared *sh = r->sh;
	const uint32_t *array = sh->array;
	const struct io_uring_sqe *sqes = r->sqes;
	struct io_uring_cqe *cqes = r->cqes;
	const uint32_t sq_mask = r->sq_mask, sq_entries = r->sq_entries, cq_mask = r->cq_mask;
	uint32_t tail = sh->cq_tail, first = tail;
	uint32_t room = r->cq_entries - (tail - zn_load_acq(&sh->cq_head));
	uint32_t pos, end;

	if (r->ovf_count)	/* CQEs waiting in the overflow list go first */
		return 0;
	end = head + (n < room ? n : room);
	for (pos = head; pos != end; pos++) {
		uint32_t idx = __atomic_load_n(&array[pos & sq_mask], __ATOMIC_RELAXED);
		const struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;
		int64_t res;

		if (idx >= sq_entries)
			break;
		sqe = &sqes[idx << sqe_shift];
		/* init_req's checks that can fail a plain SQE: the generic way says them */
		if ((sqe->flags & ~IOSQE_CQE_SKIP_SUCCESS) | sqe->ioprio | sqe->personality)
			break;
		if (sqe->opcode == IORING_OP_NOP && table) {
			res = zn_nop_direct(sqe);
		} else {
			zn_uring_direct_fn fn = table ? r->direct[sqe->opcode] :
				zn_uring_direct_of(sqe->opcode);

			if (!fn)
				break;
			res = fn(r, sqe);
		}
		if (res == ZN_URING_DIRECT_NO)
			break;
		if (res >= 0 && (sqe->flags & IOSQE_CQE_SKIP_SUCCESS))
			continue;
		cqe = &cqes[(tail++ & cq_mask) << cqe_shift];
		cqe->user_data = sqe->user_data;
		cqe->res = (int32_t)res;
		cqe->flags = 0;
		if (cqe_shift)
			cqe->big_cqe[0] = cqe->big_cqe[1] = 0;
	}
	if (tail != first) {
		/* every CQE of the run before the tail that hands them over */
		zn_store_rel(&sh->cq_tail, tail);
		r->st.cqes += tail - first;
	}
	return pos - head;
}

static unsigned sq_direct_64_16(struct zn_uring *r, uint32_t head, unsigned n)
{
	return sq_direct_run(r, head, n, 0, 0, true);
}

static unsigned sq_direct_64_32(struct zn_uring *r, uint32_t head, unsigned n)
{
	return sq_direct_run(r, head, n, 0, 1, true);
}

static unsigned sq_direct_128_16(struct zn_uring *r, uint32_t head, unsigned n)
{
	return sq_direct_run(r, head, n, 1, 0, true);
}

static unsigned sq_direct_128_32(struct zn_uring *r, uint32_t head, unsigned n)
{
	return sq_direct_run(r, head, n, 1, 1, true);
}

/* Any geometry, each SQE's op looked up: an op was overridden (tests). */
static unsigned sq_direct_lookup(struct zn_uring *r, uint32_t head, unsigned n)
{
	return sq_direct_run(r, head, n, r->sqe_shift, r->cqe_shift, false);
}

/* An opcode's direct function, NULL if it has none (or is out of range). */
zn_uring_direct_fn zn_uring_direct_of(unsigned opcode)
{
	const struct zn_uring_op *op = zn_uring_op_get(opcode);

	return op ? op->direct : NULL;
}

void zn_uring_submit_setup(struct zn_uring *r)
{
	static unsigned (*const runs[2][2])(struct zn_uring *, uint32_t, unsigned) = {
		{ sq_direct_64_16, sq_direct_64_32 }, { sq_direct_128_16, sq_direct_128_32 },
	};
	unsigned op;

	/* every byte an opcode can be: no range test per SQE */
	for (op = 0; op < ZN_URING_OPCODES; op++)
		r->direct[op] = zn_uring_direct_of(op);
	r->direct_run = runs[r->sqe_shift][r->cqe_shift];
}

int zn_uring_submit_sqes(struct zn_uring *r, unsigned to_submit)
{
	struct zn_uring_shared *sh = r->sh;
	/* SQ_REWIND: the SQEs are at index 0 on, head and tail mean nothing */
	bool rewind = r->flags & IORING_SETUP_SQ_REWIND;
	uint32_t head = rewind ? 0 : sh->sq_head;
	uint32_t avail = rewind ? r->sq_entries : zn_load_acq(&sh->sq_tail) - head;
	unsigned n = to_submit < avail ? to_submit : avail;
	int submitted = 0;
	/* a test that overrode an op sends every SQE through zn_uring_op_get */
	unsigned (*run)(struct zn_uring *, uint32_t, unsigned) =
		__atomic_load_n(&zn_uring_ops_overridden, __ATOMIC_RELAXED) ?
		sq_direct_lookup : r->direct_run;

	r->msg_batch = true;
	while (n) {
		const struct io_uring_sqe *sqe;
		struct zn_uring_req *req;
		uint32_t idx;
		bool bad128;

		/* a NO_SQARRAY ring's array is the identity (ring.c) */
		idx = __atomic_load_n(&sh->array[head & r->sq_mask], __ATOMIC_RELAXED);
		if (idx >= r->sq_entries) {
			head++;
			__atomic_store_n(&sh->sq_dropped, sh->sq_dropped + 1, __ATOMIC_RELAXED);
			break;
		}
		sqe = &r->sqes[idx << r->sqe_shift];
		/* an op that can finish it directly (no drain holding later SQEs back):
		 * as many SQEs from here as can go so */
		if (r->direct[sqe->opcode] && !r->link_head && !r->drain_active) {
			unsigned k = run(r, head, n);

			head += k;
			submitted += (int)k;
			n -= k;
			if (k)
				continue;
		}
		/* the generic way: a request, prep, issue */
		req = req_alloc(r);
		if (!req) {
			if (!submitted)
				submitted = -EAGAIN;
			break;
		}
		head++;
		n--;
		submitted++;
		bad128 = false;
		if (__builtin_expect(!r->sqe_shift && zn_uring_op_is_128(sqe->opcode), 0)) {
			/*
			 * Two SQ slots (Linux io_init_req): an SQE_MIXED ring,
			 * both in this submission, the second not past the last
			 * SQE. Else -EINVAL, and only the first is consumed.
			 */
			if ((r->flags & IORING_SETUP_SQE_MIXED) && n && idx < r->sq_entries - 1) {
				head++;
				n--;
				submitted++;
			} else {
				bad128 = true;
			}
		}
		if (submit_one(r, req, sqe, bad128) < 0 &&
		    !(r->flags & IORING_SETUP_SUBMIT_ALL))
			break;
	}
	/* A chain still open at the end of the batch goes as it is (kernel). */
	if (r->link_head) {
		struct zn_uring_req *lh = r->link_head;

		r->link_head = r->link_last = NULL;
		start_chain(r, lh);
	}
	if (r->drain_active)
		zn_uring_drain_flush(r);
	zn_msg_ring_batch_end(r);
	/* SQE slots up to head are the application's again (SQ_REWIND: all of
	 * them, the head stays 0) */
	if (!rewind)
		zn_store_rel(&sh->sq_head, head);
	if (submitted > 0)
		r->st.sqes += (unsigned)submitted;
	return submitted;
}
