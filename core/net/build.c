/* SPDX-License-Identifier: MIT */
/*
 * Header builders: Ethernet II, IPv4 (RFC 791), UDP (RFC 768), ARP for
 * Ethernet/IPv4 (RFC 826). Checksums are stored with memcpy in the order
 * zn_csum_fold gives them (see csum.c).
 */
#include <string.h>

#include "zcnic/net.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

size_t zn_eth_build(uint8_t *p, const uint8_t dst[ZN_ETH_ALEN], const uint8_t src[ZN_ETH_ALEN],
		    uint16_t type)
{
	memcpy(p, dst, ZN_ETH_ALEN);
	memcpy(p + 6, src, ZN_ETH_ALEN);
	put16(p + 12, type);
	return ZN_ETH_HLEN;
}

size_t zn_ipv4_build(uint8_t *p, uint32_t src, uint32_t dst, uint8_t proto, uint16_t l4_len,
		     uint16_t id, uint8_t ttl)
{
	uint16_t c;

	p[0] = 0x45;		/* version 4, IHL 5 */
	p[1] = 0;		/* DSCP/ECN */
	put16(p + 2, (uint16_t)(ZN_IPV4_HLEN + l4_len));
	put16(p + 4, id);
	put16(p + 6, ZN_IPV4_DF);	/* we never fragment (RFC 791 DF) */
	p[8] = ttl;
	p[9] = proto;
	memcpy(p + 12, &src, 4);
	memcpy(p + 16, &dst, 4);
	c = zn_ipv4_csum(p, ZN_IPV4_HLEN);
	memcpy(p + 10, &c, 2);
	return ZN_IPV4_HLEN;
}

size_t zn_udp_build(uint8_t *p, uint16_t sport, uint16_t dport, uint16_t payload_len)
{
	memcpy(p, &sport, 2);
	memcpy(p + 2, &dport, 2);
	put16(p + 4, (uint16_t)(ZN_UDP_HLEN + payload_len));
	p[6] = p[7] = 0;
	return ZN_UDP_HLEN;
}

uint16_t zn_udp_csum(uint32_t src, uint32_t dst, const uint8_t *udp_hdr, const void *pay,
		     size_t len, const void *pay2, size_t len2)
{
	uint32_t s = zn_ipv4_pseudo(src, dst, ZN_IPPROTO_UDP,
				    (uint16_t)(ZN_UDP_HLEN + len + len2));
	uint16_t c;

	s = zn_csum_add(s, udp_hdr, 6);		/* the checksum field counts as 0 */
	s = zn_csum_add(s, pay, len);
	if (pay2 && len2) {
		uint32_t s2 = zn_csum_fold(zn_csum_add(0, pay2, len2));

		/* the second piece starts at an odd stream offset if len is odd */
		if (len & 1)
			s2 = (uint16_t)__builtin_bswap16((uint16_t)s2);
		s += s2;
	}
	c = (uint16_t)~zn_csum_fold(s);
	return c ? c : 0xffff;		/* RFC 768: a computed 0 is sent as all ones */
}

size_t zn_udp_frame_build(uint8_t *buf, size_t cap, const uint8_t dst_mac[ZN_ETH_ALEN],
			  const uint8_t src_mac[ZN_ETH_ALEN], const struct zn_addr4 *src,
			  const struct zn_addr4 *dst, const void *payload, size_t len, uint16_t ip_id)
{
	uint8_t *u = buf + ZN_ETH_HLEN + ZN_IPV4_HLEN;
	uint16_t c;

	if (cap < ZN_UDP_HDRS || len > cap - ZN_UDP_HDRS ||
	    len > 0xffff - ZN_IPV4_HLEN - ZN_UDP_HLEN)
		return 0;
	zn_eth_build(buf, dst_mac, src_mac, ZN_ETH_P_IPV4);
	zn_ipv4_build(buf + ZN_ETH_HLEN, src->ip, dst->ip, ZN_IPPROTO_UDP,
		      (uint16_t)(ZN_UDP_HLEN + len), ip_id, ZN_NET_TTL);
	zn_udp_build(u, src->port, dst->port, (uint16_t)len);
	if (len)
		memmove(u + ZN_UDP_HLEN, payload, len);
	c = zn_udp_csum(src->ip, dst->ip, u, u + ZN_UDP_HLEN, len, NULL, 0);
	memcpy(u + 6, &c, 2);
	return ZN_UDP_HDRS + len;
}

size_t zn_arp_build(uint8_t *p, uint16_t op, const uint8_t eth_dst[ZN_ETH_ALEN],
		    const uint8_t sha[ZN_ETH_ALEN], uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
	uint8_t *a = p + ZN_ETH_HLEN;

	zn_eth_build(p, eth_dst, sha, ZN_ETH_P_ARP);
	put16(a, 1);			/* hardware type: Ethernet */
	put16(a + 2, ZN_ETH_P_IPV4);	/* protocol type */
	a[4] = ZN_ETH_ALEN;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, sha, ZN_ETH_ALEN);
	memcpy(a + 14, &spa, 4);
	if (tha)
		memcpy(a + 18, tha, ZN_ETH_ALEN);
	else
		memset(a + 18, 0, ZN_ETH_ALEN);
	memcpy(a + 24, &tpa, 4);
	return ZN_ETH_HLEN + ZN_ARP_LEN;
}
