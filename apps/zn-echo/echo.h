/* SPDX-License-Identifier: MIT */
/* zn-echo internals: options (opts.c), the server (main.c). */
#ifndef ZN_ECHO_H
#define ZN_ECHO_H

#include <stdbool.h>
#include <stdint.h>

struct echo_opts {
	const char *dev;		/* NULL: a private zn-nicsim */
	const char *sim_opts;
	uint32_t ip;			/* network order */
	uint8_t prefix;
	uint32_t gateway;		/* network order; 0: none */
	uint16_t port;			/* host order */
	uint32_t max_conns;		/* connections served at once */
	uint32_t buf;			/* bytes per connection's RECV */
	uint64_t conns;			/* stop after this many connections ended; 0: never */
	uint64_t duration_ms;		/* 0: no limit */
	bool quiet;
};

/* Parses the command line; exits 2 with a message on misuse. */
void echo_parse_args(struct echo_opts *o, int argc, char **argv);

#endif
