/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/support/toeplitz: the test suite's own Toeplitz hash against
 * every row of Microsoft's published verification suite ("Verifying the RSS
 * Hash Calculation", learn.microsoft.com/windows-hardware/drivers/network/
 * verifying-the-rss-hash-calculation; the same rows appear in DPDK's
 * app/test/test_thash.c and FreeBSD's RSS test harness), plus the algebra
 * any Toeplitz hash obeys.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/support/toeplitz.h"

/* The page lists destination first; the hash input is source first. */
struct vec {
	const char *dst, *src;
	uint16_t dport, sport;
	uint32_t addr_only, with_ports;
};

static const struct vec v4[] = {
	{ "161.142.100.80", "66.9.149.187", 1766, 2794, 0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83", "199.92.111.2", 4739, 14230, 0xd718262a, 0xc626b0ea },
	{ "12.22.207.184", "24.19.198.95", 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6", "38.27.205.30", 2217, 48228, 0x82989176, 0xafc7327f },
	{ "202.188.127.2", "153.39.163.191", 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

static const struct vec v6[] = {
	{ "3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794,
	  0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230,
	  0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
	  0x4b61e985, 0x02d1feef },
};

static void test_ms_key_is_the_published_one(void **state)
{
	static const char hex[] = "6d5a56da255b0ec24167253d43a38fb0d0ca2bcb"
				  "ae7b30b477cb2da38030f20c6a42b73bbeac01fa";

	(void)state;
	for (size_t i = 0; i < TOEPLITZ_KEY_MAX; i++) {
		unsigned byte;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &byte), 1);
		assert_int_equal(toeplitz_ms_key[i], byte);
	}
}

static void test_ipv4_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		uint8_t s[4], d[4];

		assert_int_equal(inet_pton(AF_INET, v4[i].src, s), 1);
		assert_int_equal(inet_pton(AF_INET, v4[i].dst, d), 1);
		assert_int_equal(toeplitz_v4(toeplitz_ms_key, 40, s, d, v4[i].sport,
					     v4[i].dport, 0), v4[i].addr_only);
		assert_int_equal(toeplitz_v4(toeplitz_ms_key, 40, s, d, v4[i].sport,
					     v4[i].dport, 1), v4[i].with_ports);
	}
}

static void test_ipv6_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		uint8_t s[16], d[16];

		assert_int_equal(inet_pton(AF_INET6, v6[i].src, s), 1);
		assert_int_equal(inet_pton(AF_INET6, v6[i].dst, d), 1);
		assert_int_equal(toeplitz_v6(toeplitz_ms_key, 40, s, d, v6[i].sport,
					     v6[i].dport, 0), v6[i].addr_only);
		assert_int_equal(toeplitz_v6(toeplitz_ms_key, 40, s, d, v6[i].sport,
					     v6[i].dport, 1), v6[i].with_ports);
	}
}

/* Swapping source and destination must change the hash: the order matters. */
static void test_tuple_order_matters(void **state)
{
	uint8_t s[4], d[4];

	(void)state;
	assert_int_equal(inet_pton(AF_INET, v4[0].src, s), 1);
	assert_int_equal(inet_pton(AF_INET, v4[0].dst, d), 1);
	assert_int_not_equal(toeplitz_v4(toeplitz_ms_key, 40, d, s, v4[0].dport, v4[0].sport, 1),
			     v4[0].with_ports);
}

static void test_input_layout(void **state)
{
	static const uint8_t s4[4] = { 10, 0, 0, 1 }, d4[4] = { 10, 0, 0, 2 };
	static const uint8_t want4[12] = { 10, 0, 0, 1, 10, 0, 0, 2, 0x12, 0x34, 0xab, 0xcd };
	uint8_t s6[16], d6[16], out[TOEPLITZ_IN_MAX];

	(void)state;
	assert_int_equal(toeplitz_input_v4(out, s4, d4, 0x1234, 0xabcd, 1), 12);
	assert_memory_equal(out, want4, 12);
	assert_int_equal(toeplitz_input_v4(out, s4, d4, 0x1234, 0xabcd, 0), 8);
	assert_memory_equal(out, want4, 8);
	for (int i = 0; i < 16; i++) {
		s6[i] = (uint8_t)i;
		d6[i] = (uint8_t)(0xf0 + i);
	}
	assert_int_equal(toeplitz_input_v6(out, s6, d6, 1, 0x0203, 1), 36);
	assert_memory_equal(out, s6, 16);
	assert_memory_equal(out + 16, d6, 16);
	assert_int_equal(out[32], 0);
	assert_int_equal(out[33], 1);
	assert_int_equal(out[34], 2);
	assert_int_equal(out[35], 3);
	assert_int_equal(toeplitz_input_v6(out, s6, d6, 1, 2, 0), 32);
}

/* One set bit selects the key's 32-bit window at that bit position. */
static void test_single_bits_select_key_windows(void **state)
{
	uint8_t in[TOEPLITZ_IN_MAX];

	(void)state;
	memset(in, 0, sizeof(in));
	in[0] = 0x80;
	assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, in, 1), 0x6d5a56da);
	in[0] = 0x01;	/* window at bit 7: (0x6d5a56da25 >> 1) & 0xffffffff */
	assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, in, 1), 0xad2b6d12);
	in[0] = 0;
	in[4] = 0x80;	/* window at bit 32 = key[4..7] */
	assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, in, 5), 0x255b0ec2);
	in[4] = 0;
	in[35] = 0x01;	/* the last bit of an IPv6 4-tuple: key bits 287..318 */
	assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, in, 36),
			 (uint32_t)((0x3bbeac01faull >> 1) & 0xffffffffu));
	assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, in, 0), 0);
	memset(in, 0, sizeof(in));
	assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, in, 36), 0);
}

/* Toeplitz is linear over XOR: h(a ^ b) = h(a) ^ h(b). */
static void test_linear_over_xor(void **state)
{
	uint8_t a[TOEPLITZ_IN_MAX], b[TOEPLITZ_IN_MAX], c[TOEPLITZ_IN_MAX];
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < TOEPLITZ_IN_MAX; i++) {
			a[i] = (uint8_t)rand_r(&seed);
			b[i] = (uint8_t)rand_r(&seed);
			c[i] = a[i] ^ b[i];
		}
		assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, c, 36),
				 toeplitz_hash(toeplitz_ms_key, 40, a, 36) ^
				 toeplitz_hash(toeplitz_ms_key, 40, b, 36));
	}
}

/* Key bits past key_len are zero: a short key equals its zero extension. */
static void test_short_key_is_zero_extended(void **state)
{
	uint8_t key[TOEPLITZ_KEY_MAX] = { 0 }, in[12];
	unsigned seed = 7;

	(void)state;
	memcpy(key, toeplitz_ms_key, 12);
	for (int i = 0; i < 12; i++)
		in[i] = (uint8_t)rand_r(&seed);
	assert_int_equal(toeplitz_hash(toeplitz_ms_key, 12, in, 12),
			 toeplitz_hash(key, 40, in, 12));
	assert_int_not_equal(toeplitz_hash(toeplitz_ms_key, 12, in, 12),
			     toeplitz_hash(toeplitz_ms_key, 40, in, 12));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms_key_is_the_published_one),
		cmocka_unit_test(test_ipv4_vectors),
		cmocka_unit_test(test_ipv6_vectors),
		cmocka_unit_test(test_tuple_order_matters),
		cmocka_unit_test(test_input_layout),
		cmocka_unit_test(test_single_bits_select_key_windows),
		cmocka_unit_test(test_linear_over_xor),
		cmocka_unit_test(test_short_key_is_zero_extended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
