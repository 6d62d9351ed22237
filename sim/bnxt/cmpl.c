/* SPDX-License-Identifier: MIT */
/*
 * Completion-side writes of the bnxt model (hw-docs/bnxt.md 6, 13, 14):
 * records into CQs and NQs with the valid bit of the current pass, NQ
 * entries for armed CQs, MSI-X for armed NQs, HWRM_DONE, link events, and
 * the periodic stat-context DMA.
 *
 * A ring holds at most size - 1 unconsumed slots (model choice: a consumer
 * doorbell on a full ring could not be told from one that consumed
 * nothing); a record that does not fit puts the ring in overflow, and the
 * model writes to it no more (hw-docs/bnxt.md 14).
 */
#include <string.h>

#include "sim/bnxt/priv.h"

bool bsim_ring_copy(struct bsim *m, struct bsim_ring *r, uint32_t idx, void *buf, unsigned n,
		    bool write)
{
	uint32_t slot = idx & r->mask, first = n < r->size - slot ? n : r->size - slot;
	uint8_t *b = buf;
	int rc;

	if (r->dead)
		return false;
	rc = write ? zn_vfu_dma_write(m->dev, r->base + slot * 16ull, b, first * 16ull) :
		     zn_vfu_dma_read(m->dev, r->base + slot * 16ull, b, first * 16ull);
	if (!rc && n > first)
		rc = write ? zn_vfu_dma_write(m->dev, r->base, b + first * 16u, (n - first) * 16ull) :
			     zn_vfu_dma_read(m->dev, r->base, b + first * 16u, (n - first) * 16ull);
	if (rc) {
		/* The ring's memory went away under it (DMA_UNMAP, bus master
		 * off, a truncated file): the device stops using the ring. */
		r->dead = true;
		BSIM_INC(m, ring_faults);
		ZN_SIM_LOG_RL_AT(&m->rl_db, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: ring %#x memory %#llx is no longer reachable: ring stopped",
				 m->name, r->id, (unsigned long long)r->base);
		return false;
	}
	return true;
}

bool bsim_cq_room(struct bsim_ring *cq, unsigned slots)
{
	if (cq->no_overflow)
		return slots <= cq->size - 1;
	return cq->prod - cq->cons + slots <= cq->size - 1;
}

static void irq(struct bsim *m, struct bsim_ring *nq)
{
	if (nq->int_mode != BNXT_RING_ALLOC_INT_MODE_MSIX)
		return;
	BSIM_INC(m, irqs);
	if (zn_vfu_irq_notify(m->dev, nq->logical_id))
		BSIM_INC(m, irq_failures);
}

/* n records at the ring's producer. The group shows when the first slot's
 * V does, so it is written with last pass's V first, then flipped with a
 * last store of its own. */
static bool post(struct bsim *m, struct bsim_ring *r, uint8_t *recs, unsigned n)
{
	uint32_t v0;

	if (r->dead)
		return false;
	if (!bsim_cq_room(r, n)) {
		r->dead = true;
		BSIM_INC(m, cq_overflows);
		ZN_SIM_LOG_RL_AT(&m->rl_db, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: %s %#x overflow: %u slots written, %u returned, size %u; the "
				 "ring is stopped", m->name, r->kind == BK_NQ ? "NQ" : "CQ", r->id,
				 r->prod, r->cons, r->size);
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		uint32_t w;
		uint8_t *rec = recs + 16 * i;

		memcpy(&w, rec + 8, 4);
		w = (w & ~BNXT_CMPL_V) | bsim_phase(r->prod + i, r->size);
		memcpy(rec + 8, &w, 4);
	}
	memcpy(&v0, recs + 8, 4);
	recs[8] ^= BNXT_CMPL_V;		/* still last pass's: not valid yet */
	if (!bsim_ring_copy(m, r, r->prod, recs, n, true))
		return false;
	/* release: the whole group is visible once this V is */
	zn_dma_wmb();
	if (zn_vfu_dma_write(m->dev, r->base + (r->prod & r->mask) * 16ull + 8, &v0, 4)) {
		r->dead = true;
		BSIM_INC(m, ring_faults);
		return false;
	}
	r->prod += n;
	return true;
}

static void nq_post(struct bsim *m, struct bsim_ring *nq, void *rec)
{
	if (!post(m, nq, rec, 1))
		return;
	BSIM_INC(m, nq_entries);
	if (nq->armed) {
		nq->armed = false;
		irq(m, nq);
	}
}

/* An armed CQ with unconsumed records: one NQ entry, then disarmed. */
void bsim_cq_arm_check(struct bsim *m, struct bsim_ring *cq)
{
	struct bnxt_nq_cn cn = { 0 };

	if (!cq->armed || cq->prod == cq->cons || !cq->nq)
		return;
	cq->armed = false;
	cn.type = BNXT_CMPL_TYPE_CQ_NOTIFICATION;
	cn.cq_handle_low = (uint32_t)cq->cq_handle;
	cn.cq_handle_high = (uint32_t)(cq->cq_handle >> 32);
	nq_post(m, cq->nq, &cn);
}

void bsim_nq_arm_check(struct bsim *m, struct bsim_ring *nq)
{
	if (nq->armed && nq->prod != nq->cons) {
		nq->armed = false;
		irq(m, nq);
	}
}

bool bsim_cq_post(struct bsim *m, struct bsim_ring *cq, void *recs, unsigned n)
{
	if (!post(m, cq, recs, n))
		return false;
	if (cq->kind == BK_CQ)
		bsim_cq_arm_check(m, cq);
	else if (cq->armed)
		bsim_nq_arm_check(m, cq);
	return true;
}

void bsim_hwrm_done(struct bsim *m, struct bsim_ring *r, uint16_t seq_id)
{
	struct bnxt_hwrm_done_cmpl c = { .type = BNXT_CMPL_TYPE_HWRM_DONE, .sequence_id = seq_id };

	if (bsim_cq_post(m, r, &c, 1))
		BSIM_INC(m, hwrm_done);
}

void bsim_async_link(struct bsim *m)
{
	struct bnxt_async_event_cmpl e = { 0 };

	if (!m->registered || !m->async_cr ||
	    !(m->async_fwd[BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE / 32] &
	      (1u << (BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE % 32))))
		return;
	e.type = BNXT_CMPL_TYPE_HWRM_ASYNC_EVENT;
	e.event_id = BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE;
	e.event_data1 = (m->link_up ? BNXT_ASYNC_LINK_DATA1_LINK_UP : 0) |
			(BSIM_PORT_ID << BNXT_ASYNC_LINK_DATA1_PORT_ID_SFT) |
			(BSIM_FID << BNXT_ASYNC_LINK_DATA1_PF_ID_SFT);
	if (bsim_cq_post(m, m->async_cr, &e, 1))
		BSIM_INC(m, async_events);
}

int bsim_stats_poll(struct bsim *m, uint64_t now_ns, uint64_t *deadline_ns)
{
	uint64_t next = UINT64_MAX;
	int work = 0;

	if (now_ns < m->stats_due_ns) {
		if (m->stats_due_ns < *deadline_ns)
			*deadline_ns = m->stats_due_ns;
		return 0;
	}
	for (unsigned i = 0; i < BSIM_MAX_STATS; i++) {
		struct bsim_stat *s = &m->stat[i];

		if (!s->used || !s->period_ms)
			continue;
		if (now_ns >= s->next_ns) {
			if (zn_vfu_bus_master(m->dev) &&
			    zn_vfu_dma_write(m->dev, s->dma_addr, &s->hw, sizeof(s->hw)) == 0)
				BSIM_INC(m, stats_dma);
			else
				BSIM_INC(m, stats_dma_errors);
			s->next_ns = now_ns + (uint64_t)s->period_ms * 1000000ull;
			work++;
		}
		if (s->next_ns < next)
			next = s->next_ns;
	}
	m->stats_due_ns = next;
	if (next < *deadline_ns)
		*deadline_ns = next;
	return work;
}
