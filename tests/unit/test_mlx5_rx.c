/*
 * drivers/mlx5: the SHAMPO striding RQ's data path (hw-docs/mlx5.md §12)
 * with the device played by the test: WQEs posted as the device reads
 * them, split frames (header entry + payload segment, bytes intact),
 * whole small frames, filler CQEs, reposting one burst later, and every
 * kind of crafted CQE the validation must refuse (counted, never used).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mlx5_fake.h"

#define RING		16
#define BUF		4096
#define STRIDE		64		/* 4096 / 64 = 64 strides (ext range) */
#define NSTRIDES	(BUF / STRIDE)
#define HDR_ENTRY	256

struct ctx {
	struct fake_mlx5 *f;
	struct mlx5 *m;
	struct fake_prov *fp;
	struct mlx5_rxq *rxq;
	uint32_t pi;		/* device CQ producer */
	uint32_t hdr_ctr;	/* device header counter */
};

/* A queue of the fake device with these RX offloads. */
static int setup_offloads(void **state, uint32_t offloads)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct zn_rxq_conf conf = { .ring_size = RING, .hdr_buf_size = HDR_ENTRY,
				    .offloads = offloads };

	c->f = fake_new();
	c->m = calloc(1, sizeof(*c->m));
	c->m->bus = &c->f->dev;
	snprintf(c->m->name, sizeof(c->m->name), "mlx5 test");
	c->m->caps = (struct mlx5_caps){
		.log_max_cq_sz = 22, .log_max_wq_sz = 16, .log_max_rqt_size = 10,
		.log_min_stride = 6, .log_max_stride = 13, .striding_rq = true,
		.ext_stride_num_range = true, .shampo = true, .shampo_log_min_res = 12,
		.shampo_log_max_res = 20, .shampo_max_log_hdr_entry = 10,
		.csum_cap = offloads != 0,
	};
	c->m->lkey = 0x00abcd00;
	c->fp = fake_prov_new(64, BUF);
	conf.payload = &c->fp->prov;
	assert_int_equal(zn_mlx5_rxq_create(c->m, 3, &conf, &c->rxq), 0);
	fake_logs_start();
	*state = c;
	return 0;
}

static int setup(void **state)
{
	return setup_offloads(state, 0);
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	zn_mlx5_rxq_destroy(c->m, c->rxq);
	fake_prov_free(c->fp);
	free(c->m);
	free(c->f);
	free(c);
	zn_log_set_sink(NULL, NULL);
	return 0;
}

/* The device writes a CQE: body first, op_own with the producer's owner bit last. */
static struct zn_mlx5_cqe64 *cqe_next(struct ctx *c)
{
	struct mlx5_rxq *r = c->rxq;
	struct zn_mlx5_cqe64 *q = &r->cq.cqe[c->pi & ((1u << r->cq.log_sz) - 1)];

	memset(q, 0, sizeof(*q));
	return q;
}

static void cqe_publish(struct ctx *c, struct zn_mlx5_cqe64 *q, uint8_t opcode)
{
	q->op_own = (uint8_t)(opcode << 4 | zn_mlx5_cqe_hw_owner(c->pi, c->rxq->cq.log_sz));
	c->pi++;
}

/* A received frame: headers (hlen) to the next header entry, payload at stride s of WQE w. */
static struct zn_mlx5_cqe64 *rx_frame(struct ctx *c, uint32_t w, uint32_t s, const uint8_t *frame,
				      uint32_t hlen, uint32_t len)
{
	struct mlx5_rxq *r = c->rxq;
	struct zn_mlx5_cqe64 *q = cqe_next(c);
	uint32_t h = c->hdr_ctr++ & r->c.hdr_mask;
	uint32_t strides = len - hlen ? (len - hlen + STRIDE - 1) / STRIDE : 1;

	memcpy(r->hdr + (size_t)h * HDR_ENTRY, frame, hlen);
	memcpy(r->sw[w].va + s * STRIDE, frame + hlen, len - hlen);
	q->wqe_id_be = zn_mlx5_bswap16((uint16_t)w);
	q->shampo.header_size = (uint8_t)hlen;
	q->shampo.header_entry_index_be = zn_mlx5_bswap16((uint16_t)h);
	q->shampo.data_offset_be = zn_mlx5_bswap32(s * STRIDE);
	q->byte_cnt_be = zn_mlx5_bswap32(strides << 16 | len);
	q->wqe_counter_be = zn_mlx5_bswap16((uint16_t)s);
	q->rss_hash_result_be = zn_mlx5_bswap32(0xdeadbeef);
	q->rss_hash_type = ZN_MLX5_CQE_RSS_IPV4 << 2 | ZN_MLX5_CQE_RSS_L4_UDP << 6;
	q->hds_ip_ext = ZN_MLX5_CQE_L2_OK | ZN_MLX5_CQE_L3_OK | ZN_MLX5_CQE_L4_OK;
	q->l4_l3_hdr_type = ZN_MLX5_CQE_L4_UDP << 4 | ZN_MLX5_CQE_L3_IPV4 << 2;
	return q;
}

static void filler(struct ctx *c, uint32_t w, uint32_t s)
{
	struct zn_mlx5_cqe64 *q = cqe_next(c);

	q->wqe_id_be = zn_mlx5_bswap16((uint16_t)w);
	q->byte_cnt_be = zn_mlx5_bswap32(ZN_MLX5_MPWRQ_FILLER_CQE | (NSTRIDES - s) << 16);
	q->wqe_counter_be = zn_mlx5_bswap16((uint16_t)s);
	cqe_publish(c, q, ZN_MLX5_CQE_RESP_SEND);
}

static void make_frame(uint8_t *f, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		f[i] = (uint8_t)(seed + i * 31);
}

/* §12.2: WQEs as the device reads them, the counter in the dbrec. */
static void test_posted_wqes(void **state)
{
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;

	assert_int_equal(r->c.strides, NSTRIDES);
	assert_int_equal(r->c.log_stride, 6);
	assert_int_equal(r->c.hdr_entry, HDR_ENTRY);
	assert_int_equal(r->cq.log_sz, 5);
	assert_int_equal(zn_mlx5_rxq_refill(r), RING);
	assert_int_equal(zn_mlx5_bswap32(r->rq_dbr[0]), RING);
	assert_int_equal(fake_prov_held(c->fp), RING);
	for (uint32_t i = 0; i < RING; i++) {
		assert_int_equal(zn_mlx5_bswap16(r->wq[i].next.next_wqe_index_be), (i + 1) % RING);
		assert_int_equal(zn_mlx5_bswap32(r->wq[i].data.byte_count_be), BUF);
		assert_int_equal(zn_mlx5_bswap32(r->wq[i].data.lkey_be), 0x00abcd00);
		assert_int_equal(zn_mlx5_bswap64(r->wq[i].data.addr_be),
				 (uint64_t)(uintptr_t)r->sw[i].va);
	}
	/* Nothing more to post while the ring is full. */
	assert_int_equal(zn_mlx5_rxq_refill(r), 0);
}

/* A split frame: headers in the entry, the payload a segment at stride 0. */
static void test_split_frame(void **state)
{
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t frame[1042];
	struct zn_rx_pkt pkt[4];
	uint32_t id0;

	zn_mlx5_rxq_refill(r);
	id0 = r->sw[0].buf_id;
	make_frame(frame, sizeof(frame), 1);
	cqe_publish(c, rx_frame(c, 0, 0, frame, 42, sizeof(frame)), ZN_MLX5_CQE_RESP_SEND);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 4), 1);
	assert_int_equal(pkt[0].hdr_len, 42);
	assert_ptr_equal(pkt[0].hdr, r->hdr);
	assert_memory_equal(pkt[0].hdr, frame, 42);
	assert_int_equal(pkt[0].nseg, 1);
	assert_int_equal(pkt[0].seg[0].buf_id, id0);
	assert_int_equal(pkt[0].seg[0].off, 0);
	assert_int_equal(pkt[0].seg[0].len, 1000);
	assert_memory_equal(c->fp->mem + (size_t)id0 * BUF, frame + 42, 1000);
	assert_int_equal(pkt[0].pkt_len, sizeof(frame));
	assert_int_equal(pkt[0].queue, 3);
	assert_int_equal(pkt[0].rss_hash, 0xdeadbeef);
	assert_int_equal(pkt[0].flags, ZN_RX_F_RSS_HASH | ZN_RX_F_L3_CSUM_OK | ZN_RX_F_L4_CSUM_OK |
			 ZN_RX_F_SPLIT);
	assert_int_equal(zn_mlx5_bswap32(r->cq.dbr[0]), 1);
	/* WQE 0 is the device's until its filler: nothing to repost. */
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 0), 0);
	assert_int_equal(zn_mlx5_bswap32(r->rq_dbr[0]), RING);

	/* The next frame: a filler for WQE 0's 48 strides left, then WQE 1. */
	filler(c, 0, 16);
	cqe_publish(c, rx_frame(c, 1, 0, frame, 42, 500), ZN_MLX5_CQE_RESP_SEND);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 4), 1);
	assert_ptr_equal(pkt[0].hdr, r->hdr + HDR_ENTRY);
	assert_int_equal(pkt[0].seg[0].len, 458);
	/* WQE 0 came back: reposted with a fresh buffer at the next burst only. */
	assert_int_equal(zn_mlx5_bswap32(r->rq_dbr[0]), RING);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 0), 0);
	assert_int_equal(zn_mlx5_bswap32(r->rq_dbr[0]), RING + 1);
	assert_int_not_equal(r->sw[0].buf_id, id0);
	assert_int_equal(r->st.packets, 2);
	assert_int_equal(r->st.bytes, sizeof(frame) + 500);
	assert_int_equal(r->st.bad_cmpl, 0);
	/* Out of the provider: the 16 posted (WQE 1's is also the caller's now) and
	 * the first frame's. */
	assert_int_equal(fake_prov_held(c->fp), RING + 1);
}

/* A frame below hds_thresh lands whole in the entry; its buffer is reused. */
static void test_small_frame_whole(void **state)
{
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t frame[60];
	struct zn_rx_pkt pkt[2];
	uint32_t id0;

	r->hds_thresh = 128;
	zn_mlx5_rxq_refill(r);
	id0 = r->sw[0].buf_id;
	make_frame(frame, sizeof(frame), 9);
	cqe_publish(c, rx_frame(c, 0, 0, frame, 42, sizeof(frame)), ZN_MLX5_CQE_RESP_SEND);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 2), 1);
	assert_int_equal(pkt[0].nseg, 0);
	assert_int_equal(pkt[0].hdr_len, 60);
	assert_int_equal(pkt[0].pkt_len, 60);
	assert_memory_equal(pkt[0].hdr, frame, 60);
	/* An unsplit frame (no headers recognised) lands whole too. */
	filler(c, 0, 1);
	cqe_publish(c, rx_frame(c, 1, 0, frame, 0, 60), ZN_MLX5_CQE_RESP_SEND);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 2), 1);
	assert_int_equal(pkt[0].nseg, 0);
	assert_int_equal(pkt[0].hdr_len, 60);
	assert_memory_equal(pkt[0].hdr, frame, 60);
	zn_mlx5_rx_burst(r, pkt, 0);
	/* WQE 0 was reposted with the same buffer: nothing left the ring. */
	assert_int_equal(r->sw[0].buf_id, id0);
	assert_int_equal(fake_prov_held(c->fp), RING);
	assert_int_equal(zn_mlx5_bswap32(r->rq_dbr[0]), RING + 1);
}

/* Crafted CQEs the device must not get away with: each counted, none used. */
static void test_bad_cqes(void **state)
{
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t frame[300];
	struct zn_rx_pkt pkt[16];
	struct zn_mlx5_cqe64 *q;
	unsigned bad = 0;

	zn_mlx5_rxq_refill(r);
	make_frame(frame, sizeof(frame), 3);
	/* wrong WQE */
	q = rx_frame(c, 1, 0, frame, 42, 300); cqe_publish(c, q, 2); bad++;
	/* WQE id out of the ring */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->wqe_id_be = zn_mlx5_bswap16(RING); cqe_publish(c, q, 2); bad++;
	/* stride index not where the WQE is */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->wqe_counter_be = zn_mlx5_bswap16(5); cqe_publish(c, q, 2); bad++;
	/* no strides */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->byte_cnt_be = zn_mlx5_bswap32(300); cqe_publish(c, q, 2); bad++;
	/* more strides than the WQE has */
	q = rx_frame(c, 0, 0, frame, 42, 300);
	q->byte_cnt_be = zn_mlx5_bswap32((NSTRIDES + 1) << 16 | 300); cqe_publish(c, q, 2); bad++;
	/* header longer than the entry */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->byte_cnt_be = zn_mlx5_bswap32(5u << 16 | 300);
	q->shampo.header_size = 255; c->rxq->c.hdr_entry = 128; cqe_publish(c, q, 2); bad++;
	/* header longer than the frame */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->byte_cnt_be = zn_mlx5_bswap32(1u << 16 | 30);
	cqe_publish(c, q, 2); bad++;
	/* payload placed elsewhere than its stride */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->shampo.data_offset_be = zn_mlx5_bswap32(64);
	cqe_publish(c, q, 2); bad++;
	/* payload larger than its strides */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->byte_cnt_be = zn_mlx5_bswap32(1u << 16 | 300);
	cqe_publish(c, q, 2); bad++;
	/* compressed format */
	q = rx_frame(c, 0, 0, frame, 42, 300); cqe_publish(c, q, 2); q->op_own |= 3 << 2; bad++;
	/* a send completion on an RQ */
	q = rx_frame(c, 0, 0, frame, 42, 300); cqe_publish(c, q, ZN_MLX5_CQE_REQ); bad++;
	/* a HW-GRO continuation on a queue without HW-GRO */
	q = rx_frame(c, 0, 0, frame, 42, 300); q->shampo.flags = ZN_MLX5_CQE_SHAMPO_MATCH;
	cqe_publish(c, q, 2); bad++;
	/* and a valid one after all that */
	q = rx_frame(c, 0, 0, frame, 42, 300); cqe_publish(c, q, 2);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 16), 1);
	assert_int_equal(pkt[0].hdr_len, 42);
	assert_int_equal(r->st.bad_cmpl, bad);
	assert_int_equal(r->st.packets, 1);
	/* An error CQE is an error, not a packet. */
	q = cqe_next(c);
	((struct zn_mlx5_err_cqe *)q)->syndrome = ZN_MLX5_CQE_SYND_LOCAL_PROT_ERR;
	cqe_publish(c, q, ZN_MLX5_CQE_RESP_ERR);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 16), 0);
	assert_int_equal(r->st.errors, 1);
	/* A CQE whose owner bit is last pass's is not read. */
	q = rx_frame(c, 0, 5, frame, 42, 300);
	q->op_own = (uint8_t)(2 << 4 | !zn_mlx5_cqe_hw_owner(c->pi, r->cq.log_sz));
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 16), 0);
	assert_int_equal(r->st.bad_cmpl, bad);
}

/* A second payload into a buffer the caller already holds is refused. */
static void test_second_payload_refused(void **state)
{
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t frame[200];
	struct zn_rx_pkt pkt[4];

	zn_mlx5_rxq_refill(r);
	make_frame(frame, sizeof(frame), 7);
	cqe_publish(c, rx_frame(c, 0, 0, frame, 42, 200), 2);
	cqe_publish(c, rx_frame(c, 0, 3, frame, 42, 200), 2);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 4), 1);
	assert_int_equal(r->st.bad_cmpl, 1);
}

/* Parse: the fuzzer's entry point keeps every number inside the queue. */
static void test_parse_bounds(void **state)
{
	const struct mlx5_rx_ctx rc = { .wq_mask = 15, .strides = 64, .log_stride = 6,
					.buf_size = 4096, .hdr_mask = 15, .hdr_entry = 256 };
	const struct mlx5_rx_pos pos = { .done = 20, .posted = 36, .strides_used = 0 };
	struct zn_mlx5_cqe64 q;
	struct mlx5_rx_cqe_info info;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.op_own = 2 << 4;
	q.wqe_id_be = zn_mlx5_bswap16(4);
	q.byte_cnt_be = zn_mlx5_bswap32(64u << 16 | 4096);
	q.shampo.header_entry_index_be = zn_mlx5_bswap16(0xffff);
	assert_int_equal(zn_mlx5_rx_cqe_parse(&rc, &pos, &q, &info), MLX5_RX_PKT);
	assert_int_equal(info.hdr_idx, 15);
	assert_int_equal(info.data_len, 4096);
	assert_int_equal(info.wqe, 4);
	q.byte_cnt_be = zn_mlx5_bswap32(64u << 16 | 4097);
	assert_int_equal(zn_mlx5_rx_cqe_parse(&rc, &pos, &q, &info), MLX5_RX_BAD);
	/* Nothing posted: nothing can complete. */
	{
		const struct mlx5_rx_pos empty = { .done = 36, .posted = 36 };

		q.byte_cnt_be = zn_mlx5_bswap32(1u << 16 | 60);
		assert_int_equal(zn_mlx5_rx_cqe_parse(&rc, &empty, &q, &info), MLX5_RX_BAD);
	}
}

/* Destroy gives back every buffer the ring holds; the caller's stay the caller's. */
static void test_release(void **state)
{
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t frame[400];
	struct zn_rx_pkt pkt[2];

	zn_mlx5_rxq_refill(r);
	make_frame(frame, sizeof(frame), 5);
	cqe_publish(c, rx_frame(c, 0, 0, frame, 42, 400), 2);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 2), 1);
	zn_mlx5_rxq_release_bufs(r);
	assert_int_equal(fake_prov_held(c->fp), 1);
	assert_int_equal(c->fp->double_puts, 0);
	fake_prov_put(c->fp, &pkt[0].seg[0].buf_id, 1);
	assert_int_equal(fake_prov_held(c->fp), 0);
}

/* Buffers below a SHAMPO reservation: the cyclic fallback (§12.4), header
 * slot + buffer per WQE; frames split at the slot's end, small ones whole. */
static void test_cyclic_fallback(void **state)
{
	struct ctx *c = *state;
	struct fake_prov *small = fake_prov_new(40, 2048);
	struct zn_rxq_conf conf = { .ring_size = RING, .hdr_buf_size = HDR_ENTRY,
				    .payload = &small->prov };
	struct mlx5_rxq *r = NULL;
	struct zn_mlx5_cqe64 *q;
	struct zn_rx_pkt pkt[2];
	uint8_t frame[1000];
	struct zn_mlx5_wqe_data hs;

	assert_int_equal(zn_mlx5_rxq_create(c->m, 0, &conf, &r), 0);
	assert_true(r->c.cyclic);
	assert_int_equal(zn_mlx5_rxq_refill(r), RING);
	memcpy(&hs, &r->wq[1].next, sizeof(hs));
	assert_int_equal(zn_mlx5_bswap32(hs.byte_count_be), HDR_ENTRY);
	assert_int_equal(zn_mlx5_bswap64(hs.addr_be), r->hdr_iova + HDR_ENTRY);
	assert_int_equal(zn_mlx5_bswap32(r->wq[1].data.byte_count_be), 2048);
	assert_int_equal(zn_mlx5_bswap64(r->wq[1].data.addr_be), (uint64_t)(uintptr_t)r->sw[1].va);

	make_frame(frame, sizeof(frame), 11);
	memcpy(r->hdr, frame, HDR_ENTRY);
	memcpy(r->sw[0].va, frame + HDR_ENTRY, sizeof(frame) - HDR_ENTRY);
	q = &r->cq.cqe[0];
	memset(q, 0, sizeof(*q));
	q->byte_cnt_be = zn_mlx5_bswap32(sizeof(frame));
	q->wqe_counter_be = zn_mlx5_bswap16(0);
	q->op_own = 2 << 4;
	memcpy(r->hdr + HDR_ENTRY, frame, 60);
	q = &r->cq.cqe[1];
	memset(q, 0, sizeof(*q));
	q->byte_cnt_be = zn_mlx5_bswap32(60);
	q->wqe_counter_be = zn_mlx5_bswap16(1);
	q->op_own = 2 << 4;
	q = &r->cq.cqe[2];	/* the wrong WQE: refused */
	memset(q, 0, sizeof(*q));
	q->byte_cnt_be = zn_mlx5_bswap32(60);
	q->wqe_counter_be = zn_mlx5_bswap16(5);
	q->op_own = 2 << 4;
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 2), 2);
	assert_int_equal(pkt[0].hdr_len, HDR_ENTRY);
	assert_int_equal(pkt[0].nseg, 1);
	assert_int_equal(pkt[0].seg[0].len, sizeof(frame) - HDR_ENTRY);
	assert_int_equal(pkt[0].flags & ZN_RX_F_SPLIT, 0);
	assert_memory_equal(pkt[0].hdr, frame, HDR_ENTRY);
	assert_memory_equal(small->mem + (size_t)pkt[0].seg[0].buf_id * 2048, frame + HDR_ENTRY,
			    sizeof(frame) - HDR_ENTRY);
	assert_int_equal(pkt[1].hdr_len, 60);
	assert_int_equal(pkt[1].nseg, 0);
	assert_memory_equal(pkt[1].hdr, frame, 60);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 2), 0);
	assert_int_equal(r->st.bad_cmpl, 1);
	/* Both WQEs reposted; only the handed-out buffer was replaced. */
	assert_int_equal(zn_mlx5_bswap32(r->rq_dbr[0]), RING + 2);
	assert_int_equal(fake_prov_held(small), RING + 1);
	zn_mlx5_rxq_destroy(c->m, r);
	assert_int_equal(fake_prov_held(small), 1);
	fake_prov_free(small);
}

/*
 * MTU 9000 with 4 KiB buffers: SHAMPO's one-buffer WQE cannot hold a
 * frame, so a cyclic WQE scatters it over the header slot and 3 buffers
 * (§12.4). Frames of 60..9000 bytes come back as the header slot plus as
 * many segments as they reached, every byte where the device put it; the
 * buffers a frame did not reach stay in the WQE and are posted again.
 */
static void test_multiseg_frames(void **state)
{
	static const uint32_t sizes[] = { 60, 1500, 4096, 4097, 8000, 9000, 9022 };
	struct ctx *c = *state;
	struct fake_prov *fp = fake_prov_new(64, BUF);
	struct zn_rxq_conf conf = { .ring_size = RING, .hdr_buf_size = HDR_ENTRY,
				    .payload = &fp->prov };
	static uint8_t frame[9022];
	struct mlx5_rxq *r = NULL;
	struct zn_rx_pkt pkt[2];
	uint32_t held = RING * 3, handed_total = 0;
	uint32_t ids[64], nids = 0;

	c->m->conf.mtu = 9000;
	assert_int_equal(zn_mlx5_rxq_create(c->m, 2, &conf, &r), 0);
	assert_true(r->c.cyclic);
	assert_int_equal(r->c.nbuf, 3);
	assert_int_equal(r->c.frame_max, HDR_ENTRY + 3 * BUF);
	assert_int_equal(1u << r->c.log_wqe, 64);	/* header slot, 3 buffers, end */
	assert_int_equal(zn_mlx5_rxq_refill(r), RING);
	assert_int_equal(fake_prov_held(fp), held);
	for (uint32_t i = 0; i < RING; i++) {
		const struct zn_mlx5_wqe_data *d = zn_mlx5_rx_seg(r, i, 0);

		assert_int_equal(zn_mlx5_bswap32(d[-1].byte_count_be), HDR_ENTRY);
		assert_int_equal(zn_mlx5_bswap64(d[-1].addr_be), r->hdr_iova + i * HDR_ENTRY);
		for (uint32_t j = 0; j < 3; j++) {
			assert_int_equal(zn_mlx5_bswap32(d[j].byte_count_be), BUF);
			assert_int_equal(zn_mlx5_bswap32(d[j].lkey_be), 0x00abcd00);
			assert_int_equal(zn_mlx5_bswap64(d[j].addr_be),
					 (uint64_t)(uintptr_t)r->sw[i * 3 + j].va);
		}
	}
	for (uint32_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t len = sizes[k], w = k % RING, off, nseg;
		uint32_t before[3];
		struct zn_mlx5_cqe64 *q = &r->cq.cqe[k];

		make_frame(frame, len, (uint8_t)(k * 17 + 1));
		/* The device scatters the frame over the WQE's list in order. */
		memcpy(r->hdr + (size_t)w * HDR_ENTRY, frame, len < HDR_ENTRY ? len : HDR_ENTRY);
		for (uint32_t j = 0, o = HDR_ENTRY; o < len; j++, o += BUF)
			memcpy(r->sw[w * 3 + j].va, frame + o, len - o < BUF ? len - o : BUF);
		for (uint32_t j = 0; j < 3; j++)
			before[j] = r->sw[w * 3 + j].buf_id;
		memset(q, 0, sizeof(*q));
		q->byte_cnt_be = zn_mlx5_bswap32(len);
		q->wqe_counter_be = zn_mlx5_bswap16((uint16_t)w);
		q->op_own = (uint8_t)(ZN_MLX5_CQE_RESP_SEND << 4 |
				      zn_mlx5_cqe_hw_owner(k, r->cq.log_sz));
		assert_int_equal(zn_mlx5_rx_burst(r, pkt, 2), 1);
		nseg = len > HDR_ENTRY ? (len - HDR_ENTRY + BUF - 1) / BUF : 0;
		assert_int_equal(pkt[0].pkt_len, len);
		assert_int_equal(pkt[0].hdr_len, len < HDR_ENTRY ? len : HDR_ENTRY);
		assert_int_equal(pkt[0].nseg, nseg);
		assert_int_equal(pkt[0].flags & ZN_RX_F_SPLIT, 0);
		assert_int_equal(pkt[0].queue, 2);
		assert_memory_equal(pkt[0].hdr, frame, pkt[0].hdr_len);
		off = pkt[0].hdr_len;
		for (uint32_t j = 0; j < nseg; j++) {
			uint32_t id = pkt[0].seg[j].buf_id;

			assert_int_equal(id, before[j]);
			assert_ptr_equal(pkt[0].seg[j].va, fp->mem + (size_t)id * BUF);
			assert_int_equal(pkt[0].seg[j].off, 0);
			assert_int_equal(pkt[0].seg[j].len, len - off < BUF ? len - off : BUF);
			assert_memory_equal(pkt[0].seg[j].va, frame + off, pkt[0].seg[j].len);
			off += pkt[0].seg[j].len;
			ids[nids++] = id;
		}
		assert_int_equal(off, len);
		handed_total += nseg;
		/* Reposted at the next burst: handed buffers replaced, the rest kept. */
		assert_int_equal(zn_mlx5_rx_burst(r, pkt, 0), 0);
		assert_int_equal(zn_mlx5_bswap32(r->rq_dbr[0]), RING + k + 1);
		for (uint32_t j = nseg; j < 3; j++)
			assert_int_equal(r->sw[w * 3 + j].buf_id, before[j]);
		for (uint32_t j = 0; j < nseg; j++)
			assert_int_not_equal(r->sw[w * 3 + j].buf_id, before[j]);
		assert_int_equal(fake_prov_held(fp), held + handed_total);
	}
	assert_int_equal(r->st.packets, sizeof(sizes) / sizeof(sizes[0]));
	assert_int_equal(r->st.bad_cmpl, 0);
	/* One byte past what a WQE takes is the device lying: refused. */
	{
		struct zn_mlx5_cqe64 *q = &r->cq.cqe[7];

		memset(q, 0, sizeof(*q));
		q->byte_cnt_be = zn_mlx5_bswap32(HDR_ENTRY + 3 * BUF + 1);
		q->wqe_counter_be = zn_mlx5_bswap16(7);
		q->op_own = (uint8_t)(ZN_MLX5_CQE_RESP_SEND << 4 | zn_mlx5_cqe_hw_owner(7, r->cq.log_sz));
		assert_int_equal(zn_mlx5_rx_burst(r, pkt, 2), 0);
		assert_int_equal(r->st.bad_cmpl, 1);
	}
	zn_mlx5_rxq_destroy(c->m, r);
	assert_int_equal(fake_prov_held(fp), handed_total);
	fake_prov_put(fp, ids, nids);
	assert_int_equal(fake_prov_held(fp), 0);
	assert_int_equal(fp->double_puts, 0);
	fake_prov_free(fp);
}

/* An MTU the buffers cannot hold in 8 segments is refused at set-up; so is
 * starting a queue set up for a smaller MTU than the port's (mlx5_port.c). */
static void test_multiseg_limits(void **state)
{
	struct ctx *c = *state;
	struct fake_prov *fp = fake_prov_new(8, 1024);
	struct zn_rxq_conf conf = { .ring_size = RING, .hdr_buf_size = HDR_ENTRY,
				    .payload = &fp->prov };
	struct mlx5_rxq *r = NULL;

	c->m->conf.mtu = 9000;		/* 9022 - 256 bytes: 9 buffers of 1 KiB */
	assert_int_equal(zn_mlx5_rxq_create(c->m, 0, &conf, &r), -EINVAL);
	assert_true(fake_logs_have("need 9 buffers of 1024 bytes"));
	c->m->conf.mtu = 8000;		/* 8022 - 256: 8 buffers */
	assert_int_equal(zn_mlx5_rxq_create(c->m, 0, &conf, &r), 0);
	assert_int_equal(r->c.nbuf, 8);
	assert_int_equal(1u << r->c.log_wqe, 16 * 16);
	assert_int_equal(r->mtu, 8000);
	zn_mlx5_rxq_refill(r);
	for (uint32_t j = 8; j < 15; j++)
		assert_int_equal(zn_mlx5_bswap32(zn_mlx5_rx_seg(r, 1, j)->lkey_be),
				 ZN_MLX5_INVALID_LKEY);
	assert_int_equal(zn_mlx5_bswap32(zn_mlx5_rx_seg(r, 1, 7)->lkey_be), 0x00abcd00);
	zn_mlx5_rxq_destroy(c->m, r);
	fake_prov_free(fp);
}

/* ---- HW-GRO (hw-docs/mlx5.md §12.7) ---- */

static int setup_agg(void **state)
{
	return setup_offloads(state, ZN_RX_OFFLOAD_CSUM | ZN_RX_OFFLOAD_TCP_AGG);
}

/* Ethernet + IPv4 + TCP (54 bytes), then payload bytes. */
static void tcp_frame(uint8_t *f, uint32_t len, uint8_t seed)
{
	make_frame(f, len, seed);
	memset(f, 0, 54);
	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 6;
	f[46] = 0x50;
	f[47] = 0x10;
}

/* Packet of a session: payload (len - 54) at byte off of WQE w, after
 * `used` strides were counted; match/flush as given. */
static void gro_pkt(struct ctx *c, uint32_t w, uint32_t off, uint32_t used, const uint8_t *f,
		    uint32_t len, uint8_t flags)
{
	struct zn_mlx5_cqe64 *q = rx_frame(c, w, 0, f, 54, 54);	/* headers alone */
	uint32_t end = off + len - 54, st = (end + STRIDE - 1) / STRIDE - used;

	memcpy(c->rxq->sw[w].va + off, f + 54, len - 54);
	q->shampo.data_offset_be = zn_mlx5_bswap32(off);
	q->wqe_counter_be = zn_mlx5_bswap16((uint16_t)(off / STRIDE));
	q->byte_cnt_be = zn_mlx5_bswap32(st << 16 | len);
	q->shampo.flags = flags;
	q->l4_l3_hdr_type = ZN_MLX5_CQE_L4_TCP_ACK_AND_DATA << 4 | ZN_MLX5_CQE_L3_IPV4 << 2;
	cqe_publish(c, q, ZN_MLX5_CQE_RESP_SEND);
}

/*
 * One WQE: a session of three packets (flush), then a lone packet, then
 * the filler. The session is held for the WQE's buffer; when the lone
 * packet closes, the session goes out first, by copy; the lone packet gets
 * the buffer when the filler finishes the WQE.
 */
static void test_agg_units(void **state)
{
	const uint8_t M = ZN_MLX5_CQE_SHAMPO_MATCH, FL = ZN_MLX5_CQE_SHAMPO_FLUSH;
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t f[4][1054], ip[20];
	struct zn_rx_pkt pkt[8];
	uint32_t id0, sum = 0;

	assert_true(r->c.agg);
	assert_int_equal(r->agg_pkts, 4);
	assert_int_equal(r->c.hdr_mask, RING * 4 - 1);
	assert_int_equal(r->cq.log_sz, 7);
	zn_mlx5_rxq_refill(r);
	id0 = r->sw[0].buf_id;
	for (int i = 0; i < 4; i++)
		tcp_frame(f[i], sizeof(f[i]), (uint8_t)(10 * i));
	gro_pkt(c, 0, 0, 0, f[0], 1054, 0);
	gro_pkt(c, 0, 1000, 16, f[1], 1054, M);
	gro_pkt(c, 0, 2000, 32, f[2], 1054, M | FL);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 8), 0);	/* held for the buffer */
	assert_true(r->ready.live);
	gro_pkt(c, 0, 3008, 47, f[3], 1054, FL);
	filler(c, 0, 63);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 8), 2);
	/* the session, by copy into a fresh buffer */
	assert_int_equal(pkt[0].flags & ZN_RX_F_AGG, ZN_RX_F_AGG);
	assert_true(pkt[0].flags & ZN_RX_F_L4_CSUM_OK);
	assert_int_equal(pkt[0].agg_segs, 3);
	assert_int_equal(pkt[0].gso_size, 1000);
	assert_int_equal(pkt[0].hdr_len, 54);
	assert_int_equal(pkt[0].pkt_len, 3054);
	memcpy(ip, pkt[0].hdr + 14, 20);
	assert_int_equal(ip[2] << 8 | ip[3], 3040);
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	assert_int_equal((sum & 0xffff) + (sum >> 16), 0xffff);
	assert_int_equal(pkt[0].nseg, 1);
	assert_int_not_equal(pkt[0].seg[0].buf_id, id0);
	assert_int_equal(pkt[0].seg[0].off, 0);
	assert_int_equal(pkt[0].seg[0].len, 3000);
	for (int i = 0; i < 3; i++)
		assert_memory_equal(pkt[0].seg[0].va + 1000 * i, f[i] + 54, 1000);
	/* the lone packet, by reference in WQE 0's buffer */
	assert_false(pkt[1].flags & ZN_RX_F_AGG);
	assert_int_equal(pkt[1].nseg, 1);
	assert_int_equal(pkt[1].seg[0].buf_id, id0);
	assert_int_equal(pkt[1].seg[0].off, 3008);
	assert_int_equal(pkt[1].seg[0].len, 1000);
	assert_memory_equal(pkt[1].seg[0].va + 3008, f[3] + 54, 1000);
	assert_memory_equal(pkt[1].hdr, f[3], 54);
	assert_int_equal(r->st.agg, 1);
	assert_int_equal(r->st.agg_copies, 1);
	assert_int_equal(r->st.packets, 2);
	assert_int_equal(r->st.bad_cmpl, 0);
	/* 16 posted, WQE 0's buffer and the copy's with the caller */
	assert_int_equal(fake_prov_held(c->fp), RING + 1);
	zn_mlx5_rx_burst(r, pkt, 0);
	assert_int_equal(fake_prov_held(c->fp), RING + 2);
}

/* match CQEs that do not continue the previous payload are refused; the
 * session goes on with the right one. */
static void test_agg_bad_match(void **state)
{
	const uint8_t M = ZN_MLX5_CQE_SHAMPO_MATCH;
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t f[1054];
	struct zn_rx_pkt pkt[8];
	struct zn_mlx5_cqe64 *q;

	zn_mlx5_rxq_refill(r);
	tcp_frame(f, sizeof(f), 5);
	/* a match with no session before it */
	gro_pkt(c, 0, 0, 0, f, 1054, M);
	gro_pkt(c, 0, 0, 0, f, 1054, 0);
	/* not right after the previous payload */
	gro_pkt(c, 0, 1004, 16, f, 1054, M);
	/* strides that are not the ones it newly reaches */
	gro_pkt(c, 0, 1000, 15, f, 1054, M);
	/* its stride index elsewhere */
	q = rx_frame(c, 0, 0, f, 54, 1054);
	q->shampo.data_offset_be = zn_mlx5_bswap32(1000);
	q->wqe_counter_be = zn_mlx5_bswap16(16);
	q->byte_cnt_be = zn_mlx5_bswap32(16u << 16 | 1054);
	q->shampo.flags = M;
	cqe_publish(c, q, 2);
	/* not split */
	q = rx_frame(c, 0, 0, f, 0, 1000);
	q->shampo.data_offset_be = zn_mlx5_bswap32(1000);
	q->wqe_counter_be = zn_mlx5_bswap16(15);
	q->byte_cnt_be = zn_mlx5_bswap32(16u << 16 | 1000);
	q->shampo.flags = M;
	cqe_publish(c, q, 2);
	/* and the right one */
	gro_pkt(c, 0, 1000, 16, f, 1054, M | ZN_MLX5_CQE_SHAMPO_FLUSH);
	filler(c, 0, 32);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 8), 1);
	assert_int_equal(r->st.bad_cmpl, 5);
	assert_int_equal(pkt[0].agg_segs, 2);
	assert_int_equal(pkt[0].seg[0].len, 2000);
	/* after a filler no match may come */
	gro_pkt(c, 1, 0, 0, f, 1054, M);
	assert_int_equal(zn_mlx5_rx_burst(r, pkt, 8), 0);
	assert_int_equal(r->st.bad_cmpl, 6);
}

/*
 * Bursts of one: a CQE is taken only with room for every unit it may
 * complete, and bursts too short for that count as quiet, so the held
 * units go out by copy one burst after another: sessions split, every byte
 * still delivered once, in order.
 */
static void test_agg_burst_of_one(void **state)
{
	const uint8_t M = ZN_MLX5_CQE_SHAMPO_MATCH, FL = ZN_MLX5_CQE_SHAMPO_FLUSH;
	struct ctx *c = *state;
	struct mlx5_rxq *r = c->rxq;
	uint8_t f[3][1054];
	struct zn_rx_pkt pkt[4];
	uint32_t got = 0;

	zn_mlx5_rxq_refill(r);
	for (int i = 0; i < 3; i++)
		tcp_frame(f[i], sizeof(f[i]), (uint8_t)(7 * i));
	gro_pkt(c, 0, 0, 0, f[0], 1054, 0);
	gro_pkt(c, 0, 1000, 16, f[1], 1054, M | FL);
	gro_pkt(c, 0, 2048, 32, f[2], 1054, FL);
	filler(c, 0, 48);
	for (int i = 0; i < 100 && got < 4; i++)
		got += zn_mlx5_rx_burst(r, pkt + got, 1);
	assert_int_equal(got, 3);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(pkt[i].nseg, 1);
		assert_int_equal(pkt[i].seg[0].len, 1000);
		assert_memory_equal(pkt[i].seg[0].va + pkt[i].seg[0].off, f[i] + 54, 1000);
	}
	assert_int_equal(r->st.agg_copies, 3);
	assert_int_equal(r->st.bad_cmpl, 0);
	assert_int_equal(r->pos.done, 1);	/* the filler was taken too */
}

/* Buffers no queue layout can use, and bad rings, are refused with one line. */
static void test_setup_refusals(void **state)
{
	struct ctx *c = *state;
	struct fake_prov *tiny = fake_prov_new(4, 32);
	struct zn_rxq_conf conf = { .ring_size = RING, .payload = &tiny->prov };
	struct mlx5_rxq *r = NULL;

	assert_int_equal(zn_mlx5_rxq_create(c->m, 0, &conf, &r), -EINVAL);
	assert_true(fake_logs_have("payload buffers of 32 bytes"));
	conf.payload = &c->fp->prov;
	conf.ring_size = 24;
	assert_int_equal(zn_mlx5_rxq_create(c->m, 0, &conf, &r), -EINVAL);
	assert_null(r);
	fake_prov_free(tiny);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_posted_wqes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_frame_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_cqes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_payload_refused, setup, teardown),
		cmocka_unit_test(test_parse_bounds),
		cmocka_unit_test_setup_teardown(test_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cyclic_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setup_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiseg_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiseg_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agg_units, setup_agg, teardown),
		cmocka_unit_test_setup_teardown(test_agg_bad_match, setup_agg, teardown),
		cmocka_unit_test_setup_teardown(test_agg_burst_of_one, setup_agg, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
