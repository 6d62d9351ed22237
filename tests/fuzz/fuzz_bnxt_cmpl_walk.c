/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the bnxt driver's precise RX completion decode
 * (zn_bnxt_cmpl_parse, drivers/bnxt/bnxt_cmpl.h) fed a completion ring full
 * of whatever a broken or hostile device could write, walked record after
 * record with the consumer state advanced as the driver advances it, across
 * the ring's wrap and phase change. Nothing may be read outside the ring, the
 * header buffers or the AGG bookkeeping (ASan), and whatever is accepted as a
 * frame is checked against the queue's own limits, independently of the
 * driver's code: header buffer of the expected slot, AGG buffers of the next
 * slots in order, lengths within the buffers and the MRU. (The driver's own
 * fuzz_bnxt_cmpl checks its burst against this decode.)
 *
 * Input (little-endian):
 *   0      log2 CQ entries - 4      (0..4: 16..256 slots)
 *   1      log2 RX ring entries - 4 (0..4)
 *   2      log2 AGG ring entries - 4 (0..5)
 *   3..4   header buffer bytes (64..1024)
 *   5..6   AGG buffer bytes (256..16384)
 *   7..8   MRU (60..9216)
 *   9..12  raw CQ consumer to start from (the phase rule depends on it)
 *   13     RX buffers posted, 14 AGG buffers posted (each below its ring size)
 *   15     raw RX / AGG consumers start at 4 * this
 *   16..   the CQ, 16 bytes a slot, zero-padded
 * tests/fuzz/mkcorpus_bnxt_cmpl_walk.py writes the seeds in this format.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/bnxt/bnxt_cmpl.h"
#include "zcnic/log.h"

#define HDR_LEN		16
#define AGG_ID_BASE	1000u	/* agg_sw[i].buf_id = AGG_ID_BASE + i */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	zn_log_configure("off");
	return 0;
}

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static uint32_t clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* Every byte an accepted frame points at must be readable: touch them all. */
static volatile uint8_t sink;

static void touch(const uint8_t *p, uint32_t len)
{
	uint8_t x = 0;

	for (uint32_t i = 0; i < len; i++)
		x ^= p[i];
	sink = x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bnxt_rx_ctx c = { 0 };
	struct bnxt_rx_pos pos = { 0 };
	struct bnxt_agg_slot *agg_sw;
	uint8_t *cq, *hdr;
	uint32_t rx_size, agg_size, walked = 0;

	if (size < HDR_LEN)
		return 0;
	c.cq_size = 16u << (data[0] % 5);
	c.cq_mask = c.cq_size - 1;
	rx_size = 16u << (data[1] % 5);
	agg_size = 16u << (data[2] % 6);
	c.rx_mask = rx_size - 1;
	c.agg_mask = agg_size - 1;
	c.hdr_buf_size = clamp(le16(data + 3), 64, 1024);
	c.agg_buf_size = clamp(le16(data + 5), 256, 16384);
	c.max_frame = clamp(le16(data + 7), 60, 9216);
	c.qid = 3;
	memcpy(&pos.cq_raw, data + 9, 4);
	pos.rx_cons = pos.agg_cons = 4u * data[15];
	pos.rx_prod = pos.rx_cons + data[13] % rx_size;
	pos.agg_prod = pos.agg_cons + data[14] % agg_size;

	/* Exactly sized allocations, so that ASan sees any stray read. */
	cq = calloc(c.cq_size, BNXT_CMPL_SIZE);
	hdr = malloc((size_t)rx_size * c.hdr_buf_size);
	agg_sw = malloc(agg_size * sizeof(*agg_sw));
	if (!cq || !hdr || !agg_sw)
		goto out;
	memcpy(cq, data + HDR_LEN,
	       size - HDR_LEN < (size_t)c.cq_size * BNXT_CMPL_SIZE ? size - HDR_LEN :
	       (size_t)c.cq_size * BNXT_CMPL_SIZE);
	memset(hdr, 0xab, (size_t)rx_size * c.hdr_buf_size);
	for (uint32_t i = 0; i < agg_size; i++) {
		agg_sw[i].buf_id = AGG_ID_BASE + i;
		agg_sw[i].va = (uint8_t *)(uintptr_t)(0x10000u + (uint64_t)i * 0x1000u);	/* never read */
	}
	c.cq = cq;
	c.hdr_va = hdr;
	c.agg_sw = agg_sw;

	/* Walk as the RX burst does, at most two passes over the ring. */
	while (walked < 2 * c.cq_size) {
		struct zn_rx_pkt pkt;
		struct bnxt_cmpl_res res = { 0 };
		uint32_t slots, total;

		memset(&pkt, 0x5a, sizeof(pkt));
		slots = zn_bnxt_cmpl_parse(&c, &pos, &pkt, &res);
		if (!slots)
			break;
		CHECK(slots <= 2 + BNXT_RX_MAX_AGG);
		switch (res.kind) {
		case BNXT_CK_PKT:
			CHECK(res.bad == BNXT_BAD_NONE);
			CHECK(pos.rx_prod != pos.rx_cons);
			CHECK(pkt.nseg == res.nagg && pkt.nseg <= BNXT_RX_MAX_AGG);
			CHECK(res.nagg <= pos.agg_prod - pos.agg_cons);
			CHECK(slots == 2u + res.nagg);
			CHECK(pkt.queue == c.qid);
			CHECK(pkt.hdr_len >= 1 && pkt.hdr_len <= c.hdr_buf_size);
			CHECK(pkt.hdr == hdr + (size_t)(pos.rx_cons & c.rx_mask) * c.hdr_buf_size);
			touch(pkt.hdr, pkt.hdr_len);
			total = pkt.hdr_len;
			for (uint32_t s = 0; s < pkt.nseg; s++) {
				CHECK(pkt.seg[s].buf_id ==
				      AGG_ID_BASE + ((pos.agg_cons + s) & c.agg_mask));
				CHECK(pkt.seg[s].va == agg_sw[(pos.agg_cons + s) & c.agg_mask].va);
				CHECK(pkt.seg[s].len >= 1 && pkt.seg[s].len <= c.agg_buf_size);
				CHECK(pkt.seg[s].off + pkt.seg[s].len <= c.agg_buf_size);
				total += pkt.seg[s].len;
			}
			CHECK(pkt.pkt_len == total && total <= c.max_frame);
			pos.rx_cons++;
			pos.agg_cons += res.nagg;
			break;
		case BNXT_CK_PKT_ERR:
			CHECK(pos.rx_prod != pos.rx_cons);
			CHECK(res.nagg <= BNXT_RX_MAX_AGG && res.nagg <= pos.agg_prod - pos.agg_cons);
			CHECK(slots == 2u + res.nagg);
			pos.rx_cons++;
			pos.agg_cons += res.nagg;
			break;
		case BNXT_CK_AGG_STRAY:
			CHECK(slots == 1 && res.nagg == 1 && pos.agg_prod != pos.agg_cons);
			pos.agg_cons++;
			break;
		case BNXT_CK_HWRM_DONE:
			CHECK(slots == 1);
			break;
		case BNXT_CK_BAD:
			CHECK(res.bad > BNXT_BAD_NONE && res.bad < BNXT_BAD_MAX);
			CHECK(zn_bnxt_cmpl_bad_name(res.bad) != NULL);
			break;
		default:
			CHECK(0);
		}
		pos.cq_raw += slots;
		walked += slots;
	}
out:
	free(agg_sw);
	free(hdr);
	free(cq);
	return 0;
}
