/* SPDX-License-Identifier: MIT */
/* zn-recv internals: options (opts.c), the receiver (main.c). */
#ifndef ZN_RECV_H
#define ZN_RECV_H

#include <stdbool.h>
#include <stdint.h>

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
};

/* Parses the command line; exits 2 with a message on misuse. */
void recv_parse_args(struct recv_opts *o, int argc, char **argv);

#endif
