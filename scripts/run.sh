#!/usr/bin/env bash
# `make run`: the main job.
#  1. The NICs zcnic can drive here (zn-devbind --status).
#  2. zcnic end to end: zn-send sends SEND_ZC datagrams from registered
#     buffers through one bnxt port, zn-recv receives them zero-copy (zcrx)
#     on the other and checks every byte. The ports: two real NICs named by
#     ZN_PORT0/ZN_PORT1 (PCI addresses bound to vfio-pci, cabled back to
#     back), or by default a private zn-nicsim with two bnxt models on a
#     pair wire. zn-send is paced (--pps) so that no datagram is dropped.
#  3. zn-bench: zcnic (over its own zn-nicsim) and the kernel path side by
#     side, a short run; tables on stdout, CSV/JSON/plot in $ZN_RUN_OUT.
# Exits 0 when every byte arrived intact and zn-bench measured every row it
# could; leaves no process, socket or namespace behind, also on Ctrl-C.
#
# Knobs (the defaults take about a minute and a half on 2 cores):
#   ZN_RUN_SIZE (1500) ZN_RUN_COUNT (30000) ZN_RUN_PPS (5000)
#   ZN_RUN_BENCH_ARGS ("--duration-ms 200 --reps 3")  ZN_RUN_OUT ($BUILD/bench)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin
SIZE=${ZN_RUN_SIZE:-1500}
COUNT=${ZN_RUN_COUNT:-30000}
PPS=${ZN_RUN_PPS:-5000}
BENCH_ARGS=${ZN_RUN_BENCH_ARGS:---duration-ms 200 --reps 3}
OUT=${ZN_RUN_OUT:-$BUILD/bench}
READY_S=10          # zn-nicsim / zn-recv: up within this
STOP_S=5            # a child: gone this long after SIGTERM, else SIGKILL
IDLE_MS=2000        # zn-recv: done this long after the last datagram
export ZN_LOG=${ZN_LOG:-warn} ZN_SIM_LOG=${ZN_SIM_LOG:-warn}

tmp=$(mktemp -d /tmp/zn-run.XXXXXX)
pids=()

# Stop what we started (SIGTERM: each one cleans up after itself), bounded.
stop_all() {
	local p i
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for ((i = 0; i < STOP_S * 10; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}
cleanup() {
	stop_all
	rm -rf "$tmp"
}
trap cleanup EXIT
# A second Ctrl-C (or timeout's signal to the group after the one to us) must
# not cut the clean-up short: it is bounded, so further signals wait.
on_signal() {
	trap '' INT TERM HUP
	echo
	echo "make run: interrupted; stopping everything it started"
	exit 130
}
trap on_signal INT TERM HUP

wait_for() { # $1: seconds; the rest: a command
	local i n=$(($1 * 20))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
die() {
	echo "make run: $*" >&2
	exit 1
}
# `wait` for one child; unlike a foreground command it lets the traps run.
wait_child() { # $1: pid; the exit code is returned
	local rc p left=()
	wait "$1"
	rc=$?
	for p in "${pids[@]}"; do [ "$p" = "$1" ] || left+=("$p"); done
	pids=("${left[@]}")
	return $rc
}

for b in zn-devbind zn-nicsim zn-send zn-recv zn-bench; do
	[ -x "$BIN/$b" ] || die "$BIN/$b is not built (run make)"
done

echo "== NICs on this machine (zn-devbind --status)"
"$BIN/zn-devbind" --status || true
echo

if [ -n "${ZN_PORT0:-}" ] && [ -n "${ZN_PORT1:-}" ]; then
	A=$ZN_PORT0 B=$ZN_PORT1
	echo "== zcnic end to end on $A -> $B"
else
	echo "== zcnic end to end on zn-nicsim: two bnxt (BCM57508) models on a pair wire"
	echo "   (set ZN_PORT0/ZN_PORT1 to two PCI addresses to use real NICs)"
	"$BIN/zn-nicsim" --dir "$tmp" --dev bnxt0=bnxt --dev bnxt1=bnxt \
		--wire pair:bnxt0,bnxt1 >"$tmp/sim.log" 2>&1 &
	pids+=($!)
	wait_for $READY_S grep -qs "zn-nicsim: ready" "$tmp/sim.log" ||
		die "zn-nicsim did not come up: $(tail -n 3 "$tmp/sim.log")"
	A=vfio-user:$tmp/bnxt0.sock B=vfio-user:$tmp/bnxt1.sock
fi
bytes=$((COUNT * SIZE))
secs=$(( (COUNT + PPS - 1) / PPS ))
echo "   zn-send: $COUNT SEND_ZC datagrams of $SIZE B from registered buffers at $PPS/s (~${secs} s)"
echo "   zn-recv: zcrx (RECV_ZC multishot + refill ring), every byte checked"

# zn-recv's progress line goes to the terminal (stderr), its summary to a file.
"$BIN/zn-recv" --dev "$B" --size "$SIZE" --expect "$bytes" --idle-ms $IDLE_MS \
	--duration-ms $(( (secs + 30) * 1000 )) >"$tmp/recv.log" &
rpid=$!
pids+=($rpid)
wait_for $READY_S grep -qs "zn-recv: ready" "$tmp/recv.log" ||
	die "zn-recv did not get ready: $(tail -n 3 "$tmp/recv.log")"
"$BIN/zn-send" --dev "$A" --size "$SIZE" --count "$COUNT" --pps "$PPS" --batch 8 --window 32 \
	--zc on --fixed on --quiet >"$tmp/send.log" 2>&1 &
spid=$!
pids+=($spid)
wait_child $spid
src=$?
wait_child $rpid
rrc=$?
sed 's/^/   /' "$tmp/send.log" "$tmp/recv.log" | grep -v '^   zn-recv: ready'
[ $src -eq 0 ] || die "zn-send failed (exit $src)"
[ $rrc -eq 0 ] && grep -q "every byte intact" "$tmp/recv.log" ||
	die "zn-recv did not get all $bytes bytes intact (exit $rrc)"
grep -q "^zn-send: $COUNT notifications (0 copied)" "$tmp/send.log" ||
	die "zn-send: not one zero-copy notification per datagram"
echo "   OK: $COUNT datagrams, $bytes bytes, sent and received with zero copies, every byte intact"
stop_all
echo

echo "== zn-bench: zcnic over zn-nicsim and the kernel path, side by side ($BENCH_ARGS)"
# shellcheck disable=SC2086  # BENCH_ARGS: several options
"$BIN/zn-bench" $BENCH_ARGS --out "$OUT" &
bpid=$!
pids+=($bpid)
wait_child $bpid
brc=$?
[ $brc -eq 0 ] || die "zn-bench failed (exit $brc)"
echo
echo "make run: done. Files: $OUT/zn-bench.csv, $OUT/zn-bench.json and the plot" \
	"$OUT/zn-bench-send.svg (requests/s against size, both paths)"
