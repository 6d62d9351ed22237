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

# Every function the installed headers declare resolves in the shared library.
{
	echo '#include <stdio.h>'
	(cd "$tmp/prefix/include" && find zcnic -name '*.h' | sort) | sed 's/.*/#include <&>/'
	echo '#include <liburing.h>'
	echo 'static void *const fns[] = {'
	scripts/check-exports.sh --print --prefix "$tmp/prefix" | sed 's/.*/\t(void *)&,/'
	echo '};'
	echo 'int main(void) { size_t n = 0; for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) n += fns[i] != NULL; printf("%zu\n", n); return n == sizeof(fns) / sizeof(fns[0]) && n > 100 ? 0 : 1; }'
} >"$tmp/all.c"
desc="a program taking every public function's address links the shared library and runs"
check bash -c "cc ${san[*]} -std=gnu11 -Wall -Werror $tmp/all.c \$(pkg-config --cflags --libs zcnic) -Wl,-rpath,$tmp/prefix/lib -o $tmp/all-shared && $tmp/all-shared"

# An internal function (bnxt's HWRM error mapping) is in the archive but not
# in the shared library.
cat >"$tmp/internal.c" <<'C'
int zn_bnxt_hwrm_errno(int);
int main(void) { return zn_bnxt_hwrm_errno(0); }
C
desc="an internal function does not link against the shared library"
check bash -c "nm --defined-only $tmp/prefix/lib/libzcnic.a | grep -qw zn_bnxt_hwrm_errno && ! cc ${san[*]} $tmp/internal.c -L$tmp/prefix/lib -lzcnic -o $tmp/internal 2>$tmp/internal.err && grep -q 'undefined reference to .zn_bnxt_hwrm_errno' $tmp/internal.err"

desc="a liburing program builds with <liburing.h> from pkg-config's Cflags and runs"
check bash -c "cc ${san[*]} -std=gnu11 -Wall -Werror tests/progs/liburing_compat_check.c \$(pkg-config --cflags --libs zcnic) -lpthread -Wl,-rpath,$tmp/prefix/lib -o $tmp/liburing-app && $tmp/liburing-app"

desc="a program links the static library via pkg-config --static and runs"
check bash -c "cc ${san[*]} -std=gnu11 -Wall -Werror $tmp/app.c \$(pkg-config --cflags zcnic) $tmp/prefix/lib/libzcnic.a \$(pkg-config --static --libs-only-l zcnic | sed 's/-lzcnic//') -o $tmp/app-static && $tmp/app-static"
exit $fail
