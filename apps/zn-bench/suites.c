/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: the suite table. Kernel suites here; the zcnic suites (same
 * groups and modes, path "zcnic", transport nicsim) join as more entries,
 * and the runner, tables, ratios and files pick them up as they are.
 */
#include "bench.h"
#include "kern.h"

#define KERN_NET	(BENCH_TB(BENCH_T_LOOPBACK) | BENCH_TB(BENCH_T_VETH))

const struct bench_suite bench_suites[] = {
	{ BENCH_G_SEND, "nonzc", "kernel", KERN_NET, true, 0, BENCH_M_RPS,
	  kern_send_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND, "zc", "kernel", KERN_NET, true, 0, BENCH_M_RPS,
	  kern_send_zc_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND, "zc-wait", "kernel", KERN_NET, true, 0, BENCH_M_RPS,
	  kern_send_zcw_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_RECV, "epoll", "kernel", BENCH_TB(BENCH_T_LOOPBACK), false, KERN_RECV_CHUNK,
	  BENCH_M_GBPS, kern_recv_epoll_setup, kern_recv_run, kern_recv_teardown },
	{ BENCH_G_RECV, "uring", "kernel", BENCH_TB(BENCH_T_LOOPBACK), false, KERN_RECV_CHUNK,
	  BENCH_M_GBPS, kern_recv_uring_setup, kern_recv_run, kern_recv_teardown },
	{ BENCH_G_RECV, "tcp-zc", "kernel", BENCH_TB(BENCH_T_LOOPBACK), false, KERN_RECV_CHUNK,
	  BENCH_M_GBPS, kern_recv_tcpzc_setup, kern_recv_run, kern_recv_teardown },
	{ BENCH_G_MSGRING, "ping-pong", "kernel", BENCH_TB(BENCH_T_NONE), false, 0,
	  BENCH_M_P50_NS, kern_msgring_setup, kern_msgring_run, kern_msgring_teardown },
};

const unsigned bench_nsuites = sizeof(bench_suites) / sizeof(bench_suites[0]);
