/* SPDX-License-Identifier: MIT */
/* zn-send internals: options (opts.c), the sender (main.c). */
#ifndef ZN_SEND_H
#define ZN_SEND_H

#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apps/common/watch.h"
#include "zcnic/netdev.h"

struct send_opts {
	const char *dev;		/* NULL: a private zn-nicsim */
	const char *sim_opts;
	uint32_t ip;			/* network order */
	uint8_t prefix;
	uint32_t dst_ip;		/* network order */
	uint16_t dst_port, src_port;	/* host order */
	uint32_t size;			/* payload bytes per datagram */
	uint32_t batch;			/* SQEs per submit */
	uint32_t window;		/* sends in flight (buffers) */
	bool zc;			/* SEND_ZC, else SEND */
	bool fixed;			/* registered buffers */
	bool wait_notif;		/* a batch waits for the previous batch's notifications */
	bool pattern;
	uint64_t duration_ms;
	uint64_t count;			/* datagrams; 0: duration */
	uint64_t pps;			/* pace to this many datagrams/s; 0: as fast as it goes */
	bool quiet;
	bool tcp;			/* --proto tcp */
	uint16_t queues;		/* --queues N: a TX queue and thread per flow; 0: one */
	unsigned wait;			/* --wait: ZN_URING_WAIT_* */
};

void send_parse_args(struct send_opts *o, int argc, char **argv);

struct tx {
	struct send_opts o;
	struct io_uring ring;
	int fd;
	uint8_t *mem;
	size_t mem_len, stride;
	struct zn_dma_region *region;	/* without --fixed */
	uint8_t *state;			/* per window slot */
	uint32_t *done_off;		/* TCP copy: bytes of the slot's record sent */
	uint32_t resend;		/* TCP copy: slot + 1 whose record goes on next */
	uint32_t *free_slots, nfree;
	uint32_t inflight;		/* slots not free */
	uint64_t sent, bytes, errors, notifs, copied, submitted;
	int first_err;
	struct zn_port *port;	/* asked now and then whether the device is still there; NULL: not */
	struct zn_watch watch;
	/* the summary's figures: wall time and CPU (process, or the queue thread's) */
	uint64_t ns, cpu, sys;
	/* --queues: one per queue thread (queues.c) */
	struct zn_netdev *dev;		/* its queue netdev */
	uint16_t txq;
	bool ring_up;
	int setup_rc;
	pthread_t th;
};

/* main.c: the sender, shared by the single-queue sender and each queue thread */
uint64_t send_now_ns(void);
/* CPU time, user + sys, of the process or (thread) the calling thread. */
uint64_t send_cpu_ns(bool thread, uint64_t *sys);
int send_ring_init(struct tx *t);
int send_setup_buffers(struct tx *t, struct zn_netdev *dev);
void send_run(struct tx *t);
/* The summary; who: "" or " queue N" after "zn-send". */
void send_report(const struct tx *t, const char *who);
/* Ring, socket, DMA mapping; then, after the netdev closed, the memory. */
void send_free(struct tx *t, struct zn_netdev *dev);
void send_free_mem(struct tx *t);
extern volatile sig_atomic_t send_stop_sig;

/* queues.c: --queues N on device spec; the exit status. */
int send_queues_main(const struct send_opts *o, const char *spec);

struct io_uring;
/* TCP (tcp.c): SOCKET + CONNECT through the ring: the socket, or -errno
 * (said on stderr). */
int send_tcp_connect(struct io_uring *ring, const struct send_opts *o);
/* SHUTDOWN (FIN), then RECV until the receiver closes (at most wait_ms):
 * 0, or -errno (said on stderr). */
int send_tcp_finish(struct io_uring *ring, int fd, uint64_t wait_ms);

#endif
