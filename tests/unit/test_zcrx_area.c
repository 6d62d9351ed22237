/* SPDX-License-Identifier: MIT */
/*
 * core/zcrx area and refill ring without a NIC: buffer states, the
 * provider's alloc/put, user references, refill entries (valid and each
 * invalid reason, mirroring the kernel's test_invalid_rqes), bogus
 * head/tail (test_invalid_rq_pointers), copy buffers, scrub. The
 * accounting invariant is checked after every step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/zcrx/zcrx_priv.h"

#define NB	16
#define ENTRIES	8

struct fx {
	struct zn_zcrx_area a;
	struct zn_zcrx_rq rq;
	uint8_t *mem;
	uint8_t *ring;
	uint32_t tail;		/* the application's private tail */
};

static void inv(const struct zn_zcrx_area *a)
{
	struct zn_zcrx_stats st;

	assert_int_equal(zn_zcrx_area_check(a), 0);
	zn_zcrx_area_stats(a, &st);
	assert_int_equal(st.free + st.nic + st.stack + st.user, st.nbufs);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->mem = aligned_alloc(4096, NB * 4096);
	f->ring = aligned_alloc(4096, 4096);
	memset(f->ring, 0, 4096);
	assert_int_equal(zn_zcrx_area_init(&f->a, f->mem, NB * 4096, 0x100000), 0);
	zn_zcrx_rq_init(&f->rq, f->ring, ENTRIES);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	zn_zcrx_area_fini(&f->a);
	free(f->mem);
	free(f->ring);
	free(f);
	return 0;
}

static void push(struct fx *f, uint64_t off, uint32_t pad)
{
	struct io_uring_zcrx_rqe *r = &f->rq.rqes[f->tail & (ENTRIES - 1)];

	r->off = off;
	r->len = 1;
	r->__pad = pad;
	f->tail++;
	__atomic_store_n(f->rq.ktail, f->tail, __ATOMIC_RELEASE);
}

/* Buffer idx as RECV_ZC would hand it to the user: taken, one CQE, released by the stack. */
static void to_user(struct fx *f, uint32_t idx)
{
	zn_zcrx_area_take(&f->a, idx);
	inv(&f->a);
	zn_zcrx_area_user_get(&f->a, idx);
	inv(&f->a);
	zn_zcrx_area_put(&f->a, &idx, 1);
	inv(&f->a);
}

static void test_alloc_put(void **state)
{
	struct fx *f = *state;
	struct zn_buf b[NB + 4];
	struct zn_zcrx_stats st;
	uint32_t ids[NB];

	assert_int_equal(zn_zcrx_area_alloc(&f->a, b, 4), 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(b[i].id, i);
		assert_ptr_equal(b[i].va, f->mem + i * 4096);
		assert_int_equal(b[i].iova, 0x100000 + i * 4096);
	}
	inv(&f->a);
	/* the rest, then dry: never more than the area */
	assert_int_equal(zn_zcrx_area_alloc(&f->a, b + 4, NB), NB - 4);
	assert_int_equal(zn_zcrx_area_alloc(&f->a, b, 1), 0);
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.nic, NB);
	assert_int_equal(st.free, 0);
	assert_int_equal(st.alloc_short, 2);
	for (uint32_t i = 0; i < NB; i++)
		ids[i] = b[i].id;
	zn_zcrx_area_put(&f->a, ids, NB);
	inv(&f->a);
	/* a second put of the same ids, and an id past the area: refused */
	zn_zcrx_area_put(&f->a, ids, 2);
	ids[0] = NB + 7;
	zn_zcrx_area_put(&f->a, ids, 1);
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.free, NB);
	assert_int_equal(st.bad_puts, 3);
	inv(&f->a);
}

static void test_states_and_refill(void **state)
{
	struct fx *f = *state;
	struct zn_buf b[3];
	struct zn_zcrx_stats st;

	assert_int_equal(zn_zcrx_area_alloc(&f->a, b, 3), 3);
	to_user(f, 0);
	to_user(f, 1);
	/* buffer 2: a second CQE into the same buffer (len cut it), 2 user refs */
	zn_zcrx_area_take(&f->a, 2);
	zn_zcrx_area_user_get(&f->a, 2);
	zn_zcrx_area_user_get(&f->a, 2);
	inv(&f->a);
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.user, 3);
	assert_int_equal(st.user_refs, 4);
	assert_int_equal(st.stack + st.nic, 0);
	/* one return for buffer 2: still held (by the user and by the stack) */
	push(f, 2 * 4096 + 100, 0);
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), 1);
	assert_int_equal(*f->rq.khead, 1);
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.user, 3);
	push(f, 2 * 4096, 0);
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), 1);
	zn_zcrx_area_stats(&f->a, &st);
	/* the user is done, the stack still holds it: STACK */
	assert_int_equal(st.user, 2);
	assert_int_equal(st.stack, 1);
	{
		uint32_t id = 2;

		zn_zcrx_area_put(&f->a, &id, 1);
	}
	inv(&f->a);
	push(f, 0, 0);
	push(f, 4096 + 4095, 0);	/* offset inside the buffer is ignored */
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), 2);
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.free, NB);
	assert_int_equal(st.refill_ok, 4);
	assert_int_equal(st.user_refs, 0);
	inv(&f->a);
}

/* The kernel's test_invalid_rqes, each reason counted, valid ones still work. */
static void test_invalid_rqes(void **state)
{
	struct fx *f = *state;
	struct zn_buf b[2];
	struct zn_zcrx_stats st;

	assert_int_equal(zn_zcrx_area_alloc(&f->a, b, 2), 2);
	to_user(f, 0);
	to_user(f, 1);
	push(f, 5 * 4096, 0);				/* never handed out */
	push(f, NB * 4096, 0);				/* token + area len: outside */
	push(f, (1ull << 48) - 1, 0);			/* outside */
	push(f, (1ull << 48) | 4096, 0);		/* area 1: wrong area id */
	push(f, 0, 1);					/* __pad set */
	push(f, 4096, 0);				/* valid, in the same batch */
	push(f, 4096, 0);				/* returned twice */
	push(f, 0, 0);					/* valid */
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), 8);
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.refill_invalid[ZN_ZCRX_RQE_NOT_HELD], 2);
	assert_int_equal(st.refill_invalid[ZN_ZCRX_RQE_OUTSIDE], 2);
	assert_int_equal(st.refill_invalid[ZN_ZCRX_RQE_AREA], 1);
	assert_int_equal(st.refill_invalid[ZN_ZCRX_RQE_PAD], 1);
	assert_int_equal(st.refill_ok, 2);
	assert_int_equal(st.free, NB);
	inv(&f->a);
}

/* The kernel's test_invalid_rq_pointers: no crash, at most one ring's worth. */
static void test_invalid_rq_pointers(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;

	*f->rq.khead = 1;		/* zcnic's own head: the application's write is ignored */
	*f->rq.ktail = 0;
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), 0);
	*f->rq.ktail = UINT32_MAX;	/* behind head: clamped to one ring */
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), ENTRIES);
	assert_int_equal(*f->rq.khead, ENTRIES);
	inv(&f->a);
	*f->rq.ktail = f->rq.cached_head + 2 * ENTRIES;
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), ENTRIES);
	assert_int_equal(*f->rq.khead, 2 * ENTRIES);
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), ENTRIES);
	assert_int_equal(zn_zcrx_refill(&f->rq, &f->a), 0);		/* caught up */
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.refill_ok, 0);
	assert_int_equal(st.free, NB);
	inv(&f->a);
}

static void test_copy_and_scrub(void **state)
{
	struct fx *f = *state;
	struct zn_buf b[NB];
	struct zn_zcrx_stats st;
	int64_t c;

	assert_int_equal(zn_zcrx_area_alloc(&f->a, b, NB - 2), NB - 2);
	c = zn_zcrx_area_copy_get(&f->a);
	assert_true(c >= 0);
	inv(&f->a);
	zn_zcrx_area_copy_abort(&f->a, (uint32_t)c);	/* CQ was full */
	inv(&f->a);
	c = zn_zcrx_area_copy_get(&f->a);
	zn_zcrx_area_user_get(&f->a, (uint32_t)c);
	assert_true(zn_zcrx_area_copy_get(&f->a) >= 0);	/* the last free one, kept in STACK */
	assert_int_equal(zn_zcrx_area_copy_get(&f->a), -1);	/* exhausted */
	to_user(f, 0);
	inv(&f->a);
	zn_zcrx_area_scrub(&f->a);
	zn_zcrx_area_stats(&f->a, &st);
	assert_int_equal(st.scrubbed, 2);
	assert_int_equal(st.user, 0);
	assert_int_equal(st.user_refs, 0);
	assert_int_equal(st.nic, NB - 3);
	assert_int_equal(st.stack, 1);
	assert_int_equal(st.free, 2);
	inv(&f->a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alloc_put, setup, teardown),
		cmocka_unit_test_setup_teardown(test_states_and_refill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_rqes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_rq_pointers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_and_scrub, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
