/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: the zcnic-path suites (zcnic_*.c). Send and receive run the
 * zn-send and zn-recv programs as child processes over a private zn-nicsim
 * (two bnxt models on a pair wire) that zn-bench starts once and always
 * stops; MSG_RING runs in-process on the native zn_uring API. These files
 * must not call the liburing names (io_uring_*): zn-bench links the
 * system liburing for its kernel suites.
 */
#ifndef ZN_BENCH_ZCNIC_H
#define ZN_BENCH_ZCNIC_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define ZCNIC_RECV_SIZE		8000	/* zcrx suite: datagram payload, MTU 9000 */
#define ZCNIC_MAX_SIZE		8972	/* zn-send: one datagram in a 9000-byte MTU */

/* zcnic_proc.c: the simulator and the child processes */
struct zcnic_out {
	char buf[16384];	/* stdout + stderr, the first bytes */
	size_t len;
	int status;		/* exit code; 128 + signal; -1: not reaped */
	bool stopped;		/* still running at the end: zn-bench stopped it */
};
/* The private zn-nicsim's two ports ("vfio-user:..."), started if it is not
 * running; zcnic_sim_release() stops it (a case's teardown). */
int zcnic_sim_ports(const char **port0, const char **port1, char *note);
void zcnic_sim_release(void);
/*
 * Run zn-recv (argv rx) until it says it is ready, then zn-send (argv tx);
 * wait for zn-send, then for zn-recv (which ends on its own --idle-ms),
 * within limit_ms in all; children still running after it are stopped.
 * 0, -EINTR (bench_stop), -ETIMEDOUT, or -errno of a failed spawn.
 */
int zcnic_run_pair(char *const rx[], char *const tx[], unsigned limit_ms,
		   struct zcnic_out *ro, struct zcnic_out *to);
/*
 * Where the processes run (-1: anywhere): the measured child on measured,
 * the other child and the simulator on other, so that the model's polling
 * never takes the measured process's core. rx_measured: zn-recv is the
 * measured one (the receive suite), else zn-send.
 */
void zcnic_set_cpus(int measured, int other, bool rx_measured);
/* After the last suite, and on exit paths: stop children and the simulator. */
void zcnic_cleanup(void);
/* Async-signal-safe part of it, for a second Ctrl-C that exits at once. */
void zcnic_cleanup_signal(void);
/* The line of out that starts with prefix and contains key; NULL if none. */
const char *zcnic_line(const struct zcnic_out *out, const char *prefix, const char *key);

/* zcnic_send.c: UDP send ("nonzc", "zc", "zc-wait") and zcrx receive */
int zcnic_send_setup(const struct bench_case *c, void **state);
int zcnic_send_zc_setup(const struct bench_case *c, void **state);
int zcnic_send_zcw_setup(const struct bench_case *c, void **state);
int zcnic_send_run(void *state, const struct bench_case *c, struct bench_meas *m);
void zcnic_send_teardown(void *state);
int zcnic_recv_setup(const struct bench_case *c, void **state);
/* the same over one TCP connection (zn-send / zn-recv --proto tcp) */
int zcnic_send_tcp_setup(const struct bench_case *c, void **state);
int zcnic_send_tcp_zc_setup(const struct bench_case *c, void **state);
int zcnic_send_tcp_zcw_setup(const struct bench_case *c, void **state);
int zcnic_recv_tcp_setup(const struct bench_case *c, void **state);
/* recv with zn-send --queues N into zn-recv --queues N, N = 1 and 2 */
int zcnic_recv_q1_setup(const struct bench_case *c, void **state);
int zcnic_recv_q2_setup(const struct bench_case *c, void **state);

/* zcnic_msgring.c */
int zcnic_msgring_setup(const struct bench_case *c, void **state);
int zcnic_msgring_run(void *state, const struct bench_case *c, struct bench_meas *m);
void zcnic_msgring_teardown(void *state);

#endif
