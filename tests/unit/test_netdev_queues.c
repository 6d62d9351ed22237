/* SPDX-License-Identifier: MIT */
/*
 * Queue netdevs (zn_netdev_conf.queues, zn_netdev_queue_open) over two bnxt
 * models on a pair wire, in one thread: which queue each one polls, the
 * errors of opening one twice or past the count, the parent's ARP answer
 * pinned into the queues, and RSS putting each flow on the queue
 * zn_rss_pick_sport chose for it (the same local port open on both queues,
 * no flow rule).
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
#include "core/net/netif.h"
#include "tests/unit/support/bnxt_test_client.h"
#include "zcnic/rss.h"

#define NQ		2
#define IP_A		"10.78.0.1"
#define IP_B		"10.78.0.2"
#define PORT_B		5201
#define WAIT_MS		3000

struct qp {
	struct btc_sim sim;
	struct zn_netdev *a, *b;
	uint32_t ip_a, ip_b;
};

static int open_one(struct qp *s, int i, uint32_t ip, struct zn_netdev **d)
{
	struct zn_netdev_conf c = { .ip = ip, .prefix_len = 24, .nb_rxq = 1, .queues = NQ,
				    .rx_ring = 256, .tx_ring = 256 };
	char spec[128];

	snprintf(spec, sizeof(spec), "vfio-user:%s", s->sim.path[i]);
	return zn_netdev_open(spec, &c, d);
}

static int setup(void **state)
{
	struct qp *s = calloc(1, sizeof(*s));

	if (!s || btc_sim_start(&s->sim, "", "", true) < 0) {
		free(s);
		return -1;
	}
	s->ip_a = inet_addr(IP_A);
	s->ip_b = inet_addr(IP_B);
	if (open_one(s, 0, s->ip_a, &s->a) || open_one(s, 1, s->ip_b, &s->b)) {
		zn_netdev_close(s->a);
		btc_sim_stop(&s->sim);
		free(s);
		return -1;
	}
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct qp *s = *state;

	zn_netdev_close(s->a);
	zn_netdev_close(s->b);
	btc_sim_stop(&s->sim);
	free(s);
	return 0;
}

/* A resolves B, B's parent answering (both polled here). */
static void resolve(struct qp *s)
{
	uint64_t end = zn_now_ms() + WAIT_MS;
	int rc;

	while ((rc = zn_netif_arp_probe(zn_netdev_netif(s->a), s->ip_b)) == -EINPROGRESS &&
	       zn_now_ms() < end) {
		zn_netdev_poll(s->a);
		zn_netdev_poll(s->b);
	}
	assert_int_equal(rc, 0);
}

static void test_open_rules(void **state)
{
	struct qp *s = *state;
	struct zn_netdev *q0, *q1, *x;

	assert_int_equal(zn_netdev_rxq(s->a), 0);
	assert_int_equal(zn_netdev_queue_open(s->a, 0, &q0), 0);
	assert_int_equal(zn_netdev_queue_open(s->a, 1, &q1), 0);
	assert_int_equal(zn_netdev_rxq(q0), 1);
	assert_int_equal(zn_netdev_rxq(q1), 2);
	assert_true(zn_netdev_polls_rxq(q0, 1) && !zn_netdev_polls_rxq(q0, 0) &&
		    !zn_netdev_polls_rxq(q0, 2));
	assert_true(zn_netdev_polls_rxq(s->a, 0) && !zn_netdev_polls_rxq(s->a, 1));
	assert_true(zn_netdev_is_queue(q0) && !zn_netdev_is_queue(s->a));
	assert_int_not_equal(zn_netdev_ifindex(q0), zn_netdev_ifindex(q1));
	assert_ptr_equal(zn_netdev_by_ifindex(zn_netdev_ifindex(q1)), q1);
	assert_ptr_equal(zn_netdev_port(q0), zn_netdev_port(s->a));
	assert_int_equal(zn_netdev_queue_open(s->a, 0, &x), -EBUSY);
	assert_int_equal(zn_netdev_queue_open(s->a, NQ, &x), -EINVAL);
	assert_int_equal(zn_netdev_queue_open(q0, 0, &x), -EINVAL);
	zn_netdev_close(q0);
	assert_int_equal(zn_netdev_queue_open(s->a, 0, &q0), 0);
	zn_netdev_close(q0);
	/* q1 stays open: the parent's close closes it */
}

static void test_conf_limits_static(void **state)
{
	struct zn_netdev_conf c = { .ip = inet_addr(IP_A), .prefix_len = 24, .nb_rxq = 1,
				    .queues = ZN_PORT_MAX_QUEUES };
	struct zn_netdev *d = NULL;

	(void)state;
	/* 1 + 64 RX queues do not fit a port: said before the device is touched */
	assert_int_equal(zn_netdev_open("vfio-user:/nonexistent", &c, &d), -EINVAL);
	assert_null(d);
}

static void test_resolve_pins_into_queues(void **state)
{
	struct qp *s = *state;
	struct zn_netdev *q;
	uint8_t mac[ZN_ETH_ALEN];

	assert_int_equal(zn_netdev_resolve(s->a, inet_addr("192.0.2.1"), 10), -ENETUNREACH);
	resolve(s);
	assert_int_equal(zn_netdev_queue_open(s->a, 1, &q), 0);
	assert_int_equal(zn_netif_arp_lookup(zn_netdev_netif(q), s->ip_b, mac), 0);
	/* resolved already: at once, without polling */
	assert_int_equal(zn_netdev_resolve(s->a, s->ip_b, 0), 0);
	zn_netdev_close(q);
}

/* Flow i from A's queue i lands on B's queue i, and only there. */
static void test_rss_spreads_flows(void **state)
{
	struct qp *s = *state;
	struct zn_netdev *qa[NQ], *qb[NQ];
	struct zn_udp_ep *ta[NQ], *rb[NQ];
	uint16_t sport[NQ];
	uint32_t got[NQ][NQ] = { { 0 } };
	uint64_t end;

	resolve(s);
	for (uint16_t i = 0; i < NQ; i++) {
		struct zn_udp_conf rc = { .local = { 0, htons(PORT_B) }, .rxq = (uint16_t)(1 + i),
					  .no_steer = true };
		int p = zn_rss_pick_sport(s->ip_a, s->ip_b, PORT_B, 7000, NQ, i);

		assert_true(p > 0);
		sport[i] = (uint16_t)p;
		assert_int_equal(zn_netdev_queue_open(s->a, i, &qa[i]), 0);
		assert_int_equal(zn_netdev_queue_open(s->b, i, &qb[i]), 0);
		/* the same local port on each receiving queue */
		assert_int_equal(zn_udp_open(zn_netdev_netif(qb[i]), &rc, &rb[i]), 0);
		rc.local.port = htons(sport[i]);
		assert_int_equal(zn_udp_open(zn_netdev_netif(qa[i]), &rc, &ta[i]), 0);
	}
	for (uint16_t i = 0; i < NQ; i++)
		for (uint32_t k = 0; k < 4; k++)
			assert_int_equal(zn_udp_send(ta[i], &(struct zn_addr4){ s->ip_b,
						     htons(PORT_B) }, NULL, 0, k), 0);
	end = zn_now_ms() + WAIT_MS;
	while (zn_now_ms() < end && got[0][0] + got[1][1] + got[0][1] + got[1][0] < 2 * 4) {
		for (uint16_t i = 0; i < NQ; i++) {
			struct zn_udp_rx rx;

			zn_netdev_poll(qa[i]);
			zn_netdev_poll(qb[i]);
			while (zn_udp_recv(rb[i], &rx, 1)) {
				for (uint16_t j = 0; j < NQ; j++)
					got[i][j] += rx.src.port == htons(sport[j]);
				assert_int_equal(rx.queue, 1 + i);
				zn_udp_rx_release(rb[i], &rx);
			}
		}
	}
	assert_int_equal(got[0][0], 4);
	assert_int_equal(got[1][1], 4);
	assert_int_equal(got[0][1], 0);
	assert_int_equal(got[1][0], 0);
	for (uint16_t i = 0; i < NQ; i++) {
		zn_udp_close(ta[i]);
		zn_udp_close(rb[i]);
		zn_netdev_close(qa[i]);
		zn_netdev_close(qb[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_rules, setup, teardown),
		cmocka_unit_test(test_conf_limits_static),
		cmocka_unit_test_setup_teardown(test_resolve_pins_into_queues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rss_spreads_flows, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
