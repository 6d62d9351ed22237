/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for rdma-core, the kernel's mlx5_ib DevX interface and the
 * firmware's umem handling, at the boundary zcnic calls (core/bus/
 * rdma_lib.h), for tests only. Every command reaches the mlx5 device model
 * through zn_sim_mlx5_exec, in process:
 *  - opening a device does what mlx5_core does at probe (ENABLE_HCA, ISSI,
 *    pages, SET_HCA_CAP, INIT_HCA) and makes the kernel's EQ;
 *  - obj_create accepts only what the kernel's DevX accepts as a create,
 *    records the destroy command the kernel would derive, and obj_destroy
 *    runs it; obj_modify checks the object number as the kernel does;
 *    general_cmd refuses creates, destroys and modifies;
 *  - umem_reg maps the memory into the model (IOVA = VA, the region's
 *    memfd) and umem references in CREATE_CQ/RQ/SQ become pas[] lists, as
 *    the firmware resolves them;
 *  - ibv_reg_mr makes an MTT mkey (a range) or, for the implicit ODP
 *    region, a PA mkey (any address); alloc_uar gives a model UAR number
 *    with plain memory as its page (the data path is not exercised here);
 *  - a flow rule to a DevX flow table becomes SET_FLOW_TABLE_ROOT.
 * One shim per process (rdma-core's calls carry no context of ours).
 */
#ifndef ZCNIC_TEST_DEVX_SHIM_H
#define ZCNIC_TEST_DEVX_SHIM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/bus/rdma_lib.h"
#include "sim/model.h"

#define SHIM_MAX_OBJS	256
#define SHIM_MAX_DEVS	4

struct shim_obj {
	bool live;
	uint16_t create_op;
	uint32_t id;			/* the number the create returned (or flow index) */
	uint8_t destroy_in[64];
	uint32_t destroy_len;
};

struct shim_stats {
	uint32_t creates, destroys, modifies, general, umem_creates;
	uint32_t umems_live, mrs_live, uars_live, pds_live, flows_live, ctx_live;
	uint32_t refused;		/* calls the kernel would refuse */
	uint32_t root_ft;		/* the table a root rule points to (0: none) */
};

struct devx_shim {
	struct zn_sim_device *dev;
	struct zn_rdma_lib lib;
	const char *names[SHIM_MAX_DEVS];
	unsigned ndev;
	struct shim_obj obj[SHIM_MAX_OBJS];
	unsigned nobj;
	struct shim_stats st;
	uint16_t fail_op;		/* the next create of this opcode fails ... */
	uint8_t fail_status;		/* ... with this status */
	bool no_odp;			/* refuse the implicit ODP region */
};

/* The model device, the kernel's bring-up, the table installed as
 * zcnic's rdma-core; devices listed by names[] (mlx5_* are mlx5). 0 or -1. */
int devx_shim_start(struct devx_shim *s, const char *const *names, unsigned n);
void devx_shim_stop(struct devx_shim *s);
/* Objects created and not destroyed, by create opcode (0: all). */
unsigned devx_shim_live(const struct devx_shim *s, uint16_t create_op);
/* Runs a recorded object's destroy again: the model's status (BAD_RES when gone). */
uint8_t devx_shim_redestroy(struct devx_shim *s, const struct shim_obj *o);

#endif
