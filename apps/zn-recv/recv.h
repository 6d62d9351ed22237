/* SPDX-License-Identifier: MIT */
/* zn-recv internals: options (opts.c), the receiver (main.c), TCP set-up
 * and the copy fallback (tcp.c). */
#ifndef ZN_RECV_H
#define ZN_RECV_H

#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apps/common/watch.h"
#include "zcnic/netdev.h"

struct recv_opts {
	const char *dev;		/* NULL: a private zn-nicsim */
	const char *sim_opts;
	uint32_t ip;			/* network order */
	uint8_t prefix;
	uint16_t port;			/* host order */
	uint16_t queue;
	uint64_t area_bytes;
	uint32_t rq_entries;
	uint32_t cq_entries;
	uint64_t expect;		/* bytes; 0: until duration/idle/signal */
	uint32_t size;			/* datagram payload size, for the check; 0: no check */
	bool check;
	uint64_t duration_ms;		/* 0: no limit */
	uint64_t idle_ms;		/* stop after this long without data, once data came */
	bool quiet;
	bool tcp;			/* --proto tcp */
	uint16_t queues;		/* --queues N: RSS over N queues, a thread each; 0: one
					 * queue, steered by a flow rule (--queue) */
	unsigned wait;			/* --wait: ZN_URING_WAIT_* */
};

/* Parses the command line; exits 2 with a message on misuse. */
void recv_parse_args(struct recv_opts *o, int argc, char **argv);

struct rx {
	struct recv_opts o;
	struct io_uring ring;
	int fd;				/* UDP socket, or the accepted TCP connection */
	int lfd;			/* TCP listener; -1 */
	uint32_t zcrx_id;
	uint8_t *area;
	size_t area_len;
	uint64_t area_token;
	struct io_uring_zcrx_rq rq;
	void *rq_mem;
	size_t rq_len;
	bool armed;
	bool zc_unsupported;		/* RECV_ZC said -EOPNOTSUPP for the TCP socket */
	bool copy;			/* so TCP is received by RECV (copy) */
	bool eof;			/* TCP: the sender closed */
	/* counters */
	uint64_t bytes, data_cqes, finals[4], final_other, rearms, refill_waits;
	uint64_t mismatches, first_bad;
	uint64_t t_first, t_last;
	/* process CPU (all, sys) at the first byte and near the last one */
	uint64_t cpu_first, sys_first, cpu_last, sys_last, t_cpu_last;
	int last_err;
	struct zn_port *port;	/* asked now and then whether the device is still there */
	struct zn_watch watch;
	/* --queues: one per queue thread (queues.c) */
	struct zn_netdev *dev;		/* its queue netdev */
	uint16_t rxq;			/* the port RX queue it polls */
	const atomic_bool *stop;	/* the control thread says stop */
	atomic_ullong pub_bytes, pub_t_last;	/* r->bytes, r->t_last for it to read */
	atomic_bool finished;		/* run() returned */
	bool ring_up;
	int setup_rc;
	pthread_t th;
};

enum { FIN_OK, FIN_ENOSPC, FIN_ENOMEM, FIN_EINVAL };

/* main.c: the receive loop, shared by the single-queue receiver and each
 * queue thread */
int rx_ring_init(struct rx *r, unsigned *cq_entries);
int rx_setup_zcrx(struct rx *r, struct zn_netdev *dev);
int rx_run(struct rx *r);
/* The summary; who: "" or " queue N" after "zn-recv". */
void rx_report(const struct rx *r, const char *who);
void rx_free_mem(struct rx *r);

/* queues.c: --queues N on device spec; the exit status. */
int rx_queues_main(const struct recv_opts *o, const char *spec);

extern volatile sig_atomic_t stop_sig;
uint64_t now_ns(void);
/* Data arrived (in place or copied): time, CPU, payload check, count. */
void rx_account(struct rx *r, const uint8_t *p, uint32_t len);
/* Time to stop (signal, error, EOF, expected bytes, duration, idle)? */
bool rx_done(struct rx *r, uint64_t t0);

/* TCP (tcp.c): a listener through the ring (SOCKET, BIND, LISTEN), then one
 * ACCEPT; r->fd is the connection. 0 or -errno (said on stderr). */
int rx_tcp_accept(struct rx *r);
/* TCP without RECV_ZC: RECV (copy) until EOF or a limit. 0 or -errno. */
int rx_tcp_copy(struct rx *r);
/* Our FIN, and a moment of polling so that it leaves before the exit. */
void rx_tcp_close(struct rx *r);

#endif
