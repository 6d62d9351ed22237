#!/usr/bin/env bash
# Instructions per received frame through the whole receive side, counted
# by callgrind on tests/progs/net_rx_cost (bnxt model pair, 64-byte UDP
# datagrams into a zcrx area, bursts of 32, all zero-copy):
#   driver   zn_bnxt_rx_burst inclusive (its refill from the area included)
#   core/net zn_netif_rx inclusive minus the driver: classify, deliver
#   recv_zc  rzc_serve inclusive: datagram -> zcrx CQEs
# Only A's ring passes are counted (poll_a), not the sender's polls.
# Each figure is (count at R2 rounds - count at R1 rounds) / frames between,
# so that set-up, warm-up and the copied frames cancel out.
#
#   scripts/cost-rx.sh [PAYLOAD_BYTES]       (default 64)
# Environment: BUILD (default build), ZN_COST_R1 / ZN_COST_R2 (8 / 24).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BYTES=${1:-64}
R1=${ZN_COST_R1:-8}
R2=${ZN_COST_R2:-24}
PROG=$BUILD/tests/net_rx_cost

command -v valgrind >/dev/null || ZN_DEPS_EXTRA=valgrind scripts/deps.sh
make --no-print-directory -j2 "$PROG" >/dev/null
tmp=$(mktemp -d /tmp/zn-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ir_of() { # FUNCTION FILE: inclusive instructions (0 if not called)
	awk -v f="$1" '{ for (i = 2; i <= NF; i++) { n = $i; sub(/^.*:/, "", n); sub(/\..*$/, "", n)
		if (n == f) { gsub(",", "", $1); print $1; exit } } }' "$2" | grep . || echo 0
}

run() { # ROUNDS: "frames extra driver netif recvzc" (exits on failure)
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" \
		--toggle-collect=poll_a \
		"$PROG" "$1" "$BYTES" >"$tmp/out.$1" 2>"$tmp/err.$1" ||
		{ tail -n 20 "$tmp/err.$1" "$tmp/out.$1" >&2; exit 1; }
	callgrind_annotate --inclusive=yes "$tmp/cg.$1" 2>/dev/null >"$tmp/cg.txt"
	echo "$(sed -n 's/^net_rx_cost: \([0-9]*\) frames.* \([0-9]*\) extra polls$/\1 \2/p' "$tmp/out.$1")" \
		"$(ir_of zn_bnxt_rx_burst "$tmp/cg.txt")" "$(ir_of zn_netif_rx "$tmp/cg.txt")" \
		"$(ir_of rzc_serve "$tmp/cg.txt")"
}

run "$R1" >"$tmp/r1"
run "$R2" >"$tmp/r2"
read -r f1 x1 d1 n1 z1 <"$tmp/r1"
read -r f2 x2 d2 n2 z2 <"$tmp/r2"
awk -v f=$((f2 - f1)) -v d=$((d2 - d1)) -v n=$((n2 - n1)) -v z=$((z2 - z1)) \
	-v x="$x1/$x2" -v b="$BYTES" 'BEGIN {
	printf "callgrind: instructions per frame, %d frames of %d-byte UDP payload into a zcrx area\n", f, b
	printf "(rounds %s vs %s; extra polls %s)\n", "'"$R1"'", "'"$R2"'", x
	printf "%10s %10s %10s %10s\n", "driver", "core/net", "recv_zc", "total"
	printf "%10.1f %10.1f %10.1f %10.1f\n", d / f, (n - d) / f, z / f, (n + z) / f }'
