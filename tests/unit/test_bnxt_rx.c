/*
 * drivers/bnxt RX burst on hand-built completion rings: the test plays the
 * device (takes the posted BDs, writes header and payload bytes, writes the
 * RX record, its AGG records and the V bits in the documented order) and
 * checks what rx_burst hands out, byte for byte, and the doorbells. Then
 * garbage: every validation rule of bnxt_cmpl.h, each counted in bad_cmpl,
 * never a crash, and the ring keeps working after it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bnxt_fake.h"
#include "drivers/bnxt/bnxt_cmpl.h"

#define AGG_BUF		1024
#define HDR_BUF		256

struct rxt {
	struct fake_fw *f;
	struct bnxt bp;
	struct bnxt_rxq *q;
	struct fake_prov *prov;
	uint64_t db_cq, db_rx, db_agg;
	/* the device's view */
	uint32_t cq_prod, rx_cons, agg_cons;
};

static struct rxt *rxt_new_ex(uint32_t ring, uint32_t hds_thresh, uint32_t prov_bufs,
			      uint32_t offloads)
{
	struct rxt *t = calloc(1, sizeof(*t));
	struct zn_rxq_conf rc = { .ring_size = ring, .hds_thresh = hds_thresh,
				  .hdr_buf_size = HDR_BUF, .numa_node = -1, .offloads = offloads };

	t->f = fake_new(false);
	t->bp.bus = &t->f->dev;
	snprintf(t->bp.name, sizeof(t->bp.name), "bnxt rx-test");
	t->prov = fake_prov_new(prov_bufs, AGG_BUF);
	rc.payload = &t->prov->prov;
	assert_int_equal(zn_bnxt_rxq_create(&t->bp, 3, &rc, &t->q), 0);
	t->q->c.max_frame = 1500 + BNXT_L2_OVERHEAD;
	zn_bnxt_rxq_prepare(t->q);
	t->q->cq.id = 7;
	t->q->rx.id = 8;
	t->q->agg.id = 9;
	t->q->cq_db = (struct bnxt_db){ .mmio = (volatile uint64_t *)&t->db_cq,
					.key = bnxt_db64(BNXT_DBR_TYPE_CQ, 7, 0) };
	t->q->rx_db = (struct bnxt_db){ .mmio = (volatile uint64_t *)&t->db_rx,
					.key = bnxt_db64(BNXT_DBR_TYPE_SRQ, 8, 0) };
	t->q->agg_db = (struct bnxt_db){ .mmio = (volatile uint64_t *)&t->db_agg,
					 .key = bnxt_db64(BNXT_DBR_TYPE_SRQ, 9, 0) };
	fake_logs_start();
	return t;
}

static struct rxt *rxt_new(uint32_t ring, uint32_t hds_thresh, uint32_t prov_bufs)
{
	return rxt_new_ex(ring, hds_thresh, prov_bufs, 0);
}

static void rxt_free(struct rxt *t)
{
	zn_bnxt_rxq_destroy(&t->bp, t->q);
	assert_int_equal(fake_prov_held(t->prov), 0);
	assert_int_equal(t->prov->double_puts, 0);
	fake_prov_free(t->prov);
	fake_free(t->f);
	free(t);
	zn_log_set_sink(NULL, NULL);
}

/* ---- the device side ---------------------------------------------------- */

static uint8_t *cq_slot(struct rxt *t, uint32_t raw)
{
	return (uint8_t *)t->q->cq.va + (size_t)(raw & (t->q->cq.size - 1)) * 16;
}

/* Write a group of 16-byte records: all but the first slot's V word, then
 * that word, so the group appears at once (hw-docs/bnxt.md §14). */
static void dev_write(struct rxt *t, const uint8_t (*rec)[16], unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t r[16];

		memcpy(r, rec[i], 16);
		r[8] = (uint8_t)((r[8] & ~1u) | bnxt_cmpl_phase(t->cq_prod + i, t->q->cq.size));
		if (i == 0) {
			memcpy(cq_slot(t, t->cq_prod), r, 8);
			memcpy(cq_slot(t, t->cq_prod) + 12, r + 12, 4);
		} else {
			memcpy(cq_slot(t, t->cq_prod + i), r, 16);
		}
	}
	{
		uint8_t r[16];

		memcpy(r, rec[0], 16);
		r[8] = (uint8_t)((r[8] & ~1u) | bnxt_cmpl_phase(t->cq_prod, t->q->cq.size));
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memcpy(cq_slot(t, t->cq_prod) + 8, r + 8, 4);
	}
	t->cq_prod += n;
}

static const struct bnxt_rx_bd *rx_bd(struct rxt *t, uint32_t raw)
{
	return &((const struct bnxt_rx_bd *)t->q->rx.va)[raw & (t->q->rx.size - 1)];
}

static const struct bnxt_rx_bd *agg_bd(struct rxt *t, uint32_t raw)
{
	return &t->q->agg_bd[raw & (t->q->agg.size - 1)];
}

struct frame_opts {
	uint16_t flags;		/* extra flags_type bits (placement, RSS, error) */
	uint32_t rss_hash;
	uint32_t flags2;
	uint16_t errors;
	int opaque_delta;	/* RX opaque off by this */
	int len_override;	/* RX len, when >= 0 */
	int agg_n_override;	/* AGG count in the RX record, when >= 0 */
	int agg_opaque_delta;
	int agg_len_override;	/* len of the first AGG record, when >= 0 */
	uint8_t agg_type;	/* 0: RX_AGG */
	bool no_write;		/* do not copy data to the buffers */
};

/*
 * Deliver one frame: hdr_len bytes to the next RX buffer, then payload in
 * AGG_BUF chunks to the next AGG buffers; RX record + AGG records.
 */
static void dev_frame(struct rxt *t, const uint8_t *data, uint32_t hdr_len, uint32_t len,
		      const struct frame_opts *o)
{
	static const struct frame_opts none = { .len_override = -1, .agg_n_override = -1,
						.agg_len_override = -1 };
	uint8_t rec[2 + BNXT_RX_MAX_AGG + 2][16];
	struct bnxt_rx_pkt_cmpl *lo = (void *)rec[0];
	struct bnxt_rx_pkt_cmpl_hi *hi = (void *)rec[1];
	uint32_t pay = len - hdr_len, n = (pay + AGG_BUF - 1) / AGG_BUF;
	const struct bnxt_rx_bd *bd = rx_bd(t, t->rx_cons);

	if (!o)
		o = &none;
	memset(rec, 0, sizeof(rec));
	if (!o->no_write)
		memcpy((void *)(uintptr_t)bd->addr, data, hdr_len);
	lo->flags_type = (uint16_t)(BNXT_CMPL_TYPE_RX_L2 | o->flags |
				    (n ? BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS : 0));
	lo->len = (uint16_t)(o->len_override >= 0 ? (uint32_t)o->len_override : hdr_len);
	lo->opaque = bd->opaque + (uint32_t)o->opaque_delta;
	lo->agg_bufs_v1 = (uint8_t)((o->agg_n_override >= 0 ? (uint32_t)o->agg_n_override : n)
				    << BNXT_RX_CMPL_AGG_BUFS_SFT);
	lo->rss_hash = o->rss_hash;
	lo->payload_offset = (uint8_t)hdr_len;
	hi->flags2 = o->flags2;
	hi->errors_v2 = o->errors;
	for (uint32_t i = 0; i < n; i++) {
		struct bnxt_rx_agg_cmpl *a = (void *)rec[2 + i];
		const struct bnxt_rx_bd *ab = agg_bd(t, t->agg_cons + i);
		uint32_t chunk = pay - i * AGG_BUF < AGG_BUF ? pay - i * AGG_BUF : AGG_BUF;

		if (!o->no_write)
			memcpy((void *)(uintptr_t)ab->addr, data + hdr_len + i * AGG_BUF, chunk);
		a->type = o->agg_type ? o->agg_type : BNXT_CMPL_TYPE_RX_AGG;
		a->len = (uint16_t)(i == 0 && o->agg_len_override >= 0 ?
				    (uint32_t)o->agg_len_override : chunk);
		a->opaque = ab->opaque + (i == 0 ? (uint32_t)o->agg_opaque_delta : 0);
	}
	dev_write(t, (const uint8_t (*)[16])rec, 2 + n);
	t->rx_cons++;
	t->agg_cons += n;
}

static void fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

/* The frame as the caller sees it, reassembled from header and segments. */
static void gather(struct rxt *t, const struct zn_rx_pkt *p, uint8_t *out)
{
	uint32_t off = p->hdr_len;

	memcpy(out, p->hdr, p->hdr_len);
	for (uint32_t s = 0; s < p->nseg; s++) {
		assert_true(p->seg[s].buf_id < t->prov->count);
		assert_int_equal(t->prov->out[p->seg[s].buf_id], 1);
		/* the segment carries the buffer's address: no lookup by id */
		assert_ptr_equal(p->seg[s].va, t->prov->mem + (size_t)p->seg[s].buf_id * AGG_BUF);
		memcpy(out + off, t->prov->mem + (size_t)p->seg[s].buf_id * AGG_BUF + p->seg[s].off,
		       p->seg[s].len);
		off += p->seg[s].len;
	}
	assert_int_equal(off, p->pkt_len);
}

static void give_back(struct rxt *t, const struct zn_rx_pkt *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t s = 0; s < p[i].nseg; s++)
			t->prov->prov.put(t->prov, &p[i].seg[s].buf_id, 1);
}

/* ---- tests ------------------------------------------------------------- */

static void test_whole_frames(void **state)
{
	struct rxt *t = rxt_new(64, 0, 512);
	struct frame_opts o = { .len_override = -1, .agg_n_override = -1, .agg_len_override = -1,
				.flags = BNXT_RX_CMPL_FLAGS_RSS_VALID, .rss_hash = 0xdeadbeef,
				.flags2 = BNXT_RX_CMPL_FLAGS2_IP_CS_CALC |
					  BNXT_RX_CMPL_FLAGS2_L4_CS_CALC,
				.errors = BNXT_RX_CMPL_ERRORS_L4_CS_ERROR };
	static const uint32_t lens[3] = { 60, 100, 256 };
	uint8_t frame[3][300], got[300];
	struct zn_rx_pkt pkts[8];

	(void)state;
	for (int i = 0; i < 3; i++) {
		fill(frame[i], lens[i], (uint32_t)i);
		dev_frame(t, frame[i], lens[i], lens[i], i == 2 ? &o : NULL);
	}
	assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 8), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pkts[i].pkt_len, lens[i]);
		assert_int_equal(pkts[i].hdr_len, lens[i]);
		assert_int_equal(pkts[i].nseg, 0);
		assert_int_equal(pkts[i].queue, 3);
		gather(t, &pkts[i], got);
		assert_memory_equal(got, frame[i], lens[i]);
	}
	assert_int_equal(pkts[0].flags, 0);
	assert_int_equal(pkts[2].flags, ZN_RX_F_RSS_HASH | ZN_RX_F_L3_CSUM_OK | ZN_RX_F_L4_CSUM_BAD);
	assert_int_equal(pkts[2].rss_hash, 0xdeadbeef);
	/* One CQ doorbell with the consumer (3 x 2 slots); the RX slots of
	 * this burst are re-posted only by the next one. */
	assert_true(t->db_cq == bnxt_db64(BNXT_DBR_TYPE_CQ, 7, 6));
	assert_true(t->db_rx == 0);
	assert_true(t->db_agg == 0);
	assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 8), 0);
	assert_true(t->db_rx == bnxt_db64(BNXT_DBR_TYPE_SRQ, 8, (3 + 63) & 63));
	assert_int_equal(t->q->st.packets, 3);
	assert_int_equal(t->q->st.bytes, 60 + 100 + 256);
	assert_int_equal(t->q->st.bad_cmpl, 0);
	rxt_free(t);
}

/* Header-data split: headers in the RX buffer, payload in provider buffers
 * given to the caller; the AGG ring is refilled and rung once. */
static void test_hds_frames(void **state)
{
	struct rxt *t = rxt_new(64, 0, 512);
	static const uint32_t lens[4] = { 42 + 1000, 42 + 1024, 54 + 1400, 42 + 1458 };
	static const uint32_t hdrs[4] = { 42, 42, 54, 42 };
	uint8_t frame[4][1600], got[1600];
	struct zn_rx_pkt pkts[8];
	uint32_t held0 = fake_prov_held(t->prov);

	(void)state;
	assert_int_equal(held0, 127);
	for (int i = 0; i < 4; i++) {
		fill(frame[i], lens[i], 10u + (uint32_t)i);
		dev_frame(t, frame[i], hdrs[i], lens[i], NULL);
	}
	assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 8), 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pkts[i].hdr_len, hdrs[i]);
		assert_int_equal(pkts[i].pkt_len, lens[i]);
		assert_int_equal(pkts[i].flags & ZN_RX_F_SPLIT, ZN_RX_F_SPLIT);
		gather(t, &pkts[i], got);
		assert_memory_equal(got, frame[i], lens[i]);
	}
	assert_int_equal(pkts[2].nseg, 2);
	assert_int_equal(pkts[2].seg[1].len, 1400 - AGG_BUF);
	/* 1 + 1 + 2 + 2 AGG buffers handed out and replaced from the provider. */
	assert_int_equal(fake_prov_held(t->prov), held0 + 6);
	assert_true(t->db_agg == bnxt_db64(BNXT_DBR_TYPE_SRQ, 9, (127 + 6) & 127));
	/* Each replacement BD names a fresh buffer with its slot as opaque. */
	for (uint32_t s = 127; s < 127 + 6; s++) {
		const struct bnxt_rx_bd *b = agg_bd(t, s);

		assert_int_equal(b->flags_type, BNXT_RX_BD_TYPE_AGG);
		assert_int_equal(b->len, AGG_BUF);
		assert_int_equal(b->opaque, s & 127);
	}
	give_back(t, pkts, 4);
	rxt_free(t);
}

/* Small rings, many passes: V flips every pass and nothing is lost. */
static void test_valid_bit_wrap(void **state)
{
	struct rxt *t = rxt_new(16, 0, 256);
	uint32_t sent = 0, got_n = 0, passes;
	struct zn_rx_pkt pkts[16];
	uint8_t frame[600], out[600];

	(void)state;
	for (int round = 0; round < 60; round++) {
		uint32_t burst = 1 + (uint32_t)round % 7, r;

		for (uint32_t i = 0; i < burst; i++, sent++) {
			uint32_t len = 60 + (sent * 37) % (sent % 3 ? 196 : 500);

			fill(frame, len, sent);
			memcpy(frame, &sent, 4);
			/* Every third frame is split. */
			dev_frame(t, frame, sent % 3 ? len : 42, len, NULL);
		}
		r = zn_bnxt_rx_burst(t->q, pkts, 16);
		assert_int_equal(r, burst);
		for (uint32_t i = 0; i < r; i++, got_n++) {
			uint32_t len = 60 + (got_n * 37) % (got_n % 3 ? 196 : 500);

			fill(frame, len, got_n);
			memcpy(frame, &got_n, 4);
			gather(t, &pkts[i], out);
			assert_int_equal(pkts[i].pkt_len, len);
			assert_memory_equal(out, frame, len);
		}
		give_back(t, pkts, r);
	}
	passes = t->cq_prod / t->q->cq.size;
	assert_true(passes >= 3);
	assert_int_equal(t->q->st.packets, sent);
	assert_int_equal(t->q->st.bad_cmpl, 0);
	assert_int_equal(t->q->pos.cq_raw, t->cq_prod);
	rxt_free(t);
}

/* An RX record whose AGG records are not all written yet waits. */
static void test_incomplete_group_waits(void **state)
{
	struct rxt *t = rxt_new(64, 0, 512);
	uint8_t frame[1100];
	struct zn_rx_pkt pkts[4];
	uint8_t *last;
	uint8_t v;

	(void)state;
	fill(frame, sizeof(frame), 1);
	dev_frame(t, frame, 60, sizeof(frame), NULL);	/* RX + 2 AGG */
	last = cq_slot(t, t->cq_prod - 1) + 8;
	v = *last;
	*last ^= 1;				/* the last AGG record is "not yet" */
	assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 4), 0);
	assert_int_equal(t->q->pos.cq_raw, 0);
	*last = v;
	assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 4), 1);
	assert_int_equal(pkts[0].nseg, 2);
	give_back(t, pkts, 1);
	rxt_free(t);
}

/* One garbage case, then a good frame that must still come through. */
#define garbage_then_good(t, fn, b, e, p) do { \
		print_message("case %s\n", #fn); \
		garbage_then_good_(t, fn, b, e, p); \
	} while (0)

static void garbage_then_good_(struct rxt *t, void (*bad)(struct rxt *), uint32_t want_bad,
			       uint32_t want_errors, uint32_t want_puts)
{
	struct zn_rx_pkt pkts[8];
	uint8_t frame[1200], out[1200];
	uint32_t bad0 = (uint32_t)t->q->st.bad_cmpl, err0 = (uint32_t)t->q->st.errors;
	uint32_t puts0 = t->prov->puts, n;

	bad(t);
	fill(frame, sizeof(frame), 99);
	dev_frame(t, frame, 66, sizeof(frame), NULL);
	n = zn_bnxt_rx_burst(t->q, pkts, 8);
	assert_int_equal(n, 1);
	gather(t, &pkts[0], out);
	assert_memory_equal(out, frame, sizeof(frame));
	assert_int_equal(t->q->st.bad_cmpl - bad0, want_bad);
	assert_int_equal(t->q->st.errors - err0, want_errors);
	assert_int_equal(t->prov->puts - puts0, want_puts);
	assert_int_equal(t->q->pos.cq_raw, t->cq_prod);
	give_back(t, pkts, 1);
}

static const struct frame_opts dflt_opts = { .len_override = -1, .agg_n_override = -1,
					     .agg_len_override = -1 };

static void bad_type(struct rxt *t)
{
	uint8_t rec[1][16] = { { BNXT_CMPL_TYPE_TX_L2 } };

	dev_write(t, (const uint8_t (*)[16])rec, 1);
}

static void bad_odd_type(struct rxt *t)
{
	uint8_t rec[2][16] = { { BNXT_CMPL_TYPE_RX_TPA_START }, { 0 } };

	dev_write(t, (const uint8_t (*)[16])rec, 2);
}

static void bad_opaque(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[100] = { 0 };

	o.opaque_delta = 1;
	dev_frame(t, f, 100, 100, &o);
	t->rx_cons--;	/* the device reported a slot it did not use */
}

static void bad_len_past(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[100] = { 0 };

	o.len_override = HDR_BUF + 1;
	dev_frame(t, f, 100, 100, &o);
	t->rx_cons--;
}

static void bad_len_zero(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[100] = { 0 };

	o.len_override = 0;
	dev_frame(t, f, 100, 100, &o);
	t->rx_cons--;
}

/* N = 8 with nothing after it: only the 32-byte record is consumed. */
static void bad_agg_count(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[100] = { 0 };

	o.agg_n_override = 8;
	dev_frame(t, f, 100, 100, &o);
	t->rx_cons--;
}

/* AGG length past the buffer: the group is rejected, then its AGG record is
 * met alone and, naming the next AGG slot, recycled (the device did use it). */
static void bad_agg_len(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[600] = { 0 };

	o.agg_len_override = AGG_BUF + 1;
	dev_frame(t, f, 60, 600, &o);
	t->rx_cons--;
}

/* AGG opaque for another slot: rejected, and the lone record too; the AGG
 * slot it should have named stays posted. */
static void bad_agg_opaque(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[600] = { 0 };

	o.agg_opaque_delta = 5;
	o.no_write = true;
	dev_frame(t, f, 60, 600, &o);
	t->rx_cons--;
	t->agg_cons--;
}

static void bad_agg_type(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[600] = { 0 };

	o.agg_type = BNXT_CMPL_TYPE_STAT_EJECT;
	o.no_write = true;
	dev_frame(t, f, 60, 600, &o);
	t->rx_cons--;
	t->agg_cons--;
}

static void bad_frame_len(struct rxt *t)
{
	static uint8_t f[4000];
	struct frame_opts o = dflt_opts;

	o.no_write = true;
	dev_frame(t, f, 60, 4000, &o);		/* 4 AGG records: rejected, then recycled */
	t->rx_cons--;
}

/* A frame the device flags (CRC error): dropped, buffers back, not "bad". */
static void crc_error_frame(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[1500] = { 0 };

	o.errors = BNXT_RX_CMPL_ERRORS_CRC_ERROR;
	dev_frame(t, f, 60, 1500, &o);
}

static void flagged_error_frame(struct rxt *t)
{
	struct frame_opts o = dflt_opts;
	uint8_t f[100] = { 0 };

	o.flags = BNXT_RX_CMPL_FLAGS_ERROR;
	o.errors = BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_DID_NOT_FIT;
	dev_frame(t, f, 100, 100, &o);
}

static void hwrm_done(struct rxt *t)
{
	uint8_t rec[1][16] = { { BNXT_CMPL_TYPE_HWRM_DONE, 0, 0x34, 0x12 } };

	dev_write(t, (const uint8_t (*)[16])rec, 1);
}

static void test_garbage(void **state)
{
	struct rxt *t = rxt_new(64, 0, 512);

	(void)state;
	garbage_then_good(t, bad_type, 1, 0, 0);
	garbage_then_good(t, bad_odd_type, 1, 0, 0);
	garbage_then_good(t, bad_opaque, 1, 0, 0);
	garbage_then_good(t, bad_len_past, 1, 0, 0);
	garbage_then_good(t, bad_len_zero, 1, 0, 0);
	garbage_then_good(t, bad_agg_count, 1, 0, 0);
	garbage_then_good(t, bad_agg_len, 2, 0, 1);
	garbage_then_good(t, bad_agg_opaque, 2, 0, 0);
	garbage_then_good(t, bad_agg_type, 2, 0, 0);
	garbage_then_good(t, bad_frame_len, 1 + 4, 0, 4);
	garbage_then_good(t, crc_error_frame, 0, 1, 2);
	garbage_then_good(t, flagged_error_frame, 0, 1, 0);
	garbage_then_good(t, hwrm_done, 0, 0, 0);
	assert_int_equal(t->q->last_hwrm_done, 0x1234u | BNXT_HWRM_DONE_SEEN);
	assert_true(fake_logs_have("rxq 3: completion at slot"));
	assert_true(fake_logs_have("RX opaque is not the next posted RX slot"));
	rxt_free(t);
}

/* A whole pass of random records with correct V bits: nothing crashes, and
 * whatever is handed out is inside our buffers. */
static void test_random_garbage(void **state)
{
	struct rxt *t = rxt_new(16, 0, 256);
	struct zn_rx_pkt pkts[32];
	uint32_t seed = 12345;
	const uint8_t *hdr_lo = t->q->c.hdr_va;
	const uint8_t *hdr_hi = hdr_lo + (size_t)t->q->rx.size * HDR_BUF;

	(void)state;
	for (int pass = 0; pass < 8; pass++) {
		for (uint32_t i = 0; i < t->q->cq.size; i++) {
			uint8_t rec[1][16];

			for (int b = 0; b < 16; b++) {
				seed = seed * 1103515245u + 12345u;
				rec[0][b] = (uint8_t)(seed >> 16);
			}
			/* Bias towards the types the driver looks at. */
			if ((seed >> 8) % 3 == 0)
				rec[0][0] = (uint8_t)((rec[0][0] & 0xc0) | BNXT_CMPL_TYPE_RX_L2);
			else if ((seed >> 8) % 3 == 1)
				rec[0][0] = (uint8_t)((rec[0][0] & 0xc0) | BNXT_CMPL_TYPE_RX_AGG);
			dev_write(t, (const uint8_t (*)[16])rec, 1);
		}
		for (int k = 0; k < 64; k++) {
			uint32_t n = zn_bnxt_rx_burst(t->q, pkts, 32);

			for (uint32_t i = 0; i < n; i++) {
				assert_true(pkts[i].hdr >= hdr_lo && pkts[i].hdr < hdr_hi);
				assert_true(pkts[i].hdr_len <= HDR_BUF);
				assert_true(pkts[i].nseg <= BNXT_RX_MAX_AGG);
				for (uint32_t s = 0; s < pkts[i].nseg; s++) {
					assert_true(pkts[i].seg[s].len <= AGG_BUF);
					assert_int_equal(t->prov->out[pkts[i].seg[s].buf_id], 1);
				}
			}
			give_back(t, pkts, n);
			if (!n && t->q->pos.cq_raw == t->cq_prod)
				break;
		}
		/* The device resynchronises with the driver's positions. */
		t->cq_prod = t->q->pos.cq_raw;
		t->rx_cons = t->q->pos.rx_cons;
		t->agg_cons = t->q->pos.agg_cons;
	}
	assert_true(t->q->st.bad_cmpl > 0);
	/* And after all that, a good frame. */
	{
		uint8_t frame[700], out[700];

		fill(frame, sizeof(frame), 5);
		dev_frame(t, frame, 60, sizeof(frame), NULL);
		assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 32), 1);
		gather(t, &pkts[0], out);
		assert_memory_equal(out, frame, sizeof(frame));
		give_back(t, pkts, 1);
	}
	rxt_free(t);
}

/* The provider runs dry: AGG slots stay empty, then fill up again. */
static void test_provider_dry(void **state)
{
	struct rxt *t;
	struct zn_rx_pkt pkts[8];
	uint8_t frame[600];

	(void)state;
	t = rxt_new(16, 0, 64);
	/* 31 AGG slots posted of 32 entries; the provider has 64 buffers. */
	assert_int_equal(fake_prov_held(t->prov), 31);
	t->prov->limit = 33;		/* only two more, ever */
	for (int i = 0; i < 4; i++) {
		fill(frame, sizeof(frame), (uint32_t)i);
		dev_frame(t, frame, 60, sizeof(frame), NULL);
	}
	assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 8), 4);
	assert_int_equal(t->q->pos.agg_prod - t->q->pos.agg_cons, 31 - 4 + 2);
	assert_int_equal(t->q->st.nobuf, 1);
	give_back(t, pkts, 4);
	t->prov->limit = 0;
	assert_int_equal(zn_bnxt_rx_burst(t->q, pkts, 8), 0);
	assert_int_equal(t->q->pos.agg_prod - t->q->pos.agg_cons, 31);
	rxt_free(t);
}

/* The parse function the fuzzer uses agrees with the burst. */
static void test_parse_function(void **state)
{
	struct rxt *t = rxt_new(64, 0, 512);
	struct bnxt_cmpl_res res;
	struct zn_rx_pkt pkt;
	uint8_t frame[1500];

	(void)state;
	fill(frame, sizeof(frame), 3);
	dev_frame(t, frame, 54, sizeof(frame), NULL);
	assert_int_equal(zn_bnxt_cmpl_parse(&t->q->c, &t->q->pos, &pkt, &res), 4);
	assert_int_equal(res.kind, BNXT_CK_PKT);
	assert_int_equal(res.nagg, 2);
	assert_int_equal(pkt.pkt_len, 1500);
	assert_string_equal(zn_bnxt_cmpl_bad_name(BNXT_BAD_AGG_COUNT),
			    "AGG count above 7 or above the posted AGG buffers");
	assert_int_equal(zn_bnxt_rx_burst(t->q, &pkt, 1), 1);
	give_back(t, &pkt, 1);
	rxt_free(t);
}

/* ---- TPA (hw-docs/bnxt.md §9.4) ------------------------------------------ */

static void tpa_start(struct rxt *t, uint32_t id, const uint8_t *hdr, uint32_t hlen)
{
	uint8_t rec[2][16] = { { 0 } };
	struct bnxt_rx_tpa_start_cmpl *s = (void *)rec[0];
	struct bnxt_rx_tpa_start_cmpl_hi *h = (void *)rec[1];
	const struct bnxt_rx_bd *bd = rx_bd(t, t->rx_cons);

	memcpy((void *)(uintptr_t)bd->addr, hdr, hlen);
	s->flags_type = BNXT_CMPL_TYPE_RX_TPA_START | BNXT_RX_CMPL_FLAGS_PLACEMENT_GRO_HDS |
			BNXT_RX_CMPL_FLAGS_RSS_VALID;
	s->len = (uint16_t)hlen;
	s->opaque = bd->opaque;
	s->misc_v1 = id << BNXT_RX_TPA_AGG_ID_SFT_P5;
	s->rss_hash = 0x1234;
	h->flags2 = BNXT_RX_CMPL_FLAGS2_IP_CS_CALC | BNXT_RX_CMPL_FLAGS2_L4_CS_CALC;
	dev_write(t, (const uint8_t (*)[16])rec, 2);
	t->rx_cons++;
}

/* A TPA_AGG record for the AGG buffer at raw ring index `raw`, in any order. */
static void tpa_agg_at(struct rxt *t, uint32_t id, uint32_t raw, const uint8_t *data,
		       uint32_t len)
{
	uint8_t rec[1][16] = { { 0 } };
	struct bnxt_rx_agg_cmpl *a = (void *)rec[0];
	const struct bnxt_rx_bd *ab = agg_bd(t, raw);

	memcpy((void *)(uintptr_t)ab->addr, data, len);
	a->type = BNXT_CMPL_TYPE_RX_TPA_AGG;
	a->len = (uint16_t)len;
	a->opaque = ab->opaque;
	a->v = id << BNXT_RX_TPA_AGG_ID_SFT_P5;
	dev_write(t, (const uint8_t (*)[16])rec, 1);
}

static void tpa_agg(struct rxt *t, uint32_t id, const uint8_t *data, uint32_t len)
{
	uint8_t rec[1][16] = { { 0 } };
	struct bnxt_rx_agg_cmpl *a = (void *)rec[0];
	const struct bnxt_rx_bd *ab = agg_bd(t, t->agg_cons);

	memcpy((void *)(uintptr_t)ab->addr, data, len);
	a->type = BNXT_CMPL_TYPE_RX_TPA_AGG;
	a->len = (uint16_t)len;
	a->opaque = ab->opaque;
	a->v = id << BNXT_RX_TPA_AGG_ID_SFT_P5;
	dev_write(t, (const uint8_t (*)[16])rec, 1);
	t->agg_cons++;
}

static void tpa_end(struct rxt *t, uint32_t id, uint32_t segs, uint32_t nagg, uint32_t seg_len)
{
	uint8_t rec[2][16] = { { 0 } };
	struct bnxt_rx_tpa_end_cmpl *e = (void *)rec[0];
	struct bnxt_rx_tpa_end_cmpl_hi *h = (void *)rec[1];

	e->flags_type = BNXT_CMPL_TYPE_RX_TPA_END;
	e->misc_v1 = id << BNXT_RX_TPA_AGG_ID_SFT_P5 | segs << BNXT_RX_TPA_END_SEGS_SFT;
	h->dup_acks = nagg << BNXT_RX_TPA_END_AGG_BUFS_SFT_P5;
	h->seg_len = seg_len;
	dev_write(t, (const uint8_t (*)[16])rec, 2);
}

/* Ethernet + IPv4 + TCP of the first frame, 1000 payload bytes. */
static void tpa_hdr(uint8_t *h)
{
	memset(h, 0, 54);
	h[12] = 0x08;
	h[14] = 0x45;
	h[16] = 0x04, h[17] = 0x10;	/* 1040 */
	h[22] = 64, h[23] = 6;
	h[26] = 10, h[29] = 1, h[30] = 10, h[33] = 2;
	h[46] = 0x50, h[47] = 0x10;
}

static void test_tpa(void **state)
{
	struct rxt *t = rxt_new_ex(64, 0, 512, ZN_RX_OFFLOAD_TCP_AGG);
	uint8_t hdr[54], pay[3000], out[4000];
	struct zn_rx_pkt p[4];
	uint32_t s = 0;

	(void)state;
	/* 1024-byte buffers hold one 1460-byte payload in two: 4 frames fit 8 */
	assert_int_equal(t->q->tpa_segs, 4);
	tpa_hdr(hdr);
	fill(pay, sizeof(pay), 9);
	tpa_start(t, 3, hdr, 54);
	tpa_agg(t, 3, pay, 1000);
	tpa_agg(t, 3, pay + 1000, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);	/* not ended yet */
	tpa_end(t, 3, 2, 2, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 1);
	assert_int_equal(p[0].flags, ZN_RX_F_AGG | ZN_RX_F_L3_CSUM_OK | ZN_RX_F_L4_CSUM_OK |
			 ZN_RX_F_SPLIT | ZN_RX_F_RSS_HASH);
	assert_int_equal(p[0].agg_segs, 2);
	assert_int_equal(p[0].gso_size, 1000);
	assert_int_equal(p[0].nseg, 2);
	assert_int_equal(p[0].hdr_len, 54);
	assert_int_equal(p[0].pkt_len, 2054);
	assert_int_equal(p[0].rss_hash, 0x1234);
	/* the IP length covers the aggregate, and its checksum is right */
	assert_int_equal(p[0].hdr[16] << 8 | p[0].hdr[17], 2040);
	for (uint32_t i = 14; i < 34; i += 2)
		s += (uint32_t)p[0].hdr[i] << 8 | p[0].hdr[i + 1];
	s = (s & 0xffff) + (s >> 16);
	assert_int_equal((s & 0xffff) + (s >> 16), 0xffff);
	gather(t, &p[0], out);
	assert_memory_equal(out + 54, pay, 2000);
	give_back(t, p, 1);
	assert_int_equal(t->q->st.agg, 1);

	/* an END whose AGG count is not what came: dropped, buffers back */
	tpa_start(t, 5, hdr, 54);
	tpa_agg(t, 5, pay, 1000);
	tpa_agg(t, 5, pay, 1000);
	tpa_end(t, 5, 2, 1, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	assert_int_equal(t->q->st.errors, 1);
	/* an AGG for an aggregation not open: bad, its buffer back */
	tpa_agg(t, 7, pay, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	assert_int_equal(t->q->st.bad_cmpl, 1);
	/* the same agg_id again, and an ordinary frame after it */
	tpa_start(t, 3, hdr, 54);
	tpa_agg(t, 3, pay, 1000);
	tpa_end(t, 3, 1, 1, 1000);
	dev_frame(t, pay, 54, 300, NULL);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 2);
	assert_true(p[0].flags & ZN_RX_F_AGG);
	assert_false(p[1].flags & ZN_RX_F_AGG);
	assert_int_equal(p[1].pkt_len, 300);
	give_back(t, p, 2);
	/* one left open at teardown: its buffers go back (rxt_free checks) */
	tpa_start(t, 9, hdr, 54);
	tpa_agg(t, 9, pay, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	rxt_free(t);
}

/*
 * Two aggregations open at once, each filling the AGG buffer it took before
 * reporting it: their TPA_AGG records name slots out of ring order
 * (hw-docs/bnxt.md §9.4). Every byte arrives, every buffer comes back, and
 * a slot not posted or completed twice is still refused.
 */
static void test_tpa_agg_out_of_order(void **state)
{
	struct rxt *t = rxt_new_ex(64, 0, 512, ZN_RX_OFFLOAD_TCP_AGG);
	uint8_t hdr[54], pa[2000], pb[2000], out[4000];
	struct zn_rx_pkt p[4];
	const uint32_t base = t->agg_cons;
	uint32_t posted;

	(void)state;
	tpa_hdr(hdr);
	fill(pa, sizeof(pa), 21);
	fill(pb, sizeof(pb), 22);
	tpa_start(t, 1, hdr, 54);		/* A takes slots base, base + 2 */
	tpa_start(t, 2, hdr, 54);		/* B takes slots base + 1, base + 3 */
	tpa_agg_at(t, 2, base + 1, pb, 1000);
	tpa_agg_at(t, 1, base + 2, pa, 1000);	/* A's second buffer fills first */
	tpa_agg_at(t, 1, base, pa + 1000, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	/* base + 1 and base + 2 wait for base: now all three are behind cons */
	assert_int_equal(t->q->pos.agg_cons, base + 3);
	posted = t->q->pos.agg_prod - t->q->pos.agg_cons;
	tpa_agg_at(t, 2, base + 3, pb + 1000, 1000);
	tpa_end(t, 1, 2, 2, 1000);
	tpa_end(t, 2, 2, 2, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 2);
	assert_int_equal(t->q->st.bad_cmpl, 0);
	assert_int_equal(t->q->st.agg, 2);
	assert_int_equal(p[0].nseg, 2);
	assert_int_equal(p[1].nseg, 2);
	assert_int_equal(p[0].pkt_len, 2054);
	assert_int_equal(p[1].pkt_len, 2054);
	gather(t, &p[0], out);			/* A: its buffers in completion order */
	assert_memory_equal(out + 54, pa, 2000);
	gather(t, &p[1], out);
	assert_memory_equal(out + 54, pb, 2000);
	give_back(t, p, 2);
	/* the four slots were reposted: the ring is as full as before */
	assert_int_equal(t->q->pos.agg_cons, base + 4);
	assert_int_equal(t->q->pos.agg_prod - t->q->pos.agg_cons, posted);

	/* C completes base + 5 ahead of base + 4 */
	tpa_start(t, 3, hdr, 54);
	tpa_agg_at(t, 3, base + 5, pa, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	assert_int_equal(t->q->pos.agg_cons, base + 4);
	assert_true(zn_bnxt_agg_done(t->q, base + 5));
	/* base + 5 again: completed already */
	tpa_agg_at(t, 3, base + 5, pa, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	assert_int_equal(t->q->st.bad_cmpl, 1);
	/* the producer's slot, the one the full ring leaves empty: not posted */
	tpa_agg_at(t, 3, t->q->pos.agg_prod, pa, 1000);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	assert_int_equal(t->q->st.bad_cmpl, 2);
	assert_int_equal(t->q->pos.agg_cons, base + 4);
	/* a plain frame takes base + 4 (it may not take base + 5): the gap
	 * closes and the consumer steps over base + 5 */
	t->agg_cons = base + 4;
	fill(out, 1000, 23);
	dev_frame(t, out, 54, 1000, NULL);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 1);
	assert_int_equal(p[0].pkt_len, 1000);
	assert_int_equal(p[0].nseg, 1);
	assert_int_equal(t->q->pos.agg_cons, base + 6);
	assert_false(zn_bnxt_agg_done(t->q, base + 5));
	give_back(t, p, 1);
	/* C still open at teardown, base + 7 completed ahead of base + 6:
	 * rxt_free checks that every buffer comes back exactly once */
	tpa_agg_at(t, 3, base + 7, pa, 1000);
	t->agg_cons = base + 8;
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 0);
	assert_true(zn_bnxt_agg_done(t->q, base + 7));
	/* a plain frame past the gap too: base + 8, base + 6 still out */
	fill(pb, 1000, 24);
	dev_frame(t, pb, 54, 1000, NULL);
	assert_int_equal(zn_bnxt_rx_burst(t->q, p, 4), 1);
	assert_int_equal(p[0].nseg, 1);
	gather(t, &p[0], out);
	assert_memory_equal(out, pb, 1000);
	assert_int_equal(t->q->pos.agg_cons, base + 6);
	assert_true(zn_bnxt_agg_done(t->q, base + 8));
	assert_int_equal(t->q->st.bad_cmpl, 2);
	give_back(t, p, 1);
	rxt_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_frames),
		cmocka_unit_test(test_hds_frames),
		cmocka_unit_test(test_valid_bit_wrap),
		cmocka_unit_test(test_incomplete_group_waits),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_random_garbage),
		cmocka_unit_test(test_provider_dry),
		cmocka_unit_test(test_parse_function),
		cmocka_unit_test(test_tpa),
		cmocka_unit_test(test_tpa_agg_out_of_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
