/*
 * drivers/mlx5: send WQEs byte by byte (hw-docs/mlx5.md §14.2: control,
 * Ethernet segment with inline headers, data segments, wrap at the ring
 * end), the burst's doorbell (dbrec then the UAR BlueFlame register,
 * alternating 0x800/0x900), reaping in order from crafted CQEs, ring full,
 * and an error CQE stopping the queue.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mlx5_fake.h"

#define RING	16
#define SQN	0x123
#define LKEY	0xabc00
#define TX_TEST_MAX_BB	4	/* ctrl, eth, 5 inline DSs, 4 data DSs: 11 DSs */

struct ctx {
	struct fake_mlx5 *f;
	struct mlx5 *m;
	struct mlx5_txq *txq;
	struct zn_dma_region *buf;
	uint32_t pi;
};

static int setup_mode(void **state, uint8_t inline_mode)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct zn_txq_conf conf = { .ring_size = RING };

	c->f = fake_new();
	c->m = calloc(1, sizeof(*c->m));
	c->m->bus = &c->f->dev;
	snprintf(c->m->name, sizeof(c->m->name), "mlx5 test");
	c->m->caps.log_max_wq_sz = 16;
	c->m->caps.wqe_inline_mode = inline_mode;
	c->m->lkey = LKEY;
	c->m->uar = (struct mlx5_uar){ .index = 1, .bar_off = 0x1000, .bus = &c->f->dev };
	assert_int_equal(zn_mlx5_txq_create(c->m, 0, &conf, &c->txq), 0);
	c->txq->sqn = SQN;
	assert_int_equal(zn_dma_region_alloc("tx-test", 8192, -1, ZN_DMA_NO_HUGE, &c->buf), 0);
	for (uint32_t i = 0; i < 8192; i++)
		((uint8_t *)c->buf->va)[i] = (uint8_t)(i * 3 + 1);
	*state = c;
	return 0;
}

static int setup(void **state)
{
	return setup_mode(state, ZN_MLX5_CAP_INLINE_MODE_NOT_REQUIRED);
}

static int setup_l2(void **state)
{
	return setup_mode(state, ZN_MLX5_CAP_INLINE_MODE_L2);
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	zn_mlx5_txq_destroy(c->m, c->txq);
	zn_dma_region_free(c->buf);
	free(c->m);
	free(c->f);
	free(c);
	return 0;
}

static void be32(uint8_t *p, uint32_t v) { zn_mlx5_st_be32(p, v); }
static void be64(uint8_t *p, uint64_t v) { zn_mlx5_st_be64(p, v); }

/* One segment, nothing inline: ctrl + eth + one data segment, one WQEBB. */
static void test_wqe_plain(void **state)
{
	uint8_t ring[RING * 64], want[64] = { 0 };
	struct zn_tx_pkt p = { .nseg = 1, .seg = { { 0x1000020, 60 } }, .cookie = 7 };

	(void)state;
	memset(ring, 0xee, sizeof(ring));
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 5, SQN, LKEY, 0, NULL, &p, true), 1);
	be32(want + 0, 5u << 8 | ZN_MLX5_OPCODE_SEND);
	be32(want + 4, SQN << 8 | 3);
	want[11] = ZN_MLX5_WQE_CTRL_CQ_UPDATE;
	be32(want + 32, 60);
	be32(want + 36, LKEY);
	be64(want + 40, 0x1000020);
	assert_memory_equal(ring + 5 * 64, want, 64);
	/* Neighbours untouched. */
	for (int i = 0; i < 64; i++) {
		assert_int_equal(ring[4 * 64 + i], 0xee);
		assert_int_equal(ring[6 * 64 + i], 0xee);
	}
	/* Without a CQE request the mode bits are 0; the index wraps at 16 bits. */
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0x10003, SQN, LKEY, 0, NULL, &p, false), 1);
	be32(want + 0, 3u << 8 | ZN_MLX5_OPCODE_SEND);
	want[11] = 0;
	assert_memory_equal(ring + 3 * 64, want, 64);
}

/* 18 inline bytes (L2 mode) from a 100-byte first segment, then two data
 * segments; the WQE starts in the last slot and wraps to slot 0. */
static void test_wqe_inline_wrap(void **state)
{
	uint8_t ring[RING * 64], want[128] = { 0 }, hdr[100];
	struct zn_tx_pkt p = { .nseg = 2, .seg = { { 0x2000000, 100 }, { 0x3000000, 200 } } };

	(void)state;
	for (int i = 0; i < 100; i++)
		hdr[i] = (uint8_t)(0x40 + i);
	memset(ring, 0xee, sizeof(ring));
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, RING - 1, SQN, LKEY, 18, hdr, &p, true), 2);
	be32(want + 0, (RING - 1) << 8 | ZN_MLX5_OPCODE_SEND);
	be32(want + 4, SQN << 8 | 5);		/* ctrl, eth, 1 inline DS, 2 data */
	want[11] = ZN_MLX5_WQE_CTRL_CQ_UPDATE;
	want[16 + 12] = 0;
	want[16 + 13] = 18;			/* inline_hdr_sz, BE16 */
	memcpy(want + 30, hdr, 18);		/* 2 in the segment, 16 in the next DS */
	be32(want + 48, 82);
	be32(want + 52, LKEY);
	be64(want + 56, 0x2000000 + 18);
	be32(want + 64, 200);
	be32(want + 68, LKEY);
	be64(want + 72, 0x3000000);
	assert_memory_equal(ring + (RING - 1) * 64, want, 64);
	assert_memory_equal(ring, want + 64, 64);
	/* A first segment no longer than the inline part needs no data segment. */
	p.seg[0].len = 14;
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 2, SQN, LKEY, 18, hdr, &p, false), 1);
	assert_int_equal(zn_mlx5_ld_be32(ring + 2 * 64 + 4), SQN << 8 | 4);
	assert_int_equal(zn_mlx5_ld_be16(ring + 2 * 64 + 28), 14);
}

static void test_wqe_refused(void **state)
{
	uint8_t ring[RING * 64];
	struct zn_tx_pkt p = { .nseg = 0 };

	(void)state;
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 0, NULL, &p, true), 0);
	p.nseg = ZN_TX_MAX_SEGS + 1;
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 0, NULL, &p, true), 0);
	p.nseg = 1;
	p.seg[0].len = 0;
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 0, NULL, &p, true), 0);
	p.seg[0].len = 60;	/* inline needed, no bytes to inline from */
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 18, NULL, &p, true), 0);
}

static void tx_cqe(struct ctx *c, uint8_t opcode, uint16_t wqe_counter)
{
	struct mlx5_txq *t = c->txq;
	struct zn_mlx5_cqe64 *q = &t->cq.cqe[c->pi & ((1u << t->cq.log_sz) - 1)];

	memset(q, 0, sizeof(*q));
	q->wqe_counter_be = zn_mlx5_bswap16(wqe_counter);
	q->op_own = (uint8_t)(opcode << 4 | zn_mlx5_cqe_hw_owner(c->pi, t->cq.log_sz));
	c->pi++;
}

/* A burst: one dbrec update and one UAR write, CQE asked only by the last WQE. */
static void test_burst_doorbell_reap(void **state)
{
	struct ctx *c = *state;
	struct mlx5_txq *t = c->txq;
	struct zn_tx_pkt p[3];
	uint64_t cookies[8];

	for (int i = 0; i < 3; i++)
		p[i] = (struct zn_tx_pkt){ .nseg = 1, .seg = { { c->buf->iova + 100 * i, 60 } },
					   .cookie = 100 + i };
	assert_int_equal(zn_mlx5_tx_burst(t, p, 3), 3);
	assert_int_equal(zn_mlx5_bswap32(t->sq_dbr[ZN_MLX5_SND_DBR]), 3);
	assert_int_equal(t->wq[0 * 64 + 11], 0);
	assert_int_equal(t->wq[1 * 64 + 11], 0);
	assert_int_equal(t->wq[2 * 64 + 11], ZN_MLX5_WQE_CTRL_CQ_UPDATE);
	/* The UAR register got the last WQE's first 8 bytes. */
	assert_memory_equal(c->f->bar0 + 0x1000 + ZN_MLX5_UAR_BF_OFFSET, t->wq + 2 * 64, 8);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 8), 0);
	/* The next burst's doorbell goes to the other BlueFlame buffer. */
	assert_int_equal(zn_mlx5_tx_burst(t, p, 1), 1);
	assert_memory_equal(c->f->bar0 + 0x1000 + ZN_MLX5_UAR_BF_ALT_OFFSET, t->wq + 3 * 64, 8);
	/* One CQE for WQE 2 completes 0..2, in order. */
	tx_cqe(c, ZN_MLX5_CQE_REQ, 2);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 8), 3);
	assert_int_equal(cookies[0], 100);
	assert_int_equal(cookies[1], 101);
	assert_int_equal(cookies[2], 102);
	assert_int_equal(zn_mlx5_bswap32(t->cq.dbr[0]), 1);
	/* A CQE naming a WQE not in flight, or a non-REQ opcode, is refused. */
	tx_cqe(c, ZN_MLX5_CQE_REQ, 9);
	tx_cqe(c, ZN_MLX5_CQE_RESP_SEND, 3);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 8), 0);
	assert_int_equal(t->st.bad_cmpl, 2);
	tx_cqe(c, ZN_MLX5_CQE_REQ, 3);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 8), 1);
	assert_int_equal(cookies[0], 100);
	assert_int_equal(t->st.packets, 4);
	assert_int_equal(t->st.bytes, 240);
}

/* The ring fills: what does not fit is refused and counted; reaping frees it. */
static void test_ring_full(void **state)
{
	struct ctx *c = *state;
	struct mlx5_txq *t = c->txq;
	struct zn_tx_pkt p[20];
	uint64_t cookies[20];

	for (int i = 0; i < 20; i++)
		p[i] = (struct zn_tx_pkt){ .nseg = 1, .seg = { { c->buf->iova, 64 } }, .cookie = i };
	/* Room is kept for the largest WQE (3 WQEBBs): 14 of 16 slots. */
	assert_int_equal(zn_mlx5_tx_burst(t, p, 20), 14);
	assert_int_equal(t->st.full, 6);
	assert_int_equal(t->wq[13 * 64 + 11], ZN_MLX5_WQE_CTRL_CQ_UPDATE);
	assert_int_equal(zn_mlx5_tx_burst(t, p, 1), 0);
	tx_cqe(c, ZN_MLX5_CQE_REQ, 13);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 20), 14);
	for (int i = 0; i < 14; i++)
		assert_int_equal(cookies[i], i);
	assert_int_equal(zn_mlx5_tx_burst(t, p, 2), 2);
}

/* An error CQE: counted, its WQEs done, and the queue sends nothing more. */
static void test_error_cqe(void **state)
{
	struct ctx *c = *state;
	struct mlx5_txq *t = c->txq;
	struct zn_tx_pkt p = { .nseg = 1, .seg = { { 0x5000, 64 } }, .cookie = 1 };
	uint64_t cookies[4];

	c->txq->min_inline = 0;
	assert_int_equal(zn_mlx5_tx_burst(t, &p, 1), 1);
	tx_cqe(c, ZN_MLX5_CQE_REQ_ERR, 0);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 4), 1);
	assert_int_equal(t->st.errors, 1);
	assert_true(t->err);
	assert_int_equal(zn_mlx5_tx_burst(t, &p, 1), 0);
}

/* A reset took the queue (mlx5_recover.c): the unreaped cookies come back
 * first, in order, those not completed counted as errors; the reset queue
 * sends again from WQE 0 and its cookies follow; a second reset before the
 * app reaped keeps the older ones first. */
static void test_flush_after_reset(void **state)
{
	struct ctx *c = *state;
	struct mlx5_txq *t = c->txq;
	struct zn_tx_pkt p[6];
	uint64_t cookies[16];

	for (int i = 0; i < 6; i++)
		p[i] = (struct zn_tx_pkt){ .nseg = 1, .seg = { { c->buf->iova, 64 } },
					   .cookie = 10 + i };
	assert_int_equal(zn_mlx5_tx_burst(t, p, 3), 3);	/* WQEs 0..2 */
	tx_cqe(c, ZN_MLX5_CQE_REQ, 2);
	assert_int_equal(zn_mlx5_tx_burst(t, p + 3, 2), 2);	/* 3..4 in flight */
	zn_mlx5_txq_flush(t);
	assert_int_equal(t->st.errors, 2);			/* 13, 14: never completed */
	zn_mlx5_txq_reset(t);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 2), 2);
	assert_int_equal(cookies[0], 10);
	assert_int_equal(cookies[1], 11);
	/* the reset queue: WQE 0 again, its dbrec counter from 0 */
	assert_int_equal(zn_mlx5_tx_burst(t, p + 5, 1), 1);
	assert_int_equal(zn_mlx5_bswap32(t->sq_dbr[ZN_MLX5_SND_DBR]), 1);
	/* a second reset before the rest was reaped */
	zn_mlx5_txq_flush(t);
	zn_mlx5_txq_reset(t);
	assert_int_equal(t->st.errors, 3);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 16), 4);
	assert_int_equal(cookies[0], 12);
	assert_int_equal(cookies[1], 13);
	assert_int_equal(cookies[2], 14);
	assert_int_equal(cookies[3], 15);
	assert_int_equal(zn_mlx5_tx_reap(t, cookies, 16), 0);
	assert_int_equal(t->nflushed, 0);
}

/* L2 inline mode: 18 bytes copied from the frame's first segment. */
static void test_burst_inline_l2(void **state)
{
	struct ctx *c = *state;
	struct mlx5_txq *t = c->txq;
	struct zn_tx_pkt p = { .nseg = 1, .seg = { { c->buf->iova + 64, 60 } } };

	assert_int_equal(t->min_inline, 18);
	assert_int_equal(zn_mlx5_tx_burst(t, &p, 1), 1);
	assert_int_equal(zn_mlx5_ld_be16(t->wq + 28), 18);
	assert_memory_equal(t->wq + 30, (uint8_t *)c->buf->va + 64, 18);
	assert_int_equal(zn_mlx5_ld_be32(t->wq + 48), 42);
	assert_int_equal(zn_mlx5_ld_be64(t->wq + 56), c->buf->iova + 64 + 18);
}

/* The bytes a send WQE at WQEBB pi describes, as the device gathers them. */
static uint32_t wqe_gather(const struct mlx5_txq *t, uint32_t pi, uint8_t *out)
{
	uint8_t w[TX_TEST_MAX_BB * 64];
	uint32_t ds, inl, n = 0;

	for (uint32_t b = 0; b < TX_TEST_MAX_BB; b++)
		memcpy(w + 64 * b, t->wq + (size_t)((pi + b) & t->mask) * 64, 64);
	ds = zn_mlx5_ld_be32(w + 4) & 0x3f;
	inl = zn_mlx5_ld_be16(w + 28);
	memcpy(out, w + 30, inl);
	n = inl;
	for (uint32_t d = 2 + (inl > 2 ? (inl - 2 + 15) / 16 : 0); d < ds; d++) {
		uint32_t len = zn_mlx5_ld_be32(w + 16 * d);

		assert_int_equal(zn_mlx5_ld_be32(w + 16 * d + 4), LKEY);
		memcpy(out + n, (const void *)(uintptr_t)zn_mlx5_ld_be64(w + 16 * d + 8), len);
		n += len;
	}
	return n;
}

/*
 * Frames of 60..9000 bytes as zcnic's upper layers hand them over: a
 * header piece and the payload in buffers of up to 4 KiB (so up to 4
 * segments). The WQE gathers exactly the frame's bytes, every one checked,
 * with and without inline headers, across the ring's end.
 */
static void tx_multiseg(struct ctx *c)
{
	static const uint32_t sizes[] = { 60, 1500, 4096, 4097, 8000, 9000 };
	struct mlx5_txq *t = c->txq;
	struct zn_dma_region *big;
	static uint8_t got[9216];
	uint64_t cookies[4];

	assert_int_equal(zn_dma_region_alloc("tx-big", 16384, -1, ZN_DMA_NO_HUGE, &big), 0);
	for (uint32_t i = 0; i < 16384; i++)
		((uint8_t *)big->va)[i] = (uint8_t)(i * 13 + 5);
	for (uint32_t round = 0; round < 3; round++)
		for (uint32_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			uint32_t len = sizes[k], hl = 42, pi = t->prod, off = 0;
			struct zn_tx_pkt p = { .cookie = k };
			const uint8_t *src = big->va;

			/* header at offset 0, payload pieces from 8 KiB on (separate memory) */
			p.seg[p.nseg++] = (typeof(p.seg[0])){ big->iova, hl };
			for (uint32_t o = hl; o < len; o += 4096) {
				uint32_t n = len - o < 4096 ? len - o : 4096;

				p.seg[p.nseg++] = (typeof(p.seg[0])){ big->iova + 4096 + o, n };
			}
			assert_true(p.nseg <= ZN_TX_MAX_SEGS);
			assert_int_equal(zn_mlx5_tx_burst(t, &p, 1), 1);
			assert_int_equal(wqe_gather(t, pi, got), len);
			assert_memory_equal(got, src, hl);
			for (uint32_t s = 1; s < p.nseg; s++) {
				assert_memory_equal(got + hl + off, src + 4096 + hl + off,
						    p.seg[s].len);
				off += p.seg[s].len;
			}
			assert_int_equal(hl + off, len);
			tx_cqe(c, ZN_MLX5_CQE_REQ, (uint16_t)pi);
			assert_int_equal(zn_mlx5_tx_reap(t, cookies, 4), 1);
			assert_int_equal(cookies[0], k);
		}
	assert_int_equal(t->st.packets, 18);
	assert_int_equal(t->st.bad_cmpl, 0);
	zn_dma_region_free(big);
}

static void test_multiseg_frames(void **state)
{
	tx_multiseg(*state);
}

static void test_multiseg_frames_inline(void **state)
{
	struct ctx *c = *state;

	assert_int_equal(c->txq->min_inline, 18);
	tx_multiseg(c);
}

/*
 * Offloads (hw-docs/mlx5.md §14.2): checksums are cs_flags in the Ethernet
 * segment; LSO is opcode LSO with the MSS there and every header byte
 * inline (66 here: Ethernet, IPv4, TCP with timestamps), the payload by
 * reference.
 */
static void test_wqe_offloads(void **state)
{
	uint8_t ring[RING * 64], want[128] = { 0 }, hdr[66];
	struct zn_tx_pkt p = { .nseg = 1, .seg = { { 0x1000020, 60 } },
			       .flags = ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM,
			       .l2_len = 14, .l3_len = 20, .l4_len = 8 };

	(void)state;
	for (int i = 0; i < 66; i++)
		hdr[i] = (uint8_t)(0x80 + i);
	memset(ring, 0xee, sizeof(ring));
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 1, SQN, LKEY, 0, NULL, &p, true), 1);
	be32(want + 0, 1u << 8 | ZN_MLX5_OPCODE_SEND);
	be32(want + 4, SQN << 8 | 3);
	want[11] = ZN_MLX5_WQE_CTRL_CQ_UPDATE;
	want[16 + 4] = ZN_MLX5_ETH_WQE_L3_CSUM | ZN_MLX5_ETH_WQE_L4_CSUM;
	be32(want + 32, 60);
	be32(want + 36, LKEY);
	be64(want + 40, 0x1000020);
	assert_memory_equal(ring + 64, want, 64);
	p.flags = ZN_TX_F_L4_CSUM;			/* UDP: the L4 sum alone */
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 1, SQN, LKEY, 0, NULL, &p, true), 1);
	assert_int_equal(ring[64 + 16 + 4], ZN_MLX5_ETH_WQE_L4_CSUM);

	p = (struct zn_tx_pkt){ .nseg = 2, .seg = { { 0x2000000, 66 }, { 0x3000000, 20000 } },
				.flags = ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM | ZN_TX_F_LSO,
				.l2_len = 14, .l3_len = 20, .l4_len = 32, .mss = 1448 };
	memset(want, 0, sizeof(want));
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 4, SQN, LKEY, 66, hdr, &p, true), 2);
	be32(want + 0, 4u << 8 | ZN_MLX5_OPCODE_LSO);
	be32(want + 4, SQN << 8 | 7);		/* ctrl, eth, 4 inline DSs, 1 data */
	want[11] = ZN_MLX5_WQE_CTRL_CQ_UPDATE;
	want[16 + 4] = ZN_MLX5_ETH_WQE_L3_CSUM | ZN_MLX5_ETH_WQE_L4_CSUM;
	want[16 + 6] = 1448 >> 8;
	want[16 + 7] = 1448 & 0xff;
	want[16 + 13] = 66;			/* inline_hdr_sz */
	memcpy(want + 30, hdr, 66);
	be32(want + 96, 20000);
	be32(want + 100, LKEY);
	be64(want + 104, 0x3000000);
	assert_memory_equal(ring + 4 * 64, want, 128);

	/* refused: an unknown flag, no MSS, headers past the first segment */
	p.flags = 1u << 3;
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 66, hdr, &p, true), 0);
	p.flags = ZN_TX_F_LSO;
	p.mss = 0;
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 66, hdr, &p, true), 0);
	p.mss = 1448;
	p.l4_len = 60;
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 66, hdr, &p, true), 0);
	p.l4_len = 32;
	p.seg[1].len = 70000;			/* past 64 KiB */
	assert_int_equal(zn_mlx5_tx_build(ring, RING - 1, 0, SQN, LKEY, 66, hdr, &p, true), 0);
}

/* A queue on a device without csum_cap refuses every offload flag. */
static void test_burst_offload_refused(void **state)
{
	struct ctx *c = *state;
	struct zn_tx_pkt p = { .nseg = 1, .seg = { { c->buf->iova, 64 } },
			       .flags = ZN_TX_F_L4_CSUM };

	assert_int_equal(c->txq->offloads, 0);
	assert_int_equal(zn_mlx5_tx_burst(c->txq, &p, 1), 0);
	assert_int_equal(c->txq->st.errors, 1);
	p.flags = 0;
	assert_int_equal(zn_mlx5_tx_burst(c->txq, &p, 1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wqe_plain),
		cmocka_unit_test(test_wqe_inline_wrap),
		cmocka_unit_test(test_wqe_refused),
		cmocka_unit_test(test_wqe_offloads),
		cmocka_unit_test_setup_teardown(test_burst_offload_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst_doorbell_reap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_cqe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_after_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst_inline_l2, setup_l2, teardown),
		cmocka_unit_test_setup_teardown(test_multiseg_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiseg_frames_inline, setup_l2, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
