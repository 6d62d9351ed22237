/*
 * libFuzzer target: the bnxt model's HWRM request parsing and execution
 * (sim/bnxt), fed arbitrary requests through the real trapped BAR0 path of
 * the vfio-user server (zn_vfu_dev_feed), with DMA memory the fuzzer also
 * writes (short-command requests, page directories, RSS tables, rings),
 * doorbells on both doorbell paths and frames on the port.
 *
 * Set-up, once: a bnxt device in buffer mode, VERSION, one DMA window of
 * MEM_LEN bytes at IOVA_BASE (a memfd mapped here too), MEMORY and
 * BUS_MASTER on. Each input starts with a DEVICE_RESET (the model back to
 * power-on, the DMA window kept) and is a list of records
 * [ctl u8][len u16 LE][len bytes]:
 *   ctl & 3 == 0  HWRM request: the bytes into the 128-byte window, trigger
 *   ctl & 3 == 1  DMA memory: bytes 0-1 = offset / 16, the rest written there
 *   ctl & 3 == 2  short command: the bytes at REQ_OFF, a short header naming
 *                 them in the window, trigger
 *   ctl & 3 == 3  ctl & 4: a frame into the port; else a doorbell: bytes 0-7
 *                 the value, byte 8 a DPI (0-63) or the legacy page if > 63
 *   ctl & 8       fix the request header up: target_id 0xffff, resp_addr at
 *                 RESP_OFF (so that responses are written, not refused)
 * Every record is followed by a model poll (which runs the command). The
 * port is wired to a dummy port so that the link is up and frames are taken.
 * Seeds: tests/fuzz/mkcorpus_sim_bnxt_hwrm.py (a whole bring-up, traffic).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drivers/bnxt/bnxt_hw.h"
#include "sim/log.h"
#include "sim/model.h"
#include "sim/vfu/vfu.h"
#include "sim/wire.h"
#include "zcnic/vfio_user.h"

#define IOVA_BASE	0x100000ull
#define MEM_LEN		(512 * 1024)
#define REQ_OFF		0x1000
#define RESP_OFF	0x2000

static struct zn_sim_device *dev;
static struct zn_sim_port peer = { .name = "peer" };
static struct zn_sim_wire *wire;
static uint8_t *mem;
static uint16_t msg_id;

static void quiet_sink(enum zn_sim_log_level l, const char *c, const char *m, void *a)
{
	(void)l; (void)c; (void)m; (void)a;
}

static void feed(uint16_t cmd, const void *payload, size_t len, int *fds, unsigned nfds)
{
	uint8_t buf[sizeof(struct zn_vfu_hdr) + 512];
	struct zn_vfu_hdr h = { .msg_id = ++msg_id, .cmd = cmd,
				.msg_size = (uint32_t)(sizeof(h) + len) };

	if (len > 512)
		abort();
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	if (zn_vfu_dev_feed(dev->dev, buf, sizeof(h) + len, fds, nfds))
		abort();
}

static void region_write(uint32_t region, uint64_t off, const void *data, uint32_t count)
{
	uint8_t buf[sizeof(struct zn_vfu_region_access) + BNXT_HWRM_MAX_REQ_LEN];
	struct zn_vfu_region_access a = { .offset = off, .region = region, .count = count };

	memcpy(buf, &a, sizeof(a));
	memcpy(buf + sizeof(a), data, count);
	feed(ZN_VFU_REGION_WRITE, buf, sizeof(a) + count, NULL, 0);
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
	if (zn_sim_device_create("fz=bnxt,queues=2", &dev, err, sizeof(err))) {
		fprintf(stderr, "fuzz_sim_bnxt_hwrm: %s\n", err);
		abort();
	}
	if (zn_vfu_dev_attach_buffer(dev->dev, NULL, NULL))
		abort();
	memcpy(v, &ver, sizeof(ver));
	memcpy(v + sizeof(ver), json, sizeof(json));
	feed(ZN_VFU_VERSION, v, sizeof(v), NULL, 0);
	fd = memfd_create("fuzz-dma", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, MEM_LEN))
		abort();
	mem = mmap(NULL, MEM_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		abort();
	feed(ZN_VFU_DMA_MAP, &m, sizeof(m), &fd, 1);	/* the server takes the fd */
	region_write(ZN_VFU_PCI_CONFIG_REGION, 4, &cmd, 2);
	if (zn_vfu_dev_dma_windows(dev->dev) != 1 ||
	    zn_sim_wire_pair(zn_sim_device_port(dev, 0), &peer, &wire))
		abort();
	return 0;
}

static void fixup(uint8_t *req, uint8_t ctl)
{
	struct bnxt_hwrm_req_hdr h;

	if (!(ctl & 8))
		return;
	memcpy(&h, req, sizeof(h));
	h.target_id = BNXT_HWRM_TARGET_ID_HWRM;
	h.resp_addr = IOVA_BASE + RESP_OFF;
	memcpy(req, &h, sizeof(h));
}

static void trigger(void)
{
	uint32_t one = BNXT_HWRM_TRIGGER_VALUE;

	region_write(BNXT_BAR_REGS, BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER, &one, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zn_sim_port *port = zn_sim_device_port(dev, 0);

	feed(ZN_VFU_DEVICE_RESET, NULL, 0, NULL, 0);
	while (size >= 3) {
		uint8_t ctl = data[0], win[BNXT_HWRM_MAX_REQ_LEN] = { 0 };
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;
		const uint8_t *b = data + 3;

		if (len > size - 3)
			len = size - 3;
		switch (ctl & 3) {
		case 0:
			memcpy(win, b, len < sizeof(win) ? len : sizeof(win));
			fixup(win, ctl);
			region_write(BNXT_BAR_REGS, BNXT_GRCPF_REG_CHIMP_COMM, win, sizeof(win));
			trigger();
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
		case 2: {
			size_t n = len < RESP_OFF - REQ_OFF ? len : RESP_OFF - REQ_OFF;
			struct bnxt_hwrm_short_input si = {
				.signature = BNXT_HWRM_SHORT_SIGNATURE,
				.size = (uint16_t)n,
				.req_addr = IOVA_BASE + REQ_OFF,
			};

			memcpy(mem + REQ_OFF, b, n);
			fixup(mem + REQ_OFF, ctl);
			if (n >= 2)
				memcpy(&si.req_type, b, 2);
			memcpy(win, &si, sizeof(si));
			region_write(BNXT_BAR_REGS, BNXT_GRCPF_REG_CHIMP_COMM, win, sizeof(si));
			trigger();
			break;
		}
		default:
			if (ctl & 4) {
				if (len && port->rx)
					port->rx(port->opaque, b, len);
			} else if (len >= 9) {
				uint8_t *bar2 = zn_vfu_bar_mem(dev->dev, BNXT_BAR_DB);
				uint64_t v;

				memcpy(&v, b, 8);
				if (b[8] < 64 && bar2)
					__atomic_store_n((uint64_t *)(bar2 + (17u + b[8]) * 4096u), v,
							 __ATOMIC_RELEASE);
				else
					region_write(BNXT_BAR_DB, BNXT_DB_PF_OFFSET_P5, &v, 8);
			}
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
	zn_vfu_dev_poll(dev->dev);
	/* FUZZ_BNXT_STATS=1: what an input reached (to check the seeds) */
	if (getenv("FUZZ_BNXT_STATS"))
		zn_sim_device_stats(dev, print_stat, NULL);
	return 0;
}
