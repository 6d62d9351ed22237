/* SPDX-License-Identifier: MIT */
/* Text forms of IPv4 addresses for command lines: "A.B.C.D/N", "A.B.C.D:PORT". */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcnic/net.h"

/* Decimal in [lo, hi], the whole string: 0 or -EINVAL. */
static int parse_num(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || *v < lo || *v > hi ? -EINVAL : 0;
}

/* Split s at sep into an address and what follows: 0 or -EINVAL. */
static int split(const char *s, char sep, struct in_addr *a, const char **rest, char *buf,
		 size_t len)
{
	char *p;

	if (!s || strlen(s) >= len)
		return -EINVAL;
	memcpy(buf, s, strlen(s) + 1);
	p = strchr(buf, sep);
	if (!p)
		return -EINVAL;
	*p = '\0';
	*rest = s + (p - buf) + 1;
	return inet_aton(buf, a) ? 0 : -EINVAL;
}

int zn_ipv4_parse_cidr(const char *s, uint32_t *ip, uint8_t *prefix_len)
{
	struct in_addr a;
	const char *rest;
	unsigned long p;
	char buf[32];

	if (split(s, '/', &a, &rest, buf, sizeof(buf)) || parse_num(rest, 1, 32, &p))
		return -EINVAL;
	*ip = a.s_addr;
	*prefix_len = (uint8_t)p;
	return 0;
}

int zn_addr4_parse(const char *s, struct zn_addr4 *addr)
{
	struct in_addr a;
	const char *rest;
	unsigned long p;
	char buf[32];

	if (split(s, ':', &a, &rest, buf, sizeof(buf)) || parse_num(rest, 1, 65535, &p))
		return -EINVAL;
	addr->ip = a.s_addr;
	addr->port = htons((uint16_t)p);
	addr->rsvd = 0;
	return 0;
}
