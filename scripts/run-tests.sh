#!/usr/bin/env bash
# Runs every test zcnic has and ends with one summary line: "N passed, N failed".
#   unit:        $BUILD/tests/test_*  (CMocka; each test case counts)
#   integration: tests/integration/*.sh (TAP-ish "ok"/"not ok" lines count; else the exit code)
#   fuzz smoke:  4 s of each libFuzzer target from its corpus (ZN_FUZZ_SECONDS; make fuzz-long for ten minutes) (skipped with SAN=1: the fuzzers carry ASan anyway)
#   vfio:        scripts/test-vfio.sh, core/bus in QEMU guests (skipped with SAN=1: static, no ASan)
# ZN_TEST_FILTER=REGEX runs only the tests whose name matches.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SAN=${SAN:-0}
filter=${ZN_TEST_FILTER:-.}
export BUILD SAN
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log_dir=$BUILD/test-logs
mkdir -p "$log_dir"

passed=0 failed=0 failed_names=()

count_cmocka() { # $1 name, $2 log, $3 rc
	local p f
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]\+\) test(s)\./\1/p' "$2" | tail -n1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]\+\) test(s), listed below:/\1/p' "$2" | tail -n1)
	p=${p:-0} f=${f:-0}
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed before its summary
	passed=$((passed + p)); failed=$((failed + f))
	[ "$f" -gt 0 ] && failed_names+=("$1")
	printf '%-40s %3d passed, %d failed %5ds\n' "$1" "$p" "$f" $((SECONDS - t0))
}

count_tap() { # $1 name, $2 log, $3 rc
	local p f
	p=$(grep -c '^ok ' "$2"); f=$(grep -c '^not ok ' "$2")
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		if [ "$3" -eq 0 ]; then p=1; else f=1; fi
	elif [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1
	fi
	passed=$((passed + p)); failed=$((failed + f))
	[ "$f" -gt 0 ] && failed_names+=("$1")
	printf '%-40s %3d passed, %d failed %5ds\n' "$1" "$p" "$f" $((SECONDS - t0))
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=unit/$(basename "$t")
	[[ $name =~ $filter ]] || continue
	t0=$SECONDS
	timeout 300 "$t" >"$log_dir/$(basename "$t").log" 2>&1
	rc=$?
	count_cmocka "$name" "$log_dir/$(basename "$t").log" $rc
	[ $rc -ne 0 ] && sed 's/^/    /' "$log_dir/$(basename "$t").log" | tail -n 40
done

for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	name=integration/$(basename "$t" .sh)
	[[ $name =~ $filter ]] || continue
	t0=$SECONDS
	timeout 600 bash "$t" >"$log_dir/$(basename "$t").log" 2>&1
	rc=$?
	count_tap "$name" "$log_dir/$(basename "$t").log" $rc
	[ $rc -ne 0 ] && sed 's/^/    /' "$log_dir/$(basename "$t").log" | tail -n 40
done

if [ "$SAN" != 1 ] && ls tests/fuzz/fuzz_*.c >/dev/null 2>&1 && [[ fuzz =~ $filter || $filter = . ]]; then
	if make --no-print-directory fuzz >"$log_dir/fuzz-build.log" 2>&1; then
		for f in build-fuzz/fuzz_*; do
			name=fuzz/$(basename "$f")
			corpus=tests/fuzz/corpus/$(basename "$f" | sed 's/^fuzz_//')
			work=$(mktemp -d) t0=$SECONDS
			[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
			timeout 120 "$f" -max_total_time=${ZN_FUZZ_SECONDS:-4} -rss_limit_mb=2048 "$work" \
				>"$log_dir/$(basename "$f").log" 2>&1
			rc=$?
			rm -rf "$work"
			count_tap "$name" "$log_dir/$(basename "$f").log" $rc
			[ $rc -ne 0 ] && tail -n 40 "$log_dir/$(basename "$f").log" | sed 's/^/    /'
		done
	else
		failed=$((failed + 1)); failed_names+=(fuzz-build)
		tail -n 40 "$log_dir/fuzz-build.log" | sed 's/^/    /'
	fi
fi

if [ "$SAN" != 1 ] && [[ vfio/test-vfio =~ $filter ]]; then
	t0=$SECONDS
	timeout 900 scripts/test-vfio.sh >"$log_dir/test-vfio.log" 2>&1
	rc=$?
	count_tap vfio/test-vfio "$log_dir/test-vfio.log" $rc
	[ $rc -ne 0 ] && tail -n 40 "$log_dir/test-vfio.log" | sed 's/^/    /'
fi

echo
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$passed passed, $failed failed in $SECONDS s"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
