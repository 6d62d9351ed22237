/*
 * mlx5_model_bench: frames per second through two mlx5 models of a running
 * zn-nicsim joined by a pair wire, driven by the hand-built queues of the
 * mlx5 test client (tests/unit/support/mlx5_test_client.h): port 0 sends
 * (Ethernet header inline, the rest one gather segment), one TX CQE per
 * burst of 32; port 1 receives into a striding RQ with SHAMPO header-data
 * split, every frame put back together and compared byte for byte.
 *
 *   mlx5_model_bench SOCK0 SOCK1 [FRAMES [FRAME_BYTES...]]
 *
 * Prints a TAP line per frame size ("ok N - 60-byte frames: F frames/s")
 * and fails if a frame is lost or differs. FRAMES defaults to 100000, sizes
 * to 60 1500.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/support/mlx5_test_client.h"

#define BURST	32

static struct mtc_port pa, pb;
static struct mtc_pkt pkt;
static uint8_t frame[ZN_SIM_FRAME_MAX];

static const struct mtc_rq_cfg cfg = {
	.log_sz = 4, .log_nstrides = 6, .log_stride_sz = 11, .shampo = true,
	.log_hdr_entry = 8, .log_res = 16, .log_pkts_per_res = 4,
};

/* total frames of len bytes; returns how many arrived intact. */
static unsigned run(size_t len, unsigned total, double *rate)
{
	static const uint8_t sip[4] = { 10, 0, 0, 1 }, dip[4] = { 10, 0, 0, 2 };
	unsigned sent = 0, got = 0;
	int64_t t0 = mtc_now_ms(), t1;

	mtc_frame(frame, len, pb.mac, sip, dip, 4000, 4791, false, (uint8_t)len);
	while (got < total) {
		unsigned n = total - sent < BURST ? total - sent : BURST;
		struct zn_mlx5_cqe64 tc;

		for (unsigned i = 0; i < n; i++)
			mtc_send(&pa.c, &pa.sq, pa.key, frame, len, 14, 1, 0, i + 1 == n);
		sent += n;
		for (unsigned i = 0; i < n; i++) {
			if (!mtc_port_rx(&pb, 0, &pkt, 2000) || pkt.len != len ||
			    memcmp(pkt.data, frame, len))
				return got;
			got++;
		}
		if (n && !mtc_cq_wait(&pa.txcq, &tc, 2000))
			return got;
	}
	t1 = mtc_now_ms();
	*rate = total * 1000.0 / (double)(t1 > t0 ? t1 - t0 : 1);
	return got;
}

int main(int argc, char **argv)
{
	unsigned total = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 100000, n = 0;
	static const char *def[] = { "60", "1500" };
	const char **sizes = argc > 4 ? (const char **)argv + 4 : def;
	int nsizes = argc > 4 ? argc - 4 : 2, rc, failed = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: mlx5_model_bench SOCK0 SOCK1 [FRAMES [FRAME_BYTES...]]\n");
		return 2;
	}
	if ((rc = mtc_port_open(&pa, argv[1], 1, &cfg)) ||
	    (rc = mtc_port_open(&pb, argv[2], 1, &cfg)) || (rc = mtc_port_wait_link(&pa)) ||
	    (rc = mtc_port_wait_link(&pb))) {
		printf("not ok 1 - bring-up of both ports (%s: %d)\n",
		       pa.failed ? pa.failed : pb.failed ? pb.failed : "link", rc);
		return 1;
	}
	for (int i = 0; i < nsizes; i++) {
		size_t len = strtoul(sizes[i], NULL, 0);
		double rate = 0;
		unsigned got;

		if (len < 60 || len > 9000) {
			printf("not ok %u - frame size %zu (60-9000)\n", ++n, len);
			failed++;
			continue;
		}
		got = run(len, total, &rate);
		if (got == total) {
			printf("ok %u - %zu-byte frames: %.0f frames/s (%u frames)\n", ++n, len, rate,
			       total);
		} else {
			printf("not ok %u - %zu-byte frames: %u of %u arrived intact\n", ++n, len, got,
			       total);
			failed++;
		}
	}
	mtc_close(&pa.c);
	mtc_close(&pb.c);
	return failed ? 1 : 0;
}
