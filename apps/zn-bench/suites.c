/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: the suite table, kernel and zcnic alike. zcnic suites have the
 * same groups and modes (path "zcnic", transport nicsim; MSG_RING has no
 * wire), so that the ratio column pairs them with the kernel rows. Within
 * a group the kernel suites come first: their rows are the baselines.
 */
#include "bench.h"
#include "kern.h"
#include "zcnic.h"

#define KERN_NET	(BENCH_TB(BENCH_T_LOOPBACK) | BENCH_TB(BENCH_T_VETH))
#define ZCNIC_NET	BENCH_TB(BENCH_T_NICSIM)

const struct bench_suite bench_suites[] = {
	{ BENCH_G_SEND, "nonzc", "kernel", KERN_NET, true, 0, BENCH_M_RPS,
	  kern_send_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND, "zc", "kernel", KERN_NET, true, 0, BENCH_M_RPS,
	  kern_send_zc_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND, "zc-wait", "kernel", KERN_NET, true, 0, BENCH_M_RPS,
	  kern_send_zcw_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND, "nonzc", "zcnic", ZCNIC_NET, true, 0, BENCH_M_RPS,
	  zcnic_send_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_SEND, "zc", "zcnic", ZCNIC_NET, true, 0, BENCH_M_RPS,
	  zcnic_send_zc_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_SEND, "zc-wait", "zcnic", ZCNIC_NET, true, 0, BENCH_M_RPS,
	  zcnic_send_zcw_setup, zcnic_send_run, zcnic_send_teardown },
	/* UDP receive: the kernel has no zcrx for UDP, so no kernel row */
	{ BENCH_G_RECV, "zcrx", "zcnic", ZCNIC_NET, false, ZCNIC_RECV_SIZE,
	  BENCH_M_GBPS, zcnic_recv_setup, zcnic_send_run, zcnic_send_teardown },
	/* the same over 1 and 2 queues, a thread each: the scaling */
	{ BENCH_G_RECV, "zcrx-1q", "zcnic", ZCNIC_NET, false, ZCNIC_RECV_SIZE,
	  BENCH_M_GBPS, zcnic_recv_q1_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_RECV, "zcrx-2q", "zcnic", ZCNIC_NET, false, ZCNIC_RECV_SIZE,
	  BENCH_M_GBPS, zcnic_recv_q2_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_SEND_TCP, "nonzc", "kernel", KERN_NET, false, BENCH_TCP_SEND_SIZE, BENCH_M_RPS,
	  kern_send_tcp_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND_TCP, "zc", "kernel", KERN_NET, false, BENCH_TCP_SEND_SIZE, BENCH_M_RPS,
	  kern_send_tcp_zc_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND_TCP, "zc-wait", "kernel", KERN_NET, false, BENCH_TCP_SEND_SIZE, BENCH_M_RPS,
	  kern_send_tcp_zcw_setup, kern_send_run, kern_send_teardown },
	{ BENCH_G_SEND_TCP, "nonzc", "zcnic", ZCNIC_NET, false, BENCH_TCP_SEND_SIZE, BENCH_M_RPS,
	  zcnic_send_tcp_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_SEND_TCP, "zc", "zcnic", ZCNIC_NET, false, BENCH_TCP_SEND_SIZE, BENCH_M_RPS,
	  zcnic_send_tcp_zc_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_SEND_TCP, "zc-wait", "zcnic", ZCNIC_NET, false, BENCH_TCP_SEND_SIZE, BENCH_M_RPS,
	  zcnic_send_tcp_zcw_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_RECV_TCP, "epoll", "kernel", BENCH_TB(BENCH_T_LOOPBACK), false, KERN_RECV_CHUNK,
	  BENCH_M_GBPS, kern_recv_epoll_setup, kern_recv_run, kern_recv_teardown },
	{ BENCH_G_RECV_TCP, "uring", "kernel", BENCH_TB(BENCH_T_LOOPBACK), false, KERN_RECV_CHUNK,
	  BENCH_M_GBPS, kern_recv_uring_setup, kern_recv_run, kern_recv_teardown },
	{ BENCH_G_RECV_TCP, "tcp-zc", "kernel", BENCH_TB(BENCH_T_LOOPBACK), false, KERN_RECV_CHUNK,
	  BENCH_M_GBPS, kern_recv_tcpzc_setup, kern_recv_run, kern_recv_teardown },
	{ BENCH_G_RECV_TCP, "zcrx", "zcnic", ZCNIC_NET, false, KERN_RECV_CHUNK,
	  BENCH_M_GBPS, zcnic_recv_tcp_setup, zcnic_send_run, zcnic_send_teardown },
	{ BENCH_G_MSGRING, "ping-pong", "kernel", BENCH_TB(BENCH_T_NONE), false, 0,
	  BENCH_M_P50_NS, kern_msgring_setup, kern_msgring_run, kern_msgring_teardown },
	{ BENCH_G_MSGRING, "ping-pong", "zcnic", BENCH_TB(BENCH_T_NONE), false, 0,
	  BENCH_M_P50_NS, zcnic_msgring_setup, zcnic_msgring_run, zcnic_msgring_teardown },
};

const unsigned bench_nsuites = sizeof(bench_suites) / sizeof(bench_suites[0]);
