/* SPDX-License-Identifier: MIT */
/*
 * mlx5_cycles: open and close mlx5 ports N times through include/zcnic/port.h
 * (hw-docs/mlx5.md §4 bring-up at open, teardown with every page returned
 * at close), checking what bring-up learnt (driver, PCI ID, MAC, limits)
 * and that configure works; the page books are the model's to check
 * (tests/integration/mlx5_port.sh reads zn-nicsim's page counters).
 *
 *   mlx5_cycles DEV [DEV...] CYCLES
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/progs/prog_tap.h"
#include "zcnic/port.h"

int main(int argc, char **argv)
{
	unsigned cycles, ok_cycles = 0;
	int ndev = argc - 2;

	if (argc < 3) {
		fprintf(stderr, "usage: mlx5_cycles DEV [DEV...] CYCLES\n");
		return 2;
	}
	cycles = (unsigned)strtoul(argv[argc - 1], NULL, 10);
	for (unsigned c = 0; c < cycles; c++) {
		bool good = true;

		for (int i = 0; i < ndev; i++) {
			struct zn_port_conf conf = { .nb_rxq = 2, .nb_txq = 2, .mtu = 9000 };
			struct zn_port_info info;
			struct zn_port *p;
			int rc = zn_port_open(argv[1 + i], NULL, &p);

			if (rc < 0) {
				tap_diag("%s: open failed: %d", argv[1 + i], rc);
				good = false;
				continue;
			}
			zn_port_info(p, &info);
			if (c == 0)
				tap_check(info.vendor == 0x15b3 && (info.device == 0x101d ||
								    info.device == 0x1021) &&
					  !strcmp(info.driver, "mlx5") && info.hds &&
					  info.mac[0] == 0x02 && info.rss_table_size > 0,
					  "%s: driver %s, %04x:%04x, MAC %02x:%02x:%02x:%02x:%02x:%02x, "
					  "RSS table %u", argv[1 + i], info.driver, info.vendor,
					  info.device, info.mac[0], info.mac[1], info.mac[2],
					  info.mac[3], info.mac[4], info.mac[5], info.rss_table_size);
			if (zn_port_configure(p, &conf) < 0)
				good = false;
			zn_port_close(p);
		}
		ok_cycles += good;
	}
	tap_check(ok_cycles == cycles, "%u of %u open/configure/close cycles on %d port(s)",
		  ok_cycles, cycles, ndev);
	return tap_done("mlx5_cycles");
}
