/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "tests/unit/support/netdev_pair.h"
#include "core/net/netif.h"

int ndp_open(struct ndp *n, const char *model_opts)
{
	return ndp_open_ex(n, model_opts, 0, 0);
}

int ndp_open_ex(struct ndp *n, const char *model_opts, uint32_t mtu, uint32_t rx_ring)
{
	return ndp_open_agg(n, model_opts, mtu, rx_ring, false);
}

/* Both netdevs on the two devices of a started zn-nicsim (paths p0, p1). */
static int open_both(struct ndp *n, const char *p0, const char *p1, uint32_t mtu,
		     uint32_t rx_ring, bool rx_agg)
{
	struct zn_netdev_conf c = { .prefix_len = 24, .nb_rxq = NDP_RXQ,
				    .rx_ring = rx_ring ? rx_ring : 256, .tx_ring = 256, .mtu = mtu,
				    .no_rx_agg = !rx_agg };
	char spec[128];
	int rc;

	n->ip_a = inet_addr(NDP_IP_A);
	n->ip_b = inet_addr(NDP_IP_B);
	c.ip = n->ip_a;
	snprintf(spec, sizeof(spec), "vfio-user:%s", p0);
	rc = zn_netdev_open(spec, &c, &n->a);
	if (rc == 0) {
		c.ip = n->ip_b;
		snprintf(spec, sizeof(spec), "vfio-user:%s", p1);
		rc = zn_netdev_open(spec, &c, &n->b);
	}
	if (rc < 0) {
		fprintf(stderr, "ndp: netdev open: %s\n", strerror(-rc));
		ndp_close(n);
	}
	return rc;
}

int ndp_open_agg(struct ndp *n, const char *model_opts, uint32_t mtu, uint32_t rx_ring,
		 bool rx_agg)
{
	memset(n, 0, sizeof(*n));
	if (btc_sim_start(&n->sim, model_opts, model_opts, true) < 0) {
		fprintf(stderr, "ndp: zn-nicsim did not start\n");
		return -EIO;
	}
	return open_both(n, n->sim.path[0], n->sim.path[1], mtu, rx_ring, rx_agg);
}

int ndp_open_mlx5(struct ndp *n, uint32_t mtu, uint32_t rx_ring, bool rx_agg)
{
	memset(n, 0, sizeof(*n));
	n->mlx5 = true;
	if (mtc_sim_start(&n->msim, "mlx5", "mlx5", true) < 0) {
		fprintf(stderr, "ndp: zn-nicsim did not start\n");
		return -EIO;
	}
	return open_both(n, n->msim.path[0], n->msim.path[1], mtu, rx_ring, rx_agg);
}

void ndp_close(struct ndp *n)
{
	zn_netdev_close(n->a);
	zn_netdev_close(n->b);
	n->a = n->b = NULL;
	if (n->mlx5)
		mtc_sim_stop(&n->msim);
	else
		btc_sim_stop(&n->sim);
}

int ndp_resolve(struct ndp *n, int ms)
{
	struct zn_netif *na = zn_netdev_netif(n->a), *nb = zn_netdev_netif(n->b);
	struct zn_udp_conf uc = { .local = { 0, htons(9) }, .no_steer = true };
	struct zn_addr4 to_b = { n->ip_b, htons(9) }, to_a = { n->ip_a, htons(9) };
	struct zn_udp_ep *ea = NULL, *eb = NULL;
	uint64_t end = zn_now_ms() + (uint64_t)ms;
	uint8_t mac[ZN_ETH_ALEN];
	int rc = -ETIMEDOUT;

	/* An empty datagram each way to the discard port makes each side ARP. */
	if (zn_udp_open(na, &uc, &ea) < 0 || zn_udp_open(nb, &uc, &eb) < 0)
		goto out;
	zn_udp_send(ea, &to_b, NULL, 0, 1);
	zn_udp_send(eb, &to_a, NULL, 0, 2);
	while (zn_now_ms() < end) {
		struct zn_udp_rx rx;

		zn_netdev_poll(n->a);
		zn_netdev_poll(n->b);
		while (zn_udp_recv(ea, &rx, 1))
			zn_udp_rx_release(ea, &rx);
		while (zn_udp_recv(eb, &rx, 1))
			zn_udp_rx_release(eb, &rx);
		if (zn_netif_arp_lookup(na, n->ip_b, mac) == 0 &&
		    zn_netif_arp_lookup(nb, n->ip_a, mac) == 0) {
			rc = 0;
			break;
		}
	}
out:
	zn_udp_close(ea);
	zn_udp_close(eb);
	return rc;
}
