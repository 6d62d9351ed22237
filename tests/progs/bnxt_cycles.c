/* SPDX-License-Identifier: MIT */
/*
 * bnxt_cycles: bring two ports on one wire up and down N times through
 * include/zcnic/port.h; in every cycle a few frames must cross the wire (so
 * every bring-up really worked), and at the end this process must hold
 * exactly the file descriptors it held before the first cycle. Leaks of
 * memory are ASan's to find (make SAN=1); leaks in the model are the
 * caller's to check (tests/integration/bnxt_pair.sh reads zn-nicsim's
 * counters and /proc/PID/fd).
 *
 *   bnxt_cycles DEV0 DEV1 [CYCLES]      (default 100)
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/progs/bnxt_pair.h"

#define DEFAULT_CYCLES		100
#define FRAMES_PER_CYCLE	4
#define RX_WAIT_MS		2000

static unsigned count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;	/* includes ".", ".." and the DIR's own fd: the same every time */
}

struct got {
	unsigned frames, bad;
	uint64_t want_base;
};

static void on_rx(void *arg, uint16_t q, const struct zn_rx_pkt *pkt, const uint8_t *f,
		  uint32_t len)
{
	struct got *g = arg;
	uint64_t tag = pt_tag(f, len);

	(void)q;
	(void)pkt;
	if (tag >= g->want_base && tag < g->want_base + FRAMES_PER_CYCLE)
		g->frames++;
	else
		g->bad++;
}

int main(int argc, char **argv)
{
	const struct pt_conf c0 = { .nrxq = 1, .ntxq = 1, .own_payload = false };
	const struct pt_conf c1 = { .nrxq = 2, .ntxq = 1, .own_payload = true };
	const struct pt_flow flow = { .ipv = 4, .proto = 17, .src = { 10, 0, 0, 1 },
				      .dst = { 10, 0, 0, 2 }, .sport = 1000, .dport = 2000 };
	unsigned cycles = DEFAULT_CYCLES, done = 0, crossed = 0, fds0, fds1, missing = 0;
	uint64_t t0, worst = 0;
	struct got g = { 0 };

	if (argc < 3 || argc > 4 || (argc == 4 && !(cycles = (unsigned)atoi(argv[3])))) {
		fprintf(stderr, "usage: bnxt_cycles DEV0 DEV1 [CYCLES]\n");
		return 2;
	}
	fds0 = count_fds();
	t0 = zn_now_ms();
	for (unsigned i = 0; i < cycles; i++) {
		struct pt_port p0, p1;
		uint64_t c_start = zn_now_ms();
		uint8_t frame[128];
		bool ok;

		ok = pt_open(&p0, argv[1], &c0) == 0;
		ok = pt_open(&p1, argv[2], &c1) == 0 && ok;
		if (ok) {
			g.want_base = (uint64_t)i * FRAMES_PER_CYCLE;
			g.frames = 0;
			for (unsigned k = 0; k < FRAMES_PER_CYCLE; k++) {
				pt_build(frame, sizeof(frame), p1.info.mac, p0.info.mac, &flow,
					 g.want_base + k);
				ok = pt_send(&p0, 0, frame, sizeof(frame)) == 0 && ok;
			}
			pt_rx_wait(&p1, FRAMES_PER_CYCLE, RX_WAIT_MS, on_rx, &g);
			if (g.frames == FRAMES_PER_CYCLE)
				crossed++;
			else
				tap_diag("cycle %u: %u of %d frames arrived", i, g.frames,
					 FRAMES_PER_CYCLE);
			pt_reap(&p0);
		} else {
			tap_diag("cycle %u: bring-up failed", i);
		}
		missing += pt_stop(&p1);
		pt_close(&p1);
		pt_close(&p0);
		if (ok)
			done++;
		if (zn_now_ms() - c_start > worst)
			worst = zn_now_ms() - c_start;
		if (!ok && done == 0 && i >= 2)
			break;	/* nothing works: do not spend 100 cycles on it */
	}
	fds1 = count_fds();
	tap_diag("%u cycles in %" PRIu64 " ms (slowest %" PRIu64 " ms)", cycles,
		 zn_now_ms() - t0, worst);
	tap_check(done == cycles, "%u of %u bring-up/teardown cycles succeeded", done, cycles);
	tap_check(crossed == cycles, "frames crossed the wire in %u of %u cycles", crossed, cycles);
	tap_check(g.bad == 0, "no foreign or stale frame arrived (%u)", g.bad);
	tap_check(missing == 0, "every payload buffer back in its pool once the port stopped "
		  "(%u missing)", missing);
	tap_check(fds1 == fds0, "open file descriptors before and after: %u, %u", fds0, fds1);
	return tap_done("bnxt_cycles");
}
