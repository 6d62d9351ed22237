/* SPDX-License-Identifier: MIT */
/* The ARP cache (see arp_cache.h); RFC 826 for what is learnt when. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core/net/arp_cache.h"

void zn_arp_init(struct zn_arp_cache *c)
{
	memset(c, 0, sizeof(*c));
}

static void entry_reset(struct zn_arp_cache *c, struct zn_arp_entry *e, enum zn_arp_state st)
{
	e->state = (uint8_t)st;
	e->tries = 0;
	e->npend = 0;
	e->gen = ++c->gen;
}

static struct zn_arp_entry *lookup(struct zn_arp_cache *c, uint32_t ip)
{
	for (unsigned i = 0; i < ZN_ARP_ENTRIES; i++)
		if (c->e[i].state != ZN_ARP_FREE && c->e[i].ip == ip)
			return &c->e[i];
	return NULL;
}

/* A free entry, else the least recently used REACHABLE one. */
static struct zn_arp_entry *victim(struct zn_arp_cache *c)
{
	struct zn_arp_entry *best = NULL;

	for (unsigned i = 0; i < ZN_ARP_ENTRIES; i++) {
		struct zn_arp_entry *e = &c->e[i];

		if (e->state == ZN_ARP_FREE)
			return e;
		if (e->state == ZN_ARP_REACHABLE && (!best || e->used < best->used))
			best = e;
	}
	return best;
}

int zn_arp_resolve(struct zn_arp_cache *c, uint32_t ip, uint64_t now, struct zn_arp_entry **out)
{
	struct zn_arp_entry *e = lookup(c, ip);

	if (e && e->state == ZN_ARP_REACHABLE && now >= e->deadline) {
		c->expired++;
		e->state = ZN_ARP_FREE;	/* re-resolved below, in place */
	}
	if (e && e->state == ZN_ARP_REACHABLE) {
		e->used = now;
		*out = e;
		return ZN_ARP_HIT;
	}
	if (e && e->state == ZN_ARP_INCOMPLETE) {
		*out = e;
		return ZN_ARP_WAIT;
	}
	if (!e)
		e = victim(c);
	if (!e)
		return -ENOSPC;
	entry_reset(c, e, ZN_ARP_INCOMPLETE);
	e->ip = ip;
	memset(e->mac, 0, sizeof(e->mac));
	e->tries = 1;		/* the caller sends the first request now */
	e->deadline = now + ZN_ARP_RETRY_NS;
	e->used = now;
	*out = e;
	return ZN_ARP_NEW;
}

int zn_arp_queue(struct zn_arp_entry *e, uint32_t handle)
{
	if (e->state != ZN_ARP_INCOMPLETE || e->npend == ZN_ARP_PENDING)
		return -EAGAIN;
	e->pend[e->npend++] = handle;
	return 0;
}

struct zn_arp_entry *zn_arp_learn(struct zn_arp_cache *c, uint32_t ip, const uint8_t *mac,
				  uint64_t now, bool create)
{
	struct zn_arp_entry *e = lookup(c, ip);
	/* a pinned entry stays pinned when ARP tells us its MAC again */
	bool pinned = e && e->state == ZN_ARP_REACHABLE && e->deadline == ZN_ARP_PINNED;

	if (!e) {
		if (!create)
			return NULL;
		e = victim(c);
		if (!e)
			return NULL;
		entry_reset(c, e, ZN_ARP_REACHABLE);
		e->ip = ip;
		e->used = now;
	} else if (e->state != ZN_ARP_REACHABLE || memcmp(e->mac, mac, ZN_ETH_ALEN)) {
		/* keep the pending frames: the caller sends them now */
		uint16_t npend = e->npend;

		e->gen = ++c->gen;
		e->state = ZN_ARP_REACHABLE;
		e->tries = 0;
		e->npend = npend;
	}
	memcpy(e->mac, mac, ZN_ETH_ALEN);
	e->deadline = pinned ? ZN_ARP_PINNED : now + ZN_ARP_TTL_NS;
	c->learned++;
	return e;
}

struct zn_arp_entry *zn_arp_pin(struct zn_arp_cache *c, uint32_t ip, const uint8_t *mac,
				uint64_t now)
{
	struct zn_arp_entry *e = zn_arp_learn(c, ip, mac, now, true);

	if (e)
		e->deadline = ZN_ARP_PINNED;
	return e;
}

struct zn_arp_entry *zn_arp_find(struct zn_arp_cache *c, uint32_t ip, uint64_t now)
{
	struct zn_arp_entry *e = lookup(c, ip);

	return e && e->state == ZN_ARP_REACHABLE && now < e->deadline ? e : NULL;
}

uint64_t zn_arp_tick(struct zn_arp_cache *c, uint64_t now, const struct zn_arp_cb *cb, void *ctx)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < ZN_ARP_ENTRIES; i++) {
		struct zn_arp_entry *e = &c->e[i];

		if (e->state == ZN_ARP_FREE)
			continue;
		if (now >= e->deadline) {
			if (e->state == ZN_ARP_REACHABLE) {
				c->expired++;
				entry_reset(c, e, ZN_ARP_FREE);
				continue;
			}
			if (e->tries >= ZN_ARP_RETRIES) {
				c->failed++;
				if (cb && cb->failed)
					cb->failed(ctx, e);
				entry_reset(c, e, ZN_ARP_FREE);
				continue;
			}
			e->tries++;
			e->deadline = now + ZN_ARP_RETRY_NS;
			if (cb && cb->request)
				cb->request(ctx, e->ip);
		}
		if (e->deadline < next)
			next = e->deadline;
	}
	return next;
}
