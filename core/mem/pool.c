/* SPDX-License-Identifier: MIT */
/*
 * Fixed-size buffer pool over part of a DMA region.
 *
 * Free buffers are indices on a LIFO stack (a buffer just returned is still
 * warm in cache); a bitmap says which buffers are out, so that a double put
 * or a stray pointer is caught instead of corrupting the stack. Both live in
 * the one allocation made at creation. A pool has one owner thread: get/put
 * take no lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "zcnic/mem.h"

#define POOL_ALIGN 64u		/* cache line: no two buffers share one */

struct zn_pool {
	struct zn_dma_region *region;
	uint8_t *base;
	size_t buf_size;
	uint32_t count;
	uint32_t top;		/* stack[0..top) are free indices */
	uint32_t *stack;
	uint64_t *out;		/* bit i set: buffer i is held by a user */
};

int zn_pool_create(struct zn_dma_region *r, size_t offset, size_t buf_size,
		   uint32_t count, struct zn_pool **out)
{
	size_t words = ((size_t)count + 63) / 64;
	struct zn_pool *p;
	size_t bsz;

	if (!r || !out || buf_size == 0 || count == 0 || offset % POOL_ALIGN)
		return -EINVAL;
	if (buf_size > SIZE_MAX - (POOL_ALIGN - 1))
		return -ENOSPC;
	bsz = (buf_size + POOL_ALIGN - 1) & ~(size_t)(POOL_ALIGN - 1);
	if (offset > r->len || count > (r->len - offset) / bsz)
		return -ENOSPC;
	/* Bitmap first: it needs 8-byte alignment, the stack only 4. */
	p = calloc(1, sizeof(*p) + words * sizeof(uint64_t) + count * sizeof(uint32_t));
	if (!p)
		return -ENOMEM;
	p->region = r;
	p->base = (uint8_t *)r->va + offset;
	p->buf_size = bsz;
	p->count = count;
	p->out = (uint64_t *)(p + 1);
	p->stack = (uint32_t *)(p->out + words);
	/* Reversed, so that buffers come out in address order at first. */
	for (uint32_t i = 0; i < count; i++)
		p->stack[i] = count - 1 - i;
	p->top = count;
	*out = p;
	return 0;
}

void zn_pool_destroy(struct zn_pool *p)
{
	free(p);
}

void *zn_pool_get(struct zn_pool *p)
{
	uint32_t idx;

	if (p->top == 0)
		return NULL;
	idx = p->stack[--p->top];
	p->out[idx / 64] |= 1ull << (idx % 64);
	return p->base + (size_t)idx * p->buf_size;
}

int zn_pool_put(struct zn_pool *p, void *buf)
{
	uint32_t idx;
	uint64_t bit;

	if (zn_pool_index(p, buf, &idx))
		return -EINVAL;
	bit = 1ull << (idx % 64);
	if (!(p->out[idx / 64] & bit))
		return -EINVAL;
	p->out[idx / 64] &= ~bit;
	p->stack[p->top++] = idx;
	return 0;
}

uint32_t zn_pool_avail(const struct zn_pool *p)
{
	return p->top;
}

uint32_t zn_pool_count(const struct zn_pool *p)
{
	return p->count;
}

size_t zn_pool_buf_size(const struct zn_pool *p)
{
	return p->buf_size;
}

void *zn_pool_buf(const struct zn_pool *p, uint32_t idx)
{
	return idx < p->count ? p->base + (size_t)idx * p->buf_size : NULL;
}

int zn_pool_index(const struct zn_pool *p, const void *buf, uint32_t *idx)
{
	uintptr_t off = (uintptr_t)buf - (uintptr_t)p->base;

	/* Unsigned: a pointer below base wraps to a huge offset and fails too. */
	if (off % p->buf_size || off / p->buf_size >= p->count)
		return -EINVAL;
	*idx = (uint32_t)(off / p->buf_size);
	return 0;
}
