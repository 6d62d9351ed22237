/*
 * drivers/bnxt TX burst and reap: the BDs built for 1..4 segments (and the
 * pad BD of a short frame), one doorbell per burst, ring full, invalid
 * frames, cookies back in order, and completion validation (hw-docs/bnxt.md
 * §8). The doorbell is the trapped kind here so that every write is counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bnxt_fake.h"

#define DB_OFF	0x10000

struct txt {
	struct fake_fw *f;
	struct bnxt bp;
	struct bnxt_txq *q;
	uint32_t cq_prod;	/* the device's completion producer */
};

static struct txt *txt_new(uint32_t ring)
{
	struct txt *t = calloc(1, sizeof(*t));
	struct zn_txq_conf tc = { .ring_size = ring, .numa_node = -1 };

	t->f = fake_new(false);
	t->bp.bus = &t->f->dev;
	snprintf(t->bp.name, sizeof(t->bp.name), "bnxt tx-test");
	assert_int_equal(zn_bnxt_txq_create(&t->bp, 1, &tc, &t->q), 0);
	t->q->max_frame = 9000 + BNXT_L2_OVERHEAD;
	zn_bnxt_txq_prepare(t->q);
	t->q->sq_db = (struct bnxt_db){ .bus = &t->f->dev, .bar_off = DB_OFF,
					.key = bnxt_db64(BNXT_DBR_TYPE_SQ, 0x21, 0) };
	t->q->cq_db = (struct bnxt_db){ .bus = &t->f->dev, .bar_off = DB_OFF + 0x1000,
					.key = bnxt_db64(BNXT_DBR_TYPE_CQ, 0x22, 0) };
	fake_logs_start();
	return t;
}

static void txt_free(struct txt *t)
{
	zn_bnxt_txq_destroy(&t->bp, t->q);
	fake_free(t->f);
	free(t);
	zn_log_set_sink(NULL, NULL);
}

static uint64_t db_val(struct txt *t, uint64_t off)
{
	uint64_t v;

	memcpy(&v, t->f->bar2 + off, 8);
	return v;
}

static const struct bnxt_tx_bd *bd_at(struct txt *t, uint32_t raw)
{
	return &t->q->bd[raw & t->q->mask];
}

/* The device completes a frame: a TX record naming its first slot. */
static void dev_cmpl(struct txt *t, uint32_t opaque, uint16_t flags, uint16_t errors)
{
	struct bnxt_tx_cmpl *c = (void *)((uint8_t *)t->q->cq_ring.va +
					  (size_t)(t->cq_prod & (t->q->cq_size - 1)) * 16);

	c->flags_type = (uint16_t)(BNXT_CMPL_TYPE_TX_L2 | flags);
	c->opaque = opaque;
	c->sq_cons_idx = 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->errors_v = (uint16_t)(errors | bnxt_cmpl_phase(t->cq_prod, t->q->cq_size));
	t->cq_prod++;
}

static void dev_raw(struct txt *t, uint16_t type)
{
	struct bnxt_cmpl_base *c = (void *)((uint8_t *)t->q->cq_ring.va +
					    (size_t)(t->cq_prod & (t->q->cq_size - 1)) * 16);

	memset(c, 0, 16);
	c->type = type;
	c->info3_v = bnxt_cmpl_phase(t->cq_prod, t->q->cq_size);
	t->cq_prod++;
}

static void frame(struct zn_tx_pkt *p, uint32_t nseg, uint32_t len_each, uint64_t cookie)
{
	memset(p, 0, sizeof(*p));
	p->nseg = nseg;
	for (uint32_t s = 0; s < nseg; s++) {
		p->seg[s].iova = 0x100000ull * (cookie + 1) + 0x1000ull * s;
		p->seg[s].len = len_each;
	}
	p->cookie = cookie;
}

/* 1..4 segments: BD_CNT, LHINT, PACKET_END, NO_CMPL, lengths, addresses. */
static void test_bds_one_to_four_segments(void **state)
{
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p[4];
	uint32_t raw = 0;

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		frame(&p[i], i + 1, 200, i);
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 4), 4);
	for (uint32_t i = 0; i < 4; i++) {
		uint32_t nbd = i + 1, total = 200 * nbd;
		const struct bnxt_tx_bd *b = bd_at(t, raw);
		uint16_t want = (uint16_t)(BNXT_TX_BD_TYPE_SHORT | bnxt_tx_bd_cnt(nbd) |
					   bnxt_tx_lhint(total) |
					   (i < 3 ? BNXT_TX_BD_FLAGS_NO_CMPL : 0) |
					   (nbd == 1 ? BNXT_TX_BD_FLAGS_PACKET_END : 0));

		assert_int_equal(b->flags_type, want);
		assert_int_equal(b->opaque, raw);
		for (uint32_t s = 0; s < nbd; s++) {
			b = bd_at(t, raw + s);
			assert_int_equal(b->len, 200);
			assert_true(b->addr == p[i].seg[s].iova);
			if (s > 0)
				assert_int_equal(b->flags_type,
						 s == nbd - 1 ? BNXT_TX_BD_FLAGS_PACKET_END : 0);
		}
		raw += nbd;
	}
	/* One doorbell for the burst, with the new producer. */
	assert_int_equal(t->f->bar2_writes, 1);
	assert_true(db_val(t, DB_OFF) == bnxt_db64(BNXT_DBR_TYPE_SQ, 0x21, 10));
	assert_int_equal(t->q->st.packets, 4);
	assert_int_equal(t->q->st.bytes, 200 * (1 + 2 + 3 + 4));
	txt_free(t);
}

static void test_length_hints_and_padding(void **state)
{
	static const struct { uint32_t len; uint16_t hint; } h[] = {
		{ 60, BNXT_TX_BD_FLAGS_LHINT_LT512 }, { 511, BNXT_TX_BD_FLAGS_LHINT_LT512 },
		{ 512, BNXT_TX_BD_FLAGS_LHINT_LT1K }, { 1023, BNXT_TX_BD_FLAGS_LHINT_LT1K },
		{ 1024, BNXT_TX_BD_FLAGS_LHINT_LT2K }, { 2047, BNXT_TX_BD_FLAGS_LHINT_LT2K },
		{ 2048, BNXT_TX_BD_FLAGS_LHINT_GTE2K }, { 9018, BNXT_TX_BD_FLAGS_LHINT_GTE2K },
	};
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p;
	uint32_t raw = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		frame(&p, 1, h[i].len, i);
		assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 1);
		assert_int_equal(bd_at(t, raw)->flags_type & BNXT_TX_BD_FLAGS_LHINT_MASK, h[i].hint);
		raw++;
	}
	/* 40 bytes in two segments: a third BD of 12 zero bytes pads to 52. */
	frame(&p, 2, 20, 77);
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 1);
	assert_int_equal(bd_at(t, raw)->flags_type,
			 BNXT_TX_BD_TYPE_SHORT | bnxt_tx_bd_cnt(3) | BNXT_TX_BD_FLAGS_LHINT_LT512);
	assert_int_equal(bd_at(t, raw + 1)->flags_type, 0);
	assert_int_equal(bd_at(t, raw + 2)->flags_type, BNXT_TX_BD_FLAGS_PACKET_END);
	assert_int_equal(bd_at(t, raw + 2)->len, 12);
	assert_true(bd_at(t, raw + 2)->addr == t->q->pad_iova);
	assert_int_equal(t->q->st.bytes - (60 + 511 + 512 + 1023 + 1024 + 2047 + 2048 + 9018), 40);
	txt_free(t);
}

/* Invalid frames stop the burst where they are; nothing of them is posted. */
static void test_invalid_frames(void **state)
{
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p[3];

	(void)state;
	frame(&p[0], 1, 100, 0);
	frame(&p[1], 0, 100, 1);			/* no segment */
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 2), 1);
	frame(&p[1], 4, 100, 1);
	p[1].nseg = 5;					/* too many */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p[1], 1), 0);
	frame(&p[1], 2, 100, 1);
	p[1].seg[1].len = 0;				/* empty segment */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p[1], 1), 0);
	frame(&p[1], 2, 5000, 1);			/* 10000 > 9018 */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p[1], 1), 0);
	assert_int_equal(t->q->st.errors, 4);
	assert_int_equal(t->q->prod, 1);
	assert_int_equal(t->f->bar2_writes, 1);		/* only the first burst rang */
	assert_true(fake_logs_have("txq 1: frame"));
	txt_free(t);
}

/* Ring full: at most size - 1 slots in flight; the rest is refused. */
static void test_ring_full(void **state)
{
	struct txt *t = txt_new(16);
	struct zn_tx_pkt p[10];
	uint64_t cookies[16];

	(void)state;
	for (uint32_t i = 0; i < 10; i++)
		frame(&p[i], 2, 100, i);
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 10), 7);	/* 14 of 15 slots */
	assert_int_equal(t->q->st.full, 1);
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p[7], 3), 0);
	assert_int_equal(t->q->st.full, 2);
	/* Completed but not reaped: still no room. */
	dev_cmpl(t, 12, 0, 0);
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p[7], 3), 0);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 16), 7);
	for (uint32_t i = 0; i < 7; i++)
		assert_true(cookies[i] == i);
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p[7], 3), 3);
	txt_free(t);
}

/* Many bursts over many passes; cookies come back in order, in pieces. */
static void test_reap_in_order(void **state)
{
	struct txt *t = txt_new(32);
	uint64_t next_cookie = 0, want = 0, cookies[8];
	struct zn_tx_pkt p[5];

	(void)state;
	for (int round = 0; round < 100; round++) {
		uint32_t n = 1 + (uint32_t)round % 5, start = t->q->prod, sent, got;

		for (uint32_t i = 0; i < n; i++)
			frame(&p[i], 1 + (uint32_t)(next_cookie + i) % 4, 64, next_cookie + i);
		sent = zn_bnxt_tx_burst(t->q, p, n);
		assert_int_equal(sent, n);
		next_cookie += sent;
		/* The device completes the burst's last frame only. */
		{
			uint32_t last = start;

			for (uint32_t i = 0; i + 1 < sent; i++)
				last += p[i].nseg;
			assert_int_equal(bd_at(t, last)->flags_type & BNXT_TX_BD_FLAGS_NO_CMPL, 0);
			dev_cmpl(t, last, 0, 0);
		}
		/* Reap in small pieces. */
		do {
			got = zn_bnxt_tx_reap(t->q, cookies, 3);
			for (uint32_t i = 0; i < got; i++)
				assert_true(cookies[i] == want++);
		} while (got);
	}
	assert_true(want == next_cookie);
	assert_true(t->q->prod > 4 * 32);
	assert_int_equal(t->q->st.bad_cmpl, 0);
	/* One CQ doorbell per reap that consumed something: the last one. */
	assert_true(db_val(t, DB_OFF + 0x1000) ==
		    bnxt_db64(BNXT_DBR_TYPE_CQ, 0x22, t->cq_prod & (t->q->cq_size - 1)));
	txt_free(t);
}

static void test_bad_completions(void **state)
{
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p[4];
	uint64_t cookies[8];

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		frame(&p[i], 2, 100, 10 + i);
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 4), 4);	/* slots 0,2,4,6; cmpl on 6 */
	dev_cmpl(t, 40, 0, 0);			/* not in flight */
	dev_cmpl(t, 2, 0, 0);			/* a frame sent with NO_CMPL */
	dev_cmpl(t, 3, 0, 0);			/* not a frame start either */
	dev_raw(t, BNXT_CMPL_TYPE_RX_AGG);	/* an RX record on a TX ring */
	dev_raw(t, BNXT_CMPL_TYPE_HWRM_DONE);	/* fine */
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 0);
	assert_int_equal(t->q->st.bad_cmpl, 4);
	assert_true(t->q->last_hwrm_done & BNXT_HWRM_DONE_SEEN);
	assert_true(fake_logs_have("opaque names no frame in flight"));
	assert_true(fake_logs_have("completion for a frame sent without one"));
	/* An error completion may name a NO_CMPL frame (slot 2): 10 and 11 done. */
	dev_cmpl(t, 2, BNXT_TX_CMPL_FLAGS_ERROR, BNXT_TX_CMPL_ERRORS_DMA_ERROR);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 2);
	assert_true(cookies[0] == 10 && cookies[1] == 11);
	assert_int_equal(t->q->st.errors, 1);
	/* An error completion for the middle of a frame is garbage. */
	dev_cmpl(t, 5, BNXT_TX_CMPL_FLAGS_ERROR, BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 0);
	assert_int_equal(t->q->st.bad_cmpl, 5);
	dev_cmpl(t, 6, 0, 0);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 2);
	assert_true(cookies[0] == 12 && cookies[1] == 13);
	txt_free(t);
}

/* After stop the device is done with everything: reap returns the rest. */
static void test_reap_after_stop(void **state)
{
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p[3];
	uint64_t cookies[8];

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		frame(&p[i], 1, 100, 5 + i);
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 3), 3);
	t->q->done = t->q->prod;		/* what txq_stop does */
	memset(&t->q->cq_db, 0, sizeof(t->q->cq_db));
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 3);
	assert_true(cookies[0] == 5 && cookies[2] == 7);
	txt_free(t);
}

/* A recovery stops and starts the queue before anything was reaped: the
 * frames the reset took come back first, in order (their senders are
 * answered), 2 at a time here; then the new ring's frames as usual. */
static void test_reap_after_restart(void **state)
{
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p[3];
	uint64_t cookies[8];

	(void)state;
	frame(&p[0], 1, 100, 5);
	frame(&p[1], 3, 100, 6);	/* more than one slot */
	frame(&p[2], 1, 100, 7);
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 3), 3);
	t->q->done = t->q->prod;		/* what txq_stop does */
	zn_bnxt_txq_prepare(t->q);		/* what txq_start does */
	assert_int_equal(t->q->prod, 0);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 2), 2);
	assert_true(cookies[0] == 5 && cookies[1] == 6);
	frame(&p[0], 1, 100, 9);
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 1), 1);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 1);
	assert_true(cookies[0] == 7);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 0);	/* 9: not completed */
	dev_cmpl(t, 0, 0, 0);
	assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 8), 1);
	assert_true(cookies[0] == 9);
	txt_free(t);
}

static const struct bnxt_tx_bd_long_hi *hi_at(struct txt *t, uint32_t raw)
{
	return (const void *)bd_at(t, raw);
}

/*
 * Offloads: a checksum frame is a long BD (one extra slot) with lflags; an
 * LSO frame carries the header size in 2-byte units and the MSS, and its
 * length hint is that of one cut frame; a short checksum frame still gets
 * its pad BD after the buffers.
 */
static void test_offload_bds(void **state)
{
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p[3];
	const struct bnxt_tx_bd *b;

	(void)state;
	frame(&p[0], 2, 300, 0);
	p[0].flags = ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM;
	p[0].l2_len = 14, p[0].l3_len = 20, p[0].l4_len = 8;
	frame(&p[1], 3, 20000, 1);			/* 66 header bytes + 59934 */
	p[1].seg[0].len = 66;
	p[1].flags = ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM | ZN_TX_F_LSO;
	p[1].l2_len = 14, p[1].l3_len = 20, p[1].l4_len = 32, p[1].mss = 1448;
	frame(&p[2], 1, 42, 2);				/* a bare UDP header: padded */
	p[2].flags = ZN_TX_F_L4_CSUM;
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 3), 3);

	b = bd_at(t, 0);
	assert_int_equal(b->flags_type, BNXT_TX_BD_TYPE_LONG | bnxt_tx_bd_cnt(3) |
			 bnxt_tx_lhint(600) | BNXT_TX_BD_FLAGS_NO_CMPL);
	assert_int_equal(b->len, 300);
	assert_true(b->addr == p[0].seg[0].iova);
	assert_int_equal(hi_at(t, 1)->lflags,
			 BNXT_TX_BD_LFLAGS_IP_CHKSUM | BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM);
	assert_int_equal(hi_at(t, 1)->hdr_size, 0);
	assert_int_equal(hi_at(t, 1)->mss, 0);
	assert_int_equal(bd_at(t, 2)->flags_type, BNXT_TX_BD_FLAGS_PACKET_END);
	assert_true(bd_at(t, 2)->addr == p[0].seg[1].iova);

	b = bd_at(t, 3);
	assert_int_equal(b->flags_type, BNXT_TX_BD_TYPE_LONG | bnxt_tx_bd_cnt(4) |
			 BNXT_TX_BD_FLAGS_LHINT_LT2K | BNXT_TX_BD_FLAGS_NO_CMPL);
	assert_int_equal(b->opaque, 3);
	assert_int_equal(hi_at(t, 4)->lflags, BNXT_TX_BD_LFLAGS_IP_CHKSUM |
			 BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM | BNXT_TX_BD_LFLAGS_LSO);
	assert_int_equal(hi_at(t, 4)->hdr_size, 33);
	assert_int_equal(hi_at(t, 4)->mss, 1448);
	assert_int_equal(bd_at(t, 5)->len, 20000);
	assert_int_equal(bd_at(t, 5)->flags_type, 0);
	assert_int_equal(bd_at(t, 6)->flags_type, BNXT_TX_BD_FLAGS_PACKET_END);

	b = bd_at(t, 7);				/* long + buffer + pad, asks the completion */
	assert_int_equal(b->flags_type, BNXT_TX_BD_TYPE_LONG | bnxt_tx_bd_cnt(3) |
			 BNXT_TX_BD_FLAGS_LHINT_LT512);
	assert_int_equal(hi_at(t, 8)->lflags, BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM);
	assert_int_equal(bd_at(t, 9)->flags_type, BNXT_TX_BD_FLAGS_PACKET_END);
	assert_int_equal(bd_at(t, 9)->len, BNXT_TX_MIN_PKT_LEN - 42);
	assert_int_equal(t->q->prod, 10);
	assert_int_equal(t->q->st.bytes, 600 + 40066 + 42);

	/* One buffer, no pad: PACKET_END on the first BD, past the long_hi slot. */
	frame(&p[0], 1, 54, 3);
	p[0].flags = ZN_TX_F_L4_CSUM;
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 1), 1);
	assert_int_equal(bd_at(t, 10)->flags_type, BNXT_TX_BD_TYPE_LONG | bnxt_tx_bd_cnt(2) |
			 BNXT_TX_BD_FLAGS_LHINT_LT512 | BNXT_TX_BD_FLAGS_PACKET_END);
	assert_int_equal(hi_at(t, 11)->lflags, BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM);
	/* One completion covers the first burst's three, cookies in order. */
	{
		uint64_t cookies[4];

		dev_cmpl(t, 7, 0, 0);
		assert_int_equal(zn_bnxt_tx_reap(t->q, cookies, 4), 3);
		assert_true(cookies[0] == 0 && cookies[1] == 1 && cookies[2] == 2);
	}
	/* Header and payload with the L4 checksum (UDP, TCP without LSO), the
	 * burst's inline case: the same three BDs as any checksum frame. */
	frame(&p[0], 2, 300, 4);
	p[0].seg[0].len = 42;
	p[0].flags = ZN_TX_F_L4_CSUM;
	assert_int_equal(zn_bnxt_tx_burst(t->q, p, 1), 1);
	b = bd_at(t, 12);
	assert_int_equal(b->flags_type, BNXT_TX_BD_TYPE_LONG | bnxt_tx_bd_cnt(3) |
			 BNXT_TX_BD_FLAGS_LHINT_LT512);
	assert_int_equal(b->len, 42);
	assert_int_equal(b->opaque, 12);
	assert_true(b->addr == p[0].seg[0].iova);
	assert_int_equal(hi_at(t, 13)->lflags, BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM);
	assert_int_equal(hi_at(t, 13)->hdr_size, 0);
	assert_int_equal(hi_at(t, 13)->mss, 0);
	assert_int_equal(bd_at(t, 14)->flags_type, BNXT_TX_BD_FLAGS_PACKET_END);
	assert_int_equal(bd_at(t, 14)->len, 300);
	assert_true(bd_at(t, 14)->addr == p[0].seg[1].iova);
	assert_int_equal(t->q->prod, 15);
	txt_free(t);
}

/* Offload frames the device cannot do, or whose lengths do not add up. */
static void test_offload_refused(void **state)
{
	struct txt *t = txt_new(64);
	struct zn_tx_pkt p;

	(void)state;
	frame(&p, 1, 100, 0);
	p.flags = 1u << 3;				/* no such offload */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 0);
	frame(&p, 2, 9000, 0);
	p.seg[0].len = 66;
	p.flags = ZN_TX_F_LSO;
	p.l2_len = 14, p.l3_len = 20, p.l4_len = 32, p.mss = 0;	/* no MSS */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 0);
	p.mss = 9000;					/* a cut frame past the MTU */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 0);
	p.mss = 1448, p.l4_len = 33;			/* odd header length */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 0);
	p.l4_len = 60;					/* headers past the first buffer */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 0);
	p.l4_len = 32;
	p.seg[1].len = BNXT_TX_LSO_MAX;			/* more than 64 KiB in all */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 0);
	p.seg[1].len = 9000;
	p.flags = 0;					/* 9066 bytes without LSO: too long */
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 0);
	assert_int_equal(t->q->st.errors, 7);
	assert_int_equal(t->q->prod, 0);
	p.flags = ZN_TX_F_LSO;
	assert_int_equal(zn_bnxt_tx_burst(t->q, &p, 1), 1);
	assert_int_equal(t->q->prod, 3);
	txt_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bds_one_to_four_segments),
		cmocka_unit_test(test_length_hints_and_padding),
		cmocka_unit_test(test_invalid_frames),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_reap_in_order),
		cmocka_unit_test(test_bad_completions),
		cmocka_unit_test(test_reap_after_stop),
		cmocka_unit_test(test_reap_after_restart),
		cmocka_unit_test(test_offload_bds),
		cmocka_unit_test(test_offload_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
