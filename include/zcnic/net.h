/* SPDX-License-Identifier: MIT */
/*
 * core/net: Ethernet, ARP, IPv4, ICMP echo and UDP wire formats: build and
 * parse them, the Internet checksum (RFC 1071), addresses as command lines
 * give them. Pure functions, no state; for applications, tests and the
 * stack alike. The stack itself (the network interface and its UDP
 * endpoints) is internal: core/net/netif.h; applications reach it through
 * sockets (include/zcnic/socket.h) and the ring.
 */
#ifndef ZCNIC_NET_H
#define ZCNIC_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcnic/port.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

/* ---- wire formats ------------------------------------------------------- */

#define ZN_ETH_HLEN		14
#define ZN_ETH_P_IPV4		0x0800
#define ZN_ETH_P_ARP		0x0806
#define ZN_ETH_P_VLAN		0x8100
#define ZN_IPV4_HLEN		20	/* without options */
#define ZN_IPV4_MAX_HLEN	60
#define ZN_UDP_HLEN		8
#define ZN_ICMP_HLEN		8
#define ZN_ARP_LEN		28	/* Ethernet/IPv4 ARP packet */
#define ZN_UDP_HDRS		(ZN_ETH_HLEN + ZN_IPV4_HLEN + ZN_UDP_HLEN)	/* 42 */
#define ZN_IPPROTO_ICMP		1
#define ZN_IPPROTO_TCP		6
#define ZN_IPPROTO_UDP		17
#define ZN_IPV4_DF		0x4000
#define ZN_IPV4_MF		0x2000
#define ZN_IPV4_OFFMASK		0x1fff
#define ZN_ARP_OP_REQUEST	1
#define ZN_ARP_OP_REPLY		2
#define ZN_ICMP_ECHO_REPLY	0
#define ZN_ICMP_ECHO_REQUEST	8
#define ZN_NET_TTL		64

/* An IPv4 address and UDP port, both in network byte order (as in
 * struct sockaddr_in). */
struct zn_addr4 {
	uint32_t ip;
	uint16_t port;
	uint16_t rsvd;		/* 0 */
};

/* Command-line forms: "A.B.C.D/N" (N 1..32) and "A.B.C.D:PORT" (PORT
 * 1..65535), network order out. 0 or -EINVAL. */
int zn_ipv4_parse_cidr(const char *s, uint32_t *ip, uint8_t *prefix_len);
int zn_addr4_parse(const char *s, struct zn_addr4 *addr);

/*
 * RFC 1071 Internet checksum. zn_csum_add adds len bytes to a running
 * 32-bit sum as if p started at an even offset of the checksummed stream;
 * zn_csum_fold folds it to 16 bits (not complemented): the checksum field
 * is ~fold, and a stream that includes a correct checksum folds to 0xffff.
 */
uint32_t zn_csum_add(uint32_t sum, const void *p, size_t len);
uint16_t zn_csum_fold(uint32_t sum);
/* The IPv4/UDP pseudo-header (RFC 768) as a running sum. */
uint32_t zn_ipv4_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t l4_len);
/* The checksum field value of an IPv4 header of hlen bytes (its own
 * checksum field is taken as 0). */
uint16_t zn_ipv4_csum(const void *hdr, size_t hlen);

/* Builders write at p and return bytes written. Multi-byte fields are
 * network byte order in memory; arguments likewise for IPs and ports. */
size_t zn_eth_build(uint8_t *p, const uint8_t dst[ZN_ETH_ALEN], const uint8_t src[ZN_ETH_ALEN],
		    uint16_t type);
/* 20-byte header, DF set, checksum filled. */
size_t zn_ipv4_build(uint8_t *p, uint32_t src, uint32_t dst, uint8_t proto, uint16_t l4_len,
		     uint16_t id, uint8_t ttl);
/* UDP header with checksum 0 (see zn_udp_csum). */
size_t zn_udp_build(uint8_t *p, uint16_t sport, uint16_t dport, uint16_t payload_len);
/* The UDP checksum field for a header + payload (payload may be split in
 * two: pay2 NULL for one piece); 0xffff stands for a computed 0 (RFC 768). */
uint16_t zn_udp_csum(uint32_t src, uint32_t dst, const uint8_t *udp_hdr, const void *pay,
		     size_t len, const void *pay2, size_t len2);
/* A whole Ethernet/IPv4/UDP frame with both checksums into buf (cap bytes):
 * the frame length, or 0 if it does not fit. */
size_t zn_udp_frame_build(uint8_t *buf, size_t cap, const uint8_t dst_mac[ZN_ETH_ALEN],
			  const uint8_t src_mac[ZN_ETH_ALEN], const struct zn_addr4 *src,
			  const struct zn_addr4 *dst, const void *payload, size_t len, uint16_t ip_id);
/* An Ethernet frame carrying an ARP packet (42 bytes). tha NULL: zeros. */
size_t zn_arp_build(uint8_t *p, uint16_t op, const uint8_t eth_dst[ZN_ETH_ALEN],
		    const uint8_t sha[ZN_ETH_ALEN], uint32_t spa, const uint8_t *tha, uint32_t tpa);

/*
 * A received frame as the NIC placed it: the header buffer, then payload
 * segments. pieces[0] is the header buffer; len is the sum of the pieces.
 */
#define ZN_FRAME_MAX_PIECES	(1 + ZN_RX_MAX_SEGS)
struct zn_frame {
	uint32_t len;
	uint32_t npiece;
	struct {
		const uint8_t *p;
		uint32_t len;
	} piece[ZN_FRAME_MAX_PIECES];
};

/* Copy len bytes from offset off of the frame; bytes copied (short at the end). */
uint32_t zn_frame_copy(const struct zn_frame *f, uint32_t off, void *dst, uint32_t len);
/* The running checksum sum of len bytes from off (off even in the stream). */
uint32_t zn_frame_csum(const struct zn_frame *f, uint32_t off, uint32_t len);

/* What a received frame is; the drops are counted per reason. */
enum zn_net_rx_kind {
	ZN_NET_RX_UDP = 0,	/* UDP to our IP: deliver */
	ZN_NET_RX_ARP,		/* ARP request or reply for our IP, or from a known host */
	ZN_NET_RX_ICMP_ECHO,	/* echo request to our IP: reply */
	/* drops */
	ZN_NET_DROP_RUNT,	/* shorter than its headers say */
	ZN_NET_DROP_L2,		/* Ethernet destination not us nor broadcast */
	ZN_NET_DROP_ETHERTYPE,	/* not IPv4 nor ARP (IPv6, VLAN, ...) */
	ZN_NET_DROP_ARP,	/* malformed ARP, or not for us */
	ZN_NET_DROP_IP_HDR,	/* version, IHL or total length wrong */
	ZN_NET_DROP_IP_CSUM,	/* IPv4 header checksum */
	ZN_NET_DROP_FRAG,	/* IPv4 fragment: no reassembly */
	ZN_NET_DROP_NOT_OURS,	/* IPv4 destination not our address */
	ZN_NET_DROP_PROTO,	/* IP protocol we do not serve (TCP, ...) */
	ZN_NET_DROP_ICMP,	/* malformed or bad-checksum ICMP, or not an echo request */
	ZN_NET_DROP_UDP_HDR,	/* UDP length wrong */
	ZN_NET_DROP_UDP_CSUM,	/* UDP checksum */
	ZN_NET_DROP_NO_EP,	/* no endpoint bound to the destination */
	ZN_NET_DROP_EP_FULL,	/* the endpoint's receive list is full */
	ZN_NET_DROP_NOBUF,	/* no provider buffer to copy a header-resident payload */
	/* TCP: the parser leaves it to the netif's TCP engine (ZN_NET_DROP_PROTO
	 * with ip_proto 6), which says which of these it was */
	ZN_NET_RX_TCP,		/* a segment handed to the TCP engine */
	ZN_NET_DROP_TCP,	/* TCP checksum or length wrong, or no engine */
	ZN_NET_RX_KINDS
};
#define ZN_NET_DROP_FIRST ZN_NET_DROP_RUNT	/* drops: from here, except ZN_NET_RX_TCP */

/* Short name of a kind ("udp", "ip_csum", ...), for stats output. */
const char *zn_net_rx_kind_name(unsigned kind);

struct zn_net_rx_info {
	uint32_t l3, l4;		/* offsets in the frame */
	uint32_t src_ip, dst_ip;	/* network order */
	uint16_t sport, dport;		/* network order */
	uint32_t payload_off, payload_len;	/* UDP / ICMP data (ICMP: from its header);
						 * other protocols: the IP payload */
	uint8_t ip_proto;
	uint8_t eth_src[ZN_ETH_ALEN];
	/* ARP */
	uint16_t arp_op;
	uint8_t arp_sha[ZN_ETH_ALEN];
	uint32_t arp_spa, arp_tpa;
};

/*
 * Classify and validate one frame for an interface with address mac/ip.
 * rx_flags are the port's ZN_RX_F_* checksum results: a checksum the device
 * reports bad is dropped; one it reports good is not recomputed unless
 * sw_csum. Never reads past the pieces.
 */
enum zn_net_rx_kind zn_net_rx_parse(const struct zn_frame *f, uint32_t rx_flags, bool sw_csum,
				    const uint8_t mac[ZN_ETH_ALEN], uint32_t ip,
				    struct zn_net_rx_info *info);

/*
 * The echo reply to the echo request in f (parsed into info): Ethernet,
 * IPv4 and ICMP headers swapped and rebuilt, data copied, both checksums
 * filled. Bytes written to out, 0 if it does not fit cap.
 */
size_t zn_icmp_echo_reply(const struct zn_frame *f, const struct zn_net_rx_info *info,
			  const uint8_t mac[ZN_ETH_ALEN], uint16_t ip_id, uint8_t *out, size_t cap);

#pragma GCC visibility pop

#endif
