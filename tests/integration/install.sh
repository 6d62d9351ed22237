#!/usr/bin/env bash
# make install into a temporary prefix, then build and run a program against
# the installed library through pkg-config, statically and dynamically.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SAN=${SAN:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
check() { n=$((n + 1)); if "$@" >"$tmp/out" 2>&1; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; sed 's/^/# /' "$tmp/out"; fail=1; fi; }

desc="make install PREFIX=$tmp/prefix"
check make --no-print-directory install SAN="$SAN" PREFIX="$tmp/prefix"

desc="zcnic.pc, headers and libraries installed"
check test -f "$tmp/prefix/lib/pkgconfig/zcnic.pc" -a -f "$tmp/prefix/include/zcnic/bus.h" \
	-a -f "$tmp/prefix/lib/libzcnic.a" -a -L "$tmp/prefix/lib/libzcnic.so"

cat >"$tmp/app.c" <<'C'
#include <stdio.h>
#include <zcnic/log.h>
#include <zcnic/bus.h>
int main(void)
{
	struct zn_bus_dev *d;
	/* A malformed device string must fail cleanly with a negative errno. */
	int rc = zn_bus_open("", NULL, &d);
	printf("rc=%d enabled=%d\n", rc, zn_log_enabled(ZN_LOG_ERR, "bus"));
	return rc < 0 ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
san=()
[ "$SAN" = 1 ] && san=(-fsanitize=address,undefined)
desc="a program links the shared library via pkg-config and runs"
check bash -c "cc ${san[*]} -std=gnu11 -Wall -Werror $tmp/app.c \$(pkg-config --cflags --libs zcnic) -Wl,-rpath,$tmp/prefix/lib -o $tmp/app-shared && $tmp/app-shared"

desc="a liburing program builds with <liburing.h> from pkg-config's Cflags and runs"
check bash -c "cc ${san[*]} -std=gnu11 -Wall -Werror tests/progs/liburing_compat_check.c \$(pkg-config --cflags --libs zcnic) -lpthread -Wl,-rpath,$tmp/prefix/lib -o $tmp/liburing-app && $tmp/liburing-app"

desc="a program links the static library via pkg-config --static and runs"
check bash -c "cc ${san[*]} -std=gnu11 -Wall -Werror $tmp/app.c \$(pkg-config --cflags zcnic) $tmp/prefix/lib/libzcnic.a \$(pkg-config --static --libs-only-l zcnic | sed 's/-lzcnic//') -o $tmp/app-static && $tmp/app-static"
exit $fail
