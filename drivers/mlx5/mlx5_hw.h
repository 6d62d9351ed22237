/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA ConnectX (mlx5) hardware interface, as far as zcnic uses it: the
 * one place where the BAR0 initialization segment, the command queue, the
 * command layouts, the queue contexts, EQEs, CQEs, WQE segments, doorbells
 * and the SHAMPO header-data-split parameters live. The poll-mode driver
 * (drivers/mlx5/) and the device model (sim/mlx5/) both include this header
 * and nothing of each other. hw-docs/mlx5.md explains it in prose.
 *
 * Target: ConnectX-6 Dx (15b3:101d) and ConnectX-7 (15b3:1021), Ethernet
 * port, ISSI 1, 64-byte CQEs without compression, striding RQ with SHAMPO.
 *
 * Sources (public; every layout below was taken from them, field by field):
 *   [L-IFC]  Linux include/linux/mlx5/mlx5_ifc.h (bit layouts), including
 *            the SHAMPO patch "net/mlx5: Add SHAMPO caps, HW bits and
 *            enumerations" <20211027023347.699076-5-saeed@kernel.org>
 *   [L-DEV]  Linux include/linux/mlx5/device.h (init segment, CQE64, EQE,
 *            opcodes, statuses, event types, capability types) and the
 *            SHAMPO CQE patch <20211027023347.699076-9-saeed@kernel.org>
 *   [L-QP]   Linux include/linux/mlx5/qp.h (WQE segments)
 *   [L-CMD]  Linux drivers/net/ethernet/mellanox/mlx5/core/cmd.c
 *            (delivery statuses, signatures, mailbox chaining),
 *            pagealloc.c, health.c, en/params.c, en_rx.c
 *   [RC]     rdma-core providers/mlx5/mlx5_ifc.h, mlx5dv.h, mlx5_vfio.[ch]
 *   [DPDK]   DPDK drivers/common/mlx5/mlx5_prm.h
 * Each group of field constants names the mlx5_ifc struct it mirrors and
 * which of the sources were read for it; where two sources carry the same
 * struct their bit positions were checked to agree.
 *
 * How PRM layouts are described here. The PRM (and mlx5_ifc.h) describes
 * every command and context as a big-endian bit string: bit 0 is the most
 * significant bit of byte 0, and a field is (bit offset, width). Each field
 * below is a constant ZN_MLX5_F_<STRUCT>_<FIELD> expanding to "offset,
 * width" in bits, relative to the start of its own struct. Nested structs
 * (a cqc inside create_cq_in, a wq inside an rqc) have their own constants
 * plus the offset of the nested struct in its parent (e.g.
 * ZN_MLX5_F_CREATE_CQ_IN_CQC); take ZN_MLX5_ADDR(in, CREATE_CQ_IN_CQC) and
 * apply the CQC_* fields to that pointer. Comments give the PRM table form
 * "dword 0xNN [hi:lo]": byte offset of the 32-bit big-endian word, and
 * the bit range inside it with 31 = MSB. Fields wider than 64 bits (keys,
 * addresses, inline data, match parameters) are byte-aligned; use
 * ZN_MLX5_ADDR() and copy bytes.
 *
 * Data-path records the host touches per packet (CQE64, EQE, WQE segments,
 * doorbell records, the command queue entry, mailbox blocks) are also given
 * as C structs of big-endian fields, with offsetof asserts that tie them to
 * the bit constants.
 *
 * Byte order: everything the device reads or writes is big-endian. zcnic
 * targets little-endian hosts; the zn_mlx5_be*() helpers convert.
 *
 * Naming: constants ZN_MLX5_, field constants ZN_MLX5_F_, sizes in bytes
 * ZN_MLX5_SZ_, inline helpers zn_mlx5_. Where this header records a choice
 * of zcnic's rather than a hardware fact, the comment says "zcnic choice".
 */
#ifndef ZCNIC_DRIVERS_MLX5_HW_H
#define ZCNIC_DRIVERS_MLX5_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "mlx5_hw.h: the byte-order helpers assume a little-endian host");

/* ======================================================================
 * Byte order and bit-field accessors
 * ====================================================================== */

static inline uint16_t zn_mlx5_bswap16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t zn_mlx5_bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t zn_mlx5_bswap64(uint64_t v) { return __builtin_bswap64(v); }

/* Loads and stores of big-endian words at any alignment. */
static inline uint16_t zn_mlx5_ld_be16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return zn_mlx5_bswap16(v);
}

static inline uint32_t zn_mlx5_ld_be32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return zn_mlx5_bswap32(v);
}

static inline uint64_t zn_mlx5_ld_be64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return zn_mlx5_bswap64(v);
}

static inline void zn_mlx5_st_be16(void *p, uint16_t v)
{
	v = zn_mlx5_bswap16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void zn_mlx5_st_be32(void *p, uint32_t v)
{
	v = zn_mlx5_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void zn_mlx5_st_be64(void *p, uint64_t v)
{
	v = zn_mlx5_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

/*
 * Write the low `width` bits of v into the big-endian bit string at p,
 * starting at bit `off` (bit 0 = MSB of byte 0). Works for any width from
 * 1 to 64 and any offset, including fields that straddle 32-bit words;
 * bits outside the field are preserved. Walks from the field's least
 * significant bit (its last bit in PRM order) towards its first, one byte
 * at a time.
 */
static inline void zn_mlx5_set(void *p, unsigned off, unsigned width, uint64_t v)
{
	uint8_t *b = (uint8_t *)p;
	unsigned end = off + width;	/* one past the field's last bit */

	if (width == 0)
		return;
	if (width < 64)
		v &= (UINT64_C(1) << width) - 1;
	while (width) {
		unsigned last = end - 1;
		unsigned shift = 7 - (last & 7);	/* LSB position inside the byte */
		unsigned n = 8 - shift;
		uint8_t mask;

		if (n > width)
			n = width;
		mask = (uint8_t)(((1u << n) - 1) << shift);
		b[last >> 3] = (uint8_t)((b[last >> 3] & ~mask) |
					 (((unsigned)(v << shift)) & mask));
		v = n < 64 ? v >> n : 0;
		width -= n;
		end -= n;
	}
}

/* Read a field written by zn_mlx5_set(); widths 1..64. */
static inline uint64_t zn_mlx5_get(const void *p, unsigned off, unsigned width)
{
	const uint8_t *b = (const uint8_t *)p;
	uint64_t v = 0;
	unsigned i = off, end = off + width;

	while (i < end) {
		unsigned pos = i & 7;
		unsigned n = 8 - pos;
		unsigned bits;

		if (n > end - i)
			n = end - i;
		bits = ((unsigned)b[i >> 3] >> (8 - pos - n)) & ((1u << n) - 1);
		v = (n < 64 ? v << n : 0) | bits;
		i += n;
	}
	return v;
}

/* Expand a field constant "off, width" into its parts. */
#define ZN_MLX5_FOFF_(o, w)	(o)
#define ZN_MLX5_FWID_(o, w)	(w)
#define ZN_MLX5_FOFF__(...)	ZN_MLX5_FOFF_(__VA_ARGS__)
#define ZN_MLX5_FWID__(...)	ZN_MLX5_FWID_(__VA_ARGS__)
/* Bit offset, width, byte offset of field constant ZN_MLX5_F_<f>. */
#define ZN_MLX5_BIT_OFF(f)	ZN_MLX5_FOFF__(ZN_MLX5_F_##f)
#define ZN_MLX5_WIDTH(f)	ZN_MLX5_FWID__(ZN_MLX5_F_##f)
#define ZN_MLX5_BYTE_OFF(f)	(ZN_MLX5_BIT_OFF(f) / 8)

/* MLX5_SET/MLX5_GET-style use: ZN_MLX5_SET(buf, CQC_LOG_CQ_SIZE, 10). */
#define ZN_MLX5_SET(p, f, v)	zn_mlx5_set((p), ZN_MLX5_F_##f, (uint64_t)(v))
#define ZN_MLX5_GET(p, f)	zn_mlx5_get((p), ZN_MLX5_F_##f)
/* Address of a byte-aligned field (nested struct, array, key, address). */
#define ZN_MLX5_ADDR(p, f)	((void *)((uint8_t *)(p) + ZN_MLX5_BYTE_OFF(f)))
#define ZN_MLX5_CADDR(p, f)	((const void *)((const uint8_t *)(p) + ZN_MLX5_BYTE_OFF(f)))

/*
 * Offset checks in PRM table form. ZN_MLX5_ASSERT_DW(f, dw, hi, w): field f
 * lies in the big-endian dword at byte dw, its most significant bit is bit
 * hi of that dword (31 = MSB) and it is w bits wide. ZN_MLX5_ASSERT_BYTE(f,
 * byte, w): field f starts at byte `byte` and is w bits wide (w == 0 for a
 * variable-length array).
 */
#define ZN_MLX5_ASSERT_DW(f, dw, hi, w)						\
	_Static_assert(ZN_MLX5_BIT_OFF(f) / 32 * 4 == (dw) &&			\
		       31 - ZN_MLX5_BIT_OFF(f) % 32 == (hi) &&			\
		       ZN_MLX5_WIDTH(f) == (w), #f " position")
#define ZN_MLX5_ASSERT_BYTE(f, byte, w)						\
	_Static_assert(ZN_MLX5_BIT_OFF(f) == (byte) * 8 &&			\
		       ZN_MLX5_WIDTH(f) == (w), #f " position")

/* ======================================================================
 * PCI identity [L] drivers/net/ethernet/mellanox/mlx5/core/main.c
 * mlx5_core_pci_table; [DPDK] drivers/common/mlx5/mlx5_common.h;
 * kept identical to core/bus/pci_ids.c
 * ====================================================================== */

#define ZN_MLX5_PCI_VENDOR_MELLANOX	0x15b3
#define ZN_MLX5_DEV_CX6DX		0x101d	/* ConnectX-6 Dx PF */
#define ZN_MLX5_DEV_CX6LX		0x101f	/* ConnectX-6 Lx PF */
#define ZN_MLX5_DEV_CX7			0x1021	/* ConnectX-7 PF */
#define ZN_MLX5_DEV_GEN_VF		0x101e	/* VF of CX-6 Dx and later */

/* ======================================================================
 * BAR0: initialization segment, then UAR pages
 * [L-IFC] mlx5_ifc_initial_seg_bits, mlx5_ifc_health_buffer_bits;
 * [L-DEV] struct mlx5_init_seg, struct health_buffer; [DPDK] same structs
 * ====================================================================== */

/* Byte offsets of the 32-bit big-endian registers (read/write them as
 * whole dwords; the F_INIT_SEG_* constants below locate the bit fields). */
#define ZN_MLX5_ISEG_FW_REV		0x0000	/* [31:16] minor, [15:0] major */
#define ZN_MLX5_ISEG_CMDIF_REV_FW_SUB	0x0004	/* [31:16] cmd_interface_rev, [15:0] subminor */
#define ZN_MLX5_ISEG_CMDQ_ADDR_H	0x0010	/* command queue DMA address [63:32] */
#define ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ	0x0014	/* [31:12] address, [9:8] nic_interface,
						 * [7:4] log_cmdq_size, [3:0] log_cmdq_stride */
#define ZN_MLX5_ISEG_CMD_DBELL		0x0018	/* command doorbell vector */
#define ZN_MLX5_ISEG_INITIALIZING	0x01fc	/* [31] initializing, [26:24] nic_interface_supported */
#define ZN_MLX5_ISEG_HEALTH		0x0200	/* 64-byte health buffer */
#define ZN_MLX5_ISEG_HEALTH_SIZE	64
#define ZN_MLX5_ISEG_HEALTH_ASSERT_VAR	0x0200	/* 5 dwords of assert values ([L-DEV]) */
#define ZN_MLX5_ISEG_HEALTH_FW_VER	0x0230
#define ZN_MLX5_ISEG_HEALTH_HW_ID	0x0234
#define ZN_MLX5_ISEG_HEALTH_SYND_DW	0x023c	/* [31:24] irisc_index, [23:16] synd, [15:0] ext_synd */
#define ZN_MLX5_ISEG_HEALTH_SYND	0x023d	/* byte: non-zero = firmware fatal */
#define ZN_MLX5_ISEG_HEALTH_EXT_SYND	0x023e	/* BE16 */
#define ZN_MLX5_ISEG_CMD_EXEC_TO	0x0ff8	/* FW command timeout ([L-DEV] recent) */
#define ZN_MLX5_ISEG_CMD_Q_INIT_TO	0x0ffc	/* FW init timeout, 0 = not given */
#define ZN_MLX5_ISEG_INTERNAL_TIMER_H	0x1000
#define ZN_MLX5_ISEG_INTERNAL_TIMER_L	0x1004
#define ZN_MLX5_ISEG_CLEAR_INT		0x100c
#define ZN_MLX5_ISEG_HEALTH_COUNTER	0x1010	/* [31:24] health_syndrome, [23:0] counter */
#define ZN_MLX5_ISEG_SIZE		0x1014	/* what zcnic maps/models of the segment */

#define ZN_MLX5_CMD_IF_REV		5	/* the only command interface revision */
#define ZN_MLX5_ISEG_INITIALIZING_BIT	(UINT32_C(1) << 31)

/* nic_interface (dword 0x14 [9:8]) [L-IFC]; the kernel reads three bits
 * ([10:8]) and adds SW_RESET = 7 (core/mlx5_core.h). */
#define ZN_MLX5_NIC_IFC_FULL		0
#define ZN_MLX5_NIC_IFC_DISABLED	1
#define ZN_MLX5_NIC_IFC_NO_DRAM_NIC	2
#define ZN_MLX5_NIC_IFC_INVALID		3
#define ZN_MLX5_NIC_IFC_SW_RESET	7

/* Health buffer synd values [L-IFC] MLX5_INITIAL_SEG_HEALTH_SYNDROME_*. */
#define ZN_MLX5_HEALTH_SYND_FW_INTERNAL_ERR	0x01
#define ZN_MLX5_HEALTH_SYND_DEAD_IRISC		0x07
#define ZN_MLX5_HEALTH_SYND_HW_FATAL_ERR	0x08
#define ZN_MLX5_HEALTH_SYND_FW_CRC_ERR		0x09
#define ZN_MLX5_HEALTH_SYND_ICM_FETCH_PCI_ERR	0x0a
#define ZN_MLX5_HEALTH_SYND_ICM_PAGE_ERR	0x0b
#define ZN_MLX5_HEALTH_SYND_ASYNC_EQ_OVERRUN	0x0c
#define ZN_MLX5_HEALTH_SYND_EQ_IN_ERR		0x0d
#define ZN_MLX5_HEALTH_SYND_EQ_INV		0x0e
#define ZN_MLX5_HEALTH_SYND_FFSER_ERR		0x0f
#define ZN_MLX5_HEALTH_SYND_HIGH_TEMP_ERR	0x10

/* Health polling [L-CMD] health.c: the counter must move at least once in
 * MAX_MISSES polls of HEALTH_POLL_MS; fw_ver reading all ones means the
 * device fell off the bus. */
#define ZN_MLX5_HEALTH_POLL_MS		2000
#define ZN_MLX5_HEALTH_MAX_MISSES	3
#define ZN_MLX5_HEALTH_COUNTER_MASK	0x00ffffffu

/* Firmware-advertised timeouts at 0xff8/0xffc [L] lib/tout.c:
 * value = bits[19:0] x unit(bits[31:29]). */
#define ZN_MLX5_TO_VAL_MASK		0x000fffffu
#define ZN_MLX5_TO_UNIT_SHIFT		29
#define ZN_MLX5_TO_UNIT_MS		0
#define ZN_MLX5_TO_UNIT_S		1
#define ZN_MLX5_TO_UNIT_MIN		2
#define ZN_MLX5_TO_UNIT_H		3
/* Defaults when the segment gives none [L] main.c */
#define ZN_MLX5_FW_PRE_INIT_TIMEOUT_MS	120000
#define ZN_MLX5_FW_INIT_TIMEOUT_MS	2000
#define ZN_MLX5_FW_INIT_WAIT_MS		2

/* UAR pages: UAR index n is the 4 KiB page at BAR0 + n * 4096 (4K UAR mode,
 * cap log_uar_page_sz = 0) [RC] mlx5_vfio.c uar2iova, [L] uar.c.
 * Register offsets inside one UAR page [L-DEV] MLX5_CQ_DOORBELL,
 * MLX5_EQ_DOORBEL_OFFSET, MLX5_BF_OFFSET; [RC] mlx5dv.h, cq.c, qp.c. */
#define ZN_MLX5_ADAPTER_PAGE_SHIFT	12
#define ZN_MLX5_ADAPTER_PAGE_SIZE	4096
#define ZN_MLX5_UAR_PAGE_SIZE		4096
#define ZN_MLX5_UAR_CQ_DOORBELL		0x20	/* 64-bit: arm word, cqn */
#define ZN_MLX5_UAR_EQ_DOORBELL_ARM	0x40	/* 32-bit: ci | eqn << 24, and arm */
#define ZN_MLX5_UAR_EQ_DOORBELL		0x48	/* 32-bit: ci | eqn << 24, no arm */
#define ZN_MLX5_UAR_BF_OFFSET		0x800	/* first BlueFlame / doorbell register */
#define ZN_MLX5_UAR_BF_SIZE		256	/* 1 << cap log_bf_reg_size; buffers alternate */
#define ZN_MLX5_UAR_BF_ALT_OFFSET	(ZN_MLX5_UAR_BF_OFFSET + ZN_MLX5_UAR_BF_SIZE)

/* ======================================================================
 * Command queue [L-IFC] mlx5_ifc_cmd_queue_entry_bits,
 * mlx5_ifc_cmd_if_box_bits; [L-DEV] struct mlx5_cmd_layout,
 * mlx5_cmd_prot_block; [L-CMD] cmd.c
 * ====================================================================== */

#define ZN_MLX5_CMD_ENTRY_SIZE		64	/* one slot; log_cmdq_stride >= 6 */
#define ZN_MLX5_CMD_MAX_ENTRIES		32	/* log_cmdq_size <= 5 */
#define ZN_MLX5_CMD_TYPE_PCIE		0x7	/* entry type: PCIe command transport */
#define ZN_MLX5_CMD_INLINE_SIZE		16	/* inline input and output bytes */
#define ZN_MLX5_CMD_MBOX_DATA_SIZE	512	/* payload bytes per mailbox block */
#define ZN_MLX5_CMD_MBOX_SIZE		576	/* whole mailbox block */
#define ZN_MLX5_CMD_MBOX_ALIGN		1024	/* block pointers have 10 low zero bits */
#define ZN_MLX5_CMD_IN_PTR_ALIGN	512	/* entry's pointer fields drop 9 low bits */
#define ZN_MLX5_CMD_OWNER_HW		0x01	/* status_own bit 0: 1 = device owns the slot */
#define ZN_MLX5_CMD_STATUS_SHIFT	1	/* status_own [7:1]: delivery status */

/* Number of mailbox blocks a message of len bytes needs beyond the 16 bytes
 * carried inline in the entry ([L-CMD] mlx5_calc_cmd_blocks). */
static inline unsigned zn_mlx5_cmd_blocks(uint32_t len)
{
	if (len <= ZN_MLX5_CMD_INLINE_SIZE)
		return 0;
	return (len - ZN_MLX5_CMD_INLINE_SIZE + ZN_MLX5_CMD_MBOX_DATA_SIZE - 1) /
	       ZN_MLX5_CMD_MBOX_DATA_SIZE;
}

/* Delivery status (entry byte 0x3f [7:1]) [L-CMD] cmd.c deliv_status_to_str */
#define ZN_MLX5_DSTAT_OK		0x00
#define ZN_MLX5_DSTAT_SIG_ERR		0x01
#define ZN_MLX5_DSTAT_TOK_ERR		0x02
#define ZN_MLX5_DSTAT_BAD_BLK_NUM	0x03
#define ZN_MLX5_DSTAT_OUT_PTR_ALIGN	0x04
#define ZN_MLX5_DSTAT_IN_PTR_ALIGN	0x05
#define ZN_MLX5_DSTAT_FW_ERR		0x06
#define ZN_MLX5_DSTAT_IN_LENGTH_ERR	0x07
#define ZN_MLX5_DSTAT_OUT_LENGTH_ERR	0x08
#define ZN_MLX5_DSTAT_RES_FLD_NOT_CLR	0x09
#define ZN_MLX5_DSTAT_CMD_DESC_TYPE	0x10

/* Command status (output byte 0) [L-DEV] MLX5_CMD_STAT_* */
#define ZN_MLX5_CMD_STAT_OK			0x00
#define ZN_MLX5_CMD_STAT_INT_ERR		0x01
#define ZN_MLX5_CMD_STAT_BAD_OP_ERR		0x02
#define ZN_MLX5_CMD_STAT_BAD_PARAM_ERR		0x03
#define ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR	0x04
#define ZN_MLX5_CMD_STAT_BAD_RES_ERR		0x05
#define ZN_MLX5_CMD_STAT_RES_BUSY		0x06
#define ZN_MLX5_CMD_STAT_LIM_ERR		0x08
#define ZN_MLX5_CMD_STAT_BAD_RES_STATE_ERR	0x09
#define ZN_MLX5_CMD_STAT_IX_ERR			0x0a
#define ZN_MLX5_CMD_STAT_NO_RES_ERR		0x0f
#define ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR	0x50
#define ZN_MLX5_CMD_STAT_BAD_OUTP_LEN_ERR	0x51
#define ZN_MLX5_CMD_STAT_BAD_QP_STATE_ERR	0x10
#define ZN_MLX5_CMD_STAT_BAD_PKT_ERR		0x30
#define ZN_MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR	0x40

/* The 64-byte command queue entry. */
struct zn_mlx5_cmd_entry {
	uint8_t  type;			/* ZN_MLX5_CMD_TYPE_PCIE */
	uint8_t  rsvd0[3];
	uint32_t inlen_be;		/* whole input length, header included */
	uint64_t in_ptr_be;		/* first input mailbox, or 0 */
	uint8_t  in[ZN_MLX5_CMD_INLINE_SIZE];	/* first 16 input bytes */
	uint8_t  out[ZN_MLX5_CMD_INLINE_SIZE];	/* first 16 output bytes */
	uint64_t out_ptr_be;		/* first output mailbox, or 0 */
	uint32_t outlen_be;		/* whole output length */
	uint8_t  token;			/* repeated in every mailbox block */
	uint8_t  sig;			/* entry signature (checksum mode only) */
	uint8_t  rsvd1;
	uint8_t  status_own;		/* [7:1] delivery status, [0] owner */
};

/* One mailbox block; blocks of one message are chained through next_be. */
struct zn_mlx5_cmd_mbox {
	uint8_t  data[ZN_MLX5_CMD_MBOX_DATA_SIZE];
	uint8_t  rsvd0[48];
	uint64_t next_be;		/* next block's DMA address, 0 in the last */
	uint32_t block_num_be;		/* 0, 1, 2 ... in chain order */
	uint8_t  rsvd1;
	uint8_t  token;			/* = the entry's token */
	uint8_t  ctrl_sig;		/* checksum mode only */
	uint8_t  sig;			/* checksum mode only */
};

/*
 * Signatures [L-CMD] cmd.c calc_block_sig/set_signature: an 8-bit XOR of
 * bytes, inverted. They are only checked when the cmdif_checksum capability
 * is enabled; the driver turns it off in SET_HCA_CAP (as Linux and
 * rdma-core do), so signatures are optional. zcnic choice: the driver
 * leaves every sig/ctrl_sig byte 0 and the model never checks them; the
 * helpers exist for tests and for a model that wants checksum mode.
 */
static inline uint8_t zn_mlx5_xor8(const void *p, size_t len)
{
	const uint8_t *b = (const uint8_t *)p;
	uint8_t x = 0;

	for (size_t i = 0; i < len; i++)
		x ^= b[i];
	return x;
}

static inline uint8_t zn_mlx5_cmd_entry_sig(const struct zn_mlx5_cmd_entry *e)
{
	struct zn_mlx5_cmd_entry c = *e;

	c.sig = 0;
	return (uint8_t)~zn_mlx5_xor8(&c, sizeof(c));
}

/* ctrl_sig covers bytes 0x200..0x23d (reserved, next, block_num, rsvd,
 * token); sig covers bytes 0..0x23e. */
static inline uint8_t zn_mlx5_mbox_ctrl_sig(const struct zn_mlx5_cmd_mbox *m)
{
	return (uint8_t)~zn_mlx5_xor8((const uint8_t *)m + ZN_MLX5_CMD_MBOX_DATA_SIZE,
				      ZN_MLX5_CMD_MBOX_SIZE - ZN_MLX5_CMD_MBOX_DATA_SIZE - 2);
}

static inline uint8_t zn_mlx5_mbox_sig(const struct zn_mlx5_cmd_mbox *m)
{
	return (uint8_t)~zn_mlx5_xor8(m, ZN_MLX5_CMD_MBOX_SIZE - 1);
}

/* Common command header: every input starts with opcode/uid/op_mod, every
 * output with status/syndrome (F_IN_* and F_OUT_* below). */
#define ZN_MLX5_CMD_HDR_SIZE		16	/* smallest input and output */

/* ======================================================================
 * Command opcodes [L-IFC] enum MLX5_CMD_OP_*; [RC], [DPDK] same numbers
 * ====================================================================== */

#define ZN_MLX5_CMD_OP_QUERY_HCA_CAP			0x100
#define ZN_MLX5_CMD_OP_INIT_HCA				0x102
#define ZN_MLX5_CMD_OP_TEARDOWN_HCA			0x103
#define ZN_MLX5_CMD_OP_ENABLE_HCA			0x104
#define ZN_MLX5_CMD_OP_DISABLE_HCA			0x105
#define ZN_MLX5_CMD_OP_QUERY_PAGES			0x107
#define ZN_MLX5_CMD_OP_MANAGE_PAGES			0x108
#define ZN_MLX5_CMD_OP_SET_HCA_CAP			0x109
#define ZN_MLX5_CMD_OP_QUERY_ISSI			0x10a
#define ZN_MLX5_CMD_OP_SET_ISSI				0x10b
#define ZN_MLX5_CMD_OP_CREATE_MKEY			0x200
#define ZN_MLX5_CMD_OP_DESTROY_MKEY			0x202
#define ZN_MLX5_CMD_OP_QUERY_SPECIAL_CONTEXTS		0x203
#define ZN_MLX5_CMD_OP_CREATE_EQ			0x301
#define ZN_MLX5_CMD_OP_DESTROY_EQ			0x302
#define ZN_MLX5_CMD_OP_CREATE_CQ			0x400
#define ZN_MLX5_CMD_OP_DESTROY_CQ			0x401
#define ZN_MLX5_CMD_OP_QUERY_CQ				0x402
#define ZN_MLX5_CMD_OP_QUERY_VPORT_STATE		0x750
#define ZN_MLX5_CMD_OP_MODIFY_VPORT_STATE		0x751
#define ZN_MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT		0x754
#define ZN_MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT		0x755
#define ZN_MLX5_CMD_OP_ALLOC_PD				0x800
#define ZN_MLX5_CMD_OP_DEALLOC_PD			0x801
#define ZN_MLX5_CMD_OP_ALLOC_UAR			0x802
#define ZN_MLX5_CMD_OP_DEALLOC_UAR			0x803
#define ZN_MLX5_CMD_OP_ACCESS_REG			0x805
#define ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN		0x816
#define ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN		0x817
#define ZN_MLX5_CMD_OP_CREATE_TIR			0x900
#define ZN_MLX5_CMD_OP_MODIFY_TIR			0x901
#define ZN_MLX5_CMD_OP_DESTROY_TIR			0x902
#define ZN_MLX5_CMD_OP_CREATE_SQ			0x904
#define ZN_MLX5_CMD_OP_MODIFY_SQ			0x905
#define ZN_MLX5_CMD_OP_DESTROY_SQ			0x906
#define ZN_MLX5_CMD_OP_QUERY_SQ				0x907
#define ZN_MLX5_CMD_OP_CREATE_RQ			0x908
#define ZN_MLX5_CMD_OP_MODIFY_RQ			0x909
#define ZN_MLX5_CMD_OP_DESTROY_RQ			0x90a
#define ZN_MLX5_CMD_OP_QUERY_RQ				0x90b
#define ZN_MLX5_CMD_OP_CREATE_TIS			0x912
#define ZN_MLX5_CMD_OP_DESTROY_TIS			0x914
#define ZN_MLX5_CMD_OP_CREATE_RQT			0x916
#define ZN_MLX5_CMD_OP_MODIFY_RQT			0x917
#define ZN_MLX5_CMD_OP_DESTROY_RQT			0x918
#define ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT		0x92f
#define ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE		0x930
#define ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE		0x931
#define ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP		0x933
#define ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP		0x934
#define ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY		0x936
#define ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY		0x938

/* ======================================================================
 * op_mod values and small enumerations of the bring-up commands
 * [L-IFC], [L-DEV], [L-CMD] pagealloc.c, [RC] mlx5_vfio.c
 * ====================================================================== */

/* QUERY_PAGES op_mod: which stage's pages the device asks for. */
#define ZN_MLX5_PAGES_BOOT		1
#define ZN_MLX5_PAGES_INIT		2
#define ZN_MLX5_PAGES_REGULAR		3	/* after INIT_HCA ("post-init") */
/* MANAGE_PAGES op_mod */
#define ZN_MLX5_PAGES_CANT_GIVE		0
#define ZN_MLX5_PAGES_GIVE		1
#define ZN_MLX5_PAGES_TAKE		2
#define ZN_MLX5_PAGE_SIZE		4096	/* every page given is 4 KiB, 4 KiB aligned */

/* ISSI: the driver requires bit 1 of supported_issi_dw0 and sets 1. */
#define ZN_MLX5_ISSI			1

/* QUERY_HCA_CAP op_mod = cap_type << 1 | mode; SET_HCA_CAP op_mod =
 * cap_type << 1. Capability types [L-DEV] enum mlx5_cap_type. */
#define ZN_MLX5_CAP_GENERAL		0x00
#define ZN_MLX5_CAP_ETHERNET_OFFLOADS	0x01
#define ZN_MLX5_CAP_FLOW_TABLE		0x07
#define ZN_MLX5_CAP_DEV_SHAMPO		0x1d
#define ZN_MLX5_CAP_GENERAL_2		0x20
#define ZN_MLX5_HCA_CAP_OPMOD_MAX	0
#define ZN_MLX5_HCA_CAP_OPMOD_CUR	1
#define ZN_MLX5_HCA_CAP_OPMOD(type, cur)	((uint16_t)(((type) << 1) | (cur)))
#define ZN_MLX5_CAP_SIZE		4096	/* capability block in QUERY/SET_HCA_CAP */

/* cmd_hca_cap.port_type */
#define ZN_MLX5_CAP_PORT_TYPE_IB	0
#define ZN_MLX5_CAP_PORT_TYPE_ETH	1
/* per_protocol_networking_offload_caps.wqe_inline_mode, nic_vport_context /
 * sqc min_wqe_inline_mode [L-IFC] MLX5_CAP_INLINE_MODE_*, MLX5_INLINE_MODE_* */
#define ZN_MLX5_CAP_INLINE_MODE_L2		0
#define ZN_MLX5_CAP_INLINE_MODE_VPORT_CONTEXT	1
#define ZN_MLX5_CAP_INLINE_MODE_NOT_REQUIRED	2
#define ZN_MLX5_INLINE_MODE_NONE		0
#define ZN_MLX5_INLINE_MODE_L2			1
#define ZN_MLX5_INLINE_MODE_IP			2
#define ZN_MLX5_INLINE_MODE_TCP_UDP		3

/* TEARDOWN_HCA profile [L-IFC] */
#define ZN_MLX5_TEARDOWN_GRACEFUL		0
#define ZN_MLX5_TEARDOWN_FORCE_CLOSE		1
#define ZN_MLX5_TEARDOWN_FAST			2

/* ======================================================================
 * Events [L-DEV] enum mlx5_event, [L-IFC] mlx5_ifc_eqe_bits
 * ====================================================================== */

#define ZN_MLX5_EVENT_COMP		0x00	/* completion on a CQ */
#define ZN_MLX5_EVENT_CQ_ERROR		0x04
#define ZN_MLX5_EVENT_WQ_CATAS_ERROR	0x05
#define ZN_MLX5_EVENT_INTERNAL_ERROR	0x08
#define ZN_MLX5_EVENT_PORT_CHANGE	0x09
#define ZN_MLX5_EVENT_CMD		0x0a	/* command completed (vector in data) */
#define ZN_MLX5_EVENT_PAGE_REQUEST	0x0b
#define ZN_MLX5_EVENT_NIC_VPORT_CHANGE	0x0d
/* PORT_CHANGE sub types */
#define ZN_MLX5_PORT_CHANGE_DOWN	1
#define ZN_MLX5_PORT_CHANGE_ACTIVE	4

#define ZN_MLX5_EQE_SIZE		64
#define ZN_MLX5_EQE_OWNER_INIT		1	/* every EQE's owner byte before use */
#define ZN_MLX5_NUM_SPARE_EQE		0x80	/* update CI at least this often ([L] eq.c) */
#define ZN_MLX5_EQ_CI_MASK		0x00ffffffu

/* CREATE_EQ event_bitmask: four big-endian 64-bit words at byte 0x58;
 * event type t is bit (t % 64) of word t / 64 ([L] eq.c writes mask[0]
 * into the first word). */
static inline void zn_mlx5_eq_mask_event(void *create_eq_in, unsigned type)
{
	uint8_t *w = (uint8_t *)create_eq_in + 0x58 + 8 * (type / 64);

	zn_mlx5_st_be64(w, zn_mlx5_ld_be64(w) | UINT64_C(1) << (type % 64));
}

/* The 64-byte EQE. data[] holds the event-specific words. */
struct zn_mlx5_eqe {
	uint8_t  rsvd0;
	uint8_t  type;
	uint8_t  rsvd1;
	uint8_t  sub_type;
	uint8_t  rsvd2[28];
	union {
		uint8_t raw[28];
		struct { uint32_t vector_be; } cmd;		/* bit i = slot i done */
		struct {
			uint16_t ec_function_be;
			uint16_t func_id_be;
			uint32_t num_pages_be;		/* signed: < 0 = take back */
		} req_pages;
		struct { uint8_t rsvd[24]; uint32_t cqn_be; } comp;	/* [23:0] */
		struct { uint32_t cqn_be; uint8_t rsvd[7]; uint8_t syndrome; } cq_err;
		struct { uint8_t rsvd[8]; uint8_t port; } port;	/* port << 4 */
	} data;
	uint8_t  rsvd3[2];
	uint8_t  signature;
	uint8_t  owner;			/* bit 0 */
};

/* EQE at consumer counter ci (ring of 2^log_sz) belongs to software when its
 * owner bit equals the wrap parity of ci [RC] mlx5_eq_get_eqe. */
static inline bool zn_mlx5_eqe_sw_owned(const struct zn_mlx5_eqe *e, uint32_t ci,
					unsigned log_sz)
{
	return (e->owner & 1) == ((ci >> log_sz) & 1);
}

/* 32-bit EQ doorbell word written to UAR + 0x40 (arm) or + 0x48 (no arm). */
static inline uint32_t zn_mlx5_eq_doorbell(uint32_t ci, uint8_t eqn)
{
	return (ci & ZN_MLX5_EQ_CI_MASK) | (uint32_t)eqn << 24;
}

/* ======================================================================
 * Queue states and types [L-IFC] MLX5_SQC_STATE_*, MLX5_RQC_STATE_*,
 * MLX5_WQ_TYPE_*, MLX5_WQ_END_PAD_MODE_*, MLX5_RQC_SHAMPO_*
 * ====================================================================== */

/* SQ and RQ states. MODIFY_SQ/RQ carry the current state in sq_state /
 * rq_state and the new one in the context's state field. */
#define ZN_MLX5_QSTATE_RST		0
#define ZN_MLX5_QSTATE_RDY		1
#define ZN_MLX5_QSTATE_ERR		3

/* wq.wq_type */
#define ZN_MLX5_WQ_TYPE_LINKED_LIST		0
#define ZN_MLX5_WQ_TYPE_CYCLIC			1
#define ZN_MLX5_WQ_TYPE_LINKED_LIST_STRIDING	2	/* what SHAMPO uses in Linux */
#define ZN_MLX5_WQ_TYPE_CYCLIC_STRIDING		3
#define ZN_MLX5_WQ_END_PAD_NONE			0
#define ZN_MLX5_WQ_END_PAD_ALIGN		1

/* rqc.mem_rq_type */
#define ZN_MLX5_RQ_TYPE_INLINE		0
#define ZN_MLX5_RQ_TYPE_RMP		1

/* Striding RQ (multi-packet WQE) encodings [L-DEV]
 * MLX5_MPWQE_LOG_NUM_STRIDES_BASE / _EXT_BASE, MLX5_MPWQE_LOG_STRIDE_SZ_BASE;
 * [DPDK] mlx5_devx.c, which writes (log2(strides) - 9) into the 4-bit
 * field even when that is negative. So: strides per WQE =
 * 2^(9 + field) with the field read as a 4-bit two's-complement number;
 * negative values (down to 2^3 strides) are only valid when the device sets
 * cap ext_stride_num_range. Stride bytes = 2^(6 + log_wqe_stride_size). */
#define ZN_MLX5_MPWQE_LOG_NUM_STRIDES_BASE	9
#define ZN_MLX5_MPWQE_LOG_NUM_STRIDES_EXT_BASE	3
#define ZN_MLX5_MPWQE_LOG_STRIDE_SZ_BASE	6
#define ZN_MLX5_MPWQE_MIN_LOG_STRIDE_SZ		6	/* 64-byte strides */
#define ZN_MLX5_MPWQE_MAX_LOG_STRIDE_SZ		13	/* 6 + 7 (three-bit field) */

/* log2(strides per WQE) from wq.log_wqe_num_of_strides (see above). */
static inline int zn_mlx5_mpwqe_log_num_strides(unsigned field)
{
	int f = (int)(field & 0xf);

	return ZN_MLX5_MPWQE_LOG_NUM_STRIDES_BASE + (f >= 8 ? f - 16 : f);
}

/* The field value for log2(strides) n (3 <= n <= 16). */
static inline unsigned zn_mlx5_mpwqe_num_strides_field(int n)
{
	return (unsigned)(n - ZN_MLX5_MPWQE_LOG_NUM_STRIDES_BASE) & 0xf;
}

/* SHAMPO encodings [L-IFC] SHAMPO patch; [L] en/params.c */
#define ZN_MLX5_SHAMPO_LOG_RESERVATION_BASE	12	/* log_reservation_size = log2(bytes) - 12 */
#define ZN_MLX5_SHAMPO_LOG_HEADER_ENTRY_BASE	6	/* log_headers_entry_size = log2(bytes) - 6 */
#define ZN_MLX5_SHAMPO_NO_MATCH_ALIGN_BYTE	0
#define ZN_MLX5_SHAMPO_NO_MATCH_ALIGN_STRIDE	1
#define ZN_MLX5_SHAMPO_NO_MATCH_ALIGN_PAGE	2
#define ZN_MLX5_SHAMPO_MATCH_NO_MATCH		0
#define ZN_MLX5_SHAMPO_MATCH_EXTENDED		1
#define ZN_MLX5_SHAMPO_MATCH_FIVE_TUPLE		2
/* zcnic choice, the values Linux mlx5e uses: 64 KiB reservations, 256-byte
 * header entries. */
#define ZN_MLX5_SHAMPO_LOG_RESERVATION_BYTES	16
#define ZN_MLX5_SHAMPO_LOG_HEADER_ENTRY_BYTES	8
#define ZN_MLX5_SHAMPO_HEADER_ENTRY_BYTES	(1u << ZN_MLX5_SHAMPO_LOG_HEADER_ENTRY_BYTES)

/* MODIFY_SQ / MODIFY_RQ: modify_bitmask names context fields other than
 * the state that the command also changes; a pure state change leaves it 0
 * (as Linux en_main.c and DPDK mlx5_devx_cmds.c do for RST->RDY). */

/* ======================================================================
 * TIR, RQT, flow steering [L-IFC] MLX5_TIRC_*, MLX5_RX_HASH_FIELD_SELECT_*,
 * MLX5_FLOW_TABLE_TYPE, MLX5_FLOW_CONTEXT_ACTION_*,
 * MLX5_FLOW_DESTINATION_TYPE_*, MLX5_MATCH_*
 * ====================================================================== */

#define ZN_MLX5_TIRC_DISP_DIRECT	0	/* inline_rqn */
#define ZN_MLX5_TIRC_DISP_INDIRECT	1	/* indirect_table = RQT */
#define ZN_MLX5_RX_HASH_FN_NONE		0
#define ZN_MLX5_RX_HASH_FN_INVERTED_XOR8	1
#define ZN_MLX5_RX_HASH_FN_TOEPLITZ	2
#define ZN_MLX5_TOEPLITZ_KEY_SIZE	40
#define ZN_MLX5_TIRC_SELF_LB_UNICAST	(1u << 0)
#define ZN_MLX5_TIRC_SELF_LB_MULTICAST	(1u << 1)
/* rx_hash_field_select */
#define ZN_MLX5_L3_PROT_IPV4		0
#define ZN_MLX5_L3_PROT_IPV6		1
#define ZN_MLX5_L4_PROT_TCP		0
#define ZN_MLX5_L4_PROT_UDP		1
#define ZN_MLX5_HASH_SEL_SRC_IP		(1u << 0)
#define ZN_MLX5_HASH_SEL_DST_IP		(1u << 1)
#define ZN_MLX5_HASH_SEL_L4_SPORT	(1u << 2)
#define ZN_MLX5_HASH_SEL_L4_DPORT	(1u << 3)
#define ZN_MLX5_HASH_SEL_IPSEC_SPI	(1u << 4)

#define ZN_MLX5_FLOW_TABLE_NIC_RX	0
#define ZN_MLX5_FLOW_TABLE_NIC_TX	1
/* flow_table_context.table_miss_action [DPDK] MLX5_IFC_MODIFY_FLOW_TABLE_MISS_ACTION_* */
#define ZN_MLX5_FT_MISS_ACTION_DEF	0	/* miss: the default (drop at the root) */
#define ZN_MLX5_FT_MISS_ACTION_FWD	1	/* miss: go to table_miss_id */
/* set_fte op_mod */
#define ZN_MLX5_SET_FTE_OPMOD_NEW	0
/* flow_context.action bits */
#define ZN_MLX5_FLOW_ACTION_ALLOW	0x0001
#define ZN_MLX5_FLOW_ACTION_DROP	0x0002
#define ZN_MLX5_FLOW_ACTION_FWD_DEST	0x0004
#define ZN_MLX5_FLOW_ACTION_COUNT	0x0008
/* dest_format.destination_type */
#define ZN_MLX5_FLOW_DEST_VPORT		0
#define ZN_MLX5_FLOW_DEST_FLOW_TABLE	1
#define ZN_MLX5_FLOW_DEST_TIR		2
#define ZN_MLX5_FLOW_DEST_SIZE		8	/* one destination entry */
/* create_flow_group match_criteria_enable bits */
#define ZN_MLX5_MATCH_OUTER_HEADERS	(1u << 0)
#define ZN_MLX5_MATCH_MISC_PARAMETERS	(1u << 1)
#define ZN_MLX5_MATCH_INNER_HEADERS	(1u << 2)
/* IPv4 addresses sit in the last 4 bytes of the 16-byte src/dst fields. */
#define ZN_MLX5_MATCH_IPV4_IN_IP_OFF	12

/* ======================================================================
 * Memory keys, registers, vport [L-IFC] MLX5_MKC_ACCESS_MODE_*,
 * MLX5_REG_*, MLX5_MODIFY_NIC_VPORT_CONTEXT field_select, MLX5_VPORT_*
 * ====================================================================== */

#define ZN_MLX5_MKC_ACCESS_MODE_PA	0
#define ZN_MLX5_MKC_ACCESS_MODE_MTT	1
#define ZN_MLX5_MKC_ACCESS_MODE_KLMS	2
#define ZN_MLX5_MKC_ACCESS_MODE_KSM	3
#define ZN_MLX5_MKC_QPN_NONE		0xffffff
#define ZN_MLX5_MTT_READ		(UINT64_C(1) << 0)
#define ZN_MLX5_MTT_WRITE		(UINT64_C(1) << 1)
/* lkey/rkey of an mkey: index from CREATE_MKEY out, low byte from mkc.mkey_7_0 */
static inline uint32_t zn_mlx5_mkey(uint32_t mkey_index, uint8_t key)
{
	return (mkey_index & 0xffffff) << 8 | key;
}

#define ZN_MLX5_ACCESS_REG_WRITE	0	/* ACCESS_REG op_mod */
#define ZN_MLX5_ACCESS_REG_READ		1
#define ZN_MLX5_REG_PMTU		0x5003
#define ZN_MLX5_REG_PTYS		0x5004
#define ZN_MLX5_REG_PAOS		0x5006
#define ZN_MLX5_REG_HOST_ENDIANNESS	0x7004
#define ZN_MLX5_PAOS_STATUS_UP		1	/* admin_status / oper_status */
#define ZN_MLX5_PAOS_STATUS_DOWN	2

#define ZN_MLX5_VPORT_STATE_DOWN	0	/* query_vport_state state/admin_state */
#define ZN_MLX5_VPORT_STATE_UP		1
#define ZN_MLX5_VPORT_ADMIN_STATE_AUTO	2	/* admin: follow the physical port */

/* modify_nic_vport_context field_select bits */
#define ZN_MLX5_NIC_VPORT_FS_ROCE_EN		(1u << 1)
#define ZN_MLX5_NIC_VPORT_FS_ADDRESSES_LIST	(1u << 2)
#define ZN_MLX5_NIC_VPORT_FS_PERMANENT_ADDRESS	(1u << 3)
#define ZN_MLX5_NIC_VPORT_FS_PROMISC		(1u << 4)
#define ZN_MLX5_NIC_VPORT_FS_CHANGE_EVENT	(1u << 5)
#define ZN_MLX5_NIC_VPORT_FS_MTU		(1u << 6)
/* permanent_address is a mac_address_layout: 2 reserved bytes, then MAC */
#define ZN_MLX5_NIC_VPORT_MAC_OFF_IN_ADDR	2

/* ======================================================================
 * Field constants: ZN_MLX5_F_<STRUCT>_<FIELD> = bit offset, width
 * (see the top of this file), worked out from the named structs bit by
 * bit; the comment after each gives the PRM table position.
 * ====================================================================== */

/* mlx5_ifc_initial_seg_bits -- Linux include/linux/mlx5/mlx5_ifc.h; DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_INIT_SEG_FW_REV_MINOR                      0x0000,   16	/* fw_rev_minor: dword 0x00 [31:16] */
#define ZN_MLX5_F_INIT_SEG_FW_REV_MAJOR                      0x0010,   16	/* fw_rev_major: dword 0x00 [15:0] */
#define ZN_MLX5_F_INIT_SEG_CMD_INTERFACE_REV                 0x0020,   16	/* cmd_interface_rev: dword 0x04 [31:16] */
#define ZN_MLX5_F_INIT_SEG_FW_REV_SUBMINOR                   0x0030,   16	/* fw_rev_subminor: dword 0x04 [15:0] */
#define ZN_MLX5_F_INIT_SEG_CMDQ_PHY_ADDR_HI                  0x0080,   32	/* cmdq_phy_addr_63_32: dword 0x10 [31:0] */
#define ZN_MLX5_F_INIT_SEG_CMDQ_PHY_ADDR_LO                  0x00a0,   20	/* cmdq_phy_addr_31_12: dword 0x14 [31:12] */
#define ZN_MLX5_F_INIT_SEG_NIC_INTERFACE                     0x00b6,    2	/* nic_interface: dword 0x14 [9:8] */
#define ZN_MLX5_F_INIT_SEG_LOG_CMDQ_SIZE                     0x00b8,    4	/* log_cmdq_size: dword 0x14 [7:4] */
#define ZN_MLX5_F_INIT_SEG_LOG_CMDQ_STRIDE                   0x00bc,    4	/* log_cmdq_stride: dword 0x14 [3:0] */
#define ZN_MLX5_F_INIT_SEG_CMD_DOORBELL_VECTOR               0x00c0,   32	/* command_doorbell_vector: dword 0x18 [31:0] */
#define ZN_MLX5_F_INIT_SEG_INITIALIZING                      0x0fe0,    1	/* initializing: dword 0x1fc [31] */
#define ZN_MLX5_F_INIT_SEG_NIC_INTERFACE_SUPPORTED           0x0fe5,    3	/* nic_interface_supported: dword 0x1fc [26:24] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_ASSERT_EXIT_PTR            0x1100,   32	/* assert_existptr: dword 0x220 [31:0] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_ASSERT_CALLRA              0x1120,   32	/* assert_callra: dword 0x224 [31:0] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_FW_VERSION                 0x1180,   32	/* fw_version: dword 0x230 [31:0] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_HW_ID                      0x11a0,   32	/* hw_id: dword 0x234 [31:0] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_IRISC_INDEX                0x11e0,    8	/* irisc_index: dword 0x23c [31:24] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_SYND                       0x11e8,    8	/* synd: dword 0x23c [23:16] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_EXT_SYND                   0x11f0,   16	/* ext_synd: dword 0x23c [15:0] */
#define ZN_MLX5_F_INIT_SEG_INTERNAL_TIMER_H                  0x8000,   32	/* internal_timer_h: dword 0x1000 [31:0] */
#define ZN_MLX5_F_INIT_SEG_INTERNAL_TIMER_L                  0x8020,   32	/* internal_timer_l: dword 0x1004 [31:0] */
#define ZN_MLX5_F_INIT_SEG_CLEAR_INT                         0x807f,    1	/* clear_int: dword 0x100c [0] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_SYNDROME                   0x8080,    8	/* health_syndrome: dword 0x1010 [31:24] */
#define ZN_MLX5_F_INIT_SEG_HEALTH_COUNTER                    0x8088,   24	/* health_counter: dword 0x1010 [23:0] */

/* mlx5_ifc_cmd_queue_entry_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CMD_ENTRY_TYPE                             0x0000,    8	/* type: dword 0x00 [31:24] */
#define ZN_MLX5_F_CMD_ENTRY_INPUT_LENGTH                     0x0020,   32	/* input_length: dword 0x04 [31:0] */
#define ZN_MLX5_F_CMD_ENTRY_IN_PTR_HI                        0x0040,   32	/* input_mailbox_pointer_63_32: dword 0x08 [31:0] */
#define ZN_MLX5_F_CMD_ENTRY_IN_PTR_LO                        0x0060,   23	/* input_mailbox_pointer_31_9: dword 0x0c [31:9] */
#define ZN_MLX5_F_CMD_ENTRY_IN_INLINE                        0x0080,  128	/* command_input_inline_data: byte 0x10, 16 bytes */
#define ZN_MLX5_F_CMD_ENTRY_OUT_INLINE                       0x0100,  128	/* command_output_inline_data: byte 0x20, 16 bytes */
#define ZN_MLX5_F_CMD_ENTRY_OUT_PTR_HI                       0x0180,   32	/* output_mailbox_pointer_63_32: dword 0x30 [31:0] */
#define ZN_MLX5_F_CMD_ENTRY_OUT_PTR_LO                       0x01a0,   23	/* output_mailbox_pointer_31_9: dword 0x34 [31:9] */
#define ZN_MLX5_F_CMD_ENTRY_OUTPUT_LENGTH                    0x01c0,   32	/* output_length: dword 0x38 [31:0] */
#define ZN_MLX5_F_CMD_ENTRY_TOKEN                            0x01e0,    8	/* token: dword 0x3c [31:24] */
#define ZN_MLX5_F_CMD_ENTRY_SIGNATURE                        0x01e8,    8	/* signature: dword 0x3c [23:16] */
#define ZN_MLX5_F_CMD_ENTRY_STATUS                           0x01f8,    7	/* status: dword 0x3c [7:1] */
#define ZN_MLX5_F_CMD_ENTRY_OWNERSHIP                        0x01ff,    1	/* ownership: dword 0x3c [0] */

/* mlx5_ifc_cmd_if_box_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_MBOX_DATA                                  0x0000, 4096	/* mailbox_data: byte 0x0, 512 bytes */
#define ZN_MLX5_F_MBOX_NEXT_HI                               0x1180,   32	/* next_pointer_63_32: dword 0x230 [31:0] */
#define ZN_MLX5_F_MBOX_NEXT_LO                               0x11a0,   22	/* next_pointer_31_10: dword 0x234 [31:10] */
#define ZN_MLX5_F_MBOX_BLOCK_NUMBER                          0x11c0,   32	/* block_number: dword 0x238 [31:0] */
#define ZN_MLX5_F_MBOX_TOKEN                                 0x11e8,    8	/* token: dword 0x23c [23:16] */
#define ZN_MLX5_F_MBOX_CTRL_SIGNATURE                        0x11f0,    8	/* ctrl_signature: dword 0x23c [15:8] */
#define ZN_MLX5_F_MBOX_SIGNATURE                             0x11f8,    8	/* signature: dword 0x23c [7:0] */

/* mlx5_ifc_mbox_in_bits -- Linux include/linux/mlx5/mlx5_ifc.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_IN_OPCODE                                  0x0000,   16	/* opcode: dword 0x00 [31:16] */
#define ZN_MLX5_F_IN_UID                                     0x0010,   16	/* uid: dword 0x00 [15:0] */
#define ZN_MLX5_F_IN_OP_MOD                                  0x0030,   16	/* op_mod: dword 0x04 [15:0] */

/* mlx5_ifc_enable_hca_out_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_OUT_STATUS                                 0x0000,    8	/* status: dword 0x00 [31:24] */
#define ZN_MLX5_F_OUT_SYNDROME                               0x0020,   32	/* syndrome: dword 0x04 [31:0] */

/* mlx5_ifc_enable_hca_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_ENABLE_HCA_IN_FUNCTION_ID                  0x0050,   16	/* function_id: dword 0x08 [15:0] */

/* mlx5_ifc_query_issi_out_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_QUERY_ISSI_OUT_CURRENT_ISSI                0x0050,   16	/* current_issi: dword 0x08 [15:0] */
#define ZN_MLX5_F_QUERY_ISSI_OUT_SUPPORTED_ISSI              0x0360,   32	/* supported_issi_dw0: dword 0x6c [31:0] */

/* mlx5_ifc_set_issi_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_SET_ISSI_IN_CURRENT_ISSI                   0x0050,   16	/* current_issi: dword 0x08 [15:0] */

/* mlx5_ifc_query_pages_out_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_QUERY_PAGES_OUT_FUNCTION_ID                0x0050,   16	/* function_id: dword 0x08 [15:0] */
#define ZN_MLX5_F_QUERY_PAGES_OUT_NUM_PAGES                  0x0060,   32	/* num_pages: dword 0x0c [31:0] */

/* mlx5_ifc_query_pages_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_QUERY_PAGES_IN_FUNCTION_ID                 0x0050,   16	/* function_id: dword 0x08 [15:0] */

/* mlx5_ifc_manage_pages_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_MANAGE_PAGES_IN_FUNCTION_ID                0x0050,   16	/* function_id: dword 0x08 [15:0] */
#define ZN_MLX5_F_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES          0x0060,   32	/* input_num_entries: dword 0x0c [31:0] */
#define ZN_MLX5_F_MANAGE_PAGES_IN_PAS                        0x0080,    0	/* pas: byte 0x10 (array start) */

/* mlx5_ifc_manage_pages_out_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES        0x0040,   32	/* output_num_entries: dword 0x08 [31:0] */
#define ZN_MLX5_F_MANAGE_PAGES_OUT_PAS                       0x0080,    0	/* pas: byte 0x10 (array start) */

/* mlx5_ifc_query_hca_cap_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_QUERY_HCA_CAP_OUT_CAPABILITY               0x0080, 32768	/* capability: byte 0x10, 4096 bytes */

/* mlx5_ifc_set_hca_cap_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_SET_HCA_CAP_IN_CAPABILITY                  0x0080, 32768	/* capability: byte 0x10, 4096 bytes */

/* mlx5_ifc_cmd_hca_cap_bits -- Linux include/linux/mlx5/mlx5_ifc.h; DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CAP_LOG_MAX_CQ_SZ                          0x00c8,    8	/* log_max_cq_sz: dword 0x18 [23:16] */
#define ZN_MLX5_F_CAP_SHAMPO                                 0x00ba,    1	/* shampo: dword 0x14 [5] */
#define ZN_MLX5_F_CAP_LOG_MAX_CQ                             0x00db,    5	/* log_max_cq: dword 0x18 [4:0] */
#define ZN_MLX5_F_CAP_LOG_MAX_EQ_SZ                          0x00e0,    8	/* log_max_eq_sz: dword 0x1c [31:24] */
#define ZN_MLX5_F_CAP_LOG_MAX_MKEY                           0x00ea,    6	/* log_max_mkey: dword 0x1c [21:16] */
#define ZN_MLX5_F_CAP_LOG_MAX_EQ                             0x00fc,    4	/* log_max_eq: dword 0x1c [3:0] */
#define ZN_MLX5_F_CAP_FAST_TEARDOWN                          0x0111,    1	/* fast_teardown: dword 0x20 [14] */
#define ZN_MLX5_F_CAP_PORT_TYPE                              0x01b6,    2	/* port_type: dword 0x34 [9:8] */
#define ZN_MLX5_F_CAP_NUM_PORTS                              0x01b8,    8	/* num_ports: dword 0x34 [7:0] */
#define ZN_MLX5_F_CAP_STRIDING_RQ                            0x0201,    1	/* striding_rq: dword 0x40 [30] */
#define ZN_MLX5_F_CAP_CMDIF_CHECKSUM                         0x0210,    2	/* cmdif_checksum: dword 0x40 [15:14] */
#define ZN_MLX5_F_CAP_ETH_NET_OFFLOADS                       0x021c,    1	/* eth_net_offloads: dword 0x40 [3] */
#define ZN_MLX5_F_CAP_CQE_VERSION                            0x01fc,    4	/* cqe_version: dword 0x3c [3:0] */
#define ZN_MLX5_F_CAP_UAR_4K                                 0x0240,    1	/* uar_4k: dword 0x48 [31] */
#define ZN_MLX5_F_CAP_LOG_BF_REG_SIZE                        0x026b,    5	/* log_bf_reg_size: dword 0x4c [20:16] */
#define ZN_MLX5_F_CAP_LOG_MAX_TRANSPORT_DOMAIN               0x0323,    5	/* log_max_transport_domain: dword 0x64 [28:24] */
#define ZN_MLX5_F_CAP_LOG_MAX_PD                             0x032b,    5	/* log_max_pd: dword 0x64 [20:16] */
#define ZN_MLX5_F_CAP_LOG_MAX_RQ                             0x0363,    5	/* log_max_rq: dword 0x6c [28:24] */
#define ZN_MLX5_F_CAP_LOG_MAX_SQ                             0x036b,    5	/* log_max_sq: dword 0x6c [20:16] */
#define ZN_MLX5_F_CAP_LOG_MAX_TIR                            0x0373,    5	/* log_max_tir: dword 0x6c [12:8] */
#define ZN_MLX5_F_CAP_LOG_MAX_TIS                            0x037b,    5	/* log_max_tis: dword 0x6c [4:0] */
#define ZN_MLX5_F_CAP_LOG_MAX_RQT                            0x038b,    5	/* log_max_rqt: dword 0x70 [20:16] */
#define ZN_MLX5_F_CAP_LOG_MAX_RQT_SIZE                       0x0393,    5	/* log_max_rqt_size: dword 0x70 [12:8] */
#define ZN_MLX5_F_CAP_EXT_STRIDE_NUM_RANGE                   0x03a0,    1	/* ext_stride_num_range: dword 0x74 [31] */
#define ZN_MLX5_F_CAP_LOG_MAX_STRIDE_SZ_RQ                   0x03a3,    5	/* log_max_stride_sz_rq: dword 0x74 [28:24] */
#define ZN_MLX5_F_CAP_LOG_MIN_STRIDE_SZ_RQ                   0x03ab,    5	/* log_min_stride_sz_rq: dword 0x74 [20:16] */
#define ZN_MLX5_F_CAP_LOG_MAX_WQ_SZ                          0x03db,    5	/* log_max_wq_sz: dword 0x78 [4:0] */
#define ZN_MLX5_F_CAP_LOG_UAR_PAGE_SZ                        0x0490,   16	/* log_uar_page_sz: dword 0x90 [15:0] */
#define ZN_MLX5_F_CAP_NIC_FLOW_TABLE                         0x01a6,    1	/* nic_flow_table: dword 0x34 [25] */
#define ZN_MLX5_F_CAP_CQE_COMPRESSION                        0x05bf,    1	/* cqe_compression: dword 0xb4 [0] */

/* mlx5_ifc_per_protocol_networking_offload_caps_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_ETH_CAP_CSUM_CAP                           0x0000,    1	/* csum_cap: dword 0x00 [31] */
#define ZN_MLX5_F_ETH_CAP_LRO_CAP                            0x0002,    1	/* lro_cap: dword 0x00 [29] */
#define ZN_MLX5_F_ETH_CAP_MAX_LSO_CAP                        0x000b,    5	/* max_lso_cap: dword 0x00 [20:16] */
#define ZN_MLX5_F_ETH_CAP_WQE_INLINE_MODE                    0x0012,    2	/* wqe_inline_mode: dword 0x00 [13:12] */
#define ZN_MLX5_F_ETH_CAP_RSS_IND_TBL_CAP                    0x0014,    4	/* rss_ind_tbl_cap: dword 0x00 [11:8] */
#define ZN_MLX5_F_ETH_CAP_MULTI_PKT_SEND_WQE                 0x0010,    2	/* multi_pkt_send_wqe: dword 0x00 [15:14] */

/* mlx5_ifc_shampo_cap_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_SHAMPO_CAP_LOG_MAX_RESERVATION_SIZE        0x0003,    5	/* shampo_log_max_reservation_size: dword 0x00 [28:24] */
#define ZN_MLX5_F_SHAMPO_CAP_LOG_MIN_RESERVATION_SIZE        0x000b,    5	/* shampo_log_min_reservation_size: dword 0x00 [20:16] */
#define ZN_MLX5_F_SHAMPO_CAP_MIN_MSS_SIZE                    0x0010,   16	/* shampo_min_mss_size: dword 0x00 [15:0] */
#define ZN_MLX5_F_SHAMPO_CAP_MAX_LOG_HEADERS_ENTRY_SIZE      0x0023,    5	/* shampo_max_log_headers_entry_size: dword 0x04 [28:24] */

/* mlx5_ifc_teardown_hca_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_TEARDOWN_HCA_IN_PROFILE                    0x0050,   16	/* profile: dword 0x08 [15:0] */

/* mlx5_ifc_teardown_hca_out_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_TEARDOWN_HCA_OUT_STATE                     0x007f,    1	/* state: dword 0x0c [0] */

/* mlx5_ifc_alloc_uar_out_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_ALLOC_UAR_OUT_UAR                          0x0048,   24	/* uar: dword 0x08 [23:0] */

/* mlx5_ifc_alloc_pd_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_ALLOC_PD_OUT_PD                            0x0048,   24	/* pd: dword 0x08 [23:0] */

/* mlx5_ifc_alloc_transport_domain_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_ALLOC_TD_OUT_TRANSPORT_DOMAIN              0x0048,   24	/* transport_domain: dword 0x08 [23:0] */

/* mlx5_ifc_dealloc_pd_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_OBJ_IN_ID                          0x0048,   24	/* pd: dword 0x08 [23:0] */

/* mlx5_ifc_create_eq_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_EQ_IN_EQC                           0x0080,  512	/* eq_context_entry: byte 0x10, 64 bytes */
#define ZN_MLX5_F_CREATE_EQ_IN_EVENT_BITMASK                 0x02c0,  256	/* event_bitmask: byte 0x58, 32 bytes */
#define ZN_MLX5_F_CREATE_EQ_IN_PAS                           0x0880,    0	/* pas: byte 0x110 (array start) */

/* mlx5_ifc_create_eq_out_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_EQ_OUT_EQ_NUMBER                    0x0058,    8	/* eq_number: dword 0x08 [7:0] */

/* mlx5_ifc_destroy_eq_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_EQ_IN_EQ_NUMBER                    0x0058,    8	/* eq_number: dword 0x08 [7:0] */

/* mlx5_ifc_eqc_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_EQC_STATUS                                 0x0000,    4	/* status: dword 0x00 [31:28] */
#define ZN_MLX5_F_EQC_EC                                     0x000d,    1	/* ec: dword 0x00 [18] */
#define ZN_MLX5_F_EQC_OI                                     0x000e,    1	/* oi: dword 0x00 [17] */
#define ZN_MLX5_F_EQC_ST                                     0x0014,    4	/* st: dword 0x00 [11:8] */
#define ZN_MLX5_F_EQC_PAGE_OFFSET                            0x0054,    6	/* page_offset: dword 0x08 [11:6] */
#define ZN_MLX5_F_EQC_LOG_EQ_SIZE                            0x0063,    5	/* log_eq_size: dword 0x0c [28:24] */
#define ZN_MLX5_F_EQC_UAR_PAGE                               0x0068,   24	/* uar_page: dword 0x0c [23:0] */
#define ZN_MLX5_F_EQC_INTR                                   0x00b8,    8	/* intr: dword 0x14 [7:0] */
#define ZN_MLX5_F_EQC_LOG_PAGE_SIZE                          0x00c3,    5	/* log_page_size: dword 0x18 [28:24] */
#define ZN_MLX5_F_EQC_CONSUMER_COUNTER                       0x0148,   24	/* consumer_counter: dword 0x28 [23:0] */
#define ZN_MLX5_F_EQC_PRODUCER_COUNTER                       0x0168,   24	/* producer_counter: dword 0x2c [23:0] */

/* mlx5_ifc_create_cq_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_CREATE_CQ_IN_CQC                           0x0080,  512	/* cq_context: byte 0x10, 64 bytes */
#define ZN_MLX5_F_CREATE_CQ_IN_PAS                           0x0880,    0	/* pas: byte 0x110 (array start) */
#define ZN_MLX5_F_CREATE_CQ_IN_CQ_UMEM_OFFSET                0x0280,   64	/* cq_umem_offset: byte 0x50, 8 bytes */
#define ZN_MLX5_F_CREATE_CQ_IN_CQ_UMEM_ID                    0x02c0,   32	/* cq_umem_id: dword 0x58 [31:0] */
#define ZN_MLX5_F_CREATE_CQ_IN_CQ_UMEM_VALID                 0x02e0,    1	/* cq_umem_valid: dword 0x5c [31] */

/* mlx5_ifc_create_cq_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_CQ_OUT_CQN                          0x0048,   24	/* cqn: dword 0x08 [23:0] */

/* mlx5_ifc_destroy_cq_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_CQ_IN_CQN                          0x0048,   24	/* cqn: dword 0x08 [23:0] */

/* mlx5_ifc_cqc_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_CQC_STATUS                                 0x0000,    4	/* status: dword 0x00 [31:28] */
#define ZN_MLX5_F_CQC_DBR_UMEM_VALID                         0x0006,    1	/* dbr_umem_valid: dword 0x00 [25] */
#define ZN_MLX5_F_CQC_CQE_SZ                                 0x0008,    3	/* cqe_sz: dword 0x00 [23:21] */
#define ZN_MLX5_F_CQC_CC                                     0x000b,    1	/* cc: dword 0x00 [20] */
#define ZN_MLX5_F_CQC_SCQE_BREAK_MODERATION_EN               0x000d,    1	/* scqe_break_moderation_en: dword 0x00 [18] */
#define ZN_MLX5_F_CQC_OI                                     0x000e,    1	/* oi: dword 0x00 [17] */
#define ZN_MLX5_F_CQC_CQ_PERIOD_MODE                         0x000f,    2	/* cq_period_mode: dword 0x00 [16:15] */
#define ZN_MLX5_F_CQC_CQE_COMP_EN                            0x0011,    1	/* cqe_comp_en: dword 0x00 [14] */
#define ZN_MLX5_F_CQC_MINI_CQE_RES_FORMAT                    0x0012,    2	/* mini_cqe_res_format: dword 0x00 [13:12] */
#define ZN_MLX5_F_CQC_ST                                     0x0014,    4	/* st: dword 0x00 [11:8] */
#define ZN_MLX5_F_CQC_PAGE_OFFSET                            0x0054,    6	/* page_offset: dword 0x08 [11:6] */
#define ZN_MLX5_F_CQC_DBR_UMEM_ID                            0x0020,   32	/* dbr_umem_id: dword 0x04 [31:0] */
#define ZN_MLX5_F_CQC_LOG_CQ_SIZE                            0x0063,    5	/* log_cq_size: dword 0x0c [28:24] */
#define ZN_MLX5_F_CQC_UAR_PAGE                               0x0068,   24	/* uar_page: dword 0x0c [23:0] */
#define ZN_MLX5_F_CQC_CQ_PERIOD                              0x0084,   12	/* cq_period: dword 0x10 [27:16] */
#define ZN_MLX5_F_CQC_CQ_MAX_COUNT                           0x0090,   16	/* cq_max_count: dword 0x10 [15:0] */
#define ZN_MLX5_F_CQC_C_EQN                                  0x00b8,    8	/* c_eqn: dword 0x14 [7:0] */
#define ZN_MLX5_F_CQC_LOG_PAGE_SIZE                          0x00c3,    5	/* log_page_size: dword 0x18 [28:24] */
#define ZN_MLX5_F_CQC_LAST_NOTIFIED_INDEX                    0x0108,   24	/* last_notified_index: dword 0x20 [23:0] */
#define ZN_MLX5_F_CQC_LAST_SOLICIT_INDEX                     0x0128,   24	/* last_solicit_index: dword 0x24 [23:0] */
#define ZN_MLX5_F_CQC_CONSUMER_COUNTER                       0x0148,   24	/* consumer_counter: dword 0x28 [23:0] */
#define ZN_MLX5_F_CQC_PRODUCER_COUNTER                       0x0168,   24	/* producer_counter: dword 0x2c [23:0] */
#define ZN_MLX5_F_CQC_DBR_ADDR                               0x01c0,   64	/* dbr_addr: byte 0x38, 8 bytes */

/* mlx5_ifc_create_sq_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_CREATE_SQ_IN_SQC                           0x0100, 1920	/* ctx: byte 0x20, 240 bytes */

/* mlx5_ifc_create_sq_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_SQ_OUT_SQN                          0x0048,   24	/* sqn: dword 0x08 [23:0] */

/* mlx5_ifc_modify_sq_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_MODIFY_SQ_IN_SQ_STATE                      0x0040,    4	/* sq_state: dword 0x08 [31:28] */
#define ZN_MLX5_F_MODIFY_SQ_IN_SQN                           0x0048,   24	/* sqn: dword 0x08 [23:0] */
#define ZN_MLX5_F_MODIFY_SQ_IN_MODIFY_BITMASK                0x0080,   64	/* modify_bitmask: byte 0x10, 8 bytes */
#define ZN_MLX5_F_MODIFY_SQ_IN_SQC                           0x0100, 1920	/* ctx: byte 0x20, 240 bytes */

/* mlx5_ifc_destroy_sq_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_SQ_IN_SQN                          0x0048,   24	/* sqn: dword 0x08 [23:0] */

/* mlx5_ifc_sqc_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_SQC_RLKY                                   0x0000,    1	/* rlky: dword 0x00 [31] */
#define ZN_MLX5_F_SQC_CD_MASTER                              0x0001,    1	/* cd_master: dword 0x00 [30] */
#define ZN_MLX5_F_SQC_FRE                                    0x0002,    1	/* fre: dword 0x00 [29] */
#define ZN_MLX5_F_SQC_FLUSH_IN_ERROR_EN                      0x0003,    1	/* flush_in_error_en: dword 0x00 [28] */
#define ZN_MLX5_F_SQC_ALLOW_MULTI_PKT_SEND_WQE               0x0004,    1	/* allow_multi_pkt_send_wqe: dword 0x00 [27] */
#define ZN_MLX5_F_SQC_MIN_WQE_INLINE_MODE                    0x0005,    3	/* min_wqe_inline_mode: dword 0x00 [26:24] */
#define ZN_MLX5_F_SQC_STATE                                  0x0008,    4	/* state: dword 0x00 [23:20] */
#define ZN_MLX5_F_SQC_USER_INDEX                             0x0028,   24	/* user_index: dword 0x04 [23:0] */
#define ZN_MLX5_F_SQC_CQN                                    0x0048,   24	/* cqn: dword 0x08 [23:0] */
#define ZN_MLX5_F_SQC_TIS_LST_SZ                             0x0100,   16	/* tis_lst_sz: dword 0x20 [31:16] */
#define ZN_MLX5_F_SQC_TIS_NUM_0                              0x0168,   24	/* tis_num_0: dword 0x2c [23:0] */
#define ZN_MLX5_F_SQC_WQ                                     0x0180, 1536	/* wq: byte 0x30, 192 bytes */

/* mlx5_ifc_create_rq_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_CREATE_RQ_IN_RQC                           0x0100, 1920	/* ctx: byte 0x20, 240 bytes */

/* mlx5_ifc_create_rq_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_RQ_OUT_RQN                          0x0048,   24	/* rqn: dword 0x08 [23:0] */

/* mlx5_ifc_modify_rq_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_MODIFY_RQ_IN_RQ_STATE                      0x0040,    4	/* rq_state: dword 0x08 [31:28] */
#define ZN_MLX5_F_MODIFY_RQ_IN_RQN                           0x0048,   24	/* rqn: dword 0x08 [23:0] */
#define ZN_MLX5_F_MODIFY_RQ_IN_MODIFY_BITMASK                0x0080,   64	/* modify_bitmask: byte 0x10, 8 bytes */
#define ZN_MLX5_F_MODIFY_RQ_IN_RQC                           0x0100, 1920	/* ctx: byte 0x20, 240 bytes */

/* mlx5_ifc_rqc_bits -- Linux include/linux/mlx5/mlx5_ifc.h; DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_RQC_RLKY                                   0x0000,    1	/* rlky: dword 0x00 [31] */
#define ZN_MLX5_F_RQC_DELAY_DROP_EN                          0x0001,    1	/* delay_drop_en: dword 0x00 [30] */
#define ZN_MLX5_F_RQC_SCATTER_FCS                            0x0002,    1	/* scatter_fcs: dword 0x00 [29] */
#define ZN_MLX5_F_RQC_VSD                                    0x0003,    1	/* vsd: dword 0x00 [28] */
#define ZN_MLX5_F_RQC_MEM_RQ_TYPE                            0x0004,    4	/* mem_rq_type: dword 0x00 [27:24] */
#define ZN_MLX5_F_RQC_STATE                                  0x0008,    4	/* state: dword 0x00 [23:20] */
#define ZN_MLX5_F_RQC_FLUSH_IN_ERROR_EN                      0x000d,    1	/* flush_in_error_en: dword 0x00 [18] */
#define ZN_MLX5_F_RQC_USER_INDEX                             0x0028,   24	/* user_index: dword 0x04 [23:0] */
#define ZN_MLX5_F_RQC_CQN                                    0x0048,   24	/* cqn: dword 0x08 [23:0] */
#define ZN_MLX5_F_RQC_COUNTER_SET_ID                         0x0060,    8	/* counter_set_id: dword 0x0c [31:24] */
#define ZN_MLX5_F_RQC_RMPN                                   0x0088,   24	/* rmpn: dword 0x10 [23:0] */
#define ZN_MLX5_F_RQC_SHAMPO_NO_MATCH_ALIGNMENT_GRANULARITY  0x0126,    2	/* shampo_no_match_alignment_granularity: dword 0x24 [25:24] */
#define ZN_MLX5_F_RQC_SHAMPO_MATCH_CRITERIA_TYPE             0x012e,    2	/* shampo_match_criteria_type: dword 0x24 [17:16] */
#define ZN_MLX5_F_RQC_RESERVATION_TIMEOUT                    0x0130,   16	/* reservation_timeout: dword 0x24 [15:0] */
#define ZN_MLX5_F_RQC_WQ                                     0x0180, 1536	/* wq: byte 0x30, 192 bytes */

/* mlx5_ifc_wq_bits -- Linux include/linux/mlx5/mlx5_ifc.h; DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_WQ_WQ_TYPE                                 0x0000,    4	/* wq_type: dword 0x00 [31:28] */
#define ZN_MLX5_F_WQ_WQ_SIGNATURE                            0x0004,    1	/* wq_signature: dword 0x00 [27] */
#define ZN_MLX5_F_WQ_END_PADDING_MODE                        0x0005,    2	/* end_padding_mode: dword 0x00 [26:25] */
#define ZN_MLX5_F_WQ_PAGE_OFFSET                             0x002b,    5	/* page_offset: dword 0x04 [20:16] */
#define ZN_MLX5_F_WQ_LWM                                     0x0030,   16	/* lwm: dword 0x04 [15:0] */
#define ZN_MLX5_F_WQ_PD                                      0x0048,   24	/* pd: dword 0x08 [23:0] */
#define ZN_MLX5_F_WQ_UAR_PAGE                                0x0068,   24	/* uar_page: dword 0x0c [23:0] */
#define ZN_MLX5_F_WQ_DBR_ADDR                                0x0080,   64	/* dbr_addr: byte 0x10, 8 bytes */
#define ZN_MLX5_F_WQ_HW_COUNTER                              0x00c0,   32	/* hw_counter: dword 0x18 [31:0] */
#define ZN_MLX5_F_WQ_SW_COUNTER                              0x00e0,   32	/* sw_counter: dword 0x1c [31:0] */
#define ZN_MLX5_F_WQ_LOG_WQ_STRIDE                           0x010c,    4	/* log_wq_stride: dword 0x20 [19:16] */
#define ZN_MLX5_F_WQ_LOG_WQ_PG_SZ                            0x0113,    5	/* log_wq_pg_sz: dword 0x20 [12:8] */
#define ZN_MLX5_F_WQ_LOG_WQ_SZ                               0x011b,    5	/* log_wq_sz: dword 0x20 [4:0] */
#define ZN_MLX5_F_WQ_DBR_UMEM_VALID                          0x0120,    1	/* dbr_umem_valid: dword 0x24 [31] */
#define ZN_MLX5_F_WQ_WQ_UMEM_VALID                           0x0121,    1	/* wq_umem_valid: dword 0x24 [30] */
#define ZN_MLX5_F_WQ_LOG_WQE_NUM_OF_STRIDES                  0x0134,    4	/* log_wqe_num_of_strides: dword 0x24 [11:8] */
#define ZN_MLX5_F_WQ_TWO_BYTE_SHIFT_EN                       0x0138,    1	/* two_byte_shift_en: dword 0x24 [7] */
#define ZN_MLX5_F_WQ_LOG_WQE_STRIDE_SIZE                     0x013d,    3	/* log_wqe_stride_size: dword 0x24 [2:0] */
#define ZN_MLX5_F_WQ_DBR_UMEM_ID                             0x0140,   32	/* dbr_umem_id: dword 0x28 [31:0] */
#define ZN_MLX5_F_WQ_WQ_UMEM_ID                              0x0160,   32	/* wq_umem_id: dword 0x2c [31:0] */
#define ZN_MLX5_F_WQ_WQ_UMEM_OFFSET                          0x0180,   64	/* wq_umem_offset: byte 0x30, 8 bytes */
#define ZN_MLX5_F_WQ_HEADERS_MKEY                            0x01c0,   32	/* headers_mkey: dword 0x38 [31:0] */
#define ZN_MLX5_F_WQ_SHAMPO_ENABLE                           0x01e0,    1	/* shampo_enable: dword 0x3c [31] */
#define ZN_MLX5_F_WQ_LOG_RESERVATION_SIZE                    0x01e5,    3	/* log_reservation_size: dword 0x3c [26:24] */
#define ZN_MLX5_F_WQ_LOG_MAX_NUM_OF_PACKETS_PER_RESERVATION  0x01ed,    3	/* log_max_num_of_packets_per_reservation: dword 0x3c [18:16] */
#define ZN_MLX5_F_WQ_LOG_HEADERS_ENTRY_SIZE                  0x01f6,    2	/* log_headers_entry_size: dword 0x3c [9:8] */
#define ZN_MLX5_F_WQ_LOG_HEADERS_BUFFER_ENTRY_NUM            0x01fc,    4	/* log_headers_buffer_entry_num: dword 0x3c [3:0] */

/* mlx5_ifc_create_tis_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_CREATE_TIS_IN_TISC                         0x0100, 1280	/* ctx: byte 0x20, 160 bytes */

/* mlx5_ifc_create_tis_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_TIS_OUT_TISN                        0x0048,   24	/* tisn: dword 0x08 [23:0] */

/* mlx5_ifc_tisc_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_TISC_PRIO                                  0x000c,    4	/* prio: dword 0x00 [19:16] */
#define ZN_MLX5_F_TISC_TRANSPORT_DOMAIN                      0x0128,   24	/* transport_domain: dword 0x24 [23:0] */

/* mlx5_ifc_create_tir_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_CREATE_TIR_IN_TIRC                         0x0100, 1920	/* ctx: byte 0x20, 240 bytes */

/* mlx5_ifc_create_tir_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_TIR_OUT_TIRN                        0x0048,   24	/* tirn: dword 0x08 [23:0] */

/* mlx5_ifc_tirc_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_TIRC_DISP_TYPE                             0x0020,    4	/* disp_type: dword 0x04 [31:28] */
#define ZN_MLX5_F_TIRC_LRO_TIMEOUT_PERIOD_USECS              0x0084,   16	/* lro_timeout_period_usecs: dword 0x10 [27:12] */
#define ZN_MLX5_F_TIRC_LRO_ENABLE_MASK                       0x0094,    4	/* lro_enable_mask: dword 0x10 [11:8] */
#define ZN_MLX5_F_TIRC_LRO_MAX_MSG_SZ                        0x0098,    8	/* lro_max_msg_sz: dword 0x10 [7:0] */
#define ZN_MLX5_F_TIRC_INLINE_RQN                            0x00e8,   24	/* inline_rqn: dword 0x1c [23:0] */
#define ZN_MLX5_F_TIRC_RX_HASH_SYMMETRIC                     0x0100,    1	/* rx_hash_symmetric: dword 0x20 [31] */
#define ZN_MLX5_F_TIRC_TUNNELED_OFFLOAD_EN                   0x0102,    1	/* tunneled_offload_en: dword 0x20 [29] */
#define ZN_MLX5_F_TIRC_INDIRECT_TABLE                        0x0108,   24	/* indirect_table: dword 0x20 [23:0] */
#define ZN_MLX5_F_TIRC_RX_HASH_FN                            0x0120,    4	/* rx_hash_fn: dword 0x24 [31:28] */
#define ZN_MLX5_F_TIRC_SELF_LB_BLOCK                         0x0126,    2	/* self_lb_block: dword 0x24 [25:24] */
#define ZN_MLX5_F_TIRC_TRANSPORT_DOMAIN                      0x0128,   24	/* transport_domain: dword 0x24 [23:0] */
#define ZN_MLX5_F_TIRC_RX_HASH_TOEPLITZ_KEY                  0x0140,  320	/* rx_hash_toeplitz_key: byte 0x28, 40 bytes */
#define ZN_MLX5_F_TIRC_RX_HASH_FIELD_SELECTOR_OUTER          0x0280,   32	/* rx_hash_field_selector_outer: dword 0x50 [31:0] */
#define ZN_MLX5_F_TIRC_RX_HASH_FIELD_SELECTOR_INNER          0x02a0,   32	/* rx_hash_field_selector_inner: dword 0x54 [31:0] */

/* mlx5_ifc_rx_hash_field_select_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_HASH_SEL_L3_PROT_TYPE                      0x0000,    1	/* l3_prot_type: dword 0x00 [31] */
#define ZN_MLX5_F_HASH_SEL_L4_PROT_TYPE                      0x0001,    1	/* l4_prot_type: dword 0x00 [30] */
#define ZN_MLX5_F_HASH_SEL_SELECTED_FIELDS                   0x0002,   30	/* selected_fields: dword 0x00 [29:0] */

/* mlx5_ifc_create_rqt_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_CREATE_RQT_IN_RQTC                         0x0100, 1920	/* rqt_context: byte 0x20, 240 bytes */

/* mlx5_ifc_create_rqt_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_RQT_OUT_RQTN                        0x0048,   24	/* rqtn: dword 0x08 [23:0] */

/* mlx5_ifc_rqtc_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_RQTC_RQT_MAX_SIZE                          0x00b0,   16	/* rqt_max_size: dword 0x14 [15:0] */
#define ZN_MLX5_F_RQTC_RQT_ACTUAL_SIZE                       0x00d0,   16	/* rqt_actual_size: dword 0x18 [15:0] */
#define ZN_MLX5_F_RQTC_RQ_NUM                                0x0780,    0	/* rq_num: byte 0xf0 (array start) */

/* mlx5_ifc_create_flow_table_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_FT_IN_TABLE_TYPE                    0x0080,    8	/* table_type: dword 0x10 [31:24] */
#define ZN_MLX5_F_CREATE_FT_IN_FTC                           0x00c0,  320	/* flow_table_context: byte 0x18, 40 bytes */

/* mlx5_ifc_create_flow_table_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_FT_OUT_TABLE_ID                     0x0048,   24	/* table_id: dword 0x08 [23:0] */

/* mlx5_ifc_flow_table_context_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_FTC_TABLE_MISS_ACTION                      0x0004,    4	/* table_miss_action: dword 0x00 [27:24] */
#define ZN_MLX5_F_FTC_LEVEL                                  0x0008,    8	/* level: dword 0x00 [23:16] */
#define ZN_MLX5_F_FTC_LOG_SIZE                               0x0018,    8	/* log_size: dword 0x00 [7:0] */
#define ZN_MLX5_F_FTC_TABLE_MISS_ID                          0x0028,   24	/* table_miss_id: dword 0x04 [23:0] */

/* mlx5_ifc_create_flow_group_in_bits -- Linux include/linux/mlx5/mlx5_ifc.h; DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_FG_IN_TABLE_TYPE                    0x0080,    8	/* table_type: dword 0x10 [31:24] */
#define ZN_MLX5_F_CREATE_FG_IN_TABLE_ID                      0x00a8,   24	/* table_id: dword 0x14 [23:0] */
#define ZN_MLX5_F_CREATE_FG_IN_START_FLOW_INDEX              0x00e0,   32	/* start_flow_index: dword 0x1c [31:0] */
#define ZN_MLX5_F_CREATE_FG_IN_END_FLOW_INDEX                0x0120,   32	/* end_flow_index: dword 0x24 [31:0] */
#define ZN_MLX5_F_CREATE_FG_IN_MATCH_CRITERIA_ENABLE         0x01f8,    8	/* match_criteria_enable: dword 0x3c [7:0] */
#define ZN_MLX5_F_CREATE_FG_IN_MATCH_CRITERIA                0x0200, 4096	/* match_criteria: byte 0x40, 512 bytes */

/* mlx5_ifc_create_flow_group_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_FG_OUT_GROUP_ID                     0x0048,   24	/* group_id: dword 0x08 [23:0] */

/* mlx5_ifc_set_fte_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_SET_FTE_IN_TABLE_TYPE                      0x0080,    8	/* table_type: dword 0x10 [31:24] */
#define ZN_MLX5_F_SET_FTE_IN_TABLE_ID                        0x00a8,   24	/* table_id: dword 0x14 [23:0] */
#define ZN_MLX5_F_SET_FTE_IN_FLOW_INDEX                      0x0100,   32	/* flow_index: dword 0x20 [31:0] */
#define ZN_MLX5_F_SET_FTE_IN_FLOW_CONTEXT                    0x0200, 6144	/* flow_context: byte 0x40, 768 bytes */

/* mlx5_ifc_flow_context_bits -- Linux include/linux/mlx5/mlx5_ifc.h; DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_FLOW_CTX_GROUP_ID                          0x0020,   32	/* group_id: dword 0x04 [31:0] */
#define ZN_MLX5_F_FLOW_CTX_FLOW_TAG                          0x0048,   24	/* flow_tag: dword 0x08 [23:0] */
#define ZN_MLX5_F_FLOW_CTX_ACTION                            0x0070,   16	/* action: dword 0x0c [15:0] */
#define ZN_MLX5_F_FLOW_CTX_DESTINATION_LIST_SIZE             0x0088,   24	/* destination_list_size: dword 0x10 [23:0] */
#define ZN_MLX5_F_FLOW_CTX_MATCH_VALUE                       0x0200, 4096	/* match_value: byte 0x40, 512 bytes */
#define ZN_MLX5_F_FLOW_CTX_DESTINATION                       0x1800,    0	/* destination: byte 0x300 (array start) */

/* mlx5_ifc_dest_format_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DEST_TYPE                                  0x0000,    8	/* destination_type: dword 0x00 [31:24] */
#define ZN_MLX5_F_DEST_ID                                    0x0008,   24	/* destination_id: dword 0x00 [23:0] */

/* mlx5_ifc_set_flow_table_root_in_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_SET_FT_ROOT_IN_TABLE_TYPE                  0x0080,    8	/* table_type: dword 0x10 [31:24] */
#define ZN_MLX5_F_SET_FT_ROOT_IN_TABLE_ID                    0x00a8,   24	/* table_id: dword 0x14 [23:0] */

/* mlx5_ifc_fte_match_param_bits -- Linux include/linux/mlx5/mlx5_ifc.h; DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_MATCH_OUTER_HEADERS                        0x0000,  512	/* outer_headers: byte 0x0, 64 bytes */
#define ZN_MLX5_F_MATCH_MISC_PARAMETERS                      0x0200,  512	/* misc_parameters: byte 0x40, 64 bytes */
#define ZN_MLX5_F_MATCH_INNER_HEADERS                        0x0400,  512	/* inner_headers: byte 0x80, 64 bytes */

/* mlx5_ifc_fte_match_set_lyr_2_4_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_L24_SMAC_47_16                             0x0000,   32	/* smac_47_16: dword 0x00 [31:0] */
#define ZN_MLX5_F_L24_SMAC_15_0                              0x0020,   16	/* smac_15_0: dword 0x04 [31:16] */
#define ZN_MLX5_F_L24_ETHERTYPE                              0x0030,   16	/* ethertype: dword 0x04 [15:0] */
#define ZN_MLX5_F_L24_DMAC_47_16                             0x0040,   32	/* dmac_47_16: dword 0x08 [31:0] */
#define ZN_MLX5_F_L24_DMAC_15_0                              0x0060,   16	/* dmac_15_0: dword 0x0c [31:16] */
#define ZN_MLX5_F_L24_FIRST_VID                              0x0074,   12	/* first_vid: dword 0x0c [11:0] */
#define ZN_MLX5_F_L24_IP_PROTOCOL                            0x0080,    8	/* ip_protocol: dword 0x10 [31:24] */
#define ZN_MLX5_F_L24_CVLAN_TAG                              0x0090,    1	/* cvlan_tag: dword 0x10 [15] */
#define ZN_MLX5_F_L24_FRAG                                   0x0092,    1	/* frag: dword 0x10 [13] */
#define ZN_MLX5_F_L24_IP_VERSION                             0x0093,    4	/* ip_version: dword 0x10 [12:9] */
#define ZN_MLX5_F_L24_TCP_FLAGS                              0x0097,    9	/* tcp_flags: dword 0x10 [8:0] */
#define ZN_MLX5_F_L24_TCP_SPORT                              0x00a0,   16	/* tcp_sport: dword 0x14 [31:16] */
#define ZN_MLX5_F_L24_TCP_DPORT                              0x00b0,   16	/* tcp_dport: dword 0x14 [15:0] */
#define ZN_MLX5_F_L24_UDP_SPORT                              0x00e0,   16	/* udp_sport: dword 0x1c [31:16] */
#define ZN_MLX5_F_L24_UDP_DPORT                              0x00f0,   16	/* udp_dport: dword 0x1c [15:0] */
#define ZN_MLX5_F_L24_SRC_IP                                 0x0100,  128	/* src_ipv4_src_ipv6: byte 0x20, 16 bytes */
#define ZN_MLX5_F_L24_DST_IP                                 0x0180,  128	/* dst_ipv4_dst_ipv6: byte 0x30, 16 bytes */

/* mlx5_ifc_query_vport_state_in_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_QUERY_VPORT_STATE_IN_OTHER_VPORT           0x0040,    1	/* other_vport: dword 0x08 [31] */
#define ZN_MLX5_F_QUERY_VPORT_STATE_IN_VPORT_NUMBER          0x0050,   16	/* vport_number: dword 0x08 [15:0] */

/* mlx5_ifc_query_vport_state_out_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_QUERY_VPORT_STATE_OUT_ADMIN_STATE          0x0078,    4	/* admin_state: dword 0x0c [7:4] */
#define ZN_MLX5_F_QUERY_VPORT_STATE_OUT_STATE                0x007c,    4	/* state: dword 0x0c [3:0] */

/* mlx5_ifc_query_nic_vport_context_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h */
#define ZN_MLX5_F_QUERY_NIC_VPORT_IN_OTHER_VPORT             0x0040,    1	/* other_vport: dword 0x08 [31] */
#define ZN_MLX5_F_QUERY_NIC_VPORT_IN_VPORT_NUMBER            0x0050,   16	/* vport_number: dword 0x08 [15:0] */

/* mlx5_ifc_query_nic_vport_context_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_QUERY_NIC_VPORT_OUT_CONTEXT                0x0080, 2048	/* nic_vport_context: byte 0x10, 256 bytes */

/* mlx5_ifc_modify_nic_vport_context_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_MODIFY_NIC_VPORT_IN_FIELD_SELECT           0x0060,   32	/* field_select: dword 0x0c [31:0] */
#define ZN_MLX5_F_MODIFY_NIC_VPORT_IN_CONTEXT                0x0800, 2048	/* nic_vport_context: byte 0x100, 256 bytes */

/* mlx5_ifc_nic_vport_context_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_NIC_VPORT_MIN_WQE_INLINE_MODE              0x0005,    3	/* min_wqe_inline_mode: dword 0x00 [26:24] */
#define ZN_MLX5_F_NIC_VPORT_ROCE_EN                          0x001f,    1	/* roce_en: dword 0x00 [0] */
#define ZN_MLX5_F_NIC_VPORT_MTU                              0x0130,   16	/* mtu: dword 0x24 [15:0] */
#define ZN_MLX5_F_NIC_VPORT_PROMISC_UC                       0x0780,    1	/* promisc_uc: dword 0xf0 [31] */
#define ZN_MLX5_F_NIC_VPORT_PROMISC_MC                       0x0781,    1	/* promisc_mc: dword 0xf0 [30] */
#define ZN_MLX5_F_NIC_VPORT_PROMISC_ALL                      0x0782,    1	/* promisc_all: dword 0xf0 [29] */
#define ZN_MLX5_F_NIC_VPORT_PERMANENT_ADDRESS                0x07a0,   64	/* permanent_address: byte 0xf4, 8 bytes */

/* mlx5_ifc_create_mkey_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_MKEY_IN_PG_ACCESS                   0x0060,    1	/* pg_access: dword 0x0c [31] */
#define ZN_MLX5_F_CREATE_MKEY_IN_MKC                         0x0080,  512	/* memory_key_mkey_entry: byte 0x10, 64 bytes */
#define ZN_MLX5_F_CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE 0x0300,   32	/* translations_octword_actual_size: dword 0x60 [31:0] */
#define ZN_MLX5_F_CREATE_MKEY_IN_KLM_PAS_MTT                 0x0880,    0	/* klm_pas_mtt: byte 0x110 (array start) */

/* mlx5_ifc_create_mkey_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_CREATE_MKEY_OUT_MKEY_INDEX                 0x0048,   24	/* mkey_index: dword 0x08 [23:0] */

/* mlx5_ifc_mkc_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_MKC_FREE                                   0x0001,    1	/* free: dword 0x00 [30] */
#define ZN_MLX5_F_MKC_ACCESS_MODE_4_2                        0x0003,    3	/* access_mode_4_2: dword 0x00 [28:26] */
#define ZN_MLX5_F_MKC_UMR_EN                                 0x0010,    1	/* umr_en: dword 0x00 [15] */
#define ZN_MLX5_F_MKC_A                                      0x0011,    1	/* a: dword 0x00 [14] */
#define ZN_MLX5_F_MKC_RW                                     0x0012,    1	/* rw: dword 0x00 [13] */
#define ZN_MLX5_F_MKC_RR                                     0x0013,    1	/* rr: dword 0x00 [12] */
#define ZN_MLX5_F_MKC_LW                                     0x0014,    1	/* lw: dword 0x00 [11] */
#define ZN_MLX5_F_MKC_LR                                     0x0015,    1	/* lr: dword 0x00 [10] */
#define ZN_MLX5_F_MKC_ACCESS_MODE_1_0                        0x0016,    2	/* access_mode_1_0: dword 0x00 [9:8] */
#define ZN_MLX5_F_MKC_QPN                                    0x0020,   24	/* qpn: dword 0x04 [31:8] */
#define ZN_MLX5_F_MKC_MKEY_7_0                               0x0038,    8	/* mkey_7_0: dword 0x04 [7:0] */
#define ZN_MLX5_F_MKC_LENGTH64                               0x0060,    1	/* length64: dword 0x0c [31] */
#define ZN_MLX5_F_MKC_PD                                     0x0068,   24	/* pd: dword 0x0c [23:0] */
#define ZN_MLX5_F_MKC_START_ADDR                             0x0080,   64	/* start_addr: byte 0x10, 8 bytes */
#define ZN_MLX5_F_MKC_LEN                                    0x00c0,   64	/* len: byte 0x18, 8 bytes */
#define ZN_MLX5_F_MKC_TRANSLATIONS_OCTWORD_SIZE              0x01a0,   32	/* translations_octword_size: dword 0x34 [31:0] */
#define ZN_MLX5_F_MKC_LOG_PAGE_SIZE                          0x01db,    5	/* log_page_size: dword 0x38 [4:0] */

/* mlx5_ifc_access_register_in_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_ACCESS_REG_IN_REGISTER_ID                  0x0050,   16	/* register_id: dword 0x08 [15:0] */
#define ZN_MLX5_F_ACCESS_REG_IN_ARGUMENT                     0x0060,   32	/* argument: dword 0x0c [31:0] */
#define ZN_MLX5_F_ACCESS_REG_IN_REGISTER_DATA                0x0080,    0	/* register_data: byte 0x10 (array start) */

/* mlx5_ifc_access_register_out_bits -- DPDK drivers/common/mlx5/mlx5_prm.h; rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_ACCESS_REG_OUT_REGISTER_DATA               0x0080,    0	/* register_data: byte 0x10 (array start) */

/* mlx5_ifc_paos_reg_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_PAOS_LOCAL_PORT                            0x0008,    8	/* local_port: dword 0x00 [23:16] */
#define ZN_MLX5_F_PAOS_ADMIN_STATUS                          0x0014,    4	/* admin_status: dword 0x00 [11:8] */
#define ZN_MLX5_F_PAOS_OPER_STATUS                           0x001c,    4	/* oper_status: dword 0x00 [3:0] */
#define ZN_MLX5_F_PAOS_ASE                                   0x0020,    1	/* ase: dword 0x04 [31] */

/* mlx5_ifc_pmtu_reg_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_PMTU_LOCAL_PORT                            0x0008,    8	/* local_port: dword 0x00 [23:16] */
#define ZN_MLX5_F_PMTU_MAX_MTU                               0x0020,   16	/* max_mtu: dword 0x04 [31:16] */
#define ZN_MLX5_F_PMTU_ADMIN_MTU                             0x0040,   16	/* admin_mtu: dword 0x08 [31:16] */
#define ZN_MLX5_F_PMTU_OPER_MTU                              0x0060,   16	/* oper_mtu: dword 0x0c [31:16] */

/* mlx5_ifc_eqe_hdr_bits -- Linux include/linux/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_EQE_EVENT_TYPE                             0x0008,    8	/* event_type: dword 0x00 [23:16] */
#define ZN_MLX5_F_EQE_EVENT_SUB_TYPE                         0x0018,    8	/* event_sub_type: dword 0x00 [7:0] */
#define ZN_MLX5_F_EQE_EVENT_DATA                             0x0100,  224	/* event_data: byte 0x20, 28 bytes */
#define ZN_MLX5_F_EQE_SIGNATURE                              0x01f0,    8	/* signature: dword 0x3c [15:8] */
#define ZN_MLX5_F_EQE_OWNER                                  0x01ff,    1	/* owner: dword 0x3c [0] */

/* mlx5_ifc_enable_hca_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DISABLE_HCA_IN_FUNCTION_ID                 0x0050,   16	/* function_id: dword 0x08 [15:0] */

/* mlx5_ifc_destroy_tir_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_TIR_IN_TIRN                        0x0048,   24	/* tirn: dword 0x08 [23:0] */

/* mlx5_ifc_destroy_tis_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_TIS_IN_TISN                        0x0048,   24	/* tisn: dword 0x08 [23:0] */

/* mlx5_ifc_destroy_rq_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_RQ_IN_RQN                          0x0048,   24	/* rqn: dword 0x08 [23:0] */

/* mlx5_ifc_destroy_rqt_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_RQT_IN_RQTN                        0x0048,   24	/* rqtn: dword 0x08 [23:0] */

/* mlx5_ifc_dealloc_uar_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DEALLOC_UAR_IN_UAR                         0x0048,   24	/* uar: dword 0x08 [23:0] */

/* mlx5_ifc_dealloc_transport_domain_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DEALLOC_TD_IN_TRANSPORT_DOMAIN             0x0048,   24	/* transport_domain: dword 0x08 [23:0] */

/* mlx5_ifc_destroy_mkey_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_MKEY_IN_MKEY_INDEX                 0x0048,   24	/* mkey_index: dword 0x08 [23:0] */

/* mlx5_ifc_destroy_flow_table_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_FT_IN_TABLE_TYPE                   0x0080,    8	/* table_type: dword 0x10 [31:24] */
#define ZN_MLX5_F_DESTROY_FT_IN_TABLE_ID                     0x00a8,   24	/* table_id: dword 0x14 [23:0] */

/* mlx5_ifc_destroy_flow_group_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DESTROY_FG_IN_TABLE_TYPE                   0x0080,    8	/* table_type: dword 0x10 [31:24] */
#define ZN_MLX5_F_DESTROY_FG_IN_TABLE_ID                     0x00a8,   24	/* table_id: dword 0x14 [23:0] */
#define ZN_MLX5_F_DESTROY_FG_IN_GROUP_ID                     0x00c0,   32	/* group_id: dword 0x18 [31:0] */

/* mlx5_ifc_delete_fte_in_bits -- rdma-core providers/mlx5/mlx5_ifc.h */
#define ZN_MLX5_F_DELETE_FTE_IN_TABLE_TYPE                   0x0080,    8	/* table_type: dword 0x10 [31:24] */
#define ZN_MLX5_F_DELETE_FTE_IN_TABLE_ID                     0x00a8,   24	/* table_id: dword 0x14 [23:0] */
#define ZN_MLX5_F_DELETE_FTE_IN_FLOW_INDEX                   0x0100,   32	/* flow_index: dword 0x20 [31:0] */

/* ======================================================================
 * Completion queue entries [L-DEV] struct mlx5_cqe64 (with the SHAMPO
 * union), struct mlx5_err_cqe, MLX5_CQE_*; [RC] mlx5dv.h; [DPDK] struct
 * mlx5_cqe
 * ====================================================================== */

#define ZN_MLX5_CQE_SIZE		64
#define ZN_MLX5_CQE_SZ_64		0	/* cqc.cqe_sz */
#define ZN_MLX5_CQE_SZ_128		1
#define ZN_MLX5_CQ_CI_MASK		0x00ffffffu

/* op_own [7:4] opcode */
#define ZN_MLX5_CQE_REQ			0x0	/* send completed */
#define ZN_MLX5_CQE_RESP_WR_IMM		0x1
#define ZN_MLX5_CQE_RESP_SEND		0x2	/* receive completed */
#define ZN_MLX5_CQE_RESP_SEND_IMM	0x3
#define ZN_MLX5_CQE_RESP_SEND_INV	0x4
#define ZN_MLX5_CQE_RESIZE_CQ		0x5
#define ZN_MLX5_CQE_SIG_ERR		0xc
#define ZN_MLX5_CQE_REQ_ERR		0xd	/* send failed: struct zn_mlx5_err_cqe */
#define ZN_MLX5_CQE_RESP_ERR		0xe	/* receive failed: struct zn_mlx5_err_cqe */
#define ZN_MLX5_CQE_INVALID		0xf	/* never written by hardware */
#define ZN_MLX5_CQE_OP_OWN_INIT		0xf1	/* software's initial op_own: INVALID, owner 1 */
/* op_own [3:2] format: 0 = plain CQE, 3 = compressed session title */
#define ZN_MLX5_CQE_FORMAT_COMPRESSED	3

/* error CQE syndrome [RC] MLX5_CQE_SYNDROME_* */
#define ZN_MLX5_CQE_SYND_LOCAL_LENGTH_ERR	0x01
#define ZN_MLX5_CQE_SYND_LOCAL_QP_OP_ERR	0x02
#define ZN_MLX5_CQE_SYND_LOCAL_PROT_ERR		0x04
#define ZN_MLX5_CQE_SYND_WR_FLUSH_ERR		0x05
#define ZN_MLX5_CQE_SYND_MW_BIND_ERR		0x06
#define ZN_MLX5_CQE_SYND_BAD_RESP_ERR		0x10
#define ZN_MLX5_CQE_SYND_LOCAL_ACCESS_ERR	0x11

/* hds_ip_ext bits */
#define ZN_MLX5_CQE_L2_OK		(1u << 0)
#define ZN_MLX5_CQE_L3_OK		(1u << 1)	/* IPv4 header checksum good; IPv6 header parsed */
#define ZN_MLX5_CQE_L4_OK		(1u << 2)	/* TCP/UDP checksum good */
/* l4_l3_hdr_type: [6:4] L4 type, [3:2] L3 type, [0] VLAN present */
#define ZN_MLX5_CQE_L4_HDR_SHIFT	4
#define ZN_MLX5_CQE_L4_HDR_MASK		0x7
#define ZN_MLX5_CQE_L4_NONE		0
#define ZN_MLX5_CQE_L4_TCP_NO_ACK	1
#define ZN_MLX5_CQE_L4_UDP		2
#define ZN_MLX5_CQE_L4_TCP_ACK_NO_DATA	3
#define ZN_MLX5_CQE_L4_TCP_ACK_AND_DATA	4
#define ZN_MLX5_CQE_L3_HDR_SHIFT	2
#define ZN_MLX5_CQE_L3_HDR_MASK		0x3
#define ZN_MLX5_CQE_L3_NONE		0
#define ZN_MLX5_CQE_L3_IPV6		1
#define ZN_MLX5_CQE_L3_IPV4		2
#define ZN_MLX5_CQE_VLAN_PRESENT	(1u << 0)
/* rss_hash_type: [3:2] IP kind hashed, [7:6] L4 kind hashed [L-DEV] CQE_RSS_* */
#define ZN_MLX5_CQE_RSS_IP_SHIFT	2
#define ZN_MLX5_CQE_RSS_L4_SHIFT	6
#define ZN_MLX5_CQE_RSS_IP_NONE		0
#define ZN_MLX5_CQE_RSS_IPV4		1
#define ZN_MLX5_CQE_RSS_IPV6		2
#define ZN_MLX5_CQE_RSS_L4_NONE		0
#define ZN_MLX5_CQE_RSS_L4_TCP		1
#define ZN_MLX5_CQE_RSS_L4_UDP		2
#define ZN_MLX5_CQE_RSS_L4_IPSEC	3
/* shampo flags byte (offset 4) [L-DEV] SHAMPO patch: bit-fields declared
 * reserved0:1, match:1, flush:1 on a little-endian host, i.e. these bits. */
#define ZN_MLX5_CQE_SHAMPO_MATCH	(1u << 1)	/* continues the open session */
#define ZN_MLX5_CQE_SHAMPO_FLUSH	(1u << 2)	/* session closes after this packet */
/* byte_cnt in a striding RQ CQE [L-DEV] MLX5_MPWRQ_* */
#define ZN_MLX5_MPWRQ_FILLER_CQE	(UINT32_C(1) << 31)	/* consumed strides, no packet */
#define ZN_MLX5_MPWRQ_STRIDES_SHIFT	16
#define ZN_MLX5_MPWRQ_STRIDES_MASK	0x7fffu
#define ZN_MLX5_MPWRQ_LEN_MASK		0xffffu
/* sop_drop_qpn: RX [23:0] flow tag of the matching FTE; TX [31:24] opcode
 * of the completed WQE */
#define ZN_MLX5_CQE_FLOW_TAG_MASK	0x00ffffffu

/* The 64-byte CQE, big-endian fields. */
struct zn_mlx5_cqe64 {
	uint8_t  tls_outer_l3_tunneled;		/* 0x00 */
	uint8_t  rsvd0;
	uint16_t wqe_id_be;			/* 0x02 striding RQ: WQE index */
	union {
		struct {
			uint8_t  tcppsh_abort_dupack;
			uint8_t  min_ttl;
			uint16_t tcp_win_be;
			uint32_t ack_seq_num_be;
		} lro;
		struct {
			uint8_t  flags;			/* 0x04 MATCH / FLUSH */
			uint8_t  header_size;		/* 0x05 bytes in the header entry */
			uint16_t header_entry_index_be;	/* 0x06 mod header ring size */
			uint32_t data_offset_be;	/* 0x08 payload offset in the WQE buffer */
		} shampo;
	};
	uint32_t rss_hash_result_be;		/* 0x0c */
	uint8_t  rss_hash_type;			/* 0x10 */
	uint8_t  ml_path;
	uint8_t  rsvd20[2];
	uint16_t check_sum_be;			/* 0x14 sum of the IP packet ([L] en_rx.c CHECKSUM_COMPLETE) */
	uint16_t slid_be;
	uint32_t flags_rqpn_be;			/* 0x18 */
	uint8_t  hds_ip_ext;			/* 0x1c L2/L3/L4 OK */
	uint8_t  l4_l3_hdr_type;		/* 0x1d */
	uint16_t vlan_info_be;			/* 0x1e */
	uint32_t srqn_be;			/* 0x20 [31:24] lro_num_seg, [23:0] user index */
	uint32_t imm_inval_pkey_be;		/* 0x24 (flow table metadata) */
	uint8_t  app;
	uint8_t  app_op;
	uint16_t app_info_be;
	uint32_t byte_cnt_be;			/* 0x2c */
	uint64_t timestamp_be;			/* 0x30 */
	uint32_t sop_drop_qpn_be;		/* 0x38 */
	uint16_t wqe_counter_be;		/* 0x3c WQE index / stride index */
	uint8_t  signature;			/* 0x3e */
	uint8_t  op_own;			/* 0x3f [7:4] opcode, [3:2] format, [0] owner */
};

/* The same 64 bytes when the opcode is REQ_ERR or RESP_ERR. */
struct zn_mlx5_err_cqe {
	uint8_t  rsvd0[32];
	uint32_t srqn_be;			/* 0x20 */
	uint8_t  rsvd1[18];
	uint8_t  vendor_err_synd;		/* 0x36 */
	uint8_t  syndrome;			/* 0x37 ZN_MLX5_CQE_SYND_* */
	uint32_t s_wqe_opcode_qpn_be;		/* 0x38 [31:24] WQE opcode, [23:0] queue */
	uint16_t wqe_counter_be;		/* 0x3c failing WQE */
	uint8_t  signature;
	uint8_t  op_own;
};

static inline unsigned zn_mlx5_cqe_opcode(const struct zn_mlx5_cqe64 *c)
{
	return c->op_own >> 4;
}

/* The CQE at consumer counter ci of a 2^log_sz ring is software's when its
 * owner bit equals the wrap parity of ci and it is not INVALID ([RC]
 * cq.c, [DPDK] check_cqe). Read the rest only after a read barrier. */
static inline bool zn_mlx5_cqe_sw_owned(const struct zn_mlx5_cqe64 *c, uint32_t ci,
					unsigned log_sz)
{
	return (c->op_own & 1) == ((ci >> log_sz) & 1) &&
	       zn_mlx5_cqe_opcode(c) != ZN_MLX5_CQE_INVALID;
}

/* The owner bit hardware writes into the CQE it produces at producer
 * counter pi of a 2^log_sz ring. */
static inline uint8_t zn_mlx5_cqe_hw_owner(uint32_t pi, unsigned log_sz)
{
	return (uint8_t)((pi >> log_sz) & 1);
}

/* CQ doorbell record (8 bytes at cqc.dbr_addr): dword 0 = consumer counter,
 * dword 1 = arm word. Both big-endian. */
#define ZN_MLX5_CQ_DBR_SET_CI		0
#define ZN_MLX5_CQ_DBR_ARM		1
#define ZN_MLX5_CQ_DB_REQ_NOT		(0u << 24)	/* arm: next completion */
#define ZN_MLX5_CQ_DB_REQ_NOT_SOL	(1u << 24)	/* arm: solicited only */
#define ZN_MLX5_CQ_DB_CMD_MASK		(0xfu << 24)	/* [27:24]; sn at [29:28] */
#define ZN_MLX5_CQ_DB_SN_SHIFT		28

/* Arm word (dbrec dword 1, and the high half of the UAR + 0x20 write). */
static inline uint32_t zn_mlx5_cq_arm_word(unsigned sn, uint32_t cmd, uint32_t ci)
{
	return (uint32_t)(sn & 3) << ZN_MLX5_CQ_DB_SN_SHIFT | cmd | (ci & ZN_MLX5_CQ_CI_MASK);
}

/* The 64-bit value stored big-endian at UAR + 0x20 to arm CQ cqn. */
static inline uint64_t zn_mlx5_cq_uar_doorbell(uint32_t arm_word, uint32_t cqn)
{
	return (uint64_t)arm_word << 32 | (cqn & 0xffffff);
}

/* ======================================================================
 * Work queue entries [L-QP] struct mlx5_wqe_ctrl_seg, mlx5_wqe_eth_seg,
 * mlx5_wqe_data_seg, mlx5_wqe_srq_next_seg; [RC] mlx5dv.h; [DPDK]
 * mlx5_prm.h
 * ====================================================================== */

#define ZN_MLX5_SEND_WQE_BB		64	/* send WQE basic block */
#define ZN_MLX5_SEND_WQE_SHIFT		6
#define ZN_MLX5_WQE_DS_SIZE		16	/* "DS": the 16-byte unit of qpn_ds */
#define ZN_MLX5_WQE_MAX_DS		63
#define ZN_MLX5_WQE_CTRL_DS_MASK	0x3f

/* ctrl opmod_idx_opcode [7:0] opcode */
#define ZN_MLX5_OPCODE_NOP		0x00
#define ZN_MLX5_OPCODE_SEND		0x0a
#define ZN_MLX5_OPCODE_LSO		0x0e	/* MLX5_OPCODE_TSO */
/* ctrl fm_ce_se */
#define ZN_MLX5_WQE_CTRL_SOLICITED	(1u << 1)
#define ZN_MLX5_WQE_CTRL_CQ_UPDATE	(2u << 2)	/* always write a CQE */
#define ZN_MLX5_WQE_CTRL_CE_MASK	(3u << 2)	/* 0 = CQE only on error */
/* eth cs_flags */
#define ZN_MLX5_ETH_WQE_L3_CSUM		(1u << 6)
#define ZN_MLX5_ETH_WQE_L4_CSUM		(1u << 7)
#define ZN_MLX5_ETH_WQE_L3_INNER_CSUM	(1u << 4)
#define ZN_MLX5_ETH_WQE_L4_INNER_CSUM	(1u << 5)
/* data segment */
#define ZN_MLX5_INLINE_SEG		(UINT32_C(1) << 31)	/* byte_count flag: bytes follow */
#define ZN_MLX5_INVALID_LKEY		0x100	/* ends a shorter RX scatter list */
/* Inline header bytes that fit in the eth segment itself. */
#define ZN_MLX5_ETH_INLINE_START	2
#define ZN_MLX5_ETH_L2_INLINE_MIN	18	/* Ethernet + VLAN ([DPDK] MLX5_INLINE_HSIZE_L2) */

struct zn_mlx5_wqe_ctrl {
	uint32_t opmod_idx_opcode_be;	/* [31:24] opmod, [23:8] wqe index, [7:0] opcode */
	uint32_t qpn_ds_be;		/* [31:8] sqn, [5:0] size in 16-byte units */
	uint8_t  signature;
	uint8_t  rsvd[2];
	uint8_t  fm_ce_se;
	uint32_t imm_be;
};

struct zn_mlx5_wqe_eth {
	uint32_t swp_offs_be;		/* software parser offsets; 0 */
	uint8_t  cs_flags;
	uint8_t  swp_flags;
	uint16_t mss_be;		/* LSO only */
	uint32_t metadata_be;
	uint16_t inline_hdr_sz_be;	/* bytes of packet headers copied inline */
	uint8_t  inline_hdr_start[ZN_MLX5_ETH_INLINE_START];	/* continues in the next DS */
};

struct zn_mlx5_wqe_data {
	uint32_t byte_count_be;
	uint32_t lkey_be;
	uint64_t addr_be;
};

/* First 16 bytes of a striding RQ WQE; one or more data segments follow. */
struct zn_mlx5_wqe_srq_next {
	uint8_t  rsvd0[2];
	uint16_t next_wqe_index_be;	/* linked-list RQ: index of the next WQE */
	uint8_t  signature;
	uint8_t  rsvd1[11];
};

struct zn_mlx5_mpwqe {
	struct zn_mlx5_wqe_srq_next next;
	struct zn_mlx5_wqe_data data;
};

static inline uint32_t zn_mlx5_ctrl_opmod_idx_opcode(uint8_t opmod, uint16_t idx, uint8_t opcode)
{
	return (uint32_t)opmod << 24 | (uint32_t)idx << 8 | opcode;
}

static inline uint32_t zn_mlx5_ctrl_qpn_ds(uint32_t sqn, unsigned ds)
{
	return (sqn & 0xffffff) << 8 | (ds & ZN_MLX5_WQE_CTRL_DS_MASK);
}

/* Work queue doorbell record (8 bytes at wq.dbr_addr): an RQ's receive
 * counter is dword 0, an SQ's send counter dword 1; both big-endian, 16-bit
 * counters zero-extended ([RC] MLX5_RCV_DBR / MLX5_SND_DBR). */
#define ZN_MLX5_RCV_DBR			0
#define ZN_MLX5_SND_DBR			1
#define ZN_MLX5_DBR_SIZE		8
#define ZN_MLX5_DBR_ALIGN		64	/* zcnic choice: one record per cache line */

/* RQT: rq_num[] follows the rqtc, one 32-bit entry per slot, rqn in
 * [23:0]; CREATE_RQT's input length is ZN_MLX5_SZ_CREATE_RQT_IN + 4 * n.
 * Every DESTROY_ / DEALLOC_ input is 16 bytes with the object number at
 * dword 0x08 [23:0] (EQ: [7:0]); flow table, group and entry deletes are
 * 64 bytes (their F_DESTROY_FT/FG, F_DELETE_FTE constants). */
#define ZN_MLX5_RQT_ENTRY_SIZE		4

/* ======================================================================
 * Layout sizes in bytes (mlx5_ifc struct size / 8; for commands with a
 * trailing page list, the size up to the list). Sources as for the fields.
 * ====================================================================== */

#define ZN_MLX5_SZ_ENABLE_HCA_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_ENABLE_HCA_OUT                        12	/* 0x60 bits */
#define ZN_MLX5_SZ_QUERY_ISSI_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_ISSI_OUT                       112	/* 0x380 bits */
#define ZN_MLX5_SZ_SET_ISSI_IN                           16	/* 0x80 bits */
#define ZN_MLX5_SZ_SET_ISSI_OUT                          16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_PAGES_IN                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_PAGES_OUT                       16	/* 0x80 bits */
#define ZN_MLX5_SZ_MANAGE_PAGES_IN                       16	/* 0x80 bits */
#define ZN_MLX5_SZ_MANAGE_PAGES_OUT                      16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_HCA_CAP_IN                      16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_HCA_CAP_OUT                   4112	/* 0x8080 bits */
#define ZN_MLX5_SZ_SET_HCA_CAP_IN                      4112	/* 0x8080 bits */
#define ZN_MLX5_SZ_SET_HCA_CAP_OUT                       16	/* 0x80 bits */
#define ZN_MLX5_SZ_INIT_HCA_IN                           16	/* 0x80 bits */
#define ZN_MLX5_SZ_INIT_HCA_OUT                          16	/* 0x80 bits */
#define ZN_MLX5_SZ_TEARDOWN_HCA_IN                       16	/* 0x80 bits */
#define ZN_MLX5_SZ_TEARDOWN_HCA_OUT                      16	/* 0x80 bits */
#define ZN_MLX5_SZ_ALLOC_UAR_IN                          16	/* 0x80 bits */
#define ZN_MLX5_SZ_ALLOC_UAR_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_DEALLOC_UAR_IN                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_ALLOC_PD_IN                           16	/* 0x80 bits */
#define ZN_MLX5_SZ_ALLOC_PD_OUT                          16	/* 0x80 bits */
#define ZN_MLX5_SZ_DEALLOC_PD_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_ALLOC_TD_IN                           16	/* 0x80 bits */
#define ZN_MLX5_SZ_ALLOC_TD_OUT                          16	/* 0x80 bits */
#define ZN_MLX5_SZ_CREATE_EQ_IN                         272	/* 0x880 bits */
#define ZN_MLX5_SZ_CREATE_EQ_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_DESTROY_EQ_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_EQC                                   64	/* 0x200 bits */
#define ZN_MLX5_SZ_CREATE_CQ_IN                         272	/* 0x880 bits */
#define ZN_MLX5_SZ_CREATE_CQ_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_DESTROY_CQ_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_CQC                                   64	/* 0x200 bits */
#define ZN_MLX5_SZ_CREATE_SQ_IN                         272	/* 0x880 bits */
#define ZN_MLX5_SZ_CREATE_SQ_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_MODIFY_SQ_IN                         272	/* 0x880 bits */
#define ZN_MLX5_SZ_MODIFY_SQ_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_DESTROY_SQ_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_SQC                                  240	/* 0x780 bits */
#define ZN_MLX5_SZ_CREATE_RQ_IN                         272	/* 0x880 bits */
#define ZN_MLX5_SZ_CREATE_RQ_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_MODIFY_RQ_IN                         272	/* 0x880 bits */
#define ZN_MLX5_SZ_DESTROY_RQ_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_RQC                                  240	/* 0x780 bits */
#define ZN_MLX5_SZ_WQ                                   192	/* 0x600 bits */
#define ZN_MLX5_SZ_CREATE_TIS_IN                        192	/* 0x600 bits */
#define ZN_MLX5_SZ_CREATE_TIS_OUT                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_DESTROY_TIS_IN                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_TISC                                 160	/* 0x500 bits */
#define ZN_MLX5_SZ_CREATE_TIR_IN                        272	/* 0x880 bits */
#define ZN_MLX5_SZ_CREATE_TIR_OUT                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_DESTROY_TIR_IN                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_TIRC                                 240	/* 0x780 bits */
#define ZN_MLX5_SZ_CREATE_RQT_IN                        272	/* 0x880 bits */
#define ZN_MLX5_SZ_CREATE_RQT_OUT                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_DESTROY_RQT_IN                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_RQTC                                 240	/* 0x780 bits */
#define ZN_MLX5_SZ_CREATE_FT_IN                          64	/* 0x200 bits */
#define ZN_MLX5_SZ_CREATE_FT_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_FTC                                   40	/* 0x140 bits */
#define ZN_MLX5_SZ_CREATE_FG_IN                        1024	/* 0x2000 bits */
#define ZN_MLX5_SZ_CREATE_FG_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_SET_FTE_IN                           832	/* 0x1a00 bits */
#define ZN_MLX5_SZ_SET_FTE_OUT                           16	/* 0x80 bits */
#define ZN_MLX5_SZ_FLOW_CONTEXT                         768	/* 0x1800 bits */
#define ZN_MLX5_SZ_MATCH_PARAM                          512	/* 0x1000 bits */
#define ZN_MLX5_SZ_MATCH_LYR_2_4                         64	/* 0x200 bits */
#define ZN_MLX5_SZ_DEST_FORMAT                            8	/* 0x40 bits */
#define ZN_MLX5_SZ_SET_FT_ROOT_IN                        64	/* 0x200 bits */
#define ZN_MLX5_SZ_QUERY_VPORT_STATE_IN                  16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_VPORT_STATE_OUT                 16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_NIC_VPORT_IN                    16	/* 0x80 bits */
#define ZN_MLX5_SZ_QUERY_NIC_VPORT_OUT                  272	/* 0x880 bits */
#define ZN_MLX5_SZ_MODIFY_NIC_VPORT_IN                  512	/* 0x1000 bits */
#define ZN_MLX5_SZ_MODIFY_NIC_VPORT_OUT                  16	/* 0x80 bits */
#define ZN_MLX5_SZ_NIC_VPORT_CONTEXT                    256	/* 0x800 bits */
#define ZN_MLX5_SZ_CREATE_MKEY_IN                       272	/* 0x880 bits */
#define ZN_MLX5_SZ_CREATE_MKEY_OUT                       16	/* 0x80 bits */
#define ZN_MLX5_SZ_MKC                                   64	/* 0x200 bits */
#define ZN_MLX5_SZ_ACCESS_REGISTER_IN                    16	/* 0x80 bits */
#define ZN_MLX5_SZ_ACCESS_REGISTER_OUT                   16	/* 0x80 bits */
#define ZN_MLX5_SZ_PAOS_REG                              16	/* 0x80 bits */
#define ZN_MLX5_SZ_PMTU_REG                              16	/* 0x80 bits */
#define ZN_MLX5_SZ_CMD_HCA_CAP                          256	/* 0x800 bits */
#define ZN_MLX5_SZ_ETH_OFFLOAD_CAPS                     256	/* 0x800 bits */
#define ZN_MLX5_SZ_SHAMPO_CAP                           256	/* 0x800 bits */
#define ZN_MLX5_SZ_DISABLE_HCA_IN                        16	/* 0x80 bits */
#define ZN_MLX5_SZ_DISABLE_HCA_OUT                       12	/* 0x60 bits */
#define ZN_MLX5_SZ_DESTROY_FT_IN                         64	/* 0x200 bits */
#define ZN_MLX5_SZ_DESTROY_FG_IN                         64	/* 0x200 bits */
#define ZN_MLX5_SZ_DELETE_FTE_IN                         64	/* 0x200 bits */
#define ZN_MLX5_SZ_DESTROY_MKEY_IN                       16	/* 0x80 bits */
#define ZN_MLX5_SZ_DEALLOC_TD_IN                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_MODIFY_RQ_OUT                         16	/* 0x80 bits */
#define ZN_MLX5_SZ_GENERIC_OUT                           16	/* status, syndrome, one dword */

/* ======================================================================
 * Compile-time checks
 * ====================================================================== */

/* Every field constant, in PRM table form (see ZN_MLX5_ASSERT_DW). */
ZN_MLX5_ASSERT_DW(INIT_SEG_FW_REV_MINOR, 0x00, 31, 16);
ZN_MLX5_ASSERT_DW(INIT_SEG_FW_REV_MAJOR, 0x00, 15, 16);
ZN_MLX5_ASSERT_DW(INIT_SEG_CMD_INTERFACE_REV, 0x04, 31, 16);
ZN_MLX5_ASSERT_DW(INIT_SEG_FW_REV_SUBMINOR, 0x04, 15, 16);
ZN_MLX5_ASSERT_DW(INIT_SEG_CMDQ_PHY_ADDR_HI, 0x10, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_CMDQ_PHY_ADDR_LO, 0x14, 31, 20);
ZN_MLX5_ASSERT_DW(INIT_SEG_NIC_INTERFACE, 0x14, 9, 2);
ZN_MLX5_ASSERT_DW(INIT_SEG_LOG_CMDQ_SIZE, 0x14, 7, 4);
ZN_MLX5_ASSERT_DW(INIT_SEG_LOG_CMDQ_STRIDE, 0x14, 3, 4);
ZN_MLX5_ASSERT_DW(INIT_SEG_CMD_DOORBELL_VECTOR, 0x18, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_INITIALIZING, 0x1fc, 31, 1);
ZN_MLX5_ASSERT_DW(INIT_SEG_NIC_INTERFACE_SUPPORTED, 0x1fc, 26, 3);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_ASSERT_EXIT_PTR, 0x220, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_ASSERT_CALLRA, 0x224, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_FW_VERSION, 0x230, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_HW_ID, 0x234, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_IRISC_INDEX, 0x23c, 31, 8);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_SYND, 0x23c, 23, 8);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_EXT_SYND, 0x23c, 15, 16);
ZN_MLX5_ASSERT_DW(INIT_SEG_INTERNAL_TIMER_H, 0x1000, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_INTERNAL_TIMER_L, 0x1004, 31, 32);
ZN_MLX5_ASSERT_DW(INIT_SEG_CLEAR_INT, 0x100c, 0, 1);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_SYNDROME, 0x1010, 31, 8);
ZN_MLX5_ASSERT_DW(INIT_SEG_HEALTH_COUNTER, 0x1010, 23, 24);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_TYPE, 0x00, 31, 8);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_INPUT_LENGTH, 0x04, 31, 32);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_IN_PTR_HI, 0x08, 31, 32);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_IN_PTR_LO, 0x0c, 31, 23);
ZN_MLX5_ASSERT_BYTE(CMD_ENTRY_IN_INLINE, 0x10, 128);
ZN_MLX5_ASSERT_BYTE(CMD_ENTRY_OUT_INLINE, 0x20, 128);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_OUT_PTR_HI, 0x30, 31, 32);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_OUT_PTR_LO, 0x34, 31, 23);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_OUTPUT_LENGTH, 0x38, 31, 32);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_TOKEN, 0x3c, 31, 8);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_SIGNATURE, 0x3c, 23, 8);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_STATUS, 0x3c, 7, 7);
ZN_MLX5_ASSERT_DW(CMD_ENTRY_OWNERSHIP, 0x3c, 0, 1);
ZN_MLX5_ASSERT_BYTE(MBOX_DATA, 0x0, 4096);
ZN_MLX5_ASSERT_DW(MBOX_NEXT_HI, 0x230, 31, 32);
ZN_MLX5_ASSERT_DW(MBOX_NEXT_LO, 0x234, 31, 22);
ZN_MLX5_ASSERT_DW(MBOX_BLOCK_NUMBER, 0x238, 31, 32);
ZN_MLX5_ASSERT_DW(MBOX_TOKEN, 0x23c, 23, 8);
ZN_MLX5_ASSERT_DW(MBOX_CTRL_SIGNATURE, 0x23c, 15, 8);
ZN_MLX5_ASSERT_DW(MBOX_SIGNATURE, 0x23c, 7, 8);
ZN_MLX5_ASSERT_DW(IN_OPCODE, 0x00, 31, 16);
ZN_MLX5_ASSERT_DW(IN_UID, 0x00, 15, 16);
ZN_MLX5_ASSERT_DW(IN_OP_MOD, 0x04, 15, 16);
ZN_MLX5_ASSERT_DW(OUT_STATUS, 0x00, 31, 8);
ZN_MLX5_ASSERT_DW(OUT_SYNDROME, 0x04, 31, 32);
ZN_MLX5_ASSERT_DW(ENABLE_HCA_IN_FUNCTION_ID, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(QUERY_ISSI_OUT_CURRENT_ISSI, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(QUERY_ISSI_OUT_SUPPORTED_ISSI, 0x6c, 31, 32);
ZN_MLX5_ASSERT_DW(SET_ISSI_IN_CURRENT_ISSI, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(QUERY_PAGES_OUT_FUNCTION_ID, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(QUERY_PAGES_OUT_NUM_PAGES, 0x0c, 31, 32);
ZN_MLX5_ASSERT_DW(QUERY_PAGES_IN_FUNCTION_ID, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(MANAGE_PAGES_IN_FUNCTION_ID, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 0x0c, 31, 32);
ZN_MLX5_ASSERT_BYTE(MANAGE_PAGES_IN_PAS, 0x10, 0);
ZN_MLX5_ASSERT_DW(MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES, 0x08, 31, 32);
ZN_MLX5_ASSERT_BYTE(MANAGE_PAGES_OUT_PAS, 0x10, 0);
ZN_MLX5_ASSERT_BYTE(QUERY_HCA_CAP_OUT_CAPABILITY, 0x10, 32768);
ZN_MLX5_ASSERT_BYTE(SET_HCA_CAP_IN_CAPABILITY, 0x10, 32768);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_CQ_SZ, 0x18, 23, 8);
ZN_MLX5_ASSERT_DW(CAP_SHAMPO, 0x14, 5, 1);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_CQ, 0x18, 4, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_EQ_SZ, 0x1c, 31, 8);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_MKEY, 0x1c, 21, 6);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_EQ, 0x1c, 3, 4);
ZN_MLX5_ASSERT_DW(CAP_FAST_TEARDOWN, 0x20, 14, 1);
ZN_MLX5_ASSERT_DW(CAP_PORT_TYPE, 0x34, 9, 2);
ZN_MLX5_ASSERT_DW(CAP_NUM_PORTS, 0x34, 7, 8);
ZN_MLX5_ASSERT_DW(CAP_STRIDING_RQ, 0x40, 30, 1);
ZN_MLX5_ASSERT_DW(CAP_CMDIF_CHECKSUM, 0x40, 15, 2);
ZN_MLX5_ASSERT_DW(CAP_ETH_NET_OFFLOADS, 0x40, 3, 1);
ZN_MLX5_ASSERT_DW(CAP_CQE_VERSION, 0x3c, 3, 4);
ZN_MLX5_ASSERT_DW(CAP_UAR_4K, 0x48, 31, 1);
ZN_MLX5_ASSERT_DW(CAP_LOG_BF_REG_SIZE, 0x4c, 20, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_TRANSPORT_DOMAIN, 0x64, 28, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_PD, 0x64, 20, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_RQ, 0x6c, 28, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_SQ, 0x6c, 20, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_TIR, 0x6c, 12, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_TIS, 0x6c, 4, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_RQT, 0x70, 20, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_RQT_SIZE, 0x70, 12, 5);
ZN_MLX5_ASSERT_DW(CAP_EXT_STRIDE_NUM_RANGE, 0x74, 31, 1);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_STRIDE_SZ_RQ, 0x74, 28, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MIN_STRIDE_SZ_RQ, 0x74, 20, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_MAX_WQ_SZ, 0x78, 4, 5);
ZN_MLX5_ASSERT_DW(CAP_LOG_UAR_PAGE_SZ, 0x90, 15, 16);
ZN_MLX5_ASSERT_DW(CAP_NIC_FLOW_TABLE, 0x34, 25, 1);
ZN_MLX5_ASSERT_DW(CAP_CQE_COMPRESSION, 0xb4, 0, 1);
ZN_MLX5_ASSERT_DW(ETH_CAP_CSUM_CAP, 0x00, 31, 1);
ZN_MLX5_ASSERT_DW(ETH_CAP_LRO_CAP, 0x00, 29, 1);
ZN_MLX5_ASSERT_DW(ETH_CAP_MAX_LSO_CAP, 0x00, 20, 5);
ZN_MLX5_ASSERT_DW(ETH_CAP_WQE_INLINE_MODE, 0x00, 13, 2);
ZN_MLX5_ASSERT_DW(ETH_CAP_RSS_IND_TBL_CAP, 0x00, 11, 4);
ZN_MLX5_ASSERT_DW(ETH_CAP_MULTI_PKT_SEND_WQE, 0x00, 15, 2);
ZN_MLX5_ASSERT_DW(SHAMPO_CAP_LOG_MAX_RESERVATION_SIZE, 0x00, 28, 5);
ZN_MLX5_ASSERT_DW(SHAMPO_CAP_LOG_MIN_RESERVATION_SIZE, 0x00, 20, 5);
ZN_MLX5_ASSERT_DW(SHAMPO_CAP_MIN_MSS_SIZE, 0x00, 15, 16);
ZN_MLX5_ASSERT_DW(SHAMPO_CAP_MAX_LOG_HEADERS_ENTRY_SIZE, 0x04, 28, 5);
ZN_MLX5_ASSERT_DW(TEARDOWN_HCA_IN_PROFILE, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(TEARDOWN_HCA_OUT_STATE, 0x0c, 0, 1);
ZN_MLX5_ASSERT_DW(ALLOC_UAR_OUT_UAR, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(ALLOC_PD_OUT_PD, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(ALLOC_TD_OUT_TRANSPORT_DOMAIN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_OBJ_IN_ID, 0x08, 23, 24);
ZN_MLX5_ASSERT_BYTE(CREATE_EQ_IN_EQC, 0x10, 512);
ZN_MLX5_ASSERT_BYTE(CREATE_EQ_IN_EVENT_BITMASK, 0x58, 256);
ZN_MLX5_ASSERT_BYTE(CREATE_EQ_IN_PAS, 0x110, 0);
ZN_MLX5_ASSERT_DW(CREATE_EQ_OUT_EQ_NUMBER, 0x08, 7, 8);
ZN_MLX5_ASSERT_DW(DESTROY_EQ_IN_EQ_NUMBER, 0x08, 7, 8);
ZN_MLX5_ASSERT_DW(EQC_STATUS, 0x00, 31, 4);
ZN_MLX5_ASSERT_DW(EQC_EC, 0x00, 18, 1);
ZN_MLX5_ASSERT_DW(EQC_OI, 0x00, 17, 1);
ZN_MLX5_ASSERT_DW(EQC_ST, 0x00, 11, 4);
ZN_MLX5_ASSERT_DW(EQC_PAGE_OFFSET, 0x08, 11, 6);
ZN_MLX5_ASSERT_DW(EQC_LOG_EQ_SIZE, 0x0c, 28, 5);
ZN_MLX5_ASSERT_DW(EQC_UAR_PAGE, 0x0c, 23, 24);
ZN_MLX5_ASSERT_DW(EQC_INTR, 0x14, 7, 8);
ZN_MLX5_ASSERT_DW(EQC_LOG_PAGE_SIZE, 0x18, 28, 5);
ZN_MLX5_ASSERT_DW(EQC_CONSUMER_COUNTER, 0x28, 23, 24);
ZN_MLX5_ASSERT_DW(EQC_PRODUCER_COUNTER, 0x2c, 23, 24);
ZN_MLX5_ASSERT_BYTE(CREATE_CQ_IN_CQC, 0x10, 512);
ZN_MLX5_ASSERT_BYTE(CREATE_CQ_IN_PAS, 0x110, 0);
ZN_MLX5_ASSERT_BYTE(CREATE_CQ_IN_CQ_UMEM_OFFSET, 0x50, 64);
ZN_MLX5_ASSERT_DW(CREATE_CQ_IN_CQ_UMEM_ID, 0x58, 31, 32);
ZN_MLX5_ASSERT_DW(CREATE_CQ_IN_CQ_UMEM_VALID, 0x5c, 31, 1);
ZN_MLX5_ASSERT_DW(CREATE_CQ_OUT_CQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_CQ_IN_CQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(CQC_STATUS, 0x00, 31, 4);
ZN_MLX5_ASSERT_DW(CQC_DBR_UMEM_VALID, 0x00, 25, 1);
ZN_MLX5_ASSERT_DW(CQC_CQE_SZ, 0x00, 23, 3);
ZN_MLX5_ASSERT_DW(CQC_CC, 0x00, 20, 1);
ZN_MLX5_ASSERT_DW(CQC_SCQE_BREAK_MODERATION_EN, 0x00, 18, 1);
ZN_MLX5_ASSERT_DW(CQC_OI, 0x00, 17, 1);
ZN_MLX5_ASSERT_DW(CQC_CQ_PERIOD_MODE, 0x00, 16, 2);
ZN_MLX5_ASSERT_DW(CQC_CQE_COMP_EN, 0x00, 14, 1);
ZN_MLX5_ASSERT_DW(CQC_MINI_CQE_RES_FORMAT, 0x00, 13, 2);
ZN_MLX5_ASSERT_DW(CQC_ST, 0x00, 11, 4);
ZN_MLX5_ASSERT_DW(CQC_PAGE_OFFSET, 0x08, 11, 6);
ZN_MLX5_ASSERT_DW(CQC_DBR_UMEM_ID, 0x04, 31, 32);
ZN_MLX5_ASSERT_DW(CQC_LOG_CQ_SIZE, 0x0c, 28, 5);
ZN_MLX5_ASSERT_DW(CQC_UAR_PAGE, 0x0c, 23, 24);
ZN_MLX5_ASSERT_DW(CQC_CQ_PERIOD, 0x10, 27, 12);
ZN_MLX5_ASSERT_DW(CQC_CQ_MAX_COUNT, 0x10, 15, 16);
ZN_MLX5_ASSERT_DW(CQC_C_EQN, 0x14, 7, 8);
ZN_MLX5_ASSERT_DW(CQC_LOG_PAGE_SIZE, 0x18, 28, 5);
ZN_MLX5_ASSERT_DW(CQC_LAST_NOTIFIED_INDEX, 0x20, 23, 24);
ZN_MLX5_ASSERT_DW(CQC_LAST_SOLICIT_INDEX, 0x24, 23, 24);
ZN_MLX5_ASSERT_DW(CQC_CONSUMER_COUNTER, 0x28, 23, 24);
ZN_MLX5_ASSERT_DW(CQC_PRODUCER_COUNTER, 0x2c, 23, 24);
ZN_MLX5_ASSERT_BYTE(CQC_DBR_ADDR, 0x38, 64);
ZN_MLX5_ASSERT_BYTE(CREATE_SQ_IN_SQC, 0x20, 1920);
ZN_MLX5_ASSERT_DW(CREATE_SQ_OUT_SQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(MODIFY_SQ_IN_SQ_STATE, 0x08, 31, 4);
ZN_MLX5_ASSERT_DW(MODIFY_SQ_IN_SQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_BYTE(MODIFY_SQ_IN_MODIFY_BITMASK, 0x10, 64);
ZN_MLX5_ASSERT_BYTE(MODIFY_SQ_IN_SQC, 0x20, 1920);
ZN_MLX5_ASSERT_DW(DESTROY_SQ_IN_SQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(SQC_RLKY, 0x00, 31, 1);
ZN_MLX5_ASSERT_DW(SQC_CD_MASTER, 0x00, 30, 1);
ZN_MLX5_ASSERT_DW(SQC_FRE, 0x00, 29, 1);
ZN_MLX5_ASSERT_DW(SQC_FLUSH_IN_ERROR_EN, 0x00, 28, 1);
ZN_MLX5_ASSERT_DW(SQC_ALLOW_MULTI_PKT_SEND_WQE, 0x00, 27, 1);
ZN_MLX5_ASSERT_DW(SQC_MIN_WQE_INLINE_MODE, 0x00, 26, 3);
ZN_MLX5_ASSERT_DW(SQC_STATE, 0x00, 23, 4);
ZN_MLX5_ASSERT_DW(SQC_USER_INDEX, 0x04, 23, 24);
ZN_MLX5_ASSERT_DW(SQC_CQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(SQC_TIS_LST_SZ, 0x20, 31, 16);
ZN_MLX5_ASSERT_DW(SQC_TIS_NUM_0, 0x2c, 23, 24);
ZN_MLX5_ASSERT_BYTE(SQC_WQ, 0x30, 1536);
ZN_MLX5_ASSERT_BYTE(CREATE_RQ_IN_RQC, 0x20, 1920);
ZN_MLX5_ASSERT_DW(CREATE_RQ_OUT_RQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(MODIFY_RQ_IN_RQ_STATE, 0x08, 31, 4);
ZN_MLX5_ASSERT_DW(MODIFY_RQ_IN_RQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_BYTE(MODIFY_RQ_IN_MODIFY_BITMASK, 0x10, 64);
ZN_MLX5_ASSERT_BYTE(MODIFY_RQ_IN_RQC, 0x20, 1920);
ZN_MLX5_ASSERT_DW(RQC_RLKY, 0x00, 31, 1);
ZN_MLX5_ASSERT_DW(RQC_DELAY_DROP_EN, 0x00, 30, 1);
ZN_MLX5_ASSERT_DW(RQC_SCATTER_FCS, 0x00, 29, 1);
ZN_MLX5_ASSERT_DW(RQC_VSD, 0x00, 28, 1);
ZN_MLX5_ASSERT_DW(RQC_MEM_RQ_TYPE, 0x00, 27, 4);
ZN_MLX5_ASSERT_DW(RQC_STATE, 0x00, 23, 4);
ZN_MLX5_ASSERT_DW(RQC_FLUSH_IN_ERROR_EN, 0x00, 18, 1);
ZN_MLX5_ASSERT_DW(RQC_USER_INDEX, 0x04, 23, 24);
ZN_MLX5_ASSERT_DW(RQC_CQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(RQC_COUNTER_SET_ID, 0x0c, 31, 8);
ZN_MLX5_ASSERT_DW(RQC_RMPN, 0x10, 23, 24);
ZN_MLX5_ASSERT_DW(RQC_SHAMPO_NO_MATCH_ALIGNMENT_GRANULARITY, 0x24, 25, 2);
ZN_MLX5_ASSERT_DW(RQC_SHAMPO_MATCH_CRITERIA_TYPE, 0x24, 17, 2);
ZN_MLX5_ASSERT_DW(RQC_RESERVATION_TIMEOUT, 0x24, 15, 16);
ZN_MLX5_ASSERT_BYTE(RQC_WQ, 0x30, 1536);
ZN_MLX5_ASSERT_DW(WQ_WQ_TYPE, 0x00, 31, 4);
ZN_MLX5_ASSERT_DW(WQ_WQ_SIGNATURE, 0x00, 27, 1);
ZN_MLX5_ASSERT_DW(WQ_END_PADDING_MODE, 0x00, 26, 2);
ZN_MLX5_ASSERT_DW(WQ_PAGE_OFFSET, 0x04, 20, 5);
ZN_MLX5_ASSERT_DW(WQ_LWM, 0x04, 15, 16);
ZN_MLX5_ASSERT_DW(WQ_PD, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(WQ_UAR_PAGE, 0x0c, 23, 24);
ZN_MLX5_ASSERT_BYTE(WQ_DBR_ADDR, 0x10, 64);
ZN_MLX5_ASSERT_DW(WQ_HW_COUNTER, 0x18, 31, 32);
ZN_MLX5_ASSERT_DW(WQ_SW_COUNTER, 0x1c, 31, 32);
ZN_MLX5_ASSERT_DW(WQ_LOG_WQ_STRIDE, 0x20, 19, 4);
ZN_MLX5_ASSERT_DW(WQ_LOG_WQ_PG_SZ, 0x20, 12, 5);
ZN_MLX5_ASSERT_DW(WQ_LOG_WQ_SZ, 0x20, 4, 5);
ZN_MLX5_ASSERT_DW(WQ_DBR_UMEM_VALID, 0x24, 31, 1);
ZN_MLX5_ASSERT_DW(WQ_WQ_UMEM_VALID, 0x24, 30, 1);
ZN_MLX5_ASSERT_DW(WQ_LOG_WQE_NUM_OF_STRIDES, 0x24, 11, 4);
ZN_MLX5_ASSERT_DW(WQ_TWO_BYTE_SHIFT_EN, 0x24, 7, 1);
ZN_MLX5_ASSERT_DW(WQ_LOG_WQE_STRIDE_SIZE, 0x24, 2, 3);
ZN_MLX5_ASSERT_DW(WQ_DBR_UMEM_ID, 0x28, 31, 32);
ZN_MLX5_ASSERT_DW(WQ_WQ_UMEM_ID, 0x2c, 31, 32);
ZN_MLX5_ASSERT_BYTE(WQ_WQ_UMEM_OFFSET, 0x30, 64);
ZN_MLX5_ASSERT_DW(WQ_HEADERS_MKEY, 0x38, 31, 32);
ZN_MLX5_ASSERT_DW(WQ_SHAMPO_ENABLE, 0x3c, 31, 1);
ZN_MLX5_ASSERT_DW(WQ_LOG_RESERVATION_SIZE, 0x3c, 26, 3);
ZN_MLX5_ASSERT_DW(WQ_LOG_MAX_NUM_OF_PACKETS_PER_RESERVATION, 0x3c, 18, 3);
ZN_MLX5_ASSERT_DW(WQ_LOG_HEADERS_ENTRY_SIZE, 0x3c, 9, 2);
ZN_MLX5_ASSERT_DW(WQ_LOG_HEADERS_BUFFER_ENTRY_NUM, 0x3c, 3, 4);
ZN_MLX5_ASSERT_BYTE(CREATE_TIS_IN_TISC, 0x20, 1280);
ZN_MLX5_ASSERT_DW(CREATE_TIS_OUT_TISN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(TISC_PRIO, 0x00, 19, 4);
ZN_MLX5_ASSERT_DW(TISC_TRANSPORT_DOMAIN, 0x24, 23, 24);
ZN_MLX5_ASSERT_BYTE(CREATE_TIR_IN_TIRC, 0x20, 1920);
ZN_MLX5_ASSERT_DW(CREATE_TIR_OUT_TIRN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(TIRC_DISP_TYPE, 0x04, 31, 4);
ZN_MLX5_ASSERT_DW(TIRC_LRO_TIMEOUT_PERIOD_USECS, 0x10, 27, 16);
ZN_MLX5_ASSERT_DW(TIRC_LRO_ENABLE_MASK, 0x10, 11, 4);
ZN_MLX5_ASSERT_DW(TIRC_LRO_MAX_MSG_SZ, 0x10, 7, 8);
ZN_MLX5_ASSERT_DW(TIRC_INLINE_RQN, 0x1c, 23, 24);
ZN_MLX5_ASSERT_DW(TIRC_RX_HASH_SYMMETRIC, 0x20, 31, 1);
ZN_MLX5_ASSERT_DW(TIRC_TUNNELED_OFFLOAD_EN, 0x20, 29, 1);
ZN_MLX5_ASSERT_DW(TIRC_INDIRECT_TABLE, 0x20, 23, 24);
ZN_MLX5_ASSERT_DW(TIRC_RX_HASH_FN, 0x24, 31, 4);
ZN_MLX5_ASSERT_DW(TIRC_SELF_LB_BLOCK, 0x24, 25, 2);
ZN_MLX5_ASSERT_DW(TIRC_TRANSPORT_DOMAIN, 0x24, 23, 24);
ZN_MLX5_ASSERT_BYTE(TIRC_RX_HASH_TOEPLITZ_KEY, 0x28, 320);
ZN_MLX5_ASSERT_DW(TIRC_RX_HASH_FIELD_SELECTOR_OUTER, 0x50, 31, 32);
ZN_MLX5_ASSERT_DW(TIRC_RX_HASH_FIELD_SELECTOR_INNER, 0x54, 31, 32);
ZN_MLX5_ASSERT_DW(HASH_SEL_L3_PROT_TYPE, 0x00, 31, 1);
ZN_MLX5_ASSERT_DW(HASH_SEL_L4_PROT_TYPE, 0x00, 30, 1);
ZN_MLX5_ASSERT_DW(HASH_SEL_SELECTED_FIELDS, 0x00, 29, 30);
ZN_MLX5_ASSERT_BYTE(CREATE_RQT_IN_RQTC, 0x20, 1920);
ZN_MLX5_ASSERT_DW(CREATE_RQT_OUT_RQTN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(RQTC_RQT_MAX_SIZE, 0x14, 15, 16);
ZN_MLX5_ASSERT_DW(RQTC_RQT_ACTUAL_SIZE, 0x18, 15, 16);
ZN_MLX5_ASSERT_BYTE(RQTC_RQ_NUM, 0xf0, 0);
ZN_MLX5_ASSERT_DW(CREATE_FT_IN_TABLE_TYPE, 0x10, 31, 8);
ZN_MLX5_ASSERT_BYTE(CREATE_FT_IN_FTC, 0x18, 320);
ZN_MLX5_ASSERT_DW(CREATE_FT_OUT_TABLE_ID, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(FTC_TABLE_MISS_ACTION, 0x00, 27, 4);
ZN_MLX5_ASSERT_DW(FTC_LEVEL, 0x00, 23, 8);
ZN_MLX5_ASSERT_DW(FTC_LOG_SIZE, 0x00, 7, 8);
ZN_MLX5_ASSERT_DW(FTC_TABLE_MISS_ID, 0x04, 23, 24);
ZN_MLX5_ASSERT_DW(CREATE_FG_IN_TABLE_TYPE, 0x10, 31, 8);
ZN_MLX5_ASSERT_DW(CREATE_FG_IN_TABLE_ID, 0x14, 23, 24);
ZN_MLX5_ASSERT_DW(CREATE_FG_IN_START_FLOW_INDEX, 0x1c, 31, 32);
ZN_MLX5_ASSERT_DW(CREATE_FG_IN_END_FLOW_INDEX, 0x24, 31, 32);
ZN_MLX5_ASSERT_DW(CREATE_FG_IN_MATCH_CRITERIA_ENABLE, 0x3c, 7, 8);
ZN_MLX5_ASSERT_BYTE(CREATE_FG_IN_MATCH_CRITERIA, 0x40, 4096);
ZN_MLX5_ASSERT_DW(CREATE_FG_OUT_GROUP_ID, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(SET_FTE_IN_TABLE_TYPE, 0x10, 31, 8);
ZN_MLX5_ASSERT_DW(SET_FTE_IN_TABLE_ID, 0x14, 23, 24);
ZN_MLX5_ASSERT_DW(SET_FTE_IN_FLOW_INDEX, 0x20, 31, 32);
ZN_MLX5_ASSERT_BYTE(SET_FTE_IN_FLOW_CONTEXT, 0x40, 6144);
ZN_MLX5_ASSERT_DW(FLOW_CTX_GROUP_ID, 0x04, 31, 32);
ZN_MLX5_ASSERT_DW(FLOW_CTX_FLOW_TAG, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(FLOW_CTX_ACTION, 0x0c, 15, 16);
ZN_MLX5_ASSERT_DW(FLOW_CTX_DESTINATION_LIST_SIZE, 0x10, 23, 24);
ZN_MLX5_ASSERT_BYTE(FLOW_CTX_MATCH_VALUE, 0x40, 4096);
ZN_MLX5_ASSERT_BYTE(FLOW_CTX_DESTINATION, 0x300, 0);
ZN_MLX5_ASSERT_DW(DEST_TYPE, 0x00, 31, 8);
ZN_MLX5_ASSERT_DW(DEST_ID, 0x00, 23, 24);
ZN_MLX5_ASSERT_DW(SET_FT_ROOT_IN_TABLE_TYPE, 0x10, 31, 8);
ZN_MLX5_ASSERT_DW(SET_FT_ROOT_IN_TABLE_ID, 0x14, 23, 24);
ZN_MLX5_ASSERT_BYTE(MATCH_OUTER_HEADERS, 0x0, 512);
ZN_MLX5_ASSERT_BYTE(MATCH_MISC_PARAMETERS, 0x40, 512);
ZN_MLX5_ASSERT_BYTE(MATCH_INNER_HEADERS, 0x80, 512);
ZN_MLX5_ASSERT_DW(L24_SMAC_47_16, 0x00, 31, 32);
ZN_MLX5_ASSERT_DW(L24_SMAC_15_0, 0x04, 31, 16);
ZN_MLX5_ASSERT_DW(L24_ETHERTYPE, 0x04, 15, 16);
ZN_MLX5_ASSERT_DW(L24_DMAC_47_16, 0x08, 31, 32);
ZN_MLX5_ASSERT_DW(L24_DMAC_15_0, 0x0c, 31, 16);
ZN_MLX5_ASSERT_DW(L24_FIRST_VID, 0x0c, 11, 12);
ZN_MLX5_ASSERT_DW(L24_IP_PROTOCOL, 0x10, 31, 8);
ZN_MLX5_ASSERT_DW(L24_CVLAN_TAG, 0x10, 15, 1);
ZN_MLX5_ASSERT_DW(L24_FRAG, 0x10, 13, 1);
ZN_MLX5_ASSERT_DW(L24_IP_VERSION, 0x10, 12, 4);
ZN_MLX5_ASSERT_DW(L24_TCP_FLAGS, 0x10, 8, 9);
ZN_MLX5_ASSERT_DW(L24_TCP_SPORT, 0x14, 31, 16);
ZN_MLX5_ASSERT_DW(L24_TCP_DPORT, 0x14, 15, 16);
ZN_MLX5_ASSERT_DW(L24_UDP_SPORT, 0x1c, 31, 16);
ZN_MLX5_ASSERT_DW(L24_UDP_DPORT, 0x1c, 15, 16);
ZN_MLX5_ASSERT_BYTE(L24_SRC_IP, 0x20, 128);
ZN_MLX5_ASSERT_BYTE(L24_DST_IP, 0x30, 128);
ZN_MLX5_ASSERT_DW(QUERY_VPORT_STATE_IN_OTHER_VPORT, 0x08, 31, 1);
ZN_MLX5_ASSERT_DW(QUERY_VPORT_STATE_IN_VPORT_NUMBER, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(QUERY_VPORT_STATE_OUT_ADMIN_STATE, 0x0c, 7, 4);
ZN_MLX5_ASSERT_DW(QUERY_VPORT_STATE_OUT_STATE, 0x0c, 3, 4);
ZN_MLX5_ASSERT_DW(QUERY_NIC_VPORT_IN_OTHER_VPORT, 0x08, 31, 1);
ZN_MLX5_ASSERT_DW(QUERY_NIC_VPORT_IN_VPORT_NUMBER, 0x08, 15, 16);
ZN_MLX5_ASSERT_BYTE(QUERY_NIC_VPORT_OUT_CONTEXT, 0x10, 2048);
ZN_MLX5_ASSERT_DW(MODIFY_NIC_VPORT_IN_FIELD_SELECT, 0x0c, 31, 32);
ZN_MLX5_ASSERT_BYTE(MODIFY_NIC_VPORT_IN_CONTEXT, 0x100, 2048);
ZN_MLX5_ASSERT_DW(NIC_VPORT_MIN_WQE_INLINE_MODE, 0x00, 26, 3);
ZN_MLX5_ASSERT_DW(NIC_VPORT_ROCE_EN, 0x00, 0, 1);
ZN_MLX5_ASSERT_DW(NIC_VPORT_MTU, 0x24, 15, 16);
ZN_MLX5_ASSERT_DW(NIC_VPORT_PROMISC_UC, 0xf0, 31, 1);
ZN_MLX5_ASSERT_DW(NIC_VPORT_PROMISC_MC, 0xf0, 30, 1);
ZN_MLX5_ASSERT_DW(NIC_VPORT_PROMISC_ALL, 0xf0, 29, 1);
ZN_MLX5_ASSERT_BYTE(NIC_VPORT_PERMANENT_ADDRESS, 0xf4, 64);
ZN_MLX5_ASSERT_DW(CREATE_MKEY_IN_PG_ACCESS, 0x0c, 31, 1);
ZN_MLX5_ASSERT_BYTE(CREATE_MKEY_IN_MKC, 0x10, 512);
ZN_MLX5_ASSERT_DW(CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE, 0x60, 31, 32);
ZN_MLX5_ASSERT_BYTE(CREATE_MKEY_IN_KLM_PAS_MTT, 0x110, 0);
ZN_MLX5_ASSERT_DW(CREATE_MKEY_OUT_MKEY_INDEX, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(MKC_FREE, 0x00, 30, 1);
ZN_MLX5_ASSERT_DW(MKC_ACCESS_MODE_4_2, 0x00, 28, 3);
ZN_MLX5_ASSERT_DW(MKC_UMR_EN, 0x00, 15, 1);
ZN_MLX5_ASSERT_DW(MKC_A, 0x00, 14, 1);
ZN_MLX5_ASSERT_DW(MKC_RW, 0x00, 13, 1);
ZN_MLX5_ASSERT_DW(MKC_RR, 0x00, 12, 1);
ZN_MLX5_ASSERT_DW(MKC_LW, 0x00, 11, 1);
ZN_MLX5_ASSERT_DW(MKC_LR, 0x00, 10, 1);
ZN_MLX5_ASSERT_DW(MKC_ACCESS_MODE_1_0, 0x00, 9, 2);
ZN_MLX5_ASSERT_DW(MKC_QPN, 0x04, 31, 24);
ZN_MLX5_ASSERT_DW(MKC_MKEY_7_0, 0x04, 7, 8);
ZN_MLX5_ASSERT_DW(MKC_LENGTH64, 0x0c, 31, 1);
ZN_MLX5_ASSERT_DW(MKC_PD, 0x0c, 23, 24);
ZN_MLX5_ASSERT_BYTE(MKC_START_ADDR, 0x10, 64);
ZN_MLX5_ASSERT_BYTE(MKC_LEN, 0x18, 64);
ZN_MLX5_ASSERT_DW(MKC_TRANSLATIONS_OCTWORD_SIZE, 0x34, 31, 32);
ZN_MLX5_ASSERT_DW(MKC_LOG_PAGE_SIZE, 0x38, 4, 5);
ZN_MLX5_ASSERT_DW(ACCESS_REG_IN_REGISTER_ID, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(ACCESS_REG_IN_ARGUMENT, 0x0c, 31, 32);
ZN_MLX5_ASSERT_BYTE(ACCESS_REG_IN_REGISTER_DATA, 0x10, 0);
ZN_MLX5_ASSERT_BYTE(ACCESS_REG_OUT_REGISTER_DATA, 0x10, 0);
ZN_MLX5_ASSERT_DW(PAOS_LOCAL_PORT, 0x00, 23, 8);
ZN_MLX5_ASSERT_DW(PAOS_ADMIN_STATUS, 0x00, 11, 4);
ZN_MLX5_ASSERT_DW(PAOS_OPER_STATUS, 0x00, 3, 4);
ZN_MLX5_ASSERT_DW(PAOS_ASE, 0x04, 31, 1);
ZN_MLX5_ASSERT_DW(PMTU_LOCAL_PORT, 0x00, 23, 8);
ZN_MLX5_ASSERT_DW(PMTU_MAX_MTU, 0x04, 31, 16);
ZN_MLX5_ASSERT_DW(PMTU_ADMIN_MTU, 0x08, 31, 16);
ZN_MLX5_ASSERT_DW(PMTU_OPER_MTU, 0x0c, 31, 16);
ZN_MLX5_ASSERT_DW(EQE_EVENT_TYPE, 0x00, 23, 8);
ZN_MLX5_ASSERT_DW(EQE_EVENT_SUB_TYPE, 0x00, 7, 8);
ZN_MLX5_ASSERT_BYTE(EQE_EVENT_DATA, 0x20, 224);
ZN_MLX5_ASSERT_DW(EQE_SIGNATURE, 0x3c, 15, 8);
ZN_MLX5_ASSERT_DW(EQE_OWNER, 0x3c, 0, 1);
ZN_MLX5_ASSERT_DW(DISABLE_HCA_IN_FUNCTION_ID, 0x08, 15, 16);
ZN_MLX5_ASSERT_DW(DESTROY_TIR_IN_TIRN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_TIS_IN_TISN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_RQ_IN_RQN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_RQT_IN_RQTN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DEALLOC_UAR_IN_UAR, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DEALLOC_TD_IN_TRANSPORT_DOMAIN, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_MKEY_IN_MKEY_INDEX, 0x08, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_FT_IN_TABLE_TYPE, 0x10, 31, 8);
ZN_MLX5_ASSERT_DW(DESTROY_FT_IN_TABLE_ID, 0x14, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_FG_IN_TABLE_TYPE, 0x10, 31, 8);
ZN_MLX5_ASSERT_DW(DESTROY_FG_IN_TABLE_ID, 0x14, 23, 24);
ZN_MLX5_ASSERT_DW(DESTROY_FG_IN_GROUP_ID, 0x18, 31, 32);
ZN_MLX5_ASSERT_DW(DELETE_FTE_IN_TABLE_TYPE, 0x10, 31, 8);
ZN_MLX5_ASSERT_DW(DELETE_FTE_IN_TABLE_ID, 0x14, 23, 24);
ZN_MLX5_ASSERT_DW(DELETE_FTE_IN_FLOW_INDEX, 0x20, 31, 32);

/* Nested structs sit where their parents say, and fit. */
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_CQ_IN_CQC) + ZN_MLX5_SZ_CQC <=
	       ZN_MLX5_BYTE_OFF(CREATE_CQ_IN_PAS), "cqc fits before pas");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_CQ_IN_PAS) == ZN_MLX5_SZ_CREATE_CQ_IN, "cq pas");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_EQ_IN_PAS) == ZN_MLX5_SZ_CREATE_EQ_IN, "eq pas");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_SQ_IN_SQC) + ZN_MLX5_SZ_SQC == ZN_MLX5_SZ_CREATE_SQ_IN, "sqc");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_RQ_IN_RQC) + ZN_MLX5_SZ_RQC == ZN_MLX5_SZ_CREATE_RQ_IN, "rqc");
_Static_assert(ZN_MLX5_BYTE_OFF(SQC_WQ) + ZN_MLX5_SZ_WQ == ZN_MLX5_SZ_SQC, "wq at sqc end");
_Static_assert(ZN_MLX5_BYTE_OFF(RQC_WQ) + ZN_MLX5_SZ_WQ == ZN_MLX5_SZ_RQC, "wq at rqc end");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_TIR_IN_TIRC) + ZN_MLX5_SZ_TIRC == ZN_MLX5_SZ_CREATE_TIR_IN, "tirc");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_TIS_IN_TISC) + ZN_MLX5_SZ_TISC == ZN_MLX5_SZ_CREATE_TIS_IN, "tisc");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_RQT_IN_RQTC) + ZN_MLX5_SZ_RQTC == ZN_MLX5_SZ_CREATE_RQT_IN, "rqtc");
_Static_assert(ZN_MLX5_BYTE_OFF(RQTC_RQ_NUM) == ZN_MLX5_SZ_RQTC, "rq_num list follows rqtc");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_FT_IN_FTC) + ZN_MLX5_SZ_FTC == ZN_MLX5_SZ_CREATE_FT_IN, "ftc");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_FG_IN_MATCH_CRITERIA) + ZN_MLX5_SZ_MATCH_PARAM <=
	       ZN_MLX5_SZ_CREATE_FG_IN, "match criteria");
_Static_assert(ZN_MLX5_BYTE_OFF(SET_FTE_IN_FLOW_CONTEXT) + ZN_MLX5_SZ_FLOW_CONTEXT ==
	       ZN_MLX5_SZ_SET_FTE_IN, "flow context, then destinations");
_Static_assert(ZN_MLX5_BYTE_OFF(FLOW_CTX_DESTINATION) == ZN_MLX5_SZ_FLOW_CONTEXT, "dest list");
_Static_assert(ZN_MLX5_BYTE_OFF(FLOW_CTX_MATCH_VALUE) + ZN_MLX5_SZ_MATCH_PARAM <=
	       ZN_MLX5_SZ_FLOW_CONTEXT, "match value");
_Static_assert(ZN_MLX5_BYTE_OFF(MODIFY_NIC_VPORT_IN_CONTEXT) + ZN_MLX5_SZ_NIC_VPORT_CONTEXT ==
	       ZN_MLX5_SZ_MODIFY_NIC_VPORT_IN, "vport context");
_Static_assert(ZN_MLX5_BYTE_OFF(QUERY_NIC_VPORT_OUT_CONTEXT) + ZN_MLX5_SZ_NIC_VPORT_CONTEXT ==
	       ZN_MLX5_SZ_QUERY_NIC_VPORT_OUT, "vport context out");
_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_MKEY_IN_MKC) + ZN_MLX5_SZ_MKC <=
	       ZN_MLX5_BYTE_OFF(CREATE_MKEY_IN_KLM_PAS_MTT), "mkc");
_Static_assert(ZN_MLX5_BYTE_OFF(QUERY_HCA_CAP_OUT_CAPABILITY) + ZN_MLX5_CAP_SIZE ==
	       ZN_MLX5_SZ_QUERY_HCA_CAP_OUT, "capability block");
_Static_assert(ZN_MLX5_BYTE_OFF(SET_HCA_CAP_IN_CAPABILITY) + ZN_MLX5_CAP_SIZE ==
	       ZN_MLX5_SZ_SET_HCA_CAP_IN, "capability block in");
_Static_assert(ZN_MLX5_WIDTH(TIRC_RX_HASH_TOEPLITZ_KEY) == ZN_MLX5_TOEPLITZ_KEY_SIZE * 8, "key");
_Static_assert(ZN_MLX5_BYTE_OFF(MATCH_INNER_HEADERS) == 2 * ZN_MLX5_SZ_MATCH_LYR_2_4, "inner");

_Static_assert(ZN_MLX5_BYTE_OFF(CREATE_EQ_IN_EVENT_BITMASK) == 0x58, "event mask");

/* C structs agree with the bit constants. */
#define ZN_MLX5_ASSERT_SIZE(s, n)	_Static_assert(sizeof(struct s) == (n), #s " size")
#define ZN_MLX5_ASSERT_OFF(s, m, o)	_Static_assert(offsetof(struct s, m) == (o), #s "." #m)

ZN_MLX5_ASSERT_SIZE(zn_mlx5_cmd_entry, ZN_MLX5_CMD_ENTRY_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, inlen_be, ZN_MLX5_BYTE_OFF(CMD_ENTRY_INPUT_LENGTH));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, in_ptr_be, ZN_MLX5_BYTE_OFF(CMD_ENTRY_IN_PTR_HI));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, in, ZN_MLX5_BYTE_OFF(CMD_ENTRY_IN_INLINE));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, out, ZN_MLX5_BYTE_OFF(CMD_ENTRY_OUT_INLINE));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, out_ptr_be, ZN_MLX5_BYTE_OFF(CMD_ENTRY_OUT_PTR_HI));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, outlen_be, ZN_MLX5_BYTE_OFF(CMD_ENTRY_OUTPUT_LENGTH));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, token, ZN_MLX5_BYTE_OFF(CMD_ENTRY_TOKEN));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, sig, ZN_MLX5_BYTE_OFF(CMD_ENTRY_SIGNATURE));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_entry, status_own, ZN_MLX5_BYTE_OFF(CMD_ENTRY_STATUS));

ZN_MLX5_ASSERT_SIZE(zn_mlx5_cmd_mbox, ZN_MLX5_CMD_MBOX_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_mbox, next_be, ZN_MLX5_BYTE_OFF(MBOX_NEXT_HI));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_mbox, block_num_be, ZN_MLX5_BYTE_OFF(MBOX_BLOCK_NUMBER));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_mbox, token, ZN_MLX5_BYTE_OFF(MBOX_TOKEN));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_mbox, ctrl_sig, ZN_MLX5_BYTE_OFF(MBOX_CTRL_SIGNATURE));
ZN_MLX5_ASSERT_OFF(zn_mlx5_cmd_mbox, sig, ZN_MLX5_BYTE_OFF(MBOX_SIGNATURE));

_Static_assert(ZN_MLX5_ISEG_CMDQ_ADDR_H == ZN_MLX5_BYTE_OFF(INIT_SEG_CMDQ_PHY_ADDR_HI), "iseg");
_Static_assert(ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ == ZN_MLX5_BYTE_OFF(INIT_SEG_CMDQ_PHY_ADDR_LO), "iseg");
_Static_assert(ZN_MLX5_ISEG_CMD_DBELL == ZN_MLX5_BYTE_OFF(INIT_SEG_CMD_DOORBELL_VECTOR), "iseg");
_Static_assert(ZN_MLX5_ISEG_INITIALIZING == ZN_MLX5_BYTE_OFF(INIT_SEG_INITIALIZING), "iseg");
_Static_assert(ZN_MLX5_ISEG_HEALTH_FW_VER == ZN_MLX5_BYTE_OFF(INIT_SEG_HEALTH_FW_VERSION), "iseg");
_Static_assert(ZN_MLX5_ISEG_HEALTH_HW_ID == ZN_MLX5_BYTE_OFF(INIT_SEG_HEALTH_HW_ID), "iseg");
_Static_assert(ZN_MLX5_ISEG_HEALTH_SYND == ZN_MLX5_BYTE_OFF(INIT_SEG_HEALTH_SYND), "iseg");
_Static_assert(ZN_MLX5_ISEG_HEALTH_EXT_SYND == ZN_MLX5_BYTE_OFF(INIT_SEG_HEALTH_EXT_SYND), "iseg");
_Static_assert(ZN_MLX5_ISEG_INTERNAL_TIMER_H == ZN_MLX5_BYTE_OFF(INIT_SEG_INTERNAL_TIMER_H), "iseg");
_Static_assert(ZN_MLX5_ISEG_INTERNAL_TIMER_L == ZN_MLX5_BYTE_OFF(INIT_SEG_INTERNAL_TIMER_L), "iseg");
_Static_assert(ZN_MLX5_ISEG_HEALTH_COUNTER == ZN_MLX5_BYTE_OFF(INIT_SEG_HEALTH_SYNDROME), "iseg");

ZN_MLX5_ASSERT_SIZE(zn_mlx5_eqe, ZN_MLX5_EQE_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, type, ZN_MLX5_BYTE_OFF(EQE_EVENT_TYPE));
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, sub_type, ZN_MLX5_BYTE_OFF(EQE_EVENT_SUB_TYPE));
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, data, ZN_MLX5_BYTE_OFF(EQE_EVENT_DATA));
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, signature, ZN_MLX5_BYTE_OFF(EQE_SIGNATURE));
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, owner, ZN_MLX5_BYTE_OFF(EQE_OWNER));
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, data.req_pages.func_id_be, 0x22);
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, data.req_pages.num_pages_be, 0x24);
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, data.comp.cqn_be, 0x38);
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, data.cq_err.syndrome, 0x2b);
ZN_MLX5_ASSERT_OFF(zn_mlx5_eqe, data.port.port, 0x28);

ZN_MLX5_ASSERT_SIZE(zn_mlx5_cqe64, ZN_MLX5_CQE_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, wqe_id_be, 0x02);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, shampo.flags, 0x04);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, shampo.header_size, 0x05);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, shampo.header_entry_index_be, 0x06);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, shampo.data_offset_be, 0x08);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, lro.ack_seq_num_be, 0x08);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, rss_hash_result_be, 0x0c);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, rss_hash_type, 0x10);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, check_sum_be, 0x14);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, flags_rqpn_be, 0x18);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, hds_ip_ext, 0x1c);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, l4_l3_hdr_type, 0x1d);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, vlan_info_be, 0x1e);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, srqn_be, 0x20);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, imm_inval_pkey_be, 0x24);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, byte_cnt_be, 0x2c);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, timestamp_be, 0x30);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, sop_drop_qpn_be, 0x38);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, wqe_counter_be, 0x3c);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, signature, 0x3e);
ZN_MLX5_ASSERT_OFF(zn_mlx5_cqe64, op_own, 0x3f);
ZN_MLX5_ASSERT_SIZE(zn_mlx5_err_cqe, ZN_MLX5_CQE_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_err_cqe, srqn_be, 0x20);
ZN_MLX5_ASSERT_OFF(zn_mlx5_err_cqe, vendor_err_synd, 0x36);
ZN_MLX5_ASSERT_OFF(zn_mlx5_err_cqe, syndrome, 0x37);
ZN_MLX5_ASSERT_OFF(zn_mlx5_err_cqe, s_wqe_opcode_qpn_be, 0x38);
ZN_MLX5_ASSERT_OFF(zn_mlx5_err_cqe, wqe_counter_be, 0x3c);
ZN_MLX5_ASSERT_OFF(zn_mlx5_err_cqe, op_own, 0x3f);

ZN_MLX5_ASSERT_SIZE(zn_mlx5_wqe_ctrl, ZN_MLX5_WQE_DS_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_ctrl, qpn_ds_be, 0x4);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_ctrl, signature, 0x8);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_ctrl, fm_ce_se, 0xb);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_ctrl, imm_be, 0xc);
ZN_MLX5_ASSERT_SIZE(zn_mlx5_wqe_eth, ZN_MLX5_WQE_DS_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_eth, cs_flags, 0x4);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_eth, mss_be, 0x6);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_eth, metadata_be, 0x8);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_eth, inline_hdr_sz_be, 0xc);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_eth, inline_hdr_start, 0xe);
ZN_MLX5_ASSERT_SIZE(zn_mlx5_wqe_data, ZN_MLX5_WQE_DS_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_data, lkey_be, 0x4);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_data, addr_be, 0x8);
ZN_MLX5_ASSERT_SIZE(zn_mlx5_wqe_srq_next, ZN_MLX5_WQE_DS_SIZE);
ZN_MLX5_ASSERT_OFF(zn_mlx5_wqe_srq_next, next_wqe_index_be, 0x2);
ZN_MLX5_ASSERT_SIZE(zn_mlx5_mpwqe, 2 * ZN_MLX5_WQE_DS_SIZE);

#endif /* ZCNIC_DRIVERS_MLX5_HW_H */
