#!/usr/bin/env bash
# zn-recv --wait irq and zn-send --wait irq over two bnxt and over two mlx5
# models on zn-nicsim pair wires: the receiver, idle before the first
# datagram, uses little CPU (utime + stime from /proc over an idle second:
# at most a tenth of it), then N datagrams arrive byte-exact.
# ZN_WAIT_IRQ_POLL=1 also prints an idle --wait poll receiver's CPU.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
RECV=$BUILD/bin/zn-recv
SEND=$BUILD/bin/zn-send
WAIT_S=20
COUNT=${ZN_WAIT_IRQ_COUNT:-300}
SIZE=1000
IDLE_S=1
# idle CPU allowed to --wait irq: a tenth of the idle wall time (in ticks)
TICK=$(getconf CLK_TCK)
IRQ_MAX_TICKS=$((IDLE_S * TICK / 10))

n=0 failed=0
. tests/integration/lib/tap.sh

tmp=$(mktemp -d /tmp/zn-wait-irq.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# utime + stime of a process, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

for b in "$SIM" "$RECV" "$SEND"; do
	[ -x "$b" ] || { echo "not ok 1 - $b is built"; exit 1; }
done

# utime + stime over IDLE_S of process $1 (ticks, stdout), or -1 if it went away
idle_ticks() {
	local t0 t1
	t0=$(cpu_ticks "$1")
	sleep "$IDLE_S"
	t1=$(cpu_ticks "$1")
	if ! kill -0 "$1" 2>/dev/null; then echo -1; else echo $((t1 - t0)); fi
}

model() {
	local m=$1 a b idle poll bytes=$((COUNT * SIZE)) rpid src rrc
	a="vfio-user:$tmp/${m}0.sock"
	b="vfio-user:$tmp/${m}1.sock"
	if [ -n "${ZN_WAIT_IRQ_POLL:-}" ]; then	# the comparison, for the record
		"$RECV" --dev "$b" --wait poll --duration-ms $((WAIT_S * 1000)) --quiet \
			>"$tmp/idle" 2>&1 &
		rpid=$!
		wait_for grep -q "zn-recv: ready" "$tmp/idle"
		sleep 0.2
		poll=$(idle_ticks $rpid)
		kill $rpid 2>/dev/null; wait $rpid 2>/dev/null
		echo "# $m: zn-recv --wait poll idle for $IDLE_S s: $poll ticks of CPU ($TICK ticks/s)"
	fi
	"$RECV" --dev "$b" --wait irq --size $SIZE --expect $bytes --duration-ms $((WAIT_S * 1000)) \
		--quiet >"$tmp/recv" 2>&1 &
	rpid=$!
	if ! wait_for grep -q "zn-recv: ready" "$tmp/recv"; then
		nok "$m: zn-recv --wait irq is ready"; kill -9 $rpid 2>/dev/null; return
	fi
	sleep 0.2	# past its start-up
	idle=$(idle_ticks $rpid)
	echo "# $m: zn-recv --wait irq idle for $IDLE_S s: $idle ticks of CPU ($TICK ticks/s)"
	check "$m: idle zn-recv --wait irq used at most $IRQ_MAX_TICKS ticks (used $idle)" \
		bash -c "[ $idle -ge 0 ] && [ $idle -le $IRQ_MAX_TICKS ]"
	"$SEND" --dev "$a" --wait irq --size $SIZE --count $COUNT --batch 8 --window 32 \
		--pps 20000 --quiet >"$tmp/send" 2>&1
	src=$?
	wait $rpid; rrc=$?
	sed 's/^/# /' "$tmp/send" "$tmp/recv" | grep -v " info " | tail -n 6
	check "$m: zn-send --wait irq sent $COUNT datagrams, exit 0 (rc $src)" \
		bash -c "[ $src -eq 0 ] && grep -q '^zn-send: $COUNT datagrams' '$tmp/send'"
	check "$m: zn-recv --wait irq got $bytes bytes, every byte intact, exit 0 (rc $rrc)" \
		bash -c "[ $rrc -eq 0 ] && grep -q '^zn-recv: $bytes bytes' '$tmp/recv' && grep -q 'every byte intact' '$tmp/recv'"
}

# one zn-nicsim, two pairs: bnxt0-bnxt1 and mlx50-mlx51
"$SIM" --dir "$tmp" --dev bnxt0=bnxt --dev bnxt1=bnxt --wire pair:bnxt0,bnxt1 \
	--dev mlx50=mlx5 --dev mlx51=mlx5 --wire pair:mlx50,mlx51 >"$tmp/sim" 2>&1 &
pids+=($!)
if ! wait_for grep -q "zn-nicsim: ready" "$tmp/sim"; then
	nok "zn-nicsim with two bnxt and two mlx5 ports is ready"
	exit 1
fi
model bnxt
model mlx5

echo "1..$n"
[ "$failed" -eq 0 ]
