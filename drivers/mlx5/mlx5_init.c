/* SPDX-License-Identifier: MIT */
/*
 * HCA bring-up and teardown as one sequence (hw-docs/mlx5.md §4), in the
 * order Linux, rdma-core's VFIO provider and Snabb's connectx.lua follow;
 * each step names its opcode and the section that explains it. Teardown
 * runs the same list backwards, then returns every page (§6).
 *
 * Health (§13): the device is dead when fw_ver reads all ones, synd is set,
 * nic_interface says DISABLED/SW_RESET, or the health counter stands still
 * for ZN_MLX5_HEALTH_MAX_MISSES polls. A dead device gets no more commands;
 * the port stops and says why in one line. A function reset under the
 * driver is not fatal: mlx5_recover.c brings the port back (§13b).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/bus/ibv_bus.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

#define SUPPORTED_ISSI_BIT1	(1u << ZN_MLX5_ISSI)	/* supported_issi_dw0 bit 1 = ISSI 1 */

static int iseg_read(struct mlx5 *m, uint32_t off, uint32_t *v)
{
	int rc = zn_bus_read32(m->bus, 0, off, v);

	if (rc == 0)
		*v = zn_mlx5_bswap32(*v);
	return rc;
}

/* Is the dword at BAR0 + off in a mapped part of the BAR? */
static bool iseg_mapped(const struct mlx5 *m, uint64_t off)
{
	const struct zn_region_info *ri = &m->bus->region[0];

	if (!m->bus->region_va[0] || off + 4 > ri->size)
		return false;
	if (ri->nr_sparse == 0)
		return true;
	for (uint32_t i = 0; i < ri->nr_sparse; i++)
		if (off >= ri->sparse[i].offset && off + 4 <= ri->sparse[i].offset + ri->sparse[i].size)
			return true;
	return false;
}

bool zn_mlx5_bar0_mapped(const struct mlx5 *m, uint64_t off)
{
	return iseg_mapped(m, off);
}

static void sleep_ms(uint32_t ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L },
		  NULL);
}

/* §3: firmware timeouts are bits[19:0] x unit(bits[31:29]); 0 = not given. */
uint64_t zn_mlx5_fw_timeout_ms(uint32_t v, uint64_t dflt)
{
	static const uint64_t unit[] = { 1, 1000, 60000, 3600000 };
	uint32_t u = v >> ZN_MLX5_TO_UNIT_SHIFT;

	if (!v || u > ZN_MLX5_TO_UNIT_H)
		return dflt;
	return (uint64_t)(v & ZN_MLX5_TO_VAL_MASK) * unit[u];
}

/* §4 steps 2 and 5: wait (bounded) for `initializing` to read 0. */
static int wait_fw_ready(struct mlx5 *m, uint64_t timeout_ms, const char *when)
{
	uint64_t end = zn_mlx5_now_ms() + timeout_ms;
	uint32_t v;
	int rc;

	for (;;) {
		rc = iseg_read(m, ZN_MLX5_ISEG_INITIALIZING, &v);
		if (rc < 0)
			return rc;
		if (!(v & ZN_MLX5_ISEG_INITIALIZING_BIT))
			return 0;
		if (zn_mlx5_now_ms() >= end) {
			ZN_ERR(MLX5_LOG, "%s: firmware still initializing %s after %llu ms",
			       m->name, when, (unsigned long long)timeout_ms);
			return -ETIMEDOUT;
		}
		sleep_ms(ZN_MLX5_FW_INIT_WAIT_MS);
	}
}

static const char *synd_name(uint8_t s)
{
	switch (s) {
	case ZN_MLX5_HEALTH_SYND_FW_INTERNAL_ERR: return "FW_INTERNAL_ERR";
	case ZN_MLX5_HEALTH_SYND_DEAD_IRISC: return "DEAD_IRISC";
	case ZN_MLX5_HEALTH_SYND_HW_FATAL_ERR: return "HW_FATAL_ERR";
	case ZN_MLX5_HEALTH_SYND_FW_CRC_ERR: return "FW_CRC_ERR";
	case ZN_MLX5_HEALTH_SYND_ICM_FETCH_PCI_ERR: return "ICM_FETCH_PCI_ERR";
	case ZN_MLX5_HEALTH_SYND_ICM_PAGE_ERR: return "ICM_PAGE_ERR";
	case ZN_MLX5_HEALTH_SYND_ASYNC_EQ_OVERRUN: return "ASYNC_EQ_OVERRUN";
	case ZN_MLX5_HEALTH_SYND_EQ_IN_ERR: return "EQ_IN_ERR";
	case ZN_MLX5_HEALTH_SYND_EQ_INV: return "EQ_INV";
	case ZN_MLX5_HEALTH_SYND_FFSER_ERR: return "FFSER_ERR";
	case ZN_MLX5_HEALTH_SYND_HIGH_TEMP_ERR: return "HIGH_TEMP_ERR";
	default: return "unknown";
	}
}

void zn_mlx5_fatal(struct mlx5 *m, const char *why)
{
	if (m->dead)
		return;
	m->dead = true;
	ZN_ERR(MLX5_LOG, "%s: device dead (%s); port stopped, no further commands", m->name, why);
}

int zn_mlx5_health_check(struct mlx5 *m)
{
	uint32_t ver, synd, ctr, ifc;
	char why[96];

	if (m->dead)
		return -EIO;
	if (m->devx)	/* §16: no BAR0 here; mlx5_core watches the firmware */
		return 0;
	if (iseg_read(m, ZN_MLX5_ISEG_HEALTH_FW_VER, &ver) < 0 ||
	    iseg_read(m, ZN_MLX5_ISEG_HEALTH_SYND_DW, &synd) < 0 ||
	    iseg_read(m, ZN_MLX5_ISEG_HEALTH_COUNTER, &ctr) < 0 ||
	    iseg_read(m, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, &ifc) < 0) {
		zn_mlx5_fatal(m, "BAR0 unreadable");
		return -EIO;
	}
	if (ver == 0xffffffffu) {
		zn_mlx5_fatal(m, "fw_ver reads all ones: off the bus");
		return -EIO;
	}
	if ((synd >> 16) & 0xff) {
		snprintf(why, sizeof(why), "health syndrome 0x%02x %s, ext_synd 0x%04x",
			 (synd >> 16) & 0xff, synd_name((uint8_t)(synd >> 16)), synd & 0xffff);
		zn_mlx5_fatal(m, why);
		return -EIO;
	}
	/* A function reset under us (FLR) clears the command queue address
	 * we wrote (§4 step 4): the device forgot every object, and a
	 * command now would never complete. Recovery (§13b) says so. */
	if (m->cmd_ops == &zn_mlx5_cmdq_ops && m->cmdq.dma &&
	    (ifc & 0xfffff000u) != ((uint32_t)m->cmdq.dma->iova & 0xfffff000u)) {
		m->reset_seen = true;
		m->dead = true;
		return -EIO;
	}
	ifc = (ifc >> 8) & 0x7;
	if (ifc == ZN_MLX5_NIC_IFC_DISABLED || ifc == ZN_MLX5_NIC_IFC_SW_RESET) {
		snprintf(why, sizeof(why), "nic_interface %u", ifc);
		zn_mlx5_fatal(m, why);
		return -EIO;
	}
	/* The counter is judged only at the health period, not at every call. */
	if (zn_mlx5_now_ms() >= m->health_next_ms) {
		ctr &= ZN_MLX5_HEALTH_COUNTER_MASK;
		m->health_misses = ctr == m->health_last ? m->health_misses + 1 : 0;
		m->health_last = ctr;
		m->health_next_ms = zn_mlx5_now_ms() + ZN_MLX5_HEALTH_POLL_MS;
		if (m->health_misses >= ZN_MLX5_HEALTH_MAX_MISSES) {
			snprintf(why, sizeof(why), "health counter stuck at 0x%06x for %u polls",
				 ctr, m->health_misses);
			zn_mlx5_fatal(m, why);
			return -EIO;
		}
	}
	return 0;
}

/* Commands whose input is only the header plus at most one number. */
static int simple_cmd(struct mlx5 *m, uint16_t op, uint16_t op_mod, uint32_t *out_val)
{
	uint8_t in[16] = { 0 }, out[16];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, op);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc == 0 && out_val)	/* ALLOC_* outputs: dword 0x08 [23:0] */
		*out_val = zn_mlx5_ld_be32(out + 8) & 0xffffff;
	return rc;
}

/* §4 step 7: QUERY_ISSI must offer ISSI 1; SET_ISSI 1. */
static int set_issi(struct mlx5 *m)
{
	uint8_t in[ZN_MLX5_SZ_SET_ISSI_IN] = { 0 }, out[ZN_MLX5_SZ_QUERY_ISSI_OUT];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_ISSI);
	rc = zn_mlx5_cmd(m, in, ZN_MLX5_SZ_QUERY_ISSI_IN, out, sizeof(out));
	if (rc < 0)
		return rc;
	if (!(ZN_MLX5_GET(out, QUERY_ISSI_OUT_SUPPORTED_ISSI) & SUPPORTED_ISSI_BIT1)) {
		ZN_ERR(MLX5_LOG, "%s: firmware does not offer ISSI 1", m->name);
		return -EOPNOTSUPP;
	}
	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_ISSI);
	ZN_MLX5_SET(in, SET_ISSI_IN_CURRENT_ISSI, ZN_MLX5_ISSI);
	return zn_mlx5_cmd(m, in, sizeof(in), out, ZN_MLX5_SZ_SET_ISSI_OUT);
}

static int query_cap(struct mlx5 *m, uint16_t type, uint8_t *cap)
{
	uint8_t out[ZN_MLX5_SZ_QUERY_HCA_CAP_OUT];
	uint8_t in[ZN_MLX5_SZ_QUERY_HCA_CAP_IN] = { 0 };
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_HCA_CAP);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(type, ZN_MLX5_HCA_CAP_OPMOD_CUR));
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc == 0)
		memcpy(cap, ZN_MLX5_ADDR(out, QUERY_HCA_CAP_OUT_CAPABILITY), ZN_MLX5_CAP_SIZE);
	return rc;
}

/* §4 step 10: SET_HCA_CAP general with signatures off and 4 KiB UARs,
 * everything else as the device reported it. */
static int set_general_cap(struct mlx5 *m, const uint8_t *cap)
{
	uint8_t in[ZN_MLX5_SZ_SET_HCA_CAP_IN];
	uint8_t out[ZN_MLX5_SZ_SET_HCA_CAP_OUT];

	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_HCA_CAP);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 0));
	memcpy(ZN_MLX5_ADDR(in, SET_HCA_CAP_IN_CAPABILITY), cap, ZN_MLX5_CAP_SIZE);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, SET_HCA_CAP_IN_CAPABILITY), CAP_CMDIF_CHECKSUM, 0);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, SET_HCA_CAP_IN_CAPABILITY), CAP_LOG_UAR_PAGE_SZ, 0);
	return zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
}

/* §4 steps 9-10: read what we need, set what must be set. */
static int hca_caps(struct mlx5 *m)
{
	uint8_t cap[ZN_MLX5_CAP_SIZE];
	struct mlx5_caps *c = &m->caps;
	int rc;

	rc = query_cap(m, ZN_MLX5_CAP_GENERAL, cap);
	if (rc < 0)
		return rc;
	if (ZN_MLX5_GET(cap, CAP_PORT_TYPE) != ZN_MLX5_CAP_PORT_TYPE_ETH) {
		ZN_ERR(MLX5_LOG, "%s: port type is not Ethernet", m->name);
		return -EOPNOTSUPP;
	}
	c->log_max_cq_sz = (uint8_t)ZN_MLX5_GET(cap, CAP_LOG_MAX_CQ_SZ);
	c->log_max_eq_sz = (uint8_t)ZN_MLX5_GET(cap, CAP_LOG_MAX_EQ_SZ);
	c->log_max_wq_sz = (uint8_t)ZN_MLX5_GET(cap, CAP_LOG_MAX_WQ_SZ);
	c->log_max_rqt_size = (uint8_t)ZN_MLX5_GET(cap, CAP_LOG_MAX_RQT_SIZE);
	c->striding_rq = ZN_MLX5_GET(cap, CAP_STRIDING_RQ);
	c->ext_stride_num_range = ZN_MLX5_GET(cap, CAP_EXT_STRIDE_NUM_RANGE);
	c->log_min_stride = (uint8_t)ZN_MLX5_GET(cap, CAP_LOG_MIN_STRIDE_SZ_RQ);
	c->log_max_stride = (uint8_t)ZN_MLX5_GET(cap, CAP_LOG_MAX_STRIDE_SZ_RQ);
	c->shampo = ZN_MLX5_GET(cap, CAP_SHAMPO);
	if (!c->striding_rq || !c->shampo || !ZN_MLX5_GET(cap, CAP_ETH_NET_OFFLOADS) ||
	    !ZN_MLX5_GET(cap, CAP_NIC_FLOW_TABLE)) {
		ZN_ERR(MLX5_LOG, "%s: zcnic needs striding RQs with SHAMPO, Ethernet offloads "
		       "and NIC flow tables (caps %u %u %u %u)", m->name, c->striding_rq,
		       c->shampo, (unsigned)ZN_MLX5_GET(cap, CAP_ETH_NET_OFFLOADS),
		       (unsigned)ZN_MLX5_GET(cap, CAP_NIC_FLOW_TABLE));
		return -EOPNOTSUPP;
	}

	/* §16: under DevX, mlx5_core set the capabilities it wanted. */
	if (!m->devx) {
		rc = set_general_cap(m, cap);
		if (rc < 0)
			return rc;
	}
	rc = query_cap(m, ZN_MLX5_CAP_ETHERNET_OFFLOADS, cap);
	if (rc < 0)
		return rc;
	c->wqe_inline_mode = (uint8_t)ZN_MLX5_GET(cap, ETH_CAP_WQE_INLINE_MODE);
	c->csum_cap = ZN_MLX5_GET(cap, ETH_CAP_CSUM_CAP);
	c->max_lso_cap = (uint8_t)ZN_MLX5_GET(cap, ETH_CAP_MAX_LSO_CAP);

	rc = query_cap(m, ZN_MLX5_CAP_DEV_SHAMPO, cap);
	if (rc < 0)
		return rc;
	c->shampo_log_min_res = (uint8_t)ZN_MLX5_GET(cap, SHAMPO_CAP_LOG_MIN_RESERVATION_SIZE);
	c->shampo_log_max_res = (uint8_t)ZN_MLX5_GET(cap, SHAMPO_CAP_LOG_MAX_RESERVATION_SIZE);
	c->shampo_max_log_hdr_entry = (uint8_t)ZN_MLX5_GET(cap, SHAMPO_CAP_MAX_LOG_HEADERS_ENTRY_SIZE);
	return 0;
}

/* §13a: the permanent MAC and min_wqe_inline_mode from the NIC vport context. */
static int query_vport(struct mlx5 *m)
{
	uint8_t in[ZN_MLX5_SZ_QUERY_NIC_VPORT_IN] = { 0 };
	uint8_t out[ZN_MLX5_SZ_QUERY_NIC_VPORT_OUT];
	const uint8_t *ctx;
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc < 0)
		return rc;
	ctx = ZN_MLX5_CADDR(out, QUERY_NIC_VPORT_OUT_CONTEXT);
	memcpy(m->mac, (const uint8_t *)ZN_MLX5_CADDR(ctx, NIC_VPORT_PERMANENT_ADDRESS) +
	       ZN_MLX5_NIC_VPORT_MAC_OFF_IN_ADDR, ZN_ETH_ALEN);
	m->vport_inline_mode = (uint8_t)ZN_MLX5_GET(ctx, NIC_VPORT_MIN_WQE_INLINE_MODE);
	return 0;
}

static int access_reg(struct mlx5 *m, uint16_t reg, uint16_t op_mod, uint8_t *data)
{
	uint8_t in[ZN_MLX5_SZ_ACCESS_REGISTER_IN + 16] = { 0 };
	uint8_t out[ZN_MLX5_SZ_ACCESS_REGISTER_OUT + 16];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ACCESS_REG);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	ZN_MLX5_SET(in, ACCESS_REG_IN_REGISTER_ID, reg);
	memcpy(ZN_MLX5_ADDR(in, ACCESS_REG_IN_REGISTER_DATA), data, 16);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc == 0)
		memcpy(data, ZN_MLX5_CADDR(out, ACCESS_REG_OUT_REGISTER_DATA), 16);
	return rc;
}

/* §13a PAOS: administrative state of port 1 (ase makes the write count). */
static int set_port_admin(struct mlx5 *m, bool up)
{
	uint8_t paos[ZN_MLX5_SZ_PAOS_REG] = { 0 };

	ZN_MLX5_SET(paos, PAOS_LOCAL_PORT, 1);
	ZN_MLX5_SET(paos, PAOS_ADMIN_STATUS, up ? ZN_MLX5_PAOS_STATUS_UP : ZN_MLX5_PAOS_STATUS_DOWN);
	ZN_MLX5_SET(paos, PAOS_ASE, 1);
	return access_reg(m, ZN_MLX5_REG_PAOS, ZN_MLX5_ACCESS_REG_WRITE, paos);
}

/* §13a: MTU (PMTU admin_mtu and the vport context) and promiscuous mode. */
int zn_mlx5_vport_config(struct mlx5 *m)
{
	uint8_t in[ZN_MLX5_SZ_MODIFY_NIC_VPORT_IN];
	uint8_t out[ZN_MLX5_SZ_MODIFY_NIC_VPORT_OUT];
	uint8_t pmtu[ZN_MLX5_SZ_PMTU_REG] = { 0 };
	uint32_t hw_mtu = m->conf.mtu + MLX5_HW_MTU_OVERHEAD;
	uint8_t *ctx;
	int rc;

	/* §16: MTU and promiscuity belong to the kernel's netdev (ip link). */
	if (m->devx)
		return 0;
	ZN_MLX5_SET(pmtu, PMTU_LOCAL_PORT, 1);
	ZN_MLX5_SET(pmtu, PMTU_ADMIN_MTU, hw_mtu);
	rc = access_reg(m, ZN_MLX5_REG_PMTU, ZN_MLX5_ACCESS_REG_WRITE, pmtu);
	if (rc < 0)
		return rc;
	memset(in, 0, sizeof(in));
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
	ZN_MLX5_SET(in, MODIFY_NIC_VPORT_IN_FIELD_SELECT,
		    ZN_MLX5_NIC_VPORT_FS_MTU | ZN_MLX5_NIC_VPORT_FS_PROMISC);
	ctx = ZN_MLX5_ADDR(in, MODIFY_NIC_VPORT_IN_CONTEXT);
	ZN_MLX5_SET(ctx, NIC_VPORT_MTU, hw_mtu);
	ZN_MLX5_SET(ctx, NIC_VPORT_PROMISC_ALL, m->conf.promisc);
	return zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
}

int zn_mlx5_link_query(struct mlx5 *m, struct zn_link *link)
{
	uint8_t in[ZN_MLX5_SZ_QUERY_VPORT_STATE_IN] = { 0 };
	uint8_t out[ZN_MLX5_SZ_QUERY_VPORT_STATE_OUT] = { 0 };
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_VPORT_STATE);
	rc = zn_mlx5_cmd_quiet(m, in, sizeof(in), out, sizeof(out));
	/* A refused query costs the link report, not the port (Linux's
	 * mlx5_query_vport_state does not fail its caller either): one line
	 * per refusal, and the caller keeps the last state. */
	if (rc < 0 && out[0] != ZN_MLX5_CMD_STAT_OK)
		ZN_WARN(MLX5_LOG, "%s: QUERY_VPORT_STATE (0x%x) failed: status %s (0x%02x), "
			"syndrome 0x%08x; the link keeps its last known state", m->name,
			ZN_MLX5_CMD_OP_QUERY_VPORT_STATE, zn_mlx5_status_name(out[0]), out[0],
			(uint32_t)ZN_MLX5_GET(out, OUT_SYNDROME));
	if (rc < 0)
		return rc;
	memset(link, 0, sizeof(*link));
	link->up = ZN_MLX5_GET(out, QUERY_VPORT_STATE_OUT_STATE) == ZN_MLX5_VPORT_STATE_UP;
	link->full_duplex = link->up;
	return 0;
}

/* §10: one PA mkey, lr/lw, length64: it accepts any bus address (IOVA). */
static int create_pa_mkey(struct mlx5 *m)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_MKEY_IN] = { 0 }, out[ZN_MLX5_SZ_CREATE_MKEY_OUT];
	uint8_t *mkc = ZN_MLX5_ADDR(in, CREATE_MKEY_IN_MKC);
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_MKEY);
	ZN_MLX5_SET(mkc, MKC_ACCESS_MODE_1_0, ZN_MLX5_MKC_ACCESS_MODE_PA);
	ZN_MLX5_SET(mkc, MKC_LW, 1);
	ZN_MLX5_SET(mkc, MKC_LR, 1);
	ZN_MLX5_SET(mkc, MKC_QPN, ZN_MLX5_MKC_QPN_NONE);
	ZN_MLX5_SET(mkc, MKC_LENGTH64, 1);
	ZN_MLX5_SET(mkc, MKC_PD, m->pdn);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc < 0)
		return rc;
	m->mkey_index = (uint32_t)ZN_MLX5_GET(out, CREATE_MKEY_OUT_MKEY_INDEX);
	m->lkey = zn_mlx5_mkey(m->mkey_index, 0);
	m->mkey_live = true;
	return 0;
}

/*
 * §16: the bring-up of a device left to mlx5_core. The kernel did §4 steps
 * 1-13 (and owns health, pages and the EQs): what remains is reading the
 * capabilities and the vport, and the per-process resources of steps 15-17,
 * of which rdma-core makes the UAR, the EQ number, the PD and the data key.
 */
static int devx_hca_init(struct mlx5 *m)
{
	int rc;

	rc = zn_mlx5_devx_open(m, zn_bus_ibv_name(m->bus));
	if (rc == 0)
		rc = hca_caps(m);		/* steps 9-10, query only */
	/* Step 14: the port's admin state is the netdev's (ip link set up). */
	if (rc == 0)
		rc = query_vport(m);
	if (rc == 0)
		rc = zn_mlx5_devx_resources(m);	/* steps 15-17: UAR, EQN, PD, key */
	if (rc == 0)
		rc = simple_cmd(m, ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, &m->tdn);
	if (rc < 0)
		return rc;
	m->td_live = true;
	ZN_INFO(MLX5_LOG, "%s: DevX on the kernel's HCA, MAC %02x:%02x:%02x:%02x:%02x:%02x, "
		"UAR 0x%x, EQ %u, PD 0x%x", m->name, m->mac[0], m->mac[1], m->mac[2], m->mac[3],
		m->mac[4], m->mac[5], m->uar.index, m->eq.eqn, m->pdn);
	return 0;
}

int zn_mlx5_hca_init(struct mlx5 *m)
{
	uint32_t v, to;
	int rc;

	if (zn_bus_ibv_name(m->bus))
		return devx_hca_init(m);

	/* §4 step 2: the bounded wait before anything else. */
	rc = iseg_read(m, ZN_MLX5_ISEG_CMD_Q_INIT_TO, &to);
	if (rc == 0)
		rc = wait_fw_ready(m, zn_mlx5_fw_timeout_ms(to, ZN_MLX5_FW_PRE_INIT_TIMEOUT_MS),
				   "at probe");
	if (rc < 0)
		return rc;
	/* §4 step 3: command interface revision 5. */
	rc = iseg_read(m, ZN_MLX5_ISEG_CMDIF_REV_FW_SUB, &v);
	if (rc < 0)
		return rc;
	if (v >> 16 != ZN_MLX5_CMD_IF_REV) {
		ZN_ERR(MLX5_LOG, "%s: command interface revision %u; zcnic speaks %u",
		       m->name, v >> 16, ZN_MLX5_CMD_IF_REV);
		return -EOPNOTSUPP;
	}
	m->fw_sub = (uint16_t)v;
	rc = iseg_read(m, ZN_MLX5_ISEG_FW_REV, &v);
	if (rc < 0)
		return rc;
	m->fw_minor = (uint16_t)(v >> 16);
	m->fw_major = (uint16_t)v;
	/* §4 step 4: the command queue page; step 5: wait again. */
	rc = zn_mlx5_cmdq_init(m);
	if (rc < 0)
		return rc;
	rc = wait_fw_ready(m, ZN_MLX5_FW_INIT_TIMEOUT_MS, "after the command queue was set");
	/* §4 step 6: ENABLE_HCA, function 0. */
	if (rc == 0)
		rc = simple_cmd(m, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, NULL);
	if (rc < 0)
		return rc;
	m->hca_enabled = true;
	/* §4 steps 7-13. */
	rc = set_issi(m);
	if (rc == 0)
		rc = zn_mlx5_pages_satisfy(m, ZN_MLX5_PAGES_BOOT);
	if (rc == 0)
		rc = hca_caps(m);
	if (rc == 0)
		rc = zn_mlx5_pages_satisfy(m, ZN_MLX5_PAGES_INIT);
	if (rc == 0)
		rc = simple_cmd(m, ZN_MLX5_CMD_OP_INIT_HCA, 0, NULL);
	if (rc < 0)
		return rc;
	m->hca_inited = true;
	rc = zn_mlx5_pages_satisfy(m, ZN_MLX5_PAGES_REGULAR);
	/* §4 step 14: port up, MAC and inline mode. */
	if (rc == 0)
		rc = set_port_admin(m, true);
	if (rc == 0)
		rc = query_vport(m);
	/* §4 step 15: ALLOC_UAR. */
	if (rc == 0)
		rc = simple_cmd(m, ZN_MLX5_CMD_OP_ALLOC_UAR, 0, &m->uar.index);
	if (rc < 0)
		return rc;
	m->uar_live = true;
	m->uar.bus = m->bus;
	m->uar.bar_off = (uint64_t)m->uar.index * ZN_MLX5_UAR_PAGE_SIZE;
	m->uar.va = NULL;
	if (iseg_mapped(m, m->uar.bar_off) &&
	    iseg_mapped(m, m->uar.bar_off + ZN_MLX5_UAR_PAGE_SIZE - 4))
		m->uar.va = (volatile uint8_t *)m->bus->region_va[0] + m->uar.bar_off;
	/* §4 step 16: the EQ (polled). */
	rc = zn_mlx5_eq_create(m);
	/* §4 step 17: ALLOC_PD, ALLOC_TRANSPORT_DOMAIN, CREATE_MKEY. */
	if (rc == 0)
		rc = simple_cmd(m, ZN_MLX5_CMD_OP_ALLOC_PD, 0, &m->pdn);
	if (rc < 0)
		return rc;
	m->pd_live = true;
	rc = simple_cmd(m, ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, &m->tdn);
	if (rc < 0)
		return rc;
	m->td_live = true;
	rc = create_pa_mkey(m);
	if (rc < 0)
		return rc;
	m->health_next_ms = 0;
	m->health_mapped = iseg_mapped(m, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ) &&
			   iseg_mapped(m, ZN_MLX5_ISEG_HEALTH_FW_VER) &&
			   iseg_mapped(m, ZN_MLX5_ISEG_HEALTH_SYND_DW) &&
			   iseg_mapped(m, ZN_MLX5_ISEG_HEALTH_COUNTER);
	ZN_INFO(MLX5_LOG, "%s: firmware %u.%u.%u, MAC %02x:%02x:%02x:%02x:%02x:%02x, %u pages lent",
		m->name, m->fw_major, m->fw_minor, m->fw_sub, m->mac[0], m->mac[1], m->mac[2],
		m->mac[3], m->mac[4], m->mac[5], m->pages.lent);
	return 0;
}

static void destroy_num(struct mlx5 *m, uint16_t op, uint32_t id, bool *live)
{
	if (!*live)
		return;
	zn_mlx5_destroy_obj(m, op, id);
	*live = false;
}

/* Teardown: §4 backwards, then every page back, then DISABLE_HCA. */
void zn_mlx5_hca_fini(struct mlx5 *m)
{
	destroy_num(m, ZN_MLX5_CMD_OP_DESTROY_MKEY, m->mkey_index, &m->mkey_live);
	destroy_num(m, ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, m->tdn, &m->td_live);
	destroy_num(m, ZN_MLX5_CMD_OP_DEALLOC_PD, m->pdn, &m->pd_live);
	zn_mlx5_eq_destroy(m);
	destroy_num(m, ZN_MLX5_CMD_OP_DEALLOC_UAR, m->uar.index, &m->uar_live);
	if (m->hca_inited) {
		simple_cmd(m, ZN_MLX5_CMD_OP_TEARDOWN_HCA, 0, NULL);
		m->hca_inited = false;
	}
	if (m->hca_enabled) {
		if (!m->dead)
			zn_mlx5_pages_reclaim(m);
		simple_cmd(m, ZN_MLX5_CMD_OP_DISABLE_HCA, 0, NULL);
		m->hca_enabled = false;
	}
	if (m->cmd_ops) {
		m->cmd_ops->fini(m);
		m->cmd_ops = NULL;
	}
	zn_mlx5_pages_free(m);
}
