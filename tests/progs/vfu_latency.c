/*
 * vfu_latency: what a register access costs over vfio-user, on zn-nicsim's
 * edu device (sim/edu/edu_hw.h).
 *
 *   (a) a trapped register write: one REGION_WRITE round trip (and, for
 *       comparison, a REGION_READ);
 *   (b) a doorbell: a plain store into the mmap-ed BAR2 page until the model
 *       has seen it and echoed the value back into the page, back to back
 *       (the model's loop is spinning), after 2 ms of idleness (a pause
 *       in a burst: within the loop's spin window) and after 20-21 ms (it
 *       has backed off to its longest sleep; the gap is jittered so that
 *       the rings fall on every phase of that sleep);
 *   (c) with the server's pid: the CPU the server burns while this client
 *       holds the device open and does nothing (the price of (b)).
 *
 *   vfu_latency SOCK [SAMPLES [SERVER_PID]]   prints median and p99 per measure
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "sim/edu/edu_hw.h"
#include "zcnic/bus.h"

#define DEFAULT_SAMPLES	20000
#define WARMUP		1000
#define IDLE_SAMPLES	200
#define IDLE_GAP_US	2000
#define LONG_IDLE_SAMPLES 50
#define LONG_IDLE_GAP_US 20000
#define LONG_IDLE_JITTER_US 1000	/* spreads the rings over the server's sleep */
#define CPU_SETTLE_US	100000	/* past the server's spin and back-off ramp */
#define CPU_WINDOW_US	1000000
/* a doorbell unseen for 10 s: broken (on 2 cores shared with other
 * busy-polling tests the server can be off the CPU for a second) */
#define REACT_LIMIT_NS	(10000ull * 1000 * 1000)
#define SPIN_NS		(1000ull * 1000)	/* then yield: the server may need this CPU */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *ns, unsigned n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	printf("%-44s median %8.2f us   p99 %8.2f us   (%u samples)\n", what,
	       ns[n / 2] / 1000.0, ns[(size_t)n * 99 / 100] / 1000.0, n);
}

/* Store v into the doorbell and wait for the model's echo; 0 or -ETIMEDOUT. */
static int ring(volatile uint64_t *page, uint64_t v, uint64_t *dt)
{
	uint64_t t0 = zn_now_ns(), t;

	__atomic_store_n(&page[EDU_DB_ECHO_DOORBELL / 8], v, __ATOMIC_RELEASE);
	while (__atomic_load_n(&page[EDU_DB_ECHO / 8], __ATOMIC_ACQUIRE) != v) {
		t = zn_now_ns();
		if (t - t0 > REACT_LIMIT_NS)
			return -ETIMEDOUT;
		if (t - t0 > SPIN_NS)
			sched_yield();
	}
	*dt = zn_now_ns() - t0;
	return 0;
}

/* The server's main thread (its loop): ns on a CPU and times it was run. */
static int sched_read(int pid, uint64_t *run_ns, uint64_t *slices)
{
	char path[64];
	uint64_t wait_ns;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64, run_ns, &wait_ns, slices);
	fclose(f);
	return n == 3 ? 0 : -EIO;
}

/* (c): the client stays connected and quiet; how busy is the server? */
static int idle_cpu(int pid)
{
	uint64_t ns0, ns1, sl0, sl1, t0, t1;
	int rc;

	usleep(CPU_SETTLE_US);
	t0 = zn_now_ns();
	if ((rc = sched_read(pid, &ns0, &sl0)) < 0)
		return rc;
	usleep(CPU_WINDOW_US);
	t1 = zn_now_ns();
	if ((rc = sched_read(pid, &ns1, &sl1)) < 0)
		return rc;
	printf("(c) server CPU, client connected and idle     %.2f %%   (%.0f wake-ups/s)\n",
	       100.0 * (double)(ns1 - ns0) / (double)(t1 - t0),
	       (double)(sl1 - sl0) * 1e9 / (double)(t1 - t0));
	return 0;
}

int main(int argc, char **argv)
{
	struct zn_bus_open_opts o = { .timeout_ms = 5000 };
	unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : DEFAULT_SAMPLES;
	struct zn_bus_dev *d = NULL;
	volatile uint64_t *page;
	uint64_t *ns, seq = 0;
	char spec[256];
	void *va = NULL;
	int rc;

	if (argc < 2 || argc > 4 || n < 100) {
		fprintf(stderr, "usage: vfu_latency SOCK [SAMPLES >= 100 [SERVER_PID]]\n");
		return 2;
	}
	ns = calloc(n + WARMUP, sizeof(*ns));
	snprintf(spec, sizeof(spec), "vfio-user:%s", argv[1]);
	if (!ns || (rc = zn_bus_open(spec, &o, &d)) < 0) {
		fprintf(stderr, "vfu_latency: cannot open %s\n", spec);
		return 1;
	}
	rc = zn_bus_enable_bus_master(d);
	if (!rc)
		rc = zn_bus_map_bar(d, 2, &va, NULL);
	if (rc || !va) {
		fprintf(stderr, "vfu_latency: set-up failed (%d)\n", rc);
		goto out;
	}
	page = va;

	for (unsigned i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = zn_now_ns();

		if ((rc = zn_bus_write32(d, 0, EDU_REG_LIVENESS, i)) < 0)
			goto fail;
		ns[i] = zn_now_ns() - t0;
	}
	report("(a) trapped write, REGION_WRITE round trip", ns + WARMUP, n);
	for (unsigned i = 0; i < n + WARMUP; i++) {
		uint64_t t0 = zn_now_ns();
		uint32_t v;

		if ((rc = zn_bus_read32(d, 0, EDU_REG_LIVENESS, &v)) < 0)
			goto fail;
		ns[i] = zn_now_ns() - t0;
	}
	report("    trapped read, REGION_READ round trip", ns + WARMUP, n);

	for (unsigned i = 0; i < n + WARMUP; i++)
		if ((rc = ring(page, ++seq, &ns[i])) < 0)
			goto fail;
	report("(b) doorbell store -> model echo, busy", ns + WARMUP, n);
	for (unsigned i = 0; i < IDLE_SAMPLES; i++) {
		usleep(IDLE_GAP_US);
		if ((rc = ring(page, ++seq, &ns[i])) < 0)
			goto fail;
	}
	report("    doorbell store -> model echo, 2 ms idle", ns, IDLE_SAMPLES);
	for (unsigned i = 0, r = 1; i < LONG_IDLE_SAMPLES; i++) {
		/* A fixed gap would hit the server's sleep at the same phase every time. */
		r = r * 1103515245u + 12345u;
		usleep(LONG_IDLE_GAP_US + (r >> 16) % LONG_IDLE_JITTER_US);
		if ((rc = ring(page, ++seq, &ns[i])) < 0)
			goto fail;
	}
	report("    doorbell store -> model echo, 20 ms idle", ns, LONG_IDLE_SAMPLES);
	if (argc > 3 && (rc = idle_cpu(atoi(argv[3]))) < 0)
		goto fail;
	zn_bus_close(d);
	free(ns);
	return 0;
fail:
	fprintf(stderr, "vfu_latency: measurement failed: %s\n", strerror(-rc));
out:
	zn_bus_close(d);
	free(ns);
	return 1;
}
