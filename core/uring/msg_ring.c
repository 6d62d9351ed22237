/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_OP_MSG_RING and the per-ring inbox it posts into.
 *
 * Semantics are the kernel's io_uring/msg_ring.c (IORING_MSG_DATA):
 *  - prep: buf_index or personality != 0, or msg_ring_flags outside
 *    CQE_SKIP|FLAGS_PASS: -EINVAL;
 *  - target open but not a ring: -EBADFD (another handle, an OS fd);
 *    naming nothing open (a closed ring's handle, -1): -EBADF, as the
 *    kernel's file lookup fails first;
 *  - DATA: addr3 (source fd) != 0, any flag but FLAGS_PASS (so CQE_SKIP
 *    too), or file_index != 0 without FLAGS_PASS: -EINVAL;
 *  - the target gets {user_data = sqe->off, res = sqe->len,
 *    flags = FLAGS_PASS ? sqe->file_index : 0}; the sender's own CQE is
 *    {sqe->user_data, 0} (suppress it with IOSQE_CQE_SKIP_SUCCESS);
 *  - a message is never dropped: a full target CQ keeps it in the target's
 *    overflow list (Linux test msg-ring-overflow.c);
 *  - IORING_MSG_SEND_FD passes a registered file (msg_fd.c).
 *
 * A message to the sending ring itself is posted directly; any other
 * target gets it through its inbox (uring_priv.h describes the queue) and
 * sees the CQE when its owner next enters, waits or peeks: the
 * DEFER_TASKRUN behaviour, for every ring.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/barrier.h"
#include "core/uring/uring_priv.h"

#define ZN_INBOX_MIN	64
#define ZN_INBOX_MAX	1024

int zn_inbox_init(struct zn_inbox *ib, uint32_t cq_entries)
{
	uint64_t size = cq_entries, i;

	if (size < ZN_INBOX_MIN)
		size = ZN_INBOX_MIN;
	if (size > ZN_INBOX_MAX)
		size = ZN_INBOX_MAX;
	ib->slots = aligned_alloc(ZN_CACHELINE, sizeof(*ib->slots) * size);
	if (!ib->slots)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		atomic_init(&ib->slots[i].seq, i);
	ib->size = size;
	ib->mask = size - 1;
	ib->head = 0;
	atomic_init(&ib->tail, 0);
	atomic_init(&ib->spilled, 0);
	atomic_init(&ib->spill_stub.next, NULL);
	atomic_init(&ib->spill_in, &ib->spill_stub);
	ib->spill_out = &ib->spill_stub;
	return 0;
}

void zn_inbox_fini(struct zn_inbox *ib)
{
	struct zn_spill_msg *m = ib->spill_out, *next;

	/* No producer is left (the handle is closed): a plain walk. */
	for (; m; m = next) {
		next = atomic_load_explicit(&m->next, memory_order_relaxed);
		if (m != &ib->spill_stub)
			free(m);
	}
	free(ib->slots);
	ib->slots = NULL;
}

static void spill_push(struct zn_inbox *ib, struct zn_spill_msg *m)
{
	struct zn_spill_msg *prev;

	atomic_store_explicit(&m->next, NULL, memory_order_relaxed);
	prev = atomic_exchange_explicit(&ib->spill_in, m, memory_order_acq_rel);
	/* Between the exchange and this store the list looks cut: pop waits. */
	atomic_store_explicit(&prev->next, m, memory_order_release);
}

static struct zn_spill_msg *spill_pop(struct zn_inbox *ib)
{
	struct zn_spill_msg *tail = ib->spill_out, *next, *head;

	next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (tail == &ib->spill_stub) {
		if (!next)
			return NULL;
		ib->spill_out = next;
		tail = next;
		next = atomic_load_explicit(&next->next, memory_order_acquire);
	}
	if (next) {
		ib->spill_out = next;
		return tail;
	}
	head = atomic_load_explicit(&ib->spill_in, memory_order_acquire);
	if (tail != head)
		return NULL;	/* a push is half done; next drain gets it */
	spill_push(ib, &ib->spill_stub);
	next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (next) {
		ib->spill_out = next;
		return tail;
	}
	return NULL;
}

bool zn_inbox_empty(struct zn_inbox *ib)
{
	struct zn_inbox_slot *s = &ib->slots[ib->head & ib->mask];

	return atomic_load_explicit(&s->seq, memory_order_acquire) != ib->head + 1 &&
	       !atomic_load_explicit(&ib->spilled, memory_order_acquire);
}

void zn_uring_wake(struct zn_uring *r)
{
	int wfd;

	/* TASKRUN flag, eventfd, polling thread (register.c) */
	zn_uring_notify(r);
	/* Pairs with the fence in the waiter: it sees our message or we see it asleep. */
	zn_smp_mb();
	if (!atomic_load_explicit(&r->sleeping, memory_order_relaxed))
		return;
	atomic_fetch_add(&r->wake_seq, 1);
	syscall(SYS_futex, &r->wake_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	/* an owner asleep on its NICs' interrupts waits on this one (wait.c) */
	wfd = atomic_load(&r->wake_fd1) - 1;
	if (wfd >= 0)
		eventfd_write(wfd, 1);
}

/* The array is full (or spilling already): the message joins the spill list. */
static __attribute__((noinline)) int inbox_spill(struct zn_inbox *ib, uint64_t user_data,
						 int32_t res, uint32_t cflags)
{
	struct zn_spill_msg *m = malloc(sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->user_data = user_data;
	m->res = res;
	m->cflags = cflags;
	/* counted before it is visible: the owner never sees spilled == 0 with it queued */
	atomic_fetch_add(&ib->spilled, 1);
	spill_push(ib, m);
	return 0;
}

/* Queue a message in t's inbox without waking its owner: 0, -EBADFD or -ENOMEM. */
static inline int inbox_put(struct zn_uring *t, uint64_t user_data, int32_t res, uint32_t cflags)
{
	struct zn_inbox *ib = &t->inbox;
	uint64_t pos;

	/* a ring created R_DISABLED takes no message until enabled (kernel) */
	if (__builtin_expect(atomic_load_explicit(&t->disabled, memory_order_acquire), 0))
		return -EBADFD;
	if (atomic_load_explicit(&ib->spilled, memory_order_acquire))
		return inbox_spill(ib, user_data, res, cflags);
	pos = atomic_load_explicit(&ib->tail, memory_order_relaxed);
	for (;;) {
		struct zn_inbox_slot *s = &ib->slots[pos & ib->mask];
		uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		int64_t dif = (int64_t)(seq - pos);

		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&ib->tail, &pos, pos + 1,
					memory_order_relaxed, memory_order_relaxed)) {
				s->user_data = user_data;
				s->res = res;
				s->cflags = cflags;
				/* payload before the seq that hands the slot to the owner */
				atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
				return 0;
			}
		} else if (dif < 0) {
			return inbox_spill(ib, user_data, res, cflags);	/* full */
		} else {
			pos = atomic_load_explicit(&ib->tail, memory_order_relaxed);
		}
	}
}

int zn_inbox_post(struct zn_uring *t, uint64_t user_data, int32_t res, uint32_t cflags)
{
	int rc = inbox_put(t, user_data, res, cflags);

	if (!rc)
		zn_uring_wake(t);
	return rc;
}

/*
 * Messages in the array straight into free CQ slots: the tail is published
 * once for all of them (its release store orders every CQE write before
 * it), and each slot goes back to the producers once its message is
 * copied out.
 */
static unsigned inbox_to_cq(struct zn_uring *r)
{
	struct zn_inbox *ib = &r->inbox;
	struct zn_uring_shared *sh = r->sh;
	/* in locals: the CQE stores below could alias r and ib */
	struct zn_inbox_slot *const slots = ib->slots;
	struct io_uring_cqe *const cqes = r->cqes;
	const uint64_t mask = ib->mask, size = ib->size;
	const uint32_t cq_mask = r->cq_mask;
	const unsigned cqe_shift = r->cqe_shift;
	uint32_t tail = sh->cq_tail;
	uint32_t room = r->cq_entries - (tail - zn_load_acq(&sh->cq_head));
	uint64_t head = ib->head;
	unsigned n;

	for (n = 0; n < room; n++, head++, tail++) {
		struct zn_inbox_slot *s = &slots[head & mask];
		struct io_uring_cqe *cqe;

		if (atomic_load_explicit(&s->seq, memory_order_acquire) != head + 1)
			break;
		cqe = &cqes[(tail & cq_mask) << cqe_shift];
		cqe->user_data = s->user_data;
		cqe->res = s->res;
		cqe->flags = s->cflags;
		if (cqe_shift)
			cqe->big_cqe[0] = cqe->big_cqe[1] = 0;
		/* slot free for the producers' next lap */
		atomic_store_explicit(&s->seq, head + size, memory_order_release);
	}
	if (n) {
		zn_store_rel(&sh->cq_tail, tail);
		r->st.cqes += n;
		ib->head = head;
	}
	return n;
}

unsigned zn_inbox_drain(struct zn_uring *r)
{
	struct zn_inbox *ib = &r->inbox;
	struct zn_spill_msg *m;
	unsigned n = r->ovf_count ? 0 : inbox_to_cq(r);

	/* the rest (CQ full, or CQEs already waiting in the overflow list) queue behind */
	for (;;) {
		struct zn_inbox_slot *s = &ib->slots[ib->head & ib->mask];

		if (atomic_load_explicit(&s->seq, memory_order_acquire) != ib->head + 1)
			break;
		zn_uring_post_cqe(r, s->user_data, s->res, s->cflags, NULL, 0);
		atomic_store_explicit(&s->seq, ib->head + ib->size, memory_order_release);
		ib->head++;
		n++;
	}
	/*
	 * The spill list holds only messages sent after everything in the array
	 * (see uring_priv.h): read it only once the array is empty to its tail.
	 */
	if (atomic_load_explicit(&ib->spilled, memory_order_acquire) &&
	    atomic_load_explicit(&ib->tail, memory_order_acquire) == ib->head) {
		while ((m = spill_pop(ib))) {
			zn_uring_post_cqe(r, m->user_data, m->res, m->cflags, NULL, 0);
			free(m);
			atomic_fetch_sub(&ib->spilled, 1);
			r->st.inbox_spill++;
			n++;
		}
	}
	r->st.msgs_in += n;
	return n;
}

int zn_uring_msg(int target, uint64_t user_data, int32_t res, uint32_t cflags)
{
	struct zn_uring *t = zn_handle_get(target, ZN_HANDLE_URING);
	int rc;

	if (!t)
		return zn_uring_not_a_ring(target);
	rc = zn_inbox_post(t, user_data, res, cflags);
	zn_handle_put(target);
	return rc;
}

struct msg_pdu {
	uint64_t user_data;	/* sqe->off: the target's CQE */
	uint32_t len;		/* sqe->len: its res */
	uint32_t cflags;	/* sqe->file_index with FLAGS_PASS: its flags */
	int32_t err;		/* what issue answers once the target is a ring */
	uint32_t src_fd;	/* SEND_FD: sqe->addr3 */
	uint32_t dst_fd;	/* SEND_FD: sqe->file_index */
	uint32_t flags;		/* SEND_FD: sqe->msg_ring_flags */
};

/* msg_pdu.err of a SEND_FD: issue hands it to msg_fd.c */
#define MSG_SEND_FD	1

#define MSG_RING_MASK (IORING_MSG_RING_CQE_SKIP | IORING_MSG_RING_FLAGS_PASS)

/* The kernel's checks of a DATA message, made in its order at issue. */
static int32_t msg_data_err(const struct io_uring_sqe *sqe)
{
	uint32_t flags = sqe->msg_ring_flags;

	/* the common message passes all of them in one test */
	if (__builtin_expect(sqe->addr == IORING_MSG_DATA && !sqe->addr3 &&
			     (flags == IORING_MSG_RING_FLAGS_PASS || (!flags && !sqe->file_index)), 1))
		return 0;
	if (sqe->addr == IORING_MSG_SEND_FD)
		return MSG_SEND_FD;
	if (sqe->addr != IORING_MSG_DATA)
		return -EINVAL;
	if (sqe->addr3 || (flags & ~IORING_MSG_RING_FLAGS_PASS))
		return -EINVAL;
	if (!(flags & IORING_MSG_RING_FLAGS_PASS) && sqe->file_index)
		return -EINVAL;
	return 0;
}

/* The target CQE's flags: FLAGS_PASS passes sqe->file_index. */
static inline uint32_t msg_cflags(const struct io_uring_sqe *sqe)
{
	return sqe->msg_ring_flags & IORING_MSG_RING_FLAGS_PASS ? sqe->file_index : 0;
}

static int msg_ring_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct msg_pdu *m = (struct msg_pdu *)req->pdu;

	if (sqe->buf_index || sqe->personality || (sqe->msg_ring_flags & ~MSG_RING_MASK))
		return -EINVAL;
	m->user_data = sqe->off;
	m->len = sqe->len;
	m->cflags = msg_cflags(sqe);
	m->err = msg_data_err(sqe);
	m->src_fd = (uint32_t)sqe->addr3;
	m->dst_fd = sqe->file_index;
	m->flags = sqe->msg_ring_flags;
	return 0;
}

static int32_t msg_send_fd(struct zn_uring *self, struct zn_uring *t, const struct msg_pdu *m)
{
	const struct zn_msg_fd fd = {
		.user_data = m->user_data, .len = m->len, .src_fd = m->src_fd,
		.dst_fd = m->dst_fd, .flags = m->flags,
	};

	return zn_msg_send_fd(self, t, &fd);
}

/*
 * The target ring, with a reference. Inside one submission the reference
 * is kept for the next message to the same target (most senders batch to
 * one peer) and let go by zn_msg_ring_batch_end when the submission ends
 * (or the target changes), so a batch takes one reference instead of one
 * per message: still short, never held across a wait
 * (include/zcnic/handle.h). The target's owner is woken then too, once.
 */
static struct zn_uring *target_get(struct zn_uring *self, int h)
{
	struct zn_uring *t;

	if (self->msg_batch && self->msg_tgt && self->msg_tgt_h == h)
		return self->msg_tgt;
	t = zn_handle_get(h, ZN_HANDLE_URING);
	if (t && self->msg_batch) {
		zn_msg_ring_batch_end(self);
		self->msg_batch = true;
		self->msg_tgt = t;
		self->msg_tgt_h = h;
	}
	return t;
}

static void target_put(struct zn_uring *self, struct zn_uring *t, int h)
{
	if (t != self->msg_tgt)
		zn_handle_put(h);
}

void zn_msg_ring_batch_end(struct zn_uring *r)
{
	if (r->msg_tgt) {
		zn_uring_wake(r->msg_tgt);	/* once for the messages of this batch */
		zn_handle_put(r->msg_tgt_h);
	}
	r->msg_tgt = NULL;
	r->msg_batch = false;
}

static int msg_ring_issue(struct zn_uring_req *req)
{
	const struct msg_pdu *m = (const struct msg_pdu *)req->pdu;
	struct zn_uring *self = req->ring, *t;

	if (req->file == self->handle) {
		req->res = m->err == MSG_SEND_FD ? msg_send_fd(self, self, m) : m->err ? m->err :
			zn_cq_post(self, m->user_data, (int32_t)m->len, m->cflags, NULL);
		return ZN_URING_ISSUE_DONE;
	}
	t = target_get(self, req->file);
	if (!t) {
		req->res = zn_uring_not_a_ring(req->file);	/* whatever the command */
		return ZN_URING_ISSUE_DONE;
	}
	if (m->err == MSG_SEND_FD)
		req->res = msg_send_fd(self, t, m);
	else if (m->err)
		req->res = m->err;
	else if (t == self->msg_tgt)	/* the batch's target: woken once at its end */
		req->res = inbox_put(t, m->user_data, (int32_t)m->len, m->cflags);
	else
		req->res = zn_inbox_post(t, m->user_data, (int32_t)m->len, m->cflags);
	target_put(self, t, req->file);
	return ZN_URING_ISSUE_DONE;
}

/*
 * A message to another ring on the SQ-direct path: prep's checks, then
 * issue's, without a request. A message to the sending ring itself posts
 * on its CQ, which the direct run holds: that one goes the generic way, as
 * does every SQE that prep would fail.
 */
static __attribute__((noinline)) int64_t msg_ring_direct_first(struct zn_uring *self,
								 const struct io_uring_sqe *sqe)
{
	struct zn_uring *t;
	int32_t res;

	if (sqe->buf_index || (sqe->msg_ring_flags & ~MSG_RING_MASK) || sqe->fd == self->handle)
		return ZN_URING_DIRECT_NO;
	/* the batch's target, already referenced, without target_get's tests */
	t = sqe->fd == self->msg_tgt_h && self->msg_tgt ? self->msg_tgt :
		target_get(self, sqe->fd);
	if (!t)	/* which error (EBADF or EBADFD) is the generic way's to say */
		return ZN_URING_DIRECT_NO;
	res = msg_data_err(sqe);
	if (res == MSG_SEND_FD) {	/* rare: the generic way answers it */
		target_put(self, t, sqe->fd);
		return ZN_URING_DIRECT_NO;
	}
	/* the batch's target is woken once at the batch's end */
	if (!res)
		res = t == self->msg_tgt ?
			inbox_put(t, sqe->off, (int32_t)sqe->len, msg_cflags(sqe)) :
			zn_inbox_post(t, sqe->off, (int32_t)sqe->len, msg_cflags(sqe));
	target_put(self, t, sqe->fd);
	return res;
}

/*
 * The batch's next DATA message to the target it already holds (never the
 * sending ring itself: target_get does not keep that one), with every check
 * of prep and msg_data_err passed in one test; the rest, as the batch's
 * first message, go through msg_ring_direct_first.
 */
static int64_t msg_ring_direct(struct zn_uring *self, const struct io_uring_sqe *sqe)
{
	struct zn_uring *t = self->msg_tgt;
	uint32_t flags = sqe->msg_ring_flags;

	if (__builtin_expect(t && sqe->fd == self->msg_tgt_h && sqe->addr == IORING_MSG_DATA &&
			     !(sqe->addr3 | sqe->buf_index) &&
			     (flags == IORING_MSG_RING_FLAGS_PASS || !(flags | sqe->file_index)), 1))
		return inbox_put(t, sqe->off, (int32_t)sqe->len, msg_cflags(sqe));
	return msg_ring_direct_first(self, sqe);
}

const struct zn_uring_op zn_msg_ring_op = {
	.name = "MSG_RING",
	.flags = ZN_URING_OP_NEEDS_FILE,
	.prep = msg_ring_prep,
	.issue = msg_ring_issue,
	.direct = msg_ring_direct,
};
