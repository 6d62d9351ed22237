/* SPDX-License-Identifier: MIT */
/*
 * The bnxt model's side of fault injection (sim/fault.h): a failing or
 * unanswered HWRM command, a fatal firmware error, a function reset under
 * the driver. hw-docs/bnxt-model.md says what the driver sees.
 */
#include "sim/bnxt/priv.h"
#include "sim/fault.h"

bool bsim_fault_cmd(struct bsim *m, const struct bsim_req *rq, int *code)
{
	uint32_t err = 0;

	switch (zn_sim_fault_cmd(&m->port, rq->hdr->req_type, &err)) {
	case ZN_SIM_FAULT_CMD_HANG:
		ZN_SIM_WARN(BSIM_LOG, "%s: HWRM req_type %#x seq %u left unanswered (cmd-hang fault)",
			    m->name, rq->hdr->req_type, rq->hdr->seq_id);
		return true;
	case ZN_SIM_FAULT_CMD_FAIL:
		BSIM_INC(m, hwrm_fault_fails);
		*code = bsim_refuse(m, rq, err ? (int)err : BNXT_HWRM_ERR_FAIL,
				    "cmd-fail fault injection");
		return false;
	default:
		return false;
	}
}

/* RESET_NOTIFY, if the driver asked for it: the one word a polling driver
 * gets before its rings stop (reason: hw-docs/bnxt.md 13). */
static void notify_reset(struct bsim *m, uint32_t reason)
{
	struct bnxt_async_event_cmpl e = { 0 };

	if (!m->registered || !m->async_cr ||
	    !(m->async_fwd[BNXT_ASYNC_EVENT_RESET_NOTIFY / 32] &
	      (1u << (BNXT_ASYNC_EVENT_RESET_NOTIFY % 32))))
		return;
	e.type = BNXT_CMPL_TYPE_HWRM_ASYNC_EVENT;
	e.event_id = BNXT_ASYNC_EVENT_RESET_NOTIFY;
	e.event_data1 = reason;
	if (bsim_cq_post(m, m->async_cr, &e, 1))
		BSIM_INC(m, async_events);
}

enum zn_sim_fault_event bsim_fault_poll(struct bsim *m)
{
	enum zn_sim_fault_event ev = zn_sim_fault_event(&m->port);

	switch (ev) {
	case ZN_SIM_FAULT_FATAL:
		ZN_SIM_WARN(BSIM_LOG, "%s: firmware fatal error (fatal-after fault): no more "
			    "commands or frames until a new client", m->name);
		notify_reset(m, BNXT_RESET_NOTIFY_REASON_FW_FATAL);
		m->fw_dead = true;
		m->link_up = false;
		break;
	case ZN_SIM_FAULT_FLR:
		ZN_SIM_WARN(BSIM_LOG, "%s: function reset under the driver (flr-after fault)",
			    m->name);
		notify_reset(m, BNXT_RESET_NOTIFY_REASON_MGMT);
		break;
	default:
		break;
	}
	return ev;
}
