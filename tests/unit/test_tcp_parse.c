/* SPDX-License-Identifier: MIT */
/*
 * TCP header and option parsing (core/net/tcp_opt.c): a SYN laid out as
 * Linux lays out its own, every option read back, malformed headers and
 * options rejected with their reason (and counted, unanswered, when they
 * reach the engine), the checksum check against an independent sum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcp_test.h"

/* A SYN 10.99.0.1:40000 -> 10.99.0.2:5001 with Linux's option layout
 * (tcp_options_write): MSS 1460, SACK-permitted + timestamps, NOP, window
 * scale 7; checksum field 0. */
static const uint8_t linux_syn[] = {
	0x9c, 0x40, 0x13, 0x89, 0x5e, 0x3c, 0x2d, 0x11, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x02,
	0xfa, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
	0x8b, 0x1f, 0x2c, 0x55, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x03, 0x07,
};

static void test_linux_syn(void **state)
{
	struct zn_tcp_hdr h;

	(void)state;
	assert_int_equal(zn_tcp_parse(linux_syn, sizeof(linux_syn), sizeof(linux_syn), &h),
			 ZN_TCP_PARSE_OK);
	assert_int_equal(h.sport, 40000);
	assert_int_equal(h.dport, 5001);
	assert_int_equal(h.seq, 0x5e3c2d11);
	assert_int_equal(h.flags, ZN_TCP_SYN);
	assert_int_equal(h.hlen, 40);
	assert_int_equal(h.wnd, 64240);
	assert_true(h.has_mss);
	assert_int_equal(h.mss, 1460);
	assert_true(h.sack_ok);
	assert_true(h.has_ts);
	assert_int_equal(h.tsval, 0x8b1f2c55);
	assert_int_equal(h.tsecr, 0);
	assert_true(h.has_ws);
	assert_int_equal(h.ws, 7);
}

/* A header of 20 bytes + opts (padded by the caller to 4). */
static enum zn_tcp_parse_err parse_opts(uint8_t flags, const uint8_t *o, uint32_t n,
					struct zn_tcp_hdr *h)
{
	uint8_t b[60] = { 0 };

	b[12] = (uint8_t)(((20 + n) / 4) << 4);
	b[13] = flags;
	memcpy(b + 20, o, n);
	return zn_tcp_parse(b, 20 + n, 20 + n, h);
}

static void test_options(void **state)
{
	struct zn_tcp_hdr h;
	/* SACK with two blocks, an unknown option (kind 30, len 4), EOL */
	const uint8_t sack[] = { 1, 1, 5, 18, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40,
				 30, 4, 9, 9, 0, 0, 0, 0 };
	const uint8_t ws15[] = { 3, 3, 15, 0 };
	const uint8_t mss_on_ack[] = { 2, 4, 0x05, 0xb4 };

	(void)state;
	assert_int_equal(parse_opts(ZN_TCP_ACK, sack, sizeof(sack), &h), ZN_TCP_PARSE_OK);
	assert_int_equal(h.nsack, 2);
	assert_int_equal(h.sack[0][0], 10);
	assert_int_equal(h.sack[0][1], 20);
	assert_int_equal(h.sack[1][0], 30);
	assert_int_equal(h.sack[1][1], 40);
	/* RFC 7323 2.3: a shift above 14 is taken as 14 */
	assert_int_equal(parse_opts(ZN_TCP_SYN, ws15, sizeof(ws15), &h), ZN_TCP_PARSE_OK);
	assert_int_equal(h.ws, 14);
	/* MSS outside a SYN: well formed, not used */
	assert_int_equal(parse_opts(ZN_TCP_ACK, mss_on_ack, 4, &h), ZN_TCP_PARSE_OK);
	assert_false(h.has_mss);
}

static void test_malformed(void **state)
{
	static const struct {
		const char *what;
		uint8_t flags;
		uint8_t o[40];
		uint32_t n;
	} bad[] = {
		{ "mss len 3", ZN_TCP_SYN, { 2, 3, 5, 0 }, 4 },
		{ "mss twice", ZN_TCP_SYN, { 2, 4, 5, 0xb4, 2, 4, 5, 0xb4 }, 8 },
		{ "ws len 4", ZN_TCP_SYN, { 3, 4, 7, 0 }, 4 },
		{ "ts len 9", ZN_TCP_ACK, { 8, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 12 },
		{ "sack-ok len 3", ZN_TCP_SYN, { 4, 3, 0, 0 }, 4 },
		{ "sack len 11", ZN_TCP_ACK, { 5, 11, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0 }, 12 },
		{ "sack longer than the options", ZN_TCP_ACK, { 5, 42 }, 40 },
		{ "sack right before left", ZN_TCP_ACK, { 5, 10, 0, 0, 0, 9, 0, 0, 0, 2, 0, 0 }, 12 },
		{ "len 0", ZN_TCP_ACK, { 30, 0, 0, 0 }, 4 },
		{ "len 1", ZN_TCP_ACK, { 30, 1, 0, 0 }, 4 },
		{ "past the header", ZN_TCP_ACK, { 1, 1, 30, 8 }, 4 },
		{ "kind without len", ZN_TCP_ACK, { 1, 1, 1, 30 }, 4 },
	};
	struct zn_tcp_hdr h;
	uint8_t b[60] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum zn_tcp_parse_err e = parse_opts(bad[i].flags, bad[i].o, bad[i].n, &h);

		if (e != ZN_TCP_PARSE_OPT)
			fail_msg("%s: %d", bad[i].what, e);
	}
	/* header lengths */
	assert_int_equal(zn_tcp_parse(b, 19, 19, &h), ZN_TCP_PARSE_SHORT);
	b[12] = 4 << 4;
	assert_int_equal(zn_tcp_parse(b, 20, 20, &h), ZN_TCP_PARSE_DOFF);
	b[12] = 6 << 4;
	assert_int_equal(zn_tcp_parse(b, 20, 40, &h), ZN_TCP_PARSE_SHORT);	/* not all there */
	assert_int_equal(zn_tcp_parse(b, 24, 22, &h), ZN_TCP_PARSE_SHORT);	/* segment shorter */
	b[12] = 5 << 4;
	b[13] = ZN_TCP_SYN | ZN_TCP_FIN;
	assert_int_equal(zn_tcp_parse(b, 20, 20, &h), ZN_TCP_PARSE_FLAGS);
	b[13] = ZN_TCP_SYN | ZN_TCP_RST;
	assert_int_equal(zn_tcp_parse(b, 20, 20, &h), ZN_TCP_PARSE_FLAGS);
}

static void test_malformed_counted_not_answered(void **state)
{
	struct tt *x = tt_new(NULL);
	const uint8_t raw[] = { 2, 3, 5, 0 };
	struct tt_opts o = { .ws = -1, .raw = raw, .raw_len = 4 };
	struct zn_tcp_stats st;

	(void)state;
	/* no socket on the port, but a malformed SYN gets no RST: it is dropped first */
	tt_inject_opts(x, ZN_TCP_SYN, 1, 0, 1000, 10, 0, 1, &o);
	assert_int_equal(tt_pending(x), 0);
	assert_int_equal(tt_held(x), 0);
	zn_tcp_stats(x->t, &st);
	assert_int_equal(st.rx_bad[ZN_TCP_PARSE_OPT], 1);
	assert_int_equal(st.rx_no_conn, 0);
	tt_free(x);
}

static void test_checksum(void **state)
{
	/* the SYN under its IPv4 addresses, its checksum from tt_csum's own sum */
	uint8_t seg[sizeof(linux_syn)];
	struct zn_frame f = { .len = sizeof(seg), .npiece = 1 };
	uint32_t src = tt_ip("10.99.0.1"), dst = tt_ip("10.99.0.2");
	uint16_t c;

	(void)state;
	memcpy(seg, linux_syn, sizeof(seg));
	f.piece[0].p = seg;
	f.piece[0].len = sizeof(seg);
	c = tt_csum(src, dst, seg, sizeof(seg), NULL, 0);
	seg[16] = (uint8_t)(~c >> 8);
	seg[17] = (uint8_t)~c;
	assert_true(zn_tcp_csum_ok(&f, 0, sizeof(seg), src, dst));
	seg[30] ^= 1;
	assert_false(zn_tcp_csum_ok(&f, 0, sizeof(seg), src, dst));
	seg[30] ^= 1;
	assert_false(zn_tcp_csum_ok(&f, 0, sizeof(seg), src, tt_ip("10.99.0.3")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux_syn),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_malformed_counted_not_answered),
		cmocka_unit_test(test_checksum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
