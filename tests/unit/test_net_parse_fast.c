/*
 * The receive parser's fast path (core/net/parse.c, parse_udp_fast) against
 * its general path, on frames with every header field mutated: with
 * correct checksums, a frame the device vouched for (checksum OK flags, no
 * recomputation: the fast path may take it) and the same frame checked in
 * software (sw_csum: always the general path) must get the same verdict
 * and the same parse, field by field. Also: frames split into pieces at
 * the header boundary, padding, truncation, and broadcast and foreign MACs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zcnic/net.h"
#include "zcnic/port.h"

#define FRAMES		200000
#define BUF		256

static const uint8_t mac_us[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t mac_peer[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint32_t ip_us = 0x0200630a, ip_peer = 0x0100630a;	/* 10.99.0.2, .1 */

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)rand() % n;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A frame whose checksums are right for whatever its fields say; its length. */
static uint32_t make(uint8_t *b)
{
	static const uint8_t vihl[] = { 0x45, 0x45, 0x45, 0x46, 0x44, 0x55, 0x47 };
	static const uint8_t protos[] = { 17, 17, 17, 6, 1, 50 };
	uint32_t hl, pay = rnd(80), ulen, tot, len;
	uint8_t *ip = b + 14, *u;
	uint16_t c;

	memset(b, 0, BUF);
	memcpy(b, rnd(8) ? mac_us : rnd(2) ? mac_bcast : mac_peer, 6);
	memcpy(b + 6, mac_peer, 6);
	put16(b + 12, rnd(10) ? 0x0800 : rnd(2) ? 0x0806 : 0x86dd);
	ip[0] = vihl[rnd(sizeof(vihl))];
	hl = (ip[0] & 0xfu) * 4u;
	if (hl < 20)
		hl = 20;
	u = ip + hl;
	ulen = 8 + pay;
	if (!rnd(10))
		ulen = rnd(120);			/* a UDP length that lies */
	tot = hl + 8 + pay;
	if (!rnd(10))
		tot = rnd(160);				/* an IP length that lies */
	put16(ip + 2, tot);
	put16(ip + 4, rnd(65536));
	put16(ip + 6, rnd(8) ? 0x4000 : rnd(2) ? 0x2000 : 0x0010);	/* DF, MF, offset */
	ip[8] = 64;
	ip[9] = protos[rnd(sizeof(protos))];
	memcpy(ip + 12, &ip_peer, 4);
	memcpy(ip + 16, rnd(10) ? &ip_us : &ip_peer, 4);
	put16(u, 4000);
	put16(u + 2, 5000 + rnd(3));
	put16(u + 4, ulen);
	for (uint32_t i = 0; i < pay; i++)
		u[8 + i] = (uint8_t)rand();
	len = 14 + hl + 8 + pay;
	if (!rnd(6))
		len += rnd(20);				/* Ethernet padding */
	if (!rnd(8))
		len = rnd(len + 1);			/* cut short */
	/* checksums as a sender would fill them, over what the fields say */
	c = (uint16_t)~zn_csum_fold(zn_csum_add(0, ip, hl));
	memcpy(ip + 10, &c, 2);
	if (rnd(3) && ulen >= 8 && 14 + hl + ulen <= BUF) {
		c = (uint16_t)~zn_csum_fold(zn_ipv4_pseudo(ip_peer, ip_us, 17, (uint16_t)ulen) +
					    zn_csum_add(0, u, ulen));
		memcpy(u + 6, &c, 2);
	}
	return len;
}

static void frame_of(struct zn_frame *f, const uint8_t *b, uint32_t len, uint32_t cut)
{
	f->len = len;
	f->npiece = 1;
	f->piece[0].p = b;
	f->piece[0].len = len;
	if (cut && cut < len) {		/* headers in one buffer, payload in another */
		f->piece[0].len = cut;
		f->piece[1].p = b + cut;
		f->piece[1].len = len - cut;
		f->npiece = 2;
	}
}

static void same(const struct zn_net_rx_info *a, const struct zn_net_rx_info *b)
{
	assert_int_equal(a->l3, b->l3);
	assert_int_equal(a->l4, b->l4);
	assert_int_equal(a->src_ip, b->src_ip);
	assert_int_equal(a->dst_ip, b->dst_ip);
	assert_int_equal(a->sport, b->sport);
	assert_int_equal(a->dport, b->dport);
	assert_int_equal(a->payload_off, b->payload_off);
	assert_int_equal(a->payload_len, b->payload_len);
	assert_int_equal(a->ip_proto, b->ip_proto);
	assert_memory_equal(a->eth_src, b->eth_src, ZN_ETH_ALEN);
	assert_int_equal(a->arp_op, b->arp_op);
	assert_memory_equal(a->arp_sha, b->arp_sha, ZN_ETH_ALEN);
	assert_int_equal(a->arp_spa, b->arp_spa);
	assert_int_equal(a->arp_tpa, b->arp_tpa);
	/* padding too: callers compare parses as bytes (tests/fuzz/fuzz_net_rx.c) */
	assert_memory_equal(a, b, sizeof(*a));
}

static void test_fast_matches_general(void **s)
{
	static uint8_t b[BUF];
	unsigned fast_ok = 0, udp = 0;

	(void)s;
	srand(14);
	for (unsigned i = 0; i < FRAMES; i++) {
		uint32_t len = make(b), cut = rnd(3) ? 0 : 34 + rnd(16);
		struct zn_net_rx_info hw, sw;
		struct zn_frame f;
		enum zn_net_rx_kind kh, ks;

		frame_of(&f, b, len, cut);
		memset(&hw, 0xa5, sizeof(hw));
		memset(&sw, 0x5a, sizeof(sw));
		kh = zn_net_rx_parse(&f, ZN_RX_F_L3_CSUM_OK | ZN_RX_F_L4_CSUM_OK, false, mac_us,
				     ip_us, &hw);
		ks = zn_net_rx_parse(&f, 0, true, mac_us, ip_us, &sw);
		/* a frame whose UDP checksum covers bytes past its end is checked
		 * only in software: there the verdicts may differ, and only there */
		if (kh == ZN_NET_RX_UDP && ks == ZN_NET_DROP_UDP_CSUM)
			continue;
		assert_int_equal(kh, ks);
		if (kh == ZN_NET_RX_UDP || kh == ZN_NET_DROP_PROTO || kh == ZN_NET_RX_ICMP_ECHO)
			same(&hw, &sw);
		udp += kh == ZN_NET_RX_UDP;
		fast_ok += kh == ZN_NET_RX_UDP && !cut && b[14] == 0x45;
	}
	/* the mutations leave enough good frames for the fast path to matter */
	assert_true(udp > FRAMES / 10);
	assert_true(fast_ok > FRAMES / 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_matches_general),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
