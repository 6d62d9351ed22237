/* SPDX-License-Identifier: MIT */
/*
 * core/net: Ethernet, ARP, IPv4, ICMP echo and UDP over core/port.
 *
 * Two layers in this header:
 *
 *   wire formats   build and parse Ethernet/IPv4/UDP/ARP/ICMP, the Internet
 *                  checksum (RFC 1071); pure functions, no state
 *   netif + UDP    a network interface (a started port, our MAC, an IPv4
 *                  address/prefix, the RX queues it polls, one TX queue, an
 *                  ARP cache) and UDP endpoints bound to local ip:port
 *
 *     zn_udp_open ----- n-tuple rule (local ip:port -> rx queue) ---> NIC
 *     zn_netif_poll:
 *       rx_burst on every queue --> parse --> ARP: answer / learn
 *                                         --> ICMP echo to us: reply
 *                                         --> UDP: flow table -> endpoint's
 *                                             receive list (descriptors)
 *                                         --> anything else: counted, dropped
 *       tx_reap --> slab slots free, cookies to their endpoints' lists
 *       ARP timers (retries, expiry)
 *       one tx_burst with every frame queued since the last poll
 *
 * Zero-copy receive: a datagram's payload stays in the buffers of the RX
 * queue's payload provider; the descriptor names them {buf_id, off, len}.
 * Ownership: from zn_udp_recv on, the buffers are the caller's; it gives
 * them back with zn_udp_rx_release (to the provider of the queue in the
 * descriptor). Bytes the NIC left in the header buffer (a datagram shorter
 * than the queue's split threshold, a device that did not split) are copied
 * into fresh provider buffers, as the kernel's zcrx does, so a descriptor
 * never points into header memory. The header pointer of a descriptor is
 * valid only until the next zn_netif_poll.
 *
 * Zero-copy send: zn_udp_send builds Ethernet+IPv4+UDP headers from the
 * endpoint's template into a slot of the netif's header slab (DMA memory
 * mapped to the port's device) and queues a frame {header slot, the caller's
 * segments by IOVA}; the next poll (or zn_netif_flush) posts every queued
 * frame with one tx_burst. When the NIC is done with the frame, the cookie
 * comes back on the endpoint's completion list (zn_udp_tx_reap): from then
 * on the caller may reuse its buffers. Each accepted send yields exactly one
 * completion, also when the frame was dropped (status < 0).
 *
 * UDP checksum on TX: computed in software when the caller gives the VA of
 * every segment (zn_udp_send_buf always does); otherwise sent as 0, which
 * RFC 768 allows over IPv4 ("no checksum"), until zn_tx_pkt carries an
 * offload flag for the device to fill it in.
 *
 * Unresolved next hop: zn_udp_send queues the frame on the ARP entry (at
 * most ZN_ARP_PENDING frames per address), sends an ARP request and returns
 * 0; the frames go out when the reply arrives, or complete with
 * -EHOSTUNREACH once ZN_ARP_RETRIES requests went unanswered. A send to an
 * address whose queue is full returns -EAGAIN.
 *
 * Threading: a netif and its endpoints belong to one thread (the owner of
 * its queues): poll, send, recv, release and reap are called there only.
 * Open/close may be called from that thread between polls.
 *
 * For the io_uring layer: an endpoint has a small integer id (zn_udp_id,
 * zn_udp_by_id) to stand in sqe->fd; zn_netif_poll_hook fits a ring's poll
 * hook; RECV_ZC maps to zn_udp_recv + zn_udp_rx_release, SEND_ZC to
 * zn_udp_send with the SQE's user_data as the cookie; the endpoint's notify
 * callback says when its receive or completion list became non-empty.
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
	ZN_NET_RX_KINDS
};
#define ZN_NET_DROP_FIRST ZN_NET_DROP_RUNT

/* Short name of a kind ("udp", "ip_csum", ...), for stats output. */
const char *zn_net_rx_kind_name(unsigned kind);

struct zn_net_rx_info {
	uint32_t l3, l4;		/* offsets in the frame */
	uint32_t src_ip, dst_ip;	/* network order */
	uint16_t sport, dport;		/* network order */
	uint32_t payload_off, payload_len;	/* UDP / ICMP data (ICMP: from its header) */
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

/* ---- the network interface ---------------------------------------------- */

#define ZN_NETIF_MAX_RXQ	16
#define ZN_ARP_PENDING		4	/* frames queued per unresolved address */
#define ZN_ARP_RETRIES		3	/* requests before giving up */

struct zn_netif;
struct zn_udp_ep;

struct zn_netif_conf {
	uint32_t ip;			/* network order */
	uint8_t prefix_len;		/* 1..32 */
	uint32_t gateway;		/* network order; 0: on-link destinations only */
	/*
	 * RX queues to poll: set up by the caller before zn_port_start, with
	 * header-data split (hds_thresh 0 keeps every payload zero-copy).
	 */
	uint16_t rxq[ZN_NETIF_MAX_RXQ];
	uint16_t nb_rxq;
	uint16_t txq;			/* the TX queue the netif owns */
	uint32_t mtu;			/* L3 MTU, as the port was configured; 0 = 1500 */
	uint32_t tx_slots;		/* header slab slots (frames in flight); 0 = 1024 */
	uint32_t burst;			/* rx_burst size; 0 = 32 */
	bool sw_csum;			/* verify checksums even when the device says good */
	/* Time source (ns, monotonic) for ARP timers; NULL = CLOCK_MONOTONIC. */
	uint64_t (*clock_ns)(void *ctx);
	void *clock_ctx;
};

struct zn_netif_stats {
	uint64_t rx_frames;
	uint64_t rx[ZN_NET_RX_KINDS];	/* per zn_net_rx_kind */
	uint64_t rx_delivered;		/* datagrams onto receive lists */
	uint64_t rx_copied;		/* of which copied out of header buffers */
	uint64_t tx_udp;		/* datagrams posted */
	uint64_t tx_arp_request, tx_arp_reply, tx_icmp_reply;
	uint64_t tx_refused;		/* tx_burst refusals, retried on the next poll */
	uint64_t tx_no_slot;		/* sends refused: header slab full (-EAGAIN) */
	uint64_t tx_unresolved;		/* frames dropped after ARP gave up */
	uint64_t tx_completed;		/* frames reaped from the NIC */
	uint64_t arp_learned, arp_expired, arp_failed;
};

/*
 * An interface over a started port. Allocates and DMA-maps the header slab;
 * -EINVAL (bad conf: prefix, queues), -ENOMEM, or the mapping's error.
 */
int zn_netif_create(struct zn_port *p, const struct zn_netif_conf *conf, struct zn_netif **out);
/* Closes the endpoints still open, gives buffers back, waits (at most
 * 100 ms) for frames the NIC still reads, unmaps the slab. Before
 * zn_port_close. */
void zn_netif_destroy(struct zn_netif *nif);
/* Receive, answer, deliver, reap, run timers, send: the work done (frames
 * received + completions reaped + frames posted), >= 0. */
int zn_netif_poll(struct zn_netif *nif);
/* The same as a ring's poll hook: arg is the netif. */
int zn_netif_poll_hook(void *arg);
/* Post the queued frames now; how many the NIC took. */
uint32_t zn_netif_flush(struct zn_netif *nif);
void zn_netif_stats(const struct zn_netif *nif, struct zn_netif_stats *st);
void zn_netif_mac(const struct zn_netif *nif, uint8_t mac[ZN_ETH_ALEN]);
struct zn_port *zn_netif_port(const struct zn_netif *nif);
/* The ARP cache's answer for ip: 0 and the MAC, or -ENOENT (not resolved). */
int zn_netif_arp_lookup(struct zn_netif *nif, uint32_t ip, uint8_t mac[ZN_ETH_ALEN]);

/* ---- UDP endpoints ------------------------------------------------------ */

enum {
	ZN_UDP_EV_RX = 1u << 0,		/* the receive list became non-empty */
	ZN_UDP_EV_TX = 1u << 1,		/* the completion list became non-empty */
};

struct zn_udp_conf {
	struct zn_addr4 local;		/* ip 0 = the netif's; port != 0 */
	struct zn_addr4 remote;		/* connected: only from there; 0 = any */
	uint16_t rxq;			/* the queue the n-tuple rule steers to */
	bool no_steer;			/* install no rule (RSS / default queue) */
	uint32_t rx_ring;		/* receive list entries, power of two; 0 = 256 */
	/* Called from zn_netif_poll, at most once per poll per endpoint. */
	void (*notify)(void *arg, struct zn_udp_ep *ep, unsigned events);
	void *arg;
};

/* A received datagram. */
struct zn_udp_rx {
	struct zn_addr4 src;
	uint16_t queue;			/* RX queue: its provider owns the buffers */
	uint16_t nseg;
	uint32_t len;			/* payload bytes */
	const uint8_t *hdr;		/* Ethernet header; valid until the next poll */
	uint32_t hdr_len;		/* up to the end of the UDP header */
	struct {
		const uint8_t *va;	/* the buffer (zn_rx_pkt's seg va): data at va + off */
		uint32_t buf_id;	/* provider buffer */
		uint32_t off;
		uint32_t len;
	} seg[ZN_RX_MAX_SEGS];
};

/* A payload segment to send: IOVA mapped to the port's device; va optional
 * (given for every segment, the UDP checksum is computed). */
struct zn_net_seg {
	uint64_t iova;
	const void *va;
	uint32_t len;
};
#define ZN_UDP_MAX_SEGS (ZN_TX_MAX_SEGS - 1)	/* one slot goes to the header */

struct zn_udp_tx_done {
	uint64_t cookie;
	int32_t status;			/* 0 sent; -EHOSTUNREACH: ARP gave up */
	uint32_t rsvd;
};

/*
 * Bind: local ip must be the netif's, port not in use (-EADDRINUSE), rxq
 * one of the netif's queues; installs the n-tuple rule (its error is
 * returned, with one line saying which rule failed).
 */
int zn_udp_open(struct zn_netif *nif, const struct zn_udp_conf *conf, struct zn_udp_ep **out);
/* Removes the rule, gives back the buffers of undelivered datagrams;
 * frames in flight complete without a cookie. */
void zn_udp_close(struct zn_udp_ep *ep);
uint32_t zn_udp_id(const struct zn_udp_ep *ep);
struct zn_udp_ep *zn_udp_by_id(struct zn_netif *nif, uint32_t id);

/* Take up to n datagrams off the receive list; their buffers are now the
 * caller's. Only seg[0..nseg) of each descriptor is written. */
uint32_t zn_udp_recv(struct zn_udp_ep *ep, struct zn_udp_rx *out, uint32_t n);
/* Payload bytes of segment i (its va + off: no provider call); NULL if
 * there is no such segment or the provider gave no address. */
const uint8_t *zn_udp_rx_data(struct zn_udp_ep *ep, const struct zn_udp_rx *d, uint32_t i);
/* Give a datagram's buffers back to its queue's provider. */
void zn_udp_rx_release(struct zn_udp_ep *ep, const struct zn_udp_rx *d);
/* Datagrams waiting on the receive list. */
uint32_t zn_udp_rx_pending(const struct zn_udp_ep *ep);

/*
 * Queue one datagram to dst (dst->ip 0: the connected remote). 0, or
 * -EINVAL (no destination, nseg 0 or > ZN_UDP_MAX_SEGS), -EMSGSIZE (more than
 * the MTU allows: no fragmentation), -ENETUNREACH (off-link, no gateway),
 * -EAGAIN (header slab full, or the address's ARP queue full: poll and retry).
 */
int zn_udp_send(struct zn_udp_ep *ep, const struct zn_addr4 *dst, const struct zn_net_seg *segs,
		uint32_t nseg, uint64_t cookie);
/* The same for one buffer given by VA, in a DMA region mapped to the device. */
int zn_udp_send_buf(struct zn_udp_ep *ep, const struct zn_addr4 *dst, const void *buf,
		    uint32_t len, uint64_t cookie);
/* Take up to n send completions, in the order the NIC finished them (a
 * frame that waited for ARP completes after later ones to resolved hosts). */
uint32_t zn_udp_tx_reap(struct zn_udp_ep *ep, struct zn_udp_tx_done *out, uint32_t n);

#pragma GCC visibility pop

#endif
