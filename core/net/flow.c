/* SPDX-License-Identifier: MIT */
/* The flow table (see flow.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/net/flow.h"

enum { SLOT_EMPTY = 0, SLOT_USED, SLOT_TOMB };

struct zn_flow_slot {
	struct zn_flow_key k;
	uint8_t state;
	void *val;
};

int zn_flow_init(struct zn_flow_table *t, uint32_t slots)
{
	memset(t, 0, sizeof(*t));
	if (slots < 4 || (slots & (slots - 1)))
		return -EINVAL;
	t->s = calloc(slots, sizeof(*t->s));
	if (!t->s)
		return -ENOMEM;
	t->mask = slots - 1;
	return 0;
}

void zn_flow_fini(struct zn_flow_table *t)
{
	free(t->s);
	t->s = NULL;
}

static uint32_t hash(const struct zn_flow_key *k)
{
	uint64_t h = ((uint64_t)k->lip << 32 | k->rip) * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)k->lport << 24 | (uint64_t)k->rport << 8 | k->proto) * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h >> 32 ^ h);
}

static bool key_eq(const struct zn_flow_key *a, const struct zn_flow_key *b)
{
	return a->lip == b->lip && a->rip == b->rip && a->lport == b->lport &&
	       a->rport == b->rport && a->proto == b->proto;
}

/* The slot holding k, or NULL. */
static struct zn_flow_slot *find(const struct zn_flow_table *t, const struct zn_flow_key *k)
{
	for (uint32_t i = hash(k), n = 0; n <= t->mask; i++, n++) {
		struct zn_flow_slot *s = &t->s[i & t->mask];

		if (s->state == SLOT_EMPTY)
			return NULL;
		if (s->state == SLOT_USED && key_eq(&s->k, k))
			return s;
	}
	return NULL;
}

int zn_flow_add(struct zn_flow_table *t, const struct zn_flow_key *k, void *val)
{
	struct zn_flow_slot *s = NULL;

	if (find(t, k))
		return -EADDRINUSE;
	if ((t->used + 1) * 4 > (t->mask + 1) * 3)
		return -ENOSPC;
	for (uint32_t i = hash(k);; i++) {
		s = &t->s[i & t->mask];
		if (s->state != SLOT_USED)
			break;
	}
	if (s->state == SLOT_TOMB)
		t->tomb--;
	s->k = *k;
	s->val = val;
	s->state = SLOT_USED;
	t->used++;
	t->last_ok = false;
	/* Tombstones lengthen every probe: start over once they pile up. */
	if (t->tomb > (t->mask + 1) / 4) {
		struct zn_flow_slot *old = t->s;
		uint32_t n = t->mask + 1;

		t->s = calloc(n, sizeof(*t->s));
		if (!t->s) {		/* keep the old table: correct, just slower */
			t->s = old;
			return 0;
		}
		t->used = t->tomb = 0;
		for (uint32_t i = 0; i < n; i++)
			if (old[i].state == SLOT_USED)
				zn_flow_add(t, &old[i].k, old[i].val);
		free(old);
	}
	return 0;
}

int zn_flow_del(struct zn_flow_table *t, const struct zn_flow_key *k)
{
	struct zn_flow_slot *s = find(t, k);

	if (!s)
		return -ENOENT;
	s->state = SLOT_TOMB;
	s->val = NULL;
	t->last_ok = false;
	t->used--;
	t->tomb++;
	return 0;
}

void *zn_flow_get(const struct zn_flow_table *t, const struct zn_flow_key *k)
{
	struct zn_flow_slot *s = find(t, k);

	return s ? s->val : NULL;
}

void *zn_flow_match(struct zn_flow_table *t, uint8_t proto, uint32_t lip, uint16_t lport,
		    uint32_t rip, uint16_t rport)
{
	struct zn_flow_key k = { .lip = lip, .rip = rip, .lport = lport, .rport = rport,
				 .proto = proto };
	void *v;

	if (t->last_ok && key_eq(&t->last, &k))
		return t->last_val;
	v = zn_flow_get(t, &k);
	if (!v) {
		struct zn_flow_key any = k;

		any.rip = 0;
		any.rport = 0;
		v = zn_flow_get(t, &any);
	}
	t->last = k;
	t->last_val = v;
	t->last_ok = true;
	return v;
}
