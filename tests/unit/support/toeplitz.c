/* SPDX-License-Identifier: MIT */
/*
 * Toeplitz hash, bit by bit from the definition (see toeplitz.h). Slow on
 * purpose: no tables, nothing shared with the code under test.
 */
#include <string.h>

#include "toeplitz.h"

const uint8_t toeplitz_ms_key[TOEPLITZ_KEY_MAX] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Bit n of the key, counting from the most significant bit of key[0]. */
static unsigned key_bit(const uint8_t *key, size_t key_len, size_t n)
{
	if (n / 8 >= key_len)
		return 0;
	return (key[n / 8] >> (7 - n % 8)) & 1u;
}

uint32_t toeplitz_hash(const uint8_t *key, size_t key_len, const uint8_t *in, size_t len)
{
	uint32_t result = 0, window = 0;
	size_t next = 0;	/* the key bit that enters the window next */

	if (key_len > TOEPLITZ_KEY_MAX)
		key_len = TOEPLITZ_KEY_MAX;
	for (; next < 32; next++)
		window = window << 1 | key_bit(key, key_len, next);
	for (size_t i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if (in[i] >> b & 1u)
				result ^= window;
			window = window << 1 | key_bit(key, key_len, next++);
		}
	}
	return result;
}

static size_t put_ports(uint8_t *p, uint16_t sport, uint16_t dport)
{
	p[0] = (uint8_t)(sport >> 8);
	p[1] = (uint8_t)sport;
	p[2] = (uint8_t)(dport >> 8);
	p[3] = (uint8_t)dport;
	return 4;
}

size_t toeplitz_input_v4(uint8_t *out, const uint8_t src[4], const uint8_t dst[4],
			 uint16_t sport, uint16_t dport, int with_ports)
{
	memcpy(out, src, 4);
	memcpy(out + 4, dst, 4);
	return 8 + (with_ports ? put_ports(out + 8, sport, dport) : 0);
}

size_t toeplitz_input_v6(uint8_t *out, const uint8_t src[16], const uint8_t dst[16],
			 uint16_t sport, uint16_t dport, int with_ports)
{
	memcpy(out, src, 16);
	memcpy(out + 16, dst, 16);
	return 32 + (with_ports ? put_ports(out + 32, sport, dport) : 0);
}

uint32_t toeplitz_v4(const uint8_t *key, size_t key_len, const uint8_t src[4],
		     const uint8_t dst[4], uint16_t sport, uint16_t dport, int with_ports)
{
	uint8_t in[TOEPLITZ_IN_MAX];
	size_t n = toeplitz_input_v4(in, src, dst, sport, dport, with_ports);

	return toeplitz_hash(key, key_len, in, n);
}

uint32_t toeplitz_v6(const uint8_t *key, size_t key_len, const uint8_t src[16],
		     const uint8_t dst[16], uint16_t sport, uint16_t dport, int with_ports)
{
	uint8_t in[TOEPLITZ_IN_MAX];
	size_t n = toeplitz_input_v6(in, src, dst, sport, dport, with_ports);

	return toeplitz_hash(key, key_len, in, n);
}
