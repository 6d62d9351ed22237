/*
 * drivers/mlx5 over its DevX transport (hw-docs/mlx5.md §16), with rdma-core
 * replaced at zcnic's call boundary by tests/unit/support/devx_shim.c, which
 * runs every command on the mlx5 device model: a port opened as "ibv:NAME"
 * is brought up without touching the HCA's life, its queues and steering
 * are DevX objects in the model (queues in umems), and closing it destroys
 * every object, umem, memory region, UAR and PD. Also: the device string's
 * errors, the RDMA device listing from a fake sysfs (and zn-devbind's
 * section for it), kernel-owned commands refused, a failed create decoded
 * and undone.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "apps/zn-devbind/rdma.c"
#include "drivers/mlx5/mlx5.h"
#include "tests/unit/support/devx_shim.h"
#include "tests/unit/support/fake_sysfs.h"
#include "zcnic/pci.h"
#include "zcnic/port.h"

static struct fake_sysfs fs;
static struct devx_shim shim;

static const struct fake_pci_dev cx6 = {
	.bdf = "0000:3b:00.0", .vendor = 0x15b3, .device = 0x101d, .subsys_vendor = 0x15b3,
	.subsys_device = 0x0016, .class = 0x020000, .driver = "mlx5_core", .iommu_group = 12,
	.numa_node = 0,
};
static const struct fake_pci_dev cx7 = {
	.bdf = "0000:3b:00.1", .vendor = 0x15b3, .device = 0x1021, .subsys_vendor = 0x15b3,
	.subsys_device = 0x0021, .class = 0x020000, .driver = "mlx5_core", .iommu_group = 13,
	.numa_node = 0,
};
static const struct fake_pci_dev bcm = {
	.bdf = "0000:5e:00.0", .vendor = 0x14e4, .device = 0x1750, .subsys_vendor = 0x14e4,
	.subsys_device = 0x5208, .class = 0x020000, .driver = "bnxt_en", .iommu_group = 7,
	.numa_node = 1,
};

static int setup(void **state)
{
	static const char *const names[] = { "mlx5_0", "mlx5_1", "bnxt_re0", "rxe0" };
	static const char *const net0[] = { "enp59s0f0np0" };
	static const char *const net1[] = { "enp59s0f1v0", "enp59s0f1np1" };
	static const char *const netb[] = { "ens5f0np0" };

	(void)state;
	if (fake_sysfs_create(&fs) || fake_sysfs_add_dev(&fs, &cx6) ||
	    fake_sysfs_add_dev(&fs, &cx7) || fake_sysfs_add_dev(&fs, &bcm) ||
	    fake_sysfs_add_rdma(&fs, "mlx5_0", cx6.bdf, net0, 1) ||
	    fake_sysfs_add_rdma(&fs, "mlx5_1", cx7.bdf, net1, 2) ||
	    fake_sysfs_add_rdma(&fs, "bnxt_re0", bcm.bdf, netb, 1) ||
	    fake_sysfs_add_rdma(&fs, "rxe0", NULL, NULL, 0))
		return -1;
	setenv(ZN_SYSFS_ROOT_ENV, fs.root, 1);
	return devx_shim_start(&shim, names, 4);
}

static int teardown(void **state)
{
	(void)state;
	devx_shim_stop(&shim);
	unsetenv(ZN_SYSFS_ROOT_ENV);
	fake_sysfs_destroy(&fs);
	return 0;
}

/* zn-devbind's listing: rdma-core's names, sysfs's facts. */
static void test_rdma_list(void **state)
{
	struct zn_rdma_dev *d, one;
	size_t n;

	(void)state;
	assert_int_equal(zn_rdma_list(&d, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(d[0].name, "mlx5_0");
	assert_string_equal(d[0].pci, "0000:3b:00.0");
	assert_string_equal(d[0].netdev, "enp59s0f0np0");
	assert_string_equal(d[0].driver, "mlx5_core");
	assert_int_equal(d[0].vendor, 0x15b3);
	assert_int_equal(d[0].device, 0x101d);
	assert_true(d[0].mlx5);
	assert_string_equal(d[1].name, "mlx5_1");
	assert_string_equal(d[1].pci, "0000:3b:00.1");
	assert_string_equal(d[1].netdev, "enp59s0f1np1");	/* the first by name */
	assert_int_equal(d[1].device, 0x1021);
	assert_true(d[1].mlx5);
	assert_string_equal(d[2].name, "bnxt_re0");
	assert_string_equal(d[2].pci, "0000:5e:00.0");
	assert_string_equal(d[2].netdev, "ens5f0np0");
	assert_string_equal(d[2].driver, "bnxt_en");
	assert_false(d[2].mlx5);
	assert_string_equal(d[3].name, "rxe0");		/* soft device: no PCI function */
	assert_string_equal(d[3].pci, "");
	assert_string_equal(d[3].netdev, "");
	assert_false(d[3].mlx5);

	/* zn-devbind --status prints them so. */
	{
		static const char want[] =
			"\nRDMA devices (kernel driver kept; zcnic through rdma-core DevX)\n"
			"===============================================================\n"
			"mlx5_0 pci=0000:3b:00.0 netdev=enp59s0f0np0 drv=mlx5_core zcnic=ibv:mlx5_0\n"
			"mlx5_1 pci=0000:3b:00.1 netdev=enp59s0f1np1 drv=mlx5_core zcnic=ibv:mlx5_1\n"
			"bnxt_re0 pci=0000:5e:00.0 netdev=ens5f0np0 drv=bnxt_en\n"
			"rxe0 pci=none netdev=none drv=none\n";
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		devbind_print_rdma(f, d, n);
		devbind_print_rdma(f, d, 0);	/* no device: no section */
		fclose(f);
		assert_string_equal(text, want);
		free(text);
	}
	zn_rdma_free(d);

	assert_int_equal(zn_rdma_dev_get("mlx5_9", &one), -ENODEV);
	assert_int_equal(zn_rdma_dev_get("../x", &one), -EINVAL);
	assert_int_equal(zn_rdma_dev_get("", &one), -EINVAL);
}

/* "ibv:NAME": no such device, not mlx5, not listed by rdma-core. */
static void test_open_errors(void **state)
{
	struct zn_port *p = NULL;

	(void)state;
	assert_int_equal(zn_port_open("ibv:mlx5_9", NULL, &p), -ENODEV);
	assert_int_equal(zn_port_open("ibv:bnxt_re0", NULL, &p), -ENODEV);
	assert_int_equal(zn_port_open("ibv:rxe0", NULL, &p), -ENODEV);
	assert_int_equal(zn_port_open("ibv:", NULL, &p), -EINVAL);
	assert_null(p);
	/* In sysfs but not in rdma-core's list (mlx5_ib not loaded). */
	shim.ndev = 0;
	assert_int_equal(zn_port_open("ibv:mlx5_0", NULL, &p), -ENODEV);
	shim.ndev = 4;
	assert_null(p);
	assert_int_equal(shim.st.ctx_live, 0);
}

static struct zn_port *open_port(uint16_t nrx, uint16_t ntx)
{
	struct zn_port_conf conf = { .nb_rxq = nrx, .nb_txq = ntx };
	struct zn_rxq_conf rc = { .ring_size = 64, .payload_buf_size = 4096 };
	struct zn_txq_conf tc = { .ring_size = 64 };
	struct zn_port *p;

	assert_int_equal(zn_port_open("ibv:mlx5_0", NULL, &p), 0);
	assert_int_equal(zn_port_configure(p, &conf), 0);
	for (uint16_t q = 0; q < nrx; q++)
		assert_int_equal(zn_port_rxq_setup(p, q, &rc), 0);
	for (uint16_t q = 0; q < ntx; q++)
		assert_int_equal(zn_port_txq_setup(p, q, &tc), 0);
	return p;
}

static void assert_all_gone(uint32_t created_before)
{
	assert_int_equal(devx_shim_live(&shim, 0), 0);
	assert_int_equal(shim.st.destroys, shim.st.creates);
	assert_int_equal(shim.st.umems_live, 0);
	assert_int_equal(shim.st.mrs_live, 0);
	assert_int_equal(shim.st.uars_live, 0);
	assert_int_equal(shim.st.pds_live, 0);
	assert_int_equal(shim.st.flows_live, 0);
	assert_int_equal(shim.st.ctx_live, 0);
	/* The model agrees: every object is gone (a second destroy finds nothing). */
	for (unsigned i = created_before; i < shim.nobj; i++)
		assert_int_equal(devx_shim_redestroy(&shim, &shim.obj[i]),
				 ZN_MLX5_CMD_STAT_BAD_RES_ERR);
}

static void test_port_lifecycle(void **state)
{
	struct zn_flow_match fm = { .ip_version = 4, .ip_proto = IPPROTO_UDP,
				    .dst_ip = { 10, 0, 0, 2 }, .dst_port = 4791 };
	unsigned first = shim.nobj;
	struct zn_port_info info;
	struct zn_link link;
	struct zn_port *p;
	struct mlx5 *m;
	uint32_t rule;

	(void)state;
	memset(&shim.st, 0, sizeof(shim.st));
	p = open_port(2, 1);
	m = p->priv;
	assert_string_equal(m->cmd_ops->name, "devx");
	zn_port_info(p, &info);
	assert_string_equal(info.driver, "mlx5");
	assert_int_equal(info.device, 0x101d);
	/* The HCA's life is the kernel's: only TD is ours after open. */
	assert_int_equal(devx_shim_live(&shim, 0), 1);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN), 1);
	assert_int_equal(shim.st.pds_live, 1);
	assert_int_equal(shim.st.mrs_live, 1);		/* the implicit ODP key */
	assert_int_equal(shim.st.uars_live, 1);
	assert_int_equal(shim.st.refused, 0);

	assert_int_equal(zn_port_start(p), 0);
	assert_int_equal(shim.st.refused, 0);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_CQ), 3);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_RQ), 2);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_SQ), 1);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_TIS), 1);
	assert_true(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_TIR) >= 2);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_RQT), 1);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_FLOW_TABLE), 1);
	assert_true(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP) >= 1);
	assert_true(devx_shim_live(&shim, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY) >= 1);
	/* Every CQ, RQ and SQ named its memory by umem: 3 + 2 + 1 creates. */
	assert_int_equal(shim.st.umem_creates, 6);
	assert_int_equal(shim.st.umems_live, 3);	/* one region per queue */
	assert_int_equal(shim.st.mrs_live, 3);		/* + a header ring per RQ */
	assert_int_equal(shim.st.modifies, 3);		/* RQs and the SQ to RDY */
	assert_int_equal(shim.st.flows_live, 1);	/* the kernel's root rule ... */
	assert_int_equal(shim.st.root_ft, m->ft_id);	/* ... into our table */

	/* An n-tuple rule: one group and one entry more, and gone again. */
	{
		unsigned fg = devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP);
		unsigned fte = devx_shim_live(&shim, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);

		assert_int_equal(zn_port_flow_add(p, &fm, 1, &rule), 0);
		assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP), fg + 1);
		assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY),
				 fte + 1);
		assert_int_equal(zn_port_flow_del(p, rule), 0);
		assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_FLOW_GROUP), fg);
		assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY), fte);
	}
	/* Link through a general command (QUERY_VPORT_STATE). */
	assert_int_equal(zn_port_link(p, &link), 0);

	/* Stop: the queues and steering go, the open-time objects stay. */
	zn_port_stop(p);
	assert_int_equal(devx_shim_live(&shim, 0), 1);
	assert_int_equal(shim.st.flows_live, 0);
	assert_int_equal(shim.st.mrs_live, 1);
	/* And a second start makes them again. */
	assert_int_equal(zn_port_start(p), 0);
	assert_int_equal(devx_shim_live(&shim, ZN_MLX5_CMD_OP_CREATE_RQ), 2);
	assert_int_equal(shim.st.flows_live, 1);

	zn_port_close(p);
	assert_all_gone(first);
	assert_int_equal(shim.st.refused, 0);
}

/* Commands that are the kernel's never leave the driver. */
static void test_kernel_owned(void **state)
{
	static const uint16_t ops[] = {
		ZN_MLX5_CMD_OP_ENABLE_HCA, ZN_MLX5_CMD_OP_INIT_HCA, ZN_MLX5_CMD_OP_TEARDOWN_HCA,
		ZN_MLX5_CMD_OP_MANAGE_PAGES, ZN_MLX5_CMD_OP_QUERY_PAGES, ZN_MLX5_CMD_OP_SET_HCA_CAP,
		ZN_MLX5_CMD_OP_CREATE_EQ, ZN_MLX5_CMD_OP_ALLOC_UAR,
	};
	unsigned first = shim.nobj;
	struct zn_port *p;
	struct mlx5 *m;
	uint32_t general;

	(void)state;
	memset(&shim.st, 0, sizeof(shim.st));
	p = open_port(1, 1);
	m = p->priv;
	general = shim.st.general;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		uint8_t in[16] = { 0 }, out[16];

		ZN_MLX5_SET(in, IN_OPCODE, ops[i]);
		assert_int_equal(zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out)), -EPERM);
	}
	assert_int_equal(shim.st.general, general);
	/* A destroy of something never created is refused before rdma-core. */
	assert_int_equal(zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_CQ, 0x777), -ENOENT);
	assert_int_equal(shim.st.refused, 0);
	zn_port_close(p);
	assert_all_gone(first);
}

/* A create the device refuses: its status decoded, the start undone. */
static void test_create_fails(void **state)
{
	unsigned first = shim.nobj;
	struct zn_port *p;

	(void)state;
	memset(&shim.st, 0, sizeof(shim.st));
	p = open_port(1, 1);
	shim.fail_op = ZN_MLX5_CMD_OP_CREATE_SQ;
	shim.fail_status = ZN_MLX5_CMD_STAT_LIM_ERR;
	assert_int_equal(zn_port_start(p), -ENOSPC);
	assert_int_equal(devx_shim_live(&shim, 0), 1);	/* only the TD left */
	assert_int_equal(shim.st.mrs_live, 1);
	assert_int_equal(shim.st.flows_live, 0);
	assert_int_equal(zn_port_start(p), 0);		/* and it comes up after */
	zn_port_close(p);
	assert_all_gone(first);
}

/* Without implicit ODP the data path has no key: open fails, nothing left. */
static void test_no_odp(void **state)
{
	struct zn_port *p = NULL;

	(void)state;
	memset(&shim.st, 0, sizeof(shim.st));
	shim.no_odp = true;
	assert_int_equal(zn_port_open("ibv:mlx5_0", NULL, &p), -EINVAL);
	shim.no_odp = false;
	assert_null(p);
	assert_int_equal(shim.st.uars_live, 0);
	assert_int_equal(shim.st.pds_live, 0);
	assert_int_equal(shim.st.ctx_live, 0);
	assert_int_equal(devx_shim_live(&shim, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdma_list),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_port_lifecycle),
		cmocka_unit_test(test_kernel_owned),
		cmocka_unit_test(test_create_fails),
		cmocka_unit_test(test_no_odp),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
