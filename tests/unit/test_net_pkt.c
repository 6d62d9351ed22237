/*
 * core/net wire formats: the Internet checksum against RFC 1071's example
 * and frames captured from Linux (a TAP device with no checksum offload, so
 * the kernel filled every checksum itself); build/parse round trips; frames
 * split into pieces at every offset; malformed frames rejected with the
 * exact reason; the ICMP echo reply against the kernel's own reply.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "zcnic/net.h"

static const uint8_t mac_us[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t mac_peer[6] = { 0x02, 0, 0, 0, 0, 0x01 };

/* Captured: Linux 10.99.0.1:4000 -> 10.99.0.2:5001 (frame hex). */
static const char *const linux_udp[] = {
	"0200000000020200000000010800450000316c8d40004011b9660a6300010a6300020fa01389001d65df"
	"7a636e696320636865636b73756d20766563746f72",
	"02000000000202000000000108004500001f6c8e40004011b9770a6300010a6300020fa01389000bf481"
	"6f6464",
	"0200000000020200000000010800450000416c8f40004011b9540a6300010a6300020fa01389002d705d"
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324",
};

/* An echo request to 10.99.0.1 and Linux's reply to it. */
static const char echo_req[] =
	"02000000000102000000000208004500003642420000400123bd0a6300020a6300010800d309123400017a"
	"636e69632070696e6720646174612030313233343536373839";
static const char echo_rep[] =
	"020000000002020000000001080045000036441a0000400121e50a6300010a6300020000db09123400017a"
	"636e69632070696e6720646174612030313233343536373839";

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}

static uint32_t ip4(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static void one_piece(struct zn_frame *f, const uint8_t *p, uint32_t len)
{
	f->npiece = 1;
	f->piece[0].p = p;
	f->piece[0].len = len;
	f->len = len;
}

static enum zn_net_rx_kind parse1(const uint8_t *p, uint32_t len, uint32_t flags, bool sw,
				  struct zn_net_rx_info *in)
{
	struct zn_frame f;

	one_piece(&f, p, len);
	return zn_net_rx_parse(&f, flags, sw, mac_us, ip4("10.99.0.2"), in);
}

static void test_rfc1071_example(void **state)
{
	/* RFC 1071 section 3: these bytes sum to ddf2 (one's complement). */
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	uint16_t s = zn_csum_fold(zn_csum_add(0, b, sizeof(b)));
	uint8_t m[2];

	(void)state;
	memcpy(m, &s, 2);
	assert_int_equal(m[0], 0xdd);
	assert_int_equal(m[1], 0xf2);
	/* split at an odd offset, the halves summed with zn_frame_csum */
	{
		struct zn_frame f = { .len = 8, .npiece = 2 };

		f.piece[0].p = b;
		f.piece[0].len = 3;
		f.piece[1].p = b + 3;
		f.piece[1].len = 5;
		s = zn_csum_fold(zn_frame_csum(&f, 0, 8));
		memcpy(m, &s, 2);
		assert_int_equal(m[0], 0xdd);
		assert_int_equal(m[1], 0xf2);
	}
}

static void test_ipv4_header_vectors(void **state)
{
	/* The example header commonly used to teach the checksum: field b861. */
	uint8_t h[20], f[128];
	uint16_t c;

	(void)state;
	unhex("450000730000400040110000c0a80001c0a800c7", h);
	c = zn_ipv4_csum(h, 20);
	assert_memory_equal(&c, "\xb8\x61", 2);
	for (size_t i = 0; i < 3; i++) {
		unhex(linux_udp[i], f);
		c = zn_ipv4_csum(f + 14, 20);
		assert_memory_equal(&c, f + 24, 2);
		assert_int_equal(zn_csum_fold(zn_csum_add(0, f + 14, 20)), 0xffff);
	}
}

static void test_udp_linux_frames_rebuilt(void **state)
{
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		uint8_t f[128], g[128];
		size_t n = unhex(linux_udp[i], f), m;
		struct zn_addr4 src = { ip4("10.99.0.1"), htons(4000) };
		struct zn_addr4 dst = { ip4("10.99.0.2"), htons(5001) };
		uint16_t id = (uint16_t)(f[18] << 8 | f[19]), c;
		struct zn_net_rx_info in;

		m = zn_udp_frame_build(g, sizeof(g), mac_us, mac_peer, &src, &dst, f + 42, n - 42, id);
		assert_int_equal(m, n);
		assert_memory_equal(g, f, n);
		c = zn_udp_csum(src.ip, dst.ip, f + 34, f + 42, n - 42, NULL, 0);
		assert_memory_equal(&c, f + 40, 2);
		/* the same sum with the payload in two pieces, split at odd and even offsets */
		for (size_t k = 0; k <= n - 42; k++) {
			c = zn_udp_csum(src.ip, dst.ip, f + 34, f + 42, k, f + 42 + k, n - 42 - k);
			assert_memory_equal(&c, f + 40, 2);
		}
		assert_int_equal(parse1(f, (uint32_t)n, 0, true, &in), ZN_NET_RX_UDP);
		assert_int_equal(in.src_ip, src.ip);
		assert_int_equal(in.dst_ip, dst.ip);
		assert_int_equal(in.sport, htons(4000));
		assert_int_equal(in.dport, htons(5001));
		assert_int_equal(in.payload_off, 42);
		assert_int_equal(in.payload_len, n - 42);
		assert_memory_equal(in.eth_src, mac_peer, 6);
	}
}

/* Every way to cut a frame in three pieces parses the same. */
static void test_parse_across_pieces(void **state)
{
	uint8_t f[128];
	uint32_t n = (uint32_t)unhex(linux_udp[0], f);

	(void)state;
	for (uint32_t a = 1; a < n; a++) {
		for (uint32_t b = a; b < n; b += 3) {
			struct zn_frame fr = { .len = n, .npiece = 3 };
			struct zn_net_rx_info in;

			fr.piece[0].p = f;
			fr.piece[0].len = a;
			fr.piece[1].p = f + a;
			fr.piece[1].len = b - a;
			fr.piece[2].p = f + b;
			fr.piece[2].len = n - b;
			assert_int_equal(zn_net_rx_parse(&fr, 0, true, mac_us, ip4("10.99.0.2"), &in),
					 ZN_NET_RX_UDP);
			assert_int_equal(in.payload_len, n - 42);
		}
	}
}

static void test_udp_checksum_rules(void **state)
{
	uint8_t f[128];
	uint32_t n = (uint32_t)unhex(linux_udp[1], f);
	struct zn_net_rx_info in;

	(void)state;
	f[n - 1] ^= 0x01;	/* payload corrupted */
	assert_int_equal(parse1(f, n, 0, false, &in), ZN_NET_DROP_UDP_CSUM);
	/* the device says good: trusted unless sw_csum */
	assert_int_equal(parse1(f, n, ZN_RX_F_L4_CSUM_OK | ZN_RX_F_L3_CSUM_OK, false, &in),
			 ZN_NET_RX_UDP);
	assert_int_equal(parse1(f, n, ZN_RX_F_L4_CSUM_OK, true, &in), ZN_NET_DROP_UDP_CSUM);
	f[n - 1] ^= 0x01;
	/* the device says bad: dropped, unless software is asked and finds it good */
	assert_int_equal(parse1(f, n, ZN_RX_F_L4_CSUM_BAD, false, &in), ZN_NET_DROP_UDP_CSUM);
	assert_int_equal(parse1(f, n, ZN_RX_F_L4_CSUM_BAD, true, &in), ZN_NET_RX_UDP);
	/* checksum 0: none (RFC 768), even over a changed payload */
	f[40] = f[41] = 0;
	f[n - 1] ^= 0x55;
	assert_int_equal(parse1(f, n, 0, true, &in), ZN_NET_RX_UDP);
	assert_int_equal(parse1(f, n, ZN_RX_F_L4_CSUM_BAD, false, &in), ZN_NET_RX_UDP);
}

/* Ethernet padding after the IP datagram is not payload. */
static void test_padding_ignored(void **state)
{
	uint8_t f[128];
	uint32_t n = (uint32_t)unhex(linux_udp[1], f);	/* 45 bytes */
	struct zn_net_rx_info in;

	(void)state;
	memset(f + n, 0xa5, 60 - n);
	assert_int_equal(parse1(f, 60, 0, true, &in), ZN_NET_RX_UDP);
	assert_int_equal(in.payload_len, 3);
}

static void test_malformed(void **state)
{
	uint8_t f[128], g[128];
	uint32_t n = (uint32_t)unhex(linux_udp[0], f);
	struct zn_net_rx_info in;

#define FIX_IPCSUM(b) do { uint16_t c_; (b)[24] = (b)[25] = 0;           \
		c_ = zn_ipv4_csum((b) + 14, ((b)[14] & 15) * 4u);         \
		memcpy((b) + 24, &c_, 2); } while (0)
	(void)state;
	/* truncated anywhere: never accepted, never read past the end */
	for (uint32_t len = 0; len < n; len++) {
		enum zn_net_rx_kind k = parse1(f, len, 0, true, &in);

		assert_true(k == ZN_NET_DROP_RUNT);
	}
	memcpy(g, f, n);
	g[14] = 0x44;		/* IHL 4 */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_IP_HDR);
	memcpy(g, f, n);
	g[14] = 0x65;		/* version 6 */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_IP_HDR);
	memcpy(g, f, n);
	g[16] = 0;
	g[17] = 19;		/* total length < header */
	FIX_IPCSUM(g);
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_IP_HDR);
	memcpy(g, f, n);
	g[17] += 1;		/* total length past the frame */
	FIX_IPCSUM(g);
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_RUNT);
	memcpy(g, f, n);
	g[24] ^= 0x10;		/* header checksum */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_IP_CSUM);
	assert_int_equal(parse1(g, n, ZN_RX_F_L3_CSUM_OK, false, &in), ZN_NET_RX_UDP);
	assert_int_equal(parse1(f, n, ZN_RX_F_L3_CSUM_BAD, false, &in), ZN_NET_DROP_IP_CSUM);
	memcpy(g, f, n);
	g[20] = 0x20;		/* MF */
	FIX_IPCSUM(g);
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_FRAG);
	memcpy(g, f, n);
	g[20] = 0x40;
	g[21] = 0x01;		/* DF + offset 8 */
	FIX_IPCSUM(g);
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_FRAG);
	memcpy(g, f, n);
	g[38] = 0;
	g[39] = 7;		/* UDP length < 8 */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_UDP_HDR);
	g[39] = (uint8_t)(n - 34 + 1);	/* UDP length past the IP payload */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_UDP_HDR);
	memcpy(g, f, n);
	g[0] = 0x04;		/* another host's MAC */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_L2);
	memset(g, 0xff, 6);	/* broadcast is fine at L2 */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_RX_UDP);
	memcpy(g, f, n);
	g[33] = 3;		/* 10.99.0.3 */
	FIX_IPCSUM(g);
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_NOT_OURS);
	memcpy(g, f, n);
	g[23] = 6;		/* TCP */
	FIX_IPCSUM(g);
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_PROTO);
	memcpy(g, f, n);
	g[12] = 0x86;
	g[13] = 0xdd;		/* IPv6 */
	assert_int_equal(parse1(g, n, 0, true, &in), ZN_NET_DROP_ETHERTYPE);
	/* IP options (IHL 6) are skipped: UDP starts after them */
	memcpy(g, f, 34);
	g[14] = 0x46;
	g[17] += 4;
	memset(g + 34, 1, 4);	/* four NOPs */
	memcpy(g + 38, f + 34, n - 34);
	FIX_IPCSUM(g);
	assert_int_equal(parse1(g, n + 4, 0, true, &in), ZN_NET_RX_UDP);
	assert_int_equal(in.payload_off, 46);
	assert_int_equal(in.payload_len, n - 42);
#undef FIX_IPCSUM
}

static void test_arp(void **state)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t f[64], g[64];
	size_t n;
	struct zn_net_rx_info in;

	(void)state;
	n = zn_arp_build(f, ZN_ARP_OP_REQUEST, bcast, mac_peer, ip4("10.99.0.1"), NULL,
			 ip4("10.99.0.2"));
	assert_int_equal(n, 42);
	/* RFC 826 layout: htype 1, ptype 0800, 6, 4, op 1 */
	assert_memory_equal(f + 12, "\x08\x06\x00\x01\x08\x00\x06\x04\x00\x01", 10);
	assert_int_equal(parse1(f, (uint32_t)n, 0, false, &in), ZN_NET_RX_ARP);
	assert_int_equal(in.arp_op, ZN_ARP_OP_REQUEST);
	assert_memory_equal(in.arp_sha, mac_peer, 6);
	assert_int_equal(in.arp_spa, ip4("10.99.0.1"));
	assert_int_equal(in.arp_tpa, ip4("10.99.0.2"));
	for (uint32_t len = 0; len < n; len++)
		assert_int_equal(parse1(f, len, 0, false, &in), ZN_NET_DROP_RUNT);
	memcpy(g, f, n);
	g[41] = 9;		/* for 10.99.0.9 */
	assert_int_equal(parse1(g, (uint32_t)n, 0, false, &in), ZN_NET_DROP_ARP);
	memcpy(g, f, n);
	g[15] = 6;		/* hardware type 6 */
	assert_int_equal(parse1(g, (uint32_t)n, 0, false, &in), ZN_NET_DROP_ARP);
	memcpy(g, f, n);
	g[21] = 3;		/* op 3 (RARP) */
	assert_int_equal(parse1(g, (uint32_t)n, 0, false, &in), ZN_NET_DROP_ARP);
	memcpy(g, f, n);
	g[22] = 0x01;		/* multicast sender */
	assert_int_equal(parse1(g, (uint32_t)n, 0, false, &in), ZN_NET_DROP_ARP);
}

static void test_icmp_echo_reply_matches_linux(void **state)
{
	uint8_t req[128], rep[128], out[256];
	size_t nreq = unhex(echo_req, req), nrep = unhex(echo_rep, rep), n;
	struct zn_net_rx_info in;
	struct zn_frame f;
	/* Linux answered as 10.99.0.1 with MAC ...01: parse as that host */
	static const uint8_t mac1[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	(void)state;
	one_piece(&f, req, (uint32_t)nreq);
	assert_int_equal(zn_net_rx_parse(&f, 0, false, mac1, ip4("10.99.0.1"), &in),
			 ZN_NET_RX_ICMP_ECHO);
	n = zn_icmp_echo_reply(&f, &in, mac1, 0x441a, out, sizeof(out));
	assert_int_equal(n, nrep);
	assert_memory_equal(out, rep, 14);			/* Ethernet */
	assert_memory_equal(out + 34, rep + 34, nrep - 34);	/* ICMP, byte for byte */
	assert_memory_equal(out + 26, rep + 26, 8);		/* addresses */
	assert_int_equal(zn_csum_fold(zn_csum_add(0, out + 14, 20)), 0xffff);
	/* too small an output buffer */
	assert_int_equal(zn_icmp_echo_reply(&f, &in, mac1, 1, out, nrep - 1), 0);
	/* the request split after its IP header (as bnxt HDS places ICMP) */
	{
		struct zn_frame g = { .len = (uint32_t)nreq, .npiece = 2 };

		g.piece[0].p = req;
		g.piece[0].len = 34;
		g.piece[1].p = req + 34;
		g.piece[1].len = (uint32_t)nreq - 34;
		assert_int_equal(zn_net_rx_parse(&g, 0, false, mac1, ip4("10.99.0.1"), &in),
				 ZN_NET_RX_ICMP_ECHO);
		assert_int_equal(zn_icmp_echo_reply(&g, &in, mac1, 0x441a, out, sizeof(out)), nrep);
		assert_memory_equal(out + 34, rep + 34, nrep - 34);
	}
	/* bad ICMP checksum, echo reply (not a request), truncated ICMP */
	req[36] ^= 1;
	assert_int_equal(zn_net_rx_parse(&f, 0, false, mac1, ip4("10.99.0.1"), &in),
			 ZN_NET_DROP_ICMP);
	req[36] ^= 1;
	one_piece(&f, rep, (uint32_t)nrep);
	assert_int_equal(zn_net_rx_parse(&f, 0, false, mac_us, ip4("10.99.0.2"), &in),
			 ZN_NET_DROP_ICMP);
}

static void test_kind_names(void **state)
{
	(void)state;
	for (unsigned k = 0; k < ZN_NET_RX_KINDS; k++) {
		assert_non_null(zn_net_rx_kind_name(k));
		assert_string_not_equal(zn_net_rx_kind_name(k), "?");
	}
	assert_string_equal(zn_net_rx_kind_name(ZN_NET_DROP_UDP_CSUM), "udp_csum");
	assert_string_equal(zn_net_rx_kind_name(ZN_NET_RX_KINDS), "?");
}

/* Command-line address forms: exact values, and -EINVAL for every malformed one. */
static void test_addr_parse(void **state)
{
	static const char *const bad_cidr[] = {
		"10.0.0.1", "10.0.0.1/", "10.0.0.1/0", "10.0.0.1/33", "10.0.0.1/24x",
		"10.0.0.1/-1", "/24", "10.0.0.256/24", "10.0.0.1/+8", "", "10.0.0.1/ 8",
		"1234567890123456789012345678901234567890/8",
	};
	static const char *const bad_hp[] = {
		"10.0.0.1", "10.0.0.1:", "10.0.0.1:0", "10.0.0.1:65536", "x:80", ":80",
		"10.0.0.1:80:1", "10.0.0.1:-5", "10.0.0.1:99999999999999999999",
	};
	struct zn_addr4 a;
	uint32_t ip;
	uint8_t pl;

	(void)state;
	assert_int_equal(zn_ipv4_parse_cidr("10.1.2.3/24", &ip, &pl), 0);
	assert_int_equal(ip, htonl(0x0a010203));
	assert_int_equal(pl, 24);
	assert_int_equal(zn_ipv4_parse_cidr("192.168.0.1/32", &ip, &pl), 0);
	assert_int_equal(pl, 32);
	for (size_t i = 0; i < sizeof(bad_cidr) / sizeof(bad_cidr[0]); i++)
		assert_int_equal(zn_ipv4_parse_cidr(bad_cidr[i], &ip, &pl), -EINVAL);
	assert_int_equal(zn_ipv4_parse_cidr(NULL, &ip, &pl), -EINVAL);
	assert_int_equal(zn_addr4_parse("10.0.0.2:5201", &a), 0);
	assert_int_equal(a.ip, htonl(0x0a000002));
	assert_int_equal(a.port, htons(5201));
	assert_int_equal(a.rsvd, 0);
	assert_int_equal(zn_addr4_parse("1.2.3.4:65535", &a), 0);
	assert_int_equal(a.port, htons(65535));
	for (size_t i = 0; i < sizeof(bad_hp) / sizeof(bad_hp[0]); i++)
		assert_int_equal(zn_addr4_parse(bad_hp[i], &a), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc1071_example),
		cmocka_unit_test(test_ipv4_header_vectors),
		cmocka_unit_test(test_udp_linux_frames_rebuilt),
		cmocka_unit_test(test_parse_across_pieces),
		cmocka_unit_test(test_udp_checksum_rules),
		cmocka_unit_test(test_padding_ignored),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_arp),
		cmocka_unit_test(test_icmp_echo_reply_matches_linux),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_addr_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
