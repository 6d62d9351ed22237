/* SPDX-License-Identifier: MIT */
/* Numbers on the command line: decimal, K/M/G binary multiples, no overflow. */
#include <errno.h>

#include "num.h"

int zn_num_parse(const char *s, uint64_t *v)
{
	uint64_t n = 0;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	switch (*s) {
	case 'K': case 'k': shift = 10; s++; break;
	case 'M': case 'm': shift = 20; s++; break;
	case 'G': case 'g': shift = 30; s++; break;
	default: break;
	}
	if (*s)
		return -EINVAL;
	if (shift && n > (UINT64_MAX >> shift))
		return -ERANGE;
	*v = n << shift;
	return 0;
}

const char *zn_num_error(int err)
{
	return err == -ERANGE ? "too large" : "not a number (decimal, K/M/G = 1024s)";
}
