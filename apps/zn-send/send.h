/* SPDX-License-Identifier: MIT */
/* zn-send internals: options (opts.c), the sender (main.c). */
#ifndef ZN_SEND_H
#define ZN_SEND_H

#include <stdbool.h>
#include <stdint.h>

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
	unsigned wait;			/* --wait: ZN_URING_WAIT_* */
};

void send_parse_args(struct send_opts *o, int argc, char **argv);

struct io_uring;
/* TCP (tcp.c): SOCKET + CONNECT through the ring: the socket, or -errno
 * (said on stderr). */
int send_tcp_connect(struct io_uring *ring, const struct send_opts *o);
/* SHUTDOWN (FIN), then RECV until the receiver closes (at most wait_ms):
 * 0, or -errno (said on stderr). */
int send_tcp_finish(struct io_uring *ring, int fd, uint64_t wait_ms);

#endif
