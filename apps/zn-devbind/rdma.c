/* SPDX-License-Identifier: MIT */
/*
 * zn-devbind --status, RDMA part: the devices rdma-core lists, each with its
 * PCI function and netdev, and for an mlx5 one on mlx5_core the device string
 * that drives it through DevX without unbinding it (hw-docs/mlx5.md §16).
 */
#include "apps/zn-devbind/rdma.h"

void devbind_print_rdma(FILE *f, const struct zn_rdma_dev *devs, size_t n)
{
	static const char title[] = "RDMA devices (kernel driver kept; zcnic through rdma-core DevX)";

	if (!n)
		return;
	fprintf(f, "\n%s\n", title);
	for (size_t i = 0; i < sizeof(title) - 1; i++)
		fputc('=', f);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct zn_rdma_dev *d = &devs[i];

		fprintf(f, "%s pci=%s netdev=%s drv=%s", d->name, d->pci[0] ? d->pci : "none",
			d->netdev[0] ? d->netdev : "none", d->driver[0] ? d->driver : "none");
		if (d->mlx5)
			fprintf(f, " zcnic=ibv:%s", d->name);
		fputc('\n', f);
	}
}
