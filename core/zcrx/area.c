/* SPDX-License-Identifier: MIT */
/*
 * A zcrx area: the application's memory cut into ZN_ZCRX_BUF_SIZE buffers,
 * each in exactly one state (include/zcnic/zcrx.h), with the two references
 * of zcrx_priv.h. Every transition goes through set_state(), which keeps
 * the per-state counts; a transition the state machine does not allow is
 * refused and counted, never performed (so a bug below or a bad refill
 * entry cannot hand a buffer out twice).
 *
 * Refill entries are parsed as the kernel's io_zcrx_ring_refill /
 * io_parse_rqe do: area id = off >> 48 (only area 0 exists), __pad must be
 * 0, buffer index = (off & ~MASK) >> 12 must be inside the area, the user
 * reference must be held; the offset inside the buffer and len are ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/zcrx/zcrx_priv.h"
#include "zcnic/log.h"

static void set_state(struct zn_zcrx_area *a, uint32_t idx, uint8_t st)
{
	struct zn_zcrx_buf *b = &a->bufs[idx];

	a->cnt[b->state]--;
	a->cnt[st]++;
	b->state = st;
	if (st == ZB_FREE)
		a->free[a->nfree++] = idx;
}

int zn_zcrx_area_init(struct zn_zcrx_area *a, void *base, size_t len, uint64_t iova)
{
	uint32_t n = (uint32_t)(len >> ZN_ZCRX_BUF_SHIFT);

	memset(a, 0, sizeof(*a));
	if (!n || len >> ZN_ZCRX_BUF_SHIFT > UINT32_MAX)
		return -EINVAL;
	a->bufs = calloc(n, sizeof(*a->bufs));
	a->free = malloc(sizeof(*a->free) * n);
	if (!a->bufs || !a->free) {
		free(a->bufs);
		free(a->free);
		a->bufs = NULL;
		a->free = NULL;
		return -ENOMEM;
	}
	a->base = base;
	a->len = (size_t)n << ZN_ZCRX_BUF_SHIFT;
	a->iova = iova;
	a->nbufs = n;
	/* lowest index on top, so a fresh area hands out buffers in order */
	for (uint32_t i = 0; i < n; i++)
		a->free[i] = n - 1 - i;
	a->nfree = n;
	a->cnt[ZB_FREE] = n;
	return 0;
}

void zn_zcrx_area_fini(struct zn_zcrx_area *a)
{
	free(a->bufs);
	free(a->free);
	a->bufs = NULL;
	a->free = NULL;
	a->nbufs = 0;
}

uint32_t zn_zcrx_area_alloc(struct zn_zcrx_area *a, struct zn_buf *bufs, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n && a->nfree; k++) {
		uint32_t idx = a->free[--a->nfree];

		a->bufs[idx].nic = 1;
		a->cnt[ZB_FREE]--;
		a->cnt[ZB_NIC]++;
		a->bufs[idx].state = ZB_NIC;
		bufs[k].id = idx;
		bufs[k].va = a->base + ((size_t)idx << ZN_ZCRX_BUF_SHIFT);
		bufs[k].iova = a->iova + ((uint64_t)idx << ZN_ZCRX_BUF_SHIFT);
	}
	if (k < n)
		a->st.alloc_short++;
	return k;
}

void zn_zcrx_area_put(struct zn_zcrx_area *a, const uint32_t *ids, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t idx = ids[k];
		struct zn_zcrx_buf *b;

		if (idx >= a->nbufs || !a->bufs[idx].nic) {
			a->st.bad_puts++;
			ZN_LOG_RL(ZN_LOG_WARN, ZCRX_LOG, "put of buffer %u that the stack does "
				  "not hold; ignored", idx);
			continue;
		}
		b = &a->bufs[idx];
		b->nic = 0;
		if (!b->uref)
			set_state(a, idx, ZB_FREE);
	}
}

void zn_zcrx_area_take(struct zn_zcrx_area *a, uint32_t idx)
{
	/* A buffer split across two requests (len limit) is taken once. */
	if (idx < a->nbufs && a->bufs[idx].state == ZB_NIC)
		set_state(a, idx, ZB_STACK);
}

void zn_zcrx_area_user_get(struct zn_zcrx_area *a, uint32_t idx)
{
	struct zn_zcrx_buf *b = &a->bufs[idx];

	if (b->state != ZB_USER)
		set_state(a, idx, ZB_USER);
	b->uref++;
	a->st.user_refs++;
}

int64_t zn_zcrx_area_copy_get(struct zn_zcrx_area *a)
{
	uint32_t idx;

	if (!a->nfree)
		return -1;
	idx = a->free[--a->nfree];
	a->cnt[ZB_FREE]--;
	a->cnt[ZB_STACK]++;
	a->bufs[idx].state = ZB_STACK;
	return idx;
}

void zn_zcrx_area_copy_abort(struct zn_zcrx_area *a, uint32_t idx)
{
	if (a->bufs[idx].state == ZB_STACK && !a->bufs[idx].nic && !a->bufs[idx].uref)
		set_state(a, idx, ZB_FREE);
}

static void user_drop(struct zn_zcrx_area *a, uint32_t idx)
{
	struct zn_zcrx_buf *b = &a->bufs[idx];

	b->uref--;
	a->st.user_refs--;
	if (b->uref)
		return;
	/* still in a datagram RECV_ZC keeps (len limit split it): STACK */
	set_state(a, idx, b->nic ? ZB_STACK : ZB_FREE);
}

int zn_zcrx_area_rqe(struct zn_zcrx_area *a, const struct io_uring_zcrx_rqe *rqe)
{
	uint64_t off = __atomic_load_n(&rqe->off, __ATOMIC_RELAXED);
	uint32_t pad = __atomic_load_n(&rqe->__pad, __ATOMIC_RELAXED);
	uint64_t idx;
	int why;

	if (off >> IORING_ZCRX_AREA_SHIFT)
		why = ZN_ZCRX_RQE_AREA;
	else if (pad)
		why = ZN_ZCRX_RQE_PAD;
	else if ((idx = (off & ~IORING_ZCRX_AREA_MASK) >> ZN_ZCRX_BUF_SHIFT) >= a->nbufs)
		why = ZN_ZCRX_RQE_OUTSIDE;
	else if (!a->bufs[idx].uref)
		why = ZN_ZCRX_RQE_NOT_HELD;
	else {
		user_drop(a, (uint32_t)idx);
		a->st.refill_ok++;
		return -1;
	}
	a->st.refill_invalid[why]++;
	return why;
}

void zn_zcrx_area_scrub(struct zn_zcrx_area *a)
{
	for (uint32_t i = 0; i < a->nbufs; i++) {
		struct zn_zcrx_buf *b = &a->bufs[i];

		if (!b->uref)
			continue;
		a->st.scrubbed++;
		a->st.user_refs -= b->uref - 1;
		b->uref = 1;
		user_drop(a, i);
	}
}

int zn_zcrx_area_check(const struct zn_zcrx_area *a)
{
	uint32_t cnt[ZB_STATES] = { 0 };
	uint64_t refs = 0;

	if (a->nfree != a->cnt[ZB_FREE])
		return -1;
	for (uint32_t i = 0; i < a->nbufs; i++) {
		const struct zn_zcrx_buf *b = &a->bufs[i];

		if (b->state >= ZB_STATES)
			return -1;
		cnt[b->state]++;
		refs += b->uref;
		/* USER iff user references; FREE and NIC never with them */
		if ((b->state == ZB_USER) != (b->uref > 0))
			return -1;
		if (b->state == ZB_NIC && !b->nic)
			return -1;
		if (b->state == ZB_FREE && b->nic)
			return -1;
	}
	for (uint32_t i = 0; i < a->nfree; i++) {
		if (a->free[i] >= a->nbufs || a->bufs[a->free[i]].state != ZB_FREE)
			return -1;
	}
	for (int s = 0; s < ZB_STATES; s++)
		if (cnt[s] != a->cnt[s])
			return -1;
	if (refs != a->st.user_refs)
		return -1;
	if (cnt[ZB_FREE] + cnt[ZB_NIC] + cnt[ZB_STACK] + cnt[ZB_USER] != a->nbufs)
		return -1;
	return 0;
}

void zn_zcrx_area_stats(const struct zn_zcrx_area *a, struct zn_zcrx_stats *st)
{
	*st = a->st;
	st->nbufs = a->nbufs;
	st->free = a->cnt[ZB_FREE];
	st->nic = a->cnt[ZB_NIC];
	st->stack = a->cnt[ZB_STACK];
	st->user = a->cnt[ZB_USER];
}

void zn_zcrx_rq_init(struct zn_zcrx_rq *rq, void *mem, uint32_t entries)
{
	uint8_t *m = mem;

	rq->khead = (uint32_t *)(m + ZN_ZCRX_RQ_HEAD_OFF);
	rq->ktail = (uint32_t *)(m + ZN_ZCRX_RQ_TAIL_OFF);
	rq->rqes = (struct io_uring_zcrx_rqe *)(m + ZN_ZCRX_RQ_RQES_OFF);
	rq->entries = entries;
	rq->mask = entries - 1;
	rq->cached_head = 0;
	__atomic_store_n(rq->khead, 0, __ATOMIC_RELEASE);
}

uint32_t zn_zcrx_refill(struct zn_zcrx_rq *rq, struct zn_zcrx_area *a)
{
	/* acquire: the rqes before tail are written (the producer's release) */
	uint32_t tail = __atomic_load_n(rq->ktail, __ATOMIC_ACQUIRE);
	uint32_t head = rq->cached_head;
	uint32_t n = tail - head;

	/* a bogus tail (behind head, or far ahead) reads at most one ring's worth */
	if (n > rq->entries)
		n = rq->entries;
	for (uint32_t k = 0; k < n; k++)
		zn_zcrx_area_rqe(a, &rq->rqes[(head + k) & rq->mask]);
	a->st.refill_runs++;
	if (n) {
		rq->cached_head = head + n;
		/* release: the slots are the application's again once head moves */
		__atomic_store_n(rq->khead, rq->cached_head, __ATOMIC_RELEASE);
	}
	return n;
}
