/* SPDX-License-Identifier: MIT */
/* Numbers on the command line, read the same way by every app. */
#ifndef ZN_APPS_NUM_H
#define ZN_APPS_NUM_H

#include <stdint.h>

/*
 * Every app states this rule in its --help: a number is decimal (a leading
 * zero does not make it octal: "08" is 8), optionally followed by one of
 * K, M, G (either case) meaning 1024, 1024^2, 1024^3. Binary multiples
 * because most numbers given with a suffix are bytes (areas, buffers,
 * --expect), and one rule for counts and bytes keeps zn-send --count 2K and
 * zn-recv --expect 2K meaning the same 2048.
 */
#define ZN_NUM_RULE "numbers are decimal; K, M, G mean 1024, 1024^2, 1024^3"

/*
 * 0 and *v set, or -EINVAL (not a number, a sign, trailing text) or
 * -ERANGE (more than 2^64 - 1, with or without the suffix).
 */
int zn_num_parse(const char *s, uint64_t *v);

/* What went wrong with zn_num_parse's return value, for a one-line message. */
const char *zn_num_error(int err);

#endif
