/* SPDX-License-Identifier: MIT */
/*
 * TX header templates: the Ethernet+IPv4+UDP header of one (source,
 * destination) pair built once; per datagram only the lengths, the IP id
 * and the checksums change. The checksums start from sums of the fixed
 * fields kept with the template, so a datagram costs a 42-byte copy and a
 * few additions.
 */
#ifndef ZCNIC_CORE_NET_TX_TMPL_H
#define ZCNIC_CORE_NET_TX_TMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "zcnic/net.h"

struct zn_udp_tmpl {
	struct zn_addr4 dst;		/* the key */
	uint32_t ip_sum;		/* IPv4 header without length, id, checksum */
	uint32_t udp_sum;		/* pseudo-header + ports, without the lengths */
	uint8_t hdr[ZN_UDP_HDRS];
};

/* dst_mac NULL: zeros, patched with zn_udp_tmpl_set_mac once resolved. */
void zn_udp_tmpl_build(struct zn_udp_tmpl *t, const uint8_t src_mac[ZN_ETH_ALEN],
		       const uint8_t *dst_mac, const struct zn_addr4 *src,
		       const struct zn_addr4 *dst);
void zn_udp_tmpl_set_mac(struct zn_udp_tmpl *t, const uint8_t dst_mac[ZN_ETH_ALEN]);
/*
 * The header of one datagram of len payload bytes into out (42 bytes).
 * have_sum: pay_sum is the running checksum sum of the payload (zn_csum_add
 * from an even offset), and the UDP checksum is filled; else it is 0.
 */
void zn_udp_tmpl_write(const struct zn_udp_tmpl *t, uint8_t *out, uint16_t len, uint16_t ip_id,
		       bool have_sum, uint32_t pay_sum);

#endif
