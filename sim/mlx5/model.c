/* SPDX-License-Identifier: MIT */
/*
 * mlx5: an NVIDIA ConnectX-6 Dx (15b3:101d) or ConnectX-7 (15b3:1021) PF as
 * zn-nicsim model: PCI identity, BAR0, the boot handshake, health, the poll
 * that runs doorbells, reset, options and counters. hw-docs/mlx5.md is the
 * interface; hw-docs/mlx5-model.md the model's own choices.
 *
 * BAR0 (64-bit, 1 MiB):
 *   0x00000-0x00fff  initialization segment, trapped (reads are built from
 *                    the model's state; the command doorbell is a write)
 *   0x01000-0xfffff  UAR pages 1..255, mmap-able and polled; the internal
 *                    timer and health counter (0x1000-0x1013) are stored
 *                    into the start of page 1 by the model, so that they
 *                    read the same mapped or trapped
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/mlx5/mlx5_sim.h"
#include "sim/mlx5/priv.h"

#define MSIM_PCI_CLASS		0x020000	/* Ethernet controller */
#define MSIM_PCI_REVISION	0x00

uint64_t msim_timer_ns(void)
{
	return zn_vfu_now_ns();
}

void msim_fatal(struct msim *m, uint8_t synd, uint16_t ext)
{
	if (m->synd)
		return;
	m->synd = synd ? synd : ZN_MLX5_HEALTH_SYND_FW_INTERNAL_ERR;
	m->ext_synd = ext;
	MSIM_INC(m, fatal_events);
	ZN_SIM_WARN(MSIM_LOG, "%s: fatal error, health syndrome %#x ext %#x", m->name, m->synd,
		    ext);
}

/* ---- BAR0 ---- */

static uint32_t iseg_read(struct msim *m, uint64_t off, uint64_t now)
{
	switch (off) {
	case ZN_MLX5_ISEG_FW_REV:
		return (uint32_t)m->fw_minor << 16 | m->fw_major;
	case ZN_MLX5_ISEG_CMDIF_REV_FW_SUB:
		return (uint32_t)ZN_MLX5_CMD_IF_REV << 16 | m->fw_sub;
	case ZN_MLX5_ISEG_CMDQ_ADDR_H:
		return m->cmdq_hi;
	case ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ:
		return (uint32_t)(m->cmdq & 0xfffff000u) |
		       (uint32_t)(m->state == MS_DISABLED && m->synd ? ZN_MLX5_NIC_IFC_DISABLED : 0)
			       << 8 |
		       MSIM_LOG_CMDQ_SIZE << 4 | MSIM_LOG_CMDQ_STRIDE;
	case ZN_MLX5_ISEG_CMD_EXEC_TO:	/* a command not done by then never will be */
		return m->port.fault && m->port.fault->cmd_hang >= 0 ? MSIM_CMD_EXEC_TO_HANG :
								       MSIM_CMD_EXEC_TO;
	case ZN_MLX5_ISEG_INITIALIZING:
		return now < m->touched_ns + MSIM_INIT_DELAY_NS ? ZN_MLX5_ISEG_INITIALIZING_BIT : 0;
	case ZN_MLX5_ISEG_HEALTH_FW_VER:
		return (uint32_t)m->fw_major << 24 | (uint32_t)m->fw_minor << 8;
	case ZN_MLX5_ISEG_HEALTH_SYND_DW:
		return (uint32_t)m->synd << 16 | m->ext_synd;
	case ZN_MLX5_ISEG_INTERNAL_TIMER_H:
		return (uint32_t)(now >> 32);
	case ZN_MLX5_ISEG_INTERNAL_TIMER_L:
		return (uint32_t)now;
	case ZN_MLX5_ISEG_HEALTH_COUNTER:
		return (uint32_t)m->synd << 24 | (m->health_counter & ZN_MLX5_HEALTH_COUNTER_MASK);
	default:
		return 0;
	}
}

static void iseg_write(struct msim *m, uint64_t off, uint32_t v)
{
	switch (off) {
	case ZN_MLX5_ISEG_CMDQ_ADDR_H:
		m->cmdq_hi = v;
		return;
	case ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ:
		/* This write commits the address (hw-docs/mlx5.md 3). */
		m->cmdq = (uint64_t)m->cmdq_hi << 32 | (v & 0xfffff000u);
		return;
	case ZN_MLX5_ISEG_CMD_DBELL:
		if (m->cmdq && zn_vfu_bus_master(m->dev))
			msim_cmd_doorbell(m, v);
		else
			MSIM_INC(m, cmd_delivery_errors);
		return;
	default:
		MSIM_INC(m, bar0_ignored);
		return;
	}
}

static int msim_bar_access(void *opaque, unsigned bar, uint64_t off, void *buf, uint32_t count,
			   bool is_write)
{
	struct msim *m = opaque;
	uint64_t now = msim_timer_ns();

	if (bar != 0) {
		if (!is_write)
			memset(buf, 0, count);
		return 0;
	}
	if (!m->touched_ns)
		m->touched_ns = now;
	/* Registers are whole big-endian dwords (hw-docs/mlx5.md 3). */
	if ((off & 3) || (count != 4 && count != 8)) {
		if (!is_write)
			memset(buf, 0, count);
		MSIM_INC(m, bar0_ignored);
		return 0;
	}
	for (uint32_t i = 0; i < count; i += 4) {
		uint32_t v;

		if (is_write) {
			memcpy(&v, (uint8_t *)buf + i, 4);
			iseg_write(m, off + i, zn_mlx5_bswap32(v));
		} else {
			v = zn_mlx5_bswap32(iseg_read(m, off + i, now));
			memcpy((uint8_t *)buf + i, &v, 4);
		}
	}
	return 0;
}

/* ---- poll ---- */

static void health_poll(struct msim *m, uint64_t now, uint64_t *deadline)
{
	int req = __atomic_exchange_n(&m->fatal_req, 0, __ATOMIC_RELAXED);

	if (req)
		msim_fatal(m, (uint8_t)req, (uint16_t)(req >> 8));
	if (m->fatal_due_ns) {
		if (now >= m->fatal_due_ns) {
			m->fatal_due_ns = 0;
			msim_fatal(m, m->fatal_synd, 0);
		} else if (m->fatal_due_ns < *deadline) {
			*deadline = m->fatal_due_ns;
		}
	}
	if (!m->health_next_ns)
		m->health_next_ns = now + MSIM_HEALTH_TICK_NS;
	while (!m->synd && now >= m->health_next_ns) {
		m->health_counter++;
		m->health_next_ns += MSIM_HEALTH_TICK_NS;
		MSIM_INC(m, health_ticks);
	}
	if (m->health_next_ns < *deadline)
		*deadline = m->health_next_ns;
	if (m->bar0) {
		/* The registers of 0x1000-0x1013 live in the mapped page 1. */
		uint8_t *p = m->bar0 + ZN_MLX5_ISEG_INTERNAL_TIMER_H;

		zn_mlx5_st_be32(p, (uint32_t)(now >> 32));
		zn_mlx5_st_be32(p + 4, (uint32_t)now);
		zn_mlx5_st_be32(m->bar0 + ZN_MLX5_ISEG_HEALTH_COUNTER,
				(uint32_t)m->synd << 24 |
					(m->health_counter & ZN_MLX5_HEALTH_COUNTER_MASK));
	}
}

static void msim_reset(void *opaque, enum zn_vfu_reset_why why);

static int msim_poll(void *opaque, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct msim *m = opaque;

	if (m->port.fault && msim_fault_poll(m) == ZN_SIM_FAULT_FLR)
		msim_reset(m, ZN_VFU_RESET_DEVICE);
	health_poll(m, now_ns, deadline_ns);
	msim_link_poll(m);
	if (m->synd || !zn_vfu_mem_enabled(m->dev))
		return 0;
	msim_cqe_release(m);
	msim_uar_poll(m);
	msim_cq_moderation_poll(m, now_ns, deadline_ns);
	if (m->gro_open)
		msim_gro_poll(m);
	if (!zn_vfu_bus_master(m->dev) || zn_sim_fault_tx_hold(&m->port, now_ns, deadline_ns))
		return 0;
	return zn_sim_fault_tx_ran(&m->port, msim_tx_poll(m));
}

static void msim_reset(void *opaque, enum zn_vfu_reset_why why)
{
	struct msim *m = opaque;

	m->bar0 = zn_vfu_bar_mem(m->dev, 0);
	msim_free_objects(m);
	MSIM_ADD(m, pages_lost_reset, m->npages);
	m->npages = 0;
	/* frames behind CQEs still held back never reach the host: drops */
	MSIM_ADD(m, rx_dropped, m->held_frames);
	m->cqe_held = false;
	m->held_frames = m->held_bytes = 0;
	m->state = MS_DISABLED;
	m->issi_set = false;
	m->touched_ns = 0;
	m->cmdq = 0;
	m->cmdq_hi = 0;
	m->synd = 0;
	m->ext_synd = 0;
	m->health_next_ns = 0;
	m->fatal_due_ns = 0;
	m->admin_up = false;
	m->link_up = false;
	m->admin_mtu = ZN_SIM_FRAME_MAX + 22;
	memset(m->vport_ctx, 0, sizeof(m->vport_ctx));
	memcpy((uint8_t *)ZN_MLX5_ADDR(m->vport_ctx, NIC_VPORT_PERMANENT_ADDRESS) +
		       ZN_MLX5_NIC_VPORT_MAC_OFF_IN_ADDR, m->mac, 6);
	ZN_MLX5_SET(m->vport_ctx, NIC_VPORT_MTU, ZN_SIM_FRAME_MAX + 22);
	ZN_SIM_DEBUG(MSIM_LOG, "%s: reset (%d)", m->name, (int)why);
}

static const struct zn_vfu_dev_ops msim_dev_ops = {
	.bar_access = msim_bar_access,
	.poll = msim_poll,
	.reset = msim_reset,
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
	if ((mac[0] & 1) || !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]))
		return -EINVAL;
	return 0;
}

static int arg_str(struct zn_sim_args *a, const char *key, const char **val)
{
	for (unsigned i = 0; i < a->n; i++) {
		if (!strcmp(a->kv[i].key, key)) {
			a->kv[i].used = true;
			*val = a->kv[i].val;
			return 1;
		}
	}
	return 0;
}

/* Locally administered 02:6d:6c:xx:xx:xx from the device name (FNV-1a). */
static void default_mac(const char *name, uint8_t mac[6])
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	mac[0] = 0x02;
	mac[1] = 0x6d;
	mac[2] = 0x6c;
	mac[3] = (uint8_t)(h >> 16);
	mac[4] = (uint8_t)(h >> 8);
	mac[5] = (uint8_t)h;
}

static int msim_create(struct zn_vfu_dev *dev, struct zn_sim_args *args, void **model, char *err,
		       size_t errlen)
{
	struct msim *m = calloc(1, sizeof(*m));
	struct zn_vfu_dev_desc d = {
		.vendor_id = ZN_MLX5_PCI_VENDOR_MELLANOX,
		.subsys_vendor_id = ZN_MLX5_PCI_VENDOR_MELLANOX,
		.class_code = MSIM_PCI_CLASS,
		.revision = MSIM_PCI_REVISION,
		.bar[0] = { .size = MSIM_BAR0_SIZE, .type = ZN_VFU_BAR_MEM64, .prefetch = true,
			    .nr_areas = 1,
			    .areas[0] = { .offset = ZN_MLX5_UAR_PAGE_SIZE,
					  .size = MSIM_BAR0_SIZE - ZN_MLX5_UAR_PAGE_SIZE } },
		/* MSI-X table and PBA trapped in a BAR of their own (model
		 * choice): BAR0's pages are the UARs, mapped */
		.bar[MSIM_MSIX_BAR] = { .size = MSIM_MSIX_BAR_SIZE, .type = ZN_VFU_BAR_MEM64 },
		.msix_vectors = MSIM_MSIX_VECTORS,
		.msix_table_bar = MSIM_MSIX_BAR,
		.msix_table_offset = MSIM_MSIX_TABLE_OFF,
		.msix_pba_bar = MSIM_MSIX_BAR,
		.msix_pba_offset = MSIM_MSIX_PBA_OFF,
		.pcie = true,
		.ops = &msim_dev_ops,
	};
	const char *v;
	uint64_t fatal_ms = 0, fatal_synd = ZN_MLX5_HEALTH_SYND_HW_FATAL_ERR;
	int ret = -EINVAL;

	if (!m)
		return -ENOMEM;
	m->dev = dev;
	m->name = zn_vfu_dev_name(dev);
	default_mac(m->name, m->mac);
	m->device_id = ZN_MLX5_DEV_CX6DX;
	if (arg_str(args, "mac", &v) && parse_mac(v, m->mac)) {
		snprintf(err, errlen, "mac=%s: want a unicast address xx:xx:xx:xx:xx:xx", v);
		goto err;
	}
	if (arg_str(args, "device", &v)) {
		if (!strcmp(v, "cx6dx")) {
			m->device_id = ZN_MLX5_DEV_CX6DX;
		} else if (!strcmp(v, "cx7")) {
			m->device_id = ZN_MLX5_DEV_CX7;
		} else {
			snprintf(err, errlen, "device=%s: want cx6dx or cx7", v);
			goto err;
		}
	}
	if ((ret = zn_sim_arg_u64(args, "fatal_after_ms", 0, 3600000, &fatal_ms, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "fatal_synd", 1, 0xff, &fatal_synd, err, errlen)))
		goto err;
	m->fatal_after_ms = (uint32_t)fatal_ms;
	m->fatal_synd = (uint8_t)fatal_synd;
	/* Firmware 22.40.1000 (CX-6 Dx) or 28.40.1000 (CX-7), hw-docs/mlx5.md 3 */
	m->fw_major = m->device_id == ZN_MLX5_DEV_CX7 ? 28 : 22;
	m->fw_minor = 40;
	m->fw_sub = 1000;
	d.device_id = m->device_id;
	d.subsys_id = m->device_id;
	d.dsn = (uint64_t)m->mac[0] << 56 | (uint64_t)m->mac[1] << 48 |
		(uint64_t)m->mac[2] << 40 | 0xfffeull << 24 | (uint64_t)m->mac[3] << 16 |
		(uint64_t)m->mac[4] << 8 | m->mac[5];
	m->port.name = m->name;
	m->port.rx = msim_rx;
	m->port.opaque = m;
	d.opaque = m;
	ret = zn_vfu_dev_realize(dev, &d);
	if (ret) {
		snprintf(err, errlen, "mlx5: cannot realize the device (%s)", strerror(-ret));
		goto err;
	}
	*model = m;
	return 0;
err:
	free(m);
	return ret;
}

static void msim_destroy(void *model)
{
	struct msim *m = model;

	msim_free_objects(m);
	free(m);
}

static void msim_stats(void *model, zn_vfu_emit_fn emit, void *ctx)
{
	struct msim *m = model;

#define MSIM_X(n) emit(ctx, #n, __atomic_load_n(&m->c.n, __ATOMIC_RELAXED));
	MSIM_COUNTERS(MSIM_X)
#undef MSIM_X
	emit(ctx, "pages_held", __atomic_load_n(&m->npages, __ATOMIC_RELAXED));
	emit(ctx, "health_counter", __atomic_load_n(&m->health_counter, __ATOMIC_RELAXED));
	emit(ctx, "health_synd", __atomic_load_n(&m->synd, __ATOMIC_RELAXED));
	emit(ctx, "link_up", __atomic_load_n(&m->link_up, __ATOMIC_RELAXED));
	emit(ctx, "port.tx_frames", m->port.tx_frames);
	emit(ctx, "port.tx_dropped", m->port.tx_dropped);
	emit(ctx, "port.rx_frames", m->port.rx_frames);
	emit(ctx, "port.rx_fcs_errors", m->port.rx_fcs_errors);
}

static unsigned msim_nports(void *model)
{
	(void)model;
	return 1;
}

static struct zn_sim_port *msim_port(void *model, unsigned index)
{
	struct msim *m = model;

	return index == 0 ? &m->port : NULL;
}

const struct zn_sim_model_ops zn_sim_model_mlx5 = {
	.name = "mlx5",
	.summary = "NVIDIA ConnectX-6 Dx (15b3:101d) / ConnectX-7 (15b3:1021) PF: command "
		   "queue, page supply, EQ/CQ/SQ/RQ, SHAMPO, RSS, flow steering; one port",
	.options =
		"  mac=ADDR          port MAC address (default 02:6d:6c:xx:xx:xx from the name)\n"
		"  device=cx6dx|cx7  PCI device 15b3:101d or 15b3:1021 (default cx6dx)\n"
		"  fatal_after_ms=N  fault: a fatal firmware error N ms after INIT_HCA\n"
		"                    (default 0: never)\n"
		"  fatal_synd=N      its health syndrome, 1-255 (default 8: hardware fatal)\n",
	.create = msim_create,
	.destroy = msim_destroy,
	.stats = msim_stats,
	.nports = msim_nports,
	.port = msim_port,
};

static struct msim *model_of(struct zn_sim_device *d)
{
	return d && d->ops == &zn_sim_model_mlx5 ? d->model : NULL;
}

int zn_sim_mlx5_set_fatal(struct zn_sim_device *d, uint8_t synd, uint16_t ext_synd)
{
	struct msim *m = model_of(d);

	if (!m || !synd)
		return -EINVAL;
	__atomic_store_n(&m->fatal_req, (int)synd | (int)ext_synd << 8, __ATOMIC_RELAXED);
	return 0;
}

int zn_sim_mlx5_exec(struct zn_sim_device *d, const void *in, size_t inlen, void *out,
		     size_t outlen)
{
	struct msim *m = model_of(d);
	struct msim_cmd c;

	if (!m || inlen > MSIM_MSG_MAX || outlen > MSIM_MSG_MAX || !outlen)
		return -EINVAL;
	memset(m->msg_in, 0, inlen);
	memcpy(m->msg_in, in, inlen);
	c = (struct msim_cmd){ .in = m->msg_in, .inlen = inlen, .out = m->msg_out,
			       .outlen = outlen };
	msim_cmd_exec(m, &c);
	memcpy(out, m->msg_out, outlen);
	return 0;
}
