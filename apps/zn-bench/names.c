/* SPDX-License-Identifier: MIT */
/* zn-bench: the names that rows, tables and files use. */
#include <errno.h>
#include <string.h>

#include "bench.h"

static const char *const group_names[BENCH_G_COUNT] = {
	[BENCH_G_SEND] = "send", [BENCH_G_RECV] = "recv",
	[BENCH_G_SEND_TCP] = "send-tcp", [BENCH_G_RECV_TCP] = "recv-tcp", [BENCH_G_MSGRING] = "msgring",
	[BENCH_G_COST] = "cost",
};

static const char *const transport_names[BENCH_T_COUNT] = {
	[BENCH_T_NONE] = "none", [BENCH_T_LOOPBACK] = "loopback",
	[BENCH_T_VETH] = "veth", [BENCH_T_NICSIM] = "nicsim",
};

static const char *const metric_names[BENCH_M_COUNT] = {
	[BENCH_M_RPS] = "rps", [BENCH_M_GBPS] = "gbit_s", [BENCH_M_P50_NS] = "p50_ns",
	[BENCH_M_P99_NS] = "p99_ns", [BENCH_M_P999_NS] = "p99.9_ns",
};

const char *bench_group_name(enum bench_group g)
{
	return (unsigned)g < BENCH_G_COUNT ? group_names[g] : "?";
}

const char *bench_transport_name(enum bench_transport t)
{
	return (unsigned)t < BENCH_T_COUNT ? transport_names[t] : "?";
}

const char *bench_metric_name(enum bench_metric m)
{
	return (unsigned)m < BENCH_M_COUNT ? metric_names[m] : "?";
}

int bench_group_parse(const char *s)
{
	for (unsigned g = 0; g < BENCH_G_COUNT; g++)
		if (!strcmp(s, group_names[g]))
			return (int)g;
	return -EINVAL;
}
