/* SPDX-License-Identifier: MIT */
/*
 * What the offloads do to a TCP transfer: 1 MiB from A to B over a pair of
 * models (bnxt, then mlx5) joined by a wire, through core/net's TCP engine,
 * once with the ports' offloads and once without (zn_netdev_conf
 * no_offload). Every byte arrives, in order; with offloads the sender's
 * data leaves as LSO frames, so the NIC takes and completes far fewer
 * frames than there are segments on the wire, and the receiver takes fewer
 * frames than segments when the device aggregates. The counts (per MB) and
 * the process CPU time are printed as figures for the note.
 * ZN_TCP_OFFLOAD_ONLY=MODEL,on|off runs one transfer and checks nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "base/clock.h"
#include "core/net/netif_priv.h"
#include "core/net/tcp.h"
#include "tests/unit/support/mlx5_test_client.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/mem.h"

#define XFER		(1u << 20)
#define CHUNK		(64u * 1024u)
#define PORT		5400
#define WAIT_MS		(getenv("ZN_TCP_OFFLOAD_ONLY") ? 600000 : 20000)	/* valgrind: slow */

struct run {
	uint64_t tx_frames, tx_completed, tx_lso, data_segs, rx_frames, rx_agg, cpu_ns;
};

static inline uint8_t pat(uint64_t i)
{
	return (uint8_t)(i ^ (i >> 8) ^ (i >> 16) ^ 0x5a);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void poll2(struct ndp *n)
{
	zn_netdev_poll(n->a);
	zn_netdev_poll(n->b);
}

static void transfer(const char *model, bool offload, struct run *r)
{
	struct mtc_sim sim;
	struct ndp n = { 0 };
	struct zn_netdev_conf c = { .prefix_len = 24, .nb_rxq = 1, .rx_ring = 1024,
				    .tx_ring = 1024, .no_offload = !offload, .no_rx_agg = !offload };
	struct zn_tcp *ta, *tb;
	struct zn_tcp_conn *ca, *lb, *cb = NULL;
	struct zn_addr4 dst;
	struct zn_dma_region *mem;
	struct zn_netif_stats sa, sb;
	struct zn_queue_stats qa, qb;
	struct zn_tcp_stats tsa;
	uint64_t end, got = 0, sent = 0, t0;
	char spec[128];
	uint8_t *buf;

	assert_int_equal(mtc_sim_start(&sim, model, model, true), 0);
	n.ip_a = inet_addr(NDP_IP_A);
	n.ip_b = inet_addr(NDP_IP_B);
	c.ip = n.ip_a;
	snprintf(spec, sizeof(spec), "vfio-user:%s", sim.path[0]);
	assert_int_equal(zn_netdev_open(spec, &c, &n.a), 0);
	c.ip = n.ip_b;
	snprintf(spec, sizeof(spec), "vfio-user:%s", sim.path[1]);
	assert_int_equal(zn_netdev_open(spec, &c, &n.b), 0);
	assert_int_equal(ndp_resolve(&n, WAIT_MS), 0);

	assert_int_equal(zn_dma_region_alloc("tcp-offload", XFER, -1, ZN_DMA_NO_HUGE, &mem), 0);
	assert_int_equal(zn_bus_dma_map(zn_netdev_port(n.a)->bus, mem), 0);
	buf = mem->va;
	for (uint32_t i = 0; i < XFER; i++)
		buf[i] = pat(i);

	ta = zn_netif_tcp(zn_netdev_netif(n.a));
	tb = zn_netif_tcp(zn_netdev_netif(n.b));
	assert_int_equal(zn_tcp_conn_listen(tb, htons(PORT), 4, NULL, &lb), 0);
	dst = (struct zn_addr4){ .ip = n.ip_b, .port = htons(PORT) };
	assert_int_equal(zn_tcp_conn_open(ta, 0, &dst, NULL, &ca), 0);
	end = zn_now_ms() + WAIT_MS;
	while (zn_tcp_conn_accept(lb, NULL, &cb) == -EAGAIN && zn_now_ms() < end)
		poll2(&n);
	assert_non_null(cb);
	while (zn_tcp_state(ca) != ZN_TCP_ESTABLISHED && zn_now_ms() < end)
		poll2(&n);

	/* counters from here on: the transfer alone */
	zn_netif_stats(zn_netdev_netif(n.a), &sa);
	zn_netif_stats(zn_netdev_netif(n.b), &sb);
	zn_port_txq_stats(zn_netdev_port(n.a), 0, &qa);
	zn_port_rxq_stats(zn_netdev_port(n.b), 0, &qb);
	zn_tcp_stats(ta, &tsa);
	r->tx_frames = qa.packets;
	r->tx_completed = sa.tx_completed;
	r->tx_lso = sa.tx_lso;
	r->data_segs = tsa.tx_data_segs;
	r->rx_frames = qb.packets;
	r->rx_agg = sb.rx_agg;
	t0 = cpu_ns();

	end = zn_now_ms() + WAIT_MS;
	while (got < XFER && zn_now_ms() < end) {
		struct zn_udp_rx d[16];
		uint32_t k;

		if (sent < XFER) {
			struct zn_net_seg s = { .iova = mem->iova + sent, .va = buf + sent,
						.len = CHUNK };

			if (zn_tcp_send(ca, &s, 1, sent) == 0)
				sent += CHUNK;
		}
		poll2(&n);
		while ((k = zn_tcp_recv(cb, d, 16, UINT32_MAX)) > 0) {
			for (uint32_t i = 0; i < k; i++) {
				for (uint32_t s = 0; s < d[i].nseg; s++) {
					const uint8_t *p = d[i].seg[s].va + d[i].seg[s].off;

					for (uint32_t j = 0; j < d[i].seg[s].len; j++)
						if (p[j] != pat(got + j))
							fail_msg("%s: byte %lu differs", model,
								 (unsigned long)(got + j));
					got += d[i].seg[s].len;
				}
				zn_tcp_rx_release(cb, &d[i]);
			}
		}
	}
	assert_int_equal(got, XFER);
	/* until every frame came back from the NIC */
	end = zn_now_ms() + WAIT_MS;
	while (zn_netif_in_flight(zn_netdev_netif(n.a)) && zn_now_ms() < end)
		poll2(&n);
	r->cpu_ns = cpu_ns() - t0;
	zn_netif_stats(zn_netdev_netif(n.a), &sa);
	zn_netif_stats(zn_netdev_netif(n.b), &sb);
	zn_port_txq_stats(zn_netdev_port(n.a), 0, &qa);
	zn_port_rxq_stats(zn_netdev_port(n.b), 0, &qb);
	zn_tcp_stats(ta, &tsa);
	r->tx_frames = qa.packets - r->tx_frames;
	r->tx_completed = sa.tx_completed - r->tx_completed;
	r->tx_lso = sa.tx_lso - r->tx_lso;
	r->data_segs = tsa.tx_data_segs - r->data_segs;
	r->rx_frames = qb.packets - r->rx_frames;
	r->rx_agg = sb.rx_agg - r->rx_agg;
	printf("# %s offloads %-3s: 1 MiB, %lu data segments; A posted %lu frames (%lu LSO), "
	       "%lu completed; B received %lu frames (%lu aggregates); CPU %.2f ms\n",
	       model, offload ? "on" : "off", (unsigned long)r->data_segs,
	       (unsigned long)r->tx_frames, (unsigned long)r->tx_lso,
	       (unsigned long)r->tx_completed, (unsigned long)r->rx_frames,
	       (unsigned long)r->rx_agg, (double)r->cpu_ns / 1e6);

	zn_tcp_close(ca, false);
	zn_tcp_close(cb, false);
	zn_tcp_close(lb, false);
	for (int i = 0; i < 20; i++)
		poll2(&n);
	zn_bus_dma_unmap(zn_netdev_port(n.a)->bus, mem);
	zn_netdev_close(n.a);
	zn_netdev_close(n.b);
	zn_dma_region_free(mem);
	mtc_sim_stop(&sim);
}

/*
 * agg_num/agg_den: with aggregation B must take fewer than agg_den/agg_num
 * frames per data segment (agg_num 0: the device does not aggregate).
 */
static void check(const char *model, unsigned agg_num, unsigned agg_den)
{
	const char *only = getenv("ZN_TCP_OFFLOAD_ONLY");
	struct run on, off;

	/* "MODEL,on" or "MODEL,off": that transfer alone, for a profiler
	 * (callgrind --toggle-collect=zn_netdev_poll gives instructions per MB) */
	if (only) {
		size_t ml = strlen(model);

		if (!strncmp(only, model, ml) && only[ml] == ',')
			transfer(model, !strcmp(only + ml + 1, "on"), &on);
		return;
	}
	transfer(model, false, &off);
	transfer(model, true, &on);
	/* without offloads: a frame per segment (ACKs and the like besides) */
	assert_int_equal(off.tx_lso, 0);
	assert_true(off.tx_frames >= off.data_segs);
	assert_int_equal(off.rx_agg, 0);
	/* with them: the segments go out in LSO frames, a fraction of them
	 * (without RX aggregation each ACK of two segments lets about three
	 * more go at once; with it, an ACK per aggregate lets many go) */
	assert_true(on.tx_lso > 0);
	assert_true(on.tx_frames * 2 < on.data_segs);
	assert_true(on.tx_completed * 2 < on.data_segs);
	assert_true(on.data_segs >= XFER / 1460);
	/* and, where the driver aggregates, arrive as a fraction of the frames */
	if (agg_num) {
		assert_true(on.rx_agg > 0);
		assert_true(on.rx_frames * agg_num < on.data_segs * agg_den);
	}
}

static void test_bnxt(void **state)
{
	(void)state;
	check("bnxt", 4, 1);
}

/* SHAMPO HW-GRO keeps a session in one WQE, one payload buffer: with 4 KiB
 * buffers two full segments per aggregate at most (hw-docs/mlx5.md §12.6) */
static void test_mlx5(void **state)
{
	(void)state;
	check("mlx5", 4, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bnxt),
		cmocka_unit_test(test_mlx5),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
