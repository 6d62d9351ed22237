/* SPDX-License-Identifier: MIT */
/*
 * Inside a netif: the TX header slab and its slots, the TX batch, the RX
 * queues' providers, the ARP cache, the flow table and the endpoints.
 *
 * TX slots: the slab holds nhdr header slots (ZN_NETIF_HDR_SLOT bytes: a
 * datagram's headers) and ZN_NETIF_CTRL_SLOTS control slots (a whole frame:
 * ARP, ICMP echo replies). A slot is in exactly one state:
 *
 *   FREE -> (send) ARP_WAIT -> BATCH -> NIC -> FREE (tx_reap)
 *                 \-------------------^
 *   ARP_WAIT -> FREE when ARP gives up (the endpoint gets -EHOSTUNREACH)
 *
 * The cookie given to the port is the slot index; tx_reap hands it back,
 * and the slot's own cookie (the sender's) goes to its endpoint's tx_done.
 */
#ifndef ZCNIC_CORE_NET_NETIF_PRIV_H
#define ZCNIC_CORE_NET_NETIF_PRIV_H

#include "core/debug/owner.h"
#include "core/net/arp_cache.h"
#include "core/net/flow.h"
#include "core/net/tcp.h"
#include "core/net/tx_tmpl.h"
#include "zcnic/mem.h"
#include "core/net/netif.h"

#define NET_LOG			"net"
/* bytes: a UDP datagram's 42 of headers, or TCP's 34 + up to 60, in
 * cache lines */
#define ZN_NETIF_HDR_SLOT	128
#define ZN_NETIF_CTRL_SLOTS	32
#define ZN_NETIF_DFLT_SLOTS	1024
#define ZN_NETIF_DFLT_BURST	32
#define ZN_NETIF_MAX_BURST	256
#define ZN_NETIF_MAX_EPS	256
#define ZN_NETIF_FLOW_SLOTS	1024	/* >= 4/3 x ZN_NETIF_MAX_EPS */
#define ZN_NETIF_DFLT_MTU	1500
#define ZN_NETIF_REAP_BURST	64
#define ZN_NETIF_DRAIN_NS	(100ull * 1000000ull)	/* destroy waits this long for the NIC */
#define ZN_UDP_DFLT_RING	256

enum slot_state { SLOT_FREE = 0, SLOT_ARP_WAIT, SLOT_BATCH, SLOT_NIC };

struct tx_slot {
	struct zn_tx_pkt pkt;		/* the frame; pkt.cookie = slot index */
	struct zn_udp_ep *ep;		/* NULL: the netif's own frame, or nobody to tell */
	uint64_t cookie;		/* the sender's, for its endpoint's tx_done;
					 * TCP: ref_first << 32 | ref_n */
	struct zn_tcp_conn *tcp;	/* a TCP segment's connection (its payload) */
	uint32_t next_free;
	uint8_t state;
	uint8_t *va;			/* the slot's memory */
};

struct zn_udp_ep {
	struct zn_netif *nif;
	uint32_t id;
	struct zn_addr4 local, remote;
	uint16_t rxq;
	bool has_rule;
	uint32_t rule_id;
	void (*notify)(void *arg, struct zn_udp_ep *ep, unsigned events);
	void (*tx_done)(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status);
	void *arg;
	unsigned events;		/* to notify at the end of this poll */
	bool notify_queued;
	/* receive list: ring of descriptors, the netif produces, recv consumes */
	struct zn_udp_rx *rx;
	uint32_t rx_mask, rx_head, rx_tail;
	/* the last destination's header */
	struct zn_udp_tmpl tmpl;
	bool tmpl_ok;			/* tmpl built (maybe unresolved) */
	bool tmpl_bcast;		/* no ARP: broadcast MAC */
	struct zn_arp_entry *tmpl_arp;
	uint32_t tmpl_gen;
};

struct zn_netif {
	struct zn_port *port;
	struct zn_netif_conf conf;
	uint8_t mac[ZN_ETH_ALEN];
	uint32_t mask;			/* network order */
	uint32_t mtu;
	uint64_t now;			/* at the start of the current poll */
	uint64_t arp_next;		/* earliest ARP deadline */
	uint16_t ip_id;
	uint32_t tx_offl;		/* ZN_TX_F_* used: the port's, unless no_tx_offload */
	uint32_t max_lso;		/* bytes per LSO frame */
	struct zn_owner owner;		/* the thread that polls and sends */
	/* RX */
	const struct zn_buf_provider *prov[ZN_PORT_MAX_QUEUES];
	/* what a queue's buffers can still take (a zcrx area), for TCP's window */
	uint32_t (*rx_room[ZN_PORT_MAX_QUEUES])(void *ctx);
	void *rx_room_ctx[ZN_PORT_MAX_QUEUES];
	struct zn_rxq *rxq[ZN_NETIF_MAX_RXQ];	/* bound once: conf.rxq[i]'s handle */
	struct zn_rx_pkt *pkts;
	/* TX */
	struct zn_dma_region *slab;
	struct tx_slot *slots;
	uint32_t nhdr, nslots, ctrl_size;
	uint32_t free_hdr, free_ctrl;	/* free list heads; UINT32_MAX: empty */
	uint32_t nfree_hdr;
	uint32_t *batch;		/* slot indices waiting for tx_burst, in order */
	uint32_t nbatch;
	/* zn_udp_send_buf's VA->IOVA cache: the last region it found (a region
	 * must stay mapped while frames are sent from it) */
	uintptr_t reg_va;
	size_t reg_len;
	uint64_t reg_iova;
	/* state */
	struct zn_arp_cache arp;
	struct zn_flow_table flows;
	struct zn_udp_ep *eps[ZN_NETIF_MAX_EPS];
	struct zn_udp_ep *notify[ZN_NETIF_MAX_EPS];
	uint32_t nnotify;
	struct zn_tcp *tcp;		/* the TCP engine (netif_tcp.c) */
	struct zn_netif_stats st;
};

/* netif_tx.c */
int zn_netif_tx_init(struct zn_netif *nif);
void zn_netif_tx_fini(struct zn_netif *nif);
uint32_t zn_netif_slot_get(struct zn_netif *nif, bool ctrl);
void zn_netif_slot_put(struct zn_netif *nif, uint32_t i);
void zn_netif_batch_push(struct zn_netif *nif, uint32_t i);
uint32_t zn_netif_reap(struct zn_netif *nif);
uint32_t zn_netif_in_flight(const struct zn_netif *nif);
void zn_netif_arp_request(void *ctx, uint32_t ip);
/* e was just made INCOMPLETE (ZN_ARP_NEW): the first request, and its timer. */
void zn_netif_arp_start(struct zn_netif *nif, struct zn_arp_entry *e);
void zn_netif_arp_failed(void *ctx, struct zn_arp_entry *e);
void zn_netif_arp_resolved(struct zn_netif *nif, struct zn_arp_entry *e);
/* Send a whole frame built by fill into a control slot. */
int zn_netif_send_ctrl(struct zn_netif *nif, const uint8_t *frame, uint32_t len);

/* netif_rx.c */
uint32_t zn_netif_rx(struct zn_netif *nif);
/* The descriptor of in's payload (payload_off/len) in the frame's buffers;
 * unused buffers go back. ZN_NET_RX_UDP on success. */
enum zn_net_rx_kind zn_netif_fill_segs(struct zn_netif *nif, const struct zn_buf_provider *prov,
				       const struct zn_frame *f, const struct zn_rx_pkt *pk,
				       const struct zn_net_rx_info *in, struct zn_udp_rx *d);

/* netif_tcp.c */
int zn_netif_tcp_init(struct zn_netif *nif);
void zn_netif_tcp_fini(struct zn_netif *nif);
/* A TCP frame's slot is done (sent or dropped): tell the engine. */
void zn_netif_tcp_tx_done(struct zn_netif *nif, const struct tx_slot *s);
/* *kept: the engine took the frame's buffers. */
enum zn_net_rx_kind zn_netif_tcp_rx(struct zn_netif *nif, uint16_t q,
				    const struct zn_buf_provider *prov, const struct zn_frame *f,
				    const struct zn_rx_pkt *pk, const struct zn_net_rx_info *in,
				    bool *kept);

/* udp.c */
void zn_udp_ep_event(struct zn_udp_ep *ep, unsigned ev);
void zn_udp_ep_done(struct zn_udp_ep *ep, uint64_t cookie, int32_t status);
bool zn_udp_ep_deliver(struct zn_udp_ep *ep, const struct zn_udp_rx *d);
void zn_udp_ep_free_all(struct zn_netif *nif);

static inline bool zn_netif_on_link(const struct zn_netif *nif, uint32_t ip)
{
	return ((ip ^ nif->conf.ip) & nif->mask) == 0;
}

#endif
