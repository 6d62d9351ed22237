#!/usr/bin/env bash
# The bnxt model in zn-nicsim as a process: listed with its options, option
# errors, two ports on a pair wire with the link up, frames through the pair
# (tests/progs/bnxt_model_bench) with polled DPI doorbells and with trapped
# legacy doorbells (multidb=0), counters on SIGUSR1, a clean stop.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin/zn-nicsim
BENCH=$BUILD/tests/bnxt_model_bench
WAIT_S=10
FRAMES=${ZN_BNXT_BENCH_FRAMES:-20000}

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # $1 description, rest: command
	local d=$1; shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}

tmp=$(mktemp -d /tmp/zn-nicsim-bnxt.XXXXXX)
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
check "--list-models lists bnxt (14e4:1750)" grep -q "^bnxt.*14e4:1750" <<<"$out"
check "--list-models shows the bnxt options" \
	bash -c 'for o in mac= multidb= queues= mtu= drop= corrupt= fail_cmd= valid_delay_ms=; do grep -q "  $o" <<<"$1" || exit 1; done' _ "$out"

# usage_fails TEXT ARGS...: exit status 2 and TEXT in the message
usage_fails() {
	local want=$1 err rc
	shift
	err=$("$BIN" "$@" 2>&1); rc=$?
	[ $rc -eq 2 ] && grep -q -- "$want" <<<"$err"
}
check "queues=99: exit 2, names the range" usage_fails "queues=99" --dir "$tmp" --dev b=bnxt,queues=99
check "a multicast mac=: exit 2" usage_fails "unicast" --dir "$tmp" --dev b=bnxt,mac=01:00:00:00:00:01
check "an unknown option: exit 2" usage_fails "no option 'speed'" --dir "$tmp" --dev b=bnxt,speed=1

# run SPEC...: a zn-nicsim with two bnxt ports on a pair wire, the bench through
# it, its counters; $1 is a label
run() {
	local label=$1 opts=$2 pid out
	rm -f "$tmp"/*.sock "$tmp/out"
	"$BIN" --dir "$tmp" --dev "bnxt0=bnxt$opts" --dev "bnxt1=bnxt$opts" \
		--wire pair:bnxt0,bnxt1 >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	pids+=("$pid")
	if ! wait_for grep -q "zn-nicsim: ready" "$tmp/out"; then
		nok "$label: zn-nicsim with two bnxt ports on a pair wire is ready"
		return
	fi
	ok "$label: zn-nicsim with two bnxt ports on a pair wire is ready"
	kill -USR1 "$pid"
	check "$label: both links are up" \
		wait_for bash -c "grep -q '^bnxt0.model.link_up 1$' '$tmp/out' && grep -q '^bnxt1.model.link_up 1$' '$tmp/out'"
	out=$(timeout 120 "$BENCH" "$tmp/bnxt0.sock" "$tmp/bnxt1.sock" "$FRAMES" 60 1500 2>&1)
	check "$label: $FRAMES 60- and 1500-byte frames through the pair, none lost" \
		bash -c "[ \$(grep -c '^ok ' <<<'$out') -eq 2 ]"
	grep '^ok \|^not ok ' <<<"$out" | sed "s/^/# $label: /"
	: >"$tmp/out"
	kill -USR1 "$pid"
	wait_for grep -q '^bnxt1.model.rx_frames' "$tmp/out"
	check "$label: the receiver counted every frame, HDS split them" \
		bash -c "grep -q '^bnxt1.model.rx_frames $((2 * FRAMES))$' '$tmp/out' && grep -q '^bnxt1.model.rx_hds $((2 * FRAMES))$' '$tmp/out'"
	check "$label: no doorbell, BD or DMA error" \
		bash -c "grep -q '^bnxt0.model.db_bad 0$' '$tmp/out' && grep -q '^bnxt1.model.db_bad 0$' '$tmp/out' && grep -q '^bnxt0.model.tx_errors 0$' '$tmp/out' && grep -q '^bnxt1.dma.err_unmapped 0$' '$tmp/out'"
	if [ -z "$opts" ]; then
		check "$label: doorbells were polled, none trapped" \
			bash -c "! grep -q '^bnxt0.model.db_polled 0$' '$tmp/out' && grep -q '^bnxt0.model.db_legacy 0$' '$tmp/out'"
	else
		check "$label: doorbells were trapped, none polled" \
			bash -c "! grep -q '^bnxt0.model.db_legacy 0$' '$tmp/out' && grep -q '^bnxt0.model.db_polled 0$' '$tmp/out'"
	fi
	kill -TERM "$pid"
	check "$label: zn-nicsim stops on SIGTERM" wait_for gone "$pid"
	wait "$pid"
	check "$label: exit status 0" [ $? -eq 0 ]
}

run "multi-doorbell" ""
run "legacy doorbell" ",multidb=0"

[ $failed -eq 0 ]
