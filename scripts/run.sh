#!/usr/bin/env bash
# `make run`: the main job.
#  1. The NICs zcnic can drive here (zn-devbind --status).
#  2. zcnic end to end: zn-send sends SEND_ZC datagrams from registered
#     buffers through one port, zn-recv receives them zero-copy (zcrx) on
#     the other and checks every byte. The ports: two real NICs named by
#     ZN_PORT0/ZN_PORT1 (PCI addresses bound to vfio-pci, cabled back to
#     back), or by default a private zn-nicsim pair for each NIC kind in
#     ZN_RUN_NICS (default "bnxt mlx5"; "mixed" is a bnxt and an mlx5 on
#     one wire). zn-send is paced (--pps) so that no datagram is dropped.
#  3. zn-bench: zcnic (over its own zn-nicsim) and the kernel path side by
#     side, a short run; tables on stdout, CSV/JSON/plot in $ZN_RUN_OUT.
# Exits 0 when every byte arrived intact and zn-bench measured every row it
# could; leaves no process, socket or namespace behind, also on Ctrl-C.
#
# Knobs (the defaults take about a minute and a half on 2 cores):
#   ZN_RUN_SIZE (1500) ZN_RUN_COUNT (30000) ZN_RUN_PPS (5000)
#   ZN_RUN_BENCH_ARGS ("--duration-ms 200 --reps 3")  ZN_RUN_OUT ($BUILD/bench)
#   ZN_RUN_NICS ("bnxt mlx5")  ZN_NICSIM_MODEL (zn-bench's NICs: the first of ZN_RUN_NICS)
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
# NIC kinds for the end-to-end part, each on its own zn-nicsim pair; zn-bench
# runs on the first (it starts its own zn-nicsim through ZN_NICSIM_MODEL).
NICS=${ZN_RUN_NICS:-bnxt mlx5}
export ZN_NICSIM_MODEL=${ZN_NICSIM_MODEL:-${NICS%% *}}
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

# One end-to-end run from port $1 to port $2; dies on any loss.
e2e() {
	local A=$1 B=$2 d=$3 bytes secs rpid spid src rrc
	bytes=$((COUNT * SIZE))
	secs=$(( (COUNT + PPS - 1) / PPS ))
	echo "   zn-send: $COUNT SEND_ZC datagrams of $SIZE B from registered buffers at $PPS/s (~${secs} s)"
	echo "   zn-recv: zcrx (RECV_ZC multishot + refill ring), every byte checked"
	# zn-recv's progress line goes to the terminal (stderr), its summary to a file.
	"$BIN/zn-recv" --dev "$B" --size "$SIZE" --expect "$bytes" --idle-ms $IDLE_MS \
		--duration-ms $(( (secs + 30) * 1000 )) >"$d/recv.log" &
	rpid=$!
	pids+=($rpid)
	wait_for $READY_S grep -qs "zn-recv: ready" "$d/recv.log" ||
		die "zn-recv did not get ready: $(tail -n 3 "$d/recv.log")"
	"$BIN/zn-send" --dev "$A" --size "$SIZE" --count "$COUNT" --pps "$PPS" --batch 8 --window 32 \
		--zc on --fixed on --quiet >"$d/send.log" 2>&1 &
	spid=$!
	pids+=($spid)
	wait_child $spid
	src=$?
	wait_child $rpid
	rrc=$?
	sed 's/^/   /' "$d/send.log" "$d/recv.log" | grep -v '^   zn-recv: ready'
	[ $src -eq 0 ] || die "zn-send failed (exit $src)"
	[ $rrc -eq 0 ] && grep -q "every byte intact" "$d/recv.log" ||
		die "zn-recv did not get all $bytes bytes intact (exit $rrc)"
	grep -q "^zn-send: $COUNT notifications (0 copied)" "$d/send.log" ||
		die "zn-send: not one zero-copy notification per datagram"
	echo "   OK: $COUNT datagrams, $bytes bytes, sent and received with zero copies, every byte intact"
	stop_all
	echo
}

if [ -n "${ZN_PORT0:-}" ] && [ -n "${ZN_PORT1:-}" ]; then
	echo "== zcnic end to end on $ZN_PORT0 -> $ZN_PORT1"
	e2e "$ZN_PORT0" "$ZN_PORT1" "$tmp"
else
	for nic in $NICS; do
		case $nic in
		bnxt) what="two bnxt (BCM57508) models"; d0=bnxt0=bnxt d1=bnxt1=bnxt ;;
		mlx5) what="two mlx5 (ConnectX-6 Dx) models"; d0=cx0=mlx5 d1=cx1=mlx5 ;;
		mixed) what="a bnxt and an mlx5 model"; d0=bnxt0=bnxt d1=cx1=mlx5 ;;
		*) die "ZN_RUN_NICS: '$nic' is not bnxt, mlx5 or mixed" ;;
		esac
		n0=${d0%%=*} n1=${d1%%=*}
		mkdir -p "$tmp/$nic"
		echo "== zcnic end to end on zn-nicsim: $what on a pair wire"
		echo "   (set ZN_PORT0/ZN_PORT1 to two PCI addresses to use real NICs)"
		"$BIN/zn-nicsim" --dir "$tmp/$nic" --dev "$d0" --dev "$d1" \
			--wire "pair:$n0,$n1" >"$tmp/$nic/sim.log" 2>&1 &
		pids+=($!)
		wait_for $READY_S grep -qs "zn-nicsim: ready" "$tmp/$nic/sim.log" ||
			die "zn-nicsim did not come up: $(tail -n 3 "$tmp/$nic/sim.log")"
		e2e "vfio-user:$tmp/$nic/$n0.sock" "vfio-user:$tmp/$nic/$n1.sock" "$tmp/$nic"
	done
fi

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
