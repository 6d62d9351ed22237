/* SPDX-License-Identifier: MIT */
/*
 * zn-devbind: show which network devices are bound to vfio-pci, and move NICs
 * between their kernel driver and vfio-pci (what DPDK's dpdk-devbind.py does
 * for DPDK). Exit status: 0 ok, 1 an operation failed, 2 bad usage.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/zn-devbind/rdma.h"
#include "zcnic/log.h"
#include "zcnic/pci.h"

#define PROG		"zn-devbind"
#define EXIT_USAGE	2

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [--status]\n"
"       " PROG " --bind|-b [--dry-run] [--force] BDF...\n"
"       " PROG " --unbind|-u [--reprobe] [--dry-run] [--force] BDF...\n"
"\n"
"Shows the network devices of this machine and moves NICs between their kernel\n"
"driver and vfio-pci, which zcnic drives them through.\n"
"\n"
"  -s, --status    list network devices: bound to vfio-pci, to a kernel driver,\n"
"                  or to none (the default when no other action is given;\n"
"                  after --bind/--unbind it shows the result); then the RDMA\n"
"                  devices rdma-core lists, with their PCI address and netdev\n"
"                  (an mlx5 one is driven as ibv:NAME, left to mlx5_core)\n"
"  -b, --bind      bind each BDF to vfio-pci (driver_override, unbind, drivers_probe)\n"
"  -u, --unbind    unbind each BDF from its driver and clear driver_override\n"
"  -r, --reprobe   with --unbind: let the kernel driver take the device back\n"
"  -n, --dry-run   print each sysfs write instead of making it\n"
"  -f, --force     also act on devices that are not network devices\n"
"  -h, --help      this text\n"
"\n"
"BDF is a PCI address, 0000:3b:00.0 or 3b:00.0. For dpdk-devbind habits,\n"
"\"-b vfio-pci BDF\" is accepted too. Binding needs root and the vfio-pci module\n"
"(modprobe vfio-pci). ZN_SYSFS_ROOT selects another sysfs root (default /sys).\n"
"\n"
"Examples:\n"
"  " PROG "                              # status\n"
"  sudo " PROG " -b 0000:3b:00.0          # give a NIC to vfio-pci\n"
"  " PROG " --bind --dry-run 3b:00.0     # show the writes, change nothing\n"
"  sudo " PROG " -u --reprobe 3b:00.0     # give it back to its kernel driver\n"
"\n"
"Exit status: 0 success, 1 an operation failed, 2 usage error.\n");
}

static void log_sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)comp; (void)arg;
	fprintf(stderr, PROG ": %s%s\n",
		level == ZN_LOG_ERR ? "error: " : level == ZN_LOG_WARN ? "warning: " : "", msg);
}

static void print_dev(const struct zn_pci_dev *d)
{
	char grp[16], numa[16];
	const char *name = d->name[0] ? d->name : "unknown device";

	if (d->iommu_group >= 0)
		snprintf(grp, sizeof(grp), "%d", d->iommu_group);
	else
		snprintf(grp, sizeof(grp), "none");
	if (d->numa_node >= 0)
		snprintf(numa, sizeof(numa), "%d", d->numa_node);
	else
		snprintf(numa, sizeof(numa), "none");
	printf("%s '%s' %04x:%04x drv=%s iommu_group=%s numa_node=%s%s%s\n",
	       d->bdf, name, d->vendor, d->device, d->driver[0] ? d->driver : "none",
	       grp, numa, d->kind != ZN_NIC_OTHER ? " zcnic=" : "",
	       d->kind != ZN_NIC_OTHER ? zn_nic_kind_name(d->kind) : "");
}

enum group { G_VFIO, G_KERNEL, G_NONE };

static enum group group_of(const struct zn_pci_dev *d)
{
	if (!d->driver[0])
		return G_NONE;
	return strcmp(d->driver, ZN_PCI_VFIO_DRIVER) ? G_KERNEL : G_VFIO;
}

static void print_group(const struct zn_pci_dev *devs, size_t n, enum group g,
			const char *title, bool first)
{
	size_t shown = 0, tlen = strlen(title);

	printf("%s%s\n", first ? "" : "\n", title);
	for (size_t i = 0; i < tlen; i++)
		putchar('=');
	putchar('\n');
	for (size_t i = 0; i < n; i++) {
		if (group_of(&devs[i]) != g)
			continue;
		print_dev(&devs[i]);
		shown++;
	}
	if (!shown)
		printf("<none>\n");
}

/* Nothing without rdma-core or RDMA devices: most machines have neither. */
static void show_rdma(void)
{
	struct zn_rdma_dev *rd;
	size_t n;

	if (zn_rdma_list(&rd, &n) < 0)
		return;
	devbind_print_rdma(stdout, rd, n);
	zn_rdma_free(rd);
}

static int show_status(void)
{
	struct zn_pci_dev *devs;
	size_t n, nnet = 0;
	int rc;

	rc = zn_pci_scan(0, &devs, &n);
	if (rc < 0)
		return 1;
	if (n == 0) {
		printf("no PCI devices found (nothing under %s/bus/pci/devices)\n",
		       zn_sysfs_root());
		show_rdma();
		return 0;
	}
	/* Keep the network devices, in place. */
	for (size_t i = 0; i < n; i++)
		if (zn_pci_is_net(&devs[i]))
			devs[nnet++] = devs[i];
	if (nnet == 0) {
		printf("no network devices among %zu PCI devices\n", n);
	} else {
		print_group(devs, nnet, G_VFIO, "Network devices using vfio-pci", true);
		print_group(devs, nnet, G_KERNEL, "Network devices using kernel driver", false);
		print_group(devs, nnet, G_NONE, "Other network devices", false);
	}
	zn_pci_free(devs);
	show_rdma();
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "status", no_argument, NULL, 's' },
		{ "bind", no_argument, NULL, 'b' },
		{ "unbind", no_argument, NULL, 'u' },
		{ "reprobe", no_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct zn_pci_bind_opts opts = { .out = stdout };
	bool status = false, bind = false, unbind = false;
	int c, first, failed = 0;

	zn_log_set_sink(log_sink, NULL);
	opterr = 0;	/* our own message, without the full argv[0] */
	while ((c = getopt_long(argc, argv, "sburnfh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': status = true; break;
		case 'b': bind = true; break;
		case 'u': unbind = true; break;
		case 'r': opts.reprobe = true; break;
		case 'n': opts.dry_run = true; break;
		case 'f': opts.force = true; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, PROG ": unknown option '%s'; run '" PROG " --help' for usage\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	first = optind;
	if (bind && unbind) {
		fprintf(stderr, PROG ": --bind and --unbind exclude each other\n");
		return EXIT_USAGE;
	}
	/* dpdk-devbind takes a driver name after -b; only vfio-pci makes sense here. */
	if (bind && first < argc && !strcmp(argv[first], ZN_PCI_VFIO_DRIVER))
		first++;
	if ((bind || unbind) && first >= argc) {
		fprintf(stderr, PROG ": no device given; name one or more PCI addresses (BDF)\n");
		return EXIT_USAGE;
	}
	if (!bind && !unbind && first < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'; did you mean --bind %s?\n",
			argv[first], argv[first]);
		return EXIT_USAGE;
	}
	if (opts.reprobe && !unbind) {
		fprintf(stderr, PROG ": --reprobe goes with --unbind\n");
		return EXIT_USAGE;
	}
	if (!bind && !unbind)
		return show_status();

	for (int i = first; i < argc; i++) {
		int rc = bind ? zn_pci_bind_vfio(argv[i], &opts) : zn_pci_unbind(argv[i], &opts);

		if (rc < 0)
			failed = 1;
	}
	if (status) {
		printf("\n");
		if (show_status())
			failed = 1;
	}
	return failed;
}
