/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: the kernel-path suites (kern_*.c), as the suite table sees
 * them. Plain C: the io_uring side is in kern_uring.h.
 */
#ifndef ZN_BENCH_KERN_H
#define ZN_BENCH_KERN_H

#include <netinet/in.h>

#include "bench.h"

/* Where a suite's two ends live: network namespace fds (-1: the current one) and addresses. */
struct kern_net {
	int tx_ns, rx_ns;
	struct in_addr tx_ip, rx_ip;
};

/* kern_netns.c */
int kern_net_get(enum bench_transport t, struct kern_net *n, char *note);
int kern_socket_in(int ns_fd, int domain, int type, int proto);
void kern_netns_cleanup(void);

/* kern_send.c: UDP send, mode "nonzc", "zc", "zc-wait"; *_tcp_*: the same over TCP */
int kern_send_setup(const struct bench_case *c, void **state);
int kern_send_zc_setup(const struct bench_case *c, void **state);
int kern_send_zcw_setup(const struct bench_case *c, void **state);
int kern_send_tcp_setup(const struct bench_case *c, void **state);
int kern_send_tcp_zc_setup(const struct bench_case *c, void **state);
int kern_send_tcp_zcw_setup(const struct bench_case *c, void **state);
int kern_send_run(void *state, const struct bench_case *c, struct bench_meas *m);
void kern_send_teardown(void *state);

/* kern_recv.c: TCP receive over loopback */
int kern_recv_epoll_setup(const struct bench_case *c, void **state);
int kern_recv_uring_setup(const struct bench_case *c, void **state);
int kern_recv_tcpzc_setup(const struct bench_case *c, void **state);
int kern_recv_run(void *state, const struct bench_case *c, struct bench_meas *m);
void kern_recv_teardown(void *state);
#define KERN_RECV_CHUNK	(64 * 1024)

/* kern_msgring.c */
int kern_msgring_setup(const struct bench_case *c, void **state);
int kern_msgring_run(void *state, const struct bench_case *c, struct bench_meas *m);
void kern_msgring_teardown(void *state);

#endif
