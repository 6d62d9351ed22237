#!/usr/bin/env bash
# tests/progs/liburing_send_zc: a liburing-style send_zc/recv program over
# two netdevs of an in-process zn-nicsim; pass its TAP lines on.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
prog=$BUILD/tests/liburing_send_zc
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog was not built"
	exit 1
fi
timeout 120 "$prog" 2> >(grep -v ' info ' >&2)
