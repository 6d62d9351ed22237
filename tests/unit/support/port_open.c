/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "tests/unit/support/port_open.h"

int tpo_open(const char *sock_path, const struct zn_rxq_conf *rq, struct zn_port **p)
{
	struct zn_bus_open_opts o = { .timeout_ms = 3000 };
	struct zn_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mtu = 1500 };
	struct zn_txq_conf tq = { .ring_size = 256, .numa_node = -1 };
	char spec[160];

	snprintf(spec, sizeof(spec), "vfio-user:%s", sock_path);
	if (zn_port_open(spec, &o, p) || zn_port_configure(*p, &pc) ||
	    zn_port_rxq_setup(*p, 0, rq) || zn_port_txq_setup(*p, 0, &tq))
		return -1;
	return zn_port_start(*p);
}
