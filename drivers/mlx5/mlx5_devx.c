/* SPDX-License-Identifier: MIT */
/*
 * The DevX command transport (hw-docs/mlx5.md §16): the ConnectX stays
 * bound to the kernel's mlx5_core, and the driver's command bytes travel
 * through rdma-core (libibverbs + mlx5dv) instead of the command queue.
 *
 * exec() takes the same whole messages as the command queue and routes
 * each by opcode, as the kernel's DevX interface requires:
 *  - a create (CREATE_*, ALLOC_PD/TD, SET_FLOW_TABLE_ENTRY) goes through
 *    mlx5dv_devx_obj_create, and the handle is kept under the numbers that
 *    name the object (CQN, table + group, table + flow index, ...);
 *  - the matching destroy finds that handle and calls obj_destroy (the
 *    kernel sends the destroy command it derived from the create, and would
 *    send it itself if the process died);
 *  - MODIFY_SQ/RQ/RQT/TIR go through obj_modify on the object's handle;
 *  - SET_FLOW_TABLE_ROOT becomes a kernel flow rule that forwards every
 *    packet into the driver's table (the NIC RX root is the kernel's);
 *  - the HCA's life (ENABLE/INIT/TEARDOWN/DISABLE, ISSI, pages, SET_HCA_CAP)
 *    and EQ/UAR commands are the kernel's and are refused;
 *  - anything else (QUERY_*, ACCESS_REG) is a general command.
 * Memory: each DMA region the driver allocates is registered as a umem;
 * queue commands name it by umem id and offset (mlx5_queue.c); packet
 * buffers are reached through one implicit On-Demand-Paging memory region
 * whose lkey covers the whole address space (IOVA = VA, ibv_reg_mr(3)).
 *
 * Tested only against the device model, through a stand-in for rdma-core
 * (tests/unit/support/devx_shim.c); never run on a real ConnectX.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus/rdma_lib.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

/* How a class of objects is named by its create and its destroy. */
enum devx_kind {
	KIND_ID,	/* create out dword 0x08, destroy in dword 0x08 */
	KIND_FT,	/* create out dword 0x08, destroy in dword 0x14 */
	KIND_FG,	/* table in dword 0x14 + group (create out 0x08, destroy in 0x18) */
	KIND_FTE,	/* table in dword 0x14 + flow index in dword 0x20, both commands */
};

static const struct devx_class {
	uint16_t create, destroy, modify;
	enum devx_kind kind;
} classes[] = {
	{ ZN_MLX5_CMD_OP_ALLOC_PD, ZN_MLX5_CMD_OP_DEALLOC_PD, 0, KIND_ID },
	{ ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 0,
	  KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_MKEY, ZN_MLX5_CMD_OP_DESTROY_MKEY, 0, KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_CQ, ZN_MLX5_CMD_OP_DESTROY_CQ, 0, KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_SQ, ZN_MLX5_CMD_OP_DESTROY_SQ, ZN_MLX5_CMD_OP_MODIFY_SQ, KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_RQ, ZN_MLX5_CMD_OP_DESTROY_RQ, ZN_MLX5_CMD_OP_MODIFY_RQ, KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_TIS, ZN_MLX5_CMD_OP_DESTROY_TIS, 0, KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_TIR, ZN_MLX5_CMD_OP_DESTROY_TIR, ZN_MLX5_CMD_OP_MODIFY_TIR,
	  KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_RQT, ZN_MLX5_CMD_OP_DESTROY_RQT, ZN_MLX5_CMD_OP_MODIFY_RQT,
	  KIND_ID },
	{ ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE, ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, KIND_FT },
	{ ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP, ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP, 0, KIND_FG },
	{ ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY, 0,
	  KIND_FTE },
};

struct devx_obj {
	struct mlx5dv_devx_obj *h;
	const struct devx_class *cls;
	uint32_t key[2];
};

struct devx_umem {
	struct mlx5dv_devx_umem *h;
	struct zn_dma_region *r;
};

struct mlx5_devx {
	const struct zn_rdma_lib *lib;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *all_mr;		/* implicit ODP: every address, one lkey */
	struct mlx5dv_devx_uar *uar;
	struct devx_obj *obj;
	uint32_t nobj, obj_cap;
	struct devx_umem *umem;
	uint32_t numem, umem_cap;
	struct mlx5dv_flow_matcher *root_matcher;	/* SET_FLOW_TABLE_ROOT's rule */
	struct ibv_flow *root_flow;
	uint32_t root_ft;
};

static uint32_t dw24(const void *msg, uint32_t off)
{
	return zn_mlx5_ld_be32((const uint8_t *)msg + off) & 0xffffff;
}

static uint32_t dw32(const void *msg, uint32_t off)
{
	return zn_mlx5_ld_be32((const uint8_t *)msg + off);
}

static const struct devx_class *class_by_create(uint16_t op)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i].create == op)
			return &classes[i];
	return NULL;
}

static const struct devx_class *class_of(uint16_t op, bool *create, bool *destroy,
					 bool *modify)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		*create = classes[i].create == op;
		*destroy = classes[i].destroy == op;
		*modify = classes[i].modify && classes[i].modify == op;
		if (*create || *destroy || *modify)
			return &classes[i];
	}
	return NULL;
}

/* The numbers naming an object, from its create (in and out). */
static void create_key(const struct devx_class *c, const void *in, const void *out,
		       uint32_t key[2])
{
	key[1] = 0;
	switch (c->kind) {
	case KIND_ID:
	case KIND_FT:
		key[0] = dw24(out, 0x08);
		break;
	case KIND_FG:
		key[0] = dw24(in, 0x14);
		key[1] = dw24(out, 0x08);
		break;
	case KIND_FTE:
		key[0] = dw24(in, 0x14);
		key[1] = dw32(in, 0x20);
		break;
	}
}

/* The same numbers, from a destroy or modify input. */
static void destroy_key(const struct devx_class *c, const void *in, uint32_t key[2])
{
	key[1] = 0;
	switch (c->kind) {
	case KIND_ID:
		key[0] = dw24(in, 0x08);
		break;
	case KIND_FT:
		key[0] = dw24(in, 0x14);
		break;
	case KIND_FG:
		key[0] = dw24(in, 0x14);
		key[1] = dw32(in, 0x18);
		break;
	case KIND_FTE:
		key[0] = dw24(in, 0x14);
		key[1] = dw32(in, 0x20);
		break;
	}
}

static struct devx_obj *obj_find(struct mlx5_devx *x, const struct devx_class *c,
				 const uint32_t key[2])
{
	for (uint32_t i = 0; i < x->nobj; i++)
		if (x->obj[i].cls == c && x->obj[i].key[0] == key[0] && x->obj[i].key[1] == key[1])
			return &x->obj[i];
	return NULL;
}

static void obj_forget(struct mlx5_devx *x, struct devx_obj *o)
{
	*o = x->obj[--x->nobj];
}

/* Commands that belong to the kernel's mlx5_core under DevX (§16). */
static bool kernel_owned(uint16_t op)
{
	switch (op) {
	case ZN_MLX5_CMD_OP_ENABLE_HCA: case ZN_MLX5_CMD_OP_DISABLE_HCA:
	case ZN_MLX5_CMD_OP_INIT_HCA: case ZN_MLX5_CMD_OP_TEARDOWN_HCA:
	case ZN_MLX5_CMD_OP_SET_ISSI: case ZN_MLX5_CMD_OP_SET_HCA_CAP:
	case ZN_MLX5_CMD_OP_QUERY_PAGES: case ZN_MLX5_CMD_OP_MANAGE_PAGES:
	case ZN_MLX5_CMD_OP_CREATE_EQ: case ZN_MLX5_CMD_OP_DESTROY_EQ:
	case ZN_MLX5_CMD_OP_ALLOC_UAR: case ZN_MLX5_CMD_OP_DEALLOC_UAR:
		return true;
	default:
		return false;
	}
}

/* A failed rdma-core call: the device's status when it answered (the
 * caller decodes it), else the errno with one line. */
static int call_failed(struct mlx5 *m, const char *call, uint16_t op, const void *out, int err)
{
	if (((const uint8_t *)out)[0] != ZN_MLX5_CMD_STAT_OK)
		return 0;
	ZN_ERR(MLX5_LOG, "%s: %s (0x%x): %s failed: %s", m->name, zn_mlx5_cmd_name(op), op, call,
	       strerror(err ? err : EIO));
	return -(err ? err : EIO);
}

static int obj_create(struct mlx5 *m, const struct devx_class *c, const void *in,
		      uint32_t inlen, void *out, uint32_t outlen)
{
	struct mlx5_devx *x = m->devx;
	uint16_t op = c->create;
	struct mlx5dv_devx_obj *h;
	struct devx_obj *o;

	if (x->nobj == x->obj_cap) {
		uint32_t cap = x->obj_cap ? 2 * x->obj_cap : 64;
		struct devx_obj *v = realloc(x->obj, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		x->obj = v;
		x->obj_cap = cap;
	}
	errno = 0;
	h = x->lib->mlx5dv_devx_obj_create(x->ctx, in, inlen, out, outlen);
	if (!h)
		return call_failed(m, "mlx5dv_devx_obj_create", op, out, errno);
	o = &x->obj[x->nobj++];
	o->h = h;
	o->cls = c;
	create_key(c, in, out, o->key);
	return 0;
}

/* The output a destroy command would have had: status OK, nothing else. */
static int obj_destroy(struct mlx5 *m, const struct devx_class *c, const void *in, void *out)
{
	struct mlx5_devx *x = m->devx;
	struct devx_obj *o;
	uint32_t key[2];
	int rc;

	destroy_key(c, in, key);
	o = obj_find(x, c, key);
	if (!o) {
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x) of 0x%x/0x%x: no such object was created",
		       m->name, zn_mlx5_cmd_name(c->destroy), c->destroy, key[0], key[1]);
		return -ENOENT;
	}
	rc = x->lib->mlx5dv_devx_obj_destroy(o->h);
	if (rc) {	/* the kernel keeps the object: so do we */
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x) of 0x%x/0x%x: mlx5dv_devx_obj_destroy failed: %s",
		       m->name, zn_mlx5_cmd_name(c->destroy), c->destroy, key[0], key[1],
		       strerror(rc > 0 ? rc : EIO));
		return rc > 0 ? -rc : -EIO;
	}
	obj_forget(x, o);
	((uint8_t *)out)[0] = ZN_MLX5_CMD_STAT_OK;
	return 0;
}

/* The object's numbers sit where its destroy has them (MODIFY_* dword 0x08,
 * SET_FLOW_TABLE_ENTRY's table and index). */
static int obj_modify(struct mlx5 *m, const struct devx_class *c, uint16_t op, const void *in,
		      uint32_t inlen, void *out, uint32_t outlen)
{
	struct mlx5_devx *x = m->devx;
	struct devx_obj *o;
	uint32_t key[2];
	int rc;

	destroy_key(c, in, key);
	o = obj_find(x, c, key);
	if (!o) {
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x) of 0x%x/0x%x: no such object was created", m->name,
		       zn_mlx5_cmd_name(op), op, key[0], key[1]);
		return -ENOENT;
	}
	rc = x->lib->mlx5dv_devx_obj_modify(o->h, in, inlen, out, outlen);
	return rc ? call_failed(m, "mlx5dv_devx_obj_modify", op, out, rc) : 0;
}

/*
 * SET_FLOW_TABLE_ROOT: the kernel owns the NIC RX root, so the driver's
 * table is reached by a kernel flow rule with an empty mask (every packet)
 * whose action is "go to this DevX flow table" (MLX5DV_FLOW_ACTION_DEST_DEVX).
 */
static void root_remove(struct mlx5_devx *x)
{
	if (x->root_flow)
		x->lib->destroy_flow(x->root_flow);
	if (x->root_matcher)
		x->lib->mlx5dv_destroy_flow_matcher(x->root_matcher);
	x->root_flow = NULL;
	x->root_matcher = NULL;
	x->root_ft = 0;
}

static int root_set(struct mlx5 *m, const void *in, void *out)
{
	struct mlx5_devx *x = m->devx;
	const struct devx_class *ft = class_by_create(ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE);
	uint32_t key[2] = { dw24(in, 0x14), 0 };
	/* An fte_match_param, all zero in mask and value: every packet. */
	uint64_t match_mem[(sizeof(struct mlx5dv_flow_match_parameters) +
			    ZN_MLX5_SZ_MATCH_PARAM + 7) / 8] = { 0 };
	struct mlx5dv_flow_match_parameters *match = (void *)match_mem;
	struct mlx5dv_flow_matcher_attr attr = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.priority = 0,
		.match_criteria_enable = 0,
		.match_mask = match,
		.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE,
		.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX,
	};
	struct mlx5dv_flow_action_attr act = { .type = MLX5DV_FLOW_ACTION_DEST_DEVX };
	struct devx_obj *o;

	o = obj_find(x, ft, key);
	if (!o) {
		ZN_ERR(MLX5_LOG, "%s: SET_FLOW_TABLE_ROOT: table 0x%x was not created here",
		       m->name, key[0]);
		return -ENOENT;
	}
	root_remove(x);
	match->match_sz = ZN_MLX5_SZ_MATCH_PARAM;
	act.obj = o->h;
	errno = 0;
	x->root_matcher = x->lib->mlx5dv_create_flow_matcher(x->ctx, &attr);
	if (x->root_matcher)
		x->root_flow = x->lib->mlx5dv_create_flow(x->root_matcher, match, 1, &act);
	if (!x->root_flow) {
		int err = errno ? errno : EIO;

		root_remove(x);
		ZN_ERR(MLX5_LOG, "%s: SET_FLOW_TABLE_ROOT: no kernel rule into table 0x%x: %s",
		       m->name, key[0], strerror(err));
		return -err;
	}
	x->root_ft = key[0];
	((uint8_t *)out)[0] = ZN_MLX5_CMD_STAT_OK;
	return 0;
}

static int devx_exec(struct mlx5 *m, const void *in, uint32_t inlen, void *out,
		     uint32_t outlen)
{
	struct mlx5_devx *x = m->devx;
	uint16_t op = (uint16_t)ZN_MLX5_GET(in, IN_OPCODE);
	bool create, destroy, modify;
	const struct devx_class *c;
	int rc;

	if (kernel_owned(op)) {
		ZN_ERR(MLX5_LOG, "%s: %s (0x%x) belongs to the kernel's mlx5_core under DevX",
		       m->name, zn_mlx5_cmd_name(op), op);
		return -EPERM;
	}
	if (op == ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT)
		return root_set(m, in, out);
	c = class_of(op, &create, &destroy, &modify);
	/* SET_FLOW_TABLE_ENTRY with op_mod 1 modifies the entry it names. */
	if (c && create && op == ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY &&
	    ZN_MLX5_GET(in, IN_OP_MOD) != 0)
		return obj_modify(m, c, op, in, inlen, out, outlen);
	if (c && create)
		return obj_create(m, c, in, inlen, out, outlen);
	if (c && destroy) {
		/* A table the root rule points to loses the rule first. */
		if (op == ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE && x->root_ft == dw24(in, 0x14))
			root_remove(x);
		return obj_destroy(m, c, in, out);
	}
	if (c && modify)
		return obj_modify(m, c, op, in, inlen, out, outlen);
	rc = x->lib->mlx5dv_devx_general_cmd(x->ctx, in, inlen, out, outlen);
	return rc ? call_failed(m, "mlx5dv_devx_general_cmd", op, out, rc) : 0;
}

/* ---- memory -------------------------------------------------------------- */

static int devx_dma_alloc(struct mlx5 *m, const char *what, size_t len,
			  struct zn_dma_region **out)
{
	struct mlx5_devx *x = m->devx;
	struct zn_dma_region *r;
	struct mlx5dv_devx_umem *h;
	int rc;

	if (x->numem == x->umem_cap) {
		uint32_t cap = x->umem_cap ? 2 * x->umem_cap : 16;
		struct devx_umem *v = realloc(x->umem, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		x->umem = v;
		x->umem_cap = cap;
	}
	rc = zn_dma_region_alloc(what, len, -1, ZN_DMA_NO_HUGE, &r);
	if (rc < 0) {
		ZN_ERR(MLX5_LOG, "%s: cannot allocate %zu bytes for %s: %s", m->name, len, what,
		       strerror(-rc));
		return rc;
	}
	memset(r->va, 0, r->len);
	errno = 0;
	h = x->lib->mlx5dv_devx_umem_reg(x->ctx, r->va, r->len, IBV_ACCESS_LOCAL_WRITE);
	if (!h) {
		rc = errno ? -errno : -EIO;
		ZN_ERR(MLX5_LOG, "%s: mlx5dv_devx_umem_reg of %s (%zu bytes) failed: %s", m->name,
		       what, r->len, strerror(-rc));
		zn_dma_region_free(r);
		return rc;
	}
	x->umem[x->numem++] = (struct devx_umem){ .h = h, .r = r };
	*out = r;
	return 0;
}

static void devx_dma_free(struct mlx5 *m, struct zn_dma_region *r)
{
	struct mlx5_devx *x = m->devx;

	for (uint32_t i = 0; i < x->numem; i++) {
		if (x->umem[i].r != r)
			continue;
		if (x->lib->mlx5dv_devx_umem_dereg(x->umem[i].h))
			ZN_ERR(MLX5_LOG, "%s: mlx5dv_devx_umem_dereg of %s failed; the memory "
			       "stays allocated", m->name, r->name);
		else
			zn_dma_region_free(r);
		x->umem[i] = x->umem[--x->numem];
		return;
	}
	zn_dma_region_free(r);
}

static int devx_umem_of(struct mlx5 *m, uint64_t iova, size_t len, uint32_t *id,
			uint64_t *off)
{
	struct mlx5_devx *x = m->devx;

	for (uint32_t i = 0; i < x->numem; i++) {
		const struct zn_dma_region *r = x->umem[i].r;

		if (iova >= r->iova && iova - r->iova <= r->len && len <= r->len - (iova - r->iova)) {
			*id = x->umem[i].h->umem_id;
			*off = iova - r->iova;
			return 0;
		}
	}
	ZN_ERR(MLX5_LOG, "%s: 0x%llx+%zu is in no registered umem", m->name,
	       (unsigned long long)iova, len);
	return -EFAULT;
}

/* A memory region starting at iova (IOVA = VA): its lkey names the range. */
static int devx_mkey_reg(struct mlx5 *m, uint64_t iova, size_t len, uint32_t *key,
			 void **handle)
{
	struct mlx5_devx *x = m->devx;
	struct ibv_mr *mr;

	errno = 0;
	mr = x->lib->reg_mr(x->pd, (void *)(uintptr_t)iova, len,
			    IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		ZN_ERR(MLX5_LOG, "%s: ibv_reg_mr of %zu bytes failed: %s", m->name, len,
		       strerror(errno ? errno : EIO));
		return errno ? -errno : -EIO;
	}
	*key = mr->lkey;
	*handle = mr;
	return 0;
}

static void devx_mkey_dereg(struct mlx5 *m, void *handle)
{
	if (handle && m->devx->lib->dereg_mr(handle))
		ZN_ERR(MLX5_LOG, "%s: ibv_dereg_mr failed", m->name);
}

/* ---- open, resources, close --------------------------------------------- */

static void devx_fini(struct mlx5 *m)
{
	struct mlx5_devx *x = m->devx;

	if (!x)
		return;
	root_remove(x);
	/* Whatever the driver did not destroy goes now, newest first. */
	if (x->nobj)
		ZN_ERR(MLX5_LOG, "%s: %u DevX objects left at close; destroying them", m->name,
		       x->nobj);
	while (x->nobj) {
		struct devx_obj *o = &x->obj[x->nobj - 1];

		x->lib->mlx5dv_devx_obj_destroy(o->h);
		x->nobj--;
	}
	if (x->all_mr)
		x->lib->dereg_mr(x->all_mr);
	if (x->pd)
		x->lib->dealloc_pd(x->pd);
	if (x->uar)
		x->lib->mlx5dv_devx_free_uar(x->uar);
	while (x->numem)
		devx_dma_free(m, x->umem[x->numem - 1].r);
	if (x->ctx)
		x->lib->close_device(x->ctx);
	free(x->obj);
	free(x->umem);
	free(x);
	m->devx = NULL;
}

const struct mlx5_cmd_ops zn_mlx5_devx_ops = {
	.name = "devx",
	.exec = devx_exec,
	.fini = devx_fini,
	.dma_alloc = devx_dma_alloc,
	.dma_free = devx_dma_free,
	.umem_of = devx_umem_of,
	.mkey_reg = devx_mkey_reg,
	.mkey_dereg = devx_mkey_dereg,
};

int zn_mlx5_devx_open(struct mlx5 *m, const char *rdma_name)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list, *dev = NULL;
	const struct zn_rdma_lib *lib;
	struct mlx5_devx *x;
	char err[256];
	int num = 0;

	lib = zn_rdma_lib(err, sizeof(err));
	if (!lib) {
		ZN_ERR(MLX5_LOG, "%s: %s", m->name, err);
		return -ENOSYS;
	}
	list = lib->get_device_list(&num);
	for (int i = 0; list && i < num && !dev; i++)
		if (!strcmp(lib->get_device_name(list[i]), rdma_name))
			dev = list[i];
	if (!dev) {
		ZN_ERR(MLX5_LOG, "%s: rdma-core lists no device %s (is the mlx5_ib module "
		       "loaded?)", m->name, rdma_name);
		if (list)
			lib->free_device_list(list);
		return -ENODEV;
	}
	if (!lib->mlx5dv_is_supported(dev)) {
		ZN_ERR(MLX5_LOG, "%s: %s is not an mlx5 device for rdma-core", m->name, rdma_name);
		lib->free_device_list(list);
		return -ENODEV;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		lib->free_device_list(list);
		return -ENOMEM;
	}
	x->lib = lib;
	errno = 0;
	x->ctx = lib->mlx5dv_open_device(dev, &attr);
	lib->free_device_list(list);
	if (!x->ctx) {
		int e = errno ? errno : EOPNOTSUPP;

		ZN_ERR(MLX5_LOG, "%s: mlx5dv_open_device(%s, DEVX) failed: %s (DevX needs "
		       "Linux 5.1+ with mlx5_ib, and CAP_NET_RAW for raw Ethernet objects)",
		       m->name, rdma_name, strerror(e));
		free(x);
		return -e;
	}
	m->devx = x;
	m->cmd_ops = &zn_mlx5_devx_ops;
	return 0;
}

int zn_mlx5_devx_resources(struct mlx5 *m)
{
	struct mlx5_devx *x = m->devx;
	struct mlx5dv_pd dvpd = { 0 };
	struct mlx5dv_obj obj = { .pd = { .out = &dvpd } };
	uint32_t eqn;
	int rc;

	/* §4 step 15: a UAR the kernel allocated and mapped for us. */
	errno = 0;
	x->uar = x->lib->mlx5dv_devx_alloc_uar(x->ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!x->uar) {
		ZN_ERR(MLX5_LOG, "%s: mlx5dv_devx_alloc_uar failed: %s", m->name,
		       strerror(errno ? errno : EIO));
		return errno ? -errno : -EIO;
	}
	m->uar = (struct mlx5_uar){ .index = x->uar->page_id, .va = x->uar->base_addr,
				    .bus = m->bus };
	/* §4 step 16: the kernel's EQ for completion vector 0. */
	rc = x->lib->mlx5dv_devx_query_eqn(x->ctx, 0, &eqn);
	if (rc) {
		ZN_ERR(MLX5_LOG, "%s: mlx5dv_devx_query_eqn failed: %s", m->name,
		       strerror(rc > 0 ? rc : EIO));
		return rc > 0 ? -rc : -EIO;
	}
	m->eq.eqn = (uint8_t)eqn;
	/* §4 step 17: a verbs PD (memory regions need one) and its number. */
	x->pd = x->lib->alloc_pd(x->ctx);
	obj.pd.in = x->pd;
	if (!x->pd || x->lib->mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD)) {
		ZN_ERR(MLX5_LOG, "%s: no protection domain (ibv_alloc_pd / mlx5dv_init_obj)",
		       m->name);
		return -EIO;
	}
	m->pdn = dvpd.pdn;
	/* Packet buffers: one implicit ODP region covers every address. */
	errno = 0;
	x->all_mr = x->lib->reg_mr(x->pd, NULL, SIZE_MAX,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	if (!x->all_mr) {
		ZN_ERR(MLX5_LOG, "%s: implicit On-Demand-Paging memory region refused: %s "
		       "(zcnic's data path needs one key for every buffer)", m->name,
		       strerror(errno ? errno : EIO));
		return errno ? -errno : -EIO;
	}
	m->lkey = x->all_mr->lkey;
	return 0;
}

uint32_t zn_mlx5_devx_live_objects(const struct mlx5 *m)
{
	return m->devx ? m->devx->nobj + (m->devx->root_flow != NULL) : 0;
}

uint32_t zn_mlx5_devx_live_umems(const struct mlx5 *m)
{
	return m->devx ? m->devx->numem : 0;
}
