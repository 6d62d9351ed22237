/* SPDX-License-Identifier: MIT */
/*
 * core/net: a network device, the thing an application opens.
 *
 * A netdev is a port (core/port) brought up with every RX queue split
 * (header-data split, threshold 0) and a netif (core/net) over it: the
 * object that sockets are made on (include/zcnic/socket.h) and that
 * io_uring_register_ifq names by if_idx, as Linux names a netdev by its
 * ifindex. Set-up in one call replaces what a kernel program does with
 * ip link / ip addr before it opens sockets.
 *
 *   zn_netdev_open("vfio-user:/run/zn/a.sock", {ip 10.0.0.1/24, 2 RX queues})
 *      -> port: configure, rxq_setup (HDS, page-size payload buffers),
 *               txq_setup, start
 *      -> netif: ARP, ICMP, UDP endpoints, the TX header slab
 *      -> ifindex (1, 2, ...)
 *
 * RX queue providers: each RX queue starts on core/port's own pool; a zcrx
 * interface queue (core/zcrx) swaps in its area with
 * zn_port_rxq_set_provider() and back when it goes away.
 *
 * Memory the application sends from must be DMA-mapped to the device:
 * zn_netdev_dma_map() maps a region once (counted), for registered buffers
 * and zcrx areas.
 *
 * Threading: like a netif, a netdev belongs to one thread: the owner of the
 * ring(s) that poll it. Open/close from that thread.
 *
 * More than one queue, one thread each (conf.queues = N): the port gets N
 * more RX queues and N more TX queues, RSS spreads IPv4/IPv6 flows over
 * those RX queues (include/zcnic/rss.h: zcnic's key, a table naming them in
 * turn), and zn_netdev_queue_open() makes queue netdev i: a netdev of its
 * own (ifindex, netif, ARP cache, sockets, DMA maps) that polls RX queue
 * nb_rxq + i and sends on TX queue 1 + i and nothing else, for one thread
 * to own with nothing shared with the others on the data path.
 *
 *   parent (control thread): RX queues 0..nb_rxq-1 (ARP and whatever RSS
 *                            does not hash land on queue 0), TX queue 0
 *   queue netdev i (thread i): RX queue nb_rxq + i (its share of the
 *                            flows), TX queue 1 + i
 *
 * Sockets on a queue netdev install no flow rule (RSS brings their flows;
 * the same local port may be open on every queue netdev). A queue netdev
 * does not see ARP replies (queue 0 gets them): it sends to the addresses
 * its parent had resolved when it opened (zn_netdev_resolve first), pinned.
 * The parent's own thread keeps polling it (ARP requests from peers, ICMP).
 * Control calls on the parent and its queue netdevs (open, close, sockets,
 * zcrx registration, DMA maps) are serialised by the caller; the data path
 * of each queue netdev runs on its own thread.
 */
#ifndef ZCNIC_NETDEV_H
#define ZCNIC_NETDEV_H

#include <stdint.h>

#include "zcnic/mem.h"
#include "zcnic/net.h"
#include "zcnic/port.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

#define ZN_NETDEV_MAX		64	/* open netdevs per process (ifindex 1..64) */
#define ZN_NETDEV_DFLT_RING	1024	/* RX and TX descriptors */
#define ZN_NETDEV_DFLT_BUF	4096	/* payload buffer bytes: a page, like a zcrx niov */

struct zn_netdev;

struct zn_netdev_conf {
	uint32_t ip;		/* network order; required */
	uint8_t prefix_len;	/* 1..32; required */
	uint32_t gateway;	/* network order; 0: none */
	uint16_t nb_rxq;	/* RX queues (all polled by the netif); 0 = 1 */
	uint32_t mtu;		/* L3 MTU; 0 = 1500 */
	uint32_t rx_ring;	/* descriptors per RX queue; 0 = ZN_NETDEV_DFLT_RING */
	uint32_t tx_ring;	/* 0 = ZN_NETDEV_DFLT_RING */
	uint32_t buf_size;	/* payload buffer bytes of core/port's pool; 0 = 4096 */
	/* Use none of the port's TX offloads (checksums, LSO): to measure what
	 * they save. RX checksum flags are read either way. */
	bool no_offload;
	/*
	 * TCP receive aggregation (ZN_RX_OFFLOAD_TCP_AGG, when the port has
	 * it) is asked for unless this is set: one completion per aggregate.
	 * Losses under it do not cost timeouts (the SACK scoreboard and
	 * RACK-TLP recover from an aggregate's one ACK).
	 */
	bool no_rx_agg;
	/* Queue pairs for zn_netdev_queue_open, RSS over their RX queues; 0: none.
	 * nb_rxq + queues and 1 + queues at most ZN_PORT_MAX_QUEUES. */
	uint16_t queues;
	const struct zn_bus_open_opts *bus_opts;	/* NULL: defaults */
};

/*
 * Open and bring up. 0, or -EINVAL (bad conf, one line says what), -EMFILE
 * (ZN_NETDEV_MAX open), or the failing layer's error (also logged).
 */
int zn_netdev_open(const char *spec, const struct zn_netdev_conf *conf, struct zn_netdev **out);
/* Closes the sockets still open on it (their handles go stale), the netif
 * and the port. NULL is a no-op. */
void zn_netdev_close(struct zn_netdev *d);

/*
 * Queue netdev i < conf.queues of d (see above): 0, -EINVAL (no such queue,
 * d is itself a queue netdev), -EBUSY (open already), -EMFILE, -ENOMEM.
 * Closed with zn_netdev_close (before d; closing d closes those left, whose
 * threads must have stopped).
 */
int zn_netdev_queue_open(struct zn_netdev *d, uint16_t i, struct zn_netdev **out);
/* The first RX queue d polls: 0 for a netdev, its own for a queue netdev (the
 * io_uring_zcrx_ifq_reg.if_rxq to bind zcrx to). */
uint16_t zn_netdev_rxq(const struct zn_netdev *d);
/*
 * ARP-resolve ip's next hop on d, polling d (at most timeout_ms): 0,
 * -ETIMEDOUT, -ENETUNREACH. Queue netdevs opened afterwards send to it
 * without ARP of their own. Owner thread.
 */
int zn_netdev_resolve(struct zn_netdev *d, uint32_t ip, int timeout_ms);

/*
 * The owner thread lets go: no ring of it polls d any more (its sockets
 * there are closed or handed on), so another thread may take d over by
 * polling it. core/sock calls it when a thread's last poll hook on d goes.
 */
void zn_netdev_owner_release(struct zn_netdev *d);
/* The ifindex io_uring_zcrx_ifq_reg.if_idx names it by (>= 1). */
int zn_netdev_ifindex(const struct zn_netdev *d);
/* The open netdev with that ifindex, or NULL. */
struct zn_netdev *zn_netdev_by_ifindex(int ifindex);

struct zn_port *zn_netdev_port(const struct zn_netdev *d);
const struct zn_netdev_conf *zn_netdev_conf(const struct zn_netdev *d);
/* One pass of the netif (receive, answer, deliver, reap, send): work done. */
int zn_netdev_poll(struct zn_netdev *d);
/*
 * Before sleeping instead of polling (interrupt mode): arms every queue of
 * the netdev (zn_port_irq_arm), puts the eventfds their interrupts signal
 * in fds (at most max) and lowers *deadline (CLOCK_MONOTONIC ns) to when
 * the netdev must be polled anyway (ARP, TCP timers). Poll it once more
 * after this call and sleep only if that pass did nothing. The number of
 * fds, or a negative errno (-EOPNOTSUPP: no interrupts here, keep polling).
 */
int zn_netdev_irq_arm(struct zn_netdev *d, int *fds, unsigned max, uint64_t *deadline);

/*
 * DMA-map a region to the device, counted: the n-th map of the same region
 * only counts; unmap drops the count and unmaps at zero. 0, -ENOMEM, or the
 * bus's error; unmap of a region not mapped: -ENOENT.
 */
int zn_netdev_dma_map(struct zn_netdev *d, const struct zn_dma_region *r);
int zn_netdev_dma_unmap(struct zn_netdev *d, const struct zn_dma_region *r);
/* The IOVA of [va, va + len) if it lies in a region mapped to d: 0 or -EFAULT. */
int zn_netdev_iova(struct zn_netdev *d, const void *va, size_t len, uint64_t *iova);

#pragma GCC visibility pop

#endif
