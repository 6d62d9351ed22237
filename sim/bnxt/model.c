/* SPDX-License-Identifier: MIT */
/*
 * bnxt: a Broadcom BCM57508 ("Thor", P5) PF as zn-nicsim model: PCI identity,
 * BARs, the trapped registers, the poll that runs doorbells, TX and timers,
 * reset, options and counters. hw-docs/bnxt.md is the interface, section 14
 * what the model must reproduce; hw-docs/bnxt-model.md the model's choices.
 *
 * BARs (64-bit, as on the real part):
 *   BAR0  64 KiB  registers, all mmap-able: HWRM window 0x000-0x07f and the
 *         trigger at 0x100, polled (a driver that stores to the mapping, as
 *         DPDK's bnxt PMD does, is served like one that writes by message);
 *         the rest reads what was last written there and does nothing
 *   BAR2  doorbells: the legacy P5 PF doorbell page at 0x10000, trapped (each
 *         write is a message, so none is lost); with multidb, DPI pages from
 *         0x11000 on, mmap-able and polled (hw-docs/bnxt.md 7.4). legacy_db_map=1
 *         makes all of BAR2 mmap-able and polls the legacy page too (DPDK,
 *         hw-docs/dpdk-bnxt.md 2)
 *   BAR4  8 KiB   MSI-X table at 0, PBA at 0x1000 (BNXT_MODEL_MSIX_*)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "sim/bnxt/bnxt_sim.h"
#include "sim/bnxt/priv.h"

#define BSIM_QUEUES_DEFAULT	8
#define BSIM_DPI_MIN		64	/* the hw-docs/bnxt.md 7.4 worked example */
#define BSIM_PCI_REVISION	0x01
#define BSIM_PCI_CLASS		0x020000	/* Ethernet controller */
#define BSIM_MAX_DELAY_MS	10000

/* Resource maxima from the queue count: a queue is a TX ring with its CQ and
 * an RX ring with its AGG ring and CQ; plus an NQ per queue and one for
 * async events, a VNIC per queue (zero-copy steering) plus the default. */
static void set_limits(struct bsim *m)
{
	unsigned q = m->queues;

	m->max.tx = q;
	m->max.rx = 2 * q;
	m->max.cq = 2 * q;
	m->max.nq = q + 1;
	m->max.stat = 2 * q + 1;
	m->max.vnic = q + 1;
	m->max.rss = q + BNXT_RSS_TABLE_MAX_TBL_P5;
	m->max.l2 = BSIM_MAX_L2;
	/* one DPI per ring, at least the 64 of the worked example */
	m->ndpi = 6 * q + 2;
	if (m->ndpi < BSIM_DPI_MIN)
		m->ndpi = BSIM_DPI_MIN;
	m->first_dpi = bnxt_mdb_first_dpi(false, BSIM_DB_PAGE);
	m->bar2_size = zn_roundup_pow2((uint64_t)(m->first_dpi + m->ndpi) * BSIM_DB_PAGE);
}

/* ---- trapped BAR accesses ---- */

static int bar0_access(struct bsim *m, uint64_t off, void *buf, uint32_t count, bool is_write)
{
	if (off + count <= BNXT_HWRM_MAX_REQ_LEN) {
		if (is_write)
			memcpy(m->win + off, buf, count);
		else
			memcpy(buf, m->win + off, count);
		return 0;
	}
	if (off == BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER && count == 4) {
		uint32_t v;

		if (!is_write) {
			memset(buf, 0, count);
			return 0;
		}
		memcpy(&v, buf, 4);
		return bsim_hwrm_trigger(m, v);
	}
	/* Everything else (GRC windows, Kong, status): reads 0, writes ignored. */
	if (is_write) {
		BSIM_INC(m, bar0_ignored);
		ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: BAR0 write of %u bytes at %#llx ignored (only the HWRM window "
				 "0x0-0x7f and the trigger at 0x100 are implemented)", m->name,
				 count, (unsigned long long)off);
	} else {
		memset(buf, 0, count);
	}
	return 0;
}

static int bar2_access(struct bsim *m, uint64_t off, void *buf, uint32_t count, bool is_write)
{
	uint64_t legacy = bnxt_db_legacy_off_p5(false);

	if (!is_write) {
		memset(buf, 0, count);	/* doorbells are write-only */
		return 0;
	}
	if (off == legacy && count == 8) {
		uint64_t v;

		memcpy(&v, buf, 8);
		BSIM_INC(m, db_legacy);
		if (zn_vfu_mem_enabled(m->dev))
			bsim_db_write(m, v, -1);
		return 0;
	}
	BSIM_INC(m, db_bad);
	BSIM_INC(m, db_bad_access);
	ZN_SIM_LOG_RL_AT(&m->rl_db, ZN_SIM_LOG_WARN, BSIM_LOG,
			 "%s: BAR2 write of %u bytes at %#llx dropped: a P5 doorbell is one "
			 "64-bit store at %#llx%s", m->name, count, (unsigned long long)off,
			 (unsigned long long)legacy,
			 m->multidb ? " or at offset 0 of a DPI page (mapped)" : "");
	return 0;
}

static int bsim_bar_access(void *opaque, unsigned bar, uint64_t off, void *buf, uint32_t count,
			   bool is_write)
{
	struct bsim *m = opaque;

	switch (bar) {
	case BNXT_BAR_REGS:
		return bar0_access(m, off, buf, count, is_write);
	case BNXT_BAR_DB:
		return bar2_access(m, off, buf, count, is_write);
	default:
		/* BAR4 outside the MSI-X table and PBA: nothing there */
		if (!is_write)
			memset(buf, 0, count);
		return 0;
	}
}

/* ---- poll ---- */

static int link_poll(struct bsim *m)
{
	bool up = m->port.wire && !__atomic_load_n(&m->admin_down, __ATOMIC_RELAXED);

	if (up == m->link_up)
		return 0;
	m->link_up = up;
	BSIM_INC(m, link_changes);
	ZN_SIM_INFO(BSIM_LOG, "%s: link %s", m->name, up ? "up" : "down");
	bsim_async_link(m);
	return 1;
}

static void bsim_reset(void *opaque, enum zn_vfu_reset_why why);

static int bsim_poll(void *opaque, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct bsim *m = opaque;
	int work = 0;

	if (m->port.fault && bsim_fault_poll(m) == ZN_SIM_FAULT_FLR)
		bsim_reset(m, ZN_VFU_RESET_DEVICE);
	if (m->fw_dead)
		return 0;	/* a dead firmware answers nothing, moves nothing */
	work += bsim_hwrm_mapped_poll(m);
	if (m->hwrm_pending || m->valid_pending)
		work += bsim_hwrm_poll(m, now_ns, deadline_ns);
	work += link_poll(m);
	if (!zn_vfu_mem_enabled(m->dev))
		return work;
	work += bsim_db_poll(m);
	/* Without bus mastering the device cannot fetch a BD: TX waits. */
	if (m->ntx && zn_vfu_bus_master(m->dev) &&
	    !zn_sim_fault_tx_hold(&m->port, now_ns, deadline_ns))
		work += zn_sim_fault_tx_ran(&m->port, bsim_tx_poll(m));
	if (m->tpa_open)
		work += bsim_tpa_poll(m);
	work += bsim_stats_poll(m, now_ns, deadline_ns);
	return work;
}

static void bsim_reset(void *opaque, enum zn_vfu_reset_why why)
{
	struct bsim *m = opaque;

	/* A new client gets new BAR pages (the old ones may be gone already):
	 * look them up before the rings let go of their DPI pages. */
	m->bar2 = zn_vfu_bar_mem(m->dev, BNXT_BAR_DB);
	m->bar0 = zn_vfu_bar_mem(m->dev, BNXT_BAR_REGS);
	m->legacy_last = 0;
	bsim_free_all(m);
	m->bs_done = false;
	m->registered = false;
	memset(m->async_fwd, 0, sizeof(m->async_fwd));
	memset(&m->rsv, 0, sizeof(m->rsv));
	m->admin_mtu = (uint16_t)m->mtu;
	m->mru = (uint16_t)(m->mtu + BSIM_FRAME_OVERHEAD);
	memset(m->win, 0, sizeof(m->win));
	m->hwrm_pending = false;
	m->valid_pending = false;
	/* a dead firmware stays dead for the client that saw it die: only the
	 * next client (a power cycle, as far as it can tell) gets a live one */
	if (why != ZN_VFU_RESET_DEVICE)
		m->fw_dead = false;
	m->link_up = m->port.wire && !__atomic_load_n(&m->admin_down, __ATOMIC_RELAXED);
	ZN_SIM_DEBUG(BSIM_LOG, "%s: reset (%d)", m->name, (int)why);
}

/* Stores made with memory decoding off never reached the device. */
static void bsim_command(void *opaque, uint16_t old_cmd, uint16_t new_cmd)
{
	struct bsim *m = opaque;

	if (!(old_cmd & ZN_VFU_CMD_MEMORY) && (new_cmd & ZN_VFU_CMD_MEMORY))
		bsim_db_rebase(m);
}

static const struct zn_vfu_dev_ops bsim_dev_ops = {
	.bar_access = bsim_bar_access,
	.poll = bsim_poll,
	.reset = bsim_reset,
	.command = bsim_command,
};

/* ---- options ---- */

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	/* a port's own address is unicast and not all-zero */
	if ((mac[0] & 1) || !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]))
		return -EINVAL;
	return 0;
}

static int arg_mac(struct zn_sim_args *a, uint8_t mac[6], char *err, size_t errlen)
{
	for (unsigned i = 0; i < a->n; i++) {
		if (strcmp(a->kv[i].key, "mac"))
			continue;
		a->kv[i].used = true;
		if (parse_mac(a->kv[i].val, mac)) {
			snprintf(err, errlen, "mac=%s: want a unicast address xx:xx:xx:xx:xx:xx",
				 a->kv[i].val);
			return -EINVAL;
		}
	}
	return 0;
}

/* Locally administered 02:5a:6e:xx:xx:xx from the device name (FNV-1a), so
 * that two devices of one zn-nicsim get different addresses. */
static void default_mac(const char *name, uint8_t mac[6])
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	mac[0] = 0x02;
	mac[1] = 0x5a;
	mac[2] = 0x6e;
	mac[3] = (uint8_t)(h >> 16);
	mac[4] = (uint8_t)(h >> 8);
	mac[5] = (uint8_t)h;
}

static int bsim_create(struct zn_vfu_dev *dev, struct zn_sim_args *args, void **model, char *err,
		       size_t errlen)
{
	struct bsim *m = calloc(1, sizeof(*m));
	uint64_t multidb = 1, queues = BSIM_QUEUES_DEFAULT, mtu = BSIM_MTU_MAX, drop = 0,
		 corrupt = 0, fail_cmd = UINT64_MAX, delay = 0, legacy_map = 0;
	struct zn_vfu_dev_desc d = {
		.vendor_id = BNXT_PCI_VENDOR_BROADCOM,
		.device_id = BNXT_DEV_57508,
		.subsys_vendor_id = BNXT_PCI_VENDOR_BROADCOM,
		.subsys_id = BNXT_DEV_57508,
		.class_code = BSIM_PCI_CLASS,
		.revision = BSIM_PCI_REVISION,
		.msix_vectors = BNXT_MODEL_MSIX_VECTORS,
		.msix_table_bar = BNXT_MODEL_MSIX_BAR,
		.msix_table_offset = BNXT_MODEL_MSIX_TABLE_OFF,
		.msix_pba_bar = BNXT_MODEL_MSIX_BAR,
		.msix_pba_offset = BNXT_MODEL_MSIX_PBA_OFF,
		.bar[0] = { .size = BSIM_BAR0_SIZE, .type = ZN_VFU_BAR_MEM64, .prefetch = true,
			    .nr_areas = 1, .areas[0] = { 0, BSIM_BAR0_SIZE } },
		.bar[4] = { .size = BNXT_MODEL_BAR4_SIZE, .type = ZN_VFU_BAR_MEM64,
			    .prefetch = true },
		.pcie = true,
		.ops = &bsim_dev_ops,
	};
	int ret;

	if (!m)
		return -ENOMEM;
	m->dev = dev;
	m->name = zn_vfu_dev_name(dev);
	default_mac(m->name, m->mac);
	if ((ret = arg_mac(args, m->mac, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "multidb", 0, 1, &multidb, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "queues", 1, BSIM_QUEUES_MAX, &queues, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "mtu", 68, BSIM_MTU_MAX, &mtu, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "drop", 0, UINT32_MAX, &drop, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "corrupt", 0, UINT32_MAX, &corrupt, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "fail_cmd", 0, 0xffff, &fail_cmd, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "valid_delay_ms", 0, BSIM_MAX_DELAY_MS, &delay, err,
				  errlen)) ||
	    (ret = zn_sim_arg_u64(args, "legacy_db_map", 0, 1, &legacy_map, err, errlen)))
		goto err;
	m->multidb = multidb;
	m->queues = (unsigned)queues;
	m->mtu = (unsigned)mtu;
	m->drop_every = (uint32_t)drop;
	m->corrupt_every = (uint32_t)corrupt;
	m->fail_cmd = fail_cmd == UINT64_MAX ? -1 : (int)fail_cmd;
	m->valid_delay_ms = (uint32_t)delay;
	m->legacy_db_mapped = legacy_map;
	set_limits(m);
	/* EUI-64 from the MAC: the serial number real NICs carry */
	m->dsn = (uint64_t)m->mac[0] << 56 | (uint64_t)m->mac[1] << 48 |
		 (uint64_t)m->mac[2] << 40 | 0xfffeull << 24 | (uint64_t)m->mac[3] << 16 |
		 (uint64_t)m->mac[4] << 8 | m->mac[5];
	d.dsn = m->dsn;
	d.bar[2] = (struct zn_vfu_bar){ .size = m->bar2_size, .type = ZN_VFU_BAR_MEM64,
					.prefetch = true };
	if (m->legacy_db_mapped) {
		/* A driver that maps BAR2 whole (DPDK 22.11 ignores sparse
		 * areas) and stores its doorbells at the legacy page. */
		d.bar[2].nr_areas = 1;
		d.bar[2].areas[0].offset = 0;
		d.bar[2].areas[0].size = m->bar2_size;
	} else if (m->multidb) {
		d.bar[2].nr_areas = 1;
		d.bar[2].areas[0].offset = (uint64_t)m->first_dpi * BSIM_DB_PAGE;
		d.bar[2].areas[0].size = (uint64_t)m->ndpi * BSIM_DB_PAGE;
	}
	m->port.name = m->name;
	m->port.rx = bsim_rx;
	m->port.opaque = m;
	d.opaque = m;
	ret = zn_vfu_dev_realize(dev, &d);
	if (ret) {
		snprintf(err, errlen, "bnxt: cannot realize the device (%s)", strerror(-ret));
		goto err;
	}
	*model = m;
	return 0;
err:
	free(m);
	return ret;
}

static void bsim_destroy(void *model)
{
	free(model);
}

static void bsim_stats(void *model, zn_vfu_emit_fn emit, void *ctx)
{
	struct bsim *m = model;

#define BSIM_X(n) emit(ctx, #n, __atomic_load_n(&m->c.n, __ATOMIC_RELAXED));
	BSIM_COUNTERS(BSIM_X)
#undef BSIM_X
	emit(ctx, "link_up", __atomic_load_n(&m->link_up, __ATOMIC_RELAXED));
	emit(ctx, "port.tx_frames", m->port.tx_frames);
	emit(ctx, "port.tx_dropped", m->port.tx_dropped);
	emit(ctx, "port.rx_frames", m->port.rx_frames);
	emit(ctx, "port.rx_fcs_errors", m->port.rx_fcs_errors);
}

static unsigned bsim_nports(void *model)
{
	(void)model;
	return 1;
}

static struct zn_sim_port *bsim_port(void *model, unsigned index)
{
	struct bsim *m = model;

	return index == 0 ? &m->port : NULL;
}

const struct zn_sim_model_ops zn_sim_model_bnxt = {
	.name = "bnxt",
	.summary = "Broadcom BCM57508 (14e4:1750, P5) PF: HWRM, NQ/CQ/TX/RX/AGG rings, "
		   "RSS, HDS, n-tuple; one port",
	.options =
		"  mac=ADDR          port MAC address (default 02:5a:6e:xx:xx:xx from the name)\n"
		"  multidb=0|1       advertise multi-doorbell mode, polled DPI pages (default 1;\n"
		"                    0: only the trapped legacy doorbell)\n"
		"  queues=N          TX/RX queue pairs the function may allocate, 1-32 (default 8)\n"
		"  mtu=N             largest MTU, 68-9000 (default 9000)\n"
		"  drop=N            fault: drop every Nth received frame (default 0: none)\n"
		"  corrupt=N         fault: flip a byte of every Nth sent frame (default 0)\n"
		"  fail_cmd=N        fault: answer HWRM req_type N with FAIL (default: none)\n"
		"  valid_delay_ms=N  fault: write an HWRM response's valid byte N ms after the\n"
		"                    rest (default 0)\n"
		"  legacy_db_map=0|1 1: all of BAR2 mmap-able, the legacy doorbell page polled\n"
		"                    (for drivers that store doorbells there, e.g. DPDK's PMD;\n"
		"                    a poll sees only the last of several stores; default 0:\n"
		"                    trapped, every doorbell a message)\n",
	.create = bsim_create,
	.destroy = bsim_destroy,
	.stats = bsim_stats,
	.nports = bsim_nports,
	.port = bsim_port,
};

int zn_sim_bnxt_set_link(struct zn_sim_device *d, bool up)
{
	struct bsim *m;

	if (!d || d->ops != &zn_sim_model_bnxt)
		return -EINVAL;
	m = d->model;
	__atomic_store_n(&m->admin_down, up ? 0 : 1, __ATOMIC_RELAXED);
	return 0;
}
