/* SPDX-License-Identifier: MIT */
/*
 * The command channel (hw-docs/mlx5.md §5): one transport interface
 * (struct mlx5_cmd_ops) and its command queue back end over BAR0.
 *
 * Command queue rules that matter:
 *  - software writes a slot only while it owns it (ownership bit 0 = 0);
 *    the entry and every mailbox block are written before the doorbell
 *    (release fence), and the output is read only after the device handed
 *    the slot back (acquire fence);
 *  - the token is copied into every block of both chains: a token error
 *    names a block that was not this command's;
 *  - output blocks are zeroed before each command, so a short device write
 *    never leaves a previous command's bytes behind;
 *  - after a timeout nobody knows what the device does with the slot: the
 *    channel is dead and every later command fails fast. A fatal health
 *    syndrome ends the wait at once (the device completes nothing more).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/barrier.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

#define CMDQ_SLOT		0
#define CMDQ_HEALTH_EVERY_MS	100	/* health is read this often while waiting */

static const struct {
	uint16_t op;
	const char *name;
} op_names[] = {
	{ ZN_MLX5_CMD_OP_QUERY_HCA_CAP, "QUERY_HCA_CAP" },
	{ ZN_MLX5_CMD_OP_INIT_HCA, "INIT_HCA" },
	{ ZN_MLX5_CMD_OP_TEARDOWN_HCA, "TEARDOWN_HCA" },
	{ ZN_MLX5_CMD_OP_ENABLE_HCA, "ENABLE_HCA" },
	{ ZN_MLX5_CMD_OP_DISABLE_HCA, "DISABLE_HCA" },
	{ ZN_MLX5_CMD_OP_QUERY_PAGES, "QUERY_PAGES" },
	{ ZN_MLX5_CMD_OP_MANAGE_PAGES, "MANAGE_PAGES" },
	{ ZN_MLX5_CMD_OP_SET_HCA_CAP, "SET_HCA_CAP" },
	{ ZN_MLX5_CMD_OP_QUERY_ISSI, "QUERY_ISSI" },
	{ ZN_MLX5_CMD_OP_SET_ISSI, "SET_ISSI" },
	{ ZN_MLX5_CMD_OP_CREATE_MKEY, "CREATE_MKEY" },
	{ ZN_MLX5_CMD_OP_DESTROY_MKEY, "DESTROY_MKEY" },
	{ ZN_MLX5_CMD_OP_QUERY_SPECIAL_CONTEXTS, "QUERY_SPECIAL_CONTEXTS" },
	{ ZN_MLX5_CMD_OP_CREATE_EQ, "CREATE_EQ" },
	{ ZN_MLX5_CMD_OP_DESTROY_EQ, "DESTROY_EQ" },
	{ ZN_MLX5_CMD_OP_CREATE_CQ, "CREATE_CQ" },
	{ ZN_MLX5_CMD_OP_DESTROY_CQ, "DESTROY_CQ" },
	{ ZN_MLX5_CMD_OP_QUERY_CQ, "QUERY_CQ" },
	{ ZN_MLX5_CMD_OP_QUERY_VPORT_STATE, "QUERY_VPORT_STATE" },
	{ ZN_MLX5_CMD_OP_MODIFY_VPORT_STATE, "MODIFY_VPORT_STATE" },
	{ ZN_MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, "QUERY_NIC_VPORT_CONTEXT" },
	{ ZN_MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, "MODIFY_NIC_VPORT_CONTEXT" },
	{ ZN_MLX5_CMD_OP_ALLOC_PD, "ALLOC_PD" },
	{ ZN_MLX5_CMD_OP_DEALLOC_PD, "DEALLOC_PD" },
	{ ZN_MLX5_CMD_OP_ALLOC_UAR, "ALLOC_UAR" },
	{ ZN_MLX5_CMD_OP_DEALLOC_UAR, "DEALLOC_UAR" },
	{ ZN_MLX5_CMD_OP_ACCESS_REG, "ACCESS_REG" },
	{ ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, "ALLOC_TRANSPORT_DOMAIN" },
	{ ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, "DEALLOC_TRANSPORT_DOMAIN" },
	{ ZN_MLX5_CMD_OP_CREATE_TIR, "CREATE_TIR" },
	{ ZN_MLX5_CMD_OP_MODIFY_TIR, "MODIFY_TIR" },
	{ ZN_MLX5_CMD_OP_DESTROY_TIR, "DESTROY_TIR" },
	{ ZN_MLX5_CMD_OP_CREATE_SQ, "CREATE_SQ" },
	{ ZN_MLX5_CMD_OP_MODIFY_SQ, "MODIFY_SQ" },
	{ ZN_MLX5_CMD_OP_DESTROY_SQ, "DESTROY_SQ" },
	{ ZN_MLX5_CMD_OP_QUERY_SQ, "QUERY_SQ" },
	{ ZN_MLX5_CMD_OP_CREATE_RQ, "CREATE_RQ" },
	{ ZN_MLX5_CMD_OP_MODIFY_RQ, "MODIFY_RQ" },
	{ ZN_MLX5_CMD_OP_DESTROY_RQ, "DESTROY_RQ" },
	{ ZN_MLX5_CMD_OP_QUERY_RQ, "QUERY_RQ" },
	{ ZN_MLX5_CMD_OP_CREATE_TIS, "CREATE_TIS" },
	{ ZN_MLX5_CMD_OP_DESTROY_TIS, "DESTROY_TIS" },
	{ ZN_MLX5_CMD_OP_CREATE_RQT, "CREATE_RQT" },
	{ ZN_MLX5_CMD_OP_MODIFY_RQT, "MODIFY_RQT" },
	{ ZN_MLX5_CMD_OP_DESTROY_RQT, "DESTROY_RQT" },
	{ ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, "SET_FLOW_TABLE_ROOT" },
	{ ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE, "CREATE_FLOW_TABLE" },
	{ ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE, "DESTROY_FLOW_TABLE" },
	{ ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP, "CREATE_FLOW_GROUP" },
	{ ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP, "DESTROY_FLOW_GROUP" },
	{ ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, "SET_FLOW_TABLE_ENTRY" },
	{ ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY, "DELETE_FLOW_TABLE_ENTRY" },
};

const char *zn_mlx5_cmd_name(uint16_t opcode)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (op_names[i].op == opcode)
			return op_names[i].name;
	return "UNKNOWN_OPCODE";
}

/* §5.4, [L-DEV] MLX5_CMD_STAT_* */
const char *zn_mlx5_status_name(uint8_t status)
{
	switch (status) {
	case ZN_MLX5_CMD_STAT_OK: return "OK";
	case ZN_MLX5_CMD_STAT_INT_ERR: return "INT_ERR";
	case ZN_MLX5_CMD_STAT_BAD_OP_ERR: return "BAD_OP";
	case ZN_MLX5_CMD_STAT_BAD_PARAM_ERR: return "BAD_PARAM";
	case ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR: return "BAD_SYS_STATE";
	case ZN_MLX5_CMD_STAT_BAD_RES_ERR: return "BAD_RES";
	case ZN_MLX5_CMD_STAT_RES_BUSY: return "RES_BUSY";
	case ZN_MLX5_CMD_STAT_LIM_ERR: return "LIM_ERR";
	case ZN_MLX5_CMD_STAT_BAD_RES_STATE_ERR: return "BAD_RES_STATE";
	case ZN_MLX5_CMD_STAT_IX_ERR: return "IX_ERR";
	case ZN_MLX5_CMD_STAT_NO_RES_ERR: return "NO_RES";
	case ZN_MLX5_CMD_STAT_BAD_QP_STATE_ERR: return "BAD_QP_STATE";
	case ZN_MLX5_CMD_STAT_BAD_PKT_ERR: return "BAD_PKT";
	case ZN_MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR: return "BAD_SIZE_OUTS_CQES";
	case ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR: return "BAD_INP_LEN";
	case ZN_MLX5_CMD_STAT_BAD_OUTP_LEN_ERR: return "BAD_OUTP_LEN";
	default: return "UNKNOWN_STATUS";
	}
}

/* §5.1, [L-CMD] deliv_status_to_str */
const char *zn_mlx5_dstat_name(uint8_t dstat)
{
	switch (dstat) {
	case ZN_MLX5_DSTAT_OK: return "OK";
	case ZN_MLX5_DSTAT_SIG_ERR: return "SIGNATURE_ERR";
	case ZN_MLX5_DSTAT_TOK_ERR: return "TOKEN_ERR";
	case ZN_MLX5_DSTAT_BAD_BLK_NUM: return "BAD_BLOCK_NUMBER";
	case ZN_MLX5_DSTAT_OUT_PTR_ALIGN: return "OUTPUT_POINTER_NOT_ALIGNED";
	case ZN_MLX5_DSTAT_IN_PTR_ALIGN: return "INPUT_POINTER_NOT_ALIGNED";
	case ZN_MLX5_DSTAT_FW_ERR: return "FIRMWARE_INTERNAL_ERR";
	case ZN_MLX5_DSTAT_IN_LENGTH_ERR: return "INPUT_LENGTH_ERR";
	case ZN_MLX5_DSTAT_OUT_LENGTH_ERR: return "OUTPUT_LENGTH_ERR";
	case ZN_MLX5_DSTAT_RES_FLD_NOT_CLR: return "RESERVED_NOT_CLEARED";
	case ZN_MLX5_DSTAT_CMD_DESC_TYPE: return "BAD_DESCRIPTOR_TYPE";
	default: return "UNKNOWN_DELIVERY_STATUS";
	}
}

int zn_mlx5_status_errno(uint8_t status)
{
	switch (status) {
	case ZN_MLX5_CMD_STAT_OK: return 0;
	case ZN_MLX5_CMD_STAT_BAD_OP_ERR: return -EOPNOTSUPP;
	case ZN_MLX5_CMD_STAT_BAD_PARAM_ERR:
	case ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR:
	case ZN_MLX5_CMD_STAT_BAD_OUTP_LEN_ERR:
	case ZN_MLX5_CMD_STAT_IX_ERR: return -EINVAL;
	case ZN_MLX5_CMD_STAT_BAD_RES_ERR: return -ENOENT;
	case ZN_MLX5_CMD_STAT_RES_BUSY: return -EBUSY;
	case ZN_MLX5_CMD_STAT_LIM_ERR:
	case ZN_MLX5_CMD_STAT_NO_RES_ERR: return -ENOSPC;
	case ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR:
	case ZN_MLX5_CMD_STAT_BAD_RES_STATE_ERR:
	case ZN_MLX5_CMD_STAT_BAD_QP_STATE_ERR: return -EPERM;
	default: return -EIO;
	}
}

/* ---- command queue back end ------------------------------------------- */

/* Blocks per chain: the longest message (SET_HCA_CAP, 4112 bytes) and
 * MANAGE_PAGES with MLX5_PAGES_PER_CMD entries both fit. */
#define CMDQ_NBOXES	zn_mlx5_cmd_blocks(MLX5_CMD_MAX_MSG)

_Static_assert(ZN_MLX5_SZ_SET_HCA_CAP_IN <= MLX5_CMD_MAX_MSG, "cap fits the chain");
_Static_assert(16 + 8 * MLX5_PAGES_PER_CMD <= MLX5_CMD_MAX_MSG, "pages fit the chain");

int zn_mlx5_cmdq_init(struct mlx5 *m)
{
	struct mlx5_cmdq *c = &m->cmdq;
	size_t boxes = (size_t)CMDQ_NBOXES * ZN_MLX5_CMD_MBOX_ALIGN;
	uint32_t lo, log_sz, log_stride;
	int rc;

	rc = zn_bus_read32(m->bus, 0, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, &lo);
	if (rc < 0)
		return rc;
	lo = zn_mlx5_bswap32(lo);
	log_sz = (lo >> 4) & 0xf;
	log_stride = lo & 0xf;
	/* §3: the queue fits one page and has at most 32 slots. */
	if ((1u << log_sz) > ZN_MLX5_CMD_MAX_ENTRIES || log_sz + log_stride > 12 ||
	    (1u << log_stride) < ZN_MLX5_CMD_ENTRY_SIZE) {
		ZN_ERR(MLX5_LOG, "%s: command queue geometry log_size %u log_stride %u "
		       "is not one page of 64-byte slots", m->name, log_sz, log_stride);
		return -ENODEV;
	}
	memset(c, 0, sizeof(*c));
	rc = zn_mlx5_dma_alloc(m, "mlx5-cmdq", ZN_MLX5_ADAPTER_PAGE_SIZE + 2 * boxes, &c->dma);
	if (rc < 0)
		return rc;
	c->entry = c->dma->va;
	c->in_box = (void *)((uint8_t *)c->dma->va + ZN_MLX5_ADAPTER_PAGE_SIZE);
	c->out_box = (void *)((uint8_t *)c->dma->va + ZN_MLX5_ADAPTER_PAGE_SIZE + boxes);
	c->in_iova = c->dma->iova + ZN_MLX5_ADAPTER_PAGE_SIZE;
	c->out_iova = c->in_iova + boxes;
	c->nboxes = CMDQ_NBOXES;
	/* The device may say how long a command can take (Linux lib/tout.c
	 * reads the same cmd_exec_to); 0 leaves Linux's default. */
	rc = zn_bus_read32(m->bus, 0, ZN_MLX5_ISEG_CMD_EXEC_TO, &lo);
	c->timeout_ms = (uint32_t)zn_mlx5_fw_timeout_ms(rc == 0 ? zn_mlx5_bswap32(lo) : 0,
							MLX5_CMD_TIMEOUT_MS);
	c->token = 0;

	/* §4 step 4: high half first; writing the low half commits the address. */
	rc = zn_bus_write32(m->bus, 0, ZN_MLX5_ISEG_CMDQ_ADDR_H,
			    zn_mlx5_bswap32((uint32_t)(c->dma->iova >> 32)));
	if (rc == 0)
		rc = zn_bus_write32(m->bus, 0, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ,
				    zn_mlx5_bswap32((uint32_t)c->dma->iova & 0xfffff000u));
	if (rc < 0) {
		zn_mlx5_dma_free(m, &c->dma);
		return rc;
	}
	m->cmd_ops = &zn_mlx5_cmdq_ops;
	return 0;
}

static void cmdq_fini(struct mlx5 *m)
{
	zn_mlx5_dma_free(m, &m->cmdq.dma);
	m->cmdq.entry = NULL;
}

static struct zn_mlx5_cmd_mbox *box(struct zn_mlx5_cmd_mbox *base, uint32_t k)
{
	return (void *)((uint8_t *)base + (size_t)k * ZN_MLX5_CMD_MBOX_ALIGN);
}

/* §5.2: a chain of n blocks carrying msg[16...], linked by address. */
static void chain_build(struct zn_mlx5_cmd_mbox *base, uint64_t iova, uint32_t n,
			const uint8_t *msg, uint32_t len, uint8_t token)
{
	for (uint32_t k = 0; k < n; k++) {
		struct zn_mlx5_cmd_mbox *b = box(base, k);
		uint32_t off = ZN_MLX5_CMD_INLINE_SIZE + k * ZN_MLX5_CMD_MBOX_DATA_SIZE;

		memset(b, 0, sizeof(*b));
		if (msg && off < len)
			memcpy(b->data, msg + off, len - off < ZN_MLX5_CMD_MBOX_DATA_SIZE ?
			       len - off : ZN_MLX5_CMD_MBOX_DATA_SIZE);
		b->next_be = k + 1 < n ? zn_mlx5_bswap64(iova + (uint64_t)(k + 1) *
							 ZN_MLX5_CMD_MBOX_ALIGN) : 0;
		b->block_num_be = zn_mlx5_bswap32(k);
		b->token = token;
	}
}

static void chain_read(struct zn_mlx5_cmd_mbox *base, uint8_t *msg, uint32_t len)
{
	for (uint32_t off = ZN_MLX5_CMD_INLINE_SIZE, k = 0; off < len;
	     off += ZN_MLX5_CMD_MBOX_DATA_SIZE, k++)
		memcpy(msg + off, box(base, k)->data, len - off < ZN_MLX5_CMD_MBOX_DATA_SIZE ?
		       len - off : ZN_MLX5_CMD_MBOX_DATA_SIZE);
}

static void pause_poll(unsigned *spins)
{
	if (*spins < MLX5_CMD_SPIN_POLLS) {
		(*spins)++;
		__builtin_ia32_pause();
		return;
	}
	nanosleep(&(struct timespec){ .tv_nsec = MLX5_CMD_SLEEP_NS }, NULL);
}

static int cmdq_exec(struct mlx5 *m, const void *in, uint32_t inlen, void *out, uint32_t outlen)
{
	struct mlx5_cmdq *c = &m->cmdq;
	volatile struct zn_mlx5_cmd_entry *e = c->entry;
	uint16_t op = (uint16_t)ZN_MLX5_GET(in, IN_OPCODE);
	uint32_t nin = zn_mlx5_cmd_blocks(inlen), nout = zn_mlx5_cmd_blocks(outlen);
	uint64_t start, next_health;
	unsigned spins = 0;
	uint8_t so;
	int rc;

	if (nin > c->nboxes || nout > c->nboxes) {
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x): %u-byte input / %u-byte output exceed the "
		       "mailbox chains", m->name, zn_mlx5_cmd_name(op), op, inlen, outlen);
		return -E2BIG;
	}
	if (e->status_own & ZN_MLX5_CMD_OWNER_HW) {
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x): command slot %u still owned by the device",
		       m->name, zn_mlx5_cmd_name(op), op, CMDQ_SLOT);
		return -EBUSY;
	}
	c->token = (uint8_t)(c->token % 255 + 1);	/* 1..255, never 0 */

	chain_build(c->in_box, c->in_iova, nin, in, inlen, c->token);
	chain_build(c->out_box, c->out_iova, nout, NULL, 0, c->token);
	memset((void *)e, 0, sizeof(*e));
	e->type = ZN_MLX5_CMD_TYPE_PCIE;
	e->inlen_be = zn_mlx5_bswap32(inlen);
	e->outlen_be = zn_mlx5_bswap32(outlen);
	e->in_ptr_be = nin ? zn_mlx5_bswap64(c->in_iova) : 0;
	e->out_ptr_be = nout ? zn_mlx5_bswap64(c->out_iova) : 0;
	memcpy((void *)e->in, in, inlen < ZN_MLX5_CMD_INLINE_SIZE ? inlen : ZN_MLX5_CMD_INLINE_SIZE);
	e->token = c->token;
	e->status_own = ZN_MLX5_CMD_OWNER_HW;
	/* Entry and blocks visible before the device hears of them. */
	zn_dma_wmb();
	rc = zn_bus_write32(m->bus, 0, ZN_MLX5_ISEG_CMD_DBELL, zn_mlx5_bswap32(1u << CMDQ_SLOT));
	if (rc < 0) {
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x): doorbell write failed: %s", m->name,
		       zn_mlx5_cmd_name(op), op, strerror(-rc));
		m->dead = true;
		return rc;
	}

	start = zn_mlx5_now_ms();
	next_health = start + CMDQ_HEALTH_EVERY_MS;
	while ((so = __atomic_load_n(&c->entry->status_own, __ATOMIC_ACQUIRE)) &
	       ZN_MLX5_CMD_OWNER_HW) {
		uint64_t now;

		pause_poll(&spins);
		if (spins < MLX5_CMD_SPIN_POLLS)
			continue;
		now = zn_mlx5_now_ms();
		if (now >= next_health) {
			next_health = now + CMDQ_HEALTH_EVERY_MS;
			if (zn_mlx5_health_check(m) < 0) {
				/* a reset under the driver is said by its recovery */
				if (!m->reset_seen)
					ZN_ERR(MLX5_LOG, "%s: %s (0x%x): abandoned, the device "
					       "is dead", m->name, zn_mlx5_cmd_name(op), op);
				return -EIO;
			}
		}
		if (now - start >= c->timeout_ms) {
			ZN_ERR(MLX5_LOG, "%s: %s (0x%x): no completion after %u ms; command "
			       "channel closed", m->name, zn_mlx5_cmd_name(op), op, c->timeout_ms);
			m->dead = true;
			m->cmd_timed_out = true;	/* recovery resets the function */
			return -ETIMEDOUT;
		}
	}
	so >>= ZN_MLX5_CMD_STATUS_SHIFT;
	if (so != ZN_MLX5_DSTAT_OK) {
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x) not executed: delivery status %s (0x%02x)",
		       m->name, zn_mlx5_cmd_name(op), op, zn_mlx5_dstat_name(so), so);
		return -EIO;
	}
	memcpy(out, (const void *)e->out,
	       outlen < ZN_MLX5_CMD_INLINE_SIZE ? outlen : ZN_MLX5_CMD_INLINE_SIZE);
	chain_read(c->out_box, out, outlen);
	return 0;
}

const struct mlx5_cmd_ops zn_mlx5_cmdq_ops = {
	.name = "cmdq",
	.exec = cmdq_exec,
	.fini = cmdq_fini,
};

/* ---- status decoding --------------------------------------------------- */

static bool is_create(uint16_t op)
{
	switch (op) {
	case ZN_MLX5_CMD_OP_CREATE_MKEY: case ZN_MLX5_CMD_OP_CREATE_EQ:
	case ZN_MLX5_CMD_OP_CREATE_CQ: case ZN_MLX5_CMD_OP_CREATE_TIR:
	case ZN_MLX5_CMD_OP_CREATE_SQ: case ZN_MLX5_CMD_OP_CREATE_RQ:
	case ZN_MLX5_CMD_OP_CREATE_TIS: case ZN_MLX5_CMD_OP_CREATE_RQT:
	case ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE: case ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP:
	case ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY: case ZN_MLX5_CMD_OP_ALLOC_PD:
	case ZN_MLX5_CMD_OP_ALLOC_UAR: case ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
		return true;
	default:
		return false;
	}
}

static int cmd_run(struct mlx5 *m, const void *in, uint32_t inlen, void *out, uint32_t outlen,
		   bool quiet)
{
	uint16_t op = (uint16_t)ZN_MLX5_GET(in, IN_OPCODE);
	uint8_t status;
	int rc;

	if (m->dead)
		return -EIO;
	if (!m->cmd_ops || inlen < ZN_MLX5_CMD_HDR_SIZE - 8 || outlen < 8)
		return -EINVAL;
	if (m->cmd_busy)	/* the channel is synchronous: a nested call is a driver bug */
		return -EDEADLK;
	memset(out, 0, outlen);
	m->cmd_busy = true;
	rc = m->cmd_ops->exec(m, in, inlen, out, outlen);
	m->cmd_busy = false;
	if (rc < 0)
		return rc;
	status = ((const uint8_t *)out)[0];
	/* §6: a create may find the device short of pages; serve them, retry once. */
	if (status == ZN_MLX5_CMD_STAT_NO_RES_ERR && is_create(op) && !m->in_page_retry &&
	    m->hca_inited) {
		m->in_page_retry = true;
		rc = zn_mlx5_pages_satisfy(m, ZN_MLX5_PAGES_REGULAR);
		if (rc == 0) {
			memset(out, 0, outlen);
			m->cmd_busy = true;
			rc = m->cmd_ops->exec(m, in, inlen, out, outlen);
			m->cmd_busy = false;
		}
		m->in_page_retry = false;
		if (rc < 0)
			return rc;
		status = ((const uint8_t *)out)[0];
	}
	if (status == ZN_MLX5_CMD_STAT_OK)
		return 0;
	if (!quiet)
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x) op_mod 0x%x failed: status %s (0x%02x), "
		       "syndrome 0x%08x", m->name, zn_mlx5_cmd_name(op), op,
		       (unsigned)ZN_MLX5_GET(in, IN_OP_MOD), zn_mlx5_status_name(status), status,
		       (uint32_t)ZN_MLX5_GET(out, OUT_SYNDROME));
	return zn_mlx5_status_errno(status);
}

int zn_mlx5_cmd(struct mlx5 *m, const void *in, uint32_t inlen, void *out, uint32_t outlen)
{
	return cmd_run(m, in, inlen, out, outlen, false);
}

int zn_mlx5_cmd_quiet(struct mlx5 *m, const void *in, uint32_t inlen, void *out,
		      uint32_t outlen)
{
	return cmd_run(m, in, inlen, out, outlen, true);
}
