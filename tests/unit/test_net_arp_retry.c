/*
 * ARP over a lossy wire (sim/fault.h on the pair-wire bnxt models): a lost
 * request or reply is retried after ZN_ARP_RETRY_NS and every datagram
 * queued behind it is delivered; a neighbour that never answers fails the
 * queued sends with -EHOSTUNREACH after ZN_ARP_RETRIES requests. The seeds
 * are found here, with the fault API itself, so that the loss hits exactly
 * the first frame a device sends.
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
#include <cmocka.h>

#include "base/clock.h"
#include "core/net/arp_cache.h"
#include "sim/fault.h"
#include "sim/model.h"
#include "sim/wire.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/mem.h"

#define PORT	7001
#define NDGRAM	8	/* twice ZN_ARP_PENDING: some wait queued, some for room */
#define DLEN	300
#define DROP_P	"0.1"

static struct {
	struct ndp n;
	struct zn_dma_region *zr;
	int32_t status[NDGRAM];
	unsigned ndone;
} F;

static void tx_done(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status)
{
	(void)arg;
	(void)ep;
	if (cookie < NDGRAM) {
		F.status[cookie] = status;
		F.ndone++;
	}
}

/* A seed whose wire-drop=DROP_P drops the first frame a device sends and
 * none of the next `pass`. */
static unsigned seed_dropping_first(unsigned pass)
{
	char err[128], spec[64];

	for (unsigned seed = 1; seed < 100000; seed++) {
		struct zn_sim_port p = { 0 };
		uint8_t frame[64] = { 0 };
		bool ok;

		p.fault = zn_sim_fault_new();
		snprintf(spec, sizeof(spec), "seed=%u,wire-drop=" DROP_P, seed);
		assert_int_equal(zn_sim_fault_apply(p.fault, spec, err, sizeof(err)), 0);
		ok = zn_sim_fault_wire(&p, frame, sizeof(frame)) == ZN_SIM_FAULT_DROP;
		for (unsigned i = 0; ok && i < pass; i++)
			ok = zn_sim_fault_wire(&p, frame, sizeof(frame)) == ZN_SIM_FAULT_PASS;
		zn_sim_fault_free(p.fault);
		if (ok)
			return seed;
	}
	fail_msg("no seed drops only the first frame");
	return 0;
}

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	if (ndp_open(&F.n, "") < 0)
		return -1;
	if (zn_dma_region_alloc("test-arp", 1u << 16, -1, ZN_DMA_NO_HUGE, &F.zr) ||
	    zn_netdev_dma_map(F.n.a, F.zr))
		return -1;
	for (unsigned i = 0; i < NDGRAM; i++)
		memset((uint8_t *)F.zr->va + i * DLEN, 'a' + (int)i, DLEN);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (F.zr)
		zn_netdev_dma_unmap(F.n.a, F.zr);
	ndp_close(&F.n);
	zn_dma_region_free(F.zr);
	return 0;
}

static void faults(unsigned dev, const char *spec)
{
	char err[128];

	assert_int_equal(zn_sim_device_faults(F.n.sim.dev[dev], spec, err, sizeof(err)), 0);
}

static uint64_t fault_count(unsigned dev, const char *key)
{
	return zn_sim_fault_counter(zn_sim_device_port(F.n.sim.dev[dev], 0)->fault, key);
}

/*
 * A sends NDGRAM datagrams to dst (a send refused for want of room in the
 * ARP queue is retried after a poll), B receives; both polled until every
 * send completed and B got `want` datagrams, or ms passed. Returns when the
 * last send completed (ms after the first send), the datagrams B got in *got
 * (their bytes checked).
 */
static uint64_t run(uint32_t dst, unsigned want, int ms, unsigned *got)
{
	struct zn_netif *na = zn_netdev_netif(F.n.a), *nb = zn_netdev_netif(F.n.b);
	struct zn_udp_conf ca = { .local = { 0, htons(PORT) }, .no_steer = true,
				  .tx_done = tx_done };
	struct zn_udp_conf cb = { .local = { 0, htons(PORT) }, .no_steer = true };
	struct zn_addr4 to = { dst, htons(PORT) };
	struct zn_udp_ep *ea, *eb;
	uint64_t t0 = zn_now_ms(), end = t0 + (uint64_t)ms, done_at = 0;
	unsigned sent = 0;

	*got = 0;
	assert_int_equal(zn_udp_open(na, &ca, &ea), 0);
	assert_int_equal(zn_udp_open(nb, &cb, &eb), 0);
	while (zn_now_ms() < end && (F.ndone < NDGRAM || *got < want)) {
		struct zn_udp_rx rx;

		while (sent < NDGRAM) {
			int rc = zn_udp_send_buf(ea, &to, (uint8_t *)F.zr->va + sent * DLEN, DLEN,
						 sent);

			if (rc == -EAGAIN)
				break;
			assert_int_equal(rc, 0);
			sent++;
		}
		zn_netdev_poll(F.n.a);
		zn_netdev_poll(F.n.b);
		while (zn_udp_recv(eb, &rx, 1)) {
			const uint8_t *d = zn_udp_rx_data(eb, &rx, 0);

			/* in order: the queue keeps send order, the wire drops none of them */
			assert_int_equal(rx.len, DLEN);
			assert_int_equal(rx.nseg, 1);
			assert_non_null(d);
			for (unsigned k = 0; k < DLEN; k++)
				assert_int_equal(d[k], 'a' + (int)*got);
			(*got)++;
			zn_udp_rx_release(eb, &rx);
		}
		if (F.ndone == NDGRAM && !done_at)
			done_at = zn_now_ms();
	}
	zn_udp_close(ea);
	zn_udp_close(eb);
	assert_int_equal(sent, NDGRAM);
	assert_int_equal(F.ndone, NDGRAM);
	return done_at - t0;
}

/* The request is lost: the retry resolves B, every datagram arrives. */
static void test_request_lost(void **state)
{
	char spec[64];
	struct zn_netif_stats sa, sb;
	unsigned got;
	uint64_t ms;

	(void)state;
	snprintf(spec, sizeof(spec), "seed=%u,wire-drop=" DROP_P,
		 seed_dropping_first(1 + NDGRAM + 4));
	faults(0, spec);
	ms = run(F.n.ip_b, NDGRAM, 4000, &got);
	assert_int_equal(got, NDGRAM);
	for (unsigned i = 0; i < NDGRAM; i++)
		assert_int_equal(F.status[i], 0);
	/* one retry's wait, not a probe cycle more */
	assert_true(ms >= ZN_ARP_RETRY_NS / 1000000 && ms < 3 * ZN_ARP_RETRY_NS / 1000000);
	assert_int_equal(fault_count(0, "wire_drops"), 1);
	zn_netif_stats(zn_netdev_netif(F.n.a), &sa);
	zn_netif_stats(zn_netdev_netif(F.n.b), &sb);
	assert_int_equal(sa.tx_arp_request, 2);
	assert_int_equal(sb.tx_arp_reply, 1);	/* the lost request got none */
	assert_int_equal(sa.arp_learned, 1);
	assert_int_equal(sa.arp_failed, 0);
	assert_int_equal(sa.tx_unresolved, 0);
	assert_int_equal(sa.tx_udp, NDGRAM);
	assert_int_equal(sb.rx_delivered, NDGRAM);
}

/* The reply is lost: B answers the retry, every datagram arrives. */
static void test_reply_lost(void **state)
{
	char spec[64];
	struct zn_netif_stats sa, sb;
	unsigned got;
	uint64_t ms;

	(void)state;
	snprintf(spec, sizeof(spec), "seed=%u,wire-drop=" DROP_P, seed_dropping_first(4));
	faults(1, spec);
	ms = run(F.n.ip_b, NDGRAM, 4000, &got);
	assert_int_equal(got, NDGRAM);
	for (unsigned i = 0; i < NDGRAM; i++)
		assert_int_equal(F.status[i], 0);
	assert_true(ms >= ZN_ARP_RETRY_NS / 1000000 && ms < 3 * ZN_ARP_RETRY_NS / 1000000);
	assert_int_equal(fault_count(1, "wire_drops"), 1);
	zn_netif_stats(zn_netdev_netif(F.n.a), &sa);
	zn_netif_stats(zn_netdev_netif(F.n.b), &sb);
	assert_int_equal(sa.tx_arp_request, 2);
	assert_int_equal(sb.tx_arp_reply, 2);
	assert_int_equal(sa.arp_learned, 1);
	assert_int_equal(sa.tx_unresolved, 0);
	assert_int_equal(sb.rx_delivered, NDGRAM);
}

/* Every frame A sends is lost: after ZN_ARP_RETRIES requests, the queued
 * sends fail with -EHOSTUNREACH; the next ones start a fresh resolution
 * and fail the same way. */
static void test_never_answered(void **state)
{
	struct zn_netif_stats sa, sb;
	uint64_t bound = ZN_ARP_RETRIES * ZN_ARP_RETRY_NS / 1000000, ms;
	unsigned got;

	(void)state;
	faults(0, "wire-drop=1");
	ms = run(F.n.ip_b, 0, 4000, &got);
	assert_int_equal(got, 0);
	for (unsigned i = 0; i < NDGRAM; i++)
		assert_int_equal(F.status[i], -EHOSTUNREACH);
	/* two rounds of ZN_ARP_PENDING, each given up after the bound */
	assert_true(ms >= 2 * bound && ms < 2 * bound + 500);
	zn_netif_stats(zn_netdev_netif(F.n.a), &sa);
	zn_netif_stats(zn_netdev_netif(F.n.b), &sb);
	assert_int_equal(sa.tx_arp_request, 2 * ZN_ARP_RETRIES);
	assert_int_equal(fault_count(0, "wire_drops"), 2 * ZN_ARP_RETRIES);
	assert_int_equal(sa.arp_failed, 2);
	assert_int_equal(sa.arp_learned, 0);
	assert_int_equal(sa.tx_unresolved, NDGRAM);
	assert_int_equal(sb.tx_arp_reply, 0);
	assert_int_equal(sb.rx_delivered, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_request_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_never_answered, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
