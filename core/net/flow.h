/* SPDX-License-Identifier: MIT */
/*
 * The flow table of a netif: 5-tuple -> endpoint, open addressing with
 * linear probing in a fixed power-of-two array (allocated once, never
 * grown; at most 3/4 full so that a probe always ends). A lookup tries the
 * exact 5-tuple (a connected endpoint), then the local address and port
 * with any remote (a bound one).
 */
#ifndef ZCNIC_CORE_NET_FLOW_H
#define ZCNIC_CORE_NET_FLOW_H

#include <stdbool.h>
#include <stdint.h>

struct zn_flow_key {
	uint32_t lip, rip;		/* network order; rip 0: any remote */
	uint16_t lport, rport;		/* network order; rport 0: any */
	uint8_t proto;
};

struct zn_flow_slot;

struct zn_flow_table {
	struct zn_flow_slot *s;
	uint32_t mask;
	uint32_t used;			/* live entries */
	uint32_t tomb;			/* deleted markers */
	/* zn_flow_match's last answer (frames of one flow come in runs);
	 * forgotten on every add and delete */
	struct zn_flow_key last;
	void *last_val;
	bool last_ok;
};

/* slots: a power of two >= 4. */
int zn_flow_init(struct zn_flow_table *t, uint32_t slots);
void zn_flow_fini(struct zn_flow_table *t);
/* -EADDRINUSE (the key is there), -ENOSPC (3/4 full). */
int zn_flow_add(struct zn_flow_table *t, const struct zn_flow_key *k, void *val);
/* -ENOENT. */
int zn_flow_del(struct zn_flow_table *t, const struct zn_flow_key *k);
void *zn_flow_get(const struct zn_flow_table *t, const struct zn_flow_key *k);
/* Exact 5-tuple first, then the same local side with any remote. */
void *zn_flow_match(struct zn_flow_table *t, uint8_t proto, uint32_t lip, uint16_t lport,
		    uint32_t rip, uint16_t rport);

#endif
