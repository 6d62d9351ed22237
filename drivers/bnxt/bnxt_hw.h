/* SPDX-License-Identifier: MIT */
/*
 * Broadcom NetXtreme-C/E (bnxt) hardware interface, as far as zcnic uses it:
 * the one place where registers, doorbells, descriptors, completion records
 * and firmware (HWRM) command layouts live. The driver (drivers/bnxt/) and
 * the device model (sim/bnxt/) both include this header and nothing else of
 * each other. hw-docs/bnxt.md explains the interface in prose.
 *
 * Target: P5 ("Thor", BCM5750x). Pre-P5 (BCM573xx/574xx) parts are recognised
 * and their 32-bit doorbell format is kept; P7 bits are named where they share
 * a word with P5 fields but are not otherwise supported.
 *
 * Sources (public; every layout below was taken from them, names shortened):
 *   [L-HSI]  Linux drivers/net/ethernet/broadcom/bnxt/bnxt_hsi.h
 *            (generated HSI, "1.10.3.44" era)
 *   [L]      Linux drivers/net/ethernet/broadcom/bnxt/bnxt.h
 *   [D-HSI]  DPDK drivers/net/bnxt/hsi_struct_def_dpdk.h
 *   [D]      DPDK drivers/net/bnxt/bnxt.h, bnxt_ring.h
 *   [L-HSI133] the same header at HSI 1.10.3.133 (longer FUNC_QCAPS,
 *            FUNC_QCFG and RING_ALLOC layouts, multi-doorbell fields)
 *   [PCI]    PCI Express Base Specification (config space, MSI-X)
 * Each struct names the source struct it mirrors. Field offsets are those of
 * the source; reserved bytes are named rsvd*. Requests may grow in newer
 * firmware: unknown trailing request bytes read as zero, and a response's
 * true length is its resp_len field, not sizeof() of the struct here.
 *
 * Byte order: the device is little-endian and every multi-byte field below
 * is little-endian unless its comment says "big-endian" (n-tuple filter
 * match fields). zcnic targets little-endian hosts only, so fields are plain
 * uintN_t and are read and written directly.
 *
 * Naming: structs and inline helpers use the bnxt_ prefix, constants BNXT_.
 * Flag constants are named BNXT_<COMMAND>_<FIELD>_<VALUE>.
 */
#ifndef ZCNIC_DRIVERS_BNXT_HW_H
#define ZCNIC_DRIVERS_BNXT_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "bnxt_hw.h: fields are accessed as host integers; little-endian hosts only");

#define BNXT_ASSERT_SIZE(s, n) \
	_Static_assert(sizeof(struct s) == (n), #s " size")
#define BNXT_ASSERT_OFF(s, f, o) \
	_Static_assert(offsetof(struct s, f) == (o), #s "." #f " offset")

/* ======================================================================
 * PCI identity [D] bnxt.h BROADCOM_DEV_ID_*, [L] bnxt.h CHIP_NUM_*
 * ====================================================================== */

#define BNXT_PCI_VENDOR_BROADCOM	0x14e4

/* P5 (BCM575xx "Thor") */
#define BNXT_DEV_57508			0x1750
#define BNXT_DEV_57504			0x1751
#define BNXT_DEV_57502			0x1752
#define BNXT_DEV_57508_MF1		0x1800	/* multi-function / NPAR */
#define BNXT_DEV_57504_MF1		0x1801
#define BNXT_DEV_57502_MF1		0x1802
#define BNXT_DEV_57508_MF2		0x1803
#define BNXT_DEV_57504_MF2		0x1804
#define BNXT_DEV_57502_MF2		0x1805
#define BNXT_DEV_57500_VF1		0x1806
#define BNXT_DEV_57500_VF2		0x1807

/* pre-P5 parts we recognise (BCM573xx NetXtreme-C, BCM574xx NetXtreme-E) */
#define BNXT_DEV_STRATUS_NIC_VF1	0x1606
#define BNXT_DEV_STRATUS_NIC_VF2	0x1609
#define BNXT_DEV_STRATUS_NIC		0x1614
#define BNXT_DEV_57414_VF		0x16c1
#define BNXT_DEV_57304_VF		0x16cb
#define BNXT_DEV_57417_MF		0x16cc
#define BNXT_DEV_57312			0x16cf
#define BNXT_DEV_57402			0x16d0
#define BNXT_DEV_57404			0x16d1
#define BNXT_DEV_57406			0x16d2
#define BNXT_DEV_57406_VF		0x16d3
#define BNXT_DEV_57402_MF		0x16d4
#define BNXT_DEV_57407_RJ45		0x16d5
#define BNXT_DEV_57412			0x16d6
#define BNXT_DEV_57414			0x16d7
#define BNXT_DEV_57416_RJ45		0x16d8
#define BNXT_DEV_57417_RJ45		0x16d9
#define BNXT_DEV_5741X_VF		0x16dc
#define BNXT_DEV_57412_MF		0x16de
#define BNXT_DEV_57314			0x16df
#define BNXT_DEV_57317_RJ45		0x16e0
#define BNXT_DEV_5731X_VF		0x16e1
#define BNXT_DEV_57417_SFP		0x16e2
#define BNXT_DEV_57416_SFP		0x16e3
#define BNXT_DEV_57317_SFP		0x16e4
#define BNXT_DEV_57404_MF		0x16e7
#define BNXT_DEV_57406_MF		0x16e8
#define BNXT_DEV_57407_SFP		0x16e9
#define BNXT_DEV_57407_MF		0x16ea
#define BNXT_DEV_57414_MF		0x16ec
#define BNXT_DEV_57416_MF		0x16ee

/* VER_GET chip_num values that mean P5 ([L] bnxt.h CHIP_NUM_5750x). */
#define BNXT_CHIP_NUM_57508		0x1750
#define BNXT_CHIP_NUM_57504		0x1751
#define BNXT_CHIP_NUM_57502		0x1752

static inline bool bnxt_dev_is_p5(uint16_t device_id)
{
	return (device_id >= BNXT_DEV_57508 && device_id <= BNXT_DEV_57502) ||
	       (device_id >= BNXT_DEV_57508_MF1 && device_id <= BNXT_DEV_57500_VF2);
}

static inline bool bnxt_dev_is_vf(uint16_t device_id)
{
	switch (device_id) {
	case BNXT_DEV_57500_VF1: case BNXT_DEV_57500_VF2:
	case BNXT_DEV_STRATUS_NIC_VF1: case BNXT_DEV_STRATUS_NIC_VF2:
	case BNXT_DEV_57414_VF: case BNXT_DEV_57304_VF: case BNXT_DEV_57406_VF:
	case BNXT_DEV_5741X_VF: case BNXT_DEV_5731X_VF:
		return true;
	default:
		return false;
	}
}

static inline bool bnxt_chip_num_is_p5(uint16_t chip_num)
{
	return chip_num == BNXT_CHIP_NUM_57508 || chip_num == BNXT_CHIP_NUM_57504 ||
	       chip_num == BNXT_CHIP_NUM_57502;
}

/* ======================================================================
 * BARs. BAR0: registers and the HWRM channel. BAR2: doorbells.
 * [L] bnxt.h BNXT_GRCPF_REG_*, [D] bnxt.h GRCPF_REG_*
 * ====================================================================== */

#define BNXT_BAR_REGS			0
#define BNXT_BAR_DB			2

/* HWRM ("ChiMP") request window: the request is written here in 32-bit
 * words, zero-padded up to the window length (VER_GET max_req_win_len). */
#define BNXT_GRCPF_REG_CHIMP_COMM		0x000
/* Writing 32-bit 1 here submits the request in the window. */
#define BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER	0x100
#define BNXT_GRCPF_REG_WINDOW_BASE_OUT		0x400	/* GRC windows, not used */
#define BNXT_GRC_REG_STATUS_P5			0x520	/* not used */
#define BNXT_GRCPF_REG_KONG_COMM		0xa00	/* second mailbox, not used */
#define BNXT_GRCPF_REG_KONG_COMM_TRIGGER	0xb00
#define BNXT_HWRM_TRIGGER_VALUE			1u

/* [L-HSI] HWRM_MAX_REQ_LEN / HWRM_MAX_RESP_LEN / HWRM_RESP_VALID_KEY */
#define BNXT_HWRM_MAX_REQ_LEN		128	/* request window, bytes */
#define BNXT_HWRM_MAX_RESP_LEN		704
#define BNXT_HWRM_RESP_VALID_KEY	1	/* value of the last response byte */
#define BNXT_HWRM_NA_SIGNATURE		0xffffffffu

/* Request header cmpl_ring / target_id special values [D-HSI] input. */
#define BNXT_HWRM_CMPL_RING_NONE	0xffff	/* no HWRM_DONE completion */
#define BNXT_HWRM_TARGET_ID_HWRM	0xffff	/* the firmware itself */
#define BNXT_HWRM_TARGET_ID_TOOLS	0xfffd

/* P5 doorbell page offset inside BAR2 ([L] bnxt.h DB_PF_OFFSET_P5 ...). All
 * rings of a function share it; the XID field selects the ring. */
#define BNXT_DB_PF_OFFSET_P5		0x10000
#define BNXT_DB_VF_OFFSET_P5		0x4000

/* pre-P5: one 128-byte doorbell slot per RING_ALLOC logical_id. */
#define BNXT_DB_LEGACY_STRIDE		0x80

/* ----------------------------------------------------------------------
 * PCI configuration space and MSI-X.
 * The device is PCI Express: it has a PCI Express capability and extended
 * capabilities, so its configuration space is 4 KiB [PCI]. Linux reads the
 * Device Serial Number extended capability (PCI_EXT_CAP_ID_DSN, [L] bnxt.c
 * bnxt_pcie_dsn_get; some versions fail a PF probe without it), and
 * FUNC_QCAPS device_serial_number repeats that value [D-HSI].
 * Drivers find the MSI-X table and PBA through the MSI-X capability
 * (BAR indicator and offset), never by a fixed BAR; no public source says
 * which BAR a BCM57508 PF uses. The BNXT_MODEL_* values are the model's.
 * ---------------------------------------------------------------------- */

#define BNXT_PCI_CFG_SPACE_SIZE		4096
#define BNXT_PCI_EXT_CAP_ID_DSN		0x0003	/* [PCI] Device Serial Number */

/* Model choice: MSI-X table and PBA in BAR4 (zcnic maps no other use of
 * it), each in its own 4 KiB page. 64 vectors: at least one per NQ. */
#define BNXT_MODEL_MSIX_BAR		4
#define BNXT_MODEL_MSIX_TABLE_OFF	0x0000
#define BNXT_MODEL_MSIX_PBA_OFF		0x1000
#define BNXT_MODEL_MSIX_VECTORS		64
#define BNXT_MODEL_BAR4_SIZE		0x2000
#define BNXT_PCI_MSIX_ENTRY_SIZE	16	/* [PCI] table entry bytes */
_Static_assert(BNXT_MODEL_MSIX_VECTORS * BNXT_PCI_MSIX_ENTRY_SIZE <= BNXT_MODEL_MSIX_PBA_OFF,
	       "MSI-X table ends before the PBA");
_Static_assert(BNXT_MODEL_MSIX_PBA_OFF + (BNXT_MODEL_MSIX_VECTORS + 63) / 64 * 8 <=
	       BNXT_MODEL_BAR4_SIZE, "PBA fits BAR4");

/* ======================================================================
 * P5 64-bit doorbell, written with one 64-bit store.
 * [L-HSI] dbc_dbc, [L] bnxt.h DBR_*
 *
 *   63..60 type   59 debug trace   58 valid (P7 only)   57..56 path
 *   51..32 xid (RING_ALLOC ring_id)
 *   26..25 toggle (P7)   24 epoch (P7)   23..0 index
 * ====================================================================== */

/* dbc_dbc: the same value seen as two little-endian 32-bit words. */
struct bnxt_dbc {
	uint32_t index;		/* bits 23:0 index, 24 epoch, 26:25 toggle */
	uint32_t type_path_xid;	/* bits 19:0 xid, 25:24 path, 26 valid, 31:28 type */
};
BNXT_ASSERT_SIZE(bnxt_dbc, 8);
BNXT_ASSERT_OFF(bnxt_dbc, type_path_xid, 4);

#define BNXT_DBR_INDEX_MASK		0x0000000000ffffffULL
#define BNXT_DBR_EPOCH			(1ULL << 24)
#define BNXT_DBR_TOGGLE_SFT		25
#define BNXT_DBR_TOGGLE_MASK		(3ULL << 25)
#define BNXT_DBR_XID_SFT		32
#define BNXT_DBR_XID_MASK		0x000fffff00000000ULL
#define BNXT_DBR_PATH_SFT		56
#define BNXT_DBR_PATH_MASK		(3ULL << 56)
#define BNXT_DBR_PATH_ROCE		(0ULL << 56)
#define BNXT_DBR_PATH_L2		(1ULL << 56)
#define BNXT_DBR_PATH_ENGINE		(2ULL << 56)
#define BNXT_DBR_VALID			(1ULL << 58)	/* required on P7, unused on P5 */
#define BNXT_DBR_DEBUG_TRACE		(1ULL << 59)
#define BNXT_DBR_TYPE_SFT		60
#define BNXT_DBR_TYPE_MASK		(0xfULL << 60)

/* 4-bit doorbell type codes (bits 63:60). */
enum bnxt_dbr_type {
	BNXT_DBR_TYPE_SQ = 0x0,		/* TX ring producer */
	BNXT_DBR_TYPE_RQ = 0x1,
	BNXT_DBR_TYPE_SRQ = 0x2,	/* RX and RX_AGG ring producer */
	BNXT_DBR_TYPE_SRQ_ARM = 0x3,
	BNXT_DBR_TYPE_CQ = 0x4,		/* CQ consumer, no arm */
	BNXT_DBR_TYPE_CQ_ARMSE = 0x5,
	BNXT_DBR_TYPE_CQ_ARMALL = 0x6,	/* CQ consumer + arm */
	BNXT_DBR_TYPE_CQ_ARMENA = 0x7,
	BNXT_DBR_TYPE_SRQ_ARMENA = 0x8,
	BNXT_DBR_TYPE_CQ_CUTOFF_ACK = 0x9,
	BNXT_DBR_TYPE_NQ = 0xa,		/* NQ consumer, no arm */
	BNXT_DBR_TYPE_NQ_ARM = 0xb,	/* NQ consumer + arm */
	BNXT_DBR_TYPE_PUSH_START = 0xc,
	BNXT_DBR_TYPE_PUSH_END = 0xd,
	BNXT_DBR_TYPE_NQ_MASK = 0xe,
	BNXT_DBR_TYPE_NULL = 0xf,
};

/* Compose a P5 L2 doorbell: path L2, the given type, ring xid, index. */
static inline uint64_t bnxt_db64(enum bnxt_dbr_type type, uint32_t xid, uint32_t idx)
{
	return ((uint64_t)type << BNXT_DBR_TYPE_SFT) | BNXT_DBR_PATH_L2 |
	       (((uint64_t)xid << BNXT_DBR_XID_SFT) & BNXT_DBR_XID_MASK) |
	       ((uint64_t)idx & BNXT_DBR_INDEX_MASK);
}

static inline enum bnxt_dbr_type bnxt_db64_type(uint64_t v)
{
	return (enum bnxt_dbr_type)((v & BNXT_DBR_TYPE_MASK) >> BNXT_DBR_TYPE_SFT);
}
static inline uint32_t bnxt_db64_path(uint64_t v)
{
	return (uint32_t)((v & BNXT_DBR_PATH_MASK) >> BNXT_DBR_PATH_SFT);
}
static inline uint32_t bnxt_db64_xid(uint64_t v)
{
	return (uint32_t)((v & BNXT_DBR_XID_MASK) >> BNXT_DBR_XID_SFT);
}
static inline uint32_t bnxt_db64_idx(uint64_t v)
{
	return (uint32_t)(v & BNXT_DBR_INDEX_MASK);
}
/* Bits a P5 L2 doorbell from zcnic leaves zero: reserved 31:27 and 55:52,
 * the P7-only epoch, toggle and valid bits, and the debug-trace bit. A strict
 * model rejects a doorbell with any of them set. */
#define BNXT_DBR_P5_RSVD_MASK \
	(0x00f0000000000000ULL | 0x00000000f8000000ULL | BNXT_DBR_VALID | \
	 BNXT_DBR_DEBUG_TRACE | BNXT_DBR_EPOCH | BNXT_DBR_TOGGLE_MASK)

/* ======================================================================
 * pre-P5 32-bit doorbell, at BAR2 + logical_id * BNXT_DB_LEGACY_STRIDE.
 * [L] bnxt.h DB_*, [D] bnxt_ring.h DB_*
 *   31..28 key   27 irq disable (CP)   26 index valid (CP)   23..0 index
 * ====================================================================== */

#define BNXT_DB_IDX_MASK		0x00ffffffu
#define BNXT_DB_IDX_VALID		(1u << 26)
#define BNXT_DB_IRQ_DIS			(1u << 27)
#define BNXT_DB_KEY_SFT			28
#define BNXT_DB_KEY_MASK		(0xfu << 28)
#define BNXT_DB_KEY_TX			(0u << 28)	/* TX producer */
#define BNXT_DB_KEY_RX			(1u << 28)	/* RX and AGG producer */
#define BNXT_DB_KEY_CP			(2u << 28)	/* completion consumer */
#define BNXT_DB_KEY_ST			(3u << 28)
#define BNXT_DB_KEY_TX_PUSH		(4u << 28)
/* Completion ring: update consumer, keep the interrupt off (polling). */
#define BNXT_DB_CP_FLAGS		(BNXT_DB_KEY_CP | BNXT_DB_IDX_VALID | BNXT_DB_IRQ_DIS)
/* Completion ring: update consumer and re-arm. */
#define BNXT_DB_CP_REARM_FLAGS		(BNXT_DB_KEY_CP | BNXT_DB_IDX_VALID)

static inline uint32_t bnxt_db32(uint32_t key_flags, uint32_t idx)
{
	return key_flags | (idx & BNXT_DB_IDX_MASK);
}
static inline uint32_t bnxt_db32_key(uint32_t v)
{
	return (v & BNXT_DB_KEY_MASK) >> BNXT_DB_KEY_SFT;
}
static inline uint32_t bnxt_db32_idx(uint32_t v)
{
	return v & BNXT_DB_IDX_MASK;
}

/* ======================================================================
 * HWRM channel: common request/response framing
 * ====================================================================== */

/* Every request starts with this. [L-HSI] input / hwrm_cmd_hdr */
struct bnxt_hwrm_req_hdr {
	uint16_t req_type;	/* BNXT_HWRM_* command number */
	uint16_t cmpl_ring;	/* BNXT_HWRM_CMPL_RING_NONE, or a CQ/NQ id for HWRM_DONE */
	uint16_t seq_id;	/* echoed in the response */
	uint16_t target_id;	/* BNXT_HWRM_TARGET_ID_HWRM */
	uint64_t resp_addr;	/* DMA address of the response buffer, 16B aligned */
};
BNXT_ASSERT_SIZE(bnxt_hwrm_req_hdr, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_req_hdr, cmpl_ring, 2);
BNXT_ASSERT_OFF(bnxt_hwrm_req_hdr, seq_id, 4);
BNXT_ASSERT_OFF(bnxt_hwrm_req_hdr, target_id, 6);
BNXT_ASSERT_OFF(bnxt_hwrm_req_hdr, resp_addr, 8);

/* Every response starts with this; its last byte (offset resp_len - 1) is
 * the valid byte, written last with BNXT_HWRM_RESP_VALID_KEY.
 * [L-HSI] output / hwrm_resp_hdr */
struct bnxt_hwrm_resp_hdr {
	uint16_t error_code;	/* BNXT_HWRM_ERR_*, 0 on success */
	uint16_t req_type;	/* echo */
	uint16_t seq_id;	/* echo */
	uint16_t resp_len;	/* total bytes, valid byte included */
};
BNXT_ASSERT_SIZE(bnxt_hwrm_resp_hdr, 8);
BNXT_ASSERT_OFF(bnxt_hwrm_resp_hdr, resp_len, 6);

/* Short command: written to the window instead of a request that is longer
 * than the window; the full request sits in host memory at req_addr.
 * [L-HSI] hwrm_short_input */
struct bnxt_hwrm_short_input {
	uint16_t req_type;
	uint16_t signature;	/* BNXT_HWRM_SHORT_SIGNATURE */
	uint16_t target_id;	/* 0: default */
	uint16_t size;		/* bytes of the full request */
	uint64_t req_addr;	/* 16B aligned */
};
BNXT_ASSERT_SIZE(bnxt_hwrm_short_input, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_short_input, signature, 2);
BNXT_ASSERT_OFF(bnxt_hwrm_short_input, size, 6);
BNXT_ASSERT_OFF(bnxt_hwrm_short_input, req_addr, 8);
#define BNXT_HWRM_SHORT_SIGNATURE	0x4321

/* Error response with debug words (resp_len >= 16). [L-HSI] hwrm_err_output */
struct bnxt_hwrm_err_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t opaque_0;
	uint16_t opaque_1;
	uint8_t cmd_err;	/* command-specific reason */
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_err_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_err_output, cmd_err, 14);

/* The 16-byte response of every command that returns nothing but status:
 * FUNC_RESET, FUNC_DRV_UNRGTR, FUNC_CFG, FUNC_BACKING_STORE_CFG, RING_FREE,
 * RING_GRP_FREE, VNIC_FREE, VNIC_CFG, VNIC_RSS_CFG, VNIC_PLCMODES_CFG,
 * VNIC_RSS_COS_LB_CTX_FREE, CFA_L2_FILTER_FREE, CFA_L2_SET_RX_MASK,
 * CFA_NTUPLE_FILTER_FREE. [L-HSI] hwrm_func_reset_output and its twins */
struct bnxt_hwrm_plain_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint8_t rsvd[7];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_plain_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_plain_output, valid, 15);

/* Request header-only input: FUNC_BACKING_STORE_QCAPS,
 * VNIC_RSS_COS_LB_CTX_ALLOC. [L-HSI] hwrm_func_backing_store_qcaps_input */
struct bnxt_hwrm_hdr_only_input {
	struct bnxt_hwrm_req_hdr hdr;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_hdr_only_input, 16);

/* error_code values. [L-HSI] ret_codes */
#define BNXT_HWRM_ERR_SUCCESS			0x0000
#define BNXT_HWRM_ERR_FAIL			0x0001
#define BNXT_HWRM_ERR_INVALID_PARAMS		0x0002
#define BNXT_HWRM_ERR_RESOURCE_ACCESS_DENIED	0x0003
#define BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR	0x0004
#define BNXT_HWRM_ERR_INVALID_FLAGS		0x0005
#define BNXT_HWRM_ERR_INVALID_ENABLES		0x0006
#define BNXT_HWRM_ERR_UNSUPPORTED_TLV		0x0007
#define BNXT_HWRM_ERR_NO_BUFFER			0x0008
#define BNXT_HWRM_ERR_UNSUPPORTED_OPTION_ERR	0x0009
#define BNXT_HWRM_ERR_HOT_RESET_PROGRESS	0x000a
#define BNXT_HWRM_ERR_HOT_RESET_FAIL		0x000b
#define BNXT_HWRM_ERR_NO_FLOW_COUNTER_DURING_ALLOC 0x000c
#define BNXT_HWRM_ERR_KEY_HASH_COLLISION	0x000d
#define BNXT_HWRM_ERR_KEY_ALREADY_EXISTS	0x000e
#define BNXT_HWRM_ERR_HWRM_ERROR		0x000f
#define BNXT_HWRM_ERR_BUSY			0x0010
#define BNXT_HWRM_ERR_RESOURCE_LOCKED		0x0011
#define BNXT_HWRM_ERR_PF_UNAVAILABLE		0x0012
#define BNXT_HWRM_ERR_ENTITY_NOT_PRESENT	0x0013
#define BNXT_HWRM_ERR_TLV_ENCAPSULATED_RESPONSE	0x8000
#define BNXT_HWRM_ERR_UNKNOWN_ERR		0xfffe
#define BNXT_HWRM_ERR_CMD_NOT_SUPPORTED		0xffff

/* req_type numbers of the commands zcnic uses. [L-HSI] cmd_nums */
#define BNXT_HWRM_VER_GET			0x0000
#define BNXT_HWRM_FUNC_DRV_IF_CHANGE		0x000d
#define BNXT_HWRM_FUNC_RESET			0x0011
#define BNXT_HWRM_FUNC_QCAPS			0x0015
#define BNXT_HWRM_FUNC_QCFG			0x0016
#define BNXT_HWRM_FUNC_CFG			0x0017
#define BNXT_HWRM_FUNC_DRV_UNRGTR		0x001a
#define BNXT_HWRM_FUNC_DRV_RGTR			0x001d
#define BNXT_HWRM_PORT_PHY_QCFG			0x0027
#define BNXT_HWRM_QUEUE_QPORTCFG		0x0030
#define BNXT_HWRM_VNIC_ALLOC			0x0040
#define BNXT_HWRM_VNIC_FREE			0x0041
#define BNXT_HWRM_VNIC_CFG			0x0042
#define BNXT_HWRM_VNIC_TPA_CFG			0x0044
#define BNXT_HWRM_VNIC_RSS_CFG			0x0046
#define BNXT_HWRM_VNIC_PLCMODES_CFG		0x0048
#define BNXT_HWRM_VNIC_PLCMODES_QCFG		0x0049
#define BNXT_HWRM_VNIC_QCAPS			0x004a
#define BNXT_HWRM_VNIC_UPDATE			0x004b
#define BNXT_HWRM_RING_ALLOC			0x0050
#define BNXT_HWRM_RING_FREE			0x0051
#define BNXT_HWRM_RING_GRP_ALLOC		0x0060	/* pre-P5 only */
#define BNXT_HWRM_RING_GRP_FREE			0x0061	/* pre-P5 only */
#define BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC	0x0070
#define BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE	0x0071
#define BNXT_HWRM_CFA_L2_FILTER_ALLOC		0x0090
#define BNXT_HWRM_CFA_L2_FILTER_FREE		0x0091
#define BNXT_HWRM_CFA_L2_SET_RX_MASK		0x0093
#define BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC	0x0099
#define BNXT_HWRM_CFA_NTUPLE_FILTER_FREE	0x009a
#define BNXT_HWRM_STAT_CTX_ALLOC		0x00b0
#define BNXT_HWRM_STAT_CTX_FREE			0x00b1
#define BNXT_HWRM_STAT_CTX_QUERY		0x00b2
#define BNXT_HWRM_STAT_CTX_CLR_STATS		0x00b3
#define BNXT_HWRM_FUNC_RESOURCE_QCAPS		0x0190
#define BNXT_HWRM_FUNC_BACKING_STORE_QCAPS	0x0192
#define BNXT_HWRM_FUNC_BACKING_STORE_CFG	0x0193

/* ======================================================================
 * HWRM_VER_GET (0x00)
 * ====================================================================== */

/* [L-HSI] hwrm_ver_get_input */
struct bnxt_hwrm_ver_get_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint8_t hwrm_intf_maj;	/* the driver's HSI version */
	uint8_t hwrm_intf_min;
	uint8_t hwrm_intf_upd;
	uint8_t rsvd[5];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ver_get_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_input, hwrm_intf_maj, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_input, hwrm_intf_upd, 0x12);

/* [L-HSI] hwrm_ver_get_output */
struct bnxt_hwrm_ver_get_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint8_t hwrm_intf_maj_8b;
	uint8_t hwrm_intf_min_8b;
	uint8_t hwrm_intf_upd_8b;
	uint8_t hwrm_intf_rsvd_8b;
	uint8_t hwrm_fw_maj_8b;
	uint8_t hwrm_fw_min_8b;
	uint8_t hwrm_fw_bld_8b;
	uint8_t hwrm_fw_rsvd_8b;
	uint8_t mgmt_fw_8b[4];
	uint8_t netctrl_fw_8b[4];
	uint32_t dev_caps_cfg;		/* BNXT_VER_GET_DEV_CAPS_* */
	uint8_t roce_fw_8b[4];
	char hwrm_fw_name[16];
	char mgmt_fw_name[16];
	char netctrl_fw_name[16];
	char active_pkg_name[16];
	char roce_fw_name[16];
	uint16_t chip_num;		/* BNXT_CHIP_NUM_* */
	uint8_t chip_rev;
	uint8_t chip_metal;
	uint8_t chip_bond_id;
	uint8_t chip_platform_type;	/* 0 ASIC */
	uint16_t max_req_win_len;	/* request window bytes (>= 128) */
	uint16_t max_resp_len;
	uint16_t def_req_timeout;	/* ms */
	uint8_t flags;			/* BNXT_VER_GET_FLAGS_* */
	uint8_t rsvd0[2];
	uint8_t always_1;
	uint16_t hwrm_intf_major;
	uint16_t hwrm_intf_minor;
	uint16_t hwrm_intf_build;
	uint16_t hwrm_intf_patch;
	uint16_t hwrm_fw_major;
	uint16_t hwrm_fw_minor;
	uint16_t hwrm_fw_build;
	uint16_t hwrm_fw_patch;
	uint16_t mgmt_fw_ver[4];
	uint16_t netctrl_fw_ver[4];
	uint16_t roce_fw_ver[4];
	uint16_t max_ext_req_len;	/* longest request accepted by short command */
	uint16_t max_req_timeout;	/* s; 0 means 40 */
	uint8_t rsvd1[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ver_get_output, 176);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, hwrm_intf_maj_8b, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, hwrm_fw_maj_8b, 0x0c);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, dev_caps_cfg, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, hwrm_fw_name, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, chip_num, 0x70);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, chip_platform_type, 0x75);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, max_req_win_len, 0x76);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, max_resp_len, 0x78);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, def_req_timeout, 0x7a);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, flags, 0x7c);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, always_1, 0x7f);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, hwrm_intf_major, 0x80);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, max_ext_req_len, 0xa8);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, max_req_timeout, 0xaa);
BNXT_ASSERT_OFF(bnxt_hwrm_ver_get_output, valid, 0xaf);

#define BNXT_VER_GET_DEV_CAPS_SHORT_CMD_SUPPORTED	0x4u
#define BNXT_VER_GET_DEV_CAPS_SHORT_CMD_REQUIRED	0x8u
#define BNXT_VER_GET_DEV_CAPS_KONG_MB_CHNL_SUPPORTED	0x10u
#define BNXT_VER_GET_DEV_CAPS_TRUSTED_VF_SUPPORTED	0x100u
#define BNXT_VER_GET_DEV_CAPS_CFA_ADV_FLOW_MGNT_SUPPORTED 0x1000u
#define BNXT_VER_GET_FLAGS_DEV_NOT_RDY			0x1u
#define BNXT_VER_GET_FLAGS_EXT_VER_AVAIL		0x2u
#define BNXT_VER_GET_FLAGS_DEV_NOT_RDY_BACKING_STORE	0x4u

/* ======================================================================
 * HWRM_FUNC_RESET (0x11); response: bnxt_hwrm_plain_output
 * ====================================================================== */

/* [L-HSI] hwrm_func_reset_input */
struct bnxt_hwrm_func_reset_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t enables;		/* 0: reset this function */
	uint16_t vf_id;
	uint8_t func_reset_level;
	uint8_t rsvd;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_reset_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_reset_input, enables, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_reset_input, vf_id, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_func_reset_input, func_reset_level, 0x16);
#define BNXT_FUNC_RESET_ENABLES_VF_ID_VALID		0x1u
#define BNXT_FUNC_RESET_LEVEL_RESETALL			0x0
#define BNXT_FUNC_RESET_LEVEL_RESETME			0x1
#define BNXT_FUNC_RESET_LEVEL_RESETCHILDREN		0x2
#define BNXT_FUNC_RESET_LEVEL_RESETVF			0x3

/* ======================================================================
 * HWRM_FUNC_QCAPS (0x15) / HWRM_FUNC_QCFG (0x16)
 * ====================================================================== */

#define BNXT_FID_SELF			0xffff

/* [L-HSI] hwrm_func_qcaps_input */
struct bnxt_hwrm_func_qcaps_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint16_t fid;			/* BNXT_FID_SELF */
	uint8_t rsvd[6];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_qcaps_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_input, fid, 0x10);

/* [L-HSI] hwrm_func_qcfg_input */
struct bnxt_hwrm_func_qcfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint16_t fid;			/* BNXT_FID_SELF */
	uint8_t rsvd[6];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_qcfg_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_input, fid, 0x10);

/* [L-HSI] hwrm_func_qcaps_output (136 bytes; newer HSI versions append
 * fields, e.g. DPDK's is 144 bytes with flags_ext3 at 0x84). */
struct bnxt_hwrm_func_qcaps_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t fid;
	uint16_t port_id;
	uint32_t flags;
	uint8_t mac_address[6];
	uint16_t max_rsscos_ctx;
	uint16_t max_cmpl_rings;
	uint16_t max_tx_rings;
	uint16_t max_rx_rings;
	uint16_t max_l2_ctxs;
	uint16_t max_vnics;
	uint16_t first_vf_id;
	uint16_t max_vfs;
	uint16_t max_stat_ctx;
	uint32_t max_encap_records;
	uint32_t max_decap_records;
	uint32_t max_tx_em_flows;
	uint32_t max_tx_wm_flows;
	uint32_t max_rx_em_flows;
	uint32_t max_rx_wm_flows;
	uint32_t max_mcast_filters;
	uint32_t max_flow_id;
	uint32_t max_hw_ring_grps;
	uint16_t max_sp_tx_rings;
	uint16_t max_msix_vfs;
	uint32_t flags_ext;
	uint8_t max_schqs;
	uint8_t mpc_chnls_cap;
	uint16_t max_key_ctxs_alloc;
	uint32_t flags_ext2;
	uint16_t tunnel_disable_flag;
	uint16_t xid_partition_cap;
	uint8_t device_serial_number[8];
	uint16_t ctxs_per_partition;
	uint16_t max_tso_segs;
	uint32_t roce_vf_max[6];	/* av, cq, mrw, qp, srq, gid */
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_qcaps_output, 136);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, fid, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, port_id, 0x0a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, flags, 0x0c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, mac_address, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_rsscos_ctx, 0x16);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_cmpl_rings, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_tx_rings, 0x1a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_rx_rings, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_l2_ctxs, 0x1e);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_vnics, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_vfs, 0x24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_stat_ctx, 0x26);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, max_hw_ring_grps, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, flags_ext, 0x50);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, flags_ext2, 0x58);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, roce_vf_max, 0x6c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output, valid, 0x87);
#define BNXT_FUNC_QCAPS_FLAGS_EXT_BS_V2_SUPPORTED	0x4000000u	/* P7 */
#define BNXT_FUNC_QCAPS_FLAGS_EXT_BS_V2_REQUIRED	0x8000000u

/* [L-HSI] hwrm_func_qcfg_output */
struct bnxt_hwrm_func_qcfg_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t fid;
	uint16_t port_id;
	uint16_t vlan;
	uint16_t flags;
	uint8_t mac_address[6];
	uint16_t pci_id;
	uint16_t alloc_rsscos_ctx;
	uint16_t alloc_cmpl_rings;
	uint16_t alloc_tx_rings;
	uint16_t alloc_rx_rings;
	uint16_t alloc_l2_ctx;
	uint16_t alloc_vnics;
	uint16_t admin_mtu;
	uint16_t mru;
	uint16_t stat_ctx_id;
	uint8_t port_partition_type;
	uint8_t port_pf_cnt;
	uint16_t dflt_vnic_id;
	uint16_t max_mtu_configured;
	uint32_t min_bw;
	uint32_t max_bw;
	uint8_t evb_mode;
	uint8_t options;
	uint16_t alloc_vfs;
	uint32_t alloc_mcast_filters;
	uint32_t alloc_hw_ring_grps;
	uint16_t alloc_sp_tx_rings;
	uint16_t alloc_stat_ctx;
	uint16_t alloc_msix;
	uint16_t registered_vfs;
	uint16_t l2_doorbell_bar_size_kb;	/* BAR2 size to map; 0: whole BAR */
	uint8_t active_endpoints;
	uint8_t always_1;
	uint32_t reset_addr_poll;
	uint16_t legacy_l2_db_size_kb;		/* P7 doorbell offset; unused on P5 */
	uint16_t svif_info;
	uint8_t mpc_chnls;
	uint8_t db_page_size;
	uint16_t roce_vnic_id;
	uint32_t partition_min_bw;
	uint32_t partition_max_bw;
	uint16_t host_mtu;
	uint8_t rsvd0[4];
	uint8_t port_kdnet_mode;
	uint8_t kdnet_pcie_function;
	uint16_t port_kdnet_fid;
	uint8_t rsvd1[2];
	uint32_t num_ktls_tx_key_ctxs;
	uint32_t num_ktls_rx_key_ctxs;
	uint8_t lag_id;
	uint8_t parif;
	uint8_t fw_lag_id;
	uint8_t rsvd2;
	uint32_t num_quic_tx_key_ctxs;
	uint32_t num_quic_rx_key_ctxs;
	uint32_t roce_max_per_vf[6];
	uint16_t xid_partition_cfg;
	uint8_t rsvd3;
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_qcfg_output, 160);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, fid, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, port_id, 0x0a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, mac_address, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, admin_mtu, 0x24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, mru, 0x26);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, port_partition_type, 0x2a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, dflt_vnic_id, 0x2c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, alloc_msix, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, l2_doorbell_bar_size_kb, 0x4c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, legacy_l2_db_size_kb, 0x54);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, svif_info, 0x56);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, db_page_size, 0x59);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, host_mtu, 0x64);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, roce_max_per_vf, 0x84);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output, valid, 0x9f);

/* ----------------------------------------------------------------------
 * Longer FUNC_QCAPS / FUNC_QCFG responses (HSI 1.10.3.133, [L-HSI133]).
 *
 * Responses grow at their tail: newer firmware fills what older layouts
 * called reserved bytes, and the valid byte moves to the new end. So a
 * field exists in a response only if it ends before that response's valid
 * byte: off + size <= resp_len - 1. A driver reads a tail field only after
 * that test (bnxt_resp_has); the bytes of an older, shorter response at the
 * same offsets are padding and the valid byte, not the field.
 * ---------------------------------------------------------------------- */

static inline bool bnxt_resp_has(uint16_t resp_len, size_t off, size_t size)
{
	return resp_len >= 1 && off + size <= (size_t)resp_len - 1;
}
/* e.g. BNXT_RESP_HAS(len, bnxt_hwrm_func_qcaps_output_long, flags_ext3) */
#define BNXT_RESP_HAS(resp_len, s, f) \
	bnxt_resp_has((resp_len), offsetof(struct s, f), sizeof(((struct s *)0)->f))

/* [L-HSI133] hwrm_func_qcaps_output (144 bytes); also DPDK hsi_struct_def_dpdk.h
 * (flags_ext3 at 0x84, 144 bytes). The first 0x84 bytes are those of
 * bnxt_hwrm_func_qcaps_output. */
struct bnxt_hwrm_func_qcaps_output_long {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t fid;
	uint16_t port_id;
	uint32_t flags;
	uint8_t mac_address[6];
	uint16_t max_rsscos_ctx;
	uint16_t max_cmpl_rings;
	uint16_t max_tx_rings;
	uint16_t max_rx_rings;
	uint16_t max_l2_ctxs;
	uint16_t max_vnics;
	uint16_t first_vf_id;
	uint16_t max_vfs;
	uint16_t max_stat_ctx;
	uint32_t max_encap_records;
	uint32_t max_decap_records;
	uint32_t max_tx_em_flows;
	uint32_t max_tx_wm_flows;
	uint32_t max_rx_em_flows;
	uint32_t max_rx_wm_flows;
	uint32_t max_mcast_filters;
	uint32_t max_flow_id;
	uint32_t max_hw_ring_grps;
	uint16_t max_sp_tx_rings;
	uint16_t max_msix_vfs;
	uint32_t flags_ext;
	uint8_t max_schqs;
	uint8_t mpc_chnls_cap;
	uint16_t max_key_ctxs_alloc;
	uint32_t flags_ext2;
	uint16_t tunnel_disable_flag;
	uint16_t xid_partition_cap;
	uint8_t device_serial_number[8];
	uint16_t ctxs_per_partition;
	uint16_t max_tso_segs;
	uint32_t roce_vf_max[6];	/* av, cq, mrw, qp, srq, gid */
	uint32_t flags_ext3;		/* BNXT_FUNC_QCAPS_FLAGS_EXT3_* */
	uint16_t max_roce_vfs;
	uint16_t max_crypto_rx_flow_filters;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_qcaps_output_long, 144);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, max_tx_rings, 0x1a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, max_hw_ring_grps, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, flags_ext, 0x50);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, flags_ext2, 0x58);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, device_serial_number, 0x60);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, roce_vf_max, 0x6c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, flags_ext3, 0x84);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, max_roce_vfs, 0x88);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, max_crypto_rx_flow_filters, 0x8a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcaps_output_long, valid, 0x8f);
/* The shared head must not drift from the 136-byte layout. */
_Static_assert(offsetof(struct bnxt_hwrm_func_qcaps_output_long, roce_vf_max) ==
	       offsetof(struct bnxt_hwrm_func_qcaps_output, roce_vf_max),
	       "FUNC_QCAPS long/short layouts share their head");
/* flags_ext3 [L-HSI133] FUNC_QCAPS_RESP_FLAGS_EXT3_* (the ones we name) */
#define BNXT_FUNC_QCAPS_FLAGS_EXT3_RM_RSV_WHILE_ALLOC_CAP	0x1u
#define BNXT_FUNC_QCAPS_FLAGS_EXT3_REQUIRE_L2_FILTER		0x2u
#define BNXT_FUNC_QCAPS_FLAGS_EXT3_RX_RATE_PROFILE_SEL_SUPPORTED 0x8u
/* RING_ALLOC may name a doorbell page index (dpi) per ring. */
#define BNXT_FUNC_QCAPS_FLAGS_EXT3_MULTI_L2_DB_SUPPORTED	0x200u

/* FUNC_QCAPS said MULTI_L2_DB_SUPPORTED, in a response long enough to say it. */
static inline bool bnxt_qcaps_multi_l2_db(const struct bnxt_hwrm_func_qcaps_output_long *r)
{
	return BNXT_RESP_HAS(r->hdr.resp_len, bnxt_hwrm_func_qcaps_output_long, flags_ext3) &&
	       (r->flags_ext3 & BNXT_FUNC_QCAPS_FLAGS_EXT3_MULTI_L2_DB_SUPPORTED);
}

/* [L-HSI133] hwrm_func_qcfg_output (176 bytes). The first 0x9e bytes are
 * those of bnxt_hwrm_func_qcfg_output; 0x66 is flags2 there (rsvd0 above). */
struct bnxt_hwrm_func_qcfg_output_long {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t fid;
	uint16_t port_id;
	uint16_t vlan;
	uint16_t flags;
	uint8_t mac_address[6];
	uint16_t pci_id;
	uint16_t alloc_rsscos_ctx;
	uint16_t alloc_cmpl_rings;
	uint16_t alloc_tx_rings;
	uint16_t alloc_rx_rings;
	uint16_t alloc_l2_ctx;
	uint16_t alloc_vnics;
	uint16_t admin_mtu;
	uint16_t mru;
	uint16_t stat_ctx_id;
	uint8_t port_partition_type;
	uint8_t port_pf_cnt;
	uint16_t dflt_vnic_id;
	uint16_t max_mtu_configured;
	uint32_t min_bw;
	uint32_t max_bw;
	uint8_t evb_mode;
	uint8_t options;
	uint16_t alloc_vfs;
	uint32_t alloc_mcast_filters;
	uint32_t alloc_hw_ring_grps;
	uint16_t alloc_sp_tx_rings;
	uint16_t alloc_stat_ctx;
	uint16_t alloc_msix;
	uint16_t registered_vfs;
	uint16_t l2_doorbell_bar_size_kb;	/* BAR2 KiB for L2; 0: whole BAR */
	uint8_t active_endpoints;
	uint8_t always_1;
	uint32_t reset_addr_poll;
	uint16_t legacy_l2_db_size_kb;		/* P7 doorbell offset; unused on P5 */
	uint16_t svif_info;
	uint8_t mpc_chnls;
	uint8_t db_page_size;			/* BNXT_FUNC_QCFG_DB_PAGE_SIZE_* */
	uint16_t roce_vnic_id;
	uint32_t partition_min_bw;
	uint32_t partition_max_bw;
	uint16_t host_mtu;
	uint16_t flags2;
	uint16_t stag_vid;
	uint8_t port_kdnet_mode;
	uint8_t kdnet_pcie_function;
	uint16_t port_kdnet_fid;
	uint8_t rsvd1;
	uint8_t roce_bidi_opt_mode;
	uint32_t num_ktls_tx_key_ctxs;
	uint32_t num_ktls_rx_key_ctxs;
	uint8_t lag_id;
	uint8_t parif;
	uint8_t fw_lag_id;
	uint8_t rsvd2;
	uint32_t num_quic_tx_key_ctxs;
	uint32_t num_quic_rx_key_ctxs;
	uint32_t roce_max_per_vf[6];
	uint16_t xid_partition_cfg;
	uint16_t mirror_vnic_id;
	uint8_t max_link_width;
	uint8_t max_link_speed;
	uint8_t negotiated_link_width;
	uint8_t negotiated_link_speed;
	uint8_t rsvd3[2];
	uint8_t pcie_compliance;
	uint8_t rsvd4;
	uint16_t l2_db_multi_page_size_kb;	/* see hw-docs/bnxt.md "Multi-doorbell" */
	uint8_t rsvd5[5];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_qcfg_output_long, 176);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, alloc_msix, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, l2_doorbell_bar_size_kb, 0x4c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, legacy_l2_db_size_kb, 0x54);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, db_page_size, 0x59);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, host_mtu, 0x64);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, port_kdnet_mode, 0x6a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, num_ktls_tx_key_ctxs, 0x70);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, num_quic_tx_key_ctxs, 0x7c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, roce_max_per_vf, 0x84);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, xid_partition_cfg, 0x9c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, mirror_vnic_id, 0x9e);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, max_link_width, 0xa0);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, pcie_compliance, 0xa6);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, l2_db_multi_page_size_kb, 0xa8);
BNXT_ASSERT_OFF(bnxt_hwrm_func_qcfg_output_long, valid, 0xaf);
_Static_assert(offsetof(struct bnxt_hwrm_func_qcfg_output_long, xid_partition_cfg) ==
	       offsetof(struct bnxt_hwrm_func_qcfg_output, xid_partition_cfg),
	       "FUNC_QCFG long/short layouts share their head");
/* db_page_size codes (FreeBSD/DPDK HSI comment: "configured doorbell page
 * size for this function", valid for a PF): page bytes = 4 KiB << code. */
#define BNXT_FUNC_QCFG_DB_PAGE_SIZE_4KB		0x0
#define BNXT_FUNC_QCFG_DB_PAGE_SIZE_MAX		0xa	/* 4 MB */

/* ======================================================================
 * HWRM_FUNC_CFG (0x17); response: bnxt_hwrm_plain_output.
 * 160 bytes: longer than the 128-byte window, so it goes by short command.
 * Used on a PF to reserve resources and to name the async event ring.
 * ====================================================================== */

/* [L-HSI] hwrm_func_cfg_input */
struct bnxt_hwrm_func_cfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint16_t fid;			/* 0xffff: this function */
	uint16_t num_msix;		/* P5: number of NQs */
	uint32_t flags;
	uint32_t enables;		/* BNXT_FUNC_CFG_ENABLES_* */
	uint16_t admin_mtu;
	uint16_t mru;
	uint16_t num_rsscos_ctxs;
	uint16_t num_cmpl_rings;
	uint16_t num_tx_rings;
	uint16_t num_rx_rings;		/* RX_AGG rings count as RX rings */
	uint16_t num_l2_ctxs;
	uint16_t num_vnics;
	uint16_t num_stat_ctxs;
	uint16_t num_hw_ring_grps;	/* pre-P5 */
	uint8_t dflt_mac_addr[6];
	uint16_t dflt_vlan;
	uint8_t dflt_ip_addr[16];	/* big-endian */
	uint32_t min_bw;
	uint32_t max_bw;
	uint16_t async_event_cr;	/* ring that receives async events */
	uint8_t vlan_antispoof_mode;
	uint8_t allowed_vlan_pris;
	uint8_t evb_mode;
	uint8_t options;
	uint16_t num_mcast_filters;
	uint16_t schq_id;
	uint16_t mpc_chnls;
	uint32_t partition_min_bw;
	uint32_t partition_max_bw;
	uint16_t tpid;			/* big-endian */
	uint16_t host_mtu;
	uint32_t flags2;
	uint32_t enables2;
	uint8_t port_kdnet_mode;
	uint8_t db_page_size;
	uint8_t rsvd0[2];
	uint32_t num_ktls_tx_key_ctxs;
	uint32_t num_ktls_rx_key_ctxs;
	uint32_t num_quic_tx_key_ctxs;
	uint32_t num_quic_rx_key_ctxs;
	uint32_t roce_max_per_vf[6];
	uint16_t xid_partition_cfg;
	uint16_t rsvd1;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_cfg_input, 160);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, fid, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_msix, 0x12);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, flags, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, enables, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, admin_mtu, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_rsscos_ctxs, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_cmpl_rings, 0x22);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_tx_rings, 0x24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_rx_rings, 0x26);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_l2_ctxs, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_vnics, 0x2a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_stat_ctxs, 0x2c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, num_hw_ring_grps, 0x2e);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, dflt_mac_addr, 0x30);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, async_event_cr, 0x50);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, host_mtu, 0x66);
BNXT_ASSERT_OFF(bnxt_hwrm_func_cfg_input, xid_partition_cfg, 0x9c);
#define BNXT_FUNC_CFG_FLAGS_STD_TX_RING_MODE_DISABLE	0x400u
#define BNXT_FUNC_CFG_ENABLES_ADMIN_MTU			0x1u
#define BNXT_FUNC_CFG_ENABLES_MRU			0x2u
#define BNXT_FUNC_CFG_ENABLES_NUM_RSSCOS_CTXS		0x4u
#define BNXT_FUNC_CFG_ENABLES_NUM_CMPL_RINGS		0x8u
#define BNXT_FUNC_CFG_ENABLES_NUM_TX_RINGS		0x10u
#define BNXT_FUNC_CFG_ENABLES_NUM_RX_RINGS		0x20u
#define BNXT_FUNC_CFG_ENABLES_NUM_L2_CTXS		0x40u
#define BNXT_FUNC_CFG_ENABLES_NUM_VNICS			0x80u
#define BNXT_FUNC_CFG_ENABLES_NUM_STAT_CTXS		0x100u
#define BNXT_FUNC_CFG_ENABLES_DFLT_MAC_ADDR		0x200u
#define BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR		0x4000u
#define BNXT_FUNC_CFG_ENABLES_NUM_HW_RING_GRPS		0x80000u
#define BNXT_FUNC_CFG_ENABLES_NUM_MSIX			0x200000u
#define BNXT_FUNC_CFG_ENABLES_HOST_MTU			0x20000000u

/* ======================================================================
 * HWRM_FUNC_DRV_RGTR (0x1d) / HWRM_FUNC_DRV_UNRGTR (0x1a)
 * ====================================================================== */

/* [L-HSI] hwrm_func_drv_rgtr_input */
struct bnxt_hwrm_func_drv_rgtr_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_FUNC_DRV_RGTR_FLAGS_* */
	uint32_t enables;		/* BNXT_FUNC_DRV_RGTR_ENABLES_* */
	uint16_t os_type;
	uint8_t ver_maj_8b;
	uint8_t ver_min_8b;
	uint8_t ver_upd_8b;
	uint8_t rsvd0[3];
	uint32_t timestamp;
	uint8_t rsvd1[4];
	uint32_t vf_req_fwd[8];		/* bitmap of req_types forwarded from VFs */
	uint32_t async_event_fwd[8];	/* bitmap of async event ids wanted */
	uint16_t ver_maj;
	uint16_t ver_min;
	uint16_t ver_upd;
	uint16_t ver_patch;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_drv_rgtr_input, 112);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, os_type, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, ver_maj_8b, 0x1a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, timestamp, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, vf_req_fwd, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, async_event_fwd, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, ver_maj, 0x68);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_input, ver_patch, 0x6e);
#define BNXT_FUNC_DRV_RGTR_FLAGS_FWD_ALL_MODE		0x1u
#define BNXT_FUNC_DRV_RGTR_FLAGS_FWD_NONE_MODE		0x2u
#define BNXT_FUNC_DRV_RGTR_FLAGS_16BIT_VER_MODE		0x4u
#define BNXT_FUNC_DRV_RGTR_FLAGS_HOT_RESET_SUPPORT	0x10u
#define BNXT_FUNC_DRV_RGTR_FLAGS_ERROR_RECOVERY_SUPPORT	0x20u
#define BNXT_FUNC_DRV_RGTR_FLAGS_MASTER_SUPPORT		0x40u
#define BNXT_FUNC_DRV_RGTR_ENABLES_OS_TYPE		0x1u
#define BNXT_FUNC_DRV_RGTR_ENABLES_VER			0x2u
#define BNXT_FUNC_DRV_RGTR_ENABLES_TIMESTAMP		0x4u
#define BNXT_FUNC_DRV_RGTR_ENABLES_VF_REQ_FWD		0x8u
#define BNXT_FUNC_DRV_RGTR_ENABLES_ASYNC_EVENT_FWD	0x10u
#define BNXT_FUNC_DRV_RGTR_OS_TYPE_OTHER		0x1
#define BNXT_FUNC_DRV_RGTR_OS_TYPE_LINUX		0x24

/* [L-HSI] hwrm_func_drv_rgtr_output */
struct bnxt_hwrm_func_drv_rgtr_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t flags;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_drv_rgtr_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_rgtr_output, flags, 0x08);
#define BNXT_FUNC_DRV_RGTR_RESP_FLAGS_IF_CHANGE_SUPPORTED 0x1u

/* [L-HSI] hwrm_func_drv_unrgtr_input; response: bnxt_hwrm_plain_output */
struct bnxt_hwrm_func_drv_unrgtr_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_drv_unrgtr_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_unrgtr_input, flags, 0x10);
#define BNXT_FUNC_DRV_UNRGTR_FLAGS_PREPARE_FOR_SHUTDOWN	0x1u

/* ======================================================================
 * Async event ids (bnxt_async_event_cmpl.event_id; the bit number in
 * FUNC_DRV_RGTR async_event_fwd). [L-HSI] hwrm_async_event_cmpl
 * ====================================================================== */

#define BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE		0x00
#define BNXT_ASYNC_EVENT_LINK_MTU_CHANGE		0x01
#define BNXT_ASYNC_EVENT_LINK_SPEED_CHANGE		0x02
#define BNXT_ASYNC_EVENT_DCB_CONFIG_CHANGE		0x03
#define BNXT_ASYNC_EVENT_PORT_CONN_NOT_ALLOWED		0x04
#define BNXT_ASYNC_EVENT_LINK_SPEED_CFG_NOT_ALLOWED	0x05
#define BNXT_ASYNC_EVENT_LINK_SPEED_CFG_CHANGE		0x06
#define BNXT_ASYNC_EVENT_PORT_PHY_CFG_CHANGE		0x07
#define BNXT_ASYNC_EVENT_RESET_NOTIFY			0x08
#define BNXT_ASYNC_EVENT_ERROR_RECOVERY			0x09
#define BNXT_ASYNC_EVENT_FUNC_DRVR_UNLOAD		0x10
#define BNXT_ASYNC_EVENT_PF_DRVR_UNLOAD			0x20
#define BNXT_ASYNC_EVENT_VF_CFG_CHANGE			0x33
#define BNXT_ASYNC_EVENT_HWRM_ERROR			0xff

/* RESET_NOTIFY event_data1 bits 15:8: why the firmware resets.
 * [L-HSI] hwrm_async_event_cmpl_reset_notify (EVENT_DATA1_REASON_CODE_*) */
#define BNXT_RESET_NOTIFY_REASON_MASK			0xff00u
#define BNXT_RESET_NOTIFY_REASON_MGMT			0x0100u	/* management request */
#define BNXT_RESET_NOTIFY_REASON_FW_FATAL		0x0200u	/* firmware exception, fatal */
#define BNXT_RESET_NOTIFY_REASON_FW_NON_FATAL		0x0300u

/* LINK_STATUS_CHANGE event_data1.
 * [L-HSI] hwrm_async_event_cmpl_link_status_change */
#define BNXT_ASYNC_LINK_DATA1_LINK_UP			0x1u	/* 0: down */
#define BNXT_ASYNC_LINK_DATA1_PORT_MASK			0xeu
#define BNXT_ASYNC_LINK_DATA1_PORT_SFT			1
#define BNXT_ASYNC_LINK_DATA1_PORT_ID_MASK		0xffff0u
#define BNXT_ASYNC_LINK_DATA1_PORT_ID_SFT		4
#define BNXT_ASYNC_LINK_DATA1_PF_ID_MASK		0xff00000u
#define BNXT_ASYNC_LINK_DATA1_PF_ID_SFT			20

/* ======================================================================
 * HWRM_FUNC_BACKING_STORE_QCAPS (0x192) / _CFG (0x193): context memory a
 * P5 PF must give the firmware before it allocates rings. QCAPS input is
 * bnxt_hwrm_hdr_only_input; CFG response is bnxt_hwrm_plain_output.
 * ====================================================================== */

/* [L-HSI] hwrm_func_backing_store_qcaps_output */
struct bnxt_hwrm_func_backing_store_qcaps_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t qp_max_entries;
	uint16_t qp_min_qp1_entries;
	uint16_t qp_max_l2_entries;
	uint16_t qp_entry_size;
	uint16_t srq_max_l2_entries;
	uint32_t srq_max_entries;
	uint16_t srq_entry_size;
	uint16_t cq_max_l2_entries;
	uint32_t cq_max_entries;
	uint16_t cq_entry_size;
	uint16_t vnic_max_vnic_entries;
	uint16_t vnic_max_ring_table_entries;
	uint16_t vnic_entry_size;
	uint32_t stat_max_entries;
	uint16_t stat_entry_size;
	uint16_t tqm_entry_size;
	uint32_t tqm_min_entries_per_ring;
	uint32_t tqm_max_entries_per_ring;
	uint32_t mrav_max_entries;
	uint16_t mrav_entry_size;
	uint16_t tim_entry_size;
	uint32_t tim_max_entries;
	uint16_t mrav_num_entries_units;
	uint8_t tqm_entries_multiple;
	uint8_t ctx_kind_initializer;	/* byte to fill context memory with */
	uint16_t ctx_init_mask;		/* which types want the initializer */
	uint8_t qp_init_offset;
	uint8_t srq_init_offset;
	uint8_t cq_init_offset;
	uint8_t vnic_init_offset;
	uint8_t tqm_fp_rings_count;	/* number of TQM fast-path rings (<= 8) */
	uint8_t stat_init_offset;
	uint8_t mrav_init_offset;
	uint8_t tqm_fp_rings_count_ext;
	uint8_t tkc_init_offset;
	uint8_t rkc_init_offset;
	uint16_t tkc_entry_size;
	uint16_t rkc_entry_size;
	uint32_t tkc_max_entries;
	uint32_t rkc_max_entries;
	uint16_t fast_qpmd_qp_num_entries;
	uint8_t rsvd[5];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_backing_store_qcaps_output, 104);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, qp_max_entries, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, qp_entry_size, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, srq_max_entries, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, cq_max_entries, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, vnic_entry_size, 0x26);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, stat_max_entries, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, tqm_entry_size, 0x2e);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, tim_max_entries, 0x40);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, tqm_entries_multiple, 0x46);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, ctx_init_mask, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, tqm_fp_rings_count, 0x4e);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, tkc_max_entries, 0x58);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_qcaps_output, valid, 0x67);
/* ctx_init_mask bits: context types whose memory must be filled with
 * ctx_kind_initializer before FUNC_BACKING_STORE_CFG.
 * [L-HSI] FUNC_BACKING_STORE_QCAPS_RESP_CTX_INIT_MASK_* */
#define BNXT_BS_CTX_INIT_MASK_QP		0x1u
#define BNXT_BS_CTX_INIT_MASK_SRQ		0x2u
#define BNXT_BS_CTX_INIT_MASK_CQ		0x4u
#define BNXT_BS_CTX_INIT_MASK_VNIC		0x8u
#define BNXT_BS_CTX_INIT_MASK_STAT		0x10u
#define BNXT_BS_CTX_INIT_MASK_MRAV		0x20u
#define BNXT_BS_CTX_INIT_MASK_TKC		0x40u
#define BNXT_BS_CTX_INIT_MASK_RKC		0x80u

/* [L-HSI] hwrm_func_backing_store_cfg_input. The page directory of each type
 * is one page (level 0) or a page of 8-byte PTEs (level 1). Firmware newer
 * than 1.10.2.13 is sent the first BNXT_BS_CFG_LEGACY_LEN bytes by DPDK. */
struct bnxt_hwrm_func_backing_store_cfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;
	uint32_t enables;		/* BNXT_BS_CFG_ENABLES_* */
	uint8_t qpc_pg_size_lvl;	/* BNXT_BS_PG_SIZE_* | BNXT_BS_LVL_* */
	uint8_t srq_pg_size_lvl;
	uint8_t cq_pg_size_lvl;
	uint8_t vnic_pg_size_lvl;
	uint8_t stat_pg_size_lvl;
	uint8_t tqm_sp_pg_size_lvl;
	uint8_t tqm_ring_pg_size_lvl[8];	/* rings 0..7 */
	uint8_t mrav_pg_size_lvl;
	uint8_t tim_pg_size_lvl;
	uint64_t qpc_page_dir;
	uint64_t srq_page_dir;
	uint64_t cq_page_dir;
	uint64_t vnic_page_dir;
	uint64_t stat_page_dir;
	uint64_t tqm_sp_page_dir;
	uint64_t tqm_ring_page_dir[8];
	uint64_t mrav_page_dir;
	uint64_t tim_page_dir;
	uint32_t qp_num_entries;
	uint32_t srq_num_entries;
	uint32_t cq_num_entries;
	uint32_t stat_num_entries;
	uint32_t tqm_sp_num_entries;
	uint32_t tqm_ring_num_entries[8];
	uint32_t mrav_num_entries;
	uint32_t tim_num_entries;
	uint16_t qp_num_qp1_entries;
	uint16_t qp_num_l2_entries;
	uint16_t qp_entry_size;
	uint16_t srq_num_l2_entries;
	uint16_t srq_entry_size;
	uint16_t cq_num_l2_entries;
	uint16_t cq_entry_size;
	uint16_t vnic_num_vnic_entries;
	uint16_t vnic_num_ring_table_entries;
	uint16_t vnic_entry_size;
	uint16_t stat_entry_size;
	uint16_t tqm_entry_size;
	uint16_t mrav_entry_size;
	uint16_t tim_entry_size;
	/* offset 0x100: fields past the legacy 256-byte request */
	uint8_t tqm_ring8_pg_size_lvl;
	uint8_t rsvd8[3];
	uint32_t tqm_ring8_num_entries;
	uint64_t tqm_ring8_page_dir;
	uint8_t tqm_ring9_pg_size_lvl;
	uint8_t rsvd9[3];
	uint32_t tqm_ring9_num_entries;
	uint64_t tqm_ring9_page_dir;
	uint8_t tqm_ring10_pg_size_lvl;
	uint8_t rsvd10[3];
	uint32_t tqm_ring10_num_entries;
	uint64_t tqm_ring10_page_dir;
	uint32_t tkc_num_entries;
	uint32_t rkc_num_entries;
	uint64_t tkc_page_dir;
	uint64_t rkc_page_dir;
	uint16_t tkc_entry_size;
	uint16_t rkc_entry_size;
	uint8_t tkc_pg_size_lvl;
	uint8_t rkc_pg_size_lvl;
	uint16_t qp_num_fast_qpmd_entries;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_backing_store_cfg_input, 336);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, qpc_pg_size_lvl, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tqm_sp_pg_size_lvl, 0x1d);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tqm_ring_pg_size_lvl, 0x1e);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tim_pg_size_lvl, 0x27);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, qpc_page_dir, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, stat_page_dir, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tqm_ring_page_dir, 0x58);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tim_page_dir, 0xa0);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, qp_num_entries, 0xa8);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tqm_ring_num_entries, 0xbc);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tim_num_entries, 0xe0);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, qp_num_qp1_entries, 0xe4);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, qp_entry_size, 0xe8);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tim_entry_size, 0xfe);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tqm_ring8_pg_size_lvl, 0x100);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tqm_ring8_page_dir, 0x108);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, tkc_num_entries, 0x130);
BNXT_ASSERT_OFF(bnxt_hwrm_func_backing_store_cfg_input, qp_num_fast_qpmd_entries, 0x14e);
#define BNXT_BS_CFG_LEGACY_LEN			256
#define BNXT_BS_CFG_FLAGS_PREBOOT_MODE		0x1u
#define BNXT_BS_CFG_ENABLES_QP			0x1u
#define BNXT_BS_CFG_ENABLES_SRQ			0x2u
#define BNXT_BS_CFG_ENABLES_CQ			0x4u
#define BNXT_BS_CFG_ENABLES_VNIC		0x8u
#define BNXT_BS_CFG_ENABLES_STAT		0x10u
#define BNXT_BS_CFG_ENABLES_TQM_SP		0x20u
#define BNXT_BS_CFG_ENABLES_TQM_RING(n)		(0x40u << (n))	/* n = 0..7 */
#define BNXT_BS_CFG_ENABLES_MRAV		0x4000u
#define BNXT_BS_CFG_ENABLES_TIM			0x8000u
#define BNXT_BS_CFG_ENABLES_TQM_RING8		0x10000u
/* *_pg_size_lvl byte: bits 3:0 PBL level, bits 7:4 page size. */
#define BNXT_BS_LVL_MASK			0x0fu
#define BNXT_BS_LVL_0				0x0u	/* page_dir is the page */
#define BNXT_BS_LVL_1				0x1u	/* page_dir is a page of PTEs */
#define BNXT_BS_LVL_2				0x2u
#define BNXT_BS_PG_SIZE_MASK			0xf0u
#define BNXT_BS_PG_SIZE_4K			(0x0u << 4)
#define BNXT_BS_PG_SIZE_8K			(0x1u << 4)
#define BNXT_BS_PG_SIZE_64K			(0x2u << 4)
#define BNXT_BS_PG_SIZE_2M			(0x3u << 4)
#define BNXT_BS_PG_SIZE_8M			(0x4u << 4)
#define BNXT_BS_PG_SIZE_1G			(0x5u << 4)
/* Level-1 page table entry bits. [L] bnxt.h PTU_PTE_* */
#define BNXT_PTU_PTE_VALID			0x1ull
#define BNXT_PTU_PTE_LAST			0x2ull
#define BNXT_PTU_PTE_NEXT_TO_LAST		0x4ull

/* ======================================================================
 * HWRM_PORT_PHY_QCFG (0x27): link state
 * ====================================================================== */

/* [L-HSI] hwrm_port_phy_qcfg_input */
struct bnxt_hwrm_port_phy_qcfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint16_t port_id;
	uint8_t rsvd[6];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_port_phy_qcfg_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_input, port_id, 0x10);

/* [L-HSI] hwrm_port_phy_qcfg_output */
struct bnxt_hwrm_port_phy_qcfg_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint8_t link;			/* BNXT_PORT_PHY_QCFG_LINK_* */
	uint8_t active_fec_signal_mode;
	uint16_t link_speed;		/* 100 Mb/s units: BNXT_LINK_SPEED_* */
	uint8_t duplex_cfg;		/* 0 half, 1 full */
	uint8_t pause;			/* 0x1 TX, 0x2 RX */
	uint16_t support_speeds;
	uint16_t force_link_speed;
	uint8_t auto_mode;
	uint8_t auto_pause;
	uint16_t auto_link_speed;
	uint16_t auto_link_speed_mask;
	uint8_t wirespeed;
	uint8_t lpbk;
	uint8_t force_pause;
	uint8_t module_status;
	uint32_t preemphasis;
	uint8_t phy_maj;
	uint8_t phy_min;
	uint8_t phy_bld;
	uint8_t phy_type;
	uint8_t media_type;
	uint8_t xcvr_pkg_type;
	uint8_t eee_config_phy_addr;
	uint8_t parallel_detect;
	uint16_t link_partner_adv_speeds;
	uint8_t link_partner_adv_auto_mode;
	uint8_t link_partner_adv_pause;
	uint16_t adv_eee_link_speed_mask;
	uint16_t link_partner_adv_eee_link_speed_mask;
	uint32_t xcvr_identifier_type_tx_lpi_timer;
	uint16_t fec_cfg;
	uint8_t duplex_state;
	uint8_t option_flags;
	char phy_vendor_name[16];
	char phy_vendor_partnumber[16];
	uint16_t support_pam4_speeds;
	uint16_t force_pam4_link_speed;
	uint16_t auto_pam4_link_speed_mask;
	uint8_t link_partner_pam4_adv_speeds;
	uint8_t link_down_reason;
	uint16_t support_speeds2;
	uint16_t force_link_speeds2;
	uint16_t auto_link_speeds2;
	uint8_t active_lanes;
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_port_phy_qcfg_output, 104);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, link, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, link_speed, 0x0a);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, duplex_cfg, 0x0c);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, pause, 0x0d);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, preemphasis, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, xcvr_identifier_type_tx_lpi_timer, 0x30);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, duplex_state, 0x36);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, phy_vendor_name, 0x38);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, support_pam4_speeds, 0x58);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, support_speeds2, 0x60);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, active_lanes, 0x66);
BNXT_ASSERT_OFF(bnxt_hwrm_port_phy_qcfg_output, valid, 0x67);
#define BNXT_PORT_PHY_QCFG_LINK_NO_LINK		0x0
#define BNXT_PORT_PHY_QCFG_LINK_SIGNAL		0x1
#define BNXT_PORT_PHY_QCFG_LINK_LINK		0x2
#define BNXT_LINK_SPEED_1GB			0x000a
#define BNXT_LINK_SPEED_10GB			0x0064
#define BNXT_LINK_SPEED_25GB			0x00fa
#define BNXT_LINK_SPEED_40GB			0x0190
#define BNXT_LINK_SPEED_50GB			0x01f4
#define BNXT_LINK_SPEED_100GB			0x03e8
#define BNXT_LINK_SPEED_200GB			0x07d0
#define BNXT_LINK_SPEED_400GB			0x0fa0

/* ======================================================================
 * HWRM_QUEUE_QPORTCFG (0x30): CoS queue ids; a TX ring needs one
 * ====================================================================== */

/* [L-HSI] hwrm_queue_qportcfg_input */
struct bnxt_hwrm_queue_qportcfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* bit 0: 0 TX path, 1 RX path */
	uint16_t port_id;
	uint8_t drv_qmap_cap;		/* 1: enabled */
	uint8_t rsvd;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_queue_qportcfg_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_input, port_id, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_input, drv_qmap_cap, 0x16);
#define BNXT_QUEUE_QPORTCFG_FLAGS_PATH_TX	0x0u
#define BNXT_QUEUE_QPORTCFG_FLAGS_PATH_RX	0x1u

/* [L-HSI] hwrm_queue_qportcfg_output */
struct bnxt_hwrm_queue_qportcfg_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint8_t max_configurable_queues;
	uint8_t max_configurable_lossless_queues;
	uint8_t queue_cfg_allowed;
	uint8_t queue_cfg_info;
	uint8_t queue_pfcenable_cfg_allowed;
	uint8_t queue_pri2cos_cfg_allowed;
	uint8_t queue_cos2bw_cfg_allowed;
	struct {
		uint8_t id;
		uint8_t service_profile;	/* BNXT_QUEUE_PROFILE_* */
	} queue[8];
	uint8_t queue_id0_service_profile_type;
	char qid_name[8][16];
	uint8_t queue_service_profile_type[7];	/* queues 1..7 */
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_queue_qportcfg_output, 168);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_output, max_configurable_queues, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_output, queue, 0x0f);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_output, queue_id0_service_profile_type, 0x1f);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_output, qid_name, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_output, queue_service_profile_type, 0xa0);
BNXT_ASSERT_OFF(bnxt_hwrm_queue_qportcfg_output, valid, 0xa7);
#define BNXT_QUEUE_PROFILE_LOSSY		0x00
#define BNXT_QUEUE_PROFILE_LOSSLESS		0x01
#define BNXT_QUEUE_PROFILE_UNKNOWN		0xff

/* ======================================================================
 * HWRM_STAT_CTX_ALLOC (0xb0) / HWRM_STAT_CTX_FREE (0xb1)
 * ====================================================================== */

/* Per-ring counters the device DMAs to stats_dma_addr. [L-HSI] ctx_hw_stats */
struct bnxt_ctx_hw_stats {
	uint64_t rx_ucast_pkts;
	uint64_t rx_mcast_pkts;
	uint64_t rx_bcast_pkts;
	uint64_t rx_discard_pkts;
	uint64_t rx_error_pkts;
	uint64_t rx_ucast_bytes;
	uint64_t rx_mcast_bytes;
	uint64_t rx_bcast_bytes;
	uint64_t tx_ucast_pkts;
	uint64_t tx_mcast_pkts;
	uint64_t tx_bcast_pkts;
	uint64_t tx_error_pkts;
	uint64_t tx_discard_pkts;
	uint64_t tx_ucast_bytes;
	uint64_t tx_mcast_bytes;
	uint64_t tx_bcast_bytes;
	uint64_t tpa_pkts;
	uint64_t tpa_bytes;
	uint64_t tpa_events;
	uint64_t tpa_aborts;
};
BNXT_ASSERT_SIZE(bnxt_ctx_hw_stats, 160);
BNXT_ASSERT_OFF(bnxt_ctx_hw_stats, tx_ucast_pkts, 0x40);

/* [L-HSI] hwrm_stat_ctx_alloc_input */
struct bnxt_hwrm_stat_ctx_alloc_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint64_t stats_dma_addr;
	uint32_t update_period_ms;	/* 0: no periodic DMA */
	uint8_t stat_ctx_flags;
	uint8_t rsvd0;
	uint16_t stats_dma_length;	/* sizeof(struct bnxt_ctx_hw_stats) on P5 */
	uint16_t flags;
	uint16_t steering_tag;
	uint32_t rsvd1;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_stat_ctx_alloc_input, 40);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_alloc_input, stats_dma_addr, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_alloc_input, update_period_ms, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_alloc_input, stat_ctx_flags, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_alloc_input, stats_dma_length, 0x1e);
#define BNXT_STAT_CTX_ALLOC_FLAGS_ROCE		0x1u	/* stat_ctx_flags */

/* [L-HSI] hwrm_stat_ctx_alloc_output */
struct bnxt_hwrm_stat_ctx_alloc_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t stat_ctx_id;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_stat_ctx_alloc_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_alloc_output, stat_ctx_id, 0x08);

/* [L-HSI] hwrm_stat_ctx_free_input */
struct bnxt_hwrm_stat_ctx_free_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t stat_ctx_id;
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_stat_ctx_free_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_free_input, stat_ctx_id, 0x10);

/* [L-HSI] hwrm_stat_ctx_free_output */
struct bnxt_hwrm_stat_ctx_free_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t stat_ctx_id;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_stat_ctx_free_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_free_output, stat_ctx_id, 0x08);

/* ======================================================================
 * HWRM_RING_ALLOC (0x50) / HWRM_RING_FREE (0x51)
 * ====================================================================== */

/* Ring types, shared by RING_ALLOC and RING_FREE. [L-HSI] RING_ALLOC_REQ_RING_TYPE_* */
#define BNXT_RING_TYPE_L2_CMPL			0x0	/* completion ring (CQ) */
#define BNXT_RING_TYPE_TX			0x1
#define BNXT_RING_TYPE_RX			0x2	/* pre-P5: also the AGG ring */
#define BNXT_RING_TYPE_ROCE_CMPL		0x3
#define BNXT_RING_TYPE_RX_AGG			0x4	/* P5+ */
#define BNXT_RING_TYPE_NQ			0x5	/* P5+ notification queue */

/* [L-HSI] hwrm_ring_alloc_input (88 bytes; DPDK's newer HSI appends a
 * doorbell page index at 0x58 and names 0x4e rx_rate_profile_sel). */
struct bnxt_hwrm_ring_alloc_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t enables;		/* BNXT_RING_ALLOC_ENABLES_* */
	uint8_t ring_type;		/* BNXT_RING_TYPE_* */
	uint8_t cmpl_coal_cnt;		/* TX: 0 = coalescing off */
	uint16_t flags;
	uint64_t page_tbl_addr;		/* depth 0: DMA address of the ring itself */
	uint32_t fbo;
	uint8_t page_size;		/* log2 bytes, e.g. 12 */
	uint8_t page_tbl_depth;		/* 0: contiguous ring; 1: page of PTEs */
	uint16_t schq_id;
	uint32_t length;		/* number of 16-byte entries */
	uint16_t logical_id;		/* pre-P5 doorbell slot; CQ/NQ MSI-X vector */
	uint16_t cmpl_ring_id;		/* TX (and RX): its completion ring */
	uint16_t queue_id;		/* TX: CoS queue from QUEUE_QPORTCFG */
	uint16_t rx_buf_size;		/* RX/RX_AGG (P5): buffer bytes per BD */
	uint16_t rx_ring_id;		/* RX_AGG: the parent RX ring id */
	uint16_t nq_ring_id;		/* L2_CMPL (P5): its NQ id */
	uint16_t ring_arb_cfg;
	uint16_t steering_tag;
	uint32_t rsvd0;
	uint32_t stat_ctx_id;		/* TX, RX, RX_AGG */
	uint32_t rsvd1;
	uint32_t max_bw;
	uint8_t int_mode;		/* BNXT_RING_ALLOC_INT_MODE_* */
	uint8_t mpc_chnls_type;
	uint8_t rsvd2[2];
	uint64_t cq_handle;		/* L2_CMPL (P5): echoed in NQ entries */
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ring_alloc_input, 88);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, enables, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, ring_type, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, cmpl_coal_cnt, 0x15);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, flags, 0x16);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, page_tbl_addr, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, fbo, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, page_size, 0x24);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, page_tbl_depth, 0x25);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, length, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, logical_id, 0x2c);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, cmpl_ring_id, 0x2e);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, queue_id, 0x30);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, rx_buf_size, 0x32);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, rx_ring_id, 0x34);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, nq_ring_id, 0x36);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, stat_ctx_id, 0x40);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, max_bw, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, int_mode, 0x4c);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input, cq_handle, 0x50);
#define BNXT_RING_ALLOC_ENABLES_RING_ARB_CFG		0x2u
#define BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID	0x8u
#define BNXT_RING_ALLOC_ENABLES_MAX_BW_VALID		0x20u
#define BNXT_RING_ALLOC_ENABLES_RX_RING_ID_VALID	0x40u
#define BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID	0x80u
#define BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID	0x100u
#define BNXT_RING_ALLOC_ENABLES_SCHQ_ID			0x200u
#define BNXT_RING_ALLOC_FLAGS_RX_SOP_PAD		0x1u
#define BNXT_RING_ALLOC_FLAGS_DISABLE_CQ_OVERFLOW_DETECTION 0x2u
#define BNXT_RING_ALLOC_INT_MODE_LEGACY			0x0
#define BNXT_RING_ALLOC_INT_MODE_MSIX			0x2
#define BNXT_RING_ALLOC_INT_MODE_POLL			0x3

/* [L-HSI] hwrm_ring_alloc_output */
struct bnxt_hwrm_ring_alloc_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t ring_id;		/* firmware ring id = doorbell XID */
	uint16_t logical_ring_id;
	uint8_t push_buffer_index;
	uint8_t rsvd[2];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ring_alloc_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_output, ring_id, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_output, logical_ring_id, 0x0a);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_output, valid, 0x0f);
#define BNXT_INVALID_RING_ID		0xffff

/* [L-HSI133] hwrm_ring_alloc_input (96 bytes): the 88-byte request plus a
 * doorbell page index. It still fits the 128-byte window. Firmware without
 * MULTI_L2_DB_SUPPORTED is not sent DPI_VALID (see the multi-doorbell
 * section below). 0x4e, rsvd2[0] above, is rx_rate_profile_sel in this HSI. */
struct bnxt_hwrm_ring_alloc_input_long {
	struct bnxt_hwrm_ring_alloc_input base;
	uint16_t dpi;			/* with BNXT_RING_ALLOC_ENABLES_DPI_VALID */
	uint16_t rsvd[3];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ring_alloc_input_long, 96);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_alloc_input_long, dpi, 0x58);
_Static_assert(sizeof(struct bnxt_hwrm_ring_alloc_input_long) <= BNXT_HWRM_MAX_REQ_LEN,
	       "RING_ALLOC with dpi fits the request window");
#define BNXT_RING_ALLOC_ENABLES_RX_RATE_PROFILE_VALID	0x1000u
#define BNXT_RING_ALLOC_ENABLES_DPI_VALID		0x2000u

/* ======================================================================
 * P5 multi-doorbell mode (hw-docs/bnxt.md "Multi-doorbell mode").
 *
 * Facts ([L-HSI133]): FUNC_QCAPS flags_ext3 MULTI_L2_DB_SUPPORTED; RING_ALLOC
 * dpi + ENABLES_DPI_VALID; FUNC_QCFG db_page_size (4 KiB << code),
 * l2_doorbell_bar_size_kb, l2_db_multi_page_size_kb. No public L2 driver
 * uses dpi, so how a DPI maps to an address is not public. The rules below
 * are zcnic's, shared by driver and model ("model choice"):
 *   - DPI n is the n-th doorbell page of BAR2: BAR2 + n * page bytes (the
 *     numbering bnxt_re uses for its kernel DPI: BAR offset / page size).
 *     With 4 KiB pages the legacy P5 PF doorbell at 0x10000 is DPI 16.
 *   - The multi-doorbell pages start at the page after the legacy one;
 *     l2_db_multi_page_size_kb is their total size in KiB, so the
 *     function has l2_db_multi_page_size_kb * 1024 / page bytes DPIs.
 *   - The doorbell value is the ordinary 64-bit P5 doorbell (bnxt_db64);
 *     only its address changes. Each ring gets its own DPI.
 * ====================================================================== */

#define BNXT_DB_PAGE_4K			4096u

/* Page bytes for a FUNC_QCFG db_page_size code; 0 for an unknown code. */
static inline uint32_t bnxt_db_page_bytes(uint8_t db_page_size)
{
	if (db_page_size > BNXT_FUNC_QCFG_DB_PAGE_SIZE_MAX)
		return 0;
	return BNXT_DB_PAGE_4K << db_page_size;
}

/* BAR2 offset of the legacy (shared) doorbell of a P5 function. */
static inline uint32_t bnxt_db_legacy_off_p5(bool vf)
{
	return vf ? BNXT_DB_VF_OFFSET_P5 : BNXT_DB_PF_OFFSET_P5;
}

/* Model choice: the first DPI a ring may be given, the page after the
 * legacy doorbell (PF, 4 KiB pages: 17). page_bytes must be non-zero. */
static inline uint32_t bnxt_mdb_first_dpi(bool vf, uint32_t page_bytes)
{
	return bnxt_db_legacy_off_p5(vf) / page_bytes + 1;
}

/* Model choice: how many DPIs the function owns, from FUNC_QCFG. */
static inline uint32_t bnxt_mdb_num_dpis(uint16_t l2_db_multi_page_size_kb, uint32_t page_bytes)
{
	return page_bytes ? (uint32_t)l2_db_multi_page_size_kb * 1024u / page_bytes : 0;
}

/* Model choice: BAR2 offset of the doorbell of a ring allocated with dpi. */
static inline uint64_t bnxt_mdb_db_off(uint32_t dpi, uint32_t page_bytes)
{
	return (uint64_t)dpi * page_bytes;
}

/* [L-HSI] hwrm_ring_free_input; response: bnxt_hwrm_plain_output. Set the
 * header cmpl_ring to the ring's CQ to get an HWRM_DONE there once the ring
 * has drained. */
struct bnxt_hwrm_ring_free_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint8_t ring_type;		/* BNXT_RING_TYPE_* */
	uint8_t flags;
	uint16_t ring_id;
	uint32_t prod_idx;
	uint32_t opaque;
	uint32_t rsvd;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ring_free_input, 32);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_free_input, ring_type, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_free_input, flags, 0x11);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_free_input, ring_id, 0x12);

/* ======================================================================
 * HWRM_RING_GRP_ALLOC (0x60) / HWRM_RING_GRP_FREE (0x61): pre-P5 only.
 * A ring group binds a CQ, an RX ring, an AGG ring and a stat ctx; VNIC_CFG
 * and the pre-P5 RSS table name groups. P5 has no ring groups.
 * ====================================================================== */

/* [L-HSI] hwrm_ring_grp_alloc_input */
struct bnxt_hwrm_ring_grp_alloc_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint16_t cr;			/* completion ring id */
	uint16_t rr;			/* RX ring id */
	uint16_t ar;			/* AGG ring id or BNXT_INVALID_RING_ID */
	uint16_t sc;			/* stat ctx id */
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ring_grp_alloc_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_grp_alloc_input, cr, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_grp_alloc_input, sc, 0x16);

/* [L-HSI] hwrm_ring_grp_alloc_output */
struct bnxt_hwrm_ring_grp_alloc_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t ring_group_id;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ring_grp_alloc_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_grp_alloc_output, ring_group_id, 0x08);

/* [L-HSI] hwrm_ring_grp_free_input; response: bnxt_hwrm_plain_output */
struct bnxt_hwrm_ring_grp_free_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t ring_group_id;
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_ring_grp_free_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_ring_grp_free_input, ring_group_id, 0x10);

/* ======================================================================
 * HWRM_VNIC_ALLOC (0x40) / VNIC_FREE (0x41) / VNIC_CFG (0x42)
 * ====================================================================== */

/* [L-HSI] hwrm_vnic_alloc_input (DPDK's newer HSI uses 0x16 as a requested
 * vnic_id with flag 0x4; zcnic leaves it zero). */
struct bnxt_hwrm_vnic_alloc_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_VNIC_ALLOC_FLAGS_* */
	uint16_t virtio_net_fid;
	uint8_t rsvd[2];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_alloc_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_alloc_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_alloc_input, virtio_net_fid, 0x14);
#define BNXT_VNIC_ALLOC_FLAGS_DEFAULT		0x1u	/* the function's default VNIC */

/* [L-HSI] hwrm_vnic_alloc_output */
struct bnxt_hwrm_vnic_alloc_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t vnic_id;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_alloc_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_alloc_output, vnic_id, 0x08);

/* [L-HSI] hwrm_vnic_free_input; response: bnxt_hwrm_plain_output */
struct bnxt_hwrm_vnic_free_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t vnic_id;
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_free_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_free_input, vnic_id, 0x10);

/*
 * [L-HSI] hwrm_vnic_update_input; response: bnxt_hwrm_plain_output. Linux's
 * per-queue restart sets mru 0 to stop placement on the VNIC while its
 * rings are freed and allocated again, then the MRU back.
 */
struct bnxt_hwrm_vnic_update_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t vnic_id;
	uint32_t enables;		/* BNXT_VNIC_UPDATE_ENABLES_* */
	uint8_t vnic_state;		/* 0 normal, 1 drop */
	uint8_t metadata_format_type;
	uint16_t mru;			/* 0: no frame is placed */
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_update_input, 32);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_update_input, vnic_id, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_update_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_update_input, vnic_state, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_update_input, mru, 0x1a);
#define BNXT_VNIC_UPDATE_ENABLES_VNIC_STATE_VALID	0x1u
#define BNXT_VNIC_UPDATE_ENABLES_MRU_VALID		0x2u
#define BNXT_VNIC_UPDATE_ENABLES_METADATA_FORMAT_VALID	0x4u

/* [L-HSI] hwrm_vnic_cfg_input; response: bnxt_hwrm_plain_output */
struct bnxt_hwrm_vnic_cfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_VNIC_CFG_FLAGS_* */
	uint32_t enables;		/* BNXT_VNIC_CFG_ENABLES_* */
	uint16_t vnic_id;
	uint16_t dflt_ring_grp;		/* pre-P5 */
	uint16_t rss_rule;		/* pre-P5: RSS ctx id */
	uint16_t cos_rule;
	uint16_t lb_rule;
	uint16_t mru;
	uint16_t default_rx_ring_id;	/* P5 */
	uint16_t default_cmpl_ring_id;	/* P5: the CQ of default_rx_ring_id */
	uint16_t queue_id;
	uint8_t rx_csum_v2_mode;
	uint8_t l2_cqe_mode;		/* 0: default (32-byte RX completions) */
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_cfg_input, 48);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, vnic_id, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, dflt_ring_grp, 0x1a);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, rss_rule, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, mru, 0x22);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, default_rx_ring_id, 0x24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, default_cmpl_ring_id, 0x26);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, queue_id, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_cfg_input, l2_cqe_mode, 0x2b);
#define BNXT_VNIC_CFG_FLAGS_DEFAULT			0x1u
#define BNXT_VNIC_CFG_FLAGS_VLAN_STRIP_MODE		0x2u
#define BNXT_VNIC_CFG_FLAGS_BD_STALL_MODE		0x4u
#define BNXT_VNIC_CFG_FLAGS_RSS_DFLT_CR_MODE		0x20u
#define BNXT_VNIC_CFG_ENABLES_DFLT_RING_GRP		0x1u
#define BNXT_VNIC_CFG_ENABLES_RSS_RULE			0x2u
#define BNXT_VNIC_CFG_ENABLES_COS_RULE			0x4u
#define BNXT_VNIC_CFG_ENABLES_LB_RULE			0x8u
#define BNXT_VNIC_CFG_ENABLES_MRU			0x10u
#define BNXT_VNIC_CFG_ENABLES_DEFAULT_RX_RING_ID	0x20u
#define BNXT_VNIC_CFG_ENABLES_DEFAULT_CMPL_RING_ID	0x40u
#define BNXT_VNIC_CFG_ENABLES_QUEUE_ID			0x80u
#define BNXT_VNIC_CFG_ENABLES_RX_CSUM_V2_MODE		0x100u
#define BNXT_VNIC_CFG_ENABLES_L2_CQE_MODE		0x200u

/* ======================================================================
 * RSS: VNIC_RSS_COS_LB_CTX_ALLOC (0x70) / _FREE (0x71), VNIC_RSS_CFG (0x46).
 * CTX_ALLOC input is bnxt_hwrm_hdr_only_input.
 * ====================================================================== */

/* [L-HSI] hwrm_vnic_rss_cos_lb_ctx_alloc_output */
struct bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t rss_cos_lb_ctx_id;
	uint8_t rsvd[5];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output, rss_cos_lb_ctx_id, 0x08);

/* [L-HSI] hwrm_vnic_rss_cos_lb_ctx_free_input; response: plain */
struct bnxt_hwrm_vnic_rss_cos_lb_ctx_free_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint16_t rss_cos_lb_ctx_id;
	uint8_t rsvd[6];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_rss_cos_lb_ctx_free_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cos_lb_ctx_free_input, rss_cos_lb_ctx_id, 0x10);

/* [L-HSI] hwrm_vnic_rss_cfg_input; response: bnxt_hwrm_plain_output.
 * P5: one request per 64-entry table chunk (ring_table_pair_index = chunk,
 * rss_ctx_idx = that chunk's context); the table is pairs of u16
 * {rx ring id, cq ring id}. pre-P5: one request, 128 u16 ring group ids. */
struct bnxt_hwrm_vnic_rss_cfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t hash_type;		/* BNXT_RSS_HASH_TYPE_* */
	uint16_t vnic_id;
	uint8_t ring_table_pair_index;
	uint8_t hash_mode_flags;
	uint64_t ring_grp_tbl_addr;	/* DMA address of the indirection table */
	uint64_t hash_key_tbl_addr;	/* DMA address of the 40-byte key */
	uint16_t rss_ctx_idx;
	uint8_t flags;
	uint8_t ring_select_mode;	/* BNXT_RSS_RING_SELECT_* */
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_rss_cfg_input, 48);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, hash_type, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, vnic_id, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, ring_table_pair_index, 0x16);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, hash_mode_flags, 0x17);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, ring_grp_tbl_addr, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, hash_key_tbl_addr, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, rss_ctx_idx, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, flags, 0x2a);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_rss_cfg_input, ring_select_mode, 0x2b);
#define BNXT_RSS_HASH_TYPE_IPV4			0x1u	/* addresses only */
#define BNXT_RSS_HASH_TYPE_TCP_IPV4		0x2u	/* 4-tuple */
#define BNXT_RSS_HASH_TYPE_UDP_IPV4		0x4u
#define BNXT_RSS_HASH_TYPE_IPV6			0x8u
#define BNXT_RSS_HASH_TYPE_TCP_IPV6		0x10u
#define BNXT_RSS_HASH_TYPE_UDP_IPV6		0x20u
#define BNXT_RSS_HASH_TYPE_IPV6_FLOW_LABEL	0x40u
#define BNXT_RSS_HASH_TYPE_AH_SPI_IPV4		0x80u
#define BNXT_RSS_HASH_TYPE_ESP_SPI_IPV4		0x100u
#define BNXT_RSS_HASH_TYPE_AH_SPI_IPV6		0x200u
#define BNXT_RSS_HASH_TYPE_ESP_SPI_IPV6		0x400u
#define BNXT_RSS_HASH_MODE_FLAGS_DEFAULT	0x1u
#define BNXT_RSS_HASH_MODE_FLAGS_INNERMOST_4	0x2u
#define BNXT_RSS_HASH_MODE_FLAGS_INNERMOST_2	0x4u
#define BNXT_RSS_HASH_MODE_FLAGS_OUTERMOST_4	0x8u
#define BNXT_RSS_HASH_MODE_FLAGS_OUTERMOST_2	0x10u
#define BNXT_RSS_CFG_FLAGS_HASH_TYPE_INCLUDE	0x1u
#define BNXT_RSS_CFG_FLAGS_HASH_TYPE_EXCLUDE	0x2u
#define BNXT_RSS_RING_SELECT_TOEPLITZ		0x0
#define BNXT_RSS_RING_SELECT_XOR		0x1
#define BNXT_RSS_RING_SELECT_TOEPLITZ_CHECKSUM	0x2
/* Table sizes. [L-HSI] HW_HASH_*, [L] bnxt.h BNXT_RSS_TABLE_*_P5 */
#define BNXT_RSS_KEY_SIZE			40
#define BNXT_RSS_TABLE_ENTRIES_PRE_P5		128	/* u16 ring group ids */
#define BNXT_RSS_TABLE_ENTRIES_P5		64	/* per context */
#define BNXT_RSS_TABLE_SIZE_P5			(BNXT_RSS_TABLE_ENTRIES_P5 * 4)
#define BNXT_RSS_TABLE_MAX_TBL_P5		8	/* contexts per VNIC */

/* One P5 indirection table entry. [L] bnxt.c bnxt_fill_hw_rss_tbl_p5 */
struct bnxt_rss_entry_p5 {
	uint16_t rx_ring_id;
	uint16_t cmpl_ring_id;
};
BNXT_ASSERT_SIZE(bnxt_rss_entry_p5, 4);

/* ======================================================================
 * HWRM_VNIC_TPA_CFG (0x44): receive aggregation (TPA) of a VNIC;
 * response: bnxt_hwrm_plain_output
 * ====================================================================== */

/* [L-HSI] hwrm_vnic_tpa_cfg_input (40 bytes; 48 with tnl_tpa_en_bitmap) */
struct bnxt_hwrm_vnic_tpa_cfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_TPA_CFG_FLAGS_* */
	uint32_t enables;		/* BNXT_TPA_CFG_ENABLES_* */
	uint16_t vnic_id;
	uint16_t max_agg_segs;		/* P5: segments per aggregation ([L] MAX_TPA_SEGS_P5 0x3f) */
	uint16_t max_aggs;		/* P5: open aggregations ([L] bp->max_tpa) */
	uint8_t rsvd0[2];
	uint32_t max_agg_timer;
	uint32_t min_agg_len;		/* payload bytes to start one ([L] sets 512) */
	uint32_t tnl_tpa_en_bitmap;
	uint8_t rsvd1[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_tpa_cfg_input, 48);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, vnic_id, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, max_agg_segs, 0x1a);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, max_aggs, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, max_agg_timer, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, min_agg_len, 0x24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_tpa_cfg_input, tnl_tpa_en_bitmap, 0x28);
#define BNXT_TPA_CFG_FLAGS_TPA				0x1u
#define BNXT_TPA_CFG_FLAGS_ENCAP_TPA			0x2u
#define BNXT_TPA_CFG_FLAGS_RSC_WND_UPDATE		0x4u
#define BNXT_TPA_CFG_FLAGS_GRO				0x8u
#define BNXT_TPA_CFG_FLAGS_AGG_WITH_ECN			0x10u
#define BNXT_TPA_CFG_FLAGS_AGG_WITH_SAME_GRE_SEQ	0x20u
#define BNXT_TPA_CFG_FLAGS_GRO_IPID_CHECK		0x40u
#define BNXT_TPA_CFG_FLAGS_GRO_TTL_CHECK		0x80u
#define BNXT_TPA_CFG_FLAGS_AGG_PACK_AS_GRO		0x100u
#define BNXT_TPA_CFG_ENABLES_MAX_AGG_SEGS		0x1u
#define BNXT_TPA_CFG_ENABLES_MAX_AGGS			0x2u
#define BNXT_TPA_CFG_ENABLES_MAX_AGG_TIMER		0x4u
#define BNXT_TPA_CFG_ENABLES_MIN_AGG_LEN		0x8u
#define BNXT_TPA_CFG_ENABLES_TNL_TPA_EN			0x10u

/* ======================================================================
 * HWRM_VNIC_PLCMODES_CFG (0x48): jumbo and header-data split placement;
 * response: bnxt_hwrm_plain_output
 * ====================================================================== */

/* [L-HSI] hwrm_vnic_plcmodes_cfg_input */
struct bnxt_hwrm_vnic_plcmodes_cfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_PLCMODES_CFG_FLAGS_* */
	uint32_t enables;		/* BNXT_PLCMODES_CFG_ENABLES_* */
	uint32_t vnic_id;
	uint16_t jumbo_thresh;		/* bytes kept in the RX buffer by jumbo placement */
	uint16_t hds_offset;
	uint16_t hds_threshold;		/* split packets longer than this; <= 0x3ff, multiple of 4 */
	uint16_t max_bds;
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_plcmodes_cfg_input, 40);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_cfg_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_cfg_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_cfg_input, vnic_id, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_cfg_input, jumbo_thresh, 0x1c);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_cfg_input, hds_offset, 0x1e);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_cfg_input, hds_threshold, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_cfg_input, max_bds, 0x22);
#define BNXT_PLCMODES_CFG_FLAGS_REGULAR_PLACEMENT	0x1u
#define BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT		0x2u
#define BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4		0x4u
#define BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6		0x8u
#define BNXT_PLCMODES_CFG_FLAGS_HDS_FCOE		0x10u
#define BNXT_PLCMODES_CFG_FLAGS_HDS_ROCE		0x20u
#define BNXT_PLCMODES_CFG_FLAGS_VIRTIO_PLACEMENT	0x40u
#define BNXT_PLCMODES_CFG_ENABLES_JUMBO_THRESH_VALID	0x1u
#define BNXT_PLCMODES_CFG_ENABLES_HDS_OFFSET_VALID	0x2u
#define BNXT_PLCMODES_CFG_ENABLES_HDS_THRESHOLD_VALID	0x4u
#define BNXT_PLCMODES_CFG_ENABLES_MAX_BDS_VALID		0x8u
#define BNXT_HDS_THRESHOLD_MAX				0x3ff

/* ======================================================================
 * HWRM_CFA_L2_FILTER_ALLOC (0x90) / _FREE (0x91), CFA_L2_SET_RX_MASK (0x93)
 * ====================================================================== */

/* [L-HSI] hwrm_cfa_l2_filter_alloc_input */
struct bnxt_hwrm_cfa_l2_filter_alloc_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_L2_FILTER_ALLOC_FLAGS_* */
	uint32_t enables;		/* BNXT_L2_FILTER_ALLOC_ENABLES_* */
	uint8_t l2_addr[6];
	uint8_t num_vlans;
	uint8_t t_num_vlans;
	uint8_t l2_addr_mask[6];
	uint16_t l2_ovlan;
	uint16_t l2_ovlan_mask;
	uint16_t l2_ivlan;
	uint16_t l2_ivlan_mask;
	uint8_t rsvd0[2];
	uint8_t t_l2_addr[6];
	uint8_t rsvd1[2];
	uint8_t t_l2_addr_mask[6];
	uint16_t t_l2_ovlan;
	uint16_t t_l2_ovlan_mask;
	uint16_t t_l2_ivlan;
	uint16_t t_l2_ivlan_mask;
	uint8_t src_type;
	uint8_t rsvd2;
	uint32_t src_id;
	uint8_t tunnel_type;
	uint8_t rsvd3;
	uint16_t dst_id;		/* the destination VNIC id */
	uint16_t mirror_vnic_id;
	uint8_t pri_hint;
	uint8_t rsvd4;
	uint32_t rsvd5;
	uint64_t l2_filter_id_hint;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_cfa_l2_filter_alloc_input, 96);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, l2_addr, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, num_vlans, 0x1e);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, l2_addr_mask, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, l2_ovlan, 0x26);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, l2_ivlan, 0x2a);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, t_l2_addr, 0x30);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, src_type, 0x46);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, src_id, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, tunnel_type, 0x4c);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, dst_id, 0x4e);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, pri_hint, 0x52);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_input, l2_filter_id_hint, 0x58);
#define BNXT_L2_FILTER_ALLOC_FLAGS_PATH_RX		0x1u	/* 0: TX */
#define BNXT_L2_FILTER_ALLOC_FLAGS_LOOPBACK		0x2u
#define BNXT_L2_FILTER_ALLOC_FLAGS_DROP			0x4u
#define BNXT_L2_FILTER_ALLOC_FLAGS_OUTERMOST		0x8u
#define BNXT_L2_FILTER_ALLOC_FLAGS_TRAFFIC_MASK		0x30u
#define BNXT_L2_FILTER_ALLOC_FLAGS_TRAFFIC_NO_ROCE_L2	0x00u
#define BNXT_L2_FILTER_ALLOC_FLAGS_TRAFFIC_L2		0x10u
#define BNXT_L2_FILTER_ALLOC_FLAGS_TRAFFIC_ROCE		0x20u
#define BNXT_L2_FILTER_ALLOC_FLAGS_XDP_DISABLE		0x40u
#define BNXT_L2_FILTER_ALLOC_FLAGS_SOURCE_VALID		0x80u
#define BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR		0x1u
#define BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR_MASK	0x2u
#define BNXT_L2_FILTER_ALLOC_ENABLES_L2_OVLAN		0x4u
#define BNXT_L2_FILTER_ALLOC_ENABLES_L2_OVLAN_MASK	0x8u
#define BNXT_L2_FILTER_ALLOC_ENABLES_L2_IVLAN		0x10u
#define BNXT_L2_FILTER_ALLOC_ENABLES_L2_IVLAN_MASK	0x20u
#define BNXT_L2_FILTER_ALLOC_ENABLES_DST_ID		0x8000u
#define BNXT_L2_FILTER_ALLOC_ENABLES_NUM_VLANS		0x20000u

/* [L-HSI] hwrm_cfa_l2_filter_alloc_output */
struct bnxt_hwrm_cfa_l2_filter_alloc_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint64_t l2_filter_id;		/* opaque; pass back unchanged */
	uint32_t flow_id;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_cfa_l2_filter_alloc_output, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_output, l2_filter_id, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_output, flow_id, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_alloc_output, valid, 0x17);

/* [L-HSI] hwrm_cfa_l2_filter_free_input; response: bnxt_hwrm_plain_output */
struct bnxt_hwrm_cfa_l2_filter_free_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint64_t l2_filter_id;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_cfa_l2_filter_free_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_filter_free_input, l2_filter_id, 0x10);

/* [L-HSI] hwrm_cfa_l2_set_rx_mask_input; response: bnxt_hwrm_plain_output */
struct bnxt_hwrm_cfa_l2_set_rx_mask_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t vnic_id;
	uint32_t mask;			/* BNXT_RX_MASK_* */
	uint64_t mc_tbl_addr;		/* 6-byte MACs, with BNXT_RX_MASK_MCAST */
	uint32_t num_mc_entries;
	uint8_t rsvd0[4];
	uint64_t vlan_tag_tbl_addr;
	uint32_t num_vlan_tags;
	uint8_t rsvd1[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_cfa_l2_set_rx_mask_input, 56);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_set_rx_mask_input, vnic_id, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_set_rx_mask_input, mask, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_set_rx_mask_input, mc_tbl_addr, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_set_rx_mask_input, num_mc_entries, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_set_rx_mask_input, vlan_tag_tbl_addr, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_l2_set_rx_mask_input, num_vlan_tags, 0x30);
#define BNXT_RX_MASK_MCAST			0x2u
#define BNXT_RX_MASK_ALL_MCAST			0x4u
#define BNXT_RX_MASK_BCAST			0x8u
#define BNXT_RX_MASK_PROMISCUOUS		0x10u
#define BNXT_RX_MASK_OUTERMOST			0x20u
#define BNXT_RX_MASK_VLANONLY			0x40u
#define BNXT_RX_MASK_VLAN_NONVLAN		0x80u
#define BNXT_RX_MASK_ANYVLAN_NONVLAN		0x100u

/* ======================================================================
 * HWRM_CFA_NTUPLE_FILTER_ALLOC (0x99) / _FREE (0x9a)
 * ====================================================================== */

/* [L-HSI] hwrm_cfa_ntuple_filter_alloc_input. Match fields (ethertype,
 * addresses, ports and their masks) are big-endian, as in the packet;
 * IPv4 addresses use the first 4 bytes of the 16. */
struct bnxt_hwrm_cfa_ntuple_filter_alloc_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_NTUPLE_FLAGS_* */
	uint32_t enables;		/* BNXT_NTUPLE_ENABLES_* */
	uint64_t l2_filter_id;		/* from CFA_L2_FILTER_ALLOC */
	uint8_t src_macaddr[6];
	uint16_t ethertype;		/* big-endian: 0x0800, 0x86dd */
	uint8_t ip_addr_type;		/* BNXT_NTUPLE_IP_ADDR_TYPE_* */
	uint8_t ip_protocol;		/* 6 TCP, 17 UDP */
	uint16_t dst_id;		/* destination VNIC (default) */
	uint16_t rfs_ring_tbl_idx;
	uint8_t tunnel_type;
	uint8_t pri_hint;
	uint8_t src_ipaddr[16];
	uint8_t src_ipaddr_mask[16];
	uint8_t dst_ipaddr[16];
	uint8_t dst_ipaddr_mask[16];
	uint16_t src_port;		/* big-endian */
	uint16_t src_port_mask;		/* big-endian */
	uint16_t dst_port;		/* big-endian */
	uint16_t dst_port_mask;		/* big-endian */
	uint64_t ntuple_filter_id_hint;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_cfa_ntuple_filter_alloc_input, 128);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, flags, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, enables, 0x14);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, l2_filter_id, 0x18);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, src_macaddr, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, ethertype, 0x26);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, ip_addr_type, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, ip_protocol, 0x29);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, dst_id, 0x2a);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, rfs_ring_tbl_idx, 0x2c);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, tunnel_type, 0x2e);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, pri_hint, 0x2f);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, src_ipaddr, 0x30);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, src_ipaddr_mask, 0x40);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, dst_ipaddr, 0x50);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, dst_ipaddr_mask, 0x60);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, src_port, 0x70);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, src_port_mask, 0x72);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, dst_port, 0x74);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, dst_port_mask, 0x76);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_input, ntuple_filter_id_hint, 0x78);
#define BNXT_NTUPLE_FLAGS_LOOPBACK		0x1u
#define BNXT_NTUPLE_FLAGS_DROP			0x2u
#define BNXT_NTUPLE_FLAGS_METER			0x4u
#define BNXT_NTUPLE_FLAGS_DEST_FID		0x8u
#define BNXT_NTUPLE_FLAGS_ARP_REPLY		0x10u
#define BNXT_NTUPLE_FLAGS_DEST_RFS_RING_IDX	0x20u
#define BNXT_NTUPLE_FLAGS_NO_L2_CONTEXT		0x40u
#define BNXT_NTUPLE_ENABLES_L2_FILTER_ID	0x1u
#define BNXT_NTUPLE_ENABLES_ETHERTYPE		0x2u
#define BNXT_NTUPLE_ENABLES_TUNNEL_TYPE		0x4u
#define BNXT_NTUPLE_ENABLES_SRC_MACADDR		0x8u
#define BNXT_NTUPLE_ENABLES_IPADDR_TYPE		0x10u
#define BNXT_NTUPLE_ENABLES_SRC_IPADDR		0x20u
#define BNXT_NTUPLE_ENABLES_SRC_IPADDR_MASK	0x40u
#define BNXT_NTUPLE_ENABLES_DST_IPADDR		0x80u
#define BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK	0x100u
#define BNXT_NTUPLE_ENABLES_IP_PROTOCOL		0x200u
#define BNXT_NTUPLE_ENABLES_SRC_PORT		0x400u
#define BNXT_NTUPLE_ENABLES_SRC_PORT_MASK	0x800u
#define BNXT_NTUPLE_ENABLES_DST_PORT		0x1000u
#define BNXT_NTUPLE_ENABLES_DST_PORT_MASK	0x2000u
#define BNXT_NTUPLE_ENABLES_PRI_HINT		0x4000u
#define BNXT_NTUPLE_ENABLES_NTUPLE_FILTER_ID	0x8000u
#define BNXT_NTUPLE_ENABLES_DST_ID		0x10000u
#define BNXT_NTUPLE_ENABLES_MIRROR_VNIC_ID	0x20000u
#define BNXT_NTUPLE_ENABLES_DST_MACADDR		0x40000u
#define BNXT_NTUPLE_ENABLES_RFS_RING_TBL_IDX	0x80000u
#define BNXT_NTUPLE_IP_ADDR_TYPE_UNKNOWN	0
#define BNXT_NTUPLE_IP_ADDR_TYPE_IPV4		4
#define BNXT_NTUPLE_IP_ADDR_TYPE_IPV6		6

/* [L-HSI] hwrm_cfa_ntuple_filter_alloc_output */
struct bnxt_hwrm_cfa_ntuple_filter_alloc_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint64_t ntuple_filter_id;	/* opaque; pass back unchanged */
	uint32_t flow_id;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_cfa_ntuple_filter_alloc_output, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_output, ntuple_filter_id, 0x08);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_alloc_output, valid, 0x17);

/* [L-HSI] hwrm_cfa_ntuple_filter_free_input; response: plain */
struct bnxt_hwrm_cfa_ntuple_filter_free_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint64_t ntuple_filter_id;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_cfa_ntuple_filter_free_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_cfa_ntuple_filter_free_input, ntuple_filter_id, 0x10);

/* ======================================================================
 * Optional commands: FUNC_DRV_IF_CHANGE (0x0d), VNIC_QCAPS (0x4a)
 * ====================================================================== */

/* [L-HSI] hwrm_func_drv_if_change_input */
struct bnxt_hwrm_func_drv_if_change_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t flags;			/* BNXT_FUNC_DRV_IF_CHANGE_FLAGS_UP or 0 */
	uint32_t rsvd;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_drv_if_change_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_if_change_input, flags, 0x10);
#define BNXT_FUNC_DRV_IF_CHANGE_FLAGS_UP	0x1u

/* [L-HSI] hwrm_func_drv_if_change_output */
struct bnxt_hwrm_func_drv_if_change_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t flags;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_drv_if_change_output, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_func_drv_if_change_output, flags, 0x08);
#define BNXT_FUNC_DRV_IF_CHANGE_RESP_FLAGS_RESC_CHANGE		0x1u
#define BNXT_FUNC_DRV_IF_CHANGE_RESP_FLAGS_HOT_FW_RESET_DONE	0x2u

/* [L-HSI] hwrm_vnic_qcaps_input */
struct bnxt_hwrm_vnic_qcaps_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t enables;
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_qcaps_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_qcaps_input, enables, 0x10);

/* [L-HSI] hwrm_vnic_qcaps_output */
struct bnxt_hwrm_vnic_qcaps_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t mru;
	uint8_t rsvd0[2];
	uint32_t flags;
	uint16_t max_aggs_supported;
	uint8_t rsvd1[5];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_qcaps_output, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_qcaps_output, flags, 0x0c);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_qcaps_output, max_aggs_supported, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_qcaps_output, valid, 0x17);

/* Commands DPDK's bnxt PMD sends and zcnic does not (hw-docs/dpdk-bnxt.md 3;
 * layouts from DPDK drivers/net/bnxt/hsi_struct_def_dpdk.h). */

/* [L-HSI] hwrm_vnic_plcmodes_qcfg_input; its output has the placement flags
 * of VNIC_PLCMODES_CFG plus DFLT_VNIC, which the CFG command lacks. */
struct bnxt_hwrm_vnic_plcmodes_qcfg_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t vnic_id;
	uint8_t rsvd[4];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_plcmodes_qcfg_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_qcfg_input, vnic_id, 0x10);

struct bnxt_hwrm_vnic_plcmodes_qcfg_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint32_t flags;
	uint16_t jumbo_thresh;
	uint16_t hds_offset;
	uint16_t hds_threshold;
	uint16_t max_bds;
	uint8_t rsvd[3];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_vnic_plcmodes_qcfg_output, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_qcfg_output, jumbo_thresh, 0x0c);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_qcfg_output, hds_threshold, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_vnic_plcmodes_qcfg_output, valid, 0x17);
#define BNXT_PLCMODES_QCFG_FLAGS_DFLT_VNIC	0x40u

/* [L-HSI] hwrm_func_resource_qcaps_input/output: the ranges the function
 * may reserve with FUNC_CFG (min guaranteed, max possible); max_msix is the
 * NQ count. Input: the header, fid (u16) at 0x10, 24 bytes in all. */
struct bnxt_hwrm_func_resource_qcaps_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint16_t max_vfs;
	uint16_t max_msix;
	uint16_t vf_reservation_strategy;
	uint16_t min_rsscos_ctx, max_rsscos_ctx;
	uint16_t min_cmpl_rings, max_cmpl_rings;
	uint16_t min_tx_rings, max_tx_rings;
	uint16_t min_rx_rings, max_rx_rings;
	uint16_t min_l2_ctxs, max_l2_ctxs;
	uint16_t min_vnics, max_vnics;
	uint16_t min_stat_ctx, max_stat_ctx;
	uint16_t min_hw_ring_grps, max_hw_ring_grps;
	uint16_t max_tx_scheduler_inputs;
	uint16_t flags;
	uint16_t min_tx_key_ctxs, max_tx_key_ctxs;
	uint16_t min_rx_key_ctxs, max_rx_key_ctxs;
	uint8_t rsvd[5];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_func_resource_qcaps_output, 64);
BNXT_ASSERT_OFF(bnxt_hwrm_func_resource_qcaps_output, max_msix, 0x0a);
BNXT_ASSERT_OFF(bnxt_hwrm_func_resource_qcaps_output, max_rsscos_ctx, 0x10);
BNXT_ASSERT_OFF(bnxt_hwrm_func_resource_qcaps_output, max_stat_ctx, 0x28);
BNXT_ASSERT_OFF(bnxt_hwrm_func_resource_qcaps_output, flags, 0x30);
BNXT_ASSERT_OFF(bnxt_hwrm_func_resource_qcaps_output, valid, 0x3f);

/* [L-HSI] hwrm_stat_ctx_query_input; STAT_CTX_CLR_STATS has the same
 * request without flags, and a plain output. */
struct bnxt_hwrm_stat_ctx_query_input {
	struct bnxt_hwrm_req_hdr hdr;
	uint32_t stat_ctx_id;
	uint8_t flags;		/* bit 0 COUNTER_MASK: ask for the counter widths */
	uint8_t rsvd[3];
};
BNXT_ASSERT_SIZE(bnxt_hwrm_stat_ctx_query_input, 24);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_query_input, flags, 0x14);
#define BNXT_STAT_CTX_QUERY_FLAGS_COUNTER_MASK	0x1u

/* The counters in an order of their own: TX first, unlike the DMA block. */
struct bnxt_hwrm_stat_ctx_query_output {
	struct bnxt_hwrm_resp_hdr hdr;
	uint64_t tx_ucast_pkts, tx_mcast_pkts, tx_bcast_pkts;
	uint64_t tx_discard_pkts, tx_error_pkts;
	uint64_t tx_ucast_bytes, tx_mcast_bytes, tx_bcast_bytes;
	uint64_t rx_ucast_pkts, rx_mcast_pkts, rx_bcast_pkts;
	uint64_t rx_discard_pkts, rx_error_pkts;
	uint64_t rx_ucast_bytes, rx_mcast_bytes, rx_bcast_bytes;
	uint64_t rx_agg_pkts, rx_agg_bytes, rx_agg_events, rx_agg_aborts;
	uint8_t rsvd[7];
	uint8_t valid;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_stat_ctx_query_output, 176);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_query_output, tx_discard_pkts, 0x20);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_query_output, rx_ucast_pkts, 0x48);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_query_output, rx_agg_aborts, 0xa0);
BNXT_ASSERT_OFF(bnxt_hwrm_stat_ctx_query_output, valid, 0xaf);

/* ======================================================================
 * Data path. Every BD and every completion slot is 16 bytes; rings are
 * arrays of them, power-of-two sized.
 * ====================================================================== */

#define BNXT_BD_SIZE			16
#define BNXT_CMPL_SIZE			16

/* ---- TX ---------------------------------------------------------------- */

/* Short TX BD, and the first 16 bytes of a long one.
 * [D-HSI] tx_bd_short / tx_bd_long, [L] bnxt.h tx_bd */
struct bnxt_tx_bd {
	uint16_t flags_type;	/* BNXT_TX_BD_TYPE_* | BNXT_TX_BD_FLAGS_* */
	uint16_t len;		/* bytes of this buffer (every BD) */
	uint32_t opaque;	/* returned in the TX completion (first BD) */
	uint64_t addr;		/* DMA address of this buffer (every BD) */
};
BNXT_ASSERT_SIZE(bnxt_tx_bd, 16);
BNXT_ASSERT_OFF(bnxt_tx_bd, len, 2);
BNXT_ASSERT_OFF(bnxt_tx_bd, opaque, 4);
BNXT_ASSERT_OFF(bnxt_tx_bd, addr, 8);
#define BNXT_TX_BD_TYPE_MASK		0x003fu
#define BNXT_TX_BD_TYPE_SHORT		0x0000u	/* 16-byte BD */
#define BNXT_TX_BD_TYPE_LONG		0x0010u	/* 32-byte BD: followed by bnxt_tx_bd_long_hi */
#define BNXT_TX_BD_FLAGS_PACKET_END	0x0040u	/* last BD of the packet (every BD) */
#define BNXT_TX_BD_FLAGS_NO_CMPL	0x0080u	/* no completion unless error (first BD) */
#define BNXT_TX_BD_FLAGS_BD_CNT_MASK	0x1f00u	/* 16-byte slots in the packet; 0 = 32 */
#define BNXT_TX_BD_FLAGS_BD_CNT_SFT	8
#define BNXT_TX_BD_FLAGS_LHINT_MASK	0x6000u	/* packet length hint (first BD) */
#define BNXT_TX_BD_FLAGS_LHINT_LT512	0x0000u
#define BNXT_TX_BD_FLAGS_LHINT_LT1K	0x2000u
#define BNXT_TX_BD_FLAGS_LHINT_LT2K	0x4000u
#define BNXT_TX_BD_FLAGS_LHINT_GTE2K	0x6000u
#define BNXT_TX_BD_FLAGS_COAL_NOW	0x8000u	/* update the consumer at once */
#define BNXT_TX_MAX_BD_CNT		32
#define BNXT_TX_MIN_PKT_LEN		52	/* shorter frames must be padded ([L] BNXT_MIN_PKT_SIZE) */

static inline uint16_t bnxt_tx_bd_cnt(unsigned int slots)
{
	return (uint16_t)((slots << BNXT_TX_BD_FLAGS_BD_CNT_SFT) & BNXT_TX_BD_FLAGS_BD_CNT_MASK);
}

/* The LHINT value for a packet of pkt_len bytes. A hint shorter than the
 * packet makes the NIC drop it (TX completion error HINT_TOO_SHORT). */
static inline uint16_t bnxt_tx_lhint(uint32_t pkt_len)
{
	if (pkt_len < 512)
		return BNXT_TX_BD_FLAGS_LHINT_LT512;
	if (pkt_len < 1024)
		return BNXT_TX_BD_FLAGS_LHINT_LT1K;
	if (pkt_len < 2048)
		return BNXT_TX_BD_FLAGS_LHINT_LT2K;
	return BNXT_TX_BD_FLAGS_LHINT_GTE2K;
}

/* Second 16 bytes of a long TX BD (offloads).
 * [D-HSI] tx_bd_long_hi, [L] bnxt.h tx_bd_ext */
struct bnxt_tx_bd_long_hi {
	uint16_t lflags;	/* BNXT_TX_BD_LFLAGS_* */
	uint16_t hdr_size;	/* LSO: bits 8:0, header length in 2-byte units */
	uint32_t mss;		/* LSO: bits 14:0 */
	uint16_t cfa_action_high;
	uint16_t cfa_action;
	uint32_t cfa_meta;	/* VLAN insertion: BNXT_TX_BD_CFA_META_* */
};
BNXT_ASSERT_SIZE(bnxt_tx_bd_long_hi, 16);
BNXT_ASSERT_OFF(bnxt_tx_bd_long_hi, hdr_size, 2);
BNXT_ASSERT_OFF(bnxt_tx_bd_long_hi, mss, 4);
BNXT_ASSERT_OFF(bnxt_tx_bd_long_hi, cfa_action, 0xa);
BNXT_ASSERT_OFF(bnxt_tx_bd_long_hi, cfa_meta, 0xc);
#define BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM	0x0001u
#define BNXT_TX_BD_LFLAGS_IP_CHKSUM		0x0002u
#define BNXT_TX_BD_LFLAGS_NOCRC			0x0004u
#define BNXT_TX_BD_LFLAGS_STAMP			0x0008u
#define BNXT_TX_BD_LFLAGS_T_IP_CHKSUM		0x0010u
#define BNXT_TX_BD_LFLAGS_LSO			0x0020u
#define BNXT_TX_BD_LFLAGS_IPID_FMT		0x0040u
#define BNXT_TX_BD_LFLAGS_T_IPID		0x0080u
#define BNXT_TX_BD_HDR_SIZE_MASK		0x01ffu
#define BNXT_TX_BD_MSS_MASK			0x7fffu
/* LSO ([L] bnxt.c bnxt_start_xmit): the first BD's buffer starts with the
 * headers (hdr_size counts L2 + L3 + L4 in 2-byte units, Linux writes
 * hdr_len << (TX_BD_HSIZE_SHIFT - 1)); mss is the TCP payload of each frame
 * the device cuts; the length hint is that of one cut frame (mss + headers),
 * not of the whole buffer chain. Linux also sets T_IPID, which only concerns
 * the inner IP id of tunnelled frames; zcnic sends none. */
#define BNXT_TX_BD_HDR_UNIT			2
/* Bytes of one LSO frame, headers included: every BD length and the IPv4
 * total length are 16-bit fields (Linux's default GSO_MAX_SIZE, 64 KiB). */
#define BNXT_TX_LSO_MAX				0xffffu
_Static_assert(BNXT_TX_BD_HDR_SIZE_MASK * BNXT_TX_BD_HDR_UNIT >= 14 + 4 + 60 + 60,
	       "hdr_size covers Ethernet + VLAN + IPv4 with options + TCP with options");
#define BNXT_TX_BD_CFA_META_VLAN_VID_MASK	0x00000fffu
#define BNXT_TX_BD_CFA_META_VLAN_DE		0x00001000u
#define BNXT_TX_BD_CFA_META_VLAN_PRI_MASK	0x0000e000u
#define BNXT_TX_BD_CFA_META_VLAN_PRI_SFT	13
#define BNXT_TX_BD_CFA_META_VLAN_TPID_MASK	0x00070000u
#define BNXT_TX_BD_CFA_META_VLAN_TPID_88A8	0x00000000u
#define BNXT_TX_BD_CFA_META_VLAN_TPID_8100	0x00010000u
#define BNXT_TX_BD_CFA_META_KEY_MASK		0xf0000000u
#define BNXT_TX_BD_CFA_META_KEY_VLAN_TAG	0x10000000u

/* ---- RX producer BDs (RX ring: type PKT; AGG ring: type AGG) ---------- */

/* [D-HSI] rx_prod_pkt_bd / rx_prod_agg_bd, [L] bnxt.h rx_bd */
struct bnxt_rx_bd {
	uint16_t flags_type;	/* BNXT_RX_BD_TYPE_* | BNXT_RX_BD_FLAGS_* */
	uint16_t len;		/* buffer bytes */
	uint32_t opaque;	/* echoed in the RX / RX_AGG completion */
	uint64_t addr;		/* DMA address of the buffer */
};
BNXT_ASSERT_SIZE(bnxt_rx_bd, 16);
BNXT_ASSERT_OFF(bnxt_rx_bd, len, 2);
BNXT_ASSERT_OFF(bnxt_rx_bd, opaque, 4);
BNXT_ASSERT_OFF(bnxt_rx_bd, addr, 8);
#define BNXT_RX_BD_TYPE_MASK		0x003fu
#define BNXT_RX_BD_TYPE_PKT		0x0004u	/* RX ring: packet / header buffer */
#define BNXT_RX_BD_TYPE_BUFFER		0x0005u	/* not used */
#define BNXT_RX_BD_TYPE_AGG		0x0006u	/* AGG ring: aggregation buffer */
/* PKT BD: place at addr + 2 (SOP pad) / pad the write out to a cache line.
 * Linux also sets 0x40 on AGG BDs. */
#define BNXT_RX_BD_FLAGS_SOP_PAD	0x0040u
#define BNXT_RX_BD_FLAGS_EOP_PAD	0x0080u
#define BNXT_RX_BD_FLAGS_BUFFERS_MASK	0x0300u	/* must be 0 */

/* ---- Completion records ------------------------------------------------ */

/* Any 16-byte completion slot. [D-HSI] cmpl_base */
struct bnxt_cmpl_base {
	uint16_t type;		/* bits 5:0: BNXT_CMPL_TYPE_* */
	uint16_t info1;
	uint32_t info2;
	uint32_t info3_v;	/* bit 0: the V (valid / phase) bit of every slot */
	uint32_t info4;
};
BNXT_ASSERT_SIZE(bnxt_cmpl_base, 16);
BNXT_ASSERT_OFF(bnxt_cmpl_base, info3_v, 8);
#define BNXT_CMPL_TYPE_MASK			0x3fu
#define BNXT_CMPL_V				0x1u
/* Completion types; odd types are 32 bytes (two slots). [D-HSI] cmpl_base,
 * [L] bnxt.h CMP_TYPE_*, [L-HSI] nqe_cn / hwrm_*_cmpl */
#define BNXT_CMPL_TYPE_TX_L2			0x00	/* bnxt_tx_cmpl */
#define BNXT_CMPL_TYPE_TX_L2_COAL		0x02	/* carries sq_cons_idx */
#define BNXT_CMPL_TYPE_TX_L2_PKT_TS		0x04
#define BNXT_CMPL_TYPE_RX_L2			0x11	/* bnxt_rx_pkt_cmpl + _hi */
#define BNXT_CMPL_TYPE_RX_AGG			0x12	/* bnxt_rx_agg_cmpl */
#define BNXT_CMPL_TYPE_RX_TPA_START		0x13
#define BNXT_CMPL_TYPE_RX_TPA_END		0x15
#define BNXT_CMPL_TYPE_RX_TPA_AGG		0x16
#define BNXT_CMPL_TYPE_RX_L2_V3			0x17	/* P7 */
#define BNXT_CMPL_TYPE_RX_TPA_START_V3		0x19	/* P7 */
#define BNXT_CMPL_TYPE_STAT_EJECT		0x1a
#define BNXT_CMPL_TYPE_HWRM_DONE		0x20	/* bnxt_hwrm_done_cmpl */
#define BNXT_CMPL_TYPE_HWRM_FWD_REQ		0x22
#define BNXT_CMPL_TYPE_HWRM_FWD_RESP		0x24
#define BNXT_CMPL_TYPE_HWRM_ASYNC_EVENT		0x2e	/* bnxt_async_event_cmpl */
#define BNXT_CMPL_TYPE_CQ_NOTIFICATION		0x30	/* NQ entry: bnxt_nq_cn */

/* Number of 16-byte slots a record of this type occupies. */
static inline unsigned int bnxt_cmpl_slots(uint16_t type)
{
	return (type & 1u) + 1u;
}

/* Phase: the V value the device writes, and the driver expects, in the slot
 * at raw index raw_idx of a ring of ring_size (a power of two) entries. The
 * raw index counts slots since the ring was created and is never masked;
 * the first pass over the ring carries V = 1, the second V = 0, and so on. */
static inline uint32_t bnxt_cmpl_phase(uint32_t raw_idx, uint32_t ring_size)
{
	return (raw_idx & ring_size) ? 0u : 1u;
}

/* True when the slot at raw index raw_cons holds a record written on the
 * current pass. Read every other field of the record only after this and a
 * read barrier; for a 32-byte record test both slots. */
static inline bool bnxt_cmpl_valid(const void *slot, uint32_t raw_cons, uint32_t ring_size)
{
	const volatile uint32_t *w = (const volatile uint32_t *)((const uint8_t *)slot + 8);

	return (*w & BNXT_CMPL_V) == bnxt_cmpl_phase(raw_cons, ring_size);
}

/* TX completion. [D-HSI] tx_cmpl, [L] bnxt.h tx_cmp */
struct bnxt_tx_cmpl {
	uint16_t flags_type;	/* type 0x00 | BNXT_TX_CMPL_FLAGS_* */
	uint16_t rsvd0;
	uint32_t opaque;	/* opaque of the packet's first BD */
	uint16_t errors_v;	/* bit 0 V | BNXT_TX_CMPL_ERRORS_* */
	uint16_t rsvd1;
	uint32_t sq_cons_idx;	/* TX_L2_COAL only: bits 23:0 */
};
BNXT_ASSERT_SIZE(bnxt_tx_cmpl, 16);
BNXT_ASSERT_OFF(bnxt_tx_cmpl, opaque, 4);
BNXT_ASSERT_OFF(bnxt_tx_cmpl, errors_v, 8);
BNXT_ASSERT_OFF(bnxt_tx_cmpl, sq_cons_idx, 12);
#define BNXT_TX_CMPL_FLAGS_ERROR		0x0040u
#define BNXT_TX_CMPL_FLAGS_PUSH			0x0080u
#define BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_MASK	0x000eu
#define BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_NONE	(0x0u << 1)
#define BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT (0x2u << 1)
#define BNXT_TX_CMPL_ERRORS_ZERO_LENGTH_PKT	0x0010u
#define BNXT_TX_CMPL_ERRORS_EXCESSIVE_BD_LENGTH	0x0020u
#define BNXT_TX_CMPL_ERRORS_DMA_ERROR		0x0040u
#define BNXT_TX_CMPL_ERRORS_HINT_TOO_SHORT	0x0080u
#define BNXT_TX_CMPL_ERRORS_POISON_TLP_ERROR	0x0100u
#define BNXT_TX_CMPL_SQ_CONS_IDX_MASK		0x00ffffffu

/* RX L2 completion, first 16 bytes. [D-HSI] rx_pkt_cmpl, [L] bnxt.h rx_cmp */
struct bnxt_rx_pkt_cmpl {
	uint16_t flags_type;	/* type 0x11 | BNXT_RX_CMPL_FLAGS_* */
	uint16_t len;		/* bytes in the RX (packet/header) buffer; AGG bytes excluded */
	uint32_t opaque;	/* opaque of the RX PKT BD */
	uint8_t agg_bufs_v1;	/* bit 0 V; bits 5:1 number of RX_AGG records that follow */
	uint8_t rss_hash_type;	/* see bnxt_rx_rss_tuple_op() */
	uint8_t payload_offset;	/* inner L4 payload offset; 0 means 256 */
	uint8_t rsvd;
	uint32_t rss_hash;	/* valid with BNXT_RX_CMPL_FLAGS_RSS_VALID */
};
BNXT_ASSERT_SIZE(bnxt_rx_pkt_cmpl, 16);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl, len, 2);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl, opaque, 4);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl, agg_bufs_v1, 8);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl, rss_hash_type, 9);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl, payload_offset, 0xa);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl, rss_hash, 0xc);
#define BNXT_RX_CMPL_FLAGS_ERROR		0x0040u
#define BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK	0x0380u
#define BNXT_RX_CMPL_FLAGS_PLACEMENT_NORMAL	(0x0u << 7)
#define BNXT_RX_CMPL_FLAGS_PLACEMENT_JUMBO	(0x1u << 7)
#define BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS	(0x2u << 7)
#define BNXT_RX_CMPL_FLAGS_RSS_VALID		0x0400u
#define BNXT_RX_CMPL_FLAGS_PKT_METADATA_PRESENT	0x0800u
#define BNXT_RX_CMPL_FLAGS_ITYPE_MASK		0xf000u
#define BNXT_RX_CMPL_FLAGS_ITYPE_NOT_KNOWN	(0x0u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_IP		(0x1u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_TCP		(0x2u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_UDP		(0x3u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_FCOE		(0x4u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_ROCE		(0x5u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_ICMP		(0x7u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_PTP_WO_TS	(0x8u << 12)
#define BNXT_RX_CMPL_FLAGS_ITYPE_PTP_W_TS	(0x9u << 12)
#define BNXT_RX_CMPL_V1				0x01u
#define BNXT_RX_CMPL_AGG_BUFS_MASK		0x3eu
#define BNXT_RX_CMPL_AGG_BUFS_SFT		1
#define BNXT_RX_CMPL_AGG_BUFS_MAX		31
/* rss_hash_type packs {tuple_extract_op[1:0], rss_profile_id[4:0],
 * tuple_extract_op[2]} from bit 7 down to bit 0. */
#define BNXT_RX_RSS_OP_INNER_4TUPLE		0	/* IP addresses + L4 ports */
#define BNXT_RX_RSS_OP_INNER_2TUPLE		1	/* IP addresses */
#define BNXT_RX_RSS_OP_OUTER_4TUPLE		2	/* tunnels only */
#define BNXT_RX_RSS_OP_OUTER_2TUPLE		3

static inline unsigned int bnxt_rx_agg_bufs(uint8_t agg_bufs_v1)
{
	return (agg_bufs_v1 & BNXT_RX_CMPL_AGG_BUFS_MASK) >> BNXT_RX_CMPL_AGG_BUFS_SFT;
}
static inline unsigned int bnxt_rx_rss_tuple_op(uint8_t rss_hash_type)
{
	return ((rss_hash_type >> 6) & 0x3u) | ((rss_hash_type & 0x1u) << 2);
}
static inline unsigned int bnxt_rx_rss_profile_id(uint8_t rss_hash_type)
{
	return (rss_hash_type >> 1) & 0x1fu;
}
static inline uint8_t bnxt_rx_rss_hash_type(unsigned int tuple_op, unsigned int profile_id)
{
	return (uint8_t)(((tuple_op & 0x3u) << 6) | ((profile_id & 0x1fu) << 1) |
			 ((tuple_op >> 2) & 0x1u));
}
static inline unsigned int bnxt_rx_payload_offset(uint8_t payload_offset)
{
	return payload_offset ? payload_offset : 256u;
}

/* RX L2 completion, second 16 bytes. [D-HSI] rx_pkt_cmpl_hi, [L] bnxt.h rx_cmp_ext */
struct bnxt_rx_pkt_cmpl_hi {
	uint32_t flags2;	/* BNXT_RX_CMPL_FLAGS2_* */
	uint32_t metadata;	/* VLAN: VID 11:0, DE 12, PRI 15:13, TPID 31:16 */
	uint16_t errors_v2;	/* bit 0 V | BNXT_RX_CMPL_ERRORS_* */
	uint16_t cfa_code;
	uint32_t reorder;	/* bits 23:0 */
};
BNXT_ASSERT_SIZE(bnxt_rx_pkt_cmpl_hi, 16);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl_hi, metadata, 4);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl_hi, errors_v2, 8);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl_hi, cfa_code, 0xa);
BNXT_ASSERT_OFF(bnxt_rx_pkt_cmpl_hi, reorder, 0xc);
#define BNXT_RX_CMPL_FLAGS2_IP_CS_CALC		0x001u
#define BNXT_RX_CMPL_FLAGS2_L4_CS_CALC		0x002u
#define BNXT_RX_CMPL_FLAGS2_T_IP_CS_CALC	0x004u
#define BNXT_RX_CMPL_FLAGS2_T_L4_CS_CALC	0x008u
#define BNXT_RX_CMPL_FLAGS2_META_FORMAT_MASK	0x0f0u
#define BNXT_RX_CMPL_FLAGS2_META_FORMAT_VLAN	0x010u
#define BNXT_RX_CMPL_FLAGS2_IP_TYPE_IPV6	0x100u
#define BNXT_RX_CMPL_V2				0x0001u
#define BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_MASK	0x000eu
#define BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_NO_BUFFER	(0x0u << 1)
#define BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_DID_NOT_FIT	(0x1u << 1)
#define BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_NOT_ON_CHIP	(0x2u << 1)
#define BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT	(0x3u << 1)
#define BNXT_RX_CMPL_ERRORS_IP_CS_ERROR		0x0010u
#define BNXT_RX_CMPL_ERRORS_L4_CS_ERROR		0x0020u
#define BNXT_RX_CMPL_ERRORS_T_IP_CS_ERROR	0x0040u
#define BNXT_RX_CMPL_ERRORS_T_L4_CS_ERROR	0x0080u
#define BNXT_RX_CMPL_ERRORS_CRC_ERROR		0x0100u
#define BNXT_RX_CMPL_ERRORS_T_PKT_ERROR_MASK	0x0e00u
#define BNXT_RX_CMPL_ERRORS_PKT_ERROR_MASK	0xf000u

/* The two halves of an RX L2 record, as they sit in the ring. */
struct bnxt_rx_l2_cmpl {
	struct bnxt_rx_pkt_cmpl lo;
	struct bnxt_rx_pkt_cmpl_hi hi;
};
BNXT_ASSERT_SIZE(bnxt_rx_l2_cmpl, 32);

/* RX aggregation buffer completion (follows its RX L2 record).
 * [D-HSI] rx_abuf_cmpl, [L] bnxt.h rx_agg_cmp */
struct bnxt_rx_agg_cmpl {
	uint16_t type;		/* 0x12 */
	uint16_t len;		/* bytes placed in this AGG buffer */
	uint32_t opaque;	/* opaque of the AGG BD */
	uint32_t v;		/* bit 0 V; bits 27:16 TPA agg_id */
	uint32_t rsvd;
};
BNXT_ASSERT_SIZE(bnxt_rx_agg_cmpl, 16);
BNXT_ASSERT_OFF(bnxt_rx_agg_cmpl, len, 2);
BNXT_ASSERT_OFF(bnxt_rx_agg_cmpl, opaque, 4);
BNXT_ASSERT_OFF(bnxt_rx_agg_cmpl, v, 8);

/* ---- TPA (receive aggregation) completions, P5 layout ----------------
 * [L] bnxt.h rx_tpa_start_cmp(_ext), rx_tpa_end_cmp(_ext), the *_P5 fields;
 * [D-HSI] rx_tpa_start_cmpl, rx_tpa_end_cmpl (field meanings). On P5 an
 * aggregation is: TPA_START (32 bytes, the first packet's header in the RX
 * buffer it names), standalone RX_TPA_AGG records (16 bytes, type 0x16,
 * struct bnxt_rx_agg_cmpl with the agg_id in v 27:16) as AGG buffers fill,
 * then TPA_END (32 bytes) with the count of those AGG records. With several
 * aggregations open on a ring, RX_TPA_AGG records name AGG slots (opaque)
 * out of ring order: [L] bnxt.c tracks AGG slots with rx_agg_bmap and takes
 * each one from rx_agg_cmp_opaque (hw-docs/bnxt.md 9.4). */

struct bnxt_rx_tpa_start_cmpl {
	uint16_t flags_type;	/* type 0x13 | BNXT_RX_CMPL_FLAGS_* (placement GRO_*) */
	uint16_t len;		/* bytes in the RX buffer */
	uint32_t opaque;	/* opaque of the RX PKT BD */
	uint32_t misc_v1;	/* bit 0 V; 15:9 rss_hash_type; P5 27:16 agg_id */
	uint32_t rss_hash;
};
BNXT_ASSERT_SIZE(bnxt_rx_tpa_start_cmpl, 16);
BNXT_ASSERT_OFF(bnxt_rx_tpa_start_cmpl, misc_v1, 8);
BNXT_ASSERT_OFF(bnxt_rx_tpa_start_cmpl, rss_hash, 0xc);
#define BNXT_RX_TPA_START_RSS_HASH_TYPE_SFT	9
#define BNXT_RX_TPA_START_RSS_HASH_TYPE_MASK	(0x7fu << 9)
#define BNXT_RX_TPA_AGG_ID_SFT_P5		16
#define BNXT_RX_TPA_AGG_ID_MASK_P5		(0x0fffu << 16)	/* also rx_agg_cmpl.v */
#define BNXT_RX_CMPL_FLAGS_PLACEMENT_GRO_JUMBO	(0x5u << 7)
#define BNXT_RX_CMPL_FLAGS_PLACEMENT_GRO_HDS	(0x6u << 7)

struct bnxt_rx_tpa_start_cmpl_hi {
	uint32_t flags2;	/* BNXT_RX_CMPL_FLAGS2_* (IP_CS_CALC, L4_CS_CALC, IPv6) */
	uint32_t metadata;
	uint32_t cfa_code_v2;	/* bit 0 V; 3:1 buffer error; 31:16 cfa_code */
	uint32_t hdr_info;	/* 8:0 outer L3 offset, 17:9 inner L2, 26:18 inner L3 */
};
BNXT_ASSERT_SIZE(bnxt_rx_tpa_start_cmpl_hi, 16);
BNXT_ASSERT_OFF(bnxt_rx_tpa_start_cmpl_hi, cfa_code_v2, 8);
BNXT_ASSERT_OFF(bnxt_rx_tpa_start_cmpl_hi, hdr_info, 0xc);
#define BNXT_RX_TPA_HDR_INFO_INNER_L2_SFT	9
#define BNXT_RX_TPA_HDR_INFO_INNER_L3_SFT	18

struct bnxt_rx_tpa_end_cmpl {
	uint16_t flags_type;	/* type 0x15 | placement | RSS_VALID | itype */
	uint16_t len;		/* 0: TPA_END has no buffer of its own */
	uint32_t opaque;
	uint32_t misc_v1;	/* bit 0 V; 15:8 tpa_segs; P5 27:16 agg_id */
	uint32_t tsdelta;	/* GRO: bit 31 a timestamp option is present */
};
BNXT_ASSERT_SIZE(bnxt_rx_tpa_end_cmpl, 16);
BNXT_ASSERT_OFF(bnxt_rx_tpa_end_cmpl, misc_v1, 8);
BNXT_ASSERT_OFF(bnxt_rx_tpa_end_cmpl, tsdelta, 0xc);
#define BNXT_RX_TPA_END_SEGS_SFT		8
#define BNXT_RX_TPA_END_SEGS_MASK		(0xffu << 8)
#define BNXT_RX_TPA_END_GRO_TS			(1u << 31)

struct bnxt_rx_tpa_end_cmpl_hi {
	uint32_t dup_acks;	/* 3:0 dup ACKs; P5 23:16 payload_offset, 31:24 agg_bufs */
	uint32_t seg_len;	/* 15:0 GRO: payload bytes of every segment but the last */
	uint32_t errors_v2;	/* bit 0 V; 3:1 buffer error */
	uint32_t start_opaque;	/* opaque of the TPA_START this ends */
};
BNXT_ASSERT_SIZE(bnxt_rx_tpa_end_cmpl_hi, 16);
BNXT_ASSERT_OFF(bnxt_rx_tpa_end_cmpl_hi, seg_len, 4);
BNXT_ASSERT_OFF(bnxt_rx_tpa_end_cmpl_hi, errors_v2, 8);
BNXT_ASSERT_OFF(bnxt_rx_tpa_end_cmpl_hi, start_opaque, 0xc);
#define BNXT_RX_TPA_END_PAYLOAD_OFF_SFT_P5	16
#define BNXT_RX_TPA_END_AGG_BUFS_SFT_P5		24
#define BNXT_RX_TPA_END_ERRORS_MASK_P5		(0x7u << 1)
#define BNXT_RX_TPA_ERRORS_BUFFER_ERROR_FLUSH	(0x5u << 1)
#define BNXT_MAX_TPA_SEGS_P5			0x3f

/* HWRM command completion (request header cmpl_ring != NONE).
 * [L-HSI] hwrm_cmpl */
struct bnxt_hwrm_done_cmpl {
	uint16_t type;		/* 0x20 */
	uint16_t sequence_id;	/* seq_id of the request */
	uint32_t rsvd0;
	uint32_t v;		/* bit 0 */
	uint32_t rsvd1;
};
BNXT_ASSERT_SIZE(bnxt_hwrm_done_cmpl, 16);
BNXT_ASSERT_OFF(bnxt_hwrm_done_cmpl, sequence_id, 2);
BNXT_ASSERT_OFF(bnxt_hwrm_done_cmpl, v, 8);

/* Asynchronous firmware event. [L-HSI] hwrm_async_event_cmpl */
struct bnxt_async_event_cmpl {
	uint16_t type;		/* 0x2e */
	uint16_t event_id;	/* BNXT_ASYNC_EVENT_* */
	uint32_t event_data2;
	uint8_t opaque_v;	/* bit 0 V; bits 7:1 opaque */
	uint8_t timestamp_lo;
	uint16_t timestamp_hi;
	uint32_t event_data1;
};
BNXT_ASSERT_SIZE(bnxt_async_event_cmpl, 16);
BNXT_ASSERT_OFF(bnxt_async_event_cmpl, event_id, 2);
BNXT_ASSERT_OFF(bnxt_async_event_cmpl, event_data2, 4);
BNXT_ASSERT_OFF(bnxt_async_event_cmpl, opaque_v, 8);
BNXT_ASSERT_OFF(bnxt_async_event_cmpl, event_data1, 0xc);

/* NQ entry (P5): "CQ cq_handle has new completions". Same V-bit rule as a
 * completion ring. [L] bnxt.h nqe_cn, [D-HSI] nq_cn */
struct bnxt_nq_cn {
	uint16_t type;		/* bits 5:0 0x30; bits 7:6 toggle (P7) */
	uint16_t rsvd;
	uint32_t cq_handle_low;	/* RING_ALLOC cq_handle, low half */
	uint32_t v;		/* bit 0 */
	uint32_t cq_handle_high;
};
BNXT_ASSERT_SIZE(bnxt_nq_cn, 16);
BNXT_ASSERT_OFF(bnxt_nq_cn, cq_handle_low, 4);
BNXT_ASSERT_OFF(bnxt_nq_cn, v, 8);
BNXT_ASSERT_OFF(bnxt_nq_cn, cq_handle_high, 0xc);
#define BNXT_NQ_CN_TYPE_MASK			0x003fu
#define BNXT_NQ_CN_TOGGLE_MASK			0x00c0u
#define BNXT_NQ_CN_TOGGLE_SFT			6

#endif /* ZCNIC_DRIVERS_BNXT_HW_H */
