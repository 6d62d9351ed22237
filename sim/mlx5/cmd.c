/* SPDX-License-Identifier: MIT */
/*
 * The command interface of the mlx5 model (hw-docs/mlx5.md 5): a doorbell
 * write hands slots to the device; each slot's entry and mailbox chains are
 * checked (type, lengths, alignment, block numbers, tokens, reachable
 * memory) before the command runs, and a failed check is a delivery status
 * with no effect. The output goes back into the entry and the output chain,
 * the ownership bit is cleared last, and a command-completion EQE follows
 * when an EQ asked for them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/mlx5/priv.h"

int msim_fail(struct msim *m, struct msim_cmd *c, uint8_t status, unsigned check,
	      const char *why)
{
	memset(c->out, 0, c->outlen < MSIM_MSG_MAX ? c->outlen : MSIM_MSG_MAX);
	c->out[0] = status;
	zn_mlx5_st_be32(c->out + 4, (uint32_t)c->opcode << 16 | (check & 0xffff));
	MSIM_INC(m, cmd_errors);
	ZN_SIM_LOG_RL_AT(&m->rl_cmd, ZN_SIM_LOG_DEBUG, MSIM_LOG,
			 "%s: command %#x op_mod %#x: status %#x syndrome %#x: %s", m->name,
			 c->opcode, c->op_mod, status, (uint32_t)c->opcode << 16 | check, why);
	return 0;
}

bool msim_lens(struct msim *m, struct msim_cmd *c, size_t in, size_t out)
{
	if (c->inlen < in) {
		msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR, 0xfff0, "input too short");
		return false;
	}
	if (c->outlen < out) {
		msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, 0xfff1, "output too short");
		return false;
	}
	return true;
}

/* Which opcodes may run in which function state (hw-docs/mlx5.md 4). */
static bool allowed_before_init(uint16_t op)
{
	switch (op) {
	case ZN_MLX5_CMD_OP_QUERY_ISSI:
	case ZN_MLX5_CMD_OP_SET_ISSI:
	case ZN_MLX5_CMD_OP_QUERY_PAGES:
	case ZN_MLX5_CMD_OP_MANAGE_PAGES:
	case ZN_MLX5_CMD_OP_QUERY_HCA_CAP:
	case ZN_MLX5_CMD_OP_SET_HCA_CAP:
	case ZN_MLX5_CMD_OP_INIT_HCA:
	case ZN_MLX5_CMD_OP_DISABLE_HCA:
	case ZN_MLX5_CMD_OP_ACCESS_REG:
		return true;
	default:
		return false;
	}
}

static bool allowed_after_teardown(uint16_t op)
{
	switch (op) {
	case ZN_MLX5_CMD_OP_QUERY_PAGES:
	case ZN_MLX5_CMD_OP_MANAGE_PAGES:
	case ZN_MLX5_CMD_OP_DISABLE_HCA:
	case ZN_MLX5_CMD_OP_TEARDOWN_HCA:
	case ZN_MLX5_CMD_OP_QUERY_HCA_CAP:
	case ZN_MLX5_CMD_OP_QUERY_ISSI:
		return true;
	default:
		return false;
	}
}

void msim_cmd_exec(struct msim *m, struct msim_cmd *c)
{
	MSIM_INC(m, cmds);
	if (c->inlen < 8) {
		c->opcode = 0;
		msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR, 0xfff0, "input below the header");
		return;
	}
	c->opcode = (uint16_t)ZN_MLX5_GET(c->in, IN_OPCODE);
	c->op_mod = (uint16_t)ZN_MLX5_GET(c->in, IN_OP_MOD);
	if (c->outlen < 8) {
		msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, 0xfff1, "output below the header");
		return;
	}
	memset(c->out, 0, c->outlen);
	if (m->port.fault && msim_fault_cmd(m, c))
		return;
	switch (m->state) {
	case MS_DISABLED:
		if (c->opcode != ZN_MLX5_CMD_OP_ENABLE_HCA) {
			msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 0xfff2,
				  "function not enabled (ENABLE_HCA first)");
			return;
		}
		break;
	case MS_ENABLED:
		if (!allowed_before_init(c->opcode) && c->opcode != ZN_MLX5_CMD_OP_ENABLE_HCA) {
			msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 0xfff3,
				  "not before INIT_HCA");
			return;
		}
		break;
	case MS_INIT:
		break;
	case MS_TORN:
		if (!allowed_after_teardown(c->opcode) && c->opcode != ZN_MLX5_CMD_OP_ENABLE_HCA) {
			msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 0xfff4,
				  "after TEARDOWN_HCA");
			return;
		}
		break;
	}
	if (msim_hca_cmd(m, c) != -ENOENT)
		return;
	if (msim_obj_cmd(m, c) != -ENOENT)
		return;
	MSIM_INC(m, cmd_bad_opcode);
	msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OP_ERR, 0xfff5, "unknown opcode");
}

/* ---- the queue entry and its mailbox chains ---- */

/* Walks a chain for len message bytes beyond the inline 16; copies the data
 * into buf (read) or checks the blocks (write: buf NULL). Returns a delivery
 * status. */
static uint8_t walk_chain(struct msim *m, uint64_t ptr, size_t len, uint8_t token, uint8_t *buf,
			  bool out)
{
	unsigned nblk = zn_mlx5_cmd_blocks(len + ZN_MLX5_CMD_INLINE_SIZE);
	uint8_t align_err = out ? ZN_MLX5_DSTAT_OUT_PTR_ALIGN : ZN_MLX5_DSTAT_IN_PTR_ALIGN;
	uint8_t len_err = out ? ZN_MLX5_DSTAT_OUT_LENGTH_ERR : ZN_MLX5_DSTAT_IN_LENGTH_ERR;

	if (nblk == 0)
		return ZN_MLX5_DSTAT_OK;
	if (ptr & (ZN_MLX5_CMD_IN_PTR_ALIGN - 1))
		return align_err;
	for (unsigned k = 0; k < nblk; k++) {
		struct zn_mlx5_cmd_mbox b;
		size_t n = len - (size_t)k * ZN_MLX5_CMD_MBOX_DATA_SIZE;

		if (!ptr)
			return len_err;
		if (zn_vfu_dma_read(m->dev, ptr, &b, sizeof(b)))
			return ZN_MLX5_DSTAT_FW_ERR;
		if (zn_mlx5_bswap32(b.block_num_be) != k)
			return ZN_MLX5_DSTAT_BAD_BLK_NUM;
		if (b.token != token)
			return ZN_MLX5_DSTAT_TOK_ERR;
		if (out && zn_vfu_dma_probe(m->dev, ptr, sizeof(b), ZN_VFU_DMA_TO_RAM))
			return ZN_MLX5_DSTAT_FW_ERR;
		if (buf)
			memcpy(buf + (size_t)k * ZN_MLX5_CMD_MBOX_DATA_SIZE, b.data,
			       n < ZN_MLX5_CMD_MBOX_DATA_SIZE ? n : ZN_MLX5_CMD_MBOX_DATA_SIZE);
		ptr = zn_mlx5_bswap64(b.next_be);
		if (k + 1 < nblk && (ptr & (ZN_MLX5_CMD_MBOX_ALIGN - 1)))
			return align_err;
	}
	return ZN_MLX5_DSTAT_OK;
}

/* Writes len output bytes beyond the inline 16 into the (checked) chain. */
static bool write_chain(struct msim *m, uint64_t ptr, const uint8_t *buf, size_t len)
{
	for (unsigned k = 0; len; k++) {
		size_t n = len < ZN_MLX5_CMD_MBOX_DATA_SIZE ? len : ZN_MLX5_CMD_MBOX_DATA_SIZE;
		uint8_t data[ZN_MLX5_CMD_MBOX_DATA_SIZE] = { 0 };
		uint64_t next;

		memcpy(data, buf, n);
		if (zn_vfu_dma_write(m->dev, ptr, data, sizeof(data)) ||
		    zn_vfu_dma_read(m->dev, ptr + offsetof(struct zn_mlx5_cmd_mbox, next_be), &next,
				    sizeof(next)))
			return false;
		ptr = zn_mlx5_bswap64(next);
		buf += n;
		len -= n;
	}
	return true;
}

static uint8_t run_slot(struct msim *m, struct zn_mlx5_cmd_entry *e)
{
	size_t inlen = zn_mlx5_bswap32(e->inlen_be), outlen = zn_mlx5_bswap32(e->outlen_be);
	uint64_t in_ptr = zn_mlx5_bswap64(e->in_ptr_be), out_ptr = zn_mlx5_bswap64(e->out_ptr_be);
	struct msim_cmd c;
	uint8_t st;

	if (e->type != ZN_MLX5_CMD_TYPE_PCIE)
		return ZN_MLX5_DSTAT_CMD_DESC_TYPE;
	if (inlen < 8 || inlen > MSIM_MSG_MAX)
		return ZN_MLX5_DSTAT_IN_LENGTH_ERR;
	if (outlen < 8 || outlen > MSIM_MSG_MAX)
		return ZN_MLX5_DSTAT_OUT_LENGTH_ERR;
	memset(m->msg_in, 0, inlen);
	memcpy(m->msg_in, e->in, ZN_MLX5_CMD_INLINE_SIZE);
	if (inlen > ZN_MLX5_CMD_INLINE_SIZE) {
		st = walk_chain(m, in_ptr, inlen - ZN_MLX5_CMD_INLINE_SIZE, e->token,
				m->msg_in + ZN_MLX5_CMD_INLINE_SIZE, false);
		if (st)
			return st;
	}
	if (outlen > ZN_MLX5_CMD_INLINE_SIZE) {
		st = walk_chain(m, out_ptr, outlen - ZN_MLX5_CMD_INLINE_SIZE, e->token, NULL, true);
		if (st)
			return st;
	}
	c = (struct msim_cmd){ .in = m->msg_in, .inlen = inlen, .out = m->msg_out,
			       .outlen = outlen };
	msim_cmd_exec(m, &c);
	memcpy(e->out, m->msg_out, ZN_MLX5_CMD_INLINE_SIZE);
	if (outlen > ZN_MLX5_CMD_INLINE_SIZE &&
	    !write_chain(m, out_ptr, m->msg_out + ZN_MLX5_CMD_INLINE_SIZE,
			 outlen - ZN_MLX5_CMD_INLINE_SIZE))
		return ZN_MLX5_DSTAT_FW_ERR;
	return ZN_MLX5_DSTAT_OK;
}

void msim_cmd_doorbell(struct msim *m, uint32_t vector)
{
	uint32_t done = 0;

	MSIM_INC(m, cmd_doorbells);
	for (unsigned i = 0; i < (1u << MSIM_LOG_CMDQ_SIZE); i++) {
		uint64_t addr = m->cmdq + ((uint64_t)i << MSIM_LOG_CMDQ_STRIDE);
		struct zn_mlx5_cmd_entry e;
		uint8_t st;

		if (!(vector & (1u << i)))
			continue;
		if (m->synd) {
			/* A dead device completes nothing: the slot stays the device's. */
			MSIM_INC(m, cmd_dropped_fatal);
			continue;
		}
		if (!m->cmdq || zn_vfu_dma_read(m->dev, addr, &e, sizeof(e))) {
			MSIM_INC(m, cmd_delivery_errors);
			continue;
		}
		if (!(e.status_own & ZN_MLX5_CMD_OWNER_HW)) {
			MSIM_INC(m, cmd_not_owned);
			continue;
		}
		st = run_slot(m, &e);
		if (m->cmd_hang) {	/* never completed: the driver times out */
			m->cmd_hang = false;
			continue;
		}
		if (st) {
			MSIM_INC(m, cmd_delivery_errors);
			ZN_SIM_LOG_RL_AT(&m->rl_cmd, ZN_SIM_LOG_DEBUG, MSIM_LOG,
					 "%s: slot %u: delivery status %#x", m->name, i, st);
		}
		/* Body first, then the byte that hands the slot back. */
		e.status_own = 0;
		if (zn_vfu_dma_write(m->dev, addr, &e, sizeof(e) - 1))
			continue;
		e.status_own = (uint8_t)(st << ZN_MLX5_CMD_STATUS_SHIFT);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		if (zn_vfu_dma_write(m->dev, addr + sizeof(e) - 1, &e.status_own, 1))
			continue;
		done |= 1u << i;
	}
	if (done) {
		uint8_t data[28] = { 0 };

		zn_mlx5_st_be32(data, done);
		if (msim_eq_for_event(m, ZN_MLX5_EVENT_CMD)) {
			MSIM_INC(m, cmd_eqes);
			msim_event(m, ZN_MLX5_EVENT_CMD, 0, data);
		}
	}
}
