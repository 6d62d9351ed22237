/* SPDX-License-Identifier: MIT */
/* TX header templates (see tx_tmpl.h). */
#include <string.h>

#include "core/net/tx_tmpl.h"

#define IP_OFF	ZN_ETH_HLEN
#define UDP_OFF	(ZN_ETH_HLEN + ZN_IPV4_HLEN)

/* A 16-bit field as the running sum sees it (memory order). */
static uint32_t word(uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	uint16_t w;

	memcpy(&w, b, 2);
	return w;
}

void zn_udp_tmpl_build(struct zn_udp_tmpl *t, const uint8_t src_mac[ZN_ETH_ALEN],
		       const uint8_t *dst_mac, const struct zn_addr4 *src,
		       const struct zn_addr4 *dst)
{
	static const uint8_t zero[ZN_ETH_ALEN];
	uint8_t *ip = t->hdr + IP_OFF, *u = t->hdr + UDP_OFF;

	t->dst = *dst;
	zn_eth_build(t->hdr, dst_mac ? dst_mac : zero, src_mac, ZN_ETH_P_IPV4);
	zn_ipv4_build(ip, src->ip, dst->ip, ZN_IPPROTO_UDP, 0, 0, ZN_NET_TTL);
	zn_udp_build(u, src->port, dst->port, 0);
	/* bytes 0-1 (version..tos), 6-9 (flags, ttl, proto), 12-19 (addresses) */
	t->ip_sum = zn_csum_add(zn_csum_add(zn_csum_add(0, ip, 2), ip + 6, 4), ip + 12, 8);
	t->udp_sum = zn_csum_add(zn_ipv4_pseudo(src->ip, dst->ip, ZN_IPPROTO_UDP, 0), u, 4);
}

void zn_udp_tmpl_set_mac(struct zn_udp_tmpl *t, const uint8_t dst_mac[ZN_ETH_ALEN])
{
	memcpy(t->hdr, dst_mac, ZN_ETH_ALEN);
}

void zn_udp_tmpl_write(const struct zn_udp_tmpl *t, uint8_t *out, uint16_t len, uint16_t ip_id,
		       bool have_sum, uint32_t pay_sum)
{
	uint16_t tot = (uint16_t)(ZN_IPV4_HLEN + ZN_UDP_HLEN + len);
	uint16_t ulen = (uint16_t)(ZN_UDP_HLEN + len), c;
	uint8_t *ip = out + IP_OFF, *u = out + UDP_OFF;

	memcpy(out, t->hdr, ZN_UDP_HDRS);
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[4] = (uint8_t)(ip_id >> 8);
	ip[5] = (uint8_t)ip_id;
	c = (uint16_t)~zn_csum_fold(t->ip_sum + word(tot) + word(ip_id));
	memcpy(ip + 10, &c, 2);
	u[4] = (uint8_t)(ulen >> 8);
	u[5] = (uint8_t)ulen;
	c = 0;
	if (have_sum) {
		/* ulen counts twice: in the pseudo-header and in the header */
		c = (uint16_t)~zn_csum_fold(t->udp_sum + 2 * word(ulen) +
					    zn_csum_fold(pay_sum));
		if (!c)
			c = 0xffff;	/* RFC 768 */
	}
	memcpy(u + 6, &c, 2);
}
