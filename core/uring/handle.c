/* SPDX-License-Identifier: MIT */
/*
 * The process-wide handle table (include/zcnic/handle.h).
 *
 * A slot's tag word says who may use it: LIVE | gen << 4 | type while the
 * handle is open, gen << 4 (no LIVE) once closed. get() raises refs first
 * and then checks the tag; close() clears LIVE first and then waits for
 * refs to drain. Both sides use sequentially consistent operations, so at
 * least one of them sees the other: either get() sees the handle closed and
 * backs off, or close() sees the reference and waits for its put().
 * Allocation and close are control-path calls, serialised by a mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "zcnic/handle.h"

#define TAG_LIVE	0x80000000u
#define TAG_TYPE_MASK	0xfu
#define GEN_BITS	12
#define GEN_MASK	((1u << GEN_BITS) - 1)
#define IDX_BITS	16

struct slot {
	_Atomic uint32_t tag;
	_Atomic uint32_t refs;
	void *obj;
};

static struct slot table[ZN_HANDLE_MAX];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_fresh;		/* slots never used start here */
static uint32_t free_list[ZN_HANDLE_MAX];
static uint32_t nfree;

static inline uint32_t h_idx(int h)
{
	return (uint32_t)h & ((1u << IDX_BITS) - 1);
}

static inline uint32_t h_gen(int h)
{
	return ((uint32_t)h >> IDX_BITS) & GEN_MASK;
}

static inline uint32_t slot_gen(uint32_t tag)
{
	return (tag >> 4) & GEN_MASK;
}

int zn_handle_alloc(enum zn_handle_type type, void *obj)
{
	uint32_t idx, gen;
	struct slot *s;

	if (!obj || type == ZN_HANDLE_ANY || (unsigned)type > ZN_HANDLE_TYPE_MAX)
		return -EINVAL;
	pthread_mutex_lock(&table_lock);
	if (nfree)
		idx = free_list[--nfree];
	else if (next_fresh < ZN_HANDLE_MAX)
		idx = next_fresh++;
	else {
		pthread_mutex_unlock(&table_lock);
		return -EMFILE;
	}
	s = &table[idx];
	gen = slot_gen(atomic_load(&s->tag));
	s->obj = obj;
	/* obj is published by the tag store (seq_cst, so also a release) */
	atomic_store(&s->tag, TAG_LIVE | gen << 4 | (uint32_t)type);
	pthread_mutex_unlock(&table_lock);
	return ZN_HANDLE_BASE | (int)(gen << IDX_BITS) | (int)idx;
}

static struct slot *slot_of(int h)
{
	if (!zn_handle_is_handle(h) || h_idx(h) >= ZN_HANDLE_MAX)
		return NULL;
	return &table[h_idx(h)];
}

static bool tag_matches(uint32_t tag, int h, enum zn_handle_type type)
{
	if (!(tag & TAG_LIVE) || slot_gen(tag) != h_gen(h))
		return false;
	return type == ZN_HANDLE_ANY || (tag & TAG_TYPE_MASK) == (uint32_t)type;
}

void *zn_handle_get(int h, enum zn_handle_type type)
{
	struct slot *s = slot_of(h);

	if (!s)
		return NULL;
	atomic_fetch_add(&s->refs, 1);
	if (!tag_matches(atomic_load(&s->tag), h, type)) {
		atomic_fetch_sub(&s->refs, 1);
		return NULL;
	}
	return s->obj;
}

void zn_handle_put(int h)
{
	struct slot *s = slot_of(h);

	if (s)
		atomic_fetch_sub(&s->refs, 1);
}

void *zn_handle_peek(int h, enum zn_handle_type type)
{
	struct slot *s = slot_of(h);

	if (!s || !tag_matches(atomic_load_explicit(&s->tag, memory_order_acquire), h, type))
		return NULL;
	return s->obj;
}

int zn_handle_type(int h)
{
	struct slot *s = slot_of(h);
	uint32_t tag;

	if (!s)
		return -EBADF;
	tag = atomic_load(&s->tag);
	if (!tag_matches(tag, h, ZN_HANDLE_ANY))
		return -EBADF;
	return (int)(tag & TAG_TYPE_MASK);
}

int zn_handle_close(int h)
{
	struct slot *s = slot_of(h);
	uint32_t tag, dead;

	if (!s)
		return -EBADF;
	pthread_mutex_lock(&table_lock);
	tag = atomic_load(&s->tag);
	if (!tag_matches(tag, h, ZN_HANDLE_ANY)) {
		pthread_mutex_unlock(&table_lock);
		return -EBADF;
	}
	dead = ((slot_gen(tag) + 1) & GEN_MASK) << 4;
	atomic_store(&s->tag, dead);
	/* References are short (one post): wait them out. */
	while (atomic_load(&s->refs))
		sched_yield();
	s->obj = NULL;
	free_list[nfree++] = h_idx(h);
	pthread_mutex_unlock(&table_lock);
	return 0;
}
