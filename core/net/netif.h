/* SPDX-License-Identifier: MIT */
/*
 * core/net's stack, internal (not installed; the wire formats are in
 * include/zcnic/net.h): a network interface (a started port, our MAC, an
 * IPv4 address/prefix, the RX queues it polls, one TX queue, an ARP cache)
 * and UDP endpoints bound to local ip:port. Used by core/net's netdev, by
 * the socket layer (core/sock) and by tests.
 *
 *     zn_udp_open ----- n-tuple rule (local ip:port -> rx queue) ---> NIC
 *     zn_netif_poll:
 *       rx_burst on every queue --> parse --> ARP: answer / learn
 *                                         --> ICMP echo to us: reply
 *                                         --> UDP: flow table -> endpoint's
 *                                             receive list (descriptors)
 *                                         --> anything else: counted, dropped
 *       tx_reap --> slab slots free, each cookie to its endpoint's tx_done
 *       ARP timers (retries, expiry)
 *       one tx_burst with every frame queued since the last poll
 *
 * Zero-copy receive: a datagram's payload stays in the buffers of the RX
 * queue's payload provider; the descriptor names them {va, buf_id, off, len}.
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
 * comes back through the endpoint's tx_done callback: from then on the
 * caller may reuse its buffers. Each accepted send yields exactly one
 * completion, also when the frame was dropped (status < 0).
 *
 * One cookie, one path: the caller's cookie is kept in the netif's TX slot
 * (the only per-frame state below the caller), the driver carries the
 * slot's index, and the reap hands the caller's cookie straight to
 * tx_done; no layer keeps a list of completions or limits sends of its
 * own. How many sends a caller keeps in flight is the caller's limit
 * (sockets: ZN_SOCK_SEND_MAX, core/sock/net_ops.h); the header slab
 * (zn_netif_conf.tx_slots, shared by the netif's endpoints) is a resource
 * that says -EAGAIN when it runs out, as a full ARP queue does.
 *
 * UDP checksum on TX: filled in by the device when the port offers
 * ZN_TX_F_L4_CSUM (unless conf.no_tx_offload); otherwise computed in
 * software when the caller gives the VA of every segment (zn_udp_send_buf
 * always does), else sent as 0, which RFC 768 allows over IPv4 ("no
 * checksum"). TCP likewise, and a TCP run of several MSS goes out as one
 * LSO frame when the port offers ZN_TX_F_LSO. The IPv4 header checksum
 * stays in software (incremental from the template, as cheap as a flag).
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
 * For the socket layer (core/sock): RECV and RECV_ZC map to zn_udp_recv +
 * zn_udp_rx_release, SEND and SEND_ZC to zn_udp_send with the socket's send
 * slot index as the cookie, which comes back to the socket's tx_done; the
 * endpoint's notify callback says when its receive list became non-empty.
 */
#ifndef ZCNIC_CORE_NET_NETIF_H
#define ZCNIC_CORE_NET_NETIF_H

#include <stdbool.h>
#include <stdint.h>

#include "zcnic/net.h"
#include "zcnic/netdev.h"
#include "zcnic/port.h"

/* The netif under a netdev (core/net/netdev.c). */
struct zn_netif *zn_netdev_netif(const struct zn_netdev *d);
/* Whether d's netif polls port RX queue q (zcrx binds only to those). */
bool zn_netdev_polls_rxq(const struct zn_netdev *d, uint32_t q);
/* A queue netdev (zn_netdev_queue_open): its sockets install no flow rule. */
bool zn_netdev_is_queue(const struct zn_netdev *d);

/*
 * Called (owner thread) when the netdev is about to close, so that layers
 * holding state on it (sockets, zcrx interface queues) let go first. At most
 * ZN_NETDEV_MAX_CLOSERS per netdev. id >= 0 for zn_netdev_on_close_del.
 */
#define ZN_NETDEV_MAX_CLOSERS	64
int zn_netdev_on_close(struct zn_netdev *d, void (*fn)(void *arg, struct zn_netdev *d),
		       void *arg);
void zn_netdev_on_close_del(struct zn_netdev *d, int id);

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
	/* Send without the port's TX offloads (software checksums, one frame
	 * per TCP segment): what the offloads save is measured against this. */
	bool no_tx_offload;
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
	uint64_t tx_tcp;		/* TCP segments posted */
	uint64_t tx_arp_request, tx_arp_reply, tx_icmp_reply;
	uint64_t tx_refused;		/* tx_burst refusals, retried on the next poll */
	uint64_t tx_no_slot;		/* sends refused: header slab full (-EAGAIN) */
	uint64_t tx_unresolved;		/* frames dropped after ARP gave up */
	uint64_t tx_completed;		/* frames reaped from the NIC */
	uint64_t tx_lso;		/* of tx_tcp: LSO frames (several segments each) */
	uint64_t rx_agg;		/* TCP aggregates received (ZN_RX_F_AGG) */
	uint64_t rx_agg_segs;		/* frames they merged */
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
/* Its poller thread let go (zn_netdev_owner_release). */
void zn_netif_owner_reset(struct zn_netif *nif);
/* Receive, answer, deliver, reap, run timers, send: the work done (frames
 * received + completions reaped + frames posted), >= 0. */
int zn_netif_poll(struct zn_netif *nif);
/* When the netif must be polled again whatever arrives (ARP and TCP
 * timers), in its clock's ns; UINT64_MAX: no timer is pending. */
uint64_t zn_netif_next_timer(const struct zn_netif *nif);
/* The same as a ring's poll hook: arg is the netif. */
int zn_netif_poll_hook(void *arg);
/* Post the queued frames now; how many the NIC took. */
uint32_t zn_netif_flush(struct zn_netif *nif);
void zn_netif_stats(const struct zn_netif *nif, struct zn_netif_stats *st);
void zn_netif_mac(const struct zn_netif *nif, uint8_t mac[ZN_ETH_ALEN]);
struct zn_port *zn_netif_port(const struct zn_netif *nif);
/* The netif's TCP engine (core/net/tcp.h). */
struct zn_tcp *zn_netif_tcp(struct zn_netif *nif);
/*
 * RX queue q's buffers are an area the application hands back (zcrx):
 * room(ctx) says how many more buffers the queue can fill, and TCP keeps
 * its windows within that; room NULL: no bound. rx_room_grew: buffers came
 * back, windows may reopen. Owner thread.
 */
void zn_netif_rx_room_set(struct zn_netif *nif, uint16_t q, uint32_t (*room)(void *ctx),
			  void *ctx);
void zn_netif_rx_room_grew(struct zn_netif *nif);
/* The ARP cache's answer for ip: 0 and the MAC, or -ENOENT (not resolved). */
int zn_netif_arp_lookup(struct zn_netif *nif, uint32_t ip, uint8_t mac[ZN_ETH_ALEN]);
/*
 * Start resolving the next hop of ip (ip itself on the subnet, else the
 * gateway) as a send would: 0 resolved, -EINPROGRESS (a request is out; poll
 * and ask again), -ENETUNREACH (off-link, no gateway), -ENOSPC (cache full
 * of lookups in progress). Owner thread.
 */
int zn_netif_arp_probe(struct zn_netif *nif, uint32_t ip);
/*
 * Pin in dst every address src has resolved (zn_arp_pin): for a netif
 * whose ARP replies land on another netif's queue. The caller makes sure
 * neither is being polled meanwhile.
 */
void zn_netif_arp_pin_from(struct zn_netif *dst, struct zn_netif *src);

/* ---- UDP endpoints ------------------------------------------------------ */

enum {
	ZN_UDP_EV_RX = 1u << 0,		/* the receive list became non-empty */
};

struct zn_udp_conf {
	struct zn_addr4 local;		/* ip 0 = the netif's; port != 0 */
	struct zn_addr4 remote;		/* connected: only from there; 0 = any */
	uint16_t rxq;			/* the queue the n-tuple rule steers to */
	bool no_steer;			/* install no rule (RSS / default queue) */
	uint32_t rx_ring;		/* receive list entries, power of two; 0 = 256 */
	/* Called from zn_netif_poll, at most once per poll per endpoint. */
	void (*notify)(void *arg, struct zn_udp_ep *ep, unsigned events);
	/*
	 * A send's completion: the cookie it was queued with; status 0 sent,
	 * -EHOSTUNREACH ARP gave up. Exactly once per accepted send, from
	 * inside zn_netif_poll (its reap or its ARP timers), in the order the
	 * NIC finished (a frame that waited for ARP completes after later ones
	 * to resolved hosts); not after zn_udp_close or zn_udp_tx_forget. It
	 * takes its cookie back and must not send, close or poll. NULL: no one
	 * is told.
	 */
	void (*tx_done)(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status);
	void *arg;			/* of notify and tx_done */
};

/* A received datagram. */
struct zn_udp_rx {
	struct zn_addr4 src;
	uint16_t queue;			/* RX queue: its provider owns the buffers */
	uint16_t nseg;
	uint16_t frames;		/* TCP: frames an RX aggregate merged (0, 1: one) */
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

/*
 * Bind: local ip must be the netif's, port not in use (-EADDRINUSE), rxq
 * one of the netif's queues; installs the n-tuple rule (its error is
 * returned, with one line saying which rule failed).
 */
int zn_udp_open(struct zn_netif *nif, const struct zn_udp_conf *conf, struct zn_udp_ep **out);
/* Removes the rule, gives back the buffers of undelivered datagrams;
 * frames in flight complete without telling anyone. */
void zn_udp_close(struct zn_udp_ep *ep);
/* Frames queued or in flight now complete without a tx_done (their sender
 * gave up waiting for them). */
void zn_udp_tx_forget(struct zn_udp_ep *ep);
uint32_t zn_udp_id(const struct zn_udp_ep *ep);
struct zn_udp_ep *zn_udp_by_id(struct zn_netif *nif, uint32_t id);

/* Take up to n datagrams off the receive list; their buffers are now the
 * caller's. Only seg[0..nseg) of each descriptor is written. */
uint32_t zn_udp_recv(struct zn_udp_ep *ep, struct zn_udp_rx *out, uint32_t n);
/* Payload bytes of segment i (its va + off: no provider call); NULL if
 * there is no such segment or the provider gave no address. */
const uint8_t *zn_udp_rx_data(struct zn_udp_ep *ep, const struct zn_udp_rx *d, uint32_t i);

/* Segment i's bytes (UDP's and TCP's descriptors alike), NULL if it has none. */
static inline const uint8_t *zn_rx_seg_data(const struct zn_udp_rx *d, uint32_t i)
{
	if (i >= d->nseg || i >= ZN_RX_MAX_SEGS || !d->seg[i].va)
		return NULL;
	return d->seg[i].va + d->seg[i].off;
}
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
#endif
