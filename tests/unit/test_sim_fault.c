/* sim/fault: the spec parser, a seed replays the same faults, and over a
 * pair wire every frame sent is accounted for exactly: delivered intact,
 * delivered twice, delivered out of order, lost, dropped by the receiving
 * MAC for a bad FCS, or delivered with a bad L4 checksum. The device hooks
 * (RX buffers, TX delay, commands, events, DMA maps) count what they do. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/fault.h"
#include "sim/wire.h"

#define NFRAMES		2000	/* below the wire's slots per burst, see send_all */
#define FLEN		200

struct end {
	struct zn_sim_port port;
	uint32_t seen[NFRAMES];		/* times each frame arrived intact */
	uint32_t bad_csum, reordered, last_seq;
	bool any;
};

/* IPv4/UDP frame with sequence number seq in its payload and a valid
 * checksum: the receiver can tell each frame and whether it was damaged. */
static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t udp_sum(const uint8_t *f, size_t len)
{
	const uint8_t *ip = f + 14, *udp = f + 34;
	uint32_t s = sum16(ip + 12, 8, 0) + 17 + (uint32_t)(len - 34);

	return fold(sum16(udp, len - 34, s));
}

static void build(uint8_t *f, uint32_t seq)
{
	uint16_t c;

	memset(f, 0, FLEN);
	memset(f, 0xff, 6);
	f[6] = 0x02;
	f[12] = 0x08;				/* IPv4 */
	f[14] = 0x45;
	f[16] = (FLEN - 14) >> 8;
	f[17] = (FLEN - 14) & 0xff;
	f[22] = 64;
	f[23] = 17;				/* UDP */
	f[26] = 10; f[29] = 1; f[30] = 10; f[33] = 2;
	f[34] = 0x13; f[35] = 0x88; f[36] = 0x13; f[37] = 0x89;
	f[38] = (FLEN - 34) >> 8;
	f[39] = (FLEN - 34) & 0xff;
	memcpy(f + 42, &seq, sizeof(seq));
	for (size_t i = 46; i < FLEN; i++)
		f[i] = (uint8_t)(seq + i);
	c = (uint16_t)~udp_sum(f, FLEN);
	f[40] = (uint8_t)(c >> 8);
	f[41] = (uint8_t)c;
}

static void rx(void *opaque, const void *frame, size_t len)
{
	struct end *e = opaque;
	const uint8_t *f = frame;
	uint32_t seq;

	assert_int_equal(len, FLEN);
	if (udp_sum(f, len) != 0xffff) {	/* a damaged frame: its seq may be too */
		e->bad_csum++;
		return;
	}
	memcpy(&seq, f + 42, sizeof(seq));
	assert_true(seq < NFRAMES);
	if (e->any && seq < e->last_seq)
		e->reordered++;
	e->any = true;
	e->last_seq = seq;
	e->seen[seq]++;
}

static void init(struct end *e, const char *name)
{
	memset(e, 0, sizeof(*e));
	e->port.name = name;
	e->port.rx = rx;
	e->port.opaque = e;
}

static struct zn_sim_fault *faults(const char *spec)
{
	struct zn_sim_fault *f = zn_sim_fault_new();
	char err[256];

	assert_non_null(f);
	assert_int_equal(zn_sim_fault_apply(f, spec, err, sizeof(err)), 0);
	return f;
}

/* Sends NFRAMES in bursts the wire always has room for (duplicates take a
 * second slot), polling in between. */
static void send_all(struct end *a, struct zn_sim_wire *w)
{
	uint8_t f[FLEN];
	uint64_t deadline = UINT64_MAX;

	for (uint32_t i = 0; i < NFRAMES; i++) {
		build(f, i);
		assert_int_equal(zn_sim_port_tx(&a->port, f, FLEN), 0);
		if (i % 32 == 31)
			while (zn_sim_wire_poll(w, 0, &deadline) > 0)
				;
	}
	while (zn_sim_wire_poll(w, 0, &deadline) > 0)
		;
}

static void test_parse(void **state)
{
	struct zn_sim_fault *f = zn_sim_fault_new();
	char err[256];

	(void)state;
	assert_int_equal(zn_sim_fault_apply(f, "wire-drop=0.5,seed=7,cmd-fail=0x27,cmd-err=16,"
					   "cmd-fail-count=0,tx-delay=20,flr-after=100",
					   err, sizeof(err)), 0);
	assert_int_equal(f->p_drop, 1ull << 31);
	assert_int_equal(f->cmd_fail, 0x27);
	assert_int_equal(f->cmd_err, 16);
	assert_int_equal(f->cmd_fail_left, UINT32_MAX);
	assert_int_equal(f->tx_delay_ms, 20);
	assert_int_equal(f->flr_after, 100);
	assert_int_equal(zn_sim_fault_apply(f, "wire-drop=1.5", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "probability"));
	assert_int_equal(zn_sim_fault_apply(f, "nosuch=1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown fault 'nosuch'"));
	assert_int_equal(zn_sim_fault_apply(f, "seed", err, sizeof(err)), -EINVAL);
	assert_int_equal(zn_sim_fault_apply(f, "flr-after=0", err, sizeof(err)), -EINVAL);
	assert_int_equal(zn_sim_fault_apply(f, "cmd-fail=-1", err, sizeof(err)), -EINVAL);
	assert_int_equal(zn_sim_fault_apply(f, "", err, sizeof(err)), -EINVAL);
	assert_int_equal(zn_sim_fault_counter(f, "wire_drops"), 0);
	assert_int_equal(zn_sim_fault_counter(f, "nosuch"), UINT64_MAX);
	zn_sim_fault_free(f);
}

/* Every frame sent is delivered intact, or its fate is counted. */
static void run_wire(const char *spec, struct end *b, struct zn_sim_fault **out)
{
	static struct end a;
	struct zn_sim_wire *w;

	init(&a, "a");
	init(b, "b");
	a.port.fault = faults(spec);
	assert_int_equal(zn_sim_wire_pair(&a.port, &b->port, &w), 0);
	send_all(&a, w);
	zn_sim_wire_free(w);
	*out = a.port.fault;
	assert_int_equal(a.port.tx_frames, NFRAMES);
	assert_int_equal(a.port.tx_dropped, 0);
}

static void test_wire_accounting(void **state)
{
	struct end *b = calloc(1, sizeof(*b));
	struct zn_sim_fault *f;
	uint64_t drops, dups, corrupts, csums, reorders, once = 0, twice = 0, never = 0;

	(void)state;
	run_wire("seed=7,wire-drop=0.02,wire-dup=0.02,wire-reorder=0.02,wire-corrupt=0.02,"
		 "wire-csum=0.02", b, &f);
	drops = zn_sim_fault_counter(f, "wire_drops");
	dups = zn_sim_fault_counter(f, "wire_dups");
	corrupts = zn_sim_fault_counter(f, "wire_corrupts");
	csums = zn_sim_fault_counter(f, "wire_csums");
	reorders = zn_sim_fault_counter(f, "wire_reorders");
	for (uint32_t i = 0; i < NFRAMES; i++) {
		once += b->seen[i] == 1;
		twice += b->seen[i] == 2;
		never += b->seen[i] == 0;
		assert_true(b->seen[i] <= 2);
	}
	/* roughly 2% each, at least: the seed was not ignored */
	assert_true(drops > 10 && dups > 10 && corrupts > 10 && csums > 10 && reorders > 10);
	assert_int_equal(twice, dups);
	assert_int_equal(never, drops + corrupts + csums);
	assert_int_equal(once + twice + never, NFRAMES);
	/* the bad FCS frames died in the receiving MAC, the bad checksums came up */
	assert_int_equal(b->port.rx_fcs_errors, corrupts);
	assert_int_equal(b->bad_csum, csums);
	assert_int_equal(b->port.rx_frames, NFRAMES - drops - corrupts + dups);
	/* a frame overtaken shows as a step back (a dup of the previous one
	 * can hide one, never add one) */
	assert_true(b->reordered <= reorders && b->reordered > reorders / 2);
	zn_sim_fault_free(f);

	/* the same seed, the same faults, frame for frame */
	{
		struct end *c = calloc(1, sizeof(*c));
		struct zn_sim_fault *g;

		run_wire("seed=7,wire-drop=0.02,wire-dup=0.02,wire-reorder=0.02,"
			 "wire-corrupt=0.02,wire-csum=0.02", c, &g);
		assert_memory_equal(b->seen, c->seen, sizeof(b->seen));
		assert_int_equal(zn_sim_fault_counter(g, "wire_drops"), drops);
		zn_sim_fault_free(g);
		run_wire("seed=8,wire-drop=0.02", c, &g);
		assert_int_not_equal(zn_sim_fault_counter(g, "wire_drops"), drops);
		zn_sim_fault_free(g);
		free(c);
	}
	free(b);
}

static void test_device_hooks(void **state)
{
	struct zn_sim_port p = { .name = "p" };
	uint64_t deadline = UINT64_MAX;
	uint32_t err = 0;
	unsigned nobufs = 0;

	(void)state;
	/* no faults: every hook says "carry on" */
	assert_false(zn_sim_fault_rx_nobuf(&p));
	assert_false(zn_sim_fault_tx_hold(&p, 0, &deadline));
	assert_int_equal(zn_sim_fault_cmd(&p, 0x27, &err), ZN_SIM_FAULT_CMD_RUN);
	assert_int_equal(zn_sim_fault_event(&p), ZN_SIM_FAULT_NONE);
	assert_false(zn_sim_fault_dma_refuse(NULL));

	p.fault = faults("seed=3,rx-nobuf=0.25,tx-delay=10,cmd-fail=0x27,cmd-err=16,"
			 "cmd-fail-count=2,cmd-hang=0x40,flr-after=100,dma-refuse=2");
	for (int i = 0; i < 1000; i++)
		nobufs += zn_sim_fault_rx_nobuf(&p);
	assert_int_equal(zn_sim_fault_counter(p.fault, "rx_nobufs"), nobufs);
	assert_true(nobufs > 150 && nobufs < 350);
	/* 1000 frames seen: the FLR is due, once */
	assert_int_equal(zn_sim_fault_event(&p), ZN_SIM_FAULT_FLR);
	assert_int_equal(zn_sim_fault_event(&p), ZN_SIM_FAULT_NONE);
	assert_int_equal(zn_sim_fault_counter(p.fault, "flrs"), 1);

	/* a TX pass that did work starts a 10 ms hold */
	assert_false(zn_sim_fault_tx_hold(&p, 0, &deadline));
	assert_int_equal(zn_sim_fault_tx_ran(&p, 0), 0);
	assert_false(zn_sim_fault_tx_hold(&p, 0, &deadline));
	assert_int_equal(zn_sim_fault_tx_ran(&p, 3), 3);
	assert_int_equal(zn_sim_fault_counter(p.fault, "tx_delays"), 1);
	assert_true(zn_sim_fault_tx_hold(&p, p.fault->tx_hold_until_ns - 1, &deadline));
	assert_int_equal(deadline, p.fault->tx_hold_until_ns);
	assert_false(zn_sim_fault_tx_hold(&p, p.fault->tx_hold_until_ns, &deadline));

	/* a transient failure: twice, then the command runs */
	assert_int_equal(zn_sim_fault_cmd(&p, 0x27, &err), ZN_SIM_FAULT_CMD_FAIL);
	assert_int_equal(err, 16);
	assert_int_equal(zn_sim_fault_cmd(&p, 0x27, &err), ZN_SIM_FAULT_CMD_FAIL);
	assert_int_equal(zn_sim_fault_cmd(&p, 0x27, &err), ZN_SIM_FAULT_CMD_RUN);
	assert_int_equal(zn_sim_fault_cmd(&p, 0x16, &err), ZN_SIM_FAULT_CMD_RUN);
	assert_int_equal(zn_sim_fault_cmd(&p, 0x40, &err), ZN_SIM_FAULT_CMD_HANG);
	assert_int_equal(zn_sim_fault_cmd(&p, 0x40, &err), ZN_SIM_FAULT_CMD_RUN);
	assert_int_equal(zn_sim_fault_counter(p.fault, "cmd_fails"), 2);
	assert_int_equal(zn_sim_fault_counter(p.fault, "cmd_hangs"), 1);

	/* the second DMA map, only */
	assert_false(zn_sim_fault_dma_refuse(p.fault));
	assert_true(zn_sim_fault_dma_refuse(p.fault));
	assert_false(zn_sim_fault_dma_refuse(p.fault));
	assert_int_equal(zn_sim_fault_counter(p.fault, "dma_refusals"), 1);
	zn_sim_fault_free(p.fault);

	/* fatal-after before flr-after when both are due */
	p.fault = faults("fatal-after=1,flr-after=1");
	assert_false(zn_sim_fault_rx_nobuf(&p));
	assert_int_equal(zn_sim_fault_event(&p), ZN_SIM_FAULT_FATAL);
	assert_int_equal(zn_sim_fault_event(&p), ZN_SIM_FAULT_FLR);
	zn_sim_fault_free(p.fault);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_wire_accounting),
		cmocka_unit_test(test_device_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
