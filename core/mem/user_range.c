/* SPDX-License-Identifier: MIT */
/*
 * Is application memory there? The kernel learns it by pinning the pages
 * (pin_user_pages with FOLL_WRITE: -EFAULT for holes and read-only
 * mappings); zcnic reads /proc/self/maps once per check, on the
 * registration path only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/mem/ucopy.h"

int zn_user_range_ok(uint64_t addr, uint64_t len, bool write)
{
	uint64_t cur = addr, end = addr + len;
	char line[512];
	FILE *f;

	if (!len || end < addr)
		return -EFAULT;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -EFAULT;
	/* the lines are sorted by address: walk until cur passes end */
	while (cur < end && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi;
		char perm[5];

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", &lo, &hi, perm) != 3)
			continue;
		if (hi <= cur)
			continue;
		if (lo > cur)
			break;		/* a hole */
		if (perm[0] != 'r' || (write && perm[1] != 'w'))
			break;
		cur = hi;
	}
	fclose(f);
	return cur >= end ? 0 : -EFAULT;
}
