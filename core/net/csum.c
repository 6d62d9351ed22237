/* SPDX-License-Identifier: MIT */
/*
 * The Internet checksum (RFC 1071): a one's complement sum of 16-bit words.
 * Sums are kept in 32 bits and folded at the end; a piece that starts at an
 * odd offset of the stream has its sum byte-swapped (RFC 1071 section 2(B),
 * byte order independence).
 */
#include <string.h>

#include "zcnic/net.h"

uint32_t zn_csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t s = sum;

	/* 8 bytes at a time into 64 bits: carries are folded back below. */
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, b, 8);
		s += w >> 32;
		s += w & 0xffffffffu;
		b += 8;
		len -= 8;
	}
	while (len >= 2) {
		uint16_t w;

		memcpy(&w, b, 2);
		s += w;
		b += 2;
		len -= 2;
	}
	if (len) {
		uint16_t w = 0;

		memcpy(&w, b, 1);	/* the odd byte, padded with zero on its right */
		s += w;
	}
	while (s >> 32)
		s = (s & 0xffffffffu) + (s >> 32);
	return (uint32_t)s;
}

/*
 * Words are summed as they sit in memory (native loads); by the byte order
 * independence of the sum, the folded value stored back with a native store
 * is the checksum in network order. So fold's result is in memory order:
 * memcpy ~fold into the field.
 */
uint16_t zn_csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint32_t zn_ipv4_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t l4_len)
{
	uint8_t ph[12];

	memcpy(ph, &src, 4);
	memcpy(ph + 4, &dst, 4);
	ph[8] = 0;
	ph[9] = proto;
	ph[10] = (uint8_t)(l4_len >> 8);
	ph[11] = (uint8_t)l4_len;
	return zn_csum_add(0, ph, sizeof(ph));
}

uint16_t zn_ipv4_csum(const void *hdr, size_t hlen)
{
	const uint8_t *h = hdr;
	uint32_t s;

	/* the checksum field (bytes 10-11) counts as zero */
	s = zn_csum_add(0, h, 10);
	s = zn_csum_add(s, h + 12, hlen - 12);
	return (uint16_t)~zn_csum_fold(s);
}
