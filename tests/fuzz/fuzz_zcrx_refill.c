/*
 * libFuzzer target: core/zcrx refill ring processing and buffer states.
 *
 * Input: byte 0 = log2 of the ring size (0..4 -> 1..16 entries); then a
 * program of records, each an op byte and its operand:
 *   op & 7 == 0  write an rqe: 8 bytes off, 4 len, 4 pad into the next slot
 *             1  set tail to a u32 (raw: may be behind head or far ahead)
 *             2  refill pass
 *             3  provider alloc of (arg & 7) buffers
 *             4  RECV_ZC path on buffer arg % nbufs: take, CQE, stack put
 *             5  provider put of buffer id (arg, may be bogus)
 *             6  copy fallback buffer (kept or aborted by arg bit 0)
 *             7  scrub
 * The area has 8 buffers. After every step the accounting must hold:
 * zn_zcrx_area_check() (states, counts, free list, user refs) and
 * free + nic + stack + user == nbufs; a refill pass reads at most one
 * ring's worth and head moves by exactly what it read.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/zcrx/zcrx_priv.h"
#include "zcnic/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define NB 8

static uint8_t area_mem[NB * 4096] __attribute__((aligned(4096)));
static uint8_t ring_mem[ZN_ZCRX_RQ_RQES_OFF + 16 * 16] __attribute__((aligned(64)));

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	zn_log_configure("off");
	return 0;
}

static void inv(const struct zn_zcrx_area *a)
{
	struct zn_zcrx_stats st;

	CHECK(zn_zcrx_area_check(a) == 0);
	zn_zcrx_area_stats(a, &st);
	CHECK(st.free + st.nic + st.stack + st.user == st.nbufs);
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zn_zcrx_area a;
	struct zn_zcrx_rq rq;
	uint32_t entries, slot = 0;
	size_t i = 1;

	if (size < 1)
		return 0;
	entries = 1u << (data[0] % 5);
	memset(ring_mem, 0, sizeof(ring_mem));
	CHECK(zn_zcrx_area_init(&a, area_mem, sizeof(area_mem), 0x10000) == 0);
	zn_zcrx_rq_init(&rq, ring_mem, entries);
	while (i < size) {
		uint8_t op = data[i++];
		uint32_t arg = i < size ? data[i] : 0;

		switch (op & 7) {
		case 0: {
			struct io_uring_zcrx_rqe *r = &rq.rqes[slot++ & (entries - 1)];

			if (size - i < 16)
				goto out;
			memcpy(&r->off, data + i, 8);
			r->len = rd32(data + i + 8);
			r->__pad = rd32(data + i + 12);
			i += 16;
			break;
		}
		case 1:
			if (size - i < 4)
				goto out;
			__atomic_store_n(rq.ktail, rd32(data + i), __ATOMIC_RELEASE);
			i += 4;
			break;
		case 2: {
			uint32_t head = rq.cached_head, n = zn_zcrx_refill(&rq, &a);

			CHECK(n <= entries);
			CHECK(rq.cached_head == head + n);
			CHECK(*rq.khead == rq.cached_head);
			break;
		}
		case 3: {
			struct zn_buf b[8];
			uint32_t want = arg & 7, got = zn_zcrx_area_alloc(&a, b, want);

			i++;
			CHECK(got <= want);
			for (uint32_t k = 0; k < got; k++)
				CHECK(b[k].id < NB && b[k].va == area_mem + b[k].id * 4096);
			break;
		}
		case 4: {
			uint32_t idx = arg % NB;

			i++;
			/* only what RECV_ZC does: a buffer the stack holds */
			if (!a.bufs[idx].nic)
				break;
			zn_zcrx_area_take(&a, idx);
			zn_zcrx_area_user_get(&a, idx);
			if (arg & 0x80)
				zn_zcrx_area_put(&a, &idx, 1);
			break;
		}
		case 5:
			if (size - i < 4)
				goto out;
			{
				uint32_t id = rd32(data + i);

				zn_zcrx_area_put(&a, &id, 1);
			}
			i += 4;
			break;
		case 6: {
			int64_t c = zn_zcrx_area_copy_get(&a);

			i++;
			if (c < 0)
				break;
			if (arg & 1)
				zn_zcrx_area_user_get(&a, (uint32_t)c);
			else
				zn_zcrx_area_copy_abort(&a, (uint32_t)c);
			break;
		}
		default:
			zn_zcrx_area_scrub(&a);
			break;
		}
		inv(&a);
	}
out:
	inv(&a);
	zn_zcrx_area_fini(&a);
	return 0;
}
