/* SPDX-License-Identifier: MIT */
/*
 * The ARP cache of a netif: a fixed table, no allocation.
 *
 * Entry life cycle:
 *
 *   FREE --resolve (a send needs it)--> INCOMPLETE --reply/request from it--> REACHABLE
 *   INCOMPLETE --ZN_ARP_RETRIES requests unanswered--> FREE (queued frames fail)
 *   REACHABLE --ZN_ARP_TTL_NS without being re-learnt--> expired: the next
 *               resolve makes it INCOMPLETE again (a fresh request), a tick frees it
 *   any --evicted (least recently used REACHABLE, table full)--> reused
 *
 * A frame sent to an INCOMPLETE address waits on its entry (at most
 * ZN_ARP_PENDING; the entry keeps opaque handles the netif gives it).
 * gen changes whenever an entry's meaning changes (new MAC, freed, reused),
 * so a header template that remembers (entry, gen) knows when to rebuild.
 */
#ifndef ZCNIC_CORE_NET_ARP_CACHE_H
#define ZCNIC_CORE_NET_ARP_CACHE_H

#include <stdint.h>

#include "core/net/netif.h"

#define ZN_ARP_ENTRIES	64
#define ZN_ARP_TTL_NS	(60ull * 1000000000ull)	/* Linux's base_reachable_time is 30 s,
						 * randomised to 15-45 s; one fixed value here */
#define ZN_ARP_RETRY_NS	(500ull * 1000000ull)	/* between requests for one address */
#define ZN_ARP_PINNED	UINT64_MAX	/* the deadline of an entry that never expires */

enum zn_arp_state {
	ZN_ARP_FREE = 0,
	ZN_ARP_INCOMPLETE,
	ZN_ARP_REACHABLE,
};

struct zn_arp_entry {
	uint32_t ip;			/* network order */
	uint8_t mac[ZN_ETH_ALEN];
	uint8_t state;			/* enum zn_arp_state */
	uint8_t tries;			/* requests sent while INCOMPLETE */
	uint32_t gen;
	uint16_t npend;
	uint32_t pend[ZN_ARP_PENDING];	/* frames waiting, in send order */
	uint64_t deadline;		/* REACHABLE: expiry; INCOMPLETE: next request */
	uint64_t used;			/* last resolve, for eviction */
};

struct zn_arp_cache {
	struct zn_arp_entry e[ZN_ARP_ENTRIES];
	uint32_t gen;
	uint64_t learned, expired, failed;
};

enum zn_arp_result {
	ZN_ARP_HIT = 0,		/* e->mac is good */
	ZN_ARP_NEW,		/* e was made INCOMPLETE: send a request now */
	ZN_ARP_WAIT,		/* a request is out; queue on e */
};

struct zn_arp_cb {
	void (*request)(void *ctx, uint32_t ip);		/* send a request for ip */
	/* Resolution failed: the frames queued on it are the caller's to drop;
	 * the entry is freed after the call. */
	void (*failed)(void *ctx, struct zn_arp_entry *e);
};

void zn_arp_init(struct zn_arp_cache *c);
/* HIT/NEW/WAIT with *e set, or -ENOSPC when no entry can be had (every
 * entry is INCOMPLETE). */
int zn_arp_resolve(struct zn_arp_cache *c, uint32_t ip, uint64_t now, struct zn_arp_entry **e);
/* Queue a frame handle on an INCOMPLETE entry; -EAGAIN if its queue is full. */
int zn_arp_queue(struct zn_arp_entry *e, uint32_t handle);
/*
 * ip is at mac (from an ARP packet addressed to us). Updates the entry for
 * ip, creating one if create; the entry (REACHABLE now, its pending frames
 * still queued: the caller sends them and clears npend), or NULL.
 */
struct zn_arp_entry *zn_arp_learn(struct zn_arp_cache *c, uint32_t ip, const uint8_t *mac,
				  uint64_t now, bool create);
/*
 * ip is at mac for good (Linux's `ip neigh add ... nud permanent`): a
 * REACHABLE entry that never expires; an ARP packet may still change its
 * MAC. For a netif whose ARP replies arrive on a queue it does not poll (a
 * queue netdev): its owner pins what the netif that sees them resolved.
 */
struct zn_arp_entry *zn_arp_pin(struct zn_arp_cache *c, uint32_t ip, const uint8_t *mac,
				uint64_t now);
/* The REACHABLE, unexpired entry for ip, or NULL. Does not count as use. */
struct zn_arp_entry *zn_arp_find(struct zn_arp_cache *c, uint32_t ip, uint64_t now);
/* Still the entry a template resolved at gen, and not expired. */
static inline bool zn_arp_valid(const struct zn_arp_entry *e, uint32_t gen, uint64_t now)
{
	return e->gen == gen && e->state == ZN_ARP_REACHABLE && now < e->deadline;
}
/* Retries, failures, expiry; the earliest deadline left (UINT64_MAX: none). */
uint64_t zn_arp_tick(struct zn_arp_cache *c, uint64_t now, const struct zn_arp_cb *cb, void *ctx);

#endif
