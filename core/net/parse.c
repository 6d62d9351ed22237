/* SPDX-License-Identifier: MIT */
/*
 * Receive-side classification and validation of Ethernet/ARP/IPv4/ICMP/UDP
 * frames (RFC 826, 791, 792, 768). Every length is checked against the
 * frame before it is used: the frame comes from the wire.
 */
#include <string.h>

#include "zcnic/net.h"

/* Headers are parsed from contiguous bytes: the header buffer when the NIC
 * split after them, else a copy of the frame's first bytes. Ethernet + the
 * longest IPv4 header + UDP/ICMP header fit. */
#define PARSE_GATHER	128

struct view {
	const uint8_t *p;
	uint32_t len;
	bool gathered;
	uint8_t tmp[PARSE_GATHER];
};

/* n contiguous bytes from the frame's start, or NULL if the frame is shorter. */
static const uint8_t *need(const struct zn_frame *f, struct view *v, uint32_t n)
{
	if (n <= v->len)
		return v->p;
	if (v->gathered || n > f->len || n > PARSE_GATHER)
		return NULL;
	v->len = zn_frame_copy(f, 0, v->tmp, f->len < PARSE_GATHER ? f->len : PARSE_GATHER);
	v->p = v->tmp;
	v->gathered = true;
	return n <= v->len ? v->p : NULL;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool is_bcast(const uint8_t *m)
{
	return (m[0] & m[1] & m[2] & m[3] & m[4] & m[5]) == 0xff;
}

static enum zn_net_rx_kind parse_arp(const struct zn_frame *f, struct view *v, uint32_t ip,
				     struct zn_net_rx_info *info)
{
	const uint8_t *h = need(f, v, ZN_ETH_HLEN + ZN_ARP_LEN), *a;

	if (!h)
		return ZN_NET_DROP_RUNT;
	a = h + ZN_ETH_HLEN;
	if (be16(a) != 1 || be16(a + 2) != ZN_ETH_P_IPV4 || a[4] != ZN_ETH_ALEN || a[5] != 4)
		return ZN_NET_DROP_ARP;
	info->arp_op = be16(a + 6);
	if (info->arp_op != ZN_ARP_OP_REQUEST && info->arp_op != ZN_ARP_OP_REPLY)
		return ZN_NET_DROP_ARP;
	memcpy(info->arp_sha, a + 8, ZN_ETH_ALEN);
	memcpy(&info->arp_spa, a + 14, 4);
	memcpy(&info->arp_tpa, a + 24, 4);
	/* a sender claiming a multicast/broadcast MAC is bogus (RFC 1812 3.3.2) */
	if (info->arp_sha[0] & 1)
		return ZN_NET_DROP_ARP;
	if (info->arp_tpa != ip)
		return ZN_NET_DROP_ARP;
	return ZN_NET_RX_ARP;
}

static bool csum_ok_hw(uint32_t flags, uint32_t ok, bool sw)
{
	return !sw && (flags & ok);
}

static enum zn_net_rx_kind parse_udp(const struct zn_frame *f, struct view *v, uint32_t rx_flags,
				     bool sw, uint32_t ip_payload, struct zn_net_rx_info *info)
{
	const uint8_t *h = need(f, v, info->l4 + ZN_UDP_HLEN), *u;
	uint16_t ulen, c;

	if (!h)
		return ZN_NET_DROP_RUNT;
	u = h + info->l4;
	ulen = be16(u + 4);
	if (ulen < ZN_UDP_HLEN || ulen > ip_payload)
		return ZN_NET_DROP_UDP_HDR;
	memcpy(&info->sport, u, 2);
	memcpy(&info->dport, u + 2, 2);
	info->payload_off = info->l4 + ZN_UDP_HLEN;
	info->payload_len = ulen - ZN_UDP_HLEN;
	memcpy(&c, u + 6, 2);
	if (c == 0)
		return ZN_NET_RX_UDP;	/* RFC 768: no checksum (IPv4 only) */
	if (!sw && (rx_flags & ZN_RX_F_L4_CSUM_BAD))
		return ZN_NET_DROP_UDP_CSUM;
	if (!csum_ok_hw(rx_flags, ZN_RX_F_L4_CSUM_OK, sw)) {
		uint32_t s = zn_ipv4_pseudo(info->src_ip, info->dst_ip, ZN_IPPROTO_UDP, ulen);

		s += zn_frame_csum(f, info->l4, ulen);
		if (zn_csum_fold(s) != 0xffff)
			return ZN_NET_DROP_UDP_CSUM;
	}
	return ZN_NET_RX_UDP;
}

static enum zn_net_rx_kind parse_icmp(const struct zn_frame *f, struct view *v,
				      uint32_t ip_payload, struct zn_net_rx_info *info)
{
	const uint8_t *h;

	if (ip_payload < ZN_ICMP_HLEN)
		return ZN_NET_DROP_ICMP;
	h = need(f, v, info->l4 + ZN_ICMP_HLEN);
	if (!h)
		return ZN_NET_DROP_RUNT;
	if (h[info->l4] != ZN_ICMP_ECHO_REQUEST || h[info->l4 + 1] != 0)
		return ZN_NET_DROP_ICMP;
	/* ICMP is the slow path: always checked here, whatever the device said */
	if (zn_csum_fold(zn_frame_csum(f, info->l4, ip_payload)) != 0xffff)
		return ZN_NET_DROP_ICMP;
	info->payload_off = info->l4 + ZN_ICMP_HLEN;
	info->payload_len = ip_payload - ZN_ICMP_HLEN;
	return ZN_NET_RX_ICMP_ECHO;
}

static enum zn_net_rx_kind parse_ipv4(const struct zn_frame *f, struct view *v, uint32_t rx_flags,
				      bool sw, uint32_t ip, struct zn_net_rx_info *info)
{
	const uint8_t *h = need(f, v, ZN_ETH_HLEN + ZN_IPV4_HLEN), *p;
	uint32_t hl, tot;

	if (!h)
		return ZN_NET_DROP_RUNT;
	p = h + ZN_ETH_HLEN;
	hl = (p[0] & 0xfu) * 4u;
	if ((p[0] >> 4) != 4 || hl < ZN_IPV4_HLEN)
		return ZN_NET_DROP_IP_HDR;
	h = need(f, v, ZN_ETH_HLEN + hl);
	if (!h)
		return ZN_NET_DROP_RUNT;
	p = h + ZN_ETH_HLEN;
	tot = be16(p + 2);
	if (tot < hl)
		return ZN_NET_DROP_IP_HDR;
	if (ZN_ETH_HLEN + tot > f->len)
		return ZN_NET_DROP_RUNT;	/* bytes past tot are Ethernet padding */
	if (!sw && (rx_flags & ZN_RX_F_L3_CSUM_BAD))
		return ZN_NET_DROP_IP_CSUM;
	if (!csum_ok_hw(rx_flags, ZN_RX_F_L3_CSUM_OK, sw) &&
	    zn_csum_fold(zn_csum_add(0, p, hl)) != 0xffff)
		return ZN_NET_DROP_IP_CSUM;
	if (be16(p + 6) & (ZN_IPV4_MF | ZN_IPV4_OFFMASK))
		return ZN_NET_DROP_FRAG;
	memcpy(&info->src_ip, p + 12, 4);
	memcpy(&info->dst_ip, p + 16, 4);
	if (info->dst_ip != ip)
		return ZN_NET_DROP_NOT_OURS;
	info->l3 = ZN_ETH_HLEN;
	info->l4 = ZN_ETH_HLEN + hl;
	info->ip_proto = p[9];
	switch (p[9]) {
	case ZN_IPPROTO_UDP:
		return parse_udp(f, v, rx_flags, sw, tot - hl, info);
	case ZN_IPPROTO_ICMP:
		return parse_icmp(f, v, tot - hl, info);
	default:
		/* the IP payload, for a protocol engine above (TCP) */
		info->payload_off = info->l4;
		info->payload_len = tot - hl;
		return ZN_NET_DROP_PROTO;
	}
}

#define HW_CSUM_OK	(ZN_RX_F_L3_CSUM_OK | ZN_RX_F_L4_CSUM_OK)
#define HW_CSUM_MASK	(HW_CSUM_OK | ZN_RX_F_L3_CSUM_BAD | ZN_RX_F_L4_CSUM_BAD)

/*
 * The frame a receive path sees most, in one pass: unicast to us, IPv4
 * without options, not a fragment, UDP, all headers in the first piece,
 * both checksums vouched for by the device. Every test the general path
 * makes of such a frame is made here, in the same terms; a frame that is
 * anything else, or fails any test, goes the general way (false), which
 * names the precise reason.
 */
static bool parse_udp_fast(const struct zn_frame *f, uint32_t rx_flags, bool sw,
			   const uint8_t mac[ZN_ETH_ALEN], uint32_t ip,
			   struct zn_net_rx_info *info)
{
	const uint8_t *h = f->piece[0].p, *p = h + ZN_ETH_HLEN, *u = p + ZN_IPV4_HLEN;
	uint32_t tot, ulen, dst;

	if (sw || (rx_flags & HW_CSUM_MASK) != HW_CSUM_OK || f->piece[0].len < ZN_UDP_HDRS ||
	    f->len < ZN_UDP_HDRS)
		return false;
	if (be16(h + 12) != ZN_ETH_P_IPV4 || p[0] != 0x45 || p[9] != ZN_IPPROTO_UDP ||
	    memcmp(h, mac, ZN_ETH_ALEN))
		return false;
	tot = be16(p + 2);
	ulen = be16(u + 4);
	memcpy(&dst, p + 16, 4);
	if (tot < ZN_IPV4_HLEN + ZN_UDP_HLEN || ZN_ETH_HLEN + tot > f->len || dst != ip ||
	    (be16(p + 6) & (ZN_IPV4_MF | ZN_IPV4_OFFMASK)) || ulen < ZN_UDP_HLEN ||
	    ulen > tot - ZN_IPV4_HLEN)
		return false;
	/* every byte as the general path leaves it, padding included (callers compare) */
	memset(info, 0, sizeof(*info));
	info->l3 = ZN_ETH_HLEN;
	info->l4 = ZN_ETH_HLEN + ZN_IPV4_HLEN;
	info->dst_ip = dst;
	info->payload_off = ZN_UDP_HDRS;
	info->payload_len = ulen - ZN_UDP_HLEN;
	info->ip_proto = ZN_IPPROTO_UDP;
	memcpy(info->eth_src, h + 6, ZN_ETH_ALEN);
	memcpy(&info->src_ip, p + 12, 4);
	memcpy(&info->sport, u, 2);
	memcpy(&info->dport, u + 2, 2);
	return true;
}

/* Every other frame (out of line: its gather buffer costs the fast path nothing). */
static __attribute__((noinline)) enum zn_net_rx_kind
parse_general(const struct zn_frame *f, uint32_t rx_flags, bool sw_csum,
	      const uint8_t mac[ZN_ETH_ALEN], uint32_t ip, struct zn_net_rx_info *info)
{
	struct view v;
	const uint8_t *h;

	memset(info, 0, sizeof(*info));
	v.p = f->npiece ? f->piece[0].p : NULL;
	v.len = f->npiece ? f->piece[0].len : 0;
	if (v.len > f->len)
		v.len = f->len;
	v.gathered = false;
	h = need(f, &v, ZN_ETH_HLEN);
	if (!h)
		return ZN_NET_DROP_RUNT;
	if (memcmp(h, mac, ZN_ETH_ALEN) && !is_bcast(h))
		return ZN_NET_DROP_L2;
	memcpy(info->eth_src, h + 6, ZN_ETH_ALEN);
	switch (be16(h + 12)) {
	case ZN_ETH_P_ARP:
		return parse_arp(f, &v, ip, info);
	case ZN_ETH_P_IPV4:
		return parse_ipv4(f, &v, rx_flags, sw_csum, ip, info);
	default:
		return ZN_NET_DROP_ETHERTYPE;
	}
}

enum zn_net_rx_kind zn_net_rx_parse(const struct zn_frame *f, uint32_t rx_flags, bool sw_csum,
				    const uint8_t mac[ZN_ETH_ALEN], uint32_t ip,
				    struct zn_net_rx_info *info)
{
	if (f->npiece && parse_udp_fast(f, rx_flags, sw_csum, mac, ip, info))
		return ZN_NET_RX_UDP;
	return parse_general(f, rx_flags, sw_csum, mac, ip, info);
}

const char *zn_net_rx_kind_name(unsigned kind)
{
	static const char *const names[ZN_NET_RX_KINDS] = {
		[ZN_NET_RX_UDP] = "udp",
		[ZN_NET_RX_ARP] = "arp",
		[ZN_NET_RX_ICMP_ECHO] = "icmp_echo",
		[ZN_NET_DROP_RUNT] = "runt",
		[ZN_NET_DROP_L2] = "not_our_mac",
		[ZN_NET_DROP_ETHERTYPE] = "ethertype",
		[ZN_NET_DROP_ARP] = "bad_arp",
		[ZN_NET_DROP_IP_HDR] = "ip_hdr",
		[ZN_NET_DROP_IP_CSUM] = "ip_csum",
		[ZN_NET_DROP_FRAG] = "ip_frag",
		[ZN_NET_DROP_NOT_OURS] = "not_our_ip",
		[ZN_NET_DROP_PROTO] = "ip_proto",
		[ZN_NET_DROP_ICMP] = "icmp",
		[ZN_NET_DROP_UDP_HDR] = "udp_hdr",
		[ZN_NET_DROP_UDP_CSUM] = "udp_csum",
		[ZN_NET_DROP_NO_EP] = "no_endpoint",
		[ZN_NET_DROP_EP_FULL] = "endpoint_full",
		[ZN_NET_DROP_NOBUF] = "no_buffer",
		[ZN_NET_RX_TCP] = "tcp",
		[ZN_NET_DROP_TCP] = "tcp_bad",
	};

	return kind < ZN_NET_RX_KINDS ? names[kind] : "?";
}
