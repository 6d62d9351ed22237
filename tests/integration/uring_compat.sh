#!/usr/bin/env bash
# Plain liburing programs against zcnic's compat layer:
#  - tests/progs/liburing_compat_check and liburing_compat_ops as the build
#    made them (include/compat/liburing.h): run, TAP lines passed on;
#  - the same sources built unchanged against the installed headers
#    (make install into a temporary prefix, pkg-config zcnic, -Wall -Werror),
#    linked with the shared library, and run.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SAN=${SAN:-0}
progs=(liburing_compat_check liburing_compat_ops)
fail=0
for p in "${progs[@]}"; do
	if [ ! -x "$BUILD/tests/$p" ]; then
		echo "not ok - $BUILD/tests/$p was not built"
		fail=1
		continue
	fi
	echo "# $p"
	timeout 60 "$BUILD/tests/$p" || fail=1
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san=()
[ "$SAN" = 1 ] && san=(-fsanitize=address,undefined)
if make --no-print-directory install SAN="$SAN" PREFIX="$tmp/prefix" >"$tmp/install.log" 2>&1; then
	echo "ok - make install into a temporary prefix"
else
	echo "not ok - make install into a temporary prefix"
	sed 's/^/# /' "$tmp/install.log" | tail -n 20
	exit 1
fi
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
for p in "${progs[@]}"; do
	if cc "${san[@]}" -std=gnu11 -Wall -Wextra -Werror "tests/progs/$p.c" \
		$(pkg-config --cflags --libs zcnic) -lpthread -Wl,-rpath,"$tmp/prefix/lib" \
		-o "$tmp/$p" >"$tmp/$p.log" 2>&1; then
		echo "ok - $p builds unchanged against the installed <liburing.h>"
		echo "# $p (installed)"
		timeout 60 "$tmp/$p" || fail=1
	else
		echo "not ok - $p builds unchanged against the installed <liburing.h>"
		sed 's/^/# /' "$tmp/$p.log" | tail -n 20
		fail=1
	fi
done
exit $fail
