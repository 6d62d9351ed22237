#!/usr/bin/env bash
# make fuzz-long: every libFuzzer target for FUZZ_SECS seconds (default 600)
# from its seed corpus, one after another; findings go to
# build-fuzz/findings/TARGET/. Ends with one line per target (runs,
# coverage, crashes) and exits non-zero if any target crashed.
#   FUZZ_SECS=N    seconds per target
#   FUZZ_ONLY=RE   only the targets whose name matches
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECS:-600}
only=${FUZZ_ONLY:-.}
out=build-fuzz/findings
mkdir -p "$out"
# No leak check at exit: after ten minutes ASan holds some 400-550 MB (its
# quarantine of freed blocks, libFuzzer's input copies among them) and
# LeakSanitizer's exit-time walk over it took 7 s after 150 s of fuzzing
# (0.5 s without it) and past the two minutes of slack below after ten
# minutes on a loaded machine (fuzz_net_rx ended in timeout, rc 124, after
# "Done"). Leaks are still found while fuzzing:
# libFuzzer's -detect_leaks runs LeakSanitizer after any input that leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}leak_check_at_exit=0
summary=() bad=0
for f in build-fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	t=$(basename "$f")
	[[ $t =~ $only ]] || continue
	work=$(mktemp -d)
	corpus=tests/fuzz/corpus/${t#fuzz_}
	[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
	mkdir -p "$out/$t"
	echo "fuzz-long: $t for $secs s"
	# bounded twice: libFuzzer's own clock, then timeout's
	timeout $((secs + 120)) "$f" -max_total_time="$secs" -rss_limit_mb=2048 \
		-artifact_prefix="$out/$t/" "$work" >"$out/$t.log" 2>&1
	rc=$?
	rm -rf "$work"
	runs=$(grep -o 'Done [0-9]* runs' "$out/$t.log" | grep -o '[0-9]*' | tail -n1)
	cov=$(grep -o 'cov: [0-9]*' "$out/$t.log" | tail -n1 | grep -o '[0-9]*')
	# slow-unit-* files are inputs that ran long, not failures
	crashes=$(find "$out/$t" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	[ $rc -ne 0 ] || [ "$crashes" -gt 0 ] && bad=$((bad + 1))
	summary+=("$(printf '%-26s %12s runs, cov %6s, %d crash files, rc %d' "$t" "${runs:-?}" "${cov:-?}" "$crashes" $rc)")
done
printf '%s\n' "${summary[@]}"
[ "$bad" -eq 0 ]
