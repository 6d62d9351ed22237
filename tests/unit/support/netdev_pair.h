/* SPDX-License-Identifier: MIT */
/*
 * Tests: two netdevs over an in-process zn-nicsim, two bnxt models (or two
 * mlx5 ones, ndp_open_mlx5) joined by a pair wire. A = 10.77.0.1/24, B = 10.77.0.2/24, each with
 * NDP_RXQ RX queues. Payload buffers are 4096 bytes (the netdev default).
 */
#ifndef ZN_TEST_NETDEV_PAIR_H
#define ZN_TEST_NETDEV_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/unit/support/bnxt_test_client.h"
#include "tests/unit/support/mlx5_test_client.h"
#include "zcnic/netdev.h"

#define NDP_RXQ		2
#define NDP_IP_A	"10.77.0.1"
#define NDP_IP_B	"10.77.0.2"

struct ndp {
	struct btc_sim sim;		/* bnxt */
	struct mtc_sim msim;		/* mlx5 (ndp_open_mlx5) */
	bool mlx5;
	struct zn_netdev *a, *b;
	uint32_t ip_a, ip_b;		/* network order */
};

/* 0, or -errno (with a line on stderr). model_opts: "" or ",key=val,...". */
int ndp_open(struct ndp *n, const char *model_opts);
/* The same with an L3 MTU (0: 1500) and RX ring size (0: 256) on both netdevs. */
int ndp_open_ex(struct ndp *n, const char *model_opts, uint32_t mtu, uint32_t rx_ring);
/* The same with receive aggregation (zn_netdev_conf rx_agg: TPA on bnxt) on both. */
int ndp_open_agg(struct ndp *n, const char *model_opts, uint32_t mtu, uint32_t rx_ring,
		 bool rx_agg);
/* ndp_open_agg's pair on two mlx5 models (rx_agg: SHAMPO HW-GRO). */
int ndp_open_mlx5(struct ndp *n, uint32_t mtu, uint32_t rx_ring, bool rx_agg);
void ndp_close(struct ndp *n);
/* Poll both netdevs until ARP resolved each other (at most ms): 0 or -ETIMEDOUT. */
int ndp_resolve(struct ndp *n, int ms);

#endif
