/* SPDX-License-Identifier: MIT */
/*
 * Frames as the bnxt model's parser sees them: Ethernet (one optional VLAN
 * tag), IPv4 (no options walked beyond IHL, fragments stop at L3) or IPv6
 * (no extension headers), TCP/UDP/ICMP. Plus the Internet checksum
 * (RFC 1071) for checksum offload and verification, and the Toeplitz hash
 * (Microsoft's "RSS hashing functions"; hw-docs/bnxt.md 11).
 */
#include <string.h>

#include "sim/bnxt/priv.h"

#define ETH_HLEN	14
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86dd
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88a8
#define IPPROTO_ICMP_	1
#define IPPROTO_TCP_	6
#define IPPROTO_UDP_	17
#define IPPROTO_ICMPV6_	58

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void bsim_pkt_parse(const uint8_t *f, size_t len, struct bsim_pkt *p)
{
	unsigned l3 = ETH_HLEN, l4;
	uint16_t et;

	memset(p, 0, sizeof(*p));
	if (len < ETH_HLEN)
		return;
	et = be16(f + 12);
	if (et == ETH_P_8021Q || et == ETH_P_8021AD) {
		if (len < ETH_HLEN + 4)
			return;
		p->vlan = true;
		l3 += 4;
		et = be16(f + 16);
	}
	p->ethertype = et;
	if (et == ETH_P_IP) {
		unsigned ihl, tot;

		if (len < l3 + 20u || (f[l3] >> 4) != 4)
			return;
		ihl = (f[l3] & 0xfu) * 4u;
		tot = be16(f + l3 + 2);
		if (ihl < 20 || tot < ihl || l3 + tot > len)
			return;
		p->ipv = 4;
		p->ip_end = l3 + tot;
		p->src = f + l3 + 12;
		p->dst = f + l3 + 16;
		p->proto = f[l3 + 9];
		p->frag = (be16(f + l3 + 6) & 0x3fff) != 0;
		l4 = l3 + ihl;
	} else if (et == ETH_P_IPV6) {
		if (len < l3 + 40u || (f[l3] >> 4) != 6 || l3 + 40u + be16(f + l3 + 4) > len)
			return;
		p->ipv = 6;
		p->ip_end = l3 + 40u + be16(f + l3 + 4);
		p->src = f + l3 + 8;
		p->dst = f + l3 + 24;
		p->proto = f[l3 + 6];
		l4 = l3 + 40;
	} else {
		return;
	}
	p->l3 = l3;
	p->hdr_len = l4;
	if (p->frag)
		return;
	switch (p->proto) {
	case IPPROTO_TCP_: {
		unsigned doff;

		if (p->ip_end < l4 + 20u)
			return;
		doff = (f[l4 + 12] >> 4) * 4u;
		if (doff < 20 || p->ip_end < l4 + doff)
			return;
		p->hdr_len = l4 + doff;
		break;
	}
	case IPPROTO_UDP_:
		if (p->ip_end < l4 + 8u)
			return;
		p->hdr_len = l4 + 8;
		break;
	case IPPROTO_ICMP_:
	case IPPROTO_ICMPV6_:
		/* split at the upper-layer header: hdr_len stays l4 */
		if ((p->proto == IPPROTO_ICMP_) != (p->ipv == 4) || p->ip_end < l4 + 8u)
			return;
		p->l4 = l4;
		return;
	default:
		return;
	}
	p->l4 = l4;
	memcpy(&p->sport, f + l4, 2);
	memcpy(&p->dport, f + l4 + 2, 2);
}

/* ---- Internet checksum ---- */

/* Summed as little-endian words with end-around carry, then swapped: the
 * ones' complement sum does not depend on byte order (RFC 1071 2(B)). Every
 * piece starts at an even offset of the checksummed stream. */
uint32_t bsim_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t s = 0;
	uint32_t w;
	uint16_t h;

	while (len >= 4) {
		memcpy(&w, p, 4);
		s += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		s += h;
		p += 2;
		len -= 2;
	}
	if (len)
		s += *p;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return sum + __builtin_bswap16((uint16_t)s);
}

uint16_t bsim_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t pseudo(const uint8_t *f, const struct bsim_pkt *p)
{
	unsigned alen = p->ipv == 4 ? 4 : 16;
	uint32_t l4len = p->ip_end - p->l4;
	uint8_t tail[8] = { 0 };
	uint32_t sum;

	(void)f;
	sum = bsim_csum_add(0, p->src, alen);
	sum = bsim_csum_add(sum, p->dst, alen);
	/* IPv4: zero, protocol, 16-bit length; IPv6: 32-bit length, 3 zeros,
	 * next header: both sum to the same words. */
	tail[2] = (uint8_t)(l4len >> 24);
	tail[3] = (uint8_t)(l4len >> 16);
	tail[4] = (uint8_t)(l4len >> 8);
	tail[5] = (uint8_t)l4len;
	tail[7] = p->proto;
	return bsim_csum_add(sum, tail, sizeof(tail));
}

static unsigned csum_off(const struct bsim_pkt *p)
{
	return p->proto == IPPROTO_TCP_ ? 16 : p->proto == IPPROTO_UDP_ ? 6 : 2;
}

void bsim_csum_fill(uint8_t *f, const struct bsim_pkt *p, bool ip, bool l4)
{
	if (ip && p->ipv == 4) {
		unsigned ihl = (f[p->l3] & 0xfu) * 4u;
		uint16_t c;

		f[p->l3 + 10] = f[p->l3 + 11] = 0;
		c = (uint16_t)~bsim_csum_fold(bsim_csum_add(0, f + p->l3, ihl));
		f[p->l3 + 10] = (uint8_t)(c >> 8);
		f[p->l3 + 11] = (uint8_t)c;
	}
	if (l4 && p->l4 && (p->proto == IPPROTO_TCP_ || p->proto == IPPROTO_UDP_)) {
		unsigned o = p->l4 + csum_off(p);
		uint16_t c;

		f[o] = f[o + 1] = 0;
		c = (uint16_t)~bsim_csum_fold(bsim_csum_add(pseudo(f, p), f + p->l4,
							    p->ip_end - p->l4));
		if (c == 0 && p->proto == IPPROTO_UDP_)
			c = 0xffff;	/* RFC 768: 0 means "no checksum" */
		f[o] = (uint8_t)(c >> 8);
		f[o + 1] = (uint8_t)c;
	}
}

void bsim_csum_check(const uint8_t *f, const struct bsim_pkt *p, bool *ip_ok, bool *l4_ok,
		     bool *ip_calc, bool *l4_calc)
{
	*ip_ok = *l4_ok = true;
	*ip_calc = *l4_calc = false;
	if (p->ipv == 4) {
		*ip_calc = true;
		*ip_ok = bsim_csum_fold(bsim_csum_add(0, f + p->l3, (f[p->l3] & 0xfu) * 4u)) ==
			 0xffff;
	}
	if (!p->l4 || (p->proto != IPPROTO_TCP_ && p->proto != IPPROTO_UDP_))
		return;
	if (p->proto == IPPROTO_UDP_ && p->ipv == 4 && !f[p->l4 + 6] && !f[p->l4 + 7])
		return;		/* UDP over IPv4 without a checksum */
	*l4_calc = true;
	*l4_ok = bsim_csum_fold(bsim_csum_add(pseudo(f, p), f + p->l4, p->ip_end - p->l4)) ==
		 0xffff;
}

/* ---- Toeplitz ---- */

uint32_t bsim_toeplitz(const uint8_t key[BNXT_RSS_KEY_SIZE], const uint8_t *in, size_t len)
{
	uint32_t hash = 0, win;

	/* the key's 32-bit window slides one bit per input bit, MSB first */
	win = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];
	for (size_t i = 0; i < len; i++) {
		uint8_t next = i + 4 < BNXT_RSS_KEY_SIZE ? key[i + 4] : 0;

		for (int b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= win;
			win = win << 1 | ((next >> b) & 1u);
		}
	}
	return hash;
}
