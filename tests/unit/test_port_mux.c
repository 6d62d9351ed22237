/*
 * core/port's provider mux on its own (no driver): ids tagged per slot and
 * routed back on put and va, counts per provider exact, detached() once and
 * only after the last buffer came back, slots reused, -EBUSY when all are
 * taken, -EINVAL for a buffer size mismatch, batches kept as batches,
 * stray ids refused without reaching a provider.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/port/port_mux.h"
#include "zcnic/log.h"

#define NB	100	/* buffers per test provider */
#define BSZ	2048

struct tp {
	struct zn_buf_provider p;
	uint32_t base;			/* ids are base + index: tells providers apart */
	uint8_t out[NB];
	uint32_t nout, allocs, alloc_calls, put_calls, bad_put, detached;
	uint32_t nout_at_detach;
	uint8_t mem[NB];		/* one byte per buffer stands for its memory */
};

static uint32_t tp_alloc(void *ctx, struct zn_buf *b, uint32_t n)
{
	struct tp *t = ctx;
	uint32_t i = 0;

	t->alloc_calls++;
	for (uint32_t k = 0; k < NB && i < n; k++) {
		if (t->out[k])
			continue;
		t->out[k] = 1;
		b[i].id = t->base + k;
		b[i].va = &t->mem[k];
		b[i].iova = 0x1000u * (t->base + k);
		i++;
	}
	t->nout += i;
	t->allocs += i;
	return i;
}

static void tp_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct tp *t = ctx;

	t->put_calls++;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = ids[i] - t->base;

		if (ids[i] < t->base || k >= NB || !t->out[k]) {
			t->bad_put++;
			continue;
		}
		t->out[k] = 0;
		t->nout--;
	}
}

static uint8_t *tp_va(void *ctx, uint32_t id)
{
	struct tp *t = ctx;

	return id >= t->base && id - t->base < NB ? &t->mem[id - t->base] : NULL;
}

static void tp_detached(void *ctx)
{
	struct tp *t = ctx;

	t->detached++;
	t->nout_at_detach = t->nout;
}

static void tp_init(struct tp *t, uint32_t base)
{
	memset(t, 0, sizeof(*t));
	t->base = base;
	t->p = (struct zn_buf_provider){ .buf_size = BSZ, .alloc = tp_alloc, .put = tp_put,
					 .ctx = t, .va = tp_va, .detached = tp_detached };
	for (uint32_t k = 0; k < NB; k++)
		t->mem[k] = (uint8_t)(base + k);
}

static int nlog;
static char last[512];

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)level;
	(void)comp;
	(void)arg;
	nlog++;
	snprintf(last, sizeof(last), "%s", msg);
}

static int setup(void **state)
{
	(void)state;
	nlog = 0;
	zn_log_set_sink(sink, NULL);
	return zn_log_configure("info");
}

static int teardown(void **state)
{
	(void)state;
	zn_log_set_sink(NULL, NULL);
	return zn_log_configure("");
}

static uint32_t mx_alloc(struct zn_port_mux *m, struct zn_buf *b, uint32_t n)
{
	const struct zn_buf_provider *p = zn_port_mux_provider(m);

	return p->alloc(p->ctx, b, n);
}

static void mx_put(struct zn_port_mux *m, const uint32_t *ids, uint32_t n)
{
	const struct zn_buf_provider *p = zn_port_mux_provider(m);

	p->put(p->ctx, ids, n);
}

static uint8_t *mx_va(struct zn_port_mux *m, uint32_t id)
{
	const struct zn_buf_provider *p = zn_port_mux_provider(m);

	return p->va(p->ctx, id);
}

static void test_base_untagged(void **state)
{
	struct zn_port_mux *m;
	struct tp base;
	struct zn_buf b[8];
	uint32_t ids[8];

	(void)state;
	tp_init(&base, 0);
	base.p.detached = NULL;
	assert_int_equal(zn_port_mux_create(&base.p, &m), 0);
	assert_int_equal(zn_port_mux_provider(m)->buf_size, BSZ);
	assert_int_equal(mx_alloc(m, b, 8), 8);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(b[i].id, i);	/* as the base gave them */
		assert_ptr_equal(mx_va(m, b[i].id), &base.mem[i]);
		ids[i] = b[i].id;
	}
	assert_int_equal(zn_port_mux_out(m, &base.p), 0);	/* the base is not counted */
	mx_put(m, ids, 8);
	assert_int_equal(base.put_calls, 1);	/* one batch, one call */
	assert_int_equal(base.nout, 0);
	assert_int_equal(base.bad_put, 0);
	assert_int_equal(zn_port_mux_set(m, NULL), 0);	/* already current: nothing */
	assert_int_equal(zn_port_mux_set(m, &base.p), 0);
	zn_port_mux_destroy(m);
	assert_int_equal(base.put_calls, 1);
	assert_int_equal(nlog, 0);
}

static void test_swap_route_detach(void **state)
{
	struct zn_port_mux *m;
	struct tp base, a;
	struct zn_buf b[16];
	uint32_t pool_ids[4], a_ids[10], mixed[6];
	uint32_t tag;

	(void)state;
	tp_init(&base, 0);
	tp_init(&a, 1000);
	assert_int_equal(zn_port_mux_create(&base.p, &m), 0);
	assert_int_equal(mx_alloc(m, b, 4), 4);
	for (uint32_t i = 0; i < 4; i++)
		pool_ids[i] = b[i].id;

	assert_int_equal(zn_port_mux_set(m, &a.p), 0);
	assert_int_equal(mx_alloc(m, b, 10), 10);
	assert_int_equal(a.alloc_calls, 1);
	assert_int_equal(base.allocs, 4);	/* nothing more from the base */
	tag = b[0].id >> ZN_BUF_ID_BITS;
	assert_true(tag >= 1 && tag < ZN_PORT_MUX_SLOTS);
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(b[i].id >> ZN_BUF_ID_BITS, tag);
		assert_int_equal(b[i].id & ZN_BUF_ID_MASK, 1000 + i);
		assert_ptr_equal(b[i].va, &a.mem[i]);	/* va and iova untouched */
		assert_int_equal(b[i].iova, 0x1000u * (1000 + i));
		assert_ptr_equal(mx_va(m, b[i].id), &a.mem[i]);
		a_ids[i] = b[i].id;
	}
	assert_int_equal(zn_port_mux_out(m, &a.p), 10);
	/* the base's ids still route to the base */
	assert_ptr_equal(mx_va(m, pool_ids[2]), &base.mem[2]);

	/* a mixed batch: 2 base, 3 a, 1 base -> three provider calls */
	mixed[0] = pool_ids[0];
	mixed[1] = pool_ids[1];
	mixed[2] = a_ids[0];
	mixed[3] = a_ids[1];
	mixed[4] = a_ids[2];
	mixed[5] = pool_ids[2];
	mx_put(m, mixed, 6);
	assert_int_equal(base.put_calls, 2);
	assert_int_equal(a.put_calls, 1);
	assert_int_equal(base.nout, 1);
	assert_int_equal(a.nout, 7);
	assert_int_equal(zn_port_mux_out(m, &a.p), 7);

	/* back to the base: a is detached but holds 7 */
	assert_int_equal(zn_port_mux_set(m, NULL), 0);
	assert_int_equal(a.detached, 0);
	assert_int_equal(mx_alloc(m, b, 2), 2);
	assert_int_equal(b[0].id >> ZN_BUF_ID_BITS, 0);
	assert_int_equal(a.alloc_calls, 1);
	/* a's buffers still read and route while it is detached */
	assert_ptr_equal(mx_va(m, a_ids[5]), &a.mem[5]);
	mx_put(m, &a_ids[3], 6);
	assert_int_equal(a.detached, 0);
	assert_int_equal(zn_port_mux_out(m, &a.p), 1);
	mx_put(m, &a_ids[9], 1);	/* the last one */
	assert_int_equal(a.detached, 1);
	assert_int_equal(a.nout_at_detach, 0);
	assert_int_equal(a.bad_put, 0);
	assert_int_equal(zn_port_mux_out(m, &a.p), 0);
	/* a stray id of the freed slot reaches nobody */
	nlog = 0;
	mx_put(m, &a_ids[9], 1);
	assert_int_equal(a.put_calls, 3);
	assert_int_equal(a.bad_put, 0);
	assert_int_equal(nlog, 1);
	assert_non_null(strstr(last, "no provider"));
	assert_null(mx_va(m, a_ids[0]));
	zn_port_mux_destroy(m);
	assert_int_equal(a.detached, 1);	/* exactly once */
	assert_int_equal(base.detached, 0);	/* the base is never detached */
}

static void test_detach_immediately_when_none_out(void **state)
{
	struct zn_port_mux *m;
	struct tp base, a, b2;

	(void)state;
	tp_init(&base, 0);
	tp_init(&a, 100);
	tp_init(&b2, 200);
	assert_int_equal(zn_port_mux_create(&base.p, &m), 0);
	assert_int_equal(zn_port_mux_set(m, &a.p), 0);
	assert_int_equal(zn_port_mux_set(m, &a.p), 0);	/* same: nothing */
	assert_int_equal(a.detached, 0);
	assert_int_equal(zn_port_mux_set(m, &b2.p), 0);	/* a had nothing out */
	assert_int_equal(a.detached, 1);
	assert_int_equal(b2.detached, 0);
	zn_port_mux_destroy(m);	/* b2 is current: detached at destroy */
	assert_int_equal(b2.detached, 1);
	assert_int_equal(a.detached, 1);
}

static void test_revive_detached(void **state)
{
	struct zn_port_mux *m;
	struct tp base, a;
	struct zn_buf b[4];
	uint32_t ids[4], tag;

	(void)state;
	tp_init(&base, 0);
	tp_init(&a, 100);
	assert_int_equal(zn_port_mux_create(&base.p, &m), 0);
	assert_int_equal(zn_port_mux_set(m, &a.p), 0);
	assert_int_equal(mx_alloc(m, b, 3), 3);
	tag = b[0].id >> ZN_BUF_ID_BITS;
	for (uint32_t i = 0; i < 3; i++)
		ids[i] = b[i].id;
	assert_int_equal(zn_port_mux_set(m, NULL), 0);
	assert_int_equal(zn_port_mux_set(m, &a.p), 0);	/* back before its buffers returned */
	mx_put(m, ids, 3);
	assert_int_equal(a.detached, 0);	/* current again: not detached */
	assert_int_equal(mx_alloc(m, b, 1), 1);
	assert_int_equal(b[0].id >> ZN_BUF_ID_BITS, tag);	/* same slot */
	ids[3] = b[0].id;
	zn_port_mux_destroy(m);	/* with one still out: detached anyway */
	assert_int_equal(a.detached, 1);
	assert_int_equal(a.nout_at_detach, 1);
}

static void test_slots_busy_and_reused(void **state)
{
	static struct tp base, t[ZN_PORT_MUX_SLOTS + 1];
	struct zn_port_mux *m;
	uint32_t held[ZN_PORT_MUX_SLOTS];
	struct zn_buf b;

	(void)state;
	tp_init(&base, 0);
	assert_int_equal(zn_port_mux_create(&base.p, &m), 0);
	/* every external slot holds a detached provider with one buffer out */
	for (uint32_t i = 0; i < ZN_PORT_MUX_SLOTS - 1; i++) {
		tp_init(&t[i], 100 * (i + 1));
		assert_int_equal(zn_port_mux_set(m, &t[i].p), 0);
		assert_int_equal(mx_alloc(m, &b, 1), 1);
		held[i] = b.id;
	}
	assert_int_equal(zn_port_mux_set(m, NULL), 0);
	tp_init(&t[ZN_PORT_MUX_SLOTS - 1], 5000);
	assert_int_equal(zn_port_mux_set(m, &t[ZN_PORT_MUX_SLOTS - 1].p), -EBUSY);
	/* one comes back: its slot frees and is reused */
	mx_put(m, &held[4], 1);
	assert_int_equal(t[4].detached, 1);
	assert_int_equal(zn_port_mux_set(m, &t[ZN_PORT_MUX_SLOTS - 1].p), 0);
	assert_int_equal(mx_alloc(m, &b, 1), 1);
	assert_int_equal(b.id >> ZN_BUF_ID_BITS, held[4] >> ZN_BUF_ID_BITS);
	assert_int_equal(b.id & ZN_BUF_ID_MASK, 5000);
	/* the others still route to their own provider */
	for (uint32_t i = 0; i < ZN_PORT_MUX_SLOTS - 1; i++)
		if (i != 4)
			assert_ptr_equal(mx_va(m, held[i]), &t[i].mem[0]);
	for (uint32_t i = 0; i < ZN_PORT_MUX_SLOTS - 1; i++)
		if (i != 4)
			mx_put(m, &held[i], 1);
	for (uint32_t i = 0; i < ZN_PORT_MUX_SLOTS - 1; i++) {
		assert_int_equal(t[i].detached, 1);
		assert_int_equal(t[i].nout, 0);
		assert_int_equal(t[i].bad_put, 0);
	}
	assert_int_equal(t[ZN_PORT_MUX_SLOTS - 1].detached, 0);
	zn_port_mux_destroy(m);
	assert_int_equal(t[ZN_PORT_MUX_SLOTS - 1].detached, 1);
}

static void test_set_checks(void **state)
{
	struct zn_port_mux *m;
	struct tp base, a;
	struct zn_buf_provider bad;

	(void)state;
	tp_init(&base, 0);
	tp_init(&a, 100);
	assert_int_equal(zn_port_mux_create(NULL, &m), -EINVAL);
	bad = base.p;
	bad.put = NULL;
	assert_int_equal(zn_port_mux_create(&bad, &m), -EINVAL);
	assert_int_equal(zn_port_mux_create(&base.p, &m), 0);
	a.p.buf_size = BSZ / 2;
	assert_int_equal(zn_port_mux_set(m, &a.p), -EINVAL);
	a.p.buf_size = BSZ;
	a.p.alloc = NULL;
	assert_int_equal(zn_port_mux_set(m, &a.p), -EINVAL);
	zn_port_mux_destroy(m);
	assert_int_equal(a.detached, 0);	/* never installed */
}

/* A long batch of one slot goes out in chunks; counts stay exact. */
static void test_long_batch(void **state)
{
	struct zn_port_mux *m;
	struct tp base, a;
	struct zn_buf b[NB];
	uint32_t ids[NB];

	(void)state;
	tp_init(&base, 0);
	tp_init(&a, 300);
	assert_int_equal(zn_port_mux_create(&base.p, &m), 0);
	assert_int_equal(zn_port_mux_set(m, &a.p), 0);
	assert_int_equal(mx_alloc(m, b, NB), NB);
	assert_int_equal(mx_alloc(m, b + 0, 1), 0);	/* dry: nothing counted */
	assert_int_equal(zn_port_mux_out(m, &a.p), NB);
	for (uint32_t i = 0; i < NB; i++)
		ids[i] = b[i].id;
	assert_int_equal(zn_port_mux_set(m, NULL), 0);
	mx_put(m, ids, NB);
	assert_int_equal(a.put_calls, 2);	/* 100 ids untagged 64 at a time */
	assert_int_equal(a.nout, 0);
	assert_int_equal(a.bad_put, 0);
	assert_int_equal(a.detached, 1);
	zn_port_mux_destroy(m);
	assert_int_equal(a.detached, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_base_untagged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_route_detach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detach_immediately_when_none_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_revive_detached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slots_busy_and_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_batch, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
