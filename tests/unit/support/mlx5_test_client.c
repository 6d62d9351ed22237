/* SPDX-License-Identifier: MIT */
/* A hand-driven mlx5 client and an in-process zn-nicsim for model tests;
 * see mlx5_test_client.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/vfu/vfu.h"
#include "tests/unit/support/mlx5_test_client.h"

void mtc_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int64_t mtc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void spin_pause(void)
{
	struct timespec ts = { 0, 5000 };

	nanosleep(&ts, NULL);
}

/* ---- in-process zn-nicsim ---- */

static void *loop_main(void *arg)
{
	zn_vfu_loop_run(arg);
	return NULL;
}

int mtc_sim_start(struct mtc_sim *s, const char *spec0, const char *spec1, bool wire)
{
	const char *specs[2] = { spec0, spec1 };
	char err[256], spec[256];

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/zn-mlx5-test-XXXXXX");
	if (!mkdtemp(s->dir))
		return -1;
	s->ndev = spec1 ? 2 : 1;
	for (unsigned i = 0; i < s->ndev; i++) {
		char dir[sizeof(s->dir)];

		snprintf(spec, sizeof(spec), "dev%u=%s", i, specs[i]);
		if (zn_sim_device_create(spec, &s->dev[i], err, sizeof(err))) {
			fprintf(stderr, "mtc_sim_start: %s: %s\n", spec, err);
			return -1;
		}
		memcpy(dir, s->dir, sizeof(dir));
		snprintf(s->path[i], sizeof(s->path[i]), "%s/dev%u.sock", dir, i);
	}
	if (zn_vfu_loop_new(&s->loop))
		return -1;
	if (wire && (s->ndev != 2 ||
		     zn_sim_wire_pair(zn_sim_device_port(s->dev[0], 0),
				      zn_sim_device_port(s->dev[1], 0), &s->wire) ||
		     zn_vfu_loop_add_poller(s->loop, zn_sim_wire_poll, s->wire)))
		return -1;
	for (unsigned i = 0; i < s->ndev; i++)
		if (zn_vfu_dev_listen(s->dev[i]->dev, s->path[i]) ||
		    zn_vfu_loop_add_dev(s->loop, s->dev[i]->dev))
			return -1;
	if (pthread_create(&s->thread, NULL, loop_main, s->loop))
		return -1;
	s->running = true;
	return 0;
}

void mtc_sim_stop(struct mtc_sim *s)
{
	if (s->running) {
		zn_vfu_loop_stop(s->loop);
		pthread_join(s->thread, NULL);
	}
	zn_sim_wire_free(s->wire);
	for (unsigned i = 0; i < s->ndev; i++)
		zn_sim_device_free(s->dev[i]);
	zn_vfu_loop_free(s->loop);
	if (s->dir[0])
		rmdir(s->dir);
	memset(s, 0, sizeof(*s));
}

struct counter_q {
	const char *key;
	uint64_t v;
	bool found;
};

static void counter_emit(void *ctx, const char *key, uint64_t v)
{
	struct counter_q *q = ctx;
	const char *k = strstr(key, ".model.");

	if (k && !strcmp(k + 7, q->key)) {
		q->v = v;
		q->found = true;
	}
}

uint64_t mtc_counter(struct mtc_sim *s, unsigned i, const char *key)
{
	struct counter_q q = { key, 0, false };

	zn_sim_device_stats(s->dev[i], counter_emit, &q);
	if (!q.found) {
		fprintf(stderr, "mtc_counter: no model counter '%s'\n", key);
		abort();
	}
	return q.v;
}

/* ---- the client ---- */

int mtc_open(struct mtc *c, const char *sock_path)
{
	struct zn_bus_open_opts o = { .timeout_ms = MTC_TIMEOUT_MS };
	char spec[160];
	void *va = NULL;
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(spec, sizeof(spec), "vfio-user:%s", sock_path);
	rc = zn_bus_open(spec, &o, &c->bus);
	if (rc)
		return rc;
	if ((rc = zn_bus_enable_bus_master(c->bus)) || (rc = zn_bus_map_bar(c->bus, 0, &va, NULL)))
		goto err;
	c->bar0 = va;
	rc = zn_dma_region_alloc("mtc", MTC_MEM_LEN, -1, ZN_DMA_NO_HUGE, &c->mem);
	if (rc)
		goto err;
	rc = zn_bus_dma_map(c->bus, c->mem);
	if (rc)
		goto err;
	c->cmdq = mtc_alloc(c, 4096, 4096);
	c->mbox_in = mtc_alloc(c, MTC_MBOX_POOL * 1024, 4096);
	c->mbox_out = mtc_alloc(c, MTC_MBOX_POOL * 1024, 4096);
	return 0;
err:
	mtc_close(c);
	return rc;
}

void mtc_close(struct mtc *c)
{
	zn_bus_close(c->bus);
	if (c->mem)
		zn_dma_region_free(c->mem);
	memset(c, 0, sizeof(*c));
}

void *mtc_alloc(struct mtc *c, size_t len, size_t align)
{
	size_t at = (c->brk + align - 1) & ~(align - 1);
	uint8_t *p;

	if (at + len > c->mem->len)
		return NULL;
	c->brk = at + len;
	p = (uint8_t *)c->mem->va + at;
	memset(p, 0, len);
	return p;
}

uint64_t mtc_iova(const struct mtc *c, const void *va)
{
	return c->mem->iova + (uint64_t)((const uint8_t *)va - (const uint8_t *)c->mem->va);
}

static uint32_t iseg_rd(struct mtc *c, uint64_t off)
{
	uint32_t v = 0;

	zn_bus_read32(c->bus, 0, off, &v);
	return zn_mlx5_bswap32(v);
}

static int iseg_wr(struct mtc *c, uint64_t off, uint32_t v)
{
	return zn_bus_write32(c->bus, 0, off, zn_mlx5_bswap32(v));
}

static int wait_ready(struct mtc *c)
{
	int64_t end = mtc_now_ms() + MTC_TIMEOUT_MS;

	while (iseg_rd(c, ZN_MLX5_ISEG_INITIALIZING) & ZN_MLX5_ISEG_INITIALIZING_BIT) {
		if (mtc_now_ms() > end)
			return -ETIMEDOUT;
		mtc_sleep_ms(2);
	}
	return 0;
}

int mtc_boot(struct mtc *c)
{
	uint64_t a = mtc_iova(c, c->cmdq);
	int rc = wait_ready(c);

	if (rc)
		return rc;
	if ((iseg_rd(c, ZN_MLX5_ISEG_CMDIF_REV_FW_SUB) >> 16) != ZN_MLX5_CMD_IF_REV)
		return -EPROTO;
	if ((rc = iseg_wr(c, ZN_MLX5_ISEG_CMDQ_ADDR_H, (uint32_t)(a >> 32))) ||
	    (rc = iseg_wr(c, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)a)))
		return rc;
	return wait_ready(c);
}

/* Builds a chain of n blocks in pool for len bytes of data (msg + 16 on). */
static uint64_t build_chain(struct mtc *c, uint8_t *pool, const uint8_t *data, size_t len,
			    uint8_t token, const struct mtc_fault *f, int cut)
{
	unsigned n = zn_mlx5_cmd_blocks((uint32_t)len + ZN_MLX5_CMD_INLINE_SIZE);

	if (cut > 0 && (unsigned)cut < n)
		n = (unsigned)cut;
	for (unsigned k = 0; k < n; k++) {
		struct zn_mlx5_cmd_mbox *b = (void *)(pool + (size_t)k * 1024);
		size_t off = (size_t)k * ZN_MLX5_CMD_MBOX_DATA_SIZE;

		memset(b, 0, sizeof(*b));
		if (data && off < len)
			memcpy(b->data, data + off,
			       len - off < ZN_MLX5_CMD_MBOX_DATA_SIZE ? len - off
								      : ZN_MLX5_CMD_MBOX_DATA_SIZE);
		b->next_be = k + 1 < n ? zn_mlx5_bswap64(mtc_iova(c, pool + (size_t)(k + 1) * 1024))
				       : 0;
		b->block_num_be = zn_mlx5_bswap32(k);
		b->token = token;
		if (f && f->bad_token_block == (int)k)
			b->token = (uint8_t)(token + 1);
		if (f && f->bad_blknum_block == (int)k)
			b->block_num_be = zn_mlx5_bswap32(k + 7);
	}
	return n ? mtc_iova(c, pool) : 0;
}

static int post_cmd(struct mtc *c, struct zn_mlx5_cmd_entry *e, unsigned slot, const void *in,
		    size_t inlen, void *out, size_t outlen, const struct mtc_fault *f);

int mtc_cmd_ex(struct mtc *c, const void *in, size_t inlen, void *out, size_t outlen,
	       const struct mtc_fault *f)
{
	static const struct mtc_fault none = MTC_FAULT_NONE;
	unsigned slot = f ? f->slot : 0;
	struct zn_mlx5_cmd_entry *e = (void *)(c->cmdq + (size_t)slot * ZN_MLX5_CMD_ENTRY_SIZE);
	uint8_t *copy = NULL;
	int rc;

	if (!f)
		f = &none;
	if (c->mutate) {
		copy = malloc(inlen ? inlen : 1);
		if (!copy)
			abort();
		memcpy(copy, in, inlen);
		c->mutate(copy, inlen, c->mutate_arg);
		in = copy;
	}
	rc = post_cmd(c, e, slot, in, inlen, out, outlen, f);
	free(copy);
	return rc;
}

static int post_cmd(struct mtc *c, struct zn_mlx5_cmd_entry *e, unsigned slot, const void *in,
		    size_t inlen, void *out, size_t outlen, const struct mtc_fault *f)
{
	uint64_t in_ptr, out_ptr;
	int64_t end;

	if (zn_mlx5_cmd_blocks((uint32_t)inlen) > MTC_MBOX_POOL ||
	    zn_mlx5_cmd_blocks((uint32_t)outlen) > MTC_MBOX_POOL)
		return -E2BIG;
	c->token = (uint8_t)(c->token % 255 + 1);
	memset(e, 0, sizeof(*e));
	e->type = f->type ? f->type : ZN_MLX5_CMD_TYPE_PCIE;
	e->inlen_be = zn_mlx5_bswap32((uint32_t)inlen);
	e->outlen_be = zn_mlx5_bswap32((uint32_t)outlen);
	memcpy(e->in, in, inlen < ZN_MLX5_CMD_INLINE_SIZE ? inlen : ZN_MLX5_CMD_INLINE_SIZE);
	in_ptr = inlen > ZN_MLX5_CMD_INLINE_SIZE
			 ? build_chain(c, c->mbox_in, (const uint8_t *)in + ZN_MLX5_CMD_INLINE_SIZE,
				       inlen - ZN_MLX5_CMD_INLINE_SIZE, c->token, f, f->cut_in_chain)
			 : 0;
	out_ptr = outlen > ZN_MLX5_CMD_INLINE_SIZE
			  ? build_chain(c, c->mbox_out, NULL, outlen - ZN_MLX5_CMD_INLINE_SIZE,
					c->token, f, f->cut_out_chain)
			  : 0;
	if (f->in_ptr)
		in_ptr = f->in_ptr;
	e->in_ptr_be = zn_mlx5_bswap64(in_ptr + (f->misalign_in ? 0x100 : 0));
	e->out_ptr_be = zn_mlx5_bswap64(out_ptr + (f->misalign_out ? 0x100 : 0));
	e->token = c->token;
	__atomic_store_n(&e->status_own, ZN_MLX5_CMD_OWNER_HW, __ATOMIC_RELEASE);
	if (iseg_wr(c, ZN_MLX5_ISEG_CMD_DBELL, 1u << slot))
		return -EIO;
	if (f->no_wait)
		return 0;
	end = mtc_now_ms() + MTC_TIMEOUT_MS;
	while (__atomic_load_n(&e->status_own, __ATOMIC_ACQUIRE) & ZN_MLX5_CMD_OWNER_HW) {
		if (mtc_now_ms() > end)
			return -ETIMEDOUT;
		spin_pause();
	}
	c->last_dstat = e->status_own >> ZN_MLX5_CMD_STATUS_SHIFT;
	if (out) {
		size_t n = outlen < ZN_MLX5_CMD_INLINE_SIZE ? outlen : ZN_MLX5_CMD_INLINE_SIZE;

		memset(out, 0, outlen);
		memcpy(out, e->out, n);
		for (size_t off = n, k = 0; off < outlen; k++) {
			size_t m = outlen - off < ZN_MLX5_CMD_MBOX_DATA_SIZE
					   ? outlen - off
					   : ZN_MLX5_CMD_MBOX_DATA_SIZE;

			memcpy((uint8_t *)out + off, c->mbox_out + k * 1024, m);
			off += m;
		}
	}
	return c->last_dstat;
}

int mtc_cmd(struct mtc *c, const void *in, size_t inlen, void *out, size_t outlen,
	    uint32_t *synd)
{
	uint8_t hdr[ZN_MLX5_CMD_HDR_SIZE];
	void *o = out ? out : hdr;
	int rc;

	if (!out)
		outlen = sizeof(hdr);
	rc = mtc_cmd_ex(c, in, inlen, o, outlen, NULL);
	if (rc < 0)
		return rc;
	if (rc)
		return 0x100 | rc;
	if (synd)
		*synd = (uint32_t)ZN_MLX5_GET(o, OUT_SYNDROME);
	return (int)ZN_MLX5_GET(o, OUT_STATUS);
}

int mtc_simple(struct mtc *c, uint16_t opcode, uint16_t op_mod, uint32_t w08, uint32_t w0c,
	       uint32_t *v08)
{
	uint8_t in[16] = { 0 }, out[16];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, opcode);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	zn_mlx5_st_be32(in + 8, w08);
	zn_mlx5_st_be32(in + 12, w0c);
	rc = mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL);
	if (v08)
		*v08 = zn_mlx5_ld_be32(out + 8);
	return rc;
}

/* ---- pages ---- */

int mtc_give_pages(struct mtc *c, uint32_t n)
{
	size_t len = ZN_MLX5_SZ_MANAGE_PAGES_IN + 8 * (size_t)n;
	uint8_t *in = calloc(1, len);
	int rc;

	if (!in || c->npages + n > MTC_MAX_PAGES)
		abort();
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_GIVE);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *p = c->nfree ? c->free_pages[--c->nfree] : mtc_alloc(c, 4096, 4096);

		if (!p)
			abort();
		zn_mlx5_st_be64(in + 16 + 8 * i, mtc_iova(c, p));
	}
	rc = mtc_cmd(c, in, len, NULL, 0, NULL);
	if (rc == 0) {
		for (uint32_t i = 0; i < n; i++)
			c->pages[c->npages++] = zn_mlx5_ld_be64(in + 16 + 8 * i);
		c->pages_given += n;
	}
	free(in);
	return rc;
}

int mtc_supply_pages(struct mtc *c, uint16_t op_mod)
{
	uint8_t in[16] = { 0 }, out[16];
	uint32_t v;
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	rc = mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL);
	if (rc)
		return rc;
	v = (uint32_t)ZN_MLX5_GET(out, QUERY_PAGES_OUT_NUM_PAGES);
	if ((int32_t)v <= 0)
		return 0;
	return mtc_give_pages(c, v);
}

int mtc_take_pages(struct mtc *c, uint32_t n, uint32_t *got)
{
	uint8_t in[16] = { 0 };
	size_t outlen = ZN_MLX5_SZ_MANAGE_PAGES_OUT + 8 * (size_t)n;
	uint8_t *out = calloc(1, outlen);
	int rc;

	if (!out)
		abort();
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_TAKE);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	rc = mtc_cmd(c, in, sizeof(in), out, outlen, NULL);
	*got = 0;
	if (rc == 0) {
		uint32_t k = (uint32_t)ZN_MLX5_GET(out, MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES);

		if (k > n)
			abort();
		for (uint32_t i = 0; i < k; i++) {
			uint64_t a = zn_mlx5_ld_be64(out + 16 + 8 * i);
			unsigned j;

			for (j = 0; j < c->npages && c->pages[j] != a; j++)
				;
			if (j == c->npages) {
				fprintf(stderr, "mtc_take_pages: %#llx was never given\n",
					(unsigned long long)a);
				abort();
			}
			c->pages[j] = c->pages[--c->npages];
			c->free_pages[c->nfree++] = (uint8_t *)c->mem->va + (a - c->mem->iova);
		}
		*got = k;
		c->pages_returned += k;
	}
	free(out);
	return rc;
}

int mtc_bringup(struct mtc *c)
{
	uint8_t out[ZN_MLX5_SZ_QUERY_ISSI_OUT];
	uint8_t *cap_in, *cap_out;
	int rc;

	if ((rc = mtc_simple(c, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL)))
		return rc;
	{
		uint8_t in[16] = { 0 };

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_ISSI);
		if ((rc = mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL)))
			return rc;
		if (!(ZN_MLX5_GET(out, QUERY_ISSI_OUT_SUPPORTED_ISSI) & (1u << ZN_MLX5_ISSI)))
			return -EPROTO;
	}
	if ((rc = mtc_simple(c, ZN_MLX5_CMD_OP_SET_ISSI, 0, ZN_MLX5_ISSI, 0, NULL)) ||
	    (rc = mtc_supply_pages(c, ZN_MLX5_PAGES_BOOT)))
		return rc;
	cap_in = calloc(1, ZN_MLX5_SZ_SET_HCA_CAP_IN);
	cap_out = calloc(1, ZN_MLX5_SZ_QUERY_HCA_CAP_OUT);
	if (!cap_in || !cap_out)
		abort();
	ZN_MLX5_SET(cap_in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_HCA_CAP);
	ZN_MLX5_SET(cap_in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 1));
	rc = mtc_cmd(c, cap_in, ZN_MLX5_SZ_QUERY_HCA_CAP_IN, cap_out, ZN_MLX5_SZ_QUERY_HCA_CAP_OUT,
		     NULL);
	if (!rc) {
		memset(cap_in, 0, ZN_MLX5_SZ_SET_HCA_CAP_IN);
		ZN_MLX5_SET(cap_in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_HCA_CAP);
		ZN_MLX5_SET(cap_in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 0));
		memcpy(cap_in + 16, cap_out + 16, ZN_MLX5_CAP_SIZE);
		ZN_MLX5_SET(cap_in + 16, CAP_CMDIF_CHECKSUM, 0);
		ZN_MLX5_SET(cap_in + 16, CAP_LOG_UAR_PAGE_SZ, 0);
		rc = mtc_cmd(c, cap_in, ZN_MLX5_SZ_SET_HCA_CAP_IN, NULL, 0, NULL);
	}
	free(cap_in);
	free(cap_out);
	if (rc || (rc = mtc_supply_pages(c, ZN_MLX5_PAGES_INIT)) ||
	    (rc = mtc_simple(c, ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, 0, NULL)))
		return rc;
	return mtc_supply_pages(c, ZN_MLX5_PAGES_REGULAR);
}

int mtc_teardown(struct mtc *c)
{
	int rc = mtc_simple(c, ZN_MLX5_CMD_OP_TEARDOWN_HCA, 0, ZN_MLX5_TEARDOWN_GRACEFUL, 0, NULL);

	if (rc)
		return rc;
	for (int guard = 0; guard < 64; guard++) {
		uint8_t in[16] = { 0 }, out[16];
		int32_t want;
		uint32_t got;

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_PAGES);
		ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_REGULAR);
		if ((rc = mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL)))
			return rc;
		want = (int32_t)ZN_MLX5_GET(out, QUERY_PAGES_OUT_NUM_PAGES);
		if (want >= 0)
			break;
		if ((rc = mtc_take_pages(c, (uint32_t)-want < 256 ? (uint32_t)-want : 256, &got)))
			return rc;
	}
	return mtc_simple(c, ZN_MLX5_CMD_OP_DISABLE_HCA, 0, 0, 0, NULL);
}

/* ---- objects ---- */

int mtc_alloc_uar(struct mtc *c, uint32_t *id)
{
	return mtc_simple(c, ZN_MLX5_CMD_OP_ALLOC_UAR, 0, 0, 0, id);
}

int mtc_alloc_pd(struct mtc *c, uint32_t *id)
{
	return mtc_simple(c, ZN_MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, id);
}

int mtc_alloc_td(struct mtc *c, uint32_t *id)
{
	return mtc_simple(c, ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, 0, 0, id);
}

/* One page list entry per 4 KiB of a contiguous ring. */
static void put_pas(struct mtc *c, uint8_t *pas, const uint8_t *ring, size_t bytes)
{
	for (size_t i = 0; i * 4096 < bytes; i++)
		zn_mlx5_st_be64(pas + 8 * i, mtc_iova(c, ring + i * 4096));
}

int mtc_create_eq(struct mtc *c, struct mtc_eq *eq, uint32_t uar, unsigned log_sz,
		  uint64_t mask)
{
	size_t bytes = (size_t)ZN_MLX5_EQE_SIZE << log_sz, npas = (bytes + 4095) / 4096;
	size_t inlen = ZN_MLX5_SZ_CREATE_EQ_IN + 8 * npas;
	uint8_t *in = calloc(1, inlen), out[16];
	uint8_t *eqc = ZN_MLX5_ADDR(in, CREATE_EQ_IN_EQC);
	int rc;

	if (!in)
		abort();
	memset(eq, 0, sizeof(*eq));
	eq->ring = mtc_alloc(c, npas * 4096, 4096);
	eq->log_sz = log_sz;
	eq->uar = uar;
	for (size_t i = 0; i < (1u << log_sz); i++)
		eq->ring[i * ZN_MLX5_EQE_SIZE + 63] = ZN_MLX5_EQE_OWNER_INIT;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_EQ);
	ZN_MLX5_SET(eqc, EQC_LOG_EQ_SIZE, log_sz);
	ZN_MLX5_SET(eqc, EQC_UAR_PAGE, uar);
	for (unsigned t = 0; t < 64; t++)
		if (mask >> t & 1)
			zn_mlx5_eq_mask_event(in, t);
	put_pas(c, in + ZN_MLX5_BYTE_OFF(CREATE_EQ_IN_PAS), eq->ring, bytes);
	rc = mtc_cmd(c, in, inlen, out, sizeof(out), NULL);
	eq->eqn = (uint8_t)ZN_MLX5_GET(out, CREATE_EQ_OUT_EQ_NUMBER);
	free(in);
	return rc;
}

bool mtc_eq_poll(struct mtc *c, struct mtc_eq *eq, struct zn_mlx5_eqe *out)
{
	struct zn_mlx5_eqe *e = (void *)(eq->ring + (size_t)(eq->ci & ((1u << eq->log_sz) - 1)) *
						       ZN_MLX5_EQE_SIZE);
	uint8_t *db;

	if ((__atomic_load_n(&e->owner, __ATOMIC_ACQUIRE) & 1) != ((eq->ci >> eq->log_sz) & 1))
		return false;
	memcpy(out, e, sizeof(*out));
	eq->ci++;
	db = c->bar0 + (size_t)eq->uar * ZN_MLX5_UAR_PAGE_SIZE + ZN_MLX5_UAR_EQ_DOORBELL;
	__atomic_store_n((uint32_t *)db, zn_mlx5_bswap32(zn_mlx5_eq_doorbell(eq->ci, eq->eqn)),
			 __ATOMIC_RELEASE);
	return true;
}

bool mtc_eq_wait(struct mtc *c, struct mtc_eq *eq, struct zn_mlx5_eqe *out, int timeout_ms)
{
	int64_t end = mtc_now_ms() + timeout_ms;

	do {
		if (mtc_eq_poll(c, eq, out))
			return true;
		spin_pause();
	} while (mtc_now_ms() < end);
	return false;
}

int mtc_create_cq(struct mtc *c, struct mtc_cq *cq, uint32_t uar, uint8_t eqn, unsigned log_sz)
{
	size_t bytes = (size_t)ZN_MLX5_CQE_SIZE << log_sz, npas = (bytes + 4095) / 4096;
	size_t inlen = ZN_MLX5_SZ_CREATE_CQ_IN + 8 * npas;
	uint8_t *in = calloc(1, inlen), out[16];
	uint8_t *cqc = ZN_MLX5_ADDR(in, CREATE_CQ_IN_CQC);
	int rc;

	if (!in)
		abort();
	memset(cq, 0, sizeof(*cq));
	cq->ring = mtc_alloc(c, npas * 4096, 4096);
	cq->dbr = mtc_alloc(c, 64, 64);
	cq->log_sz = log_sz;
	for (size_t i = 0; i < (1u << log_sz); i++)
		cq->ring[i * ZN_MLX5_CQE_SIZE + 63] = ZN_MLX5_CQE_OP_OWN_INIT;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_CQ);
	ZN_MLX5_SET(cqc, CQC_LOG_CQ_SIZE, log_sz);
	ZN_MLX5_SET(cqc, CQC_UAR_PAGE, uar);
	ZN_MLX5_SET(cqc, CQC_C_EQN, eqn);
	ZN_MLX5_SET(cqc, CQC_DBR_ADDR, mtc_iova(c, cq->dbr));
	put_pas(c, in + ZN_MLX5_BYTE_OFF(CREATE_CQ_IN_PAS), cq->ring, bytes);
	rc = mtc_cmd(c, in, inlen, out, sizeof(out), NULL);
	cq->cqn = (uint32_t)ZN_MLX5_GET(out, CREATE_CQ_OUT_CQN);
	free(in);
	return rc;
}

bool mtc_cq_poll(struct mtc_cq *cq, struct zn_mlx5_cqe64 *out)
{
	struct zn_mlx5_cqe64 *e = (void *)(cq->ring + (size_t)(cq->ci & ((1u << cq->log_sz) - 1)) *
							  ZN_MLX5_CQE_SIZE);

	if (!zn_mlx5_cqe_sw_owned((const void *)e, cq->ci, cq->log_sz))
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	memcpy(out, e, sizeof(*out));
	cq->ci++;
	__atomic_store_n(&cq->dbr[ZN_MLX5_CQ_DBR_SET_CI],
			 zn_mlx5_bswap32(cq->ci & ZN_MLX5_CQ_CI_MASK), __ATOMIC_RELEASE);
	return true;
}

bool mtc_cq_wait(struct mtc_cq *cq, struct zn_mlx5_cqe64 *out, int timeout_ms)
{
	int64_t end = mtc_now_ms() + timeout_ms;

	do {
		if (mtc_cq_poll(cq, out))
			return true;
		spin_pause();
	} while (mtc_now_ms() < end);
	return false;
}

void mtc_cq_arm(struct mtc *c, struct mtc_cq *cq, uint32_t uar, unsigned sn)
{
	uint32_t w = zn_mlx5_cq_arm_word(sn, 0, cq->ci);
	uint8_t *db = c->bar0 + (size_t)uar * ZN_MLX5_UAR_PAGE_SIZE + ZN_MLX5_UAR_CQ_DOORBELL;

	__atomic_store_n(&cq->dbr[ZN_MLX5_CQ_DBR_ARM], zn_mlx5_bswap32(w), __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)db, zn_mlx5_bswap64(zn_mlx5_cq_uar_doorbell(w, cq->cqn)),
			 __ATOMIC_RELEASE);
}

/* ---- queues, steering, data path ---- */

int mtc_create_mkey(struct mtc *c, uint32_t pd, const void *va, size_t len, uint32_t *key)
{
	size_t pages = va ? (len + 4095) / 4096 : 0, oct = (pages + 1) / 2;
	size_t inlen = ZN_MLX5_SZ_CREATE_MKEY_IN + 16 * oct;
	uint8_t *in = calloc(1, inlen), out[16];
	uint8_t *mkc = ZN_MLX5_ADDR(in, CREATE_MKEY_IN_MKC);
	int rc;

	if (!in)
		abort();
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_MKEY);
	ZN_MLX5_SET(mkc, MKC_LR, 1);
	ZN_MLX5_SET(mkc, MKC_LW, 1);
	ZN_MLX5_SET(mkc, MKC_QPN, ZN_MLX5_MKC_QPN_NONE);
	/* A PA mkey keeps mkey_7_0 0, as Linux's mlx5e_create_mkey does. */
	ZN_MLX5_SET(mkc, MKC_MKEY_7_0, va ? 0x42 : 0);
	ZN_MLX5_SET(mkc, MKC_PD, pd);
	if (!va) {
		ZN_MLX5_SET(mkc, MKC_ACCESS_MODE_1_0, ZN_MLX5_MKC_ACCESS_MODE_PA);
		ZN_MLX5_SET(mkc, MKC_LENGTH64, 1);
	} else {
		ZN_MLX5_SET(mkc, MKC_ACCESS_MODE_1_0, ZN_MLX5_MKC_ACCESS_MODE_MTT);
		ZN_MLX5_SET(mkc, MKC_START_ADDR, mtc_iova(c, va));
		ZN_MLX5_SET(mkc, MKC_LEN, len);
		ZN_MLX5_SET(mkc, MKC_LOG_PAGE_SIZE, 12);
		ZN_MLX5_SET(mkc, MKC_TRANSLATIONS_OCTWORD_SIZE, oct);
		ZN_MLX5_SET(in, CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE, oct);
		for (size_t i = 0; i < pages; i++)
			zn_mlx5_st_be64(in + ZN_MLX5_BYTE_OFF(CREATE_MKEY_IN_KLM_PAS_MTT) + 8 * i,
					mtc_iova(c, (const uint8_t *)va + 4096 * i) | ZN_MLX5_MTT_READ |
						ZN_MLX5_MTT_WRITE);
	}
	rc = mtc_cmd(c, in, inlen, out, sizeof(out), NULL);
	*key = zn_mlx5_mkey((uint32_t)ZN_MLX5_GET(out, CREATE_MKEY_OUT_MKEY_INDEX), va ? 0x42 : 0);
	free(in);
	return rc;
}

int mtc_create_tis(struct mtc *c, uint32_t td, uint32_t *tisn)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_TIS_IN] = { 0 }, out[16];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_TIS);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, CREATE_TIS_IN_TISC), TISC_TRANSPORT_DOMAIN, td);
	rc = mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL);
	*tisn = (uint32_t)ZN_MLX5_GET(out, CREATE_TIS_OUT_TISN);
	return rc;
}

static void put_ring_pas(struct mtc *c, uint8_t *in, const uint8_t *ring, size_t bytes)
{
	put_pas(c, in + 0x110, ring, bytes);
}

int mtc_create_sq(struct mtc *c, struct mtc_sq *sq, uint32_t uar, uint32_t cqn, uint32_t tisn,
		  uint32_t pd, unsigned log_sz)
{
	size_t bytes = (size_t)ZN_MLX5_SEND_WQE_BB << log_sz, npas = (bytes + 4095) / 4096;
	size_t inlen = ZN_MLX5_SZ_CREATE_SQ_IN + 8 * npas;
	uint8_t *in = calloc(1, inlen), out[16];
	uint8_t *sqc = ZN_MLX5_ADDR(in, CREATE_SQ_IN_SQC), *wq = ZN_MLX5_ADDR(sqc, SQC_WQ);
	int rc;

	if (!in)
		abort();
	memset(sq, 0, sizeof(*sq));
	sq->ring = mtc_alloc(c, npas * 4096, 4096);
	sq->dbr = mtc_alloc(c, 64, 64);
	sq->log_sz = log_sz;
	sq->uar = uar;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_SQ);
	ZN_MLX5_SET(sqc, SQC_CQN, cqn);
	ZN_MLX5_SET(sqc, SQC_TIS_LST_SZ, 1);
	ZN_MLX5_SET(sqc, SQC_TIS_NUM_0, tisn);
	ZN_MLX5_SET(wq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_CYCLIC);
	ZN_MLX5_SET(wq, WQ_PD, pd);
	ZN_MLX5_SET(wq, WQ_UAR_PAGE, uar);
	ZN_MLX5_SET(wq, WQ_DBR_ADDR, mtc_iova(c, sq->dbr));
	ZN_MLX5_SET(wq, WQ_LOG_WQ_STRIDE, ZN_MLX5_SEND_WQE_SHIFT);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_SZ, log_sz);
	put_ring_pas(c, in, sq->ring, bytes);
	rc = mtc_cmd(c, in, inlen, out, sizeof(out), NULL);
	sq->sqn = (uint32_t)ZN_MLX5_GET(out, CREATE_SQ_OUT_SQN);
	free(in);
	return rc;
}

int mtc_modify(struct mtc *c, bool sq, uint32_t num, uint8_t from, uint8_t to)
{
	uint8_t in[ZN_MLX5_SZ_MODIFY_SQ_IN] = { 0 };

	ZN_MLX5_SET(in, IN_OPCODE, sq ? ZN_MLX5_CMD_OP_MODIFY_SQ : ZN_MLX5_CMD_OP_MODIFY_RQ);
	ZN_MLX5_SET(in, MODIFY_SQ_IN_SQ_STATE, from);
	ZN_MLX5_SET(in, MODIFY_SQ_IN_SQN, num);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, MODIFY_SQ_IN_SQC), SQC_STATE, to);
	return mtc_cmd(c, in, sizeof(in), NULL, 0, NULL);
}

uint16_t mtc_send(struct mtc *c, struct mtc_sq *sq, uint32_t lkey, const void *frame, size_t len,
		  size_t inline_hdr, unsigned nseg, uint8_t cs, bool cqe)
{
	uint8_t w[1024] = { 0 };
	struct zn_mlx5_wqe_ctrl *ctl = (void *)w;
	struct zn_mlx5_wqe_eth *eth = (void *)(w + 16);
	const uint8_t *f = frame;
	size_t at, rest = len - inline_hdr, nbb;
	uint16_t idx = sq->pc;
	unsigned ds;
	uint8_t *db, *b;

	eth->cs_flags = cs;
	eth->inline_hdr_sz_be = zn_mlx5_bswap16((uint16_t)inline_hdr);
	memcpy(w + 30, f, inline_hdr);
	at = 32 + (inline_hdr > 2 ? (inline_hdr - 2 + 15) / 16 * 16 : 0);
	if (!sq->bufs) {
		sq->bufs = mtc_alloc(c, (size_t)ZN_SIM_FRAME_MAX << sq->log_sz, 4096);
		if (!sq->bufs)
			abort();
	}
	b = sq->bufs + (size_t)(idx & ((1u << sq->log_sz) - 1)) * ZN_SIM_FRAME_MAX;
	for (unsigned i = 0; i < nseg && rest; i++) {
		struct zn_mlx5_wqe_data *d = (void *)(w + at);
		size_t n = i + 1 == nseg ? rest : rest / (nseg - i);

		memcpy(b, f + len - rest, n);
		d->byte_count_be = zn_mlx5_bswap32((uint32_t)n);
		d->lkey_be = zn_mlx5_bswap32(lkey);
		d->addr_be = zn_mlx5_bswap64(mtc_iova(c, b));
		b += n;
		rest -= n;
		at += 16;
	}
	ds = (unsigned)(at / 16);
	nbb = (at + 63) / 64;
	ctl->opmod_idx_opcode_be = zn_mlx5_bswap32(zn_mlx5_ctrl_opmod_idx_opcode(0, idx,
										  ZN_MLX5_OPCODE_SEND));
	ctl->qpn_ds_be = zn_mlx5_bswap32(zn_mlx5_ctrl_qpn_ds(sq->sqn, ds));
	ctl->fm_ce_se = cqe ? ZN_MLX5_WQE_CTRL_CQ_UPDATE : 0;
	for (size_t i = 0; i < nbb; i++)
		memcpy(sq->ring + (((size_t)sq->pc + i) & ((1u << sq->log_sz) - 1)) * 64, w + 64 * i,
		       64);
	sq->pc = (uint16_t)(sq->pc + nbb);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&sq->dbr[ZN_MLX5_SND_DBR], zn_mlx5_bswap32(sq->pc), __ATOMIC_RELEASE);
	db = c->bar0 + (size_t)sq->uar * ZN_MLX5_UAR_PAGE_SIZE + ZN_MLX5_UAR_BF_OFFSET +
	     sq->bf * ZN_MLX5_UAR_BF_SIZE;
	sq->bf ^= 1;
	{
		uint64_t v;

		memcpy(&v, w, 8);
		__atomic_store_n((uint64_t *)db, v, __ATOMIC_RELEASE);
	}
	return idx;
}

int mtc_create_rq(struct mtc *c, struct mtc_rq *rq, const struct mtc_rq_cfg *cfg, uint32_t cqn,
		  uint32_t pd, uint32_t lkey)
{
	unsigned log_stride = cfg->cyclic && !cfg->cyclic_hdr ? 4 : 5;
	size_t bytes = (size_t)1 << (log_stride + cfg->log_sz), npas = (bytes + 4095) / 4096;
	size_t inlen = ZN_MLX5_SZ_CREATE_RQ_IN + 8 * npas;
	uint8_t *in = calloc(1, inlen), out[16];
	uint8_t *rqc = ZN_MLX5_ADDR(in, CREATE_RQ_IN_RQC), *wq = ZN_MLX5_ADDR(rqc, RQC_WQ);
	unsigned nwqe = 1u << cfg->log_sz;
	int rc;

	if (!in)
		abort();
	memset(rq, 0, sizeof(*rq));
	rq->cfg = *cfg;
	rq->ring = mtc_alloc(c, npas * 4096, 4096);
	rq->dbr = mtc_alloc(c, 64, 64);
	rq->wqe_bytes = cfg->cyclic ? cfg->cyclic_buf
				    : (size_t)1 << (cfg->log_nstrides + cfg->log_stride_sz);
	rq->buf = mtc_alloc(c, rq->wqe_bytes * nwqe, 4096);
	if (!rq->buf)
		abort();
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_RQ);
	ZN_MLX5_SET(rqc, RQC_VSD, 1);
	ZN_MLX5_SET(rqc, RQC_CQN, cqn);
	ZN_MLX5_SET(wq, WQ_PD, pd);
	ZN_MLX5_SET(wq, WQ_DBR_ADDR, mtc_iova(c, rq->dbr));
	ZN_MLX5_SET(wq, WQ_LOG_WQ_STRIDE, log_stride);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_SZ, cfg->log_sz);
	if (cfg->cyclic) {
		ZN_MLX5_SET(wq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_CYCLIC);
	} else {
		ZN_MLX5_SET(wq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_LINKED_LIST_STRIDING);
		ZN_MLX5_SET(wq, WQ_LOG_WQE_NUM_OF_STRIDES,
			    zn_mlx5_mpwqe_num_strides_field((int)cfg->log_nstrides));
		ZN_MLX5_SET(wq, WQ_LOG_WQE_STRIDE_SIZE, cfg->log_stride_sz - 6);
	}
	if (cfg->shampo) {
		unsigned wqe_log = cfg->log_nstrides + cfg->log_stride_sz;
		/* (a reservation above the WQE is the device's to refuse) */
		unsigned hd_per_wqe = (1u << (wqe_log > cfg->log_res ? wqe_log - cfg->log_res : 0))
				      << cfg->log_pkts_per_res;
		unsigned n = hd_per_wqe * nwqe, lg = 0;
		size_t hbytes;

		while ((1u << lg) < n)
			lg++;
		rq->log_hdr_num = lg;
		hbytes = (size_t)1 << (lg + cfg->log_hdr_entry);
		void (*mutate)(uint8_t *, size_t, void *) = c->mutate;

		rq->hdr = mtc_alloc(c, hbytes < 4096 ? 4096 : hbytes, 4096);
		c->mutate = NULL;	/* faults are for the CREATE_RQ */
		if (!rq->hdr || mtc_create_mkey(c, pd, rq->hdr, hbytes, &rq->hdr_key))
			abort();
		c->mutate = mutate;
		ZN_MLX5_SET(wq, WQ_SHAMPO_ENABLE, 1);
		ZN_MLX5_SET(wq, WQ_HEADERS_MKEY, rq->hdr_key);
		ZN_MLX5_SET(wq, WQ_LOG_RESERVATION_SIZE, cfg->log_res - 12);
		ZN_MLX5_SET(wq, WQ_LOG_MAX_NUM_OF_PACKETS_PER_RESERVATION, cfg->log_pkts_per_res);
		ZN_MLX5_SET(wq, WQ_LOG_HEADERS_ENTRY_SIZE, cfg->log_hdr_entry - 6);
		ZN_MLX5_SET(wq, WQ_LOG_HEADERS_BUFFER_ENTRY_NUM, lg);
		ZN_MLX5_SET(rqc, RQC_SHAMPO_MATCH_CRITERIA_TYPE, ZN_MLX5_SHAMPO_MATCH_EXTENDED);
		ZN_MLX5_SET(rqc, RQC_SHAMPO_NO_MATCH_ALIGNMENT_GRANULARITY,
			    ZN_MLX5_SHAMPO_NO_MATCH_ALIGN_STRIDE);
	}
	put_ring_pas(c, in, rq->ring, bytes);
	for (unsigned i = 0; i < nwqe; i++) {
		uint8_t *w = rq->ring + ((size_t)i << log_stride);
		struct zn_mlx5_wqe_data *d = (void *)(cfg->cyclic ? w : w + 16);
		uint8_t *b = rq->buf + i * rq->wqe_bytes;

		if (!cfg->cyclic)
			((struct zn_mlx5_wqe_srq_next *)w)->next_wqe_index_be =
				zn_mlx5_bswap16((uint16_t)((i + 1) % nwqe));
		if (cfg->cyclic && cfg->cyclic_hdr) {
			/* The header slot sits after the payload buffer, so only
			 * a device that fills the segments in order is byte-exact. */
			d->byte_count_be = zn_mlx5_bswap32(cfg->cyclic_hdr);
			d->lkey_be = zn_mlx5_bswap32(lkey);
			d->addr_be = zn_mlx5_bswap64(mtc_iova(c, b + rq->wqe_bytes - cfg->cyclic_hdr));
			d++;
		}
		d->byte_count_be = zn_mlx5_bswap32((uint32_t)rq->wqe_bytes - cfg->cyclic_hdr);
		d->lkey_be = zn_mlx5_bswap32(lkey);
		d->addr_be = zn_mlx5_bswap64(mtc_iova(c, b));
	}
	rc = mtc_cmd(c, in, inlen, out, sizeof(out), NULL);
	rq->rqn = (uint32_t)ZN_MLX5_GET(out, CREATE_RQ_OUT_RQN);
	free(in);
	return rc;
}

void mtc_rq_post(struct mtc *c, struct mtc_rq *rq, unsigned n)
{
	(void)c;
	rq->posted = (uint16_t)(rq->posted + n);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&rq->dbr[ZN_MLX5_RCV_DBR], zn_mlx5_bswap32(rq->posted), __ATOMIC_RELEASE);
}

int mtc_create_tir(struct mtc *c, uint32_t td, bool indirect, uint32_t rqn_or_rqtn,
		   const uint8_t *key, uint32_t selector, uint32_t *tirn)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_TIR_IN] = { 0 }, out[16];
	uint8_t *ctx = ZN_MLX5_ADDR(in, CREATE_TIR_IN_TIRC);
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_TIR);
	ZN_MLX5_SET(ctx, TIRC_TRANSPORT_DOMAIN, td);
	if (indirect) {
		ZN_MLX5_SET(ctx, TIRC_DISP_TYPE, ZN_MLX5_TIRC_DISP_INDIRECT);
		ZN_MLX5_SET(ctx, TIRC_INDIRECT_TABLE, rqn_or_rqtn);
		ZN_MLX5_SET(ctx, TIRC_RX_HASH_FN, ZN_MLX5_RX_HASH_FN_TOEPLITZ);
		if (key)
			memcpy(ZN_MLX5_ADDR(ctx, TIRC_RX_HASH_TOEPLITZ_KEY), key,
			       ZN_MLX5_TOEPLITZ_KEY_SIZE);
		ZN_MLX5_SET(ctx, TIRC_RX_HASH_FIELD_SELECTOR_OUTER, selector);
	} else {
		ZN_MLX5_SET(ctx, TIRC_DISP_TYPE, ZN_MLX5_TIRC_DISP_DIRECT);
		ZN_MLX5_SET(ctx, TIRC_INLINE_RQN, rqn_or_rqtn);
	}
	rc = mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL);
	*tirn = (uint32_t)ZN_MLX5_GET(out, CREATE_TIR_OUT_TIRN);
	return rc;
}

int mtc_create_rqt(struct mtc *c, const uint32_t *rqn, unsigned n, uint32_t *rqtn)
{
	size_t inlen = ZN_MLX5_SZ_CREATE_RQT_IN + 4 * (size_t)n;
	uint8_t *in = calloc(1, inlen), out[16];
	uint8_t *ctx = ZN_MLX5_ADDR(in, CREATE_RQT_IN_RQTC);
	int rc;

	if (!in)
		abort();
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_RQT);
	ZN_MLX5_SET(ctx, RQTC_RQT_MAX_SIZE, n);
	ZN_MLX5_SET(ctx, RQTC_RQT_ACTUAL_SIZE, n);
	for (unsigned i = 0; i < n; i++)
		zn_mlx5_st_be32((uint8_t *)ZN_MLX5_ADDR(ctx, RQTC_RQ_NUM) + 4 * i, rqn[i]);
	rc = mtc_cmd(c, in, inlen, out, sizeof(out), NULL);
	*rqtn = (uint32_t)ZN_MLX5_GET(out, CREATE_RQT_OUT_RQTN);
	free(in);
	return rc;
}

int mtc_create_ft(struct mtc *c, unsigned log_size, uint32_t *id)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_FT_IN] = { 0 }, out[16];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE);
	ZN_MLX5_SET(in, CREATE_FT_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, CREATE_FT_IN_FTC), FTC_LOG_SIZE, log_size);
	rc = mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL);
	*id = (uint32_t)ZN_MLX5_GET(out, CREATE_FT_OUT_TABLE_ID);
	return rc;
}

int mtc_create_fg(struct mtc *c, uint32_t ft, uint32_t start, uint32_t end, const uint8_t *mask,
		  uint32_t *gid)
{
	uint8_t *in = calloc(1, ZN_MLX5_SZ_CREATE_FG_IN), out[16];
	int rc;

	if (!in)
		abort();
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP);
	ZN_MLX5_SET(in, CREATE_FG_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, CREATE_FG_IN_TABLE_ID, ft);
	ZN_MLX5_SET(in, CREATE_FG_IN_START_FLOW_INDEX, start);
	ZN_MLX5_SET(in, CREATE_FG_IN_END_FLOW_INDEX, end);
	if (mask) {
		ZN_MLX5_SET(in, CREATE_FG_IN_MATCH_CRITERIA_ENABLE, ZN_MLX5_MATCH_OUTER_HEADERS);
		memcpy(ZN_MLX5_ADDR(in, CREATE_FG_IN_MATCH_CRITERIA), mask, ZN_MLX5_SZ_MATCH_LYR_2_4);
	}
	rc = mtc_cmd(c, in, ZN_MLX5_SZ_CREATE_FG_IN, out, sizeof(out), NULL);
	*gid = (uint32_t)ZN_MLX5_GET(out, CREATE_FG_OUT_GROUP_ID);
	free(in);
	return rc;
}

int mtc_set_fte(struct mtc *c, uint32_t ft, uint32_t gid, uint32_t index, const uint8_t *value,
		uint32_t tirn, uint32_t flow_tag)
{
	size_t inlen = ZN_MLX5_SZ_SET_FTE_IN + ZN_MLX5_FLOW_DEST_SIZE;
	uint8_t *in = calloc(1, inlen);
	uint8_t *fc = ZN_MLX5_ADDR(in, SET_FTE_IN_FLOW_CONTEXT);
	int rc;

	if (!in)
		abort();
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	ZN_MLX5_SET(in, SET_FTE_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, SET_FTE_IN_TABLE_ID, ft);
	ZN_MLX5_SET(in, SET_FTE_IN_FLOW_INDEX, index);
	ZN_MLX5_SET(fc, FLOW_CTX_GROUP_ID, gid);
	ZN_MLX5_SET(fc, FLOW_CTX_FLOW_TAG, flow_tag);
	if (value)
		memcpy(ZN_MLX5_ADDR(fc, FLOW_CTX_MATCH_VALUE), value, ZN_MLX5_SZ_MATCH_LYR_2_4);
	if (tirn) {
		uint8_t *d = ZN_MLX5_ADDR(fc, FLOW_CTX_DESTINATION);

		ZN_MLX5_SET(fc, FLOW_CTX_ACTION, ZN_MLX5_FLOW_ACTION_FWD_DEST);
		ZN_MLX5_SET(fc, FLOW_CTX_DESTINATION_LIST_SIZE, 1);
		ZN_MLX5_SET(d, DEST_TYPE, ZN_MLX5_FLOW_DEST_TIR);
		ZN_MLX5_SET(d, DEST_ID, tirn);
	} else {
		ZN_MLX5_SET(fc, FLOW_CTX_ACTION, ZN_MLX5_FLOW_ACTION_DROP);
	}
	rc = mtc_cmd(c, in, inlen, NULL, 0, NULL);
	free(in);
	return rc;
}

int mtc_set_root(struct mtc *c, uint32_t ft)
{
	uint8_t in[ZN_MLX5_SZ_SET_FT_ROOT_IN] = { 0 };

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	ZN_MLX5_SET(in, SET_FT_ROOT_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, SET_FT_ROOT_IN_TABLE_ID, ft);
	return mtc_cmd(c, in, sizeof(in), NULL, 0, NULL);
}

/* RFC 1071 sum of big-endian 16-bit words. */
static uint32_t be_sum(uint32_t s, const uint8_t *b, size_t n)
{
	for (; n > 1; n -= 2, b += 2)
		s += zn_mlx5_ld_be16(b);
	if (n)
		s += (uint32_t)b[0] << 8;
	return s;
}

static uint16_t be_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

size_t mtc_frame(uint8_t *f, size_t len, const uint8_t *dmac, const uint8_t sip[4],
		 const uint8_t dip[4], uint16_t sport, uint16_t dport, bool tcp, uint8_t seed)
{
	static const uint8_t smac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	size_t l4h = tcp ? 20 : 8, ip_len = len - 14, l4_len = ip_len - 20;
	uint8_t *ip = f + 14, *l4 = ip + 20;
	uint32_t s;
	uint16_t c;

	memset(f, 0, len);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	zn_mlx5_st_be16(f + 12, 0x0800);
	ip[0] = 0x45;
	zn_mlx5_st_be16(ip + 2, (uint16_t)ip_len);
	ip[8] = 64;
	ip[9] = tcp ? 6 : 17;
	memcpy(ip + 12, sip, 4);
	memcpy(ip + 16, dip, 4);
	zn_mlx5_st_be16(ip + 10, (uint16_t)~be_fold(be_sum(0, ip, 20)));
	zn_mlx5_st_be16(l4, sport);
	zn_mlx5_st_be16(l4 + 2, dport);
	if (tcp) {
		l4[12] = 5 << 4;
		l4[13] = 0x18;
	} else {
		zn_mlx5_st_be16(l4 + 4, (uint16_t)l4_len);
	}
	for (size_t i = l4h; i < l4_len; i++)
		l4[i] = (uint8_t)(seed + 7 * i);
	s = be_sum(0, ip + 12, 8);
	s += (uint32_t)ip[9] + (uint32_t)l4_len;
	s = be_sum(s, l4, l4_len);
	c = (uint16_t)~be_fold(s);
	if (!tcp && c == 0)
		c = 0xffff;
	zn_mlx5_st_be16(l4 + (tcp ? 16 : 6), c);
	return len;
}

/* ---- a whole port ---- */

#define STEP(p, what, expr)                                                     \
	do {                                                                    \
		int rc_ = (expr);                                               \
		if (rc_) {                                                      \
			(p)->failed = (what);                                   \
			return rc_;                                             \
		}                                                               \
	} while (0)

static int port_rx_queues(struct mtc_port *p, const struct mtc_rq_cfg *cfg)
{
	struct mtc *c = &p->c;

	for (unsigned i = 0; i < p->nq; i++) {
		STEP(p, "CREATE_CQ (RX)", mtc_create_cq(c, &p->rxcq[i], p->uar, p->eq.eqn, 10));
		STEP(p, "CREATE_RQ", mtc_create_rq(c, &p->rq[i], cfg, p->rxcq[i].cqn, p->pd, p->key));
		STEP(p, "MODIFY_RQ", mtc_modify(c, false, p->rq[i].rqn, ZN_MLX5_QSTATE_RST,
						ZN_MLX5_QSTATE_RDY));
		mtc_rq_post(c, &p->rq[i], 1u << cfg->log_sz);
		STEP(p, "CREATE_TIR", mtc_create_tir(c, p->td, false, p->rq[i].rqn, NULL, 0,
						     &p->tir[i]));
	}
	return 0;
}

static int port_steering(struct mtc_port *p)
{
	struct mtc *c = &p->c;
	uint8_t mask[ZN_MLX5_SZ_MATCH_LYR_2_4] = { 0 };

	STEP(p, "CREATE_FLOW_TABLE", mtc_create_ft(c, 4, &p->ft));
	ZN_MLX5_SET(mask, L24_IP_PROTOCOL, 0xff);
	ZN_MLX5_SET(mask, L24_UDP_DPORT, 0xffff);
	memset((uint8_t *)ZN_MLX5_ADDR(mask, L24_DST_IP) + 12, 0xff, 4);
	STEP(p, "CREATE_FLOW_GROUP (rules)", mtc_create_fg(c, p->ft, 0, 7, mask, &p->fg_rules));
	STEP(p, "CREATE_FLOW_GROUP (catch-all)",
	     mtc_create_fg(c, p->ft, 15, 15, NULL, &p->fg_default));
	STEP(p, "SET_FLOW_TABLE_ENTRY", mtc_set_fte(c, p->ft, p->fg_default, 15, NULL, p->tir[0],
						    MTC_CATCHALL_TAG));
	STEP(p, "SET_FLOW_TABLE_ROOT", mtc_set_root(c, p->ft));
	return 0;
}

int mtc_port_open(struct mtc_port *p, const char *sock_path, unsigned nq,
		  const struct mtc_rq_cfg *cfg)
{
	struct mtc *c = &p->c;
	uint8_t in[16] = { 0 }, out[ZN_MLX5_SZ_QUERY_NIC_VPORT_OUT];

	memset(p, 0, sizeof(*p));
	if (nq < 1 || nq > MTC_MAX_Q || (!cfg->cyclic && cfg->log_sz > 6))
		return -EINVAL;
	p->nq = nq;
	STEP(p, "open", mtc_open(c, sock_path));
	STEP(p, "boot", mtc_boot(c));
	STEP(p, "bring-up", mtc_bringup(c));
	STEP(p, "ALLOC_UAR", mtc_alloc_uar(c, &p->uar));
	STEP(p, "CREATE_EQ", mtc_create_eq(c, &p->eq, p->uar, 6,
					   1ull << ZN_MLX5_EVENT_PAGE_REQUEST |
						   1ull << ZN_MLX5_EVENT_CQ_ERROR));
	STEP(p, "ALLOC_PD", mtc_alloc_pd(c, &p->pd));
	STEP(p, "ALLOC_TRANSPORT_DOMAIN", mtc_alloc_td(c, &p->td));
	STEP(p, "CREATE_MKEY", mtc_create_mkey(c, p->pd, NULL, 0, &p->key));
	STEP(p, "CREATE_TIS", mtc_create_tis(c, p->td, &p->tis));
	STEP(p, "CREATE_CQ (TX)", mtc_create_cq(c, &p->txcq, p->uar, p->eq.eqn, 8));
	STEP(p, "CREATE_SQ", mtc_create_sq(c, &p->sq, p->uar, p->txcq.cqn, p->tis, p->pd, 8));
	STEP(p, "MODIFY_SQ", mtc_modify(c, true, p->sq.sqn, ZN_MLX5_QSTATE_RST,
					ZN_MLX5_QSTATE_RDY));
	STEP(p, "RX queues", port_rx_queues(p, cfg));
	STEP(p, "steering", port_steering(p));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	STEP(p, "QUERY_NIC_VPORT_CONTEXT", mtc_cmd(c, in, sizeof(in), out, sizeof(out), NULL));
	memcpy(p->mac, (uint8_t *)ZN_MLX5_ADDR(out, QUERY_NIC_VPORT_OUT_CONTEXT) +
			       ZN_MLX5_BYTE_OFF(NIC_VPORT_PERMANENT_ADDRESS) +
			       ZN_MLX5_NIC_VPORT_MAC_OFF_IN_ADDR, 6);
	return 0;
}

int mtc_port_wait_link(struct mtc_port *p)
{
	int64_t end = mtc_now_ms() + MTC_TIMEOUT_MS;

	do {
		uint8_t in[16] = { 0 }, out[16];

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_VPORT_STATE);
		if (mtc_cmd(&p->c, in, sizeof(in), out, sizeof(out), NULL) == 0 &&
		    ZN_MLX5_GET(out, QUERY_VPORT_STATE_OUT_STATE) == ZN_MLX5_VPORT_STATE_UP)
			return 0;
		mtc_sleep_ms(2);
	} while (mtc_now_ms() < end);
	return -ETIMEDOUT;
}

bool mtc_port_rx(struct mtc_port *p, unsigned qi, struct mtc_pkt *pkt, int timeout_ms)
{
	struct mtc_rq *rq = &p->rq[qi];
	unsigned nstr = 1u << rq->cfg.log_nstrides;

	for (;;) {
		uint32_t bc, wqe;
		size_t pay;

		if (!mtc_cq_wait(&p->rxcq[qi], &pkt->cqe, timeout_ms) ||
		    zn_mlx5_cqe_opcode(&pkt->cqe) != ZN_MLX5_CQE_RESP_SEND)
			return false;
		bc = zn_mlx5_bswap32(pkt->cqe.byte_cnt_be);
		if (rq->cfg.cyclic) {
			wqe = zn_mlx5_bswap16(pkt->cqe.wqe_counter_be) & ((1u << rq->cfg.log_sz) - 1);
			if (bc > rq->wqe_bytes)
				return false;
			pkt->len = bc;
			pkt->hsz = 0;
			pkt->strides = 0;
			if (rq->cfg.cyclic_hdr) {
				size_t h = bc < rq->cfg.cyclic_hdr ? bc : rq->cfg.cyclic_hdr;
				const uint8_t *b = rq->buf + wqe * rq->wqe_bytes;

				memcpy(pkt->data, b + rq->wqe_bytes - rq->cfg.cyclic_hdr, h);
				memcpy(pkt->data + h, b, bc - h);
			} else {
				memcpy(pkt->data, rq->buf + wqe * rq->wqe_bytes, bc);
			}
			mtc_rq_post(&p->c, rq, 1);
			return true;
		}
		wqe = zn_mlx5_bswap16(pkt->cqe.wqe_id_be);
		pkt->strides = (bc >> ZN_MLX5_MPWRQ_STRIDES_SHIFT) & ZN_MLX5_MPWRQ_STRIDES_MASK;
		if (wqe >= (1u << rq->cfg.log_sz) || p->strides_used[qi][wqe] + pkt->strides > nstr)
			return false;
		p->strides_used[qi][wqe] += pkt->strides;
		if (p->strides_used[qi][wqe] == nstr) {
			p->strides_used[qi][wqe] = 0;
			mtc_rq_post(&p->c, rq, 1);
		}
		if (bc & ZN_MLX5_MPWRQ_FILLER_CQE) {
			p->fillers++;
			continue;
		}
		pkt->len = bc & ZN_MLX5_MPWRQ_LEN_MASK;
		pkt->hsz = pkt->cqe.shampo.header_size;
		if (pkt->hsz > pkt->len || pkt->len > sizeof(pkt->data))
			return false;
		if (pkt->hsz) {
			unsigned h = zn_mlx5_bswap16(pkt->cqe.shampo.header_entry_index_be) &
				     ((1u << rq->log_hdr_num) - 1);

			memcpy(pkt->data, rq->hdr + ((size_t)h << rq->cfg.log_hdr_entry), pkt->hsz);
		}
		pay = pkt->len - pkt->hsz;
		if (zn_mlx5_bswap32(pkt->cqe.shampo.data_offset_be) + pay > rq->wqe_bytes)
			return false;
		memcpy(pkt->data + pkt->hsz,
		       rq->buf + wqe * rq->wqe_bytes + zn_mlx5_bswap32(pkt->cqe.shampo.data_offset_be),
		       pay);
		return true;
	}
}
