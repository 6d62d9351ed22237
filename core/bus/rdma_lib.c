/* SPDX-License-Identifier: MIT */
/*
 * rdma-core loaded at run time (rdma_lib.h says why). Every symbol is
 * resolved at load, so a missing one is one error at the start rather than
 * a crash in the middle of a bring-up.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/bus/rdma_lib.h"

static struct zn_rdma_lib loaded;
static const struct zn_rdma_lib *override;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_err[256];
static int load_ok;

/* Which library holds each entry, by its rdma-core name. */
#define IBV_SYMS(X) X(get_device_list) X(free_device_list) X(get_device_name) X(close_device) \
	X(alloc_pd) X(dealloc_pd) X(reg_mr) X(dereg_mr)
#define MLX5_SYMS(X) X(mlx5dv_is_supported) X(mlx5dv_open_device) X(mlx5dv_init_obj)      \
	X(mlx5dv_devx_obj_create) X(mlx5dv_devx_obj_modify) X(mlx5dv_devx_obj_destroy)     \
	X(mlx5dv_devx_general_cmd) X(mlx5dv_devx_umem_reg) X(mlx5dv_devx_umem_dereg)       \
	X(mlx5dv_devx_alloc_uar) X(mlx5dv_devx_free_uar) X(mlx5dv_devx_query_eqn)          \
	X(mlx5dv_create_flow_matcher) X(mlx5dv_destroy_flow_matcher) X(mlx5dv_create_flow)

/* An inline of verbs.h (it calls through the context's ops), not a symbol. */
static int destroy_flow(struct ibv_flow *flow)
{
	return ibv_destroy_flow(flow);
}

static bool sym(void *h, const char *lib, const char *name, void **slot)
{
	*slot = dlsym(h, name);
	if (*slot)
		return true;
	snprintf(load_err, sizeof(load_err), "%s has no %s (rdma-core too old?)", lib, name);
	return false;
}

static void load(void)
{
	void *ibv, *mlx5;

	ibv = dlopen(ZN_RDMA_LIBIBVERBS, RTLD_NOW | RTLD_GLOBAL);
	mlx5 = ibv ? dlopen(ZN_RDMA_LIBMLX5, RTLD_NOW | RTLD_GLOBAL) : NULL;
	if (!ibv || !mlx5) {
		snprintf(load_err, sizeof(load_err), "rdma-core is not installed (%s: %s); "
			 "install Debian's ibverbs-providers", ibv ? ZN_RDMA_LIBMLX5 :
			 ZN_RDMA_LIBIBVERBS, dlerror());
		return;
	}
#define LOAD(n) if (!sym(ibv, ZN_RDMA_LIBIBVERBS, "ibv_" #n, (void **)&loaded.n)) return;
	IBV_SYMS(LOAD)
#undef LOAD
#define LOAD(n) if (!sym(mlx5, ZN_RDMA_LIBMLX5, #n, (void **)&loaded.n)) return;
	MLX5_SYMS(LOAD)
#undef LOAD
	loaded.destroy_flow = destroy_flow;
	/* The libraries stay loaded: their handles are never closed. */
	load_ok = 1;
}

const struct zn_rdma_lib *zn_rdma_lib(char *err, size_t errlen)
{
	const struct zn_rdma_lib *o = __atomic_load_n(&override, __ATOMIC_ACQUIRE);

	if (o)
		return o;
	pthread_once(&once, load);
	if (load_ok)
		return &loaded;
	if (err && errlen)
		snprintf(err, errlen, "%s", load_err);
	return NULL;
}

void zn_rdma_lib_override(const struct zn_rdma_lib *lib)
{
	__atomic_store_n(&override, lib, __ATOMIC_RELEASE);
}
