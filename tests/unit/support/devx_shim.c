/* SPDX-License-Identifier: MIT */
/* A stand-in for rdma-core + the kernel's DevX over the mlx5 model; see devx_shim.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drivers/mlx5/mlx5_hw.h"
#include "sim/mlx5/mlx5_sim.h"
#include "sim/vfu/vfu.h"
#include "tests/unit/support/devx_shim.h"
#include "zcnic/mem.h"
#include "zcnic/vfio_user.h"

#define KPAGES		512	/* the "kernel's" pages for the model */
#define KEQ_LOG		6
#define MSG_MAX		8192

/* The opaque rdma-core types, as this stand-in sees them. */
struct mlx5dv_devx_obj {
	unsigned slot;
};

struct mlx5dv_flow_matcher {
	int unused;
};

static struct devx_shim *S;
static struct ibv_device devs[SHIM_MAX_DEVS];
static struct ibv_context ctx;
static struct zn_dma_region *kmem;	/* pages lent to the model + the EQ */
static uint32_t kpages_used;
static uint16_t msg_id;
static uint32_t keqn, kuar;

static int feed(uint16_t cmd, const void *payload, size_t len, int *fds, unsigned nfds)
{
	uint8_t buf[sizeof(struct zn_vfu_hdr) + 64];
	struct zn_vfu_hdr h = { .msg_id = ++msg_id, .cmd = cmd,
				.msg_size = (uint32_t)(sizeof(h) + len) };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), payload, len);
	return zn_vfu_dev_feed(S->dev->dev, buf, sizeof(h) + len, fds, nfds);
}

/* Make [va, va + len) reachable by the model at IOVA = VA. */
static int dma_window(void *va, size_t len)
{
	struct zn_vfu_dma_map m = { sizeof(m), ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE, 0,
				    (uint64_t)(uintptr_t)va, len };
	uint64_t off;
	int fd;

	if (zn_mem_va_to_fd(va, len, &fd, &off) < 0)
		return -EFAULT;
	m.offset = off;
	fd = dup(fd);	/* the server takes the fd */
	return fd < 0 ? -errno : feed(ZN_VFU_DMA_MAP, &m, sizeof(m), &fd, 1);
}

static void dma_unwindow(void *va, size_t len)
{
	struct zn_vfu_dma_unmap u = { sizeof(u), 0, (uint64_t)(uintptr_t)va, len };

	feed(ZN_VFU_DMA_UNMAP, &u, sizeof(u), NULL, 0);
}

/* One command through the model; its status. */
static uint8_t kexec(const void *in, size_t inlen, void *out, size_t outlen)
{
	uint8_t tmp[16];

	if (!out || outlen < 16) {
		out = tmp;
		outlen = sizeof(tmp);
	}
	if (zn_sim_mlx5_exec(S->dev, in, inlen, out, outlen) < 0)
		return 0xff;
	return ((uint8_t *)out)[0];
}

static uint8_t ksimple(uint16_t op, uint16_t op_mod, uint32_t arg, uint32_t *out_val)
{
	uint8_t in[16] = { 0 }, out[16];
	uint8_t st;

	ZN_MLX5_SET(in, IN_OPCODE, op);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	zn_mlx5_st_be32(in + 8, arg);
	st = kexec(in, sizeof(in), out, sizeof(out));
	if (out_val)
		*out_val = zn_mlx5_ld_be32(out + 8) & 0xffffff;
	return st;
}

/* What mlx5_core's page handler does: QUERY_PAGES, then GIVE. */
static int kpages(uint16_t op_mod)
{
	uint8_t in[16 + 8 * 64] = { 0 }, out[16];
	int32_t n;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	if (kexec(in, 16, out, 16))
		return -1;
	n = (int32_t)ZN_MLX5_GET(out, QUERY_PAGES_OUT_NUM_PAGES);
	while (n > 0) {
		uint32_t k = n < 64 ? (uint32_t)n : 64;

		if (kpages_used + k > KPAGES)
			return -1;
		memset(in, 0, sizeof(in));
		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
		ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_GIVE);
		ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, k);
		for (uint32_t i = 0; i < k; i++)
			zn_mlx5_st_be64(in + 16 + 8 * i, kmem->iova + (uint64_t)(kpages_used + i) *
					ZN_MLX5_ADAPTER_PAGE_SIZE);
		if (kexec(in, 16 + 8 * k, out, 16))
			return -1;
		kpages_used += k;
		n -= (int32_t)k;
	}
	return 0;
}

/* mlx5_core's probe: the HCA up, and an EQ for completion vector 0. */
static int kernel_probe(void)
{
	uint8_t *cap_in, cap_out[ZN_MLX5_SZ_QUERY_HCA_CAP_OUT];
	uint8_t in[ZN_MLX5_SZ_CREATE_EQ_IN + 8] = { 0 }, out[16];
	uint8_t *eqc = ZN_MLX5_ADDR(in, CREATE_EQ_IN_EQC);
	int rc = -1;

	if (ksimple(ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, NULL))
		return -1;
	{
		uint8_t si[ZN_MLX5_SZ_SET_ISSI_IN] = { 0 };

		ZN_MLX5_SET(si, IN_OPCODE, ZN_MLX5_CMD_OP_SET_ISSI);
		ZN_MLX5_SET(si, SET_ISSI_IN_CURRENT_ISSI, ZN_MLX5_ISSI);
		if (kexec(si, sizeof(si), out, 16) || kpages(ZN_MLX5_PAGES_BOOT))
			return -1;
	}
	cap_in = calloc(1, ZN_MLX5_SZ_SET_HCA_CAP_IN);
	if (!cap_in)
		return -1;
	ZN_MLX5_SET(cap_in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_HCA_CAP);
	ZN_MLX5_SET(cap_in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 1));
	if (kexec(cap_in, ZN_MLX5_SZ_QUERY_HCA_CAP_IN, cap_out, sizeof(cap_out)) == 0) {
		memset(cap_in, 0, ZN_MLX5_SZ_SET_HCA_CAP_IN);
		ZN_MLX5_SET(cap_in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_HCA_CAP);
		ZN_MLX5_SET(cap_in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 0));
		memcpy(ZN_MLX5_ADDR(cap_in, SET_HCA_CAP_IN_CAPABILITY),
		       ZN_MLX5_ADDR(cap_out, QUERY_HCA_CAP_OUT_CAPABILITY), ZN_MLX5_CAP_SIZE);
		ZN_MLX5_SET(ZN_MLX5_ADDR(cap_in, SET_HCA_CAP_IN_CAPABILITY), CAP_CMDIF_CHECKSUM, 0);
		ZN_MLX5_SET(ZN_MLX5_ADDR(cap_in, SET_HCA_CAP_IN_CAPABILITY), CAP_LOG_UAR_PAGE_SZ, 0);
		if (kexec(cap_in, ZN_MLX5_SZ_SET_HCA_CAP_IN, out, 16) == 0 &&
		    kpages(ZN_MLX5_PAGES_INIT) == 0 &&
		    ksimple(ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, NULL) == 0 &&
		    kpages(ZN_MLX5_PAGES_REGULAR) == 0 &&
		    ksimple(ZN_MLX5_CMD_OP_ALLOC_UAR, 0, 0, &kuar) == 0)
			rc = 0;
	}
	free(cap_in);
	if (rc)
		return rc;
	/* The EQ lives in the last page of the kernel's memory. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_EQ);
	ZN_MLX5_SET(eqc, EQC_LOG_EQ_SIZE, KEQ_LOG);
	ZN_MLX5_SET(eqc, EQC_UAR_PAGE, kuar);
	zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_CQ_ERROR);
	zn_mlx5_st_be64(in + ZN_MLX5_SZ_CREATE_EQ_IN,
			kmem->iova + (uint64_t)KPAGES * ZN_MLX5_ADAPTER_PAGE_SIZE);
	if (kexec(in, sizeof(in), out, 16))
		return -1;
	keqn = zn_mlx5_ld_be32(out + 8) & 0xff;
	return 0;
}

/* ---- devices ---- */

static struct ibv_device **s_get_device_list(int *num)
{
	struct ibv_device **v = calloc(S->ndev + 1, sizeof(*v));

	for (unsigned i = 0; v && i < S->ndev; i++)
		v[i] = &devs[i];
	*num = v ? (int)S->ndev : 0;
	return v;
}

static void s_free_device_list(struct ibv_device **list)
{
	free(list);
}

static const char *s_get_device_name(struct ibv_device *d)
{
	return d->name;
}

static bool s_is_supported(struct ibv_device *d)
{
	return !strncmp(d->name, "mlx5", 4);
}

static struct ibv_context *s_open_device(struct ibv_device *d, struct mlx5dv_context_attr *attr)
{
	if (!(attr->flags & MLX5DV_CONTEXT_FLAGS_DEVX) || !s_is_supported(d) || S->st.ctx_live) {
		S->st.refused++;
		errno = EOPNOTSUPP;
		return NULL;
	}
	S->st.ctx_live++;
	ctx.device = d;
	return &ctx;
}

static int s_close_device(struct ibv_context *c)
{
	(void)c;
	S->st.ctx_live--;
	return 0;
}

/* ---- objects, as the kernel's DevX sees them ---- */

static bool is_create(uint16_t op, uint16_t op_mod)
{
	switch (op) {
	case ZN_MLX5_CMD_OP_CREATE_MKEY: case ZN_MLX5_CMD_OP_CREATE_CQ:
	case ZN_MLX5_CMD_OP_ALLOC_PD: case ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
	case ZN_MLX5_CMD_OP_CREATE_SQ: case ZN_MLX5_CMD_OP_CREATE_RQ:
	case ZN_MLX5_CMD_OP_CREATE_RQT: case ZN_MLX5_CMD_OP_CREATE_TIR:
	case ZN_MLX5_CMD_OP_CREATE_TIS: case ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE:
	case ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP:
		return true;
	case ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY:
		return op_mod == 0;
	default:
		return false;
	}
}

static bool is_modify(uint16_t op)
{
	return op == ZN_MLX5_CMD_OP_MODIFY_SQ || op == ZN_MLX5_CMD_OP_MODIFY_RQ ||
	       op == ZN_MLX5_CMD_OP_MODIFY_RQT || op == ZN_MLX5_CMD_OP_MODIFY_TIR;
}

static bool is_destroy(uint16_t op)
{
	switch (op) {
	case ZN_MLX5_CMD_OP_DESTROY_MKEY: case ZN_MLX5_CMD_OP_DESTROY_CQ:
	case ZN_MLX5_CMD_OP_DEALLOC_PD: case ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
	case ZN_MLX5_CMD_OP_DESTROY_SQ: case ZN_MLX5_CMD_OP_DESTROY_RQ:
	case ZN_MLX5_CMD_OP_DESTROY_RQT: case ZN_MLX5_CMD_OP_DESTROY_TIR:
	case ZN_MLX5_CMD_OP_DESTROY_TIS: case ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE:
	case ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP: case ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY:
		return true;
	default:
		return false;
	}
}

/* The destroy the kernel derives from a successful create (Linux devx.c
 * devx_obj_build_destroy_cmd does the same from the same fields). */
static void build_destroy(struct shim_obj *o, const uint8_t *in, const uint8_t *out)
{
	uint8_t *d = o->destroy_in;
	uint16_t op = 0;

	memset(d, 0, sizeof(o->destroy_in));
	o->destroy_len = 16;
	o->id = zn_mlx5_ld_be32(out + 8) & 0xffffff;
	switch (o->create_op) {
	case ZN_MLX5_CMD_OP_CREATE_MKEY: op = ZN_MLX5_CMD_OP_DESTROY_MKEY; break;
	case ZN_MLX5_CMD_OP_CREATE_CQ: op = ZN_MLX5_CMD_OP_DESTROY_CQ; break;
	case ZN_MLX5_CMD_OP_ALLOC_PD: op = ZN_MLX5_CMD_OP_DEALLOC_PD; break;
	case ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
		op = ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN; break;
	case ZN_MLX5_CMD_OP_CREATE_SQ: op = ZN_MLX5_CMD_OP_DESTROY_SQ; break;
	case ZN_MLX5_CMD_OP_CREATE_RQ: op = ZN_MLX5_CMD_OP_DESTROY_RQ; break;
	case ZN_MLX5_CMD_OP_CREATE_RQT: op = ZN_MLX5_CMD_OP_DESTROY_RQT; break;
	case ZN_MLX5_CMD_OP_CREATE_TIR: op = ZN_MLX5_CMD_OP_DESTROY_TIR; break;
	case ZN_MLX5_CMD_OP_CREATE_TIS: op = ZN_MLX5_CMD_OP_DESTROY_TIS; break;
	case ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE:
		op = ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE;
		o->destroy_len = ZN_MLX5_SZ_DESTROY_FT_IN;
		memcpy(d + 0x10, in + 0x10, 4);		/* table_type */
		zn_mlx5_st_be32(d + 0x14, o->id);
		break;
	case ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP:
		op = ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP;
		o->destroy_len = ZN_MLX5_SZ_DESTROY_FG_IN;
		memcpy(d + 0x10, in + 0x10, 8);		/* table_type, table_id */
		zn_mlx5_st_be32(d + 0x18, o->id);
		break;
	case ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY:
		op = ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY;
		o->destroy_len = ZN_MLX5_SZ_DELETE_FTE_IN;
		memcpy(d + 0x10, in + 0x10, 8);
		memcpy(d + 0x20, in + 0x20, 4);		/* flow_index */
		o->id = zn_mlx5_ld_be32(in + 0x20);
		break;
	}
	ZN_MLX5_SET(d, IN_OPCODE, op);
	if (o->destroy_len == 16)
		zn_mlx5_st_be32(d + 8, o->id);
}

struct umem_rec {
	struct mlx5dv_devx_umem pub;
	void *addr;
	size_t size;
	bool live;
};

static struct umem_rec umems[64];

static const struct umem_rec *umem_get(uint32_t id)
{
	for (unsigned i = 0; i < 64; i++)
		if (umems[i].live && umems[i].pub.umem_id == id)
			return &umems[i];
	return NULL;
}

/* What the firmware does with umem references: here, pas[] and addresses. */
static int wq_resolve(uint8_t *in, uint8_t *wq, uint32_t fixed, uint32_t *inlen)
{
	const struct umem_rec *u, *d;
	uint64_t base;
	size_t len;
	uint32_t n;

	if (!ZN_MLX5_GET(wq, WQ_WQ_UMEM_VALID))
		return 0;
	u = umem_get((uint32_t)ZN_MLX5_GET(wq, WQ_WQ_UMEM_ID));
	d = umem_get((uint32_t)ZN_MLX5_GET(wq, WQ_DBR_UMEM_ID));
	if (!u || !d || !ZN_MLX5_GET(wq, WQ_DBR_UMEM_VALID) || *inlen != fixed)
		return -1;
	len = ((size_t)1 << ZN_MLX5_GET(wq, WQ_LOG_WQ_SZ)) << ZN_MLX5_GET(wq, WQ_LOG_WQ_STRIDE);
	base = (uint64_t)(uintptr_t)u->addr + ZN_MLX5_GET(wq, WQ_WQ_UMEM_OFFSET);
	if (ZN_MLX5_GET(wq, WQ_WQ_UMEM_OFFSET) + len > u->size ||
	    ZN_MLX5_GET(wq, WQ_DBR_ADDR) + 8 > d->size)
		return -1;
	n = (uint32_t)((len + 4095) / 4096);
	for (uint32_t i = 0; i < n; i++)
		zn_mlx5_st_be64(in + fixed + 8 * i, base + 4096ull * i);
	ZN_MLX5_SET(wq, WQ_DBR_ADDR, (uint64_t)(uintptr_t)d->addr + ZN_MLX5_GET(wq, WQ_DBR_ADDR));
	ZN_MLX5_SET(wq, WQ_WQ_UMEM_VALID, 0);
	ZN_MLX5_SET(wq, WQ_WQ_UMEM_ID, 0);
	ZN_MLX5_SET(wq, WQ_WQ_UMEM_OFFSET, 0);
	ZN_MLX5_SET(wq, WQ_DBR_UMEM_VALID, 0);
	ZN_MLX5_SET(wq, WQ_DBR_UMEM_ID, 0);
	*inlen = fixed + 8 * n;
	S->st.umem_creates++;
	return 0;
}

static int cq_resolve(uint8_t *in, uint32_t *inlen)
{
	uint8_t *cqc = ZN_MLX5_ADDR(in, CREATE_CQ_IN_CQC);
	const struct umem_rec *u, *d;
	uint64_t base, off;
	size_t len;
	uint32_t n;

	if (!ZN_MLX5_GET(in, CREATE_CQ_IN_CQ_UMEM_VALID))
		return 0;
	u = umem_get((uint32_t)ZN_MLX5_GET(in, CREATE_CQ_IN_CQ_UMEM_ID));
	d = umem_get((uint32_t)ZN_MLX5_GET(cqc, CQC_DBR_UMEM_ID));
	if (!u || !d || !ZN_MLX5_GET(cqc, CQC_DBR_UMEM_VALID) || *inlen != ZN_MLX5_SZ_CREATE_CQ_IN)
		return -1;
	off = ZN_MLX5_GET(in, CREATE_CQ_IN_CQ_UMEM_OFFSET);
	len = (size_t)ZN_MLX5_CQE_SIZE << ZN_MLX5_GET(cqc, CQC_LOG_CQ_SIZE);
	if (off + len > u->size || ZN_MLX5_GET(cqc, CQC_DBR_ADDR) + 8 > d->size)
		return -1;
	base = (uint64_t)(uintptr_t)u->addr + off;
	n = (uint32_t)((len + 4095) / 4096);
	for (uint32_t i = 0; i < n; i++)
		zn_mlx5_st_be64(in + ZN_MLX5_SZ_CREATE_CQ_IN + 8 * i, base + 4096ull * i);
	ZN_MLX5_SET(cqc, CQC_DBR_ADDR, (uint64_t)(uintptr_t)d->addr + ZN_MLX5_GET(cqc, CQC_DBR_ADDR));
	ZN_MLX5_SET(in, CREATE_CQ_IN_CQ_UMEM_VALID, 0);
	ZN_MLX5_SET(in, CREATE_CQ_IN_CQ_UMEM_ID, 0);
	ZN_MLX5_SET(in, CREATE_CQ_IN_CQ_UMEM_OFFSET, 0);
	ZN_MLX5_SET(cqc, CQC_DBR_UMEM_VALID, 0);
	ZN_MLX5_SET(cqc, CQC_DBR_UMEM_ID, 0);
	*inlen = ZN_MLX5_SZ_CREATE_CQ_IN + 8 * n;
	S->st.umem_creates++;
	return 0;
}

static struct mlx5dv_devx_obj *s_obj_create(struct ibv_context *c, const void *in0, size_t inlen,
					    void *out, size_t outlen)
{
	uint16_t op = (uint16_t)ZN_MLX5_GET(in0, IN_OPCODE);
	uint32_t len = (uint32_t)inlen;
	struct mlx5dv_devx_obj *h;
	uint8_t *in;
	unsigned slot;
	int rc = 0;

	(void)c;
	if (!is_create(op, (uint16_t)ZN_MLX5_GET(in0, IN_OP_MOD)) || inlen > MSG_MAX / 2 ||
	    S->nobj == SHIM_MAX_OBJS) {
		S->st.refused++;
		errno = EINVAL;
		return NULL;
	}
	in = calloc(1, MSG_MAX);
	if (!in)
		return NULL;
	memcpy(in, in0, inlen);
	if (op == ZN_MLX5_CMD_OP_CREATE_CQ)
		rc = cq_resolve(in, &len);
	else if (op == ZN_MLX5_CMD_OP_CREATE_RQ)
		rc = wq_resolve(in, ZN_MLX5_ADDR(ZN_MLX5_ADDR(in, CREATE_RQ_IN_RQC), RQC_WQ),
				ZN_MLX5_SZ_CREATE_RQ_IN, &len);
	else if (op == ZN_MLX5_CMD_OP_CREATE_SQ)
		rc = wq_resolve(in, ZN_MLX5_ADDR(ZN_MLX5_ADDR(in, CREATE_SQ_IN_SQC), SQC_WQ),
				ZN_MLX5_SZ_CREATE_SQ_IN, &len);
	if (rc) {	/* the kernel refuses a umem it does not know */
		free(in);
		S->st.refused++;
		errno = EINVAL;
		return NULL;
	}
	if (S->fail_op == op) {
		S->fail_op = 0;
		memset(out, 0, outlen);
		((uint8_t *)out)[0] = S->fail_status;
		zn_mlx5_st_be32((uint8_t *)out + 4, 0x5eed);
		free(in);
		errno = EREMOTEIO;
		return NULL;
	}
	if (kexec(in, len, out, outlen)) {
		free(in);
		errno = EREMOTEIO;
		return NULL;
	}
	slot = S->nobj++;
	S->obj[slot] = (struct shim_obj){ .live = true, .create_op = op };
	build_destroy(&S->obj[slot], in, out);
	free(in);
	h = calloc(1, sizeof(*h));
	if (!h)
		abort();
	h->slot = slot;
	S->st.creates++;
	return h;
}

static int s_obj_destroy(struct mlx5dv_devx_obj *h)
{
	struct shim_obj *o = &S->obj[h->slot];
	uint8_t out[16];

	if (kexec(o->destroy_in, o->destroy_len, out, sizeof(out)))
		return EIO;	/* the kernel keeps the object */
	o->live = false;
	S->st.destroys++;
	free(h);
	return 0;
}

static int s_obj_modify(struct mlx5dv_devx_obj *h, const void *in, size_t inlen, void *out,
			size_t outlen)
{
	struct shim_obj *o = &S->obj[h->slot];
	uint16_t op = (uint16_t)ZN_MLX5_GET(in, IN_OPCODE);

	/* The kernel checks that the command names the object it is given. */
	if (!is_modify(op) || (zn_mlx5_ld_be32((const uint8_t *)in + 8) & 0xffffff) != o->id) {
		S->st.refused++;
		return EINVAL;
	}
	S->st.modifies++;
	return kexec(in, inlen, out, outlen) ? EREMOTEIO : 0;
}

static int s_general_cmd(struct ibv_context *c, const void *in, size_t inlen, void *out,
			 size_t outlen)
{
	uint16_t op = (uint16_t)ZN_MLX5_GET(in, IN_OPCODE);

	(void)c;
	if (is_create(op, (uint16_t)ZN_MLX5_GET(in, IN_OP_MOD)) || is_destroy(op) ||
	    is_modify(op) || op == ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT) {
		S->st.refused++;
		return EINVAL;
	}
	S->st.general++;
	return kexec(in, inlen, out, outlen) ? EREMOTEIO : 0;
}

/* ---- memory ---- */

static struct mlx5dv_devx_umem *s_umem_reg(struct ibv_context *c, void *addr, size_t size,
					   uint32_t access)
{
	static uint32_t next_id = 0x40;

	(void)c;
	(void)access;
	for (unsigned i = 0; i < 64; i++) {
		if (umems[i].live)
			continue;
		if (dma_window(addr, size)) {
			S->st.refused++;
			errno = EFAULT;
			return NULL;
		}
		umems[i] = (struct umem_rec){ .pub.umem_id = next_id++, .addr = addr, .size = size,
					      .live = true };
		S->st.umems_live++;
		return &umems[i].pub;
	}
	errno = ENOMEM;
	return NULL;
}

static int s_umem_dereg(struct mlx5dv_devx_umem *pub)
{
	struct umem_rec *u = (struct umem_rec *)pub;

	dma_unwindow(u->addr, u->size);
	u->live = false;
	S->st.umems_live--;
	return 0;
}

struct shim_pd {
	struct ibv_pd pub;
};

static struct ibv_pd *s_alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	uint32_t pdn;

	if (!pd || ksimple(ZN_MLX5_CMD_OP_ALLOC_PD, 0, 0, &pdn)) {
		free(pd);
		return NULL;
	}
	pd->context = c;
	pd->handle = pdn;
	S->st.pds_live++;
	return pd;
}

static int s_dealloc_pd(struct ibv_pd *pd)
{
	if (ksimple(ZN_MLX5_CMD_OP_DEALLOC_PD, 0, pd->handle, NULL))
		return EBUSY;
	free(pd);
	S->st.pds_live--;
	return 0;
}

static int s_init_obj(struct mlx5dv_obj *obj, uint64_t type)
{
	if (type != MLX5DV_OBJ_PD)
		return EINVAL;
	obj->pd.out->pdn = obj->pd.in->handle;
	return 0;
}

/* Implicit ODP (addr NULL, SIZE_MAX): a PA mkey; a range: an MTT mkey. */
static struct ibv_mr *s_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	uint8_t *in = calloc(1, MSG_MAX), out[ZN_MLX5_SZ_CREATE_MKEY_OUT];
	uint8_t *mkc = ZN_MLX5_ADDR(in, CREATE_MKEY_IN_MKC);
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	uint32_t inlen = ZN_MLX5_SZ_CREATE_MKEY_IN;
	bool odp = !addr && len == SIZE_MAX;

	if (!in || !mr)
		abort();
	if ((odp && (S->no_odp || !(access & IBV_ACCESS_ON_DEMAND))) ||
	    (!odp && (len % 4096 || (uintptr_t)addr % 4096 || len / 4096 > 512)))
		goto refuse;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_MKEY);
	ZN_MLX5_SET(mkc, MKC_LW, 1);
	ZN_MLX5_SET(mkc, MKC_LR, 1);
	ZN_MLX5_SET(mkc, MKC_QPN, ZN_MLX5_MKC_QPN_NONE);
	ZN_MLX5_SET(mkc, MKC_PD, pd->handle);
	if (odp) {
		ZN_MLX5_SET(mkc, MKC_ACCESS_MODE_1_0, ZN_MLX5_MKC_ACCESS_MODE_PA);
		ZN_MLX5_SET(mkc, MKC_LENGTH64, 1);
	} else {
		uint32_t pages = (uint32_t)(len / 4096), octw = (pages + 1) / 2;

		ZN_MLX5_SET(in, CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE, octw);
		ZN_MLX5_SET(mkc, MKC_ACCESS_MODE_1_0, ZN_MLX5_MKC_ACCESS_MODE_MTT);
		ZN_MLX5_SET(mkc, MKC_START_ADDR, (uint64_t)(uintptr_t)addr);
		ZN_MLX5_SET(mkc, MKC_LEN, len);
		ZN_MLX5_SET(mkc, MKC_TRANSLATIONS_OCTWORD_SIZE, octw);
		ZN_MLX5_SET(mkc, MKC_LOG_PAGE_SIZE, ZN_MLX5_ADAPTER_PAGE_SHIFT);
		for (uint32_t i = 0; i < pages; i++)
			zn_mlx5_st_be64(ZN_MLX5_ADDR(in, CREATE_MKEY_IN_KLM_PAS_MTT) + 8 * i,
					((uint64_t)(uintptr_t)addr + 4096ull * i) |
					ZN_MLX5_MTT_READ | ZN_MLX5_MTT_WRITE);
		inlen += 16 * octw;
	}
	if (kexec(in, inlen, out, sizeof(out)))
		goto refuse;
	free(in);
	mr->pd = pd;
	mr->addr = addr;
	mr->length = len;
	mr->lkey = zn_mlx5_mkey((uint32_t)ZN_MLX5_GET(out, CREATE_MKEY_OUT_MKEY_INDEX), 0);
	mr->rkey = mr->lkey;
	S->st.mrs_live++;
	return mr;
refuse:
	free(in);
	free(mr);
	S->st.refused++;
	errno = EINVAL;
	return NULL;
}

static int s_dereg_mr(struct ibv_mr *mr)
{
	if (ksimple(ZN_MLX5_CMD_OP_DESTROY_MKEY, 0, mr->lkey >> 8, NULL))
		return EBUSY;
	free(mr);
	S->st.mrs_live--;
	return 0;
}

static struct mlx5dv_devx_uar *s_alloc_uar(struct ibv_context *c, uint32_t flags)
{
	struct mlx5dv_devx_uar *u = calloc(1, sizeof(*u));
	uint32_t id;

	(void)c;
	(void)flags;
	if (!u || ksimple(ZN_MLX5_CMD_OP_ALLOC_UAR, 0, 0, &id)) {
		free(u);
		return NULL;
	}
	u->page_id = id;
	u->base_addr = aligned_alloc(4096, 4096);
	if (!u->base_addr)
		abort();
	u->reg_addr = (uint8_t *)u->base_addr + 0x800;
	S->st.uars_live++;
	return u;
}

static void s_free_uar(struct mlx5dv_devx_uar *u)
{
	ksimple(ZN_MLX5_CMD_OP_DEALLOC_UAR, 0, u->page_id, NULL);
	free(u->base_addr);
	free(u);
	S->st.uars_live--;
}

static int s_query_eqn(struct ibv_context *c, uint32_t vector, uint32_t *eqn)
{
	(void)c;
	if (vector)
		return EINVAL;
	*eqn = keqn;
	return 0;
}

/* ---- the root rule ---- */

static struct mlx5dv_flow_matcher *s_create_matcher(struct ibv_context *c,
						    struct mlx5dv_flow_matcher_attr *attr)
{
	(void)c;
	if (attr->ft_type != MLX5DV_FLOW_TABLE_TYPE_NIC_RX || attr->match_criteria_enable) {
		S->st.refused++;
		errno = EINVAL;
		return NULL;
	}
	return calloc(1, sizeof(struct mlx5dv_flow_matcher));
}

static int s_destroy_matcher(struct mlx5dv_flow_matcher *m)
{
	free(m);
	return 0;
}

static struct ibv_flow *s_create_flow(struct mlx5dv_flow_matcher *m,
				      struct mlx5dv_flow_match_parameters *match, size_t n,
				      struct mlx5dv_flow_action_attr *act)
{
	uint8_t in[ZN_MLX5_SZ_SET_FT_ROOT_IN] = { 0 }, out[16];
	struct shim_obj *o;

	(void)m;
	(void)match;
	if (n != 1 || act[0].type != MLX5DV_FLOW_ACTION_DEST_DEVX || !act[0].obj) {
		errno = EINVAL;
		return NULL;
	}
	o = &S->obj[act[0].obj->slot];
	if (o->create_op != ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE || !o->live) {
		S->st.refused++;
		errno = EINVAL;
		return NULL;
	}
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	ZN_MLX5_SET(in, SET_FT_ROOT_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, SET_FT_ROOT_IN_TABLE_ID, o->id);
	if (kexec(in, sizeof(in), out, sizeof(out))) {
		errno = EREMOTEIO;
		return NULL;
	}
	S->st.root_ft = o->id;
	S->st.flows_live++;
	return calloc(1, sizeof(struct ibv_flow));
}

/* The model keeps its root until the table goes (which detaches it). */
static int s_destroy_flow(struct ibv_flow *f)
{
	free(f);
	S->st.root_ft = 0;
	S->st.flows_live--;
	return 0;
}

int devx_shim_start(struct devx_shim *s, const char *const *names, unsigned n)
{
	static const char json[] = "{\"capabilities\":{\"max_msg_fds\":8}}";
	uint8_t v[sizeof(struct zn_vfu_version) + sizeof(json)];
	struct zn_vfu_version ver = { 0, 2 };
	char err[256];

	memset(s, 0, sizeof(*s));
	memset(umems, 0, sizeof(umems));
	S = s;
	for (unsigned i = 0; i < n && i < SHIM_MAX_DEVS; i++) {
		s->names[i] = names[i];
		memset(&devs[i], 0, sizeof(devs[i]));
		snprintf(devs[i].name, sizeof(devs[i].name), "%s", names[i]);
		s->ndev++;
	}
	if (zn_sim_device_create("cx0=mlx5", &s->dev, err, sizeof(err)) ||
	    zn_vfu_dev_attach_buffer(s->dev->dev, NULL, NULL))
		return -1;
	memcpy(v, &ver, sizeof(ver));
	memcpy(v + sizeof(ver), json, sizeof(json));
	if (feed(ZN_VFU_VERSION, v, sizeof(v), NULL, 0))
		return -1;
	if (zn_dma_region_alloc("shim-kernel", (size_t)(KPAGES + 1) * 4096, -1, ZN_DMA_NO_HUGE,
				&kmem) || dma_window(kmem->va, kmem->len))
		return -1;
	memset(kmem->va, 0, kmem->len);
	{
		uint16_t cmd = ZN_VFU_CMD_MEMORY | ZN_VFU_CMD_MASTER;
		uint8_t buf[sizeof(struct zn_vfu_region_access) + 2];
		struct zn_vfu_region_access a = { .offset = 4, .region = ZN_VFU_PCI_CONFIG_REGION,
						  .count = 2 };

		memcpy(buf, &a, sizeof(a));
		memcpy(buf + sizeof(a), &cmd, 2);
		if (feed(ZN_VFU_REGION_WRITE, buf, sizeof(buf), NULL, 0))
			return -1;
	}
	kpages_used = 0;
	if (kernel_probe())
		return -1;
	s->lib = (struct zn_rdma_lib){
		.get_device_list = s_get_device_list,
		.free_device_list = s_free_device_list,
		.get_device_name = s_get_device_name,
		.close_device = s_close_device,
		.alloc_pd = s_alloc_pd,
		.dealloc_pd = s_dealloc_pd,
		.reg_mr = s_reg_mr,
		.dereg_mr = s_dereg_mr,
		.destroy_flow = s_destroy_flow,
		.mlx5dv_is_supported = s_is_supported,
		.mlx5dv_open_device = s_open_device,
		.mlx5dv_init_obj = s_init_obj,
		.mlx5dv_devx_obj_create = s_obj_create,
		.mlx5dv_devx_obj_modify = s_obj_modify,
		.mlx5dv_devx_obj_destroy = s_obj_destroy,
		.mlx5dv_devx_general_cmd = s_general_cmd,
		.mlx5dv_devx_umem_reg = s_umem_reg,
		.mlx5dv_devx_umem_dereg = s_umem_dereg,
		.mlx5dv_devx_alloc_uar = s_alloc_uar,
		.mlx5dv_devx_free_uar = s_free_uar,
		.mlx5dv_devx_query_eqn = s_query_eqn,
		.mlx5dv_create_flow_matcher = s_create_matcher,
		.mlx5dv_destroy_flow_matcher = s_destroy_matcher,
		.mlx5dv_create_flow = s_create_flow,
	};
	zn_rdma_lib_override(&s->lib);
	return 0;
}

void devx_shim_stop(struct devx_shim *s)
{
	zn_rdma_lib_override(NULL);
	if (s->dev)
		zn_sim_device_free(s->dev);
	s->dev = NULL;
	if (kmem)
		zn_dma_region_free(kmem);
	kmem = NULL;
	S = NULL;
}

unsigned devx_shim_live(const struct devx_shim *s, uint16_t create_op)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nobj; i++)
		if (s->obj[i].live && (!create_op || s->obj[i].create_op == create_op))
			n++;
	return n;
}

uint8_t devx_shim_redestroy(struct devx_shim *s, const struct shim_obj *o)
{
	uint8_t out[16];

	(void)s;
	return kexec(o->destroy_in, o->destroy_len, out, sizeof(out));
}
