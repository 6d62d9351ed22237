/* SPDX-License-Identifier: MIT */
/*
 * include/zcnic/rss.h alone: zcnic's Toeplitz hash against Microsoft's
 * published IPv4 vectors ("Verifying the RSS Hash Calculation") and the
 * test suite's independent hash, the spreading table a netdev with queue
 * pairs programs, and the source ports zn-send --queues picks so that flow i
 * lands on queue i.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/support/toeplitz.h"
#include "zcnic/rss.h"

static void test_default_key_is_the_verification_key(void **state)
{
	(void)state;
	assert_memory_equal(zn_rss_default_key(), toeplitz_ms_key, ZN_RSS_KEY_LEN);
}

static void test_hash_v4_vectors(void **state)
{
	/* source, destination, source port, destination port, 4-tuple hash */
	static const struct { const char *src, *dst; uint16_t sp, dp; uint32_t h; } v[] = {
		{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x51ccc178 },
		{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xc626b0ea },
		{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0x5c2b394a },
		{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0xafc7327f },
		{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x10e828a2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(zn_rss_hash_v4(zn_rss_default_key(), inet_addr(v[i].src),
						inet_addr(v[i].dst), htons(v[i].sp),
						htons(v[i].dp)), v[i].h);
}

/* Any input, any key: the same as the suite's own hash. */
static void test_toeplitz_matches_the_reference(void **state)
{
	uint8_t key[ZN_RSS_KEY_LEN], in[36];
	uint32_t x = 12345;

	(void)state;
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(key); i++)
			key[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
		for (size_t len = 0; len <= sizeof(in); len += 4)
			assert_int_equal(zn_rss_toeplitz(key, in, len),
					 toeplitz_hash(key, sizeof(key), in, len));
	}
}

static void test_spread_table(void **state)
{
	struct zn_rss_conf rss;
	unsigned count[4] = { 0 };

	(void)state;
	/* a 512-entry device (mlx5's default): 64 entries, queues 1..3 in turn */
	assert_int_equal(zn_rss_spread(&rss, 512, 1, 3), 0);
	assert_int_equal(rss.table_size, ZN_RSS_SPREAD_ENTRIES);
	assert_memory_equal(rss.key, zn_rss_default_key(), ZN_RSS_KEY_LEN);
	assert_true(rss.hash_types & ZN_RSS_IPV4_UDP);
	assert_true(rss.hash_types & ZN_RSS_IPV4_TCP);
	for (uint32_t i = 0; i < rss.table_size; i++) {
		assert_int_equal(rss.table[i], 1 + i % 3);
		count[rss.table[i]]++;
	}
	assert_int_equal(count[0], 0);
	assert_true(count[1] - count[3] <= 1 && count[2] - count[3] <= 1);
	/* a device table smaller than 64 entries: its size */
	assert_int_equal(zn_rss_spread(&rss, 16, 0, 2), 0);
	assert_int_equal(rss.table_size, 16);
	assert_int_equal(zn_rss_queue(&rss, 0x12345677), 1);
	assert_int_equal(zn_rss_queue(&rss, 0x12345678), 0);
	/* 64 queues on a 0-based run fill a port; one more does not fit */
	assert_int_equal(zn_rss_spread(&rss, 0, 0, 64), 0);
	assert_int_equal(rss.table[63], 63);
	assert_int_equal(zn_rss_spread(&rss, 0, 1, 64), -EINVAL);
	assert_int_equal(zn_rss_spread(&rss, 0, 1, 0), -EINVAL);
	assert_int_equal(zn_rss_spread(&rss, 96, 0, 2), -EINVAL);	/* 64 does not divide 96 */
}

/* Each picked port puts its flow on the queue asked for, as the device would. */
static void test_pick_sport(void **state)
{
	uint32_t src = inet_addr("10.0.0.1"), dst = inet_addr("10.0.0.2");
	struct zn_rss_conf rss;

	(void)state;
	for (uint16_t n = 1; n <= 8; n++) {
		assert_int_equal(zn_rss_spread(&rss, 512, 1, n), 0);
		for (uint16_t want = 0; want < n; want++) {
			int p = zn_rss_pick_sport(src, dst, 5201, 5200, n, want);
			uint8_t in[12];

			assert_true(p >= 5200);
			memcpy(in, &src, 4);
			memcpy(in + 4, &dst, 4);
			in[8] = (uint8_t)(p >> 8);
			in[9] = (uint8_t)p;
			in[10] = 5201 >> 8;
			in[11] = 5201 & 0xff;
			/* on the receiver: queue 1 + want of its run 1..n */
			assert_int_equal(zn_rss_queue(&rss, toeplitz_hash(toeplitz_ms_key, 40, in,
									 sizeof(in))),
					 1 + want);
		}
	}
	assert_int_equal(zn_rss_pick_sport(src, dst, 5201, 5200, 2, 2), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_key_is_the_verification_key),
		cmocka_unit_test(test_hash_v4_vectors),
		cmocka_unit_test(test_toeplitz_matches_the_reference),
		cmocka_unit_test(test_spread_table),
		cmocka_unit_test(test_pick_sport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
