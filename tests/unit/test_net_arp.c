/*
 * core/net ARP cache: resolution states, queued frames, retries and
 * failure, expiry, learning, eviction, generations that tell templates
 * when to rebuild.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/net/arp_cache.h"

#define SEC 1000000000ull

struct calls {
	unsigned requests, failed;
	uint32_t last_req;
	uint32_t dropped[16];
	unsigned ndropped;
};

static void on_request(void *ctx, uint32_t ip)
{
	struct calls *c = ctx;

	c->requests++;
	c->last_req = ip;
}

static void on_failed(void *ctx, struct zn_arp_entry *e)
{
	struct calls *c = ctx;

	c->failed++;
	for (unsigned i = 0; i < e->npend; i++)
		c->dropped[c->ndropped++] = e->pend[i];
}

static const struct zn_arp_cb cb = { on_request, on_failed };
static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0xa };
static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 0xb };

static void test_resolve_queue_learn(void **state)
{
	static struct zn_arp_cache c;
	struct zn_arp_entry *e, *e2;
	uint32_t gen;

	(void)state;
	zn_arp_init(&c);
	assert_int_equal(zn_arp_resolve(&c, 0x0a000001, 100, &e), ZN_ARP_NEW);
	assert_int_equal(e->state, ZN_ARP_INCOMPLETE);
	assert_int_equal(e->tries, 1);
	assert_null(zn_arp_find(&c, 0x0a000001, 100));
	for (uint32_t h = 0; h < ZN_ARP_PENDING; h++)
		assert_int_equal(zn_arp_queue(e, 10 + h), 0);
	assert_int_equal(zn_arp_queue(e, 99), -EAGAIN);
	assert_int_equal(zn_arp_resolve(&c, 0x0a000001, 200, &e2), ZN_ARP_WAIT);
	assert_ptr_equal(e, e2);
	gen = e->gen;
	/* the reply: REACHABLE, frames still queued for the caller */
	e2 = zn_arp_learn(&c, 0x0a000001, mac_a, 300, false);
	assert_ptr_equal(e, e2);
	assert_int_equal(e->state, ZN_ARP_REACHABLE);
	assert_int_equal(e->npend, ZN_ARP_PENDING);
	assert_int_equal(e->pend[0], 10);
	assert_int_equal(e->pend[3], 13);
	assert_int_not_equal(e->gen, gen);
	assert_int_equal(zn_arp_queue(e, 5), -EAGAIN);	/* not INCOMPLETE */
	e->npend = 0;
	assert_int_equal(zn_arp_resolve(&c, 0x0a000001, 400, &e2), ZN_ARP_HIT);
	assert_memory_equal(e2->mac, mac_a, 6);
	assert_true(zn_arp_valid(e, e->gen, 400));
	/* a new MAC for the same address: new generation, old templates stale */
	gen = e->gen;
	zn_arp_learn(&c, 0x0a000001, mac_b, 500, false);
	assert_false(zn_arp_valid(e, gen, 500));
	assert_memory_equal(e->mac, mac_b, 6);
	/* the same MAC again: same generation, deadline pushed */
	gen = e->gen;
	zn_arp_learn(&c, 0x0a000001, mac_b, 600, false);
	assert_int_equal(e->gen, gen);
	assert_int_equal(e->deadline, 600 + ZN_ARP_TTL_NS);
	/* learning an unknown host only when asked to create */
	assert_null(zn_arp_learn(&c, 0x0a000002, mac_a, 600, false));
	assert_non_null(zn_arp_learn(&c, 0x0a000002, mac_a, 600, true));
	assert_non_null(zn_arp_find(&c, 0x0a000002, 600));
	assert_int_equal(c.learned, 4);
}

static void test_retries_then_failure(void **state)
{
	static struct zn_arp_cache c;
	struct calls k = { 0 };
	struct zn_arp_entry *e;
	uint64_t t = 1000, next;

	(void)state;
	zn_arp_init(&c);
	assert_int_equal(zn_arp_resolve(&c, 0x0a000009, t, &e), ZN_ARP_NEW);
	zn_arp_queue(e, 7);
	zn_arp_queue(e, 8);
	/* nothing before the retry time */
	next = zn_arp_tick(&c, t + ZN_ARP_RETRY_NS - 1, &cb, &k);
	assert_int_equal(next, t + ZN_ARP_RETRY_NS);
	assert_int_equal(k.requests, 0);
	/* ZN_ARP_RETRIES requests in all (the first was the caller's) */
	for (unsigned r = 1; r < ZN_ARP_RETRIES; r++) {
		t += ZN_ARP_RETRY_NS;
		zn_arp_tick(&c, t, &cb, &k);
		assert_int_equal(k.requests, r);
		assert_int_equal(k.last_req, 0x0a000009);
		assert_int_equal(k.failed, 0);
	}
	t += ZN_ARP_RETRY_NS;
	next = zn_arp_tick(&c, t, &cb, &k);
	assert_int_equal(k.requests, ZN_ARP_RETRIES - 1);
	assert_int_equal(k.failed, 1);
	assert_int_equal(k.ndropped, 2);
	assert_int_equal(k.dropped[0], 7);
	assert_int_equal(k.dropped[1], 8);
	assert_int_equal(c.failed, 1);
	assert_int_equal(e->state, ZN_ARP_FREE);
	assert_int_equal(next, UINT64_MAX);
	/* a later send starts over */
	assert_int_equal(zn_arp_resolve(&c, 0x0a000009, t, &e), ZN_ARP_NEW);
}

static void test_expiry(void **state)
{
	static struct zn_arp_cache c;
	struct calls k = { 0 };
	struct zn_arp_entry *e;

	(void)state;
	zn_arp_init(&c);
	zn_arp_learn(&c, 0x0a000003, mac_a, 0, true);
	assert_int_equal(zn_arp_resolve(&c, 0x0a000003, ZN_ARP_TTL_NS - 1, &e), ZN_ARP_HIT);
	assert_null(zn_arp_find(&c, 0x0a000003, ZN_ARP_TTL_NS));
	/* expired on use: resolved afresh */
	assert_int_equal(zn_arp_resolve(&c, 0x0a000003, ZN_ARP_TTL_NS, &e), ZN_ARP_NEW);
	assert_int_equal(c.expired, 1);
	/* expired in a tick: freed */
	zn_arp_learn(&c, 0x0a000004, mac_b, 0, true);
	zn_arp_tick(&c, ZN_ARP_TTL_NS + SEC, &cb, &k);
	assert_int_equal(c.expired, 2);
	assert_null(zn_arp_find(&c, 0x0a000004, 0));
}

static void test_eviction(void **state)
{
	static struct zn_arp_cache c;
	struct zn_arp_entry *e;

	(void)state;
	zn_arp_init(&c);
	for (uint32_t i = 0; i < ZN_ARP_ENTRIES; i++) {
		zn_arp_learn(&c, 0x0a000100 + i, mac_a, i, true);
		assert_int_equal(zn_arp_resolve(&c, 0x0a000100 + i, 1000 + i, &e), ZN_ARP_HIT);
	}
	/* full: the least recently used (the first) goes */
	assert_int_equal(zn_arp_resolve(&c, 0x0a0001ff, 5000, &e), ZN_ARP_NEW);
	assert_null(zn_arp_find(&c, 0x0a000100, 5000));
	assert_non_null(zn_arp_find(&c, 0x0a000101, 5000));
	/* INCOMPLETE entries are never evicted: a table full of them refuses */
	zn_arp_init(&c);
	for (uint32_t i = 0; i < ZN_ARP_ENTRIES; i++)
		assert_int_equal(zn_arp_resolve(&c, 0x0a000200 + i, 1, &e), ZN_ARP_NEW);
	assert_int_equal(zn_arp_resolve(&c, 0x0a0002ff, 1, &e), -ENOSPC);
	assert_null(zn_arp_learn(&c, 0x0a0002ff, mac_a, 1, true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_queue_learn),
		cmocka_unit_test(test_retries_then_failure),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_eviction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
