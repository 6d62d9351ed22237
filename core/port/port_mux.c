/* SPDX-License-Identifier: MIT */
/*
 * core/port's per-queue provider mux (see port_mux.h). Fast path: alloc is
 * one call to the current provider plus, for a swapped-in provider, a pass
 * tagging the ids; put walks the ids once and calls each provider once per
 * run of ids of the same slot (one call for a driver's batch).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/port/port_mux.h"
#include "zcnic/log.h"

#define MUX_LOG		"port"
#define PUT_CHUNK	64	/* ids untagged per provider call */

struct mux_slot {
	/* Cached from prov at install: one load less per call. */
	uint32_t (*alloc)(void *ctx, struct zn_buf *bufs, uint32_t n);
	void (*put)(void *ctx, const uint32_t *ids, uint32_t n);
	uint8_t *(*va)(void *ctx, uint32_t id);
	void *ctx;
	const struct zn_buf_provider *prov;	/* NULL: slot free */
	uint32_t out;		/* handed out, not yet back (slots > 0) */
	bool detached;
};

struct zn_port_mux {
	struct zn_buf_provider prov;	/* what the driver and zn_port_rx_provider see */
	uint32_t cur;
	struct mux_slot slot[ZN_PORT_MUX_SLOTS];
};

_Static_assert(ZN_BUF_ID_BITS < 32 && ZN_PORT_MUX_SLOTS >= 2, "slot tag bits");

static void slot_fill(struct mux_slot *s, const struct zn_buf_provider *prov)
{
	s->alloc = prov->alloc;
	s->put = prov->put;
	s->va = prov->va;
	s->ctx = prov->ctx;
	s->prov = prov;
}

/* Frees slot k and tells its provider; the slot is reusable when it runs. */
static void slot_release(struct zn_port_mux *m, uint32_t k)
{
	const struct zn_buf_provider *prov = m->slot[k].prov;

	m->slot[k] = (struct mux_slot){ 0 };
	if (prov->detached)
		prov->detached(prov->ctx);
}

static uint32_t mux_alloc(void *ctx, struct zn_buf *bufs, uint32_t n)
{
	struct zn_port_mux *m = ctx;
	const uint32_t k = m->cur;
	struct mux_slot *s = &m->slot[k];
	uint32_t got = s->alloc(s->ctx, bufs, n);

	if (k == 0)
		return got;
	if (got > n)
		got = n;	/* counted exactly: the driver ignores the excess too */
	{
		const uint32_t tag = k << ZN_BUF_ID_BITS;
		uint32_t any = 0;

		for (uint32_t i = 0; i < got; i++) {
			any |= bufs[i].id;
			bufs[i].id |= tag;
		}
		if (__builtin_expect(any > ZN_BUF_ID_MASK, 0))
			ZN_LOG_RL(ZN_LOG_ERR, MUX_LOG, "a swapped-in payload provider gave "
				  "buffer ids >= 2^%u: they will be routed wrongly",
				  ZN_BUF_ID_BITS);
	}
	s->out += got;
	return got;
}

static __attribute__((noinline)) void slot_put(struct zn_port_mux *m, uint32_t k,
					       const uint32_t *ids, uint32_t n)
{
	struct mux_slot *s = &m->slot[k];
	uint32_t tmp[PUT_CHUNK];

	if (!s->prov) {
		ZN_LOG_RL(ZN_LOG_WARN, MUX_LOG, "%u payload buffer id(s) like 0x%x name no "
			  "provider of the queue (given back twice, or after the provider "
			  "was detached): ignored", n, ids[0]);
		return;
	}
	for (uint32_t done = 0; done < n;) {
		uint32_t c = n - done < PUT_CHUNK ? n - done : PUT_CHUNK;

		for (uint32_t i = 0; i < c; i++)
			tmp[i] = ids[done + i] & ZN_BUF_ID_MASK;
		s->put(s->ctx, tmp, c);
		done += c;
	}
	if (n > s->out) {
		ZN_LOG_RL(ZN_LOG_WARN, MUX_LOG, "more payload buffers given back to a provider "
			  "than it handed out (%u back, %u out)", n, s->out);
		n = s->out;
	}
	s->out -= n;
	if (s->detached && s->out == 0)
		slot_release(m, k);
}

static void mux_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct zn_port_mux *m = ctx;
	uint32_t i = 0;

	while (i < n) {
		const uint32_t k = ids[i] >> ZN_BUF_ID_BITS;
		uint32_t j = i + 1;

		while (j < n && ids[j] >> ZN_BUF_ID_BITS == k)
			j++;
		if (k == 0)
			m->slot[0].put(m->slot[0].ctx, ids + i, j - i);
		else
			slot_put(m, k, ids + i, j - i);
		i = j;
	}
}

static uint8_t *mux_va(void *ctx, uint32_t id)
{
	struct zn_port_mux *m = ctx;
	const struct mux_slot *s = &m->slot[id >> ZN_BUF_ID_BITS];

	if (!s->prov || !s->va)
		return NULL;
	return s->va(s->ctx, id & ZN_BUF_ID_MASK);
}

int zn_port_mux_create(const struct zn_buf_provider *base, struct zn_port_mux **out)
{
	struct zn_port_mux *m;

	if (!base || !base->alloc || !base->put)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	slot_fill(&m->slot[0], base);
	m->prov = (struct zn_buf_provider){ .buf_size = base->buf_size, .alloc = mux_alloc,
					    .put = mux_put, .va = mux_va, .ctx = m };
	*out = m;
	return 0;
}

void zn_port_mux_destroy(struct zn_port_mux *m)
{
	if (!m)
		return;
	for (uint32_t k = 1; k < ZN_PORT_MUX_SLOTS; k++)
		if (m->slot[k].prov)
			slot_release(m, k);
	free(m);
}

const struct zn_buf_provider *zn_port_mux_provider(struct zn_port_mux *m)
{
	return &m->prov;
}

int zn_port_mux_set(struct zn_port_mux *m, const struct zn_buf_provider *prov)
{
	uint32_t k = 0, old;

	if (prov && prov != m->slot[0].prov) {
		uint32_t free_k = 0;

		if (!prov->alloc || !prov->put || prov->buf_size != m->prov.buf_size)
			return -EINVAL;
		for (k = ZN_PORT_MUX_SLOTS - 1; k > 0; k--) {
			if (m->slot[k].prov == prov)
				break;
			if (!m->slot[k].prov)
				free_k = k;
		}
		if (k == 0) {
			if (free_k == 0)
				return -EBUSY;
			k = free_k;
			slot_fill(&m->slot[k], prov);
		}
	}
	if (k == m->cur)
		return 0;
	old = m->cur;
	m->slot[k].detached = false;
	m->cur = k;
	if (old) {
		m->slot[old].detached = true;
		if (m->slot[old].out == 0)
			slot_release(m, old);
	}
	return 0;
}

const struct zn_buf_provider *zn_port_mux_current(const struct zn_port_mux *m)
{
	return m->slot[m->cur].prov;
}

uint32_t zn_port_mux_out(const struct zn_port_mux *m, const struct zn_buf_provider *prov)
{
	for (uint32_t k = 1; prov && k < ZN_PORT_MUX_SLOTS; k++)
		if (m->slot[k].prov == prov)
			return m->slot[k].out;
	return 0;
}
