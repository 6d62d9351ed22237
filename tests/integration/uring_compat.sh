#!/usr/bin/env bash
# tests/progs/liburing_compat_check: a plain liburing program built against
# include/compat/liburing.h; run it and pass its TAP lines on.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
prog=$BUILD/tests/liburing_compat_check
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog was not built"
	exit 1
fi
timeout 60 "$prog"
