/* SPDX-License-Identifier: MIT */
/*
 * core/port: ethdev-like ports and queues, the one interface between the
 * upper layers (core/net, core/zcrx) and the NIC drivers.
 *
 * A port is opened by device string (a PCI address or "vfio-user:PATH"); the
 * driver is chosen by the PCI vendor/device ID read from config space. The
 * driver sits behind struct zn_port_ops; nothing above this header knows a
 * register of any NIC.
 *
 * Receive with header-data split:
 *
 *     NIC --header--> header buffer (driver memory, valid until the next
 *                     rx_burst on that queue)
 *         --payload-> payload buffers taken from the queue's buffer
 *                     provider (a core/mem pool by default, the zcrx area
 *                     when an interface queue is bound)
 *
 * Payload buffer ownership: a buffer is the provider's while free, the
 * driver's while posted to the NIC, and the caller's once rx_burst returns
 * it in a segment; the caller gives it back to the provider (not to the
 * driver), and the driver takes fresh buffers from the provider when it
 * refills. So the zcrx layer can hold buffers for as long as the app does.
 * Buffers the driver took but never hands out (a frame it drops, the
 * buffers still posted when the queue stops) go back through put().
 * A queue set up without a provider gets one from core/port (a pool in
 * DMA memory). Payloads are read with zn_port_rx_payload() and buffers
 * given back with zn_port_rx_buf_put() (or the va/put of
 * zn_port_rx_provider(), the same thing), whatever provider the queue has.
 * Each rx segment also carries its buffer's address (the zn_buf.va the
 * provider gave), so the data path reads payloads without asking the
 * provider again.
 *
 * Swapping providers (zn_port_rxq_set_provider): a started queue can take
 * its buffers from another provider (the zcrx area) and go back later. The
 * driver always sees one provider per queue, core/port's mux: alloc takes
 * from the current provider; put and va route each id to the provider it
 * came from. Ids of a provider swapped in carry its slot in bits
 * ZN_BUF_ID_BITS..31 of rx segments' buf_id (the provider's own id is
 * buf_id & ZN_BUF_ID_MASK); give such buffers back through core/port, never
 * to the provider directly, so that core/port knows when the last one came
 * back. On a started port whose driver has rxq_restart, the swap restarts
 * the queue (as Linux restarts a queue when a memory provider is bound):
 * the buffers posted before it come back at once and every frame after it
 * lands in the new provider's buffers; frames the device had completed but
 * nobody received are dropped. Without rxq_restart (or on a stopped port)
 * the buffers posted before a swap are still received into (the swap takes
 * effect as the driver refills). A provider swapped out is
 * "detached": its detached() callback runs once the last of its buffers is
 * back (from within whichever call put it back, or set_provider itself when
 * none was out), or at zn_port_close / the queue's next rxq_setup / a
 * configure that drops the queue, even if the caller still holds some (the
 * device no longer uses any of them then). Ids of the queue's own provider
 * (the pool, or the provider given to rxq_setup) stay untagged, so a queue
 * that is never swapped behaves as if there were no mux.
 *
 * Transmit: a frame is up to ZN_TX_MAX_SEGS segments by IOVA (typically a
 * header from a header slab + the application's buffer); a cookie per frame
 * comes back from tx_reap once the NIC no longer needs the memory, in the
 * order the frames were sent. Ring space is reclaimed only by tx_reap: a
 * caller that never reaps finds tx_burst refusing frames (ring full).
 *
 * Threading: a queue is used by one thread (its owner); the port-level calls
 * (configure, flow rules, RSS, stats, close) are made from one control
 * thread while no data-path call runs on the same queue.
 */
#ifndef ZCNIC_PORT_H
#define ZCNIC_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcnic/bus.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

#define ZN_RX_MAX_SEGS 8	/* payload segments per frame (bnxt: 1 RX + 7 AGG) */
#define ZN_TX_MAX_SEGS 4
#define ZN_RSS_KEY_LEN 40
#define ZN_RSS_MAX_TABLE 512
#define ZN_ETH_ALEN 6
#define ZN_PORT_MAX_QUEUES 64	/* per direction */

struct zn_port;
struct zn_port_core;

/* A payload buffer as the provider hands it to the driver. */
struct zn_buf {
	uint64_t iova;
	void *va;		/* its address in this process, returned in rx segments */
	uint32_t id;		/* the provider's handle, returned in rx segments */
};

/* Provider ids must fit below the slot tag core/port adds (see above). */
#define ZN_BUF_ID_BITS	28
#define ZN_BUF_ID_MASK	((1u << ZN_BUF_ID_BITS) - 1)

/*
 * Payload buffer provider. alloc fills up to n buffers of buf_size bytes
 * and returns how many it gave (0 when dry: the driver leaves slots empty
 * and the NIC drops what it cannot place, counted in drops); ids must be
 * < 2^ZN_BUF_ID_BITS. put takes back buffers the driver got from alloc but
 * will not hand to the caller, and those the caller gives back (see the
 * ownership paragraph above). Both are called only on the queue owner's
 * thread (and by the control thread while the queue stops), never
 * allocating. The buffers' memory must be DMA-mapped to the port's device.
 * The struct must stay valid and unchanged while the queue may call it: until
 * zn_port_close (or the queue's next rxq_setup) for a queue's own provider,
 * until detached() for one given to zn_port_rxq_set_provider.
 */
struct zn_buf_provider {
	uint32_t buf_size;
	uint32_t (*alloc)(void *ctx, struct zn_buf *bufs, uint32_t n);
	void (*put)(void *ctx, const uint32_t *ids, uint32_t n);
	void *ctx;
	/* Optional: the VA of a buffer by id (NULL for an id not its own), for
	 * layers that read payloads (core/net: checksums, ICMP, copies). */
	uint8_t *(*va)(void *ctx, uint32_t id);
	/* Optional, for providers given to zn_port_rxq_set_provider: called once
	 * after the provider was swapped out (or the queue went away) and none
	 * of its buffers is held by the driver or, unless the port closed, the
	 * caller any more. It must not call back into this queue. */
	void (*detached)(void *ctx);
};

struct zn_port_conf {
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint32_t mtu;		/* L3 MTU; 0 = 1500 */
	bool promisc;
};

struct zn_rxq_conf {
	uint32_t ring_size;	/* descriptors; power of two; 0 = driver default */
	/*
	 * Header-data split: frames longer than hds_thresh bytes are split at
	 * the end of the L4 header (headers to the header buffer, payload to
	 * provider buffers); shorter ones land whole in the header buffer.
	 * 0 splits every frame that has payload.
	 */
	uint32_t hds_thresh;
	uint32_t hdr_buf_size;	/* bytes per header buffer; 0 = 256; >= hds_thresh */
	/*
	 * NULL: core/port carves payload buffers from a pool of its own
	 * (4 x ring_size buffers of payload_buf_size bytes, 0 = 2048). A
	 * provider must outlive the queue (until zn_port_close, or the next
	 * rxq_setup of the queue, returns).
	 */
	const struct zn_buf_provider *payload;
	uint32_t payload_buf_size;
	int numa_node;		/* -1 = the device's */
	uint32_t offloads;	/* ZN_RX_OFFLOAD_*; a bit the device lacks is -EOPNOTSUPP */
	uint32_t agg_max;	/* ZN_RX_OFFLOAD_TCP_AGG: frames per aggregate, 0 = device max */
};

struct zn_txq_conf {
	uint32_t ring_size;	/* descriptors; power of two; 0 = driver default */
	int numa_node;
};

/* One received frame. */
struct zn_rx_pkt {
	const uint8_t *hdr;	/* header bytes (driver memory), or whole frame */
	uint16_t hdr_len;
	uint16_t queue;
	uint32_t rss_hash;
	uint32_t flags;		/* ZN_RX_F_* */
	uint32_t pkt_len;	/* hdr_len + every segment's len */
	uint32_t nseg;
	uint16_t agg_segs;	/* ZN_RX_F_AGG: frames merged (unset without it) */
	uint16_t gso_size;	/* ZN_RX_F_AGG: payload bytes per merged frame (unset without it) */
	/*
	 * va is the zn_buf.va the provider gave with the buffer, kept by the
	 * driver since it posted the buffer: the payload is at va + off, with
	 * no lookup by id (zn_port_rx_payload gives the same address). buf_id
	 * is what goes back to the provider (zn_port_rx_buf_put).
	 */
	struct {
		uint8_t *va;		/* start of the buffer (zn_buf.va) */
		uint32_t buf_id;	/* zn_buf.id, slot-tagged for a swapped-in provider */
		uint32_t off;		/* offset of the data in that buffer */
		uint32_t len;
	} seg[ZN_RX_MAX_SEGS];
};

enum {
	ZN_RX_F_RSS_HASH = 1u << 0,	/* rss_hash is valid */
	ZN_RX_F_L3_CSUM_OK = 1u << 1,
	ZN_RX_F_L4_CSUM_OK = 1u << 2,
	ZN_RX_F_L3_CSUM_BAD = 1u << 3,
	ZN_RX_F_L4_CSUM_BAD = 1u << 4,
	ZN_RX_F_SPLIT = 1u << 5,	/* header-data split happened */
	/*
	 * An RX aggregate (bnxt TPA, mlx5 SHAMPO/HW-GRO) of agg_segs TCP
	 * frames of one flow, in sequence, each carrying gso_size payload
	 * bytes but the last. hdr is the first frame's headers with the
	 * fields a GRO merge changes rewritten by the driver, as Linux's GRO
	 * leaves them: IP total length (IPv6 payload length) covers the
	 * whole aggregate and the IPv4 header checksum is recomputed. The
	 * TCP header is the first frame's: GRO's rule (Linux
	 * tcp_gro_receive) merges only frames whose ack, window and options
	 * are equal, PSH only on the last and no FIN, so it stands for every
	 * merged frame (a PSH on the last may be missing). The TCP checksum
	 * is not recomputed: ZN_RX_F_L4_CSUM_OK says every merged frame's
	 * was good.
	 */
	ZN_RX_F_AGG = 1u << 6,
};

/* zn_rxq_conf.offloads and zn_port_info.rx_offloads */
enum {
	ZN_RX_OFFLOAD_CSUM = 1u << 0,	/* ZN_RX_F_{L3,L4}_CSUM_{OK,BAD} set */
	ZN_RX_OFFLOAD_TCP_AGG = 1u << 1,	/* ZN_RX_F_AGG frames (needs hds) */
};

/* zn_tx_pkt.flags and zn_port_info.tx_offloads */
enum {
	ZN_TX_F_IP_CSUM = 1u << 0,	/* fill the IPv4 header checksum */
	ZN_TX_F_L4_CSUM = 1u << 1,	/* fill the TCP/UDP checksum (pseudo-header included) */
	/*
	 * TCP segmentation: the frame (one set of headers, then up to max_lso
	 * bytes) goes out as frames of mss payload bytes, each with its IP
	 * length, IPv4 id (+1 per frame), TCP sequence and checksums fixed,
	 * FIN and PSH only on the last, CWR only on the first (as Linux's
	 * TSO contract has it). Implies both checksum flags.
	 */
	ZN_TX_F_LSO = 1u << 2,
};

/* One frame to send. */
struct zn_tx_pkt {
	uint16_t nseg;
	uint16_t flags;		/* ZN_TX_F_*; a bit the device lacks refuses the frame */
	/* With a ZN_TX_F_* flag: header lengths in the first segment. */
	uint8_t l2_len, l3_len, l4_len;
	uint16_t mss;		/* ZN_TX_F_LSO: TCP payload bytes per frame */
	struct {
		uint64_t iova;
		uint32_t len;
	} seg[ZN_TX_MAX_SEGS];
	uint64_t cookie;	/* returned by tx_reap */
};

/* 5-tuple match; a zero field (or mask) is a wildcard. Network byte order. */
struct zn_flow_match {
	uint8_t ip_version;	/* 4 or 6 */
	uint8_t ip_proto;	/* IPPROTO_UDP / IPPROTO_TCP */
	uint8_t src_ip[16];
	uint8_t dst_ip[16];
	uint16_t src_port;
	uint16_t dst_port;
};

enum {
	ZN_RSS_IPV4 = 1u << 0,
	ZN_RSS_IPV4_TCP = 1u << 1,
	ZN_RSS_IPV4_UDP = 1u << 2,
	ZN_RSS_IPV6 = 1u << 3,
	ZN_RSS_IPV6_TCP = 1u << 4,
	ZN_RSS_IPV6_UDP = 1u << 5,
};

struct zn_rss_conf {
	uint8_t key[ZN_RSS_KEY_LEN];
	uint32_t hash_types;		/* ZN_RSS_* */
	/*
	 * Entries used in table[]: a divisor of zn_port_info.rss_table_size;
	 * the driver repeats the table to fill the device's.
	 */
	uint32_t table_size;
	uint16_t table[ZN_RSS_MAX_TABLE];	/* RX queue per entry */
};

struct zn_link {
	bool up;
	uint32_t speed_mbps;
	bool full_duplex;
};

struct zn_queue_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;	/* error completions */
	uint64_t drops;		/* rx: no buffer / tx: ring full refusals */
	uint64_t bad_cmpl;	/* completions rejected by validation */
};

struct zn_port_info {
	char driver[16];
	uint16_t vendor, device;
	uint8_t mac[ZN_ETH_ALEN];
	uint16_t max_rxq, max_txq;
	uint32_t max_mtu;
	uint32_t rx_ring_max, tx_ring_max;
	uint32_t rss_table_size;
	bool hds;		/* header-data split supported */
	uint32_t tx_offloads;	/* ZN_TX_F_* the device does */
	uint32_t rx_offloads;	/* ZN_RX_OFFLOAD_* the device does */
	uint32_t max_lso;	/* bytes per ZN_TX_F_LSO frame, headers included; 0 = none */
	uint32_t max_agg_segs;	/* frames one RX aggregate may merge; 0 = no aggregation */
};

/* The driver side. */
struct zn_port_ops {
	const char *name;
	void (*info)(struct zn_port *p, struct zn_port_info *info);
	int (*configure)(struct zn_port *p, const struct zn_port_conf *conf);
	/* Drops the queue's previous setup (if any) first, even when it fails. */
	int (*rxq_setup)(struct zn_port *p, uint16_t q, const struct zn_rxq_conf *conf);
	int (*txq_setup)(struct zn_port *p, uint16_t q, const struct zn_txq_conf *conf);
	int (*start)(struct zn_port *p);
	void (*stop)(struct zn_port *p);
	uint32_t (*rx_burst)(struct zn_port *p, uint16_t q, struct zn_rx_pkt *pkts, uint32_t n);
	/*
	 * Bound RX queues (zn_port_rxq): core/port calls rxq_get at start for
	 * each RX queue (the driver's queue object, valid until the port
	 * stops) and from then on calls rxq_burst with it, which checks
	 * nothing of the port's state (only what the device writes).
	 */
	void *(*rxq_get)(struct zn_port *p, uint16_t q);
	uint32_t (*rxq_burst)(void *rxq, struct zn_rx_pkt *pkts, uint32_t n);
	uint32_t (*tx_burst)(struct zn_port *p, uint16_t q, const struct zn_tx_pkt *pkts, uint32_t n);
	uint32_t (*tx_reap)(struct zn_port *p, uint16_t q, uint64_t *cookies, uint32_t n);
	int (*flow_add)(struct zn_port *p, const struct zn_flow_match *m, uint16_t q,
			uint32_t *rule_id);
	int (*flow_del)(struct zn_port *p, uint32_t rule_id);
	int (*rss_set)(struct zn_port *p, const struct zn_rss_conf *rss);
	int (*link)(struct zn_port *p, struct zn_link *link);
	int (*rxq_stats)(struct zn_port *p, uint16_t q, struct zn_queue_stats *st);
	int (*txq_stats)(struct zn_port *p, uint16_t q, struct zn_queue_stats *st);
	/*
	 * Optional: restart RX queue q of a started port in place: stop it in
	 * the device, give every buffer posted to it back through put(), and
	 * post the ring again from the queue's provider (which now allocates
	 * from the provider swapped in). Frames the device completed but the
	 * caller did not receive yet are dropped; other queues, flow rules and
	 * RSS keep working. 0 (nothing to do on a stopped port) or a negative
	 * errno (the queue may then receive nothing until the port restarts).
	 */
	int (*rxq_restart)(struct zn_port *p, uint16_t q);
	void (*close)(struct zn_port *p);
	/*
	 * Interrupts (optional: NULL in a driver that only polls). On a
	 * started port, irq_vectors says how many MSI-X vectors it uses
	 * (core/port gives each an eventfd, VFIO_DEVICE_SET_IRQS), irq_vector
	 * which one queue q's completions raise (tx: TX queue q, else RX queue
	 * q), or -EOPNOTSUPP for a queue (or port) without one. irq_arm arms
	 * that vector once: the next completion of the queue, or one the
	 * device wrote that the queue has not consumed yet, raises it; it also
	 * consumes what the device wrote to announce the last interrupt (NQ,
	 * EQ entries). Queues with the same index share a vector (as Linux's
	 * combined channels): arm them from one thread.
	 */
	int (*irq_vectors)(struct zn_port *p);
	int (*irq_vector)(struct zn_port *p, bool tx, uint16_t q);
	int (*irq_arm)(struct zn_port *p, bool tx, uint16_t q);
	/* Optional: forget which thread owns each queue (zn_port_owner_reset). */
	void (*owner_reset)(struct zn_port *p);
};

/*
 * A driver: claims devices by PCI ID. probe() gets a zeroed port whose bus
 * is open (and the vendor/device it matched); it sets ops and priv, or
 * returns a negative errno having undone everything it did.
 */
struct zn_port_driver {
	const char *name;
	bool (*match)(uint16_t vendor, uint16_t device);
	int (*probe)(struct zn_port *p, uint16_t vendor, uint16_t device);
};

struct zn_port {
	const struct zn_port_ops *ops;
	struct zn_bus_dev *bus;
	void *priv;		/* the driver's */
	struct zn_port_core *core;	/* core/port's (queue states, default pools) */
};

int zn_port_open(const char *spec, const struct zn_bus_open_opts *opts,
		 struct zn_port **out);
void zn_port_close(struct zn_port *p);
/* The thread that polled the queues let go of them (they are quiet: no
 * burst in progress); the next thread to poll them owns them. Only the
 * debug owner checks see it. */
void zn_port_owner_reset(struct zn_port *p);
void zn_port_info(struct zn_port *p, struct zn_port_info *info);
int zn_port_configure(struct zn_port *p, const struct zn_port_conf *conf);
int zn_port_rxq_setup(struct zn_port *p, uint16_t q, const struct zn_rxq_conf *conf);
int zn_port_txq_setup(struct zn_port *p, uint16_t q, const struct zn_txq_conf *conf);
int zn_port_start(struct zn_port *p);
void zn_port_stop(struct zn_port *p);
int zn_port_flow_add(struct zn_port *p, const struct zn_flow_match *m, uint16_t q,
		     uint32_t *rule_id);
int zn_port_flow_del(struct zn_port *p, uint32_t rule_id);
int zn_port_rss_set(struct zn_port *p, const struct zn_rss_conf *rss);
int zn_port_link(struct zn_port *p, struct zn_link *link);
int zn_port_rxq_stats(struct zn_port *p, uint16_t q, struct zn_queue_stats *st);
int zn_port_txq_stats(struct zn_port *p, uint16_t q, struct zn_queue_stats *st);

/*
 * Interrupt mode (core/port/port_irq.c), for a thread that would rather
 * sleep than poll an idle queue. zn_port_irq_arm arms every queue of the
 * started port (both directions) and puts the eventfds their interrupts
 * signal into fds (at most max, each once): the caller polls those for
 * POLLIN, and after a wake-up reads them (non-blocking) and polls the
 * queues. An interrupt is one-shot: arm again before the next sleep. The
 * first call sets up the port's MSI-X vectors with eventfds; they go away
 * when the port stops. Returns how many fds, or -EOPNOTSUPP (the driver or
 * the transport has no interrupts for some queue: keep polling), -ENODEV
 * (not started), -ENOSPC (max too small), or the bus's error.
 */
int zn_port_irq_arm(struct zn_port *p, int *fds, unsigned max);

/*
 * Payload of an rx segment (NULL for an id no provider of the queue knows,
 * or whose provider has no va), and its return to the provider it came
 * from. Both work on every set-up queue, across provider swaps.
 */
const uint8_t *zn_port_rx_payload(struct zn_port *p, uint16_t q, uint32_t buf_id);
void zn_port_rx_buf_put(struct zn_port *p, uint16_t q, const uint32_t *ids, uint32_t n);
/*
 * The provider of a set-up RX queue, NULL if the queue is not set up:
 * core/port's mux, one per queue setup, stable across provider swaps; its va
 * and put route every id the queue handed out, its buf_size is the queue's.
 */
const struct zn_buf_provider *zn_port_rx_provider(struct zn_port *p, uint16_t q);
/*
 * Take queue q's payload buffers from prov from now on (NULL: back to the
 * queue's own provider, core/port's pool or the one given to rxq_setup),
 * on a started port or a set-up stopped one. See "Swapping providers"
 * above. Called on the queue owner's thread (the control thread while the
 * port is stopped). Swapping to the current provider does nothing; swapping
 * back to a detached provider whose buffers are still out revives it.
 * Returns 0; -EINVAL: q not set up, prov without alloc or put, or
 * prov->buf_size not the queue's payload buffer size (one log line);
 * -EBUSY: too many providers (15) still have buffers out.
 */
int zn_port_rxq_set_provider(struct zn_port *p, uint16_t q, const struct zn_buf_provider *prov);

/*
 * A bound RX queue: the handle the data path receives with, taken once
 * with zn_port_rxq() after zn_port_configure (before or after start).
 * zn_rxq_burst is one indirect call straight into the driver's burst,
 * with no check of the queue index or of the port's state per burst:
 * core/port binds the handle to the driver's queue when the port starts
 * and points it at a burst that receives nothing when the port stops, so
 * the handle stays usable (receiving nothing while stopped) until
 * zn_port_close. The driver still validates everything the device writes.
 */
struct zn_rxq {
	uint32_t (*burst)(void *rxq, struct zn_rx_pkt *pkts, uint32_t n);
	void *drv;		/* the driver's queue object (NULL while stopped) */
	uint16_t qid;
};

/* The handle of RX queue q (stable until zn_port_close), or NULL if the
 * port is not configured with that queue. */
struct zn_rxq *zn_port_rxq(struct zn_port *p, uint16_t q);

static inline uint32_t zn_rxq_burst(struct zn_rxq *rq, struct zn_rx_pkt *pkts, uint32_t n)
{
	return rq->burst(rq->drv, pkts, n);
}

/*
 * Data path by port and queue index: inline, one indirect call per burst,
 * the index and state checked in the driver on every call (for callers
 * that hold no handle: tests, tools). rx_burst with n = 0 receives
 * nothing and hands the previous burst's header buffers back to the NIC
 * (a poller that stops for a while should make that call; the same holds
 * for zn_rxq_burst).
 */
static inline uint32_t zn_port_rx_burst(struct zn_port *p, uint16_t q,
					struct zn_rx_pkt *pkts, uint32_t n)
{
	return p->ops->rx_burst(p, q, pkts, n);
}

static inline uint32_t zn_port_tx_burst(struct zn_port *p, uint16_t q,
					const struct zn_tx_pkt *pkts, uint32_t n)
{
	return p->ops->tx_burst(p, q, pkts, n);
}

static inline uint32_t zn_port_tx_reap(struct zn_port *p, uint16_t q,
				       uint64_t *cookies, uint32_t n)
{
	return p->ops->tx_reap(p, q, cookies, n);
}

#pragma GCC visibility pop

#endif
