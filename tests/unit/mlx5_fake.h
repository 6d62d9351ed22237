/* SPDX-License-Identifier: MIT */
/*
 * A fake ConnectX function behind a fake bus, for the mlx5 driver's unit
 * tests. BAR0 is plain memory reached through trapped region reads/writes;
 * a write of the command doorbell (0x18) executes slot 0 at once, as
 * hw-docs/mlx5.md §5 describes: it reads the entry and the input mailbox
 * chain from DMA memory (IOVA = VA), checks block numbers and tokens,
 * answers the command, writes the output (inline + output chain) and hands
 * the slot back. It keeps a log of every command and can misbehave on
 * request: a status + syndrome, a delivery status, no answer at all.
 * Page supply is modelled: QUERY_PAGES answers what the test asks for,
 * MANAGE_PAGES GIVE/TAKE keep a set of held pages. Included by one test
 * file each (static functions).
 */
#ifndef ZN_TEST_MLX5_FAKE_H
#define ZN_TEST_MLX5_FAKE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mlx5/mlx5.h"
#include "fake_prov.h"
#include "zcnic/bus.h"
#include "zcnic/log.h"

#define FAKE_STATIC static __attribute__((unused))

#define FAKE_BAR0_SIZE		0x10000
#define FAKE_LOG_MAX		256
#define FAKE_MSG_MAX		MLX5_CMD_MAX_MSG
#define FAKE_PAGES_MAX		1024

struct fake_cmd {
	uint16_t opcode, op_mod;
	uint32_t inlen, outlen;
	uint8_t token;
	uint32_t nin_blocks;
};

struct fake_mlx5 {
	struct zn_bus_dev dev;
	uint8_t bar0[FAKE_BAR0_SIZE];
	uint32_t doorbells;
	uint32_t resets;		/* function resets the driver asked for */
	/* misbehaviour for the next command whose opcode matches (0: any) */
	uint16_t mis_op;
	uint8_t mis_status;
	uint32_t mis_syndrome;
	uint8_t mis_dstat;
	bool mis_silent;
	unsigned mis_count;		/* how many commands it applies to */
	/* page supply */
	int32_t want_pages[4];		/* QUERY_PAGES answer per op_mod */
	uint64_t held[FAKE_PAGES_MAX];
	uint32_t nheld;
	uint64_t pages_given, pages_taken, bad_gives;
	/* the last command's input and the output it will write */
	uint8_t in[FAKE_MSG_MAX];
	uint8_t out_pattern_seed;	/* QUERY_HCA_CAP output bytes */
	uint32_t next_id;
	unsigned nlog;
	struct fake_cmd log[FAKE_LOG_MAX];
};

FAKE_STATIC struct fake_mlx5 *fake_of(struct zn_bus_dev *d)
{
	return (struct fake_mlx5 *)d;
}

FAKE_STATIC void fake_iseg_set(struct fake_mlx5 *f, uint32_t off, uint32_t v)
{
	zn_mlx5_st_be32(f->bar0 + off, v);
}

static uint8_t fake_pattern(uint8_t seed, uint32_t i)
{
	return (uint8_t)(seed + i * 7 + (i >> 8));
}

/* Answer one command; returns the command status (output byte 0). */
static uint8_t fake_answer(struct fake_mlx5 *f, const uint8_t *in, uint32_t inlen, uint8_t *out,
			   uint32_t outlen)
{
	uint16_t op = (uint16_t)ZN_MLX5_GET(in, IN_OPCODE);
	uint16_t op_mod = (uint16_t)ZN_MLX5_GET(in, IN_OP_MOD);

	switch (op) {
	case ZN_MLX5_CMD_OP_QUERY_HCA_CAP:
		for (uint32_t i = 16; i < outlen; i++)
			out[i] = fake_pattern(f->out_pattern_seed, i);
		return 0;
	case ZN_MLX5_CMD_OP_QUERY_PAGES:
		ZN_MLX5_SET(out, QUERY_PAGES_OUT_NUM_PAGES, (uint32_t)f->want_pages[op_mod & 3]);
		return 0;
	case ZN_MLX5_CMD_OP_MANAGE_PAGES: {
		uint32_t n = (uint32_t)ZN_MLX5_GET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES);

		if (op_mod == ZN_MLX5_PAGES_GIVE) {
			if (inlen < 16 + 8 * n || f->nheld + n > FAKE_PAGES_MAX)
				return ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR;
			for (uint32_t i = 0; i < n; i++) {
				uint64_t a = zn_mlx5_ld_be64(in + 16 + 8 * i);

				if (!a || a & 0xfff) {
					f->bad_gives++;
					return ZN_MLX5_CMD_STAT_BAD_PARAM_ERR;
				}
				for (uint32_t j = 0; j < f->nheld; j++)
					if (f->held[j] == a) {
						f->bad_gives++;
						return ZN_MLX5_CMD_STAT_BAD_PARAM_ERR;
					}
			}
			for (uint32_t i = 0; i < n; i++)
				f->held[f->nheld++] = zn_mlx5_ld_be64(in + 16 + 8 * i);
			f->pages_given += n;
			return 0;
		}
		if (op_mod == ZN_MLX5_PAGES_TAKE) {
			uint32_t k = 0;

			if (!n)
				return ZN_MLX5_CMD_STAT_BAD_PARAM_ERR;
			if (outlen < 16 + 8 * n)
				return ZN_MLX5_CMD_STAT_BAD_OUTP_LEN_ERR;
			while (k < n && f->nheld) {
				zn_mlx5_st_be64(out + 16 + 8 * k, f->held[--f->nheld]);
				k++;
			}
			ZN_MLX5_SET(out, MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES, k);
			f->pages_taken += k;
			return 0;
		}
		return ZN_MLX5_CMD_STAT_BAD_OP_ERR;
	}
	default:
		/* Every other command "creates" object next_id (dword 0x08 [23:0]). */
		zn_mlx5_st_be32(out + 8, f->next_id++);
		return 0;
	}
}

/* §5.1: execute slot 0 as the device. */
static void fake_doorbell(struct fake_mlx5 *f)
{
	struct zn_mlx5_cmd_entry *e;
	uint64_t cmdq = (uint64_t)zn_mlx5_ld_be32(f->bar0 + ZN_MLX5_ISEG_CMDQ_ADDR_H) << 32 |
			(zn_mlx5_ld_be32(f->bar0 + ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ) & 0xfffff000u);
	static uint8_t out[FAKE_MSG_MAX];
	uint32_t inlen, outlen, nblk = 0;
	uint8_t dstat = 0, status;
	struct fake_cmd *lg;
	bool mis;
	uint64_t p;

	f->doorbells++;
	e = (struct zn_mlx5_cmd_entry *)(uintptr_t)cmdq;
	inlen = zn_mlx5_bswap32(e->inlen_be);
	outlen = zn_mlx5_bswap32(e->outlen_be);
	if (e->type != ZN_MLX5_CMD_TYPE_PCIE)
		dstat = ZN_MLX5_DSTAT_CMD_DESC_TYPE;
	if (inlen > FAKE_MSG_MAX || outlen > FAKE_MSG_MAX)
		dstat = ZN_MLX5_DSTAT_IN_LENGTH_ERR;
	memset(f->in, 0, sizeof(f->in));
	if (!dstat) {
		memcpy(f->in, e->in, inlen < 16 ? inlen : 16);
		p = zn_mlx5_bswap64(e->in_ptr_be);
		for (uint32_t off = 16; off < inlen && !dstat; off += 512, nblk++) {
			const struct zn_mlx5_cmd_mbox *b = (const void *)(uintptr_t)p;

			if (!p || p & 0x3ff)
				dstat = ZN_MLX5_DSTAT_IN_PTR_ALIGN;
			else if (b->token != e->token)
				dstat = ZN_MLX5_DSTAT_TOK_ERR;
			else if (zn_mlx5_bswap32(b->block_num_be) != nblk)
				dstat = ZN_MLX5_DSTAT_BAD_BLK_NUM;
			else {
				memcpy(f->in + off, b->data, inlen - off < 512 ? inlen - off : 512);
				p = zn_mlx5_bswap64(b->next_be);
			}
		}
	}
	if (f->nlog < FAKE_LOG_MAX) {
		lg = &f->log[f->nlog++];
		lg->opcode = (uint16_t)ZN_MLX5_GET(f->in, IN_OPCODE);
		lg->op_mod = (uint16_t)ZN_MLX5_GET(f->in, IN_OP_MOD);
		lg->inlen = inlen;
		lg->outlen = outlen;
		lg->token = e->token;
		lg->nin_blocks = nblk;
	}
	mis = f->mis_count && (!f->mis_op || f->mis_op == ZN_MLX5_GET(f->in, IN_OPCODE));
	if (mis) {
		f->mis_count--;
		if (f->mis_silent)
			return;			/* the slot stays the device's */
		if (f->mis_dstat)
			dstat = f->mis_dstat;
	}
	memset(out, 0, sizeof(out));
	if (!dstat) {
		status = fake_answer(f, f->in, inlen, out, outlen);
		if (mis && f->mis_status) {
			status = f->mis_status;
			ZN_MLX5_SET(out, OUT_SYNDROME, f->mis_syndrome);
		}
		out[0] = status;
		memcpy(e->out, out, 16);
		p = zn_mlx5_bswap64(e->out_ptr_be);
		for (uint32_t off = 16, k = 0; off < outlen; off += 512, k++) {
			struct zn_mlx5_cmd_mbox *b = (void *)(uintptr_t)p;

			if (!p || b->token != e->token || zn_mlx5_bswap32(b->block_num_be) != k) {
				dstat = ZN_MLX5_DSTAT_OUT_PTR_ALIGN;
				break;
			}
			memcpy(b->data, out + off, outlen - off < 512 ? outlen - off : 512);
			p = zn_mlx5_bswap64(b->next_be);
		}
	}
	__atomic_store_n(&e->status_own, (uint8_t)(dstat << 1), __ATOMIC_RELEASE);
}

FAKE_STATIC int fake_region_write(struct zn_bus_dev *d, uint32_t index, uint64_t off,
				  const void *buf, size_t len)
{
	struct fake_mlx5 *f = fake_of(d);

	if (index == ZN_BUS_CONFIG)
		return 0;
	if (index != 0 || off + len > FAKE_BAR0_SIZE)
		return -EINVAL;
	memcpy(f->bar0 + off, buf, len);
	if (off == ZN_MLX5_ISEG_CMD_DBELL && len == 4 && zn_mlx5_ld_be32(f->bar0 + off) & 1)
		fake_doorbell(f);
	return 0;
}

FAKE_STATIC int fake_region_read(struct zn_bus_dev *d, uint32_t index, uint64_t off, void *buf,
				 size_t len)
{
	struct fake_mlx5 *f = fake_of(d);
	static const uint16_t ids[2] = { 0x15b3, 0x101d };

	memset(buf, 0, len);
	if (index == ZN_BUS_CONFIG) {
		if (off == 0 && len >= 2)
			memcpy(buf, &ids[0], 2);
		else if (off == 2 && len >= 2)
			memcpy(buf, &ids[1], 2);
		return 0;
	}
	if (index != 0 || off + len > FAKE_BAR0_SIZE)
		return -EINVAL;
	memcpy(buf, f->bar0 + off, len);
	return 0;
}

FAKE_STATIC int fake_region_info(struct zn_bus_dev *d, uint32_t index, struct zn_region_info *info)
{
	(void)d;
	memset(info, 0, sizeof(*info));
	info->index = index;
	info->flags = ZN_REGION_F_READ | ZN_REGION_F_WRITE;
	info->size = index == 0 ? FAKE_BAR0_SIZE : 0;
	return 0;
}

FAKE_STATIC int fake_map_region(struct zn_bus_dev *d, uint32_t index, void **va)
{
	(void)d;
	(void)index;
	(void)va;
	return -EINVAL;		/* everything is trapped */
}

FAKE_STATIC int fake_dma(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	(void)d;
	(void)r;
	return 0;
}

/* A function reset: the device forgets the command queue address (§4 step 4). */
FAKE_STATIC int fake_reset(struct zn_bus_dev *d)
{
	struct fake_mlx5 *f = fake_of(d);

	f->resets++;
	fake_iseg_set(f, ZN_MLX5_ISEG_CMDQ_ADDR_H, 0);
	fake_iseg_set(f, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, 5u << 4 | 6u);
	return 0;
}

FAKE_STATIC const struct zn_bus_ops fake_bus_ops = {
	.reset = fake_reset,
	.name = "fake-mlx5",
	.get_region_info = fake_region_info,
	.map_region = fake_map_region,
	.region_read = fake_region_read,
	.region_write = fake_region_write,
	.dma_map = fake_dma,
	.dma_unmap = fake_dma,
};

FAKE_STATIC struct fake_mlx5 *fake_new(void)
{
	struct fake_mlx5 *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->dev.ops = &fake_bus_ops;
	snprintf(f->dev.name, sizeof(f->dev.name), "fake-cx0");
	/* §3: 32 slots of 64 bytes, interface revision 5, firmware 22.40.1000. */
	fake_iseg_set(f, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, 5u << 4 | 6u);
	fake_iseg_set(f, ZN_MLX5_ISEG_CMDIF_REV_FW_SUB, 5u << 16 | 1000);
	fake_iseg_set(f, ZN_MLX5_ISEG_FW_REV, 40u << 16 | 22);
	f->next_id = 1;
	return f;
}

/* A driver instance over the fake with its command queue set up. */
FAKE_STATIC struct mlx5 *fake_driver(struct fake_mlx5 *f)
{
	struct mlx5 *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->bus = &f->dev;
	snprintf(m->name, sizeof(m->name), "mlx5 fake-cx0");
	if (zn_mlx5_cmdq_init(m) < 0) {
		free(m);
		return NULL;
	}
	m->health_next_ms = UINT64_MAX;	/* the fake's counter never moves */
	return m;
}

FAKE_STATIC void fake_driver_free(struct mlx5 *m)
{
	if (m->cmd_ops)
		m->cmd_ops->fini(m);
	zn_mlx5_pages_free(m);
	free(m);
}

/* A CMocka fixture: a fake device and a driver on it, logs captured. The
 * including test has <cmocka.h> in scope. */
struct fake_ctx {
	struct fake_mlx5 *f;
	struct mlx5 *m;
};

FAKE_STATIC int fake_setup(void **state)
{
	struct fake_ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->f = fake_new();
	assert_non_null(c->f);
	c->m = fake_driver(c->f);
	assert_non_null(c->m);
	fake_logs_start();
	*state = c;
	return 0;
}

FAKE_STATIC int fake_teardown(void **state)
{
	struct fake_ctx *c = *state;

	fake_driver_free(c->m);
	free(c->f);
	free(c);
	zn_log_set_sink(NULL, NULL);
	return 0;
}

#endif
