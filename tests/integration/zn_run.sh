#!/usr/bin/env bash
# `make run`'s script (scripts/run.sh) in a tiny configuration: exit 0, the
# end-to-end transfer verified, zn-bench's tables with zcnic and kernel rows,
# the files written; nothing left behind (no process of its session, no
# simulator socket directory, no znb* namespace or interface). Then the same
# interrupted with SIGINT (timeout -s INT) mid-transfer: exit 130, nothing
# left. Prints TAP lines; every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD
WAIT_STEPS=100   # x 0.1 s
n=0
fails=0
tmp=$(mktemp -d /tmp/zn-run-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

tap() {
	n=$((n + 1))
	echo "$1 $n - $2"
	[ "$1" = ok ] || fails=$((fails + 1))
}
check() {
	local what=$1
	shift
	if "$@"; then tap ok "$what"; else tap "not ok" "$what"; fi
}
session_gone() {
	local i
	for ((i = 0; i < WAIT_STEPS; i++)); do
		pgrep -s "$1" >/dev/null || return 0
		sleep 0.1
	done
	pgrep -a -s "$1" | sed 's/^/# left: /'
	return 1
}
nothing_left() { # $1: session id
	session_gone "$1" || return 1
	ip -o link show 2>/dev/null | grep -q ' znb[0-9]' && return 1
	# the script's own directories (the simulator's sockets live in them)
	! ls -d /tmp/zn-run.* 2>/dev/null | grep -qvxF -f "$tmp/dirs_before"
}
# scripts/run.sh in a new session whose id (= its pid) lands in $tmp/sid.
run_script() {
	setsid bash -c 'echo $$ >"$0"; exec scripts/run.sh' "$tmp/sid"
}

ls -d /tmp/zn-run.* 2>/dev/null >"$tmp/dirs_before"
echo "x" >>"$tmp/dirs_before"	# never empty: grep -f with no pattern matches nothing

ZN_RUN_COUNT=3000 ZN_RUN_PPS=5000 ZN_RUN_OUT="$tmp/out" \
ZN_RUN_BENCH_ARGS="--quick --sizes 1500 --transports loopback,nicsim --suites send,msgring" \
	timeout 120 bash -c "$(declare -f run_script); tmp=$tmp; run_script" >"$tmp/run.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/run.out" | grep -E "OK:|end to end|zcnic  nicsim|ping-pong|make run" | head -n 14
check "make run's script exits 0 (rc $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#    /' "$tmp/run.out" | tail -n 20
check "the transfer on a bnxt pair and on an mlx5 pair: 3000 datagrams each, every byte intact, zero copies" \
	eval 'grep -q "two bnxt (BCM57508) models" "$tmp/run.out" &&
	      grep -q "two mlx5 (ConnectX-6 Dx) models" "$tmp/run.out" &&
	      [ "$(grep -c "every byte intact" "$tmp/run.out")" -ge 2 ] &&
	      [ "$(grep -c "OK: 3000 datagrams, 4500000 bytes" "$tmp/run.out")" -eq 2 ]'
check "zn-bench's tables: zcnic and kernel rows with ratios" \
	eval 'grep -Eq "^ +1500  zcnic  nicsim +[0-9]" "$tmp/run.out" &&
	      grep -Eq "^ +1500  kernel loopback .* [0-9.]+/[0-9.]+/[0-9.]+ " "$tmp/run.out" &&
	      grep -q "^ping-pong  zcnic" "$tmp/run.out"'
check "CSV and JSON written where it says" \
	eval 'grep -q "Files: $tmp/out/zn-bench.csv" "$tmp/run.out" &&
	      grep -q "^send,zc,zcnic,nicsim,1500,rps,ok" "$tmp/out/zn-bench.csv" &&
	      python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/out/zn-bench.json"'
check "afterwards: no process, socket directory or namespace left" nothing_left "$(cat "$tmp/sid")"

# Ctrl-C in the middle of the transfer.
# timeout runs in the new session too, so that everything the script starts is in it
ZN_RUN_COUNT=200000 ZN_RUN_PPS=5000 ZN_RUN_OUT="$tmp/out2" \
	setsid bash -c 'echo $$ >"$0"; exec timeout --preserve-status -s INT 4 scripts/run.sh' \
	"$tmp/sid" >"$tmp/int.out" 2>&1
rc=$?
check "SIGINT mid-transfer: exit 130, says so (rc $rc)" \
	eval '[ $rc -eq 130 ] && grep -q "make run: interrupted" "$tmp/int.out"'
check "SIGINT: it had started the transfer" grep -q "zn-recv: zcrx" "$tmp/int.out"
check "SIGINT: no process, socket directory or namespace left" nothing_left "$(cat "$tmp/sid")"

echo "# $n tests, $fails failed"
[ "$fails" -eq 0 ]
