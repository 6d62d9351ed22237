/* SPDX-License-Identifier: MIT */
/*
 * rdma-core, reached through one table of function pointers: the boundary
 * between zcnic and libibverbs/libmlx5. zcnic compiles against Debian's
 * libibverbs-dev headers but loads libibverbs.so.1 and libmlx5.so.1 with
 * dlopen on first use, so that libzcnic and every app start (and drive
 * VFIO or vfio-user NICs) on machines without rdma-core, and so that tests
 * can put a stand-in for the kernel and firmware at exactly this boundary
 * (zn_rdma_lib_override). Private to libzcnic (hidden symbols).
 */
#ifndef ZCNIC_CORE_BUS_RDMA_LIB_H
#define ZCNIC_CORE_BUS_RDMA_LIB_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#define ZN_RDMA_LIBIBVERBS	"libibverbs.so.1"
#define ZN_RDMA_LIBMLX5		"libmlx5.so.1"

/* The rdma-core calls zcnic makes: mlx5dv_* by their names, ibv_* without the
 * prefix (verbs.h makes some of those names function-like macros). */
struct zn_rdma_lib {
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	int (*destroy_flow)(struct ibv_flow *flow);

	bool (*mlx5dv_is_supported)(struct ibv_device *dev);
	struct ibv_context *(*mlx5dv_open_device)(struct ibv_device *dev,
						  struct mlx5dv_context_attr *attr);
	int (*mlx5dv_init_obj)(struct mlx5dv_obj *obj, uint64_t obj_type);
	struct mlx5dv_devx_obj *(*mlx5dv_devx_obj_create)(struct ibv_context *ctx, const void *in,
							  size_t inlen, void *out, size_t outlen);
	int (*mlx5dv_devx_obj_modify)(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
				      void *out, size_t outlen);
	int (*mlx5dv_devx_obj_destroy)(struct mlx5dv_devx_obj *obj);
	int (*mlx5dv_devx_general_cmd)(struct ibv_context *ctx, const void *in, size_t inlen,
				       void *out, size_t outlen);
	struct mlx5dv_devx_umem *(*mlx5dv_devx_umem_reg)(struct ibv_context *ctx, void *addr,
							 size_t size, uint32_t access);
	int (*mlx5dv_devx_umem_dereg)(struct mlx5dv_devx_umem *umem);
	struct mlx5dv_devx_uar *(*mlx5dv_devx_alloc_uar)(struct ibv_context *ctx, uint32_t flags);
	void (*mlx5dv_devx_free_uar)(struct mlx5dv_devx_uar *uar);
	int (*mlx5dv_devx_query_eqn)(struct ibv_context *ctx, uint32_t vector, uint32_t *eqn);
	struct mlx5dv_flow_matcher *(*mlx5dv_create_flow_matcher)(
		struct ibv_context *ctx, struct mlx5dv_flow_matcher_attr *attr);
	int (*mlx5dv_destroy_flow_matcher)(struct mlx5dv_flow_matcher *matcher);
	struct ibv_flow *(*mlx5dv_create_flow)(struct mlx5dv_flow_matcher *matcher,
					       struct mlx5dv_flow_match_parameters *match,
					       size_t num_actions,
					       struct mlx5dv_flow_action_attr actions_attr[]);
};

/*
 * The table: the override when one is set, else rdma-core loaded on first
 * call (thread-safe). NULL when rdma-core is not installed or lacks a call;
 * err (may be NULL) then says which library or symbol is missing.
 */
const struct zn_rdma_lib *zn_rdma_lib(char *err, size_t errlen);
/* Tests: use lib instead of rdma-core (NULL: back to rdma-core). */
void zn_rdma_lib_override(const struct zn_rdma_lib *lib);

#endif
