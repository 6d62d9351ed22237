/*
 * bnxt_model_bench: frames per second through two bnxt models of a running
 * zn-nicsim joined by a pair wire, driven by the hand-built rings of the
 * bnxt test client (tests/unit/support/bnxt_test_client.h): port 0 sends,
 * port 1 receives with header-data split, one TX completion per burst of
 * 32, at most 128 frames in flight, RX buffers re-posted every 32 frames.
 *
 *   bnxt_model_bench SOCK0 SOCK1 [FRAMES [FRAME_BYTES...]]
 *
 * Prints a TAP line per frame size ("ok N - 60-byte frames: F frames/s")
 * and fails if a frame is lost. FRAMES defaults to 100000, sizes to 60 1500.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/support/bnxt_test_client.h"

static struct btc ca, cb;
static struct btc_port pa, pb;
static uint8_t frame[BTC_TX_BUF];

int main(int argc, char **argv)
{
	struct btc_port_cfg cfg = {
		.nq = 1, .tx_size = 256, .rx_size = 512, .agg_size = 512, .cq_size = 4096,
		.rx_buf = 256, .agg_buf = 2048, .rx_batch = 32,
		.plc_flags = BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT |
			     BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4 | BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6,
		.jumbo_thresh = 256,
	};
	unsigned total = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 100000;
	static const unsigned dflt[] = { 60, 1500 };
	unsigned n = 0, failed = 0;
	int rc;

	if (argc < 3 || !total) {
		fprintf(stderr, "usage: bnxt_model_bench SOCK0 SOCK1 [FRAMES [FRAME_BYTES...]]\n");
		return 2;
	}
	if ((rc = btc_open(&ca, argv[1])) || (rc = btc_open(&cb, argv[2])) ||
	    (rc = btc_port_open(&ca, &pa, &cfg)) || (rc = btc_port_open(&cb, &pb, &cfg))) {
		printf("not ok 1 - bring-up of both ports (%d)\n", rc);
		return 1;
	}
	for (int i = argc > 4 ? 4 : 0; argc > 4 ? i < argc : i < 2; i++) {
		unsigned bytes = argc > 4 ? (unsigned)strtoul(argv[i], NULL, 0) : dflt[i];
		unsigned got = 0;
		size_t len;
		double rate;

		if (bytes < 60 || bytes > 9018) {
			printf("not ok %u - frame size %u (60-9018)\n", ++n, bytes);
			failed++;
			continue;
		}
		len = btc_udp4_frame(frame, cb.mac, ca.mac, bytes - 42, (uint8_t)i);
		rate = btc_pair_rate(&pa, &pb, frame, len, total, &got);
		if (got == total) {
			printf("ok %u - %zu-byte frames: %.0f frames/s (%u frames)\n", ++n, len, rate,
			       got);
		} else {
			printf("not ok %u - %zu-byte frames: %u of %u arrived\n", ++n, len, got, total);
			failed++;
		}
		fflush(stdout);
	}
	btc_close(&ca);
	btc_close(&cb);
	return failed ? 1 : 0;
}
