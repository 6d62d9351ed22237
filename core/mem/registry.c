/* SPDX-License-Identifier: MIT */
/*
 * Process-wide registry of live DMA regions: a VA-sorted array of pointers
 * under one mutex. Add/remove happen at set-up; look-ups are for control
 * paths (DMA mapping, descriptor set-up), so a lock and a binary search are
 * cheap enough and nothing is allocated per look-up.
 *
 * Invariant: no two live regions overlap in IOVA space, so that an IOVA
 * names one byte of one region for every device.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem/mem_internal.h"

#define REG_INITIAL_CAP 16

static struct {
	pthread_mutex_t lock;
	struct zn_dma_region **v;	/* sorted by va; regions never overlap in VA */
	size_t n, cap;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool iova_overlaps(const struct zn_dma_region *r, uint64_t iova)
{
	for (size_t i = 0; i < reg.n; i++) {
		const struct zn_dma_region *o = reg.v[i];

		if (o != r && iova < o->iova + o->len && o->iova < iova + r->len)
			return true;
	}
	return false;
}

/* Index of the first region whose va is > va (caller holds the lock). */
static size_t upper_bound(uintptr_t va)
{
	size_t lo = 0, hi = reg.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)reg.v[mid]->va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The region holding all of [va, va+len) (len 0 counts as 1), or NULL. */
static struct zn_dma_region *lookup(const void *va, size_t len)
{
	uintptr_t a = (uintptr_t)va;
	size_t i = upper_bound(a);
	struct zn_dma_region *r;

	if (i == 0)
		return NULL;
	r = reg.v[i - 1];
	if (len == 0)
		len = 1;
	/* Written as differences so that a huge len cannot wrap around. */
	if (a - (uintptr_t)r->va >= r->len || len > r->len - (a - (uintptr_t)r->va))
		return NULL;
	return r;
}

int zn_mem_reg_add(struct zn_dma_region *r)
{
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&reg.lock);
	if (iova_overlaps(r, r->iova)) {
		rc = -EEXIST;
		goto out;
	}
	if (reg.n == reg.cap) {
		size_t cap = reg.cap ? reg.cap * 2 : REG_INITIAL_CAP;
		struct zn_dma_region **v = realloc(reg.v, cap * sizeof(*v));

		if (!v) {
			rc = -ENOMEM;
			goto out;
		}
		reg.v = v;
		reg.cap = cap;
	}
	i = upper_bound((uintptr_t)r->va);
	memmove(&reg.v[i + 1], &reg.v[i], (reg.n - i) * sizeof(reg.v[0]));
	reg.v[i] = r;
	reg.n++;
out:
	pthread_mutex_unlock(&reg.lock);
	return rc;
}

void zn_mem_reg_remove(struct zn_dma_region *r)
{
	pthread_mutex_lock(&reg.lock);
	for (size_t i = 0; i < reg.n; i++) {
		if (reg.v[i] == r) {
			memmove(&reg.v[i], &reg.v[i + 1], (reg.n - i - 1) * sizeof(reg.v[0]));
			reg.n--;
			break;
		}
	}
	/* Give the array back when the last region goes, so that nothing shows as leaked. */
	if (reg.n == 0) {
		free(reg.v);
		reg.v = NULL;
		reg.cap = 0;
	}
	pthread_mutex_unlock(&reg.lock);
}

int zn_mem_reg_set_iova(struct zn_dma_region *r, uint64_t iova)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&reg.lock);
	for (size_t i = 0; i < reg.n; i++) {
		if (reg.v[i] != r)
			continue;
		if (iova_overlaps(r, iova)) {
			rc = -EEXIST;
		} else {
			r->iova = iova;
			rc = 0;
		}
		break;
	}
	pthread_mutex_unlock(&reg.lock);
	return rc;
}

int zn_mem_reg_overlap(const void *va, size_t len, struct zn_dma_region **r)
{
	uintptr_t a = (uintptr_t)va;
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&reg.lock);
	*r = lookup(va, len);
	if (*r) {
		rc = 1;
		goto out;
	}
	/* Sorted and disjoint: only the one before a's upper bound and those
	 * starting inside the range can touch it. */
	i = upper_bound(a);
	if (i > 0 && a - (uintptr_t)reg.v[i - 1]->va < reg.v[i - 1]->len)
		rc = -EEXIST;
	if (i < reg.n && (uintptr_t)reg.v[i]->va - a < len)
		rc = -EEXIST;
out:
	pthread_mutex_unlock(&reg.lock);
	return rc;
}

size_t zn_mem_reg_locked_bytes(void)
{
	size_t sum = 0;

	pthread_mutex_lock(&reg.lock);
	for (size_t i = 0; i < reg.n; i++)
		sum += reg.v[i]->len;
	pthread_mutex_unlock(&reg.lock);
	return sum;
}

int zn_mem_va_to_iova(const void *va, size_t len, uint64_t *iova)
{
	struct zn_dma_region *r;
	int rc = -EFAULT;

	pthread_mutex_lock(&reg.lock);
	r = lookup(va, len);
	if (r) {
		*iova = r->iova + ((uintptr_t)va - (uintptr_t)r->va);
		rc = 0;
	}
	pthread_mutex_unlock(&reg.lock);
	return rc;
}

int zn_mem_va_to_fd(const void *va, size_t len, int *fd, uint64_t *fd_offset)
{
	struct zn_dma_region *r;
	int rc = -EFAULT;

	pthread_mutex_lock(&reg.lock);
	r = lookup(va, len);
	if (r) {
		*fd = r->fd;
		*fd_offset = r->fd_offset + ((uintptr_t)va - (uintptr_t)r->va);
		rc = 0;
	}
	pthread_mutex_unlock(&reg.lock);
	return rc;
}

struct zn_dma_region *zn_mem_find(const void *va)
{
	struct zn_dma_region *r;

	pthread_mutex_lock(&reg.lock);
	r = lookup(va, 1);
	pthread_mutex_unlock(&reg.lock);
	return r;
}
