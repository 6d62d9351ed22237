/* SPDX-License-Identifier: MIT */
/* core/net: a netdev's side of interrupt mode: its queues' interrupts and
 * its netif's timers are what may end a sleep. */
#include <stdint.h>

#include "core/net/netif.h"
#include "zcnic/netdev.h"

int zn_netdev_irq_arm(struct zn_netdev *d, int *fds, unsigned max, uint64_t *deadline)
{
	/* the netif's clock is CLOCK_MONOTONIC unless a test gave it another */
	uint64_t t = zn_netif_next_timer(zn_netdev_netif(d));

	if (t < *deadline)
		*deadline = t;
	return zn_port_irq_arm(zn_netdev_port(d), fds, max);
}
