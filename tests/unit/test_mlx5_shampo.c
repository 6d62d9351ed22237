/*
 * mlx5 HW-GRO through the driver (drivers/mlx5/mlx5_shampo.c) against the
 * model: two mlx5 models of an in-process zn-nicsim on a pair wire, port A
 * sends TCP segments (LSO frames the model cuts, or single frames), port B
 * receives with ZN_RX_OFFLOAD_TCP_AGG on 4 KiB payload buffers (4 packets
 * per WQE at MTU 1500). Checked: one aggregate per device session, with the
 * right agg_segs, gso_size, IP length and checksum, checksum flag, and the
 * payload byte for byte; a session ended by PSH, by a segment out of order
 * and by the queue going quiet; which units went out by reference and which
 * by copy (the driver's counters), and every buffer given back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/clock.h"
#include "drivers/mlx5/mlx5.h"
#include "tests/unit/support/mlx5_test_client.h"
#include "tests/unit/support/port_open.h"
#include "tests/unit/support/tcp_frames.h"
#include "zcnic/mem.h"
#include "zcnic/port.h"

#define WAIT_MS		3000
#define BUF		4096
#define RING		16
#define MEM_LEN		(256u << 10)

static struct mtc_sim S;
static struct zn_port *A, *B;
static struct zn_port_info IB;
static struct zn_dma_region *Mem;	/* A's frames */
static size_t Moff;
static uint8_t W[ZN_SIM_FRAME_MAX + 64];

static int open_port(const char *path, uint32_t offloads, struct zn_port **p)
{
	struct zn_rxq_conf rq = { .ring_size = RING, .hdr_buf_size = 256, .payload_buf_size = BUF,
				  .numa_node = -1, .offloads = offloads };

	return tpo_open(path, &rq, p);
}

static int setup(void **state)
{
	(void)state;
	Moff = 0;
	if (mtc_sim_start(&S, "mlx5", "mlx5", true) ||
	    open_port(S.path[0], ZN_RX_OFFLOAD_CSUM, &A) ||
	    open_port(S.path[1], ZN_RX_OFFLOAD_CSUM | ZN_RX_OFFLOAD_TCP_AGG, &B))
		return -1;
	zn_port_info(B, &IB);
	if (zn_dma_region_alloc("shampo-tx", MEM_LEN, -1, ZN_DMA_NO_HUGE, &Mem) ||
	    zn_bus_dma_map(A->bus, Mem))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (Mem && A)
		zn_bus_dma_unmap(A->bus, Mem);
	zn_port_close(B);
	zn_port_close(A);
	A = B = NULL;
	zn_dma_region_free(Mem);
	Mem = NULL;
	mtc_sim_stop(&S);
	return 0;
}

static const struct mlx5_rx_stats *bst(void)
{
	return &((struct mlx5 *)B->priv)->rxq[0]->st;
}

static struct tf_flow flow(void)
{
	struct tf_flow fl = {
		.ipv = 4, .proto = 6, .smac = { 2, 0, 0, 0, 0, 0xa },
		.src = { 10, 0, 0, 1 }, .dst = { 10, 0, 0, 2 }, .sport = 40000, .dport = 5201,
		.ip_id = 0x1234, .seq = 1000, .ack = 77, .flags = 0x10, .win = 512,
	};

	memcpy(fl.dmac, IB.mac, 6);
	return fl;
}

/* Frames from A in one burst (so that the model sees them in one pass):
 * LSO into mss-byte segments where mss[i] is not 0. */
static void send_frames(uint8_t *const *f, const size_t *len, const unsigned *mss, unsigned n)
{
	struct zn_tx_pkt p[8];
	uint64_t ck[8];
	unsigned done = 0;

	assert_true(n <= 8);
	for (unsigned i = 0; i < n; i++) {
		assert_true(Moff + len[i] <= MEM_LEN);
		memcpy((uint8_t *)Mem->va + Moff, f[i], len[i]);
		p[i] = (struct zn_tx_pkt){ .nseg = 1, .l2_len = 14, .l3_len = 20, .l4_len = 20,
					   .flags = mss[i] ? ZN_TX_F_LSO : 0,
					   .mss = (uint16_t)mss[i], .cookie = Moff };
		p[i].seg[0].iova = Mem->iova + Moff;
		p[i].seg[0].len = (uint32_t)len[i];
		Moff += (len[i] + 63) & ~(size_t)63;
	}
	assert_int_equal(zn_port_tx_burst(A, 0, p, n), n);
	for (uint64_t end = zn_now_ms() + WAIT_MS; done < n && zn_now_ms() < end;)
		done += zn_port_tx_reap(A, 0, ck, 8);
	assert_int_equal(done, n);
}

static void send_frame(uint8_t *f, size_t len, unsigned mss)
{
	send_frames(&f, &len, &mss, 1);
}

static uint8_t Fb[8][2048];

/* Segments first[0..n) of the TSO of fl (payload bytes, seed, mss), one
 * frame each in one burst, with flags tcp_flags. */
static void send_segs(const struct tf_flow *fl, size_t payload, uint8_t seed, unsigned mss,
		      const unsigned *idx, unsigned n, uint8_t tcp_flags)
{
	struct tf_flow f2 = *fl;
	uint8_t *fp[8];
	size_t len[8];
	unsigned zero[8] = { 0 };

	f2.flags = tcp_flags;
	for (unsigned i = 0; i < n; i++) {
		fp[i] = Fb[i];
		len[i] = tf_tso_seg(Fb[i], &f2, payload, seed, mss, idx[i]);
	}
	send_frames(fp, len, zero, n);
}

/* Receive exactly n packets from B (bounded), none more within a few polls. */
static void recv_n(struct zn_rx_pkt *pk, unsigned n)
{
	unsigned got = 0;

	for (uint64_t end = zn_now_ms() + WAIT_MS; got < n && zn_now_ms() < end;)
		got += zn_port_rx_burst(B, 0, pk + got, 32 - got);
	assert_int_equal(got, n);
	for (int i = 0; i < 2 * MLX5_AGG_IDLE_POLLS; i++)
		assert_int_equal(zn_port_rx_burst(B, 0, pk + got, 32 - got), 0);
}

/*
 * pk is segments [first, first + segs) of fl's TSO (payload, seed, mss),
 * merged: headers of the first with the IP length of the whole, payload
 * byte for byte. Its buffers go back.
 */
static void expect_agg(const struct zn_rx_pkt *pk, const struct tf_flow *fl, size_t payload,
		       uint8_t seed, unsigned mss, unsigned first, unsigned segs)
{
	size_t hl = tf_hdr_len(fl), want = 0, got = 0;
	uint8_t hdr[128];

	for (unsigned i = first; i < first + segs; i++)
		want += tf_tso_seg(W, fl, payload, seed, mss, i) - hl;
	assert_true(pk->hdr_len >= hl);
	assert_int_equal(pk->pkt_len, hl + want);
	assert_true(pk->flags & ZN_RX_F_L4_CSUM_OK);
	assert_true(pk->flags & ZN_RX_F_L3_CSUM_OK);
	if (segs > 1) {
		assert_true(pk->flags & ZN_RX_F_AGG);
		assert_int_equal(pk->agg_segs, segs);
		assert_int_equal(pk->gso_size, mss);
	} else {
		assert_false(pk->flags & ZN_RX_F_AGG);
	}
	/* headers: the first segment's, IP total length for the whole and a
	 * right IPv4 checksum (the TCP header is the first's, PSH aside) */
	tf_tso_seg(W, fl, payload, seed, mss, first);
	memcpy(hdr, pk->hdr, hl);
	assert_int_equal(hdr[16] << 8 | hdr[17], hl - 14 + want);
	assert_int_equal(tf_sum(hdr + 14, 20), 0xffff);
	assert_memory_equal(hdr + 14 + 20, W + 14 + 20, 13);	/* ports..flags byte */
	/* payload: the header-resident bytes, then the segments */
	for (unsigned i = first; i < first + segs; i++) {
		size_t l = tf_tso_seg(W, fl, payload, seed, mss, i) - hl;
		size_t k = 0;

		while (k < l) {
			const uint8_t *p;
			size_t avail, at = got + k, c;

			if (at < pk->hdr_len - hl) {
				p = pk->hdr + hl + at;
				avail = pk->hdr_len - hl - at;
			} else {
				size_t o = at - (pk->hdr_len - hl);
				uint32_t s = 0;

				while (s < pk->nseg && o >= pk->seg[s].len)
					o -= pk->seg[s++].len;
				assert_true(s < pk->nseg);
				p = pk->seg[s].va + pk->seg[s].off + o;
				avail = pk->seg[s].len - o;
			}
			c = l - k < avail ? l - k : avail;
			assert_memory_equal(p, W + hl + k, c);
			k += c;
		}
		got += l;
	}
	for (uint32_t s = 0; s < pk->nseg; s++)
		zn_port_rx_buf_put(B, 0, &pk->seg[s].buf_id, 1);
}

static void test_port_info(void **state)
{
	(void)state;
	assert_true(IB.rx_offloads & ZN_RX_OFFLOAD_TCP_AGG);
	assert_int_equal(IB.max_agg_segs, MLX5_AGG_SEGS_MAX);
	assert_int_equal(((struct mlx5 *)B->priv)->rxq[0]->agg_pkts, 4);
}

/* An LSO frame of 4 x 1024 bytes fills one 4 KiB WQE: one aggregate of 4,
 * out at once (the WQE is finished) by reference. */
static void test_lso_one_aggregate(void **state)
{
	struct tf_flow fl = flow();
	struct zn_rx_pkt pk[32];

	(void)state;
	fl.flags = 0x18;
	send_frame(W, tf_build(W, &fl, 4096, 1, false), 1024);
	recv_n(pk, 1);
	expect_agg(&pk[0], &fl, 4096, 1, 1024, 0, 4);
	assert_int_equal(pk[0].nseg, 1);
	assert_int_equal(pk[0].seg[0].len, 4096);
	assert_int_equal(bst()->agg, 1);
	assert_int_equal(bst()->agg_copies, 0);
	assert_int_equal(mtc_counter(&S, 1, "rx_gro_matches"), 3);
	assert_int_equal(mtc_counter(&S, 1, "rx_frames"), 4);
}

/*
 * PSH ends a session: 3 x 1000 with PSH, then the next 2 x 1000 of the flow
 * with PSH. The device: {0 1 2} in WQE 0, {3} after it in WQE 0, {4} in
 * WQE 1 (no room left, a filler ends WQE 0). {0 1 2} is held for WQE 0's
 * buffer until {3} closes, then goes out by copy (order kept); {3} gets
 * the buffer when the filler finishes WQE 0; {4}, the last, goes out by copy
 * when the queue is quiet.
 */
static void test_psh_flush(void **state)
{
	struct tf_flow fl = flow();
	struct zn_rx_pkt pk[32];

	(void)state;
	fl.flags = 0x18;
	send_frame(W, tf_build(W, &fl, 3000, 2, false), 1000);
	fl.seq += 3000;
	send_frame(W, tf_build(W, &fl, 2000, 5, false), 1000);
	recv_n(pk, 3);
	fl.seq -= 3000;
	expect_agg(&pk[0], &fl, 3000, 2, 1000, 0, 3);
	fl.seq += 3000;
	expect_agg(&pk[1], &fl, 2000, 5, 1000, 0, 1);
	expect_agg(&pk[2], &fl, 2000, 5, 1000, 1, 1);
	assert_int_equal(bst()->agg, 1);
	assert_int_equal(bst()->agg_copies, 2);
	assert_int_equal(mtc_counter(&S, 1, "rx_fillers"), 1);
}

/*
 * Out of order (0 1 3 2, one burst, no PSH): {0 1}, {3}, {2}, in that
 * order. {2} uses the WQE's last stride, so it ends its session and the
 * WQE: it gets the buffer, the two closed before it go out by copy.
 */
static void test_out_of_order(void **state)
{
	static const unsigned idx[] = { 0, 1, 3, 2 };
	struct tf_flow fl = flow();
	struct zn_rx_pkt pk[32];

	(void)state;
	send_segs(&fl, 4000, 3, 1000, idx, 4, 0x10);
	recv_n(pk, 3);
	expect_agg(&pk[0], &fl, 4000, 3, 1000, 0, 2);
	expect_agg(&pk[1], &fl, 4000, 3, 1000, 3, 1);
	expect_agg(&pk[2], &fl, 4000, 3, 1000, 2, 1);
	assert_int_equal(bst()->agg, 1);
	assert_int_equal(bst()->agg_copies, 2);
	assert_int_equal(bst()->bad_cmpl, 0);
}

/*
 * A session the device leaves open (2 x 1000, no PSH) is held while the
 * queue still completes packets and goes out, by copy, after
 * MLX5_AGG_IDLE_POLLS empty bursts.
 */
static void test_idle_end(void **state)
{
	static const unsigned idx[] = { 0, 1 };
	struct tf_flow fl = flow();
	struct zn_rx_pkt pk[32];
	unsigned polls = 0;

	(void)state;
	send_segs(&fl, 2000, 4, 1000, idx, 2, 0x10);
	for (uint64_t end = zn_now_ms() + WAIT_MS;
	     mtc_counter(&S, 1, "rx_frames") < 2 && zn_now_ms() < end;)
		;
	assert_int_equal(mtc_counter(&S, 1, "rx_frames"), 2);
	while (polls < 2 * MLX5_AGG_IDLE_POLLS && !zn_port_rx_burst(B, 0, pk, 32))
		polls++;
	/* the first burst took both CQEs; then MLX5_AGG_IDLE_POLLS empty ones */
	assert_int_equal(polls, MLX5_AGG_IDLE_POLLS);
	expect_agg(&pk[0], &fl, 2000, 4, 1000, 0, 2);
	assert_int_equal(bst()->agg_copies, 1);
}

/* Every buffer came back: the pool's buffers are all free or posted. */
static void test_buffers_return(void **state)
{
	struct tf_flow fl = flow();
	struct zn_rx_pkt pk[32];
	struct zn_queue_stats qs;

	(void)state;
	for (unsigned r = 0; r < 8; r++) {
		fl.flags = 0x18;
		send_frame(W, tf_build(W, &fl, 4096, (uint8_t)r, false), 1024);
		recv_n(pk, 1);
		expect_agg(&pk[0], &fl, 4096, (uint8_t)r, 1024, 0, 4);
		fl.seq += 4096;
	}
	assert_int_equal(bst()->agg, 8);
	assert_int_equal(bst()->agg_copies, 0);
	assert_int_equal(zn_port_rxq_stats(B, 0, &qs), 0);
	assert_int_equal(qs.packets, 8);
	assert_int_equal(qs.drops, 0);
	assert_int_equal(qs.bad_cmpl, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_port_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lso_one_aggregate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psh_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffers_return, setup, teardown),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
