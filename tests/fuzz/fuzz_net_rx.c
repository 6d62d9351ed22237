/*
 * libFuzzer target: core/net's receive parsing (Ethernet, ARP, IPv4,
 * ICMP, UDP) fed arbitrary frames, as the NIC would place them: split into
 * a header piece and up to ZN_RX_MAX_SEGS payload pieces, each in its own
 * allocation so that ASan catches a read past any piece.
 *
 * Input: byte 0 = the device's checksum flags (ZN_RX_F_*), byte 1 bit 0 =
 * sw_csum, byte 1 bits 1-3 = number of extra pieces, bytes 2-9 = the piece
 * lengths' seeds; the rest is the frame.
 *
 * Checked: the pieced frame classifies exactly like the same bytes in one
 * piece; offsets and lengths it reports lie inside the frame; an accepted
 * UDP datagram's checksum really is right (or 0) when software checked it;
 * an echo reply built from an accepted request is a valid IPv4/ICMP frame
 * of the right length.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zcnic/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
#define OUR_IP	0x0200010au	/* 10.1.0.2 in network order on little endian */
#define HDR	10

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zn_frame one, many;
	struct zn_net_rx_info a, b;
	enum zn_net_rx_kind ka, kb;
	uint8_t *pieces[ZN_FRAME_MAX_PIECES] = { 0 };
	uint32_t flags, len, off = 0, np;
	bool sw;

	if (size < HDR)
		return 0;
	flags = data[0] & (ZN_RX_F_L3_CSUM_OK | ZN_RX_F_L4_CSUM_OK | ZN_RX_F_L3_CSUM_BAD |
			   ZN_RX_F_L4_CSUM_BAD | ZN_RX_F_SPLIT);
	sw = data[1] & 1;
	np = 1 + ((data[1] >> 1) & 7);
	if (np > ZN_FRAME_MAX_PIECES)
		np = ZN_FRAME_MAX_PIECES;
	len = (uint32_t)(size - HDR);
	if (len > 16384)
		return 0;

	one.len = len;
	one.npiece = 1;
	one.piece[0].p = data + HDR;
	one.piece[0].len = len;
	many.len = len;
	many.npiece = np;
	for (uint32_t i = 0; i < np; i++) {
		uint32_t pl = i + 1 == np ? len - off : (uint32_t)data[2 + i] * 3 % (len - off + 1);

		pieces[i] = malloc(pl ? pl : 1);
		memcpy(pieces[i], data + HDR + off, pl);
		many.piece[i].p = pieces[i];
		many.piece[i].len = pl;
		off += pl;
	}

	ka = zn_net_rx_parse(&one, flags, sw, mac, OUR_IP, &a);
	kb = zn_net_rx_parse(&many, flags, sw, mac, OUR_IP, &b);
	CHECK(ka == kb);
	CHECK(ka < ZN_NET_RX_KINDS);
	CHECK(!memcmp(&a, &b, sizeof(a)));
	if (ka == ZN_NET_RX_UDP || ka == ZN_NET_RX_ICMP_ECHO) {
		CHECK(a.payload_off <= len && a.payload_len <= len - a.payload_off);
		CHECK(a.l4 < a.payload_off && a.l3 < a.l4);
		CHECK(a.dst_ip == OUR_IP);
	}
	if (ka == ZN_NET_RX_UDP && sw) {
		uint8_t c[2];

		zn_frame_copy(&many, a.l4 + 6, c, 2);
		if (c[0] | c[1]) {
			uint32_t ulen = ZN_UDP_HLEN + a.payload_len;
			uint32_t s = zn_ipv4_pseudo(a.src_ip, a.dst_ip, ZN_IPPROTO_UDP,
						    (uint16_t)ulen);

			CHECK(zn_csum_fold(s + zn_frame_csum(&one, a.l4, ulen)) == 0xffff);
		}
	}
	if (ka == ZN_NET_RX_ICMP_ECHO) {
		static uint8_t out[16384 + 64];
		size_t n = zn_icmp_echo_reply(&many, &a, mac, 1, out, sizeof(out));

		if (a.payload_len + 42 <= 0xffff) {
			CHECK(n == (size_t)ZN_ETH_HLEN + ZN_IPV4_HLEN + ZN_ICMP_HLEN + a.payload_len);
			CHECK(zn_csum_fold(zn_csum_add(0, out + 14, 20)) == 0xffff);
			CHECK(zn_csum_fold(zn_csum_add(0, out + 34, n - 34)) == 0xffff);
			CHECK(out[34] == ZN_ICMP_ECHO_REPLY);
		}
	}
	if (ka == ZN_NET_RX_ARP)
		CHECK(a.arp_tpa == OUR_IP && (a.arp_op == 1 || a.arp_op == 2));
	/* the pieced checksum equals the contiguous one at any start */
	if (len) {
		uint32_t st = data[2] % len & ~1u;

		CHECK(zn_csum_fold(zn_frame_csum(&many, st, len - st)) ==
		      zn_csum_fold(zn_csum_add(0, data + HDR + st, len - st)));
	}
	for (uint32_t i = 0; i < np; i++)
		free(pieces[i]);
	return 0;
}
