#!/usr/bin/env bash
# bnxt figures (a benchmark, not a test; not run by `make test`):
#   1. frames/s over a pair wire (zn-fwd on its private zn-nicsim) for 64,
#      1500 and 9000-byte frames;
#   2. instructions per packet of the driver's RX and TX burst functions,
#      counted by callgrind at burst 32: --toggle-collect on zn-fwd's
#      out-of-line wrappers fwd_rx_burst / fwd_tx_burst / fwd_tx_reap (and
#      their compiler clones, fwd_rx_burst.constprop.0), each of
#      which only makes the port call (so the count is the driver's, plus a
#      call and a return); zn-nicsim runs natively, outside valgrind.
# Target (issue 4): rx_burst + tx_burst under 100 instructions per packet.
#
#   scripts/bench-bnxt.sh [SECONDS_PER_RUN]        (default 5)
# Environment: BUILD (default build), ZN_BENCH_REPS runs per size, the best
# one reported (default 3: the pair shares its cores with whatever else runs),
# ZN_BENCH_CG_FRAMES (default 20000), ZN_BENCH_CG_ONLY=1 runs only part 2
# (callgrind: exact, not timing-dependent),
# ZN_BENCH_LONG=1 also runs the 1,000,000-frame byte-exact test of
# tests/integration/bnxt_pair.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SECS=${1:-5}
CG_FRAMES=${ZN_BENCH_CG_FRAMES:-20000}
REPS=${ZN_BENCH_REPS:-3}
BURST=32
FWD=$BUILD/bin/zn-fwd

command -v valgrind >/dev/null || ZN_DEPS_EXTRA=valgrind scripts/deps.sh
make --no-print-directory -j2 all >/dev/null
tmp=$(mktemp -d /tmp/zn-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

num() { grep -m1 '^zn-fwd: [0-9]* sent, ' "$2" | grep -o "[0-9.]\+ $1" | head -n1 | cut -d' ' -f1; }

frames_per_s() { # part 1
echo "bnxt over a pair wire (zn-fwd, private zn-nicsim, 1 queue, burst $BURST;"
echo "best of $REPS runs of $SECS s per size; every frame checked byte by byte)"
printf '%8s %14s %10s %10s %10s\n' "bytes" "frames/s" "Gbit/s" "dropped" "mismatched"
for size in 64 1500 9000; do
	mtu=1500
	[ "$size" -gt 1514 ] && mtu=9000
	best=
	for ((r = 0; r < REPS; r++)); do
		if ! "$FWD" --sizes "$size" --mtu $mtu --duration "$SECS" --burst $BURST \
			>"$tmp/run" 2>&1; then
			echo "zn-fwd failed for $size bytes:" >&2
			tail -n 5 "$tmp/run" >&2
			exit 1
		fi
		if [ -z "$best" ] || awk -v a="$(num frames/s "$tmp/run")" \
			-v b="$(num frames/s "$tmp/fwd$size")" 'BEGIN { exit !(a > b) }'; then
			cp "$tmp/run" "$tmp/fwd$size"
			best=1
		fi
	done
	printf '%8s %14s %10s %10s %10s\n' "$size" "$(num frames/s "$tmp/fwd$size")" \
		"$(num Gbit/s "$tmp/fwd$size")" "$(num dropped "$tmp/fwd$size")" \
		"$(num mismatched "$tmp/fwd$size")"
done
}
[ "${ZN_BENCH_CG_ONLY:-0}" = 1 ] || frames_per_s

# --pace-us: zn-fwd sleeps after each TX burst and after each empty RX round,
# so that RX bursts come full and empty polls stay out of the count.
# GCC may clone the wrappers (fwd_rx_burst.constprop.0): match up to a dot.
ir_of() { # FUNCTION FILE: inclusive instructions
	awk -v f="$1" '{ for (i = 2; i <= NF; i++) { n = $i; sub(/^.*:/, "", n); sub(/\..*$/, "", n)
		if (n == f) { gsub(",", "", $1); print $1; exit } } }' "$2"
}
per() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b ? a / b : 0 }'; }

cg_run() { # LABEL ZN-FWD-ARGS...: one row of the table
	local label=$1 out rx rxi prov txi reap drv; shift
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
		--toggle-collect='fwd_rx_burst*' --toggle-collect='fwd_tx_burst*' \
		--toggle-collect='fwd_tx_reap*' \
		"$FWD" --sizes 64 --frames "$CG_FRAMES" --burst $BURST --pace-us 2000 --window 64 "$@" \
		>"$tmp/cg.fwd" 2>"$tmp/cg.err" || { tail -n 20 "$tmp/cg.err" "$tmp/cg.fwd" >&2; exit 1; }
	callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null >"$tmp/cg.txt"
	rx=$(num received "$tmp/cg.fwd")
	rxi=$(ir_of fwd_rx_burst "$tmp/cg.txt"); rxi=${rxi:-0}
	prov=$(ir_of provide "$tmp/cg.txt"); prov=${prov:-0}
	txi=$(ir_of fwd_tx_burst "$tmp/cg.txt"); txi=${txi:-0}
	reap=$(ir_of fwd_tx_reap "$tmp/cg.txt"); reap=${reap:-0}
	drv=$((rxi - prov + txi))
	printf '%-34s %9s %9s %9s %9s %9s %11s\n' "$label" "$(per "$rxi" "$rx")" \
		"$(per "$prov" "$rx")" "$(per $((rxi - prov)) "$rx")" "$(per "$txi" "$rx")" \
		"$(per "$reap" "$rx")" "$(per "$drv" "$rx")"
	sed -n 's/^zn-fwd: bursts: /    bursts: /p' "$tmp/cg.fwd"
}

echo
echo "callgrind: instructions per packet, $CG_FRAMES frames of 64 bytes, burst $BURST"
echo "  rx: fwd_rx_burst inclusive; provider: zn-fwd's payload buffer provider (app code"
echo "  called by the driver to refill); rx-drv = rx - provider; tx-drv+rx-drv: the"
echo "  driver's RX+TX burst functions (target: under 100)"
printf '%-34s %9s %9s %9s %9s %9s %11s\n' "case" "rx" "provider" "rx-drv" "tx" "reap" \
	"rx+tx drv"
cg_run "split (hds 0), 1-seg TX"
cg_run "whole (hds 256), 1-seg TX" --hds-thresh 256
cg_run "split (hds 0), 2-seg TX" --tx-split

if [ "${ZN_BENCH_LONG:-0}" = 1 ]; then
	echo
	echo "long mode: tests/integration/bnxt_pair.sh with 1,000,000 frames"
	BUILD=$BUILD ZN_BNXT_LONG=1 bash tests/integration/bnxt_pair.sh
fi
