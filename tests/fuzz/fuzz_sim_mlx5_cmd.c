/*
 * libFuzzer target: the mlx5 model's command-input parser and execution
 * (sim/mlx5), fed arbitrary command bytes directly (the opcode table, as a
 * DevX channel would carry them) and through the real command queue: queue
 * entries and mailbox chains in DMA memory the fuzzer also writes, the
 * doorbell through the trapped BAR0 path of the vfio-user server
 * (zn_vfu_dev_feed); frames on the port reach the data path of whatever
 * queues the commands built.
 *
 * Set-up, once: an mlx5 device in buffer mode, VERSION, one DMA window of
 * MEM_LEN bytes at IOVA_BASE (a memfd mapped here too), MEMORY and
 * BUS_MASTER on. Each input starts with a DEVICE_RESET (the model back to
 * power-on, the DMA window kept) and the command queue at IOVA_BASE; it is
 * a list of records [ctl u8][len u16 LE][len bytes]:
 *   ctl & 3 == 0  a command input; output length out_len[ctl >> 2 & 7]
 *   ctl & 3 == 1  DMA memory: bytes 0-1 = offset / 16, the rest written there
 *   ctl & 3 == 2  a queue entry: byte 0 the slot (& 31), then up to 64 entry
 *                 bytes into that slot; the doorbell rung for it
 *   ctl & 3 == 3  a frame into the port
 * Every record is followed by a model poll. The port is wired to a dummy
 * port so that the link can come up.
 * Seeds: tests/fuzz/mkcorpus_sim_mlx5_cmd.py (bring-up, objects, queues).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drivers/mlx5/mlx5_hw.h"
#include "sim/log.h"
#include "sim/mlx5/mlx5_sim.h"
#include "sim/model.h"
#include "sim/vfu/vfu.h"
#include "sim/wire.h"
#include "zcnic/vfio_user.h"

#define IOVA_BASE	0x100000ull
#define MEM_LEN		(1024 * 1024)

static struct zn_sim_device *dev;
static struct zn_sim_port peer = { .name = "peer" };
static struct zn_sim_wire *wire;
static uint8_t *mem;
static uint16_t msg_id;
static uint8_t out[65536];

static const size_t out_len[8] = { 16, 12, 112, 272, 4112, 16 + 8 * 64, 8, 65536 };

static void quiet_sink(enum zn_sim_log_level l, const char *c, const char *m, void *a)
{
	(void)l; (void)c; (void)m; (void)a;
}

static void feed(uint16_t cmd, const void *payload, size_t len, int *fds, unsigned nfds)
{
	uint8_t buf[sizeof(struct zn_vfu_hdr) + 64];
	struct zn_vfu_hdr h = { .msg_id = ++msg_id, .cmd = cmd,
				.msg_size = (uint32_t)(sizeof(h) + len) };

	if (len > 64)
		abort();
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	if (zn_vfu_dev_feed(dev->dev, buf, sizeof(h) + len, fds, nfds))
		abort();
}

static void reg_write(uint32_t region, uint64_t off, const void *data, uint32_t count)
{
	uint8_t buf[sizeof(struct zn_vfu_region_access) + 8];
	struct zn_vfu_region_access a = { .offset = off, .region = region, .count = count };

	memcpy(buf, &a, sizeof(a));
	memcpy(buf + sizeof(a), data, count);
	feed(ZN_VFU_REGION_WRITE, buf, sizeof(a) + count, NULL, 0);
}

static void iseg_write(uint64_t off, uint32_t v)
{
	v = zn_mlx5_bswap32(v);
	reg_write(0, off, &v, 4);
}

static void print_stat(void *ctx, const char *key, uint64_t v)
{
	(void)ctx;
	if (v && strstr(key, ".model."))
		fprintf(stderr, "  %s %llu\n", key, (unsigned long long)v);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char json[] = "{\"capabilities\":{\"max_msg_fds\":8}}";
	uint8_t v[sizeof(struct zn_vfu_version) + sizeof(json)];
	struct zn_vfu_version ver = { 0, 2 };
	struct zn_vfu_dma_map m = { sizeof(m), ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE, 0,
				    IOVA_BASE, MEM_LEN };
	uint16_t cmd = ZN_VFU_CMD_MEMORY | ZN_VFU_CMD_MASTER;
	char err[256];
	int fd;

	(void)argc;
	(void)argv;
	zn_sim_log_set_sink(quiet_sink, NULL);
	if (zn_sim_device_create("fz=mlx5", &dev, err, sizeof(err))) {
		fprintf(stderr, "fuzz_sim_mlx5_cmd: %s\n", err);
		abort();
	}
	if (zn_vfu_dev_attach_buffer(dev->dev, NULL, NULL))
		abort();
	memcpy(v, &ver, sizeof(ver));
	memcpy(v + sizeof(ver), json, sizeof(json));
	if (sizeof(v) > 64)
		abort();
	feed(ZN_VFU_VERSION, v, sizeof(v), NULL, 0);
	fd = memfd_create("fuzz-dma", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, MEM_LEN))
		abort();
	mem = mmap(NULL, MEM_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		abort();
	feed(ZN_VFU_DMA_MAP, &m, sizeof(m), &fd, 1);	/* the server takes the fd */
	reg_write(ZN_VFU_PCI_CONFIG_REGION, 4, &cmd, 2);
	if (zn_vfu_dev_dma_windows(dev->dev) != 1 ||
	    zn_sim_wire_pair(zn_sim_device_port(dev, 0), &peer, &wire))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zn_sim_port *port = zn_sim_device_port(dev, 0);

	feed(ZN_VFU_DEVICE_RESET, NULL, 0, NULL, 0);
	memset(mem, 0, MEM_LEN);
	iseg_write(ZN_MLX5_ISEG_CMDQ_ADDR_H, (uint32_t)(IOVA_BASE >> 32));
	iseg_write(ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)IOVA_BASE);
	while (size >= 3) {
		uint8_t ctl = data[0];
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;
		const uint8_t *b = data + 3;

		if (len > size - 3)
			len = size - 3;
		switch (ctl & 3) {
		case 0:
			if (len)
				zn_sim_mlx5_exec(dev, b, len, out, out_len[ctl >> 2 & 7]);
			break;
		case 1:
			if (len >= 2) {
				size_t off = ((size_t)b[0] | (size_t)b[1] << 8) * 16u % MEM_LEN;
				size_t n = len - 2;

				if (n > MEM_LEN - off)
					n = MEM_LEN - off;
				memcpy(mem + off, b + 2, n);
			}
			break;
		case 2:
			if (len >= 1) {
				unsigned slot = b[0] & 31;
				size_t n = len - 1 < 64 ? len - 1 : 64;

				memcpy(mem + slot * 64, b + 1, n);
				iseg_write(ZN_MLX5_ISEG_CMD_DBELL, 1u << slot);
			}
			break;
		default:
			if (len && port->rx)
				port->rx(port->opaque, b, len);
			break;
		}
		zn_vfu_dev_poll(dev->dev);
		{
			uint64_t deadline = UINT64_MAX;

			zn_sim_wire_poll(wire, 0, &deadline);	/* frames sent: dropped */
		}
		data += 3 + len;
		size -= 3 + len;
	}
	/* FUZZ_MLX5_STATS=1: what an input reached (to check the seeds) */
	if (getenv("FUZZ_MLX5_STATS"))
		zn_sim_device_stats(dev, print_stat, NULL);
	return 0;
}
