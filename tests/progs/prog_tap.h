/* SPDX-License-Identifier: MIT */
/*
 * TAP-like output and log capture for the test programs in tests/progs that
 * run outside CMocka (statically linked in the test-vfio guest, or on the
 * host against a vfio-user server): "ok N - what" / "not ok N - what",
 * "# " diagnostics, and a final "# NAME: P passed, F failed"; and the small
 * helpers they share (bounded waits on eventfds and device registers).
 */
#ifndef ZN_PROG_TAP_H
#define ZN_PROG_TAP_H

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "zcnic/bus.h"
#include "zcnic/log.h"

#define TAP_LOG_LINES 32
#define TAP_LOG_LEN 512
#define TAP_POLL_US 1000	/* between two reads of a register being waited on */

static struct {
	unsigned n, passed, failed;
	/* Log lines captured by tap_capture_log, for message assertions. */
	unsigned nlog;
	char log[TAP_LOG_LINES][TAP_LOG_LEN];
} tap;

static inline bool tap_check(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline bool tap_check(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap.n++;
	if (cond)
		tap.passed++;
	else
		tap.failed++;
	printf("%sok %u - ", cond ? "" : "not ", tap.n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

/*
 * tap_check with the condition evaluated before the message's arguments (C
 * leaves the order of a call's arguments open), so that one check can read
 * a value and print it: TAP_CHECK(rd(&v) == 0 && v == 1, "v %u", v).
 */
#define TAP_CHECK(cond, ...) ({ bool tap_ok_ = (cond); tap_check(tap_ok_, __VA_ARGS__); })

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Summary line; the exit status a test program should return. */
static inline int tap_done(const char *name)
{
	printf("# %s: %u passed, %u failed\n", name, tap.passed, tap.failed);
	fflush(stdout);
	return tap.failed || !tap.passed ? 1 : 0;
}

static inline void tap_log_sink(enum zn_log_level level, const char *comp,
				const char *msg, void *arg)
{
	(void)arg;
	if (tap.nlog < TAP_LOG_LINES)
		snprintf(tap.log[tap.nlog++], TAP_LOG_LEN, "%s", msg);
	/* Shown as a diagnostic, so that the report carries the real text. */
	printf("# zcnic %s: %s\n", comp ? comp : "-",  msg);
	fflush(stdout);
	(void)level;
}

/* Capture every zcnic log line from now on (and clear earlier captures). */
static inline void tap_capture_log(void)
{
	tap.nlog = 0;
	zn_log_set_sink(tap_log_sink, NULL);
}

/* Does any captured line contain needle (case-insensitive)? */
static inline bool tap_log_has(const char *needle)
{
	for (unsigned i = 0; i < tap.nlog; i++)
		if (strcasestr(tap.log[i], needle))
			return true;
	return false;
}

/*
 * Wait up to timeout_ms for an eventfd to fire; returns its counter (which
 * the read resets), 0 on timeout, -1 on error.
 */
static inline int64_t tap_eventfd_wait(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v;
	int rc = poll(&pfd, 1, timeout_ms);

	if (rc < 0)
		return -1;
	if (rc == 0)
		return 0;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return (int64_t)v;
}

/*
 * Read a BAR register of size 4 or 8 until (value & mask) == want, for at
 * most timeout_ms: 0, -ETIMEDOUT, or the read's error. *last (may be NULL)
 * gets the last value read.
 */
static inline int tap_wait_reg(struct zn_bus_dev *d, unsigned bar, uint64_t off, unsigned size,
			       uint64_t mask, uint64_t want, int timeout_ms, uint64_t *last)
{
	uint64_t deadline = zn_now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		uint32_t v32 = 0;
		uint64_t v = 0;
		int rc = size == 8 ? zn_bus_read64(d, bar, off, &v) :
				     zn_bus_read32(d, bar, off, &v32);

		if (rc)
			return rc;
		if (size != 8)
			v = v32;
		if (last)
			*last = v;
		if ((v & mask) == want)
			return 0;
		if (zn_now_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(TAP_POLL_US);
	}
}

#endif
