/* SPDX-License-Identifier: MIT */
/*
 * RSS as zcnic programs it: the Toeplitz hash, the indirection table that
 * spreads flows over a run of RX queues, and the queue a flow lands on.
 *
 * The hash is Microsoft's ("RSS hashing functions", the definition Linux's
 * and DPDK's drivers and both device models follow): the input is source
 * address, destination address, then source and destination port, all in
 * network byte order; every set input bit, most significant first, XORs in
 * the key's 32-bit window at that bit. The device picks table entry
 * hash % entries (both bnxt and mlx5 tables are powers of two, and the
 * drivers repeat a shorter table to fill theirs, so entry hash % table_size
 * of the table given is the one that counts).
 *
 * A sender that knows the receiver spreads its flows this way (zcnic's
 * netdev with queue pairs does) can pick source ports so that its flows land
 * on distinct receive queues: zn_rss_pick_sport.
 */
#ifndef ZCNIC_RSS_H
#define ZCNIC_RSS_H

#include <stddef.h>
#include <stdint.h>

#include "zcnic/port.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

/* Entries of the table zn_rss_spread builds (fewer if the device has fewer). */
#define ZN_RSS_SPREAD_ENTRIES	64

/* The key zcnic programs: Microsoft's verification key, Linux's and DPDK's
 * long-time default too. */
const uint8_t *zn_rss_default_key(void);

uint32_t zn_rss_toeplitz(const uint8_t key[ZN_RSS_KEY_LEN], const uint8_t *in, size_t len);
/* The IPv4 4-tuple hash (UDP, TCP); addresses and ports in network order. */
uint32_t zn_rss_hash_v4(const uint8_t key[ZN_RSS_KEY_LEN], uint32_t src, uint32_t dst,
			uint16_t sport, uint16_t dport);
/*
 * The default key, IPv4/IPv6 with TCP and UDP ports hashed, and a table of
 * min(ZN_RSS_SPREAD_ENTRIES, dev_entries) entries (dev_entries: the port's
 * rss_table_size; 0: ZN_RSS_SPREAD_ENTRIES) naming queues first..first+n-1
 * in turn. -EINVAL for n == 0, a table size that does not divide
 * dev_entries, or queues past ZN_PORT_MAX_QUEUES.
 */
int zn_rss_spread(struct zn_rss_conf *rss, uint32_t dev_entries, uint16_t first, uint16_t n);
/* The RX queue a hash picks under rss. */
uint16_t zn_rss_queue(const struct zn_rss_conf *rss, uint32_t hash);
/*
 * A source port, from base upwards (at most 4096 tried), whose IPv4 UDP/TCP
 * flow src:sport -> dst:dport lands on the want-th of n queues spread by
 * zn_rss_spread(first 0, dev_entries 0); ports in host order. The port, or
 * -ENOENT.
 */
int zn_rss_pick_sport(uint32_t src, uint32_t dst, uint16_t dport, uint16_t base, uint16_t n,
		      uint16_t want);

#pragma GCC visibility pop

#endif
