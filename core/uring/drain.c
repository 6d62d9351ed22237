/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IOSQE_IO_DRAIN. "The SQE will not be started before
 * previously submitted SQEs have completed, and new SQEs will not be
 * started before this one completes" (io_uring_enter(2)); the kernel's
 * io_drain_req / io_queue_deferred.
 *
 * A chain with a DRAIN member (Linux moves the flag to the chain's head)
 * and, while drain is active, every chain submitted after it, go to the
 * ring's defer FIFO instead of being issued. The FIFO is run at the end of
 * each submission and on every pass of the owner: a drain entry leaves it
 * only when no request of the ring is in flight; so does the first entry
 * after an issued drain (it waits for the drain to complete); the others
 * follow in order. Drain ends when the FIFO is empty and nothing it issued
 * is still in flight. A chain that failed at submission is not held
 * (Linux completes it at once). Requests in flight that never end (a
 * multishot RECV, a multishot poll) hold a drain forever, as in Linux.
 * Deferred chains are dropped without CQEs when the ring exits.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/uring/uring_priv.h"

struct zn_drain_ent {
	struct zn_drain_ent *next;
	struct zn_uring_req *head;
	bool drain;
};

int zn_uring_drain_defer(struct zn_uring *r, struct zn_uring_req *head, bool drain)
{
	struct zn_drain_ent *e = malloc(sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->next = NULL;
	e->head = head;
	e->drain = drain;
	if (r->drain_tail)
		r->drain_tail->next = e;
	else
		r->drain_head = e;
	r->drain_tail = e;
	r->drain_active = true;
	zn_uring_drain_flush(r);
	return 0;
}

void zn_uring_drain_flush(struct zn_uring *r)
{
	struct zn_drain_ent *e;

	while ((e = r->drain_head)) {
		if ((e->drain || r->drain_after) && r->inflight)
			return;
		r->drain_head = e->next;
		if (!r->drain_head)
			r->drain_tail = NULL;
		r->drain_after = e->drain;
		zn_uring_run_chain(r, e->head);
		free(e);
	}
	if (!r->drain_after || !r->inflight)
		r->drain_active = r->drain_after = false;
}

void zn_uring_drain_destroy(struct zn_uring *r)
{
	struct zn_drain_ent *e;

	while ((e = r->drain_head)) {
		r->drain_head = e->next;
		free(e);
	}
	r->drain_tail = NULL;
	r->drain_active = r->drain_after = false;
}
