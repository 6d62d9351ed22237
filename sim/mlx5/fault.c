/* SPDX-License-Identifier: MIT */
/*
 * The mlx5 model's side of fault injection (sim/fault.h): a failing or
 * unanswered command, a fatal error (the health syndrome the driver polls),
 * a function reset. hw-docs/mlx5-model.md says what the driver sees.
 */
#include "sim/fault.h"
#include "sim/mlx5/priv.h"

bool msim_fault_cmd(struct msim *m, struct msim_cmd *c)
{
	uint32_t err = 0;

	switch (zn_sim_fault_cmd(&m->port, c->opcode, &err)) {
	case ZN_SIM_FAULT_CMD_HANG:
		ZN_SIM_WARN(MSIM_LOG, "%s: command %#x left unanswered (cmd-hang fault)", m->name,
			    c->opcode);
		m->cmd_hang = true;
		return true;
	case ZN_SIM_FAULT_CMD_FAIL:
		msim_fail(m, c, err ? (uint8_t)err : ZN_MLX5_CMD_STAT_INT_ERR, 0xfa17,
			  "cmd-fail fault injection");
		return true;
	default:
		return false;
	}
}

enum zn_sim_fault_event msim_fault_poll(struct msim *m)
{
	enum zn_sim_fault_event ev = zn_sim_fault_event(&m->port);

	if (ev == ZN_SIM_FAULT_FATAL)
		msim_fatal(m, ZN_MLX5_HEALTH_SYND_FW_INTERNAL_ERR, 0);
	else if (ev == ZN_SIM_FAULT_FLR)
		ZN_SIM_WARN(MSIM_LOG, "%s: function reset under the driver (flr-after fault)",
			    m->name);
	return ev;
}
