/* SPDX-License-Identifier: MIT */
/*
 * Tests: one zcnic port on a zn-nicsim device socket, brought up with one
 * RX queue (rq as given) and one TX queue of 256 descriptors, MTU 1500.
 */
#ifndef ZN_TEST_PORT_OPEN_H
#define ZN_TEST_PORT_OPEN_H

#include "zcnic/port.h"

/* 0, or -1 (the failing call logged why). */
int tpo_open(const char *sock_path, const struct zn_rxq_conf *rq, struct zn_port **p);

#endif
