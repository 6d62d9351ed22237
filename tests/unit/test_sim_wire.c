/* sim/wire: ports joined by a pair wire deliver frames in order, on poll,
 * and count what they drop. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim/wire.h"

struct end {
	struct zn_sim_port port;
	unsigned got;
	uint8_t last[ZN_SIM_FRAME_MAX];
	size_t last_len;
	bool echo;	/* send every frame back */
};

static void rx(void *opaque, const void *frame, size_t len)
{
	struct end *e = opaque;

	e->got++;
	memcpy(e->last, frame, len);
	e->last_len = len;
	if (e->echo)
		zn_sim_port_tx(&e->port, frame, len);
}

static void init(struct end *e, const char *name)
{
	memset(e, 0, sizeof(*e));
	e->port.name = name;
	e->port.rx = rx;
	e->port.opaque = e;
}

static void test_pair_delivers_both_ways(void **state)
{
	struct end a, b;
	struct zn_sim_wire *w;
	uint8_t f[64];
	uint64_t deadline = UINT64_MAX;

	(void)state;
	init(&a, "a");
	init(&b, "b");
	assert_int_equal(zn_sim_wire_pair(&a.port, &b.port, &w), 0);
	for (int i = 0; i < 3; i++) {
		memset(f, 'A' + i, sizeof(f));
		assert_int_equal(zn_sim_port_tx(&a.port, f, 60 + (size_t)i), 0);
	}
	assert_int_equal(b.got, 0);		/* never from inside tx */
	assert_int_equal(zn_sim_wire_poll(w, 0, &deadline), 3);
	assert_int_equal(b.got, 3);
	assert_int_equal(b.last_len, 62);
	assert_int_equal(b.last[0], 'C');
	assert_int_equal(a.port.tx_frames, 3);
	assert_int_equal(b.port.rx_frames, 3);
	/* an echo comes back on the next poll */
	b.echo = true;
	assert_int_equal(zn_sim_port_tx(&a.port, "ping", 4), 0);
	assert_int_equal(zn_sim_wire_poll(w, 0, &deadline), 2);
	assert_int_equal(a.got, 1);
	assert_memory_equal(a.last, "ping", 4);
	assert_int_equal(zn_sim_wire_poll(w, 0, &deadline), 0);
	/* a port can be on one wire only */
	{
		struct end c;
		struct zn_sim_wire *w2;

		init(&c, "c");
		assert_int_equal(zn_sim_wire_pair(&a.port, &c.port, &w2), -EBUSY);
		assert_int_equal(zn_sim_wire_pair(&c.port, &c.port, &w2), -EBUSY);
	}
	zn_sim_wire_free(w);
	assert_null(a.port.wire);
	assert_null(b.port.wire);
}

static void test_drops_are_counted(void **state)
{
	struct end a, b;
	struct zn_sim_wire *w;
	static uint8_t big[ZN_SIM_FRAME_MAX + 1];
	uint64_t deadline = UINT64_MAX;
	int n = 0;

	(void)state;
	init(&a, "a");
	init(&b, "b");
	assert_int_equal(zn_sim_port_tx(&a.port, "x", 1), -ENOTCONN);	/* unplugged */
	assert_int_equal(zn_sim_port_tx_room(&a.port), ZN_SIM_WIRE_SLOTS);
	assert_int_equal(zn_sim_wire_pair(&a.port, &b.port, &w), 0);
	assert_int_equal(zn_sim_port_tx_room(&a.port), ZN_SIM_WIRE_SLOTS);
	assert_int_equal(zn_sim_port_tx(&a.port, big, sizeof(big)), -EMSGSIZE);
	assert_int_equal(zn_sim_port_tx(&a.port, big, 0), -EMSGSIZE);
	assert_int_equal(zn_sim_port_tx(&a.port, big, ZN_SIM_FRAME_MAX), 0);
	while (zn_sim_port_tx(&a.port, "y", 1) == 0)
		assert_true(++n < 10 * ZN_SIM_WIRE_SLOTS);
	assert_int_equal(n + 1, ZN_SIM_WIRE_SLOTS);		/* full: -ENOBUFS */
	assert_int_equal(zn_sim_port_tx_room(&a.port), 0);
	assert_int_equal(zn_sim_port_tx_room(&b.port), ZN_SIM_WIRE_SLOTS);
	assert_int_equal(a.port.tx_dropped, 4);
	/* delivered in budgets, all of them, in order */
	while (zn_sim_wire_poll(w, 0, &deadline) > 0)
		;
	assert_int_equal(b.got, ZN_SIM_WIRE_SLOTS);
	assert_int_equal(b.last_len, 1);
	assert_int_equal(zn_sim_port_tx_room(&a.port), ZN_SIM_WIRE_SLOTS);
	zn_sim_wire_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_delivers_both_ways),
		cmocka_unit_test(test_drops_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
