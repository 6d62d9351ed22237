/* SPDX-License-Identifier: MIT */
/* zn-bench: one progress line on stderr, rewritten in place, only on a terminal. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "bench.h"

#define PROGRESS_WIDTH	100

static int tty = -1;
static bool shown;

void bench_progress(const char *fmt, ...)
{
	char line[PROGRESS_WIDTH + 1];
	va_list ap;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* pad so that a shorter line hides the end of the previous one */
	fprintf(stderr, "\r%-*s", PROGRESS_WIDTH - 1, line);
	fflush(stderr);
	shown = true;
}

void bench_progress_end(void)
{
	if (shown)
		fputc('\n', stderr);
	shown = false;
}
