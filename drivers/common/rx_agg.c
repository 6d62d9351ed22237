/* SPDX-License-Identifier: MIT */
#include "drivers/common/rx_agg.h"

#define ETH_HLEN	14
#define ETH_P_8021Q	0x8100
#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86dd

void zn_rx_agg_fix_hdr(uint8_t *h, uint32_t hlen, uint32_t pkt_len)
{
	uint32_t l2 = ETH_HLEN, et;

	if (hlen < ETH_HLEN)
		return;
	et = (uint32_t)h[12] << 8 | h[13];
	if (et == ETH_P_8021Q && hlen >= 18) {
		l2 = 18;
		et = (uint32_t)h[16] << 8 | h[17];
	}
	if (et == ETH_P_IPV4 && hlen >= l2 + 20) {
		uint8_t *ip = h + l2;
		uint32_t ihl = (ip[0] & 0xfu) * 4u, tot = pkt_len - l2, s = 0;

		if (ihl < 20 || l2 + ihl > hlen || tot > 0xffff)
			return;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[10] = ip[11] = 0;
		for (uint32_t i = 0; i < ihl; i += 2)
			s += (uint32_t)ip[i] << 8 | ip[i + 1];
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ip[10] = (uint8_t)(~s >> 8);
		ip[11] = (uint8_t)~s;
	} else if (et == ETH_P_IPV6 && hlen >= l2 + 40 && pkt_len - l2 - 40 <= 0xffff) {
		uint32_t pl = pkt_len - l2 - 40;

		h[l2 + 4] = (uint8_t)(pl >> 8);
		h[l2 + 5] = (uint8_t)pl;
	}
}
