#!/usr/bin/env bash
# bnxt figures (a benchmark, not a test; not run by `make test`):
#   1. frames/s over a pair wire (zn-fwd on its private zn-nicsim) for 64,
#      1500 and 9000-byte frames;
#   2. instructions per packet of the driver's RX and TX burst functions,
#      counted by callgrind at burst 32 (--toggle-collect on the functions the
#      port ops table points at; zn-nicsim runs natively, outside valgrind).
# Target (issue 4): rx_burst + tx_burst under 100 instructions per packet.
#
#   scripts/bench-bnxt.sh [SECONDS_PER_SIZE]        (default 5)
# Environment: BUILD (default build), ZN_BENCH_CG_FRAMES (default 20000),
# ZN_BENCH_LONG=1 also runs the 1,000,000-frame byte-exact test of
# tests/integration/bnxt_pair.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SECS=${1:-5}
CG_FRAMES=${ZN_BENCH_CG_FRAMES:-20000}
BURST=32
FWD=$BUILD/bin/zn-fwd

command -v valgrind >/dev/null || ZN_DEPS_EXTRA=valgrind scripts/deps.sh
make --no-print-directory -j2 all >/dev/null
tmp=$(mktemp -d /tmp/zn-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

num() { grep -m1 '^zn-fwd: [0-9]* sent, ' "$2" | grep -o "[0-9.]\+ $1" | head -n1 | cut -d' ' -f1; }

echo "bnxt over a pair wire (zn-fwd, private zn-nicsim, 1 queue, burst $BURST, $SECS s per size)"
printf '%8s %14s %10s %10s %10s\n' "bytes" "frames/s" "Gbit/s" "dropped" "mismatched"
for size in 64 1500 9000; do
	mtu=1500
	[ "$size" -gt 1514 ] && mtu=9000
	if ! "$FWD" --sizes "$size" --mtu $mtu --duration "$SECS" --burst $BURST >"$tmp/fwd$size" 2>&1; then
		echo "zn-fwd failed for $size bytes:" >&2
		tail -n 5 "$tmp/fwd$size" >&2
		exit 1
	fi
	printf '%8s %14s %10s %10s %10s\n' "$size" "$(num frames/s "$tmp/fwd$size")" \
		"$(num Gbit/s "$tmp/fwd$size")" "$(num dropped "$tmp/fwd$size")" \
		"$(num mismatched "$tmp/fwd$size")"
done

# --pace-us: after each TX burst zn-fwd waits until the model has surely
# delivered it, so that RX bursts come full and empty polls do not count.
echo
echo "callgrind: $CG_FRAMES frames of 64 bytes, burst $BURST (instructions inside the driver's burst functions)"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
	--toggle-collect='*rx_burst*' --toggle-collect='*tx_burst*' --toggle-collect='*tx_reap*' \
	"$FWD" --sizes 64 --frames "$CG_FRAMES" --burst $BURST --pace-us 2000 --window 64 \
	>"$tmp/cg.fwd" 2>"$tmp/cg.err" || { tail -n 20 "$tmp/cg.err" "$tmp/cg.fwd" >&2; exit 1; }
rx=$(num received "$tmp/cg.fwd")
grep '^zn-fwd: bursts' "$tmp/cg.fwd" | sed 's/^/  /'
callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null >"$tmp/cg.txt"
# Lines look like "  1,234,567 (12.3%)  file.c:func [binary]" or "1,234,567  file.c:func".
ir_of() {
	awk -v pat="$1" '$0 ~ pat && $0 !~ /zn_port_/ { gsub(",", "", $1); s += $1 } END { print s + 0 }' \
		"$tmp/cg.txt"
}
rx_ir=$(ir_of ':[a-z0-9_]*rx_burst[^a-z_]')
tx_ir=$(ir_of ':[a-z0-9_]*tx_burst[^a-z_]')
reap_ir=$(ir_of ':[a-z0-9_]*tx_reap[^a-z_]')
printf '%-22s %14s %12s\n' "function" "instructions" "per packet"
for row in "rx_burst $rx_ir" "tx_burst $tx_ir" "tx_reap $reap_ir" \
	   "rx_burst+tx_burst $((rx_ir + tx_ir))" "all three $((rx_ir + tx_ir + reap_ir))"; do
	set -- $row
	printf '%-22s %14s %12s\n' "$1" "$2" "$(awk -v a="$2" -v b="$rx" 'BEGIN { printf "%.1f", b ? a / b : 0 }')"
done
echo "(packets: $rx received of $CG_FRAMES; functions matched:"
grep -E ':[a-z0-9_]*(rx_burst|tx_burst|tx_reap)[^a-z_]' "$tmp/cg.txt" | grep -v zn_port_ | sed 's/^/   /'
echo ")"

if [ "${ZN_BENCH_LONG:-0}" = 1 ]; then
	echo
	echo "long mode: tests/integration/bnxt_pair.sh with 1,000,000 frames"
	BUILD=$BUILD ZN_BNXT_LONG=1 bash tests/integration/bnxt_pair.sh
fi
