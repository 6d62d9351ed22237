/* SPDX-License-Identifier: MIT */
/*
 * Doorbells of the bnxt model (hw-docs/bnxt.md 7, 14 "Doorbells").
 *
 * Two ways in, one decoder:
 *   - DPI pages (multi-doorbell mode, 7.4): one page per ring, shared memory
 *     polled by the loop. Each value carries the ring's full index, so seeing
 *     only the last of several stores to one page loses nothing.
 *   - the legacy P5 PF doorbell at BAR2 + 0x10000: trapped, every store is a
 *     message, valid for any ring; or (legacy_db_map=1) mapped and polled,
 *     where a poll sees only the last of the stores made since the last one.
 * A bad doorbell is dropped, counted and logged; the ring state is untouched.
 */
#include "sim/bnxt/priv.h"

static const char *const type_name[16] = {
	"SQ", "RQ", "SRQ", "SRQ_ARM", "CQ", "CQ_ARMSE", "CQ_ARMALL", "CQ_ARMENA",
	"SRQ_ARMENA", "CQ_CUTOFF_ACK", "NQ", "NQ_ARM", "PUSH_START", "PUSH_END", "NQ_MASK", "NULL",
};

static void bad(struct bsim *m, uint64_t v, int dpi, const char *why)
{
	BSIM_INC(m, db_bad);
	ZN_SIM_LOG_RL_AT(&m->rl_db, ZN_SIM_LOG_WARN, BSIM_LOG,
			 "%s: doorbell %#018llx (%s, xid %#x, index %u) on %s%d dropped: %s",
			 m->name, (unsigned long long)v, type_name[bnxt_db64_type(v)],
			 bnxt_db64_xid(v), bnxt_db64_idx(v), dpi < 0 ? "the legacy page" : "DPI ",
			 dpi < 0 ? 0 : dpi, why);
}

/* Does a doorbell of this type address a ring of this kind? */
static bool type_fits(enum bnxt_dbr_type t, uint8_t kind)
{
	switch (t) {
	case BNXT_DBR_TYPE_SQ:
		return kind == BK_TX;
	case BNXT_DBR_TYPE_SRQ:
		return kind == BK_RX || kind == BK_AGG;
	case BNXT_DBR_TYPE_CQ:
	case BNXT_DBR_TYPE_CQ_ARMALL:
		return kind == BK_CQ;
	case BNXT_DBR_TYPE_NQ:
	case BNXT_DBR_TYPE_NQ_ARM:
		return kind == BK_NQ;
	default:
		return false;
	}
}

void bsim_db_write(struct bsim *m, uint64_t v, int dpi)
{
	enum bnxt_dbr_type t = bnxt_db64_type(v);
	struct bsim_ring *r;
	uint32_t idx = bnxt_db64_idx(v);

	if ((v & BNXT_DBR_P5_RSVD_MASK) || (v & BNXT_DBR_PATH_MASK) != BNXT_DBR_PATH_L2) {
		BSIM_INC(m, db_bad_bits);
		bad(m, v, dpi, "path is not L2, or reserved/P7-only bits are set");
		return;
	}
	r = bsim_ring_by_id(m, bnxt_db64_xid(v));
	if (!r || (dpi >= 0 && r->dpi != dpi)) {
		BSIM_INC(m, db_bad_ring);
		bad(m, v, dpi, r ? "the page belongs to another ring" : "no ring has this xid");
		return;
	}
	if (!type_fits(t, r->kind)) {
		BSIM_INC(m, db_bad_type);
		bad(m, v, dpi, "the type does not fit the ring's kind");
		return;
	}
	if (idx >= r->size) {
		BSIM_INC(m, db_bad_index);
		bad(m, v, dpi, "index beyond the ring");
		return;
	}
	if (r->kind == BK_TX || r->kind == BK_RX || r->kind == BK_AGG) {
		/* The producer may only move forward, and at most size - 1 BDs
		 * ahead of the device's consumer. */
		uint32_t posted = (idx - r->cons) & r->mask;

		if (posted < r->prod - r->cons) {
			BSIM_INC(m, db_bad_move);
			bad(m, v, dpi, "producer moved back, or past size - 1 posted BDs");
			return;
		}
		r->prod = r->cons + posted;
		return;
	}
	/* CQ / NQ: the consumer may not pass what the device has written. */
	uint32_t delta = (idx - r->cons) & r->mask;

	if (r->no_overflow && r->prod - r->cons > r->mask) {
		/* more than a ring unseen: the consumer is the latest index
		 * at or behind the producer with these low bits */
		delta = (r->prod - ((r->prod - idx) & r->mask)) - r->cons;
	} else if (delta > r->prod - r->cons) {
		BSIM_INC(m, db_bad_move);
		bad(m, v, dpi, "consumer passes the device's producer");
		return;
	}
	r->cons += delta;
	if (t == BNXT_DBR_TYPE_CQ_ARMALL) {
		r->armed = true;
		bsim_cq_arm_check(m, r);
	} else if (t == BNXT_DBR_TYPE_NQ_ARM) {
		r->armed = true;
		bsim_nq_arm_check(m, r);
	}
}

int bsim_db_poll(struct bsim *m)
{
	int work = 0;

	if (!m->bar2)
		return 0;
	if (m->legacy_db_mapped) {
		uint64_t v = __atomic_load_n((const volatile uint64_t *)
					     (m->bar2 + bnxt_db_legacy_off_p5(false)),
					     __ATOMIC_ACQUIRE);

		/* One page for every ring: a value seen once is one doorbell,
		 * and stores overwritten before this poll are lost to it. */
		if (v != m->legacy_last) {
			m->legacy_last = v;
			BSIM_INC(m, db_legacy_polled);
			bsim_db_write(m, v, -1);
			work++;
		}
	}
	for (unsigned i = 0; i < m->npolled; i++) {
		struct bsim_ring *r = m->polled[i];
		const volatile uint64_t *w = (const volatile uint64_t *)
			(m->bar2 + bnxt_mdb_db_off((uint32_t)r->dpi, BSIM_DB_PAGE));
		/* acquire: the BDs the driver wrote before ringing are visible */
		uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

		if (v == r->db_last)
			continue;
		r->db_last = v;
		BSIM_INC(m, db_polled);
		bsim_db_write(m, v, r->dpi);
		work++;
	}
	return work;
}

void bsim_db_rebase(struct bsim *m)
{
	if (!m->bar2)
		return;
	if (m->legacy_db_mapped)
		m->legacy_last = __atomic_load_n((const volatile uint64_t *)
						 (m->bar2 + bnxt_db_legacy_off_p5(false)),
						 __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < m->npolled; i++) {
		struct bsim_ring *r = m->polled[i];

		r->db_last = __atomic_load_n((const volatile uint64_t *)
					     (m->bar2 + bnxt_mdb_db_off((uint32_t)r->dpi,
									BSIM_DB_PAGE)),
					     __ATOMIC_ACQUIRE);
	}
}
