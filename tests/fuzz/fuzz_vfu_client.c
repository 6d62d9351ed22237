/*
 * libFuzzer target: the vfio-user client's reply parsers and its check of a
 * server's DMA_READ/WRITE, fed what a hostile server could send. Input: byte 0 picks the parser, byte 1 is what the
 * client asked for (region/irq index, fd count, byte count), the rest is the
 * reply payload. After a successful parse the results must be sane.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/bus/vfio_user_priv.h"
#include "zcnic/log.h"

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

static void region_info(const uint8_t *p, size_t len, uint8_t arg)
{
	struct zn_region_info ri;
	uint32_t index = arg >> 2;
	int rc = zn_vfuc_parse_region_info(p, len, index, ZN_VFUC_REGION_INFO_ARGSZ, arg & 3,
					  &ri, "fuzz");

	if (rc > 0)
		CHECK(rc > ZN_VFUC_REGION_INFO_ARGSZ && rc <= (int)ZN_VFUC_REGION_INFO_ARGSZ_MAX);
	if (rc != 0)
		return;
	CHECK(ri.index == index && ri.nr_sparse <= ZN_BUS_MAX_SPARSE);
	CHECK(!(ri.flags & ~(uint32_t)(ZN_REGION_F_READ | ZN_REGION_F_WRITE | ZN_REGION_F_MMAP)));
	CHECK(!ri.nr_sparse || (ri.flags & ZN_REGION_F_MMAP));
	for (uint32_t i = 0; i < ri.nr_sparse; i++) {
		CHECK(ri.sparse[i].size > 0);
		CHECK(ri.sparse[i].offset + ri.sparse[i].size <= ri.size);
		CHECK(ri.sparse[i].offset + ri.sparse[i].size >= ri.sparse[i].offset);
	}
}

static void region_access(const uint8_t *p, size_t len, uint8_t arg, uint16_t cmd)
{
	struct zn_vfu_region_access ra = { 0 };
	uint8_t out[256];

	/* Ask for what the reply claims (so the echo checks pass) but for
	 * arg bytes, so that counts and lengths disagree in every way. */
	if (len >= sizeof(ra))
		memcpy(&ra, p, sizeof(ra));
	memset(out, 0xee, sizeof(out));
	if (zn_vfuc_parse_region_access(p, len, cmd, ra.region, ra.offset, arg,
				       cmd == ZN_VFU_REGION_READ ? out : NULL, "fuzz") == 0 &&
	    cmd == ZN_VFU_REGION_READ)
		CHECK(len == sizeof(ra) + arg && !memcmp(out, p + sizeof(ra), arg));
}

/* A server DMA_READ/WRITE (arg bit 0: which) against two fixed windows: a
 * request that passes must lie wholly inside one of them. */
static void dma_access(const uint8_t *p, size_t len, uint8_t arg)
{
	static uint8_t mem[0x3000];
	const struct zn_vfuc_win win[2] = {
		{ 0x10000, 0x2000, mem }, { 0x12000, 0x1000, mem + 0x2000 },
	};
	uint16_t cmd = arg & 1 ? ZN_VFU_DMA_WRITE : ZN_VFU_DMA_READ;
	struct zn_vfu_dma_access a = { 0 };
	uint8_t *va;

	if (len >= sizeof(a))
		memcpy(&a, p, sizeof(a));
	if (zn_vfuc_dma_check(win, 2, cmd, &a, len, &va) != 0)
		return;
	CHECK(len == sizeof(a) + (cmd == ZN_VFU_DMA_WRITE ? a.count : 0));
	CHECK(va >= mem && a.count <= (uint64_t)(mem + sizeof(mem) - va));
	CHECK((va < mem + 0x2000) == (va + a.count <= mem + 0x2000) || a.count == 0 ||
	      va + a.count == mem + 0x2000);
	if (cmd == ZN_VFU_DMA_WRITE)
		memcpy(va, p + sizeof(a), a.count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 2;
	size_t len;
	uint8_t arg;

	if (size < 2)
		return 0;
	arg = data[1];
	len = size - 2;
	switch (data[0] % 9) {
	case 0: {
		struct zn_vfuc_caps caps;

		if (zn_vfuc_parse_version(p, len, &caps, "fuzz") == 0)
			CHECK(caps.major == 0 && caps.minor <= ZN_VFU_VERSION_MINOR &&
			      caps.max_msg_fds >= 1 && caps.max_data_xfer_size >= 1);
		break;
	}
	case 1: {
		struct zn_device_info di;

		zn_vfuc_parse_device_info(p, len, &di, "fuzz");
		break;
	}
	case 2:
		region_info(p, len, arg);
		break;
	case 3: {
		struct zn_irq_info ii;

		if (zn_vfuc_parse_irq_info(p, len, arg & 7, &ii, "fuzz") == 0)
			CHECK(ii.index == (arg & 7u));
		break;
	}
	case 4:
		region_access(p, len, arg, ZN_VFU_REGION_READ);
		break;
	case 5:
		region_access(p, len, arg, ZN_VFU_REGION_WRITE);
		break;
	case 6: {
		struct zn_vfu_dma_unmap u = { 0 };

		if (len >= sizeof(u))
			memcpy(&u, p, sizeof(u));
		zn_vfuc_parse_dma_unmap(p, len, u.addr, u.size, "fuzz");
		break;
	}
	case 7: {
		struct zn_vfuc_caps caps = { .max_msg_fds = 1, .max_data_xfer_size = 1 };

		if (zn_vfuc_parse_version_json((const char *)p, len, &caps, "fuzz") == 0)
			CHECK(caps.max_msg_fds >= 1 && caps.max_msg_fds <= 1024);
		break;
	}
	case 8:
		dma_access(p, len, arg);
		break;
	}
	return 0;
}
