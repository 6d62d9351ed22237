/* SPDX-License-Identifier: MIT */
/*
 * zn-fwd's frame checker (apps/zn-fwd/frame.c, compiled in here): it must
 * accept every intact frame however it is cut into pieces, and reject any
 * changed, shifted, truncated or foreign byte; --sizes parsing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "apps/zn-fwd/frame.c"

static struct fwd_frame_cfg cfg(const char *sizes)
{
	struct fwd_frame_cfg c = { .nflows = 7 };
	char err[128];

	memcpy(c.dst_mac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(c.src_mac, "\x02\x00\x00\x00\x00\x01", 6);
	assert_int_equal(fwd_sizes_parse(sizes, &c.sizes, err, sizeof(err)), 0);
	return c;
}

/* Cut [0, len) into pieces at random points (at most 9, as header + 8 segments). */
static unsigned cut(const uint8_t *f, uint32_t len, struct fwd_piece *pc, unsigned *seed)
{
	unsigned n = 0;
	uint32_t off = 0;

	while (off < len && n < 8) {
		uint32_t take = 1 + (uint32_t)rand_r(seed) % (len - off);

		pc[n++] = (struct fwd_piece){ f + off, take };
		off += take;
	}
	if (off < len)
		pc[n++] = (struct fwd_piece){ f + off, len - off };
	return n;
}

static void test_intact_frames_pass_in_any_pieces(void **state)
{
	struct fwd_frame_cfg c = cfg("60-9018");
	static uint8_t f[FWD_MAX_FRAME];
	struct fwd_piece pc[9];
	unsigned seed = 1;

	(void)state;
	fwd_pattern_init();
	for (uint64_t seq = 0; seq < 2000; seq++) {
		uint32_t len = fwd_frame_build(&c, seq, f), bad;
		unsigned n = cut(f, len, pc, &seed);
		uint64_t got = ~0ull;

		assert_in_range(len, 60, 9018);
		assert_int_equal(len, fwd_frame_len(&c, seq));
		assert_int_equal(fwd_frame_verify(&c, pc, n, &got, &bad), FWD_OK);
		assert_int_equal(got, seq);
	}
}

static void test_every_changed_byte_is_caught(void **state)
{
	struct fwd_frame_cfg c = cfg("1500");
	static uint8_t f[FWD_MAX_FRAME];
	struct fwd_piece pc[3];
	uint64_t seq;
	uint32_t len, bad;

	(void)state;
	fwd_pattern_init();
	len = fwd_frame_build(&c, 12345, f);
	for (uint32_t i = 0; i < len; i++) {
		enum fwd_verdict v;

		f[i] ^= 0x01;
		pc[0] = (struct fwd_piece){ f, 42 };
		pc[1] = (struct fwd_piece){ f + 42, 700 };
		pc[2] = (struct fwd_piece){ f + 742, len - 742 };
		v = fwd_frame_verify(&c, pc, 3, &seq, &bad);
		assert_int_not_equal(v, FWD_OK);
		if (i >= FWD_META_LEN) {
			assert_int_equal(v, FWD_BAD_PAYLOAD);
			assert_int_equal(bad, i);
		}
		f[i] ^= 0x01;
	}
}

static void test_truncated_shifted_and_foreign_frames_fail(void **state)
{
	struct fwd_frame_cfg c = cfg("64,1500,9000");
	static uint8_t f[FWD_MAX_FRAME], g2[FWD_MAX_FRAME];
	struct fwd_piece pc[2];
	uint64_t seq;
	uint32_t len, len2, bad;

	(void)state;
	fwd_pattern_init();
	len = fwd_frame_build(&c, 5, f);		/* 5 % 3 = 2: 9000 bytes */
	assert_int_equal(len, 9000);
	pc[0] = (struct fwd_piece){ f, len - 1 };
	assert_int_equal(fwd_frame_verify(&c, pc, 1, &seq, &bad), FWD_BAD_LEN);
	pc[0] = (struct fwd_piece){ f, 40 };
	assert_int_equal(fwd_frame_verify(&c, pc, 1, &seq, &bad), FWD_BAD_SHORT);
	/* a payload segment delivered one byte late */
	pc[0] = (struct fwd_piece){ f, 100 };
	pc[1] = (struct fwd_piece){ f + 101, len - 100 };
	f[len] = 0;
	assert_int_equal(fwd_frame_verify(&c, pc, 2, &seq, &bad), FWD_BAD_PAYLOAD);
	assert_int_equal(bad, 100);
	/* the payload of another frame of the same length behind our header */
	len2 = fwd_frame_build(&c, 8, g2);
	assert_int_equal(len2, 9000);
	pc[0] = (struct fwd_piece){ f, FWD_META_LEN };
	pc[1] = (struct fwd_piece){ g2 + FWD_META_LEN, len - FWD_META_LEN };
	assert_int_equal(fwd_frame_verify(&c, pc, 2, &seq, &bad), FWD_BAD_PAYLOAD);
	/* a header whose seq says another length */
	len2 = fwd_frame_build(&c, 6, g2);		/* 64 bytes */
	pc[0] = (struct fwd_piece){ g2, FWD_META_LEN };
	pc[1] = (struct fwd_piece){ f + FWD_META_LEN, len - FWD_META_LEN };
	assert_int_equal(fwd_frame_verify(&c, pc, 2, &seq, &bad), FWD_BAD_LEN);
}

static void test_headers_are_valid_ipv4_udp(void **state)
{
	struct fwd_frame_cfg c = cfg("100");
	uint8_t f[100];

	(void)state;
	fwd_pattern_init();
	assert_int_equal(fwd_frame_build(&c, 3, f), 100);
	assert_memory_equal(f, c.dst_mac, 6);
	assert_int_equal(f[12] << 8 | f[13], 0x0800);
	assert_int_equal(f[16] << 8 | f[17], 86);		/* IP total length */
	assert_int_equal(ip_csum(f + 14, 20), 0);		/* checksum verifies */
	assert_int_equal(f[34] << 8 | f[35], FWD_SPORT0 + 3);
	assert_int_equal(f[36] << 8 | f[37], FWD_DPORT0 + 3);
	assert_int_equal(f[38] << 8 | f[39], 66);		/* UDP length */
}

static void test_sizes_parse(void **state)
{
	struct fwd_sizes s;
	char err[160];

	(void)state;
	assert_int_equal(fwd_sizes_parse("64,1500,9000", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(fwd_sizes_max(&s), 9000);
	assert_int_equal(fwd_sizes_parse("60-9000", &s, err, sizeof(err)), 0);
	assert_int_equal(s.item[0].lo, 60);
	assert_int_equal(s.item[0].hi, 9000);
	assert_int_equal(fwd_sizes_parse("59", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "60 to 9018"));
	assert_int_equal(fwd_sizes_parse("9019", &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(fwd_sizes_parse("100-60", &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(fwd_sizes_parse("64,", &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(fwd_sizes_parse("64x", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "64,1500,9000"));
}

static void test_range_covers_its_ends(void **state)
{
	struct fwd_frame_cfg c = cfg("60-70");
	bool seen[11] = { 0 };

	(void)state;
	for (uint64_t seq = 0; seq < 1000; seq++) {
		uint32_t len = fwd_frame_len(&c, seq);

		assert_in_range(len, 60, 70);
		seen[len - 60] = true;
	}
	for (int i = 0; i < 11; i++)
		assert_true(seen[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact_frames_pass_in_any_pieces),
		cmocka_unit_test(test_every_changed_byte_is_caught),
		cmocka_unit_test(test_truncated_shifted_and_foreign_frames_fail),
		cmocka_unit_test(test_headers_are_valid_ipv4_udp),
		cmocka_unit_test(test_sizes_parse),
		cmocka_unit_test(test_range_covers_its_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
