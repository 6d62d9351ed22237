/* SPDX-License-Identifier: MIT */
/*
 * What every driver that aggregates TCP frames on receive (bnxt TPA, mlx5
 * SHAMPO) does to the first frame's headers so that they stand for the
 * whole aggregate (include/zcnic/port.h ZN_RX_F_AGG).
 */
#ifndef ZCNIC_DRIVERS_COMMON_RX_AGG_H
#define ZCNIC_DRIVERS_COMMON_RX_AGG_H

#include <stdint.h>

/*
 * h: hlen bytes of Ethernet (one optional VLAN tag), IPv4 or IPv6, TCP.
 * The IP length becomes pkt_len's (the IPv4 header checksum is recomputed),
 * as Linux's GRO completion leaves them (inet_gro_complete,
 * ipv6_gro_complete); headers it does not know are left alone.
 */
void zn_rx_agg_fix_hdr(uint8_t *h, uint32_t hlen, uint32_t pkt_len);

#endif
