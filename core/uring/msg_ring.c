/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_OP_MSG_RING and the per-ring inbox it posts into.
 *
 * Semantics are the kernel's io_uring/msg_ring.c (IORING_MSG_DATA):
 *  - prep: buf_index or personality != 0, or msg_ring_flags outside
 *    CQE_SKIP|FLAGS_PASS: -EINVAL;
 *  - target not a ring: -EBADFD (zcnic: any sqe->fd that is not a live ring
 *    handle; a ported program's OS fd lands here too);
 *  - DATA: addr3 (source fd) != 0, any flag but FLAGS_PASS (so CQE_SKIP
 *    too), or file_index != 0 without FLAGS_PASS: -EINVAL;
 *  - the target gets {user_data = sqe->off, res = sqe->len,
 *    flags = FLAGS_PASS ? sqe->file_index : 0}; the sender's own CQE is
 *    {sqe->user_data, 0} (suppress it with IOSQE_CQE_SKIP_SUCCESS);
 *  - a message is never dropped: a full target CQ keeps it in the target's
 *    overflow list (Linux test msg-ring-overflow.c);
 *  - IORING_MSG_SEND_FD is -EOPNOTSUPP for now (fixed-file passing).
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
	/* TASKRUN flag, eventfd, polling thread (register.c) */
	zn_uring_notify(r);
	/* Pairs with the fence in the waiter: it sees our message or we see it asleep. */
	zn_smp_mb();
	if (!atomic_load_explicit(&r->sleeping, memory_order_relaxed))
		return;
	atomic_fetch_add(&r->wake_seq, 1);
	syscall(SYS_futex, &r->wake_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

int zn_inbox_post(struct zn_uring *t, uint64_t user_data, int32_t res, uint32_t cflags)
{
	struct zn_inbox *ib = &t->inbox;
	struct zn_spill_msg *m;

	/* a ring created R_DISABLED takes no message until enabled (kernel) */
	if (atomic_load_explicit(&t->disabled, memory_order_acquire))
		return -EBADFD;
	if (!atomic_load_explicit(&ib->spilled, memory_order_acquire)) {
		uint64_t pos = atomic_load_explicit(&ib->tail, memory_order_relaxed);

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
					zn_uring_wake(t);
					return 0;
				}
			} else if (dif < 0) {
				break;	/* full: spill */
			} else {
				pos = atomic_load_explicit(&ib->tail, memory_order_relaxed);
			}
		}
	}
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->user_data = user_data;
	m->res = res;
	m->cflags = cflags;
	/* counted before it is visible: the owner never sees spilled == 0 with it queued */
	atomic_fetch_add(&ib->spilled, 1);
	spill_push(ib, m);
	zn_uring_wake(t);
	return 0;
}

unsigned zn_inbox_drain(struct zn_uring *r)
{
	struct zn_inbox *ib = &r->inbox;
	struct zn_spill_msg *m;
	unsigned n = 0;

	for (;;) {
		struct zn_inbox_slot *s = &ib->slots[ib->head & ib->mask];

		if (atomic_load_explicit(&s->seq, memory_order_acquire) != ib->head + 1)
			break;
		zn_uring_post_cqe(r, s->user_data, s->res, s->cflags, NULL, 0);
		/* slot free for the producers' next lap */
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
		return -EBADFD;
	rc = zn_inbox_post(t, user_data, res, cflags);
	zn_handle_put(target);
	return rc;
}

struct msg_pdu {
	uint64_t user_data;	/* sqe->off */
	uint64_t cmd;		/* sqe->addr */
	uint64_t src_fd;	/* sqe->addr3 */
	uint32_t len;
	uint32_t dst_fd;	/* sqe->file_index */
	uint32_t flags;
};

#define MSG_RING_MASK (IORING_MSG_RING_CQE_SKIP | IORING_MSG_RING_FLAGS_PASS)

static int msg_ring_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct msg_pdu *m = (struct msg_pdu *)req->pdu;

	if (sqe->buf_index || sqe->personality)
		return -EINVAL;
	m->user_data = sqe->off;
	m->cmd = sqe->addr;
	m->src_fd = sqe->addr3;
	m->len = sqe->len;
	m->dst_fd = sqe->file_index;
	m->flags = sqe->msg_ring_flags;
	if (m->flags & ~MSG_RING_MASK)
		return -EINVAL;
	return 0;
}

static int msg_ring_data(struct zn_uring_req *req, const struct msg_pdu *m)
{
	struct zn_uring *self = req->ring, *t;
	uint32_t cflags = 0;
	int rc;

	if (m->src_fd || (m->flags & ~IORING_MSG_RING_FLAGS_PASS))
		return -EINVAL;
	if (!(m->flags & IORING_MSG_RING_FLAGS_PASS) && m->dst_fd)
		return -EINVAL;
	if (m->flags & IORING_MSG_RING_FLAGS_PASS)
		cflags = m->dst_fd;
	if (req->file == self->handle)
		return zn_uring_post_cqe(self, m->user_data, (int32_t)m->len, cflags, NULL, 0);
	t = zn_handle_get(req->file, ZN_HANDLE_URING);
	if (!t)
		return -EBADFD;
	rc = zn_inbox_post(t, m->user_data, (int32_t)m->len, cflags);
	zn_handle_put(req->file);
	return rc;
}

static int msg_ring_issue(struct zn_uring_req *req)
{
	const struct msg_pdu *m = (const struct msg_pdu *)req->pdu;
	int rc;

	if (zn_handle_type(req->file) != ZN_HANDLE_URING)
		rc = -EBADFD;
	else if (m->cmd == IORING_MSG_DATA)
		rc = msg_ring_data(req, m);
	else if (m->cmd == IORING_MSG_SEND_FD)
		rc = -EOPNOTSUPP;
	else
		rc = -EINVAL;
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

const struct zn_uring_op zn_msg_ring_op = {
	.name = "MSG_RING",
	.flags = ZN_URING_OP_NEEDS_FILE,
	.prep = msg_ring_prep,
	.issue = msg_ring_issue,
};
