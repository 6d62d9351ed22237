/* SPDX-License-Identifier: MIT */
/*
 * What the mlx5 model needs to know about a frame: where its headers end
 * (header-data split), the fields flow entries match on (as an
 * fte_match_set_lyr_2_4 image, so that matching is one masked compare), the
 * Toeplitz hash, and the checksums it offloads.
 */
#include <string.h>

#include "sim/mlx5/priv.h"

#define ETH_HLEN	14
#define ET_VLAN		0x8100
#define ET_QINQ		0x88a8
#define ET_IPV4		0x0800
#define ET_IPV6		0x86dd
#define PROTO_TCP	6
#define PROTO_UDP	17

void msim_pkt_parse(const uint8_t *f, size_t len, struct msim_pkt *p)
{
	unsigned off = ETH_HLEN;

	memset(p, 0, sizeof(*p));
	if (len < ETH_HLEN)
		return;
	p->ethertype = zn_mlx5_ld_be16(f + 12);
	if ((p->ethertype == ET_VLAN || p->ethertype == ET_QINQ) && len >= ETH_HLEN + 4) {
		p->vlan = true;
		p->vid = zn_mlx5_ld_be16(f + 14) & 0xfff;
		p->ethertype = zn_mlx5_ld_be16(f + 16);
		off += 4;
	}
	if (p->ethertype == ET_IPV4 && len >= off + 20 && (f[off] >> 4) == 4) {
		unsigned ihl = (f[off] & 0xf) * 4u;

		if (ihl < 20 || len < off + ihl)
			return;
		p->ipv = 4;
		p->l3 = off;
		p->frag = (zn_mlx5_ld_be16(f + off + 6) & 0x3fff) != 0;
		p->proto = f[off + 9];
		off += ihl;
	} else if (p->ethertype == ET_IPV6 && len >= off + 40 && (f[off] >> 4) == 6) {
		p->ipv = 6;
		p->l3 = off;
		p->proto = f[off + 6];
		off += 40;
	} else {
		return;
	}
	if (p->frag || (p->proto != PROTO_TCP && p->proto != PROTO_UDP)) {
		p->proto = p->frag ? 0 : p->proto;
		return;
	}
	if (p->proto == PROTO_TCP) {
		unsigned doff;

		if (len < off + 20)
			goto no_l4;
		doff = (f[off + 12] >> 4) * 4u;
		if (doff < 20 || len < off + doff)
			goto no_l4;
		p->l4 = off;
		p->hdr_len = off + doff;
	} else {
		if (len < off + 8)
			goto no_l4;
		p->l4 = off;
		p->hdr_len = off + 8;
	}
	return;
no_l4:
	p->proto = 0;
}

void msim_pkt_match_image(const uint8_t *f, const struct msim_pkt *p, uint8_t *img)
{
	memset(img, 0, ZN_MLX5_SZ_MATCH_LYR_2_4);
	ZN_MLX5_SET(img, L24_SMAC_47_16, zn_mlx5_ld_be32(f + 6));
	ZN_MLX5_SET(img, L24_SMAC_15_0, zn_mlx5_ld_be16(f + 10));
	ZN_MLX5_SET(img, L24_DMAC_47_16, zn_mlx5_ld_be32(f));
	ZN_MLX5_SET(img, L24_DMAC_15_0, zn_mlx5_ld_be16(f + 4));
	ZN_MLX5_SET(img, L24_ETHERTYPE, p->ethertype);
	if (p->vlan) {
		ZN_MLX5_SET(img, L24_CVLAN_TAG, 1);
		ZN_MLX5_SET(img, L24_FIRST_VID, p->vid);
	}
	if (!p->ipv)
		return;
	ZN_MLX5_SET(img, L24_IP_VERSION, p->ipv);
	ZN_MLX5_SET(img, L24_FRAG, p->frag);
	if (p->ipv == 4) {
		ZN_MLX5_SET(img, L24_IP_PROTOCOL, f[p->l3 + 9]);
		memcpy((uint8_t *)ZN_MLX5_ADDR(img, L24_SRC_IP) + 12, f + p->l3 + 12, 4);
		memcpy((uint8_t *)ZN_MLX5_ADDR(img, L24_DST_IP) + 12, f + p->l3 + 16, 4);
	} else {
		ZN_MLX5_SET(img, L24_IP_PROTOCOL, f[p->l3 + 6]);
		memcpy(ZN_MLX5_ADDR(img, L24_SRC_IP), f + p->l3 + 8, 16);
		memcpy(ZN_MLX5_ADDR(img, L24_DST_IP), f + p->l3 + 24, 16);
	}
	if (!p->l4)
		return;
	if (p->proto == PROTO_TCP) {
		ZN_MLX5_SET(img, L24_TCP_SPORT, zn_mlx5_ld_be16(f + p->l4));
		ZN_MLX5_SET(img, L24_TCP_DPORT, zn_mlx5_ld_be16(f + p->l4 + 2));
		ZN_MLX5_SET(img, L24_TCP_FLAGS, zn_mlx5_ld_be16(f + p->l4 + 12) & 0x1ff);
	} else {
		ZN_MLX5_SET(img, L24_UDP_SPORT, zn_mlx5_ld_be16(f + p->l4));
		ZN_MLX5_SET(img, L24_UDP_DPORT, zn_mlx5_ld_be16(f + p->l4 + 2));
	}
}

/* Microsoft's RSS hash: for every set input bit (MSB first), XOR in the
 * 32-bit window of the key that starts at that bit. */
uint32_t msim_toeplitz(const uint8_t *key, const uint8_t *in, size_t len)
{
	uint32_t hash = 0, win = zn_mlx5_ld_be32(key);
	size_t kbit = 32;

	for (size_t i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if (in[i] >> b & 1)
				hash ^= win;
			win <<= 1;
			if (kbit < 8 * ZN_MLX5_TOEPLITZ_KEY_SIZE)
				win |= (uint32_t)(key[kbit / 8] >> (7 - kbit % 8) & 1);
			kbit++;
		}
	}
	return hash;
}

static uint32_t sum16(uint32_t s, const uint8_t *b, size_t n)
{
	for (; n > 1; n -= 2, b += 2)
		s += zn_mlx5_ld_be16(b);
	if (n)
		s += (uint32_t)b[0] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The L4 sum over the pseudo-header and the segment, as the packet
 * carries it (checksum field included). */
static uint16_t l4_sum(const uint8_t *f, size_t len, const struct msim_pkt *p, size_t *l4len)
{
	uint32_t s = 0;
	size_t n;

	if (p->ipv == 4) {
		size_t tot = zn_mlx5_ld_be16(f + p->l3 + 2);

		n = p->l3 + tot > len || tot < p->l4 - p->l3 ? len - p->l4 : p->l3 + tot - p->l4;
		s = sum16(s, f + p->l3 + 12, 8);
	} else {
		size_t pl = zn_mlx5_ld_be16(f + p->l3 + 4);

		n = p->l3 + 40 + pl > len ? len - p->l4 : p->l3 + 40 + pl - p->l4;
		s = sum16(s, f + p->l3 + 8, 32);
	}
	s += p->proto + (uint32_t)n;
	*l4len = n;
	return fold(sum16(s, f + p->l4, n));
}

void msim_csum_fill(uint8_t *f, size_t len, const struct msim_pkt *p, bool l3, bool l4)
{
	if (l3 && p->ipv == 4) {
		unsigned ihl = (f[p->l3] & 0xf) * 4u;

		zn_mlx5_st_be16(f + p->l3 + 10, 0);
		zn_mlx5_st_be16(f + p->l3 + 10, (uint16_t)~fold(sum16(0, f + p->l3, ihl)));
	}
	if (l4 && p->l4) {
		unsigned at = p->l4 + (p->proto == PROTO_TCP ? 16 : 6);
		size_t n;
		uint16_t c;

		zn_mlx5_st_be16(f + at, 0);
		c = (uint16_t)~l4_sum(f, len, p, &n);
		if (p->proto == PROTO_UDP && c == 0)
			c = 0xffff;
		zn_mlx5_st_be16(f + at, c);
	}
}

void msim_csum_check(const uint8_t *f, size_t len, const struct msim_pkt *p, bool *l3_ok,
		     bool *l4_ok, bool *l4_bad)
{
	size_t n;

	/* IPv6 has no header checksum: a parsed header is all there is to
	 * check. */
	*l3_ok = p->ipv == 6 ||
		 (p->ipv == 4 && fold(sum16(0, f + p->l3, (f[p->l3] & 0xf) * 4u)) == 0xffff);
	*l4_ok = *l4_bad = false;
	if (!p->l4)
		return;
	/* UDP over IPv4 may carry no checksum (0): nothing to verify. */
	if (p->proto == PROTO_UDP && p->ipv == 4 && zn_mlx5_ld_be16(f + p->l4 + 6) == 0)
		return;
	*l4_ok = l4_sum(f, len, p, &n) == 0xffff;
	*l4_bad = !*l4_ok;
}

uint16_t msim_csum_l3(const uint8_t *f, size_t len, const struct msim_pkt *p)
{
	size_t end = msim_ip_end(f, len, p);

	return fold(sum16(0, f + p->l3, end - p->l3));
}

size_t msim_ip_end(const uint8_t *f, size_t len, const struct msim_pkt *p)
{
	size_t end = p->ipv == 4 ? p->l3 + zn_mlx5_ld_be16(f + p->l3 + 2)
				 : p->l3 + 40 + zn_mlx5_ld_be16(f + p->l3 + 4);

	return end > len || end < p->l3 ? len : end;
}
