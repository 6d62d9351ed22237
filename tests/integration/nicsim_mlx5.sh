#!/usr/bin/env bash
# The mlx5 model in zn-nicsim as a process: listed with its options, option
# errors, a CX-6 Dx and a CX-7 on a pair wire with frames through them
# (tests/progs/mlx5_model_bench: SHAMPO split, byte-exact), an mlx5 and a
# bnxt on one wire, counters on SIGUSR1 (pages given and returned), a clean
# stop. Prints TAP lines; exits non-zero if any check failed. Every wait is
# bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin/zn-nicsim
BENCH=$BUILD/tests/mlx5_model_bench
WAIT_S=10
FRAMES=${ZN_MLX5_BENCH_FRAMES:-20000}

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # $1 description, rest: command
	local d=$1; shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}

tmp=$(mktemp -d /tmp/zn-nicsim-mlx5.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

wait_for() {
	local i
	for ((i = 0; i < WAIT_S * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
gone() { ! kill -0 "$1" 2>/dev/null; }

if [ ! -x "$BIN" ] || [ ! -x "$BENCH" ]; then
	echo "not ok 1 - $BIN and $BENCH are built"
	exit 1
fi

out=$("$BIN" --list-models 2>&1)
check "--list-models lists mlx5 (15b3:101d, 15b3:1021)" grep -q "^mlx5.*15b3:101d.*15b3:1021" <<<"$out"
check "--list-models shows the mlx5 options" \
	bash -c 'for o in mac= device= fatal_after_ms= fatal_synd=; do grep -q "  $o" <<<"$1" || exit 1; done' _ "$out"

usage_fails() {
	local want=$1 err rc
	shift
	err=$("$BIN" "$@" 2>&1); rc=$?
	[ $rc -eq 2 ] && grep -q -- "$want" <<<"$err"
}
check "device=cx9: exit 2, names the choices" usage_fails "cx6dx or cx7" --dir "$tmp" --dev c=mlx5,device=cx9
check "a multicast mac=: exit 2" usage_fails "unicast" --dir "$tmp" --dev c=mlx5,mac=01:00:00:00:00:01
check "an unknown option: exit 2" usage_fails "no option 'speed'" --dir "$tmp" --dev c=mlx5,speed=1
check "fatal_synd=0: exit 2, names the range" usage_fails "fatal_synd=0" --dir "$tmp" --dev c=mlx5,fatal_synd=0

# start ARGS...: a zn-nicsim with the given devices and wires
start() {
	rm -f "$tmp"/*.sock "$tmp/out"
	"$BIN" --dir "$tmp" "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	pids+=("$pid")
	wait_for grep -q "zn-nicsim: ready" "$tmp/out"
}
stop() {
	kill -TERM "$pid"
	check "$1: zn-nicsim stops on SIGTERM" wait_for gone "$pid"
	wait "$pid"
	check "$1: exit status 0" [ $? -eq 0 ]
}

if start --dev cx0=mlx5 --dev cx1=mlx5,device=cx7 --wire pair:cx0,cx1; then
	ok "two mlx5 (CX-6 Dx, CX-7) on a pair wire: ready"
	out=$(timeout 120 "$BENCH" "$tmp/cx0.sock" "$tmp/cx1.sock" "$FRAMES" 60 1500 9000 2>&1)
	check "$FRAMES frames of 60, 1500 and 9000 bytes through the pair, split and intact" \
		bash -c "[ \$(grep -c '^ok ' <<<'$out') -eq 3 ]"
	grep '^ok \|^not ok ' <<<"$out" | sed 's/^/# /'
	: >"$tmp/out"
	kill -USR1 "$pid"
	wait_for grep -q '^cx1.model.rx_frames' "$tmp/out"
	check "the receiver counted every frame, SHAMPO split them" \
		bash -c "grep -q '^cx1.model.rx_frames $((3 * FRAMES))$' '$tmp/out' && grep -q '^cx1.model.rx_hds $((3 * FRAMES))$' '$tmp/out'"
	check "no TX error, RX drop or DMA error; the bench's 56 pages went with its disconnect (reset)" \
		bash -c "grep -q '^cx0.model.tx_errors 0$' '$tmp/out' && grep -q '^cx1.model.rx_dropped 0$' '$tmp/out' && grep -q '^cx0.dma.err_unmapped 0$' '$tmp/out' && grep -q '^cx1.model.pages_lost_reset 56$' '$tmp/out'"
	stop "mlx5 pair"
else
	nok "two mlx5 (CX-6 Dx, CX-7) on a pair wire: ready"
fi

if start --dev cx0=mlx5 --dev b0=bnxt --wire pair:cx0,b0; then
	ok "mlx5 and bnxt on one wire: ready"
	kill -USR1 "$pid"
	check "the mlx5 end is up only once a driver initialised it; the bnxt end is up" \
		wait_for bash -c "grep -q '^b0.model.link_up 1$' '$tmp/out' && grep -q '^cx0.model.link_up 0$' '$tmp/out'"
	stop "mixed wire"
else
	nok "mlx5 and bnxt on one wire: ready"
fi

[ $failed -eq 0 ]
