/* SPDX-License-Identifier: MIT */
/*
 * ICMP echo reply (RFC 792; RFC 1122 3.2.2.6: the reply carries the
 * request's identifier, sequence number and data unchanged). The reply gets
 * a fresh 20-byte IPv4 header: the request's IP options are not echoed.
 */
#include <string.h>

#include "zcnic/net.h"

size_t zn_icmp_echo_reply(const struct zn_frame *f, const struct zn_net_rx_info *info,
			  const uint8_t mac[ZN_ETH_ALEN], uint16_t ip_id, uint8_t *out, size_t cap)
{
	uint32_t icmp_len = ZN_ICMP_HLEN + info->payload_len;
	size_t total = ZN_ETH_HLEN + ZN_IPV4_HLEN + (size_t)icmp_len;
	uint8_t *icmp = out + ZN_ETH_HLEN + ZN_IPV4_HLEN;
	uint16_t c;

	if (total > cap || icmp_len > 0xffff - ZN_IPV4_HLEN)
		return 0;
	if (zn_frame_copy(f, info->l4, icmp, icmp_len) != icmp_len)
		return 0;
	zn_eth_build(out, info->eth_src, mac, ZN_ETH_P_IPV4);
	zn_ipv4_build(out + ZN_ETH_HLEN, info->dst_ip, info->src_ip, ZN_IPPROTO_ICMP,
		      (uint16_t)icmp_len, ip_id, ZN_NET_TTL);
	icmp[0] = ZN_ICMP_ECHO_REPLY;
	icmp[1] = 0;
	icmp[2] = icmp[3] = 0;
	c = (uint16_t)~zn_csum_fold(zn_csum_add(0, icmp, icmp_len));
	memcpy(icmp + 2, &c, 2);
	return total;
}
