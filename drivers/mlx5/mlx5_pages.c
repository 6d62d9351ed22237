/* SPDX-License-Identifier: MIT */
/*
 * Page supply (hw-docs/mlx5.md §6): the device keeps its context memory in
 * 4 KiB host pages the driver lends it. The books: every page the driver
 * allocated is in pages.page[], lent or free; `lent` counts the device's,
 * `given` and `taken` the totals. A page goes back to the free list only
 * when MANAGE_PAGES TAKE names it; memory is freed only at close, so a page
 * the device still holds is never reused or unmapped under it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

#define PAGES_CHUNK_MIN	16	/* pages per DMA region allocated at once */

static int pages_grow(struct mlx5 *m, uint32_t want)
{
	struct mlx5_pages *p = &m->pages;
	uint32_t n = want < PAGES_CHUNK_MIN ? PAGES_CHUNK_MIN : want;
	struct zn_dma_region *r, **chunks;
	struct mlx5_page *pg;
	int rc;

	if (p->npages + n > p->cap) {
		uint32_t cap = p->cap ? p->cap : 64;

		while (cap < p->npages + n)
			cap *= 2;
		pg = realloc(p->page, cap * sizeof(*pg));
		if (!pg)
			return -ENOMEM;
		p->page = pg;
		p->cap = cap;
	}
	chunks = realloc(p->chunk, (p->nchunks + 1) * sizeof(*chunks));
	if (!chunks)
		return -ENOMEM;
	p->chunk = chunks;
	rc = zn_mlx5_dma_alloc(m, "mlx5-pages", (size_t)n * ZN_MLX5_PAGE_SIZE, &r);
	if (rc < 0)
		return rc;
	p->chunk[p->nchunks] = r;
	for (uint32_t i = 0; i < n; i++)
		p->page[p->npages + i] = (struct mlx5_page){
			.iova = r->iova + (uint64_t)i * ZN_MLX5_PAGE_SIZE,
			.chunk = p->nchunks,
		};
	p->nchunks++;
	p->npages += n;
	return 0;
}

/* MANAGE_PAGES GIVE of n pages (n <= MLX5_PAGES_PER_CMD). */
static int give(struct mlx5 *m, uint32_t n)
{
	struct mlx5_pages *p = &m->pages;
	uint8_t in[16 + 8 * MLX5_PAGES_PER_CMD] = { 0 };
	uint8_t out[ZN_MLX5_SZ_MANAGE_PAGES_OUT];
	uint32_t idx[MLX5_PAGES_PER_CMD];
	uint32_t got = 0;
	int rc;

	if (p->npages - p->lent < n) {
		rc = pages_grow(m, n - (p->npages - p->lent));
		if (rc < 0) {
			ZN_ERR(MLX5_LOG, "%s: no memory for %u pages the device asked for",
			       m->name, n);
			return rc;
		}
	}
	for (uint32_t i = 0; i < p->npages && got < n; i++)
		if (!p->page[i].lent)
			idx[got++] = i;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_GIVE);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_FUNCTION_ID, 0);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	for (uint32_t i = 0; i < n; i++)
		zn_mlx5_st_be64(in + 16 + 8 * i, p->page[idx[i]].iova);
	rc = zn_mlx5_cmd(m, in, 16 + 8 * n, out, sizeof(out));
	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < n; i++)
		p->page[idx[i]].lent = true;
	p->lent += n;
	p->given += n;
	return 0;
}

static struct mlx5_page *find_lent(struct mlx5_pages *p, uint64_t iova)
{
	for (uint32_t i = 0; i < p->npages; i++)
		if (p->page[i].iova == iova && p->page[i].lent)
			return &p->page[i];
	return NULL;
}

/* MANAGE_PAGES TAKE of up to n pages; returns how many came back. */
static int take(struct mlx5 *m, uint32_t n)
{
	struct mlx5_pages *p = &m->pages;
	uint8_t in[ZN_MLX5_SZ_MANAGE_PAGES_IN] = { 0 };
	uint8_t out[16 + 8 * MLX5_PAGES_PER_CMD];
	uint32_t got;
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_TAKE);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_FUNCTION_ID, 0);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, 16 + 8 * n);
	if (rc < 0)
		return rc;
	got = (uint32_t)ZN_MLX5_GET(out, MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES);
	if (got > n) {
		ZN_ERR(MLX5_LOG, "%s: MANAGE_PAGES TAKE returned %u pages, %u asked for",
		       m->name, got, n);
		return -EIO;
	}
	for (uint32_t i = 0; i < got; i++) {
		uint64_t iova = zn_mlx5_ld_be64(out + 16 + 8 * i);
		struct mlx5_page *pg = find_lent(p, iova);

		/* A page we never lent is the device's mistake: keep our books right. */
		if (!pg) {
			ZN_ERR(MLX5_LOG, "%s: MANAGE_PAGES TAKE returned 0x%llx, not a page "
			       "the device holds", m->name, (unsigned long long)iova);
			continue;
		}
		pg->lent = false;
		p->lent--;
		p->taken++;
	}
	return (int)got;
}

int zn_mlx5_pages_serve(struct mlx5 *m, int32_t req)
{
	int64_t n = req;	/* -INT32_MIN must not overflow */
	int rc = 0;

	/* The count is the device's word: it gets no more host memory than the cap. */
	if (n > 0 && (uint64_t)m->pages.lent + (uint64_t)n > MLX5_PAGES_MAX) {
		ZN_ERR(MLX5_LOG, "%s: device asks for %lld more pages with %u lent; refused "
		       "(at most %u)", m->name, (long long)n, m->pages.lent, MLX5_PAGES_MAX);
		return -ENOMEM;
	}
	while (n > 0 && rc == 0) {
		uint32_t k = n < MLX5_PAGES_PER_CMD ? (uint32_t)n : MLX5_PAGES_PER_CMD;

		rc = give(m, k);
		n -= k;
	}
	while (n < 0 && rc >= 0) {
		uint32_t k = -n < MLX5_PAGES_PER_CMD ? (uint32_t)-n : MLX5_PAGES_PER_CMD;

		rc = take(m, k);
		if (rc == 0)
			break;
		n += rc;
	}
	return rc < 0 ? rc : 0;
}

/* QUERY_PAGES(op_mod) -> MANAGE_PAGES (§4 steps 8, 11, 13). */
int zn_mlx5_pages_satisfy(struct mlx5 *m, uint16_t op_mod)
{
	uint8_t in[ZN_MLX5_SZ_QUERY_PAGES_IN] = { 0 };
	uint8_t out[ZN_MLX5_SZ_QUERY_PAGES_OUT];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc < 0)
		return rc;
	return zn_mlx5_pages_serve(m, (int32_t)ZN_MLX5_GET(out, QUERY_PAGES_OUT_NUM_PAGES));
}

int zn_mlx5_pages_reclaim(struct mlx5 *m)
{
	struct mlx5_pages *p = &m->pages;

	while (p->lent) {
		uint32_t k = p->lent < MLX5_PAGES_PER_CMD ? p->lent : MLX5_PAGES_PER_CMD;
		int rc = take(m, k);

		if (rc < 0)
			return rc;
		if (rc == 0) {
			ZN_ERR(MLX5_LOG, "%s: the device returns none of the %u pages it "
			       "still holds", m->name, p->lent);
			return -EIO;
		}
	}
	return 0;
}

void zn_mlx5_pages_free(struct mlx5 *m)
{
	struct mlx5_pages *p = &m->pages;

	/* A dead device has said so already; a live one keeping pages is news. */
	if (p->lent && !m->dead)
		ZN_ERR(MLX5_LOG, "%s: %u pages still held by the device are lost "
		       "(%llu given, %llu taken back)", m->name, p->lent,
		       (unsigned long long)p->given, (unsigned long long)p->taken);
	for (uint32_t i = 0; i < p->nchunks; i++)
		zn_mlx5_dma_free(m, &p->chunk[i]);
	free(p->chunk);
	free(p->page);
	memset(p, 0, sizeof(*p));
}
