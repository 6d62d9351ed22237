/* SPDX-License-Identifier: MIT */
/*
 * What the drivers' fake-device tests share: a payload provider over
 * malloc'd memory (IOVA = VA) with exact accounting, and captured log
 * lines for message assertions. Included by the fakes (bnxt_fake.h,
 * mlx5_fake.h); static functions.
 */
#ifndef ZN_TEST_FAKE_PROV_H
#define ZN_TEST_FAKE_PROV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcnic/log.h"
#include "zcnic/port.h"

#ifndef FAKE_STATIC
#define FAKE_STATIC static __attribute__((unused))
#endif

/* A payload provider over malloc'd memory (IOVA = VA), with exact accounting. */
#define FAKE_PROV_MAX 4096
struct fake_prov {
	struct zn_buf_provider prov;
	uint8_t *mem;
	uint32_t count, top;
	uint32_t stack[FAKE_PROV_MAX];
	uint8_t out[FAKE_PROV_MAX];	/* 1: handed out */
	uint32_t puts, double_puts;
	uint32_t limit;			/* hand out at most this many in all (0: no limit) */
	uint32_t given;
};

FAKE_STATIC uint32_t fake_prov_alloc(void *ctx, struct zn_buf *bufs, uint32_t n)
{
	struct fake_prov *fp = ctx;
	uint32_t i;

	for (i = 0; i < n && fp->top; i++) {
		uint32_t id;

		if (fp->limit && fp->given >= fp->limit)
			break;
		id = fp->stack[--fp->top];
		fp->out[id] = 1;
		fp->given++;
		bufs[i].id = id;
		bufs[i].va = fp->mem + (size_t)id * fp->prov.buf_size;
		bufs[i].iova = (uint64_t)(uintptr_t)bufs[i].va;
	}
	return i;
}

FAKE_STATIC void fake_prov_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct fake_prov *fp = ctx;

	for (uint32_t i = 0; i < n; i++) {
		fp->puts++;
		if (ids[i] >= fp->count || !fp->out[ids[i]]) {
			fp->double_puts++;
			continue;
		}
		fp->out[ids[i]] = 0;
		fp->stack[fp->top++] = ids[i];
	}
}

FAKE_STATIC struct fake_prov *fake_prov_new(uint32_t count, uint32_t buf_size)
{
	struct fake_prov *fp = calloc(1, sizeof(*fp));

	if (!fp || count > FAKE_PROV_MAX)
		return NULL;
	fp->mem = calloc(count, buf_size);
	fp->count = count;
	for (uint32_t i = 0; i < count; i++)
		fp->stack[fp->top++] = count - 1 - i;
	fp->prov.buf_size = buf_size;
	fp->prov.alloc = fake_prov_alloc;
	fp->prov.put = fake_prov_put;
	fp->prov.ctx = fp;
	return fp;
}

FAKE_STATIC void fake_prov_free(struct fake_prov *fp)
{
	if (!fp)
		return;
	free(fp->mem);
	free(fp);
}

/* Buffers handed out and not given back. */
FAKE_STATIC uint32_t fake_prov_held(const struct fake_prov *fp)
{
	return fp->count - fp->top;
}

/* Captured log lines. */
#define FAKE_LOGS 64
FAKE_STATIC struct {
	unsigned n;
	char line[FAKE_LOGS][512];
} fake_logs;

FAKE_STATIC void fake_log_sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)level;
	(void)comp;
	(void)arg;
	if (fake_logs.n < FAKE_LOGS)
		snprintf(fake_logs.line[fake_logs.n++], sizeof(fake_logs.line[0]), "%s", msg);
}

FAKE_STATIC void fake_logs_start(void)
{
	fake_logs.n = 0;
	zn_log_set_sink(fake_log_sink, NULL);
}

FAKE_STATIC bool fake_logs_have(const char *needle)
{
	for (unsigned i = 0; i < fake_logs.n; i++)
		if (strstr(fake_logs.line[i], needle))
			return true;
	return false;
}

#endif
