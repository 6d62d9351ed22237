/*
 * core/net flow table (exact and wildcard matches, deletes, tombstones,
 * capacity) and TX header templates (every datagram's header equals the one
 * built from scratch, checksums included).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/net/flow.h"
#include "core/net/tx_tmpl.h"

static void test_flow_match(void **state)
{
	struct zn_flow_table t;
	int a, b, c;
	struct zn_flow_key bound = { .lip = 0x0100000a, .lport = 0x3412, .proto = 17 };
	struct zn_flow_key conn = { .lip = 0x0100000a, .lport = 0x3412, .rip = 0x0200000a,
				    .rport = 0x5000, .proto = 17 };

	(void)state;
	assert_int_equal(zn_flow_init(&t, 6), -EINVAL);
	assert_int_equal(zn_flow_init(&t, 16), 0);
	assert_int_equal(zn_flow_add(&t, &bound, &a), 0);
	assert_int_equal(zn_flow_add(&t, &bound, &b), -EADDRINUSE);
	assert_int_equal(zn_flow_add(&t, &conn, &b), 0);
	/* the connected flow wins for its peer; others reach the bound one */
	assert_ptr_equal(zn_flow_match(&t, 17, 0x0100000a, 0x3412, 0x0200000a, 0x5000), &b);
	assert_ptr_equal(zn_flow_match(&t, 17, 0x0100000a, 0x3412, 0x0300000a, 0x5000), &a);
	assert_ptr_equal(zn_flow_match(&t, 17, 0x0100000a, 0x3412, 0x0200000a, 0x5001), &a);
	assert_null(zn_flow_match(&t, 17, 0x0100000a, 0x3413, 0x0200000a, 0x5000));
	assert_null(zn_flow_match(&t, 6, 0x0100000a, 0x3412, 0x0200000a, 0x5000));
	assert_int_equal(zn_flow_del(&t, &bound), 0);
	assert_int_equal(zn_flow_del(&t, &bound), -ENOENT);
	assert_null(zn_flow_match(&t, 17, 0x0100000a, 0x3412, 0x0300000a, 0x5000));
	assert_ptr_equal(zn_flow_match(&t, 17, 0x0100000a, 0x3412, 0x0200000a, 0x5000), &b);
	/* capacity: 3/4 of 16 */
	for (uint16_t p = 1; p <= 11; p++) {
		struct zn_flow_key k = bound;

		k.lport = p;
		assert_int_equal(zn_flow_add(&t, &k, &c), 0);
	}
	{
		struct zn_flow_key k = bound;

		k.lport = 99;
		assert_int_equal(zn_flow_add(&t, &k, &c), -ENOSPC);
	}
	zn_flow_fini(&t);
}

/* Many adds and deletes: tombstones never make a lookup miss or loop. */
static void test_flow_churn(void **state)
{
	struct zn_flow_table t;
	int v[64];

	(void)state;
	assert_int_equal(zn_flow_init(&t, 64), 0);
	for (unsigned round = 0; round < 200; round++) {
		for (unsigned i = 0; i < 40; i++) {
			struct zn_flow_key k = { .lip = 1, .lport = (uint16_t)(round * 40 + i),
						 .proto = 17 };

			assert_int_equal(zn_flow_add(&t, &k, &v[i]), 0);
		}
		for (unsigned i = 0; i < 40; i++) {
			struct zn_flow_key k = { .lip = 1, .lport = (uint16_t)(round * 40 + i),
						 .proto = 17 };

			assert_ptr_equal(zn_flow_get(&t, &k), &v[i]);
			if (i % 2 == 0 || round % 2)
				assert_int_equal(zn_flow_del(&t, &k), 0);
		}
		if (round % 2 == 0)
			for (unsigned i = 1; i < 40; i += 2) {
				struct zn_flow_key k = { .lip = 1,
							 .lport = (uint16_t)(round * 40 + i),
							 .proto = 17 };

				assert_int_equal(zn_flow_del(&t, &k), 0);
			}
		assert_int_equal(t.used, 0);
	}
	zn_flow_fini(&t);
}

static void test_template_matches_scratch_build(void **state)
{
	static const uint8_t smac[6] = { 2, 0, 0, 0, 0, 1 }, dmac[6] = { 2, 0, 0, 0, 0, 2 };
	struct zn_addr4 src = { 0x0163000a, 0xa00f }, dst = { 0x0263000a, 0x8913 };
	struct zn_udp_tmpl t;
	uint8_t pay[1500], ref[1600], hdr[ZN_UDP_HDRS];

	(void)state;
	for (size_t i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 7 + 3);
	zn_udp_tmpl_build(&t, smac, NULL, &src, &dst);
	zn_udp_tmpl_set_mac(&t, dmac);
	for (uint16_t len = 0; len <= 1472; len = (uint16_t)(len + (len < 80 ? 1 : 97))) {
		uint16_t id = (uint16_t)(0xfff0 + len);
		size_t n = zn_udp_frame_build(ref, sizeof(ref), dmac, smac, &src, &dst, pay, len, id);

		assert_int_equal(n, ZN_UDP_HDRS + len);
		zn_udp_tmpl_write(&t, hdr, len, id, true, zn_csum_add(0, pay, len));
		assert_memory_equal(hdr, ref, ZN_UDP_HDRS);
		/* without the payload's sum: checksum 0, the rest equal */
		zn_udp_tmpl_write(&t, hdr, len, id, false, 0);
		assert_memory_equal(hdr, ref, 40);
		assert_int_equal(hdr[40] | hdr[41], 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_match),
		cmocka_unit_test(test_flow_churn),
		cmocka_unit_test(test_template_matches_scratch_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
