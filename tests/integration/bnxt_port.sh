#!/usr/bin/env bash
# bnxt end to end: two bnxt ports of zn-nicsim on a pair wire, driven through
# include/zcnic/port.h by tests/progs/bnxt_port (bring-up, byte-exact UDP with
# header-data split, RSS, n-tuple, statistics, 20 restarts and reopens), in
# multi-doorbell mode and in the legacy shared-doorbell mode; then the data
# path's instructions per packet (RX + TX, burst 32) counted with callgrind
# on tests/progs/bnxt_ipp. Prints TAP lines "ok N - what".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NICSIM=$BUILD/bin/zn-nicsim
PORT=$BUILD/tests/bnxt_port
IPP=$BUILD/tests/bnxt_ipp
IPP_ITERS=${ZN_IPP_ITERS:-2000}

n=0
fails=0
pids=()
tmp=$(mktemp -d /tmp/zn-bnxt-port.XXXXXX)

cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

tap() { # $1: ok | "not ok", $2: what
	n=$((n + 1))
	echo "$1 $n - $2"
	[ "$1" = ok ] || fails=$((fails + 1))
}

# Run a program that prints "ok - what" / "not ok - what"; number its lines.
run_tap() {
	local out rc line
	out=$(timeout 120 "$@" 2>"$tmp/stderr")
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) tap ok "${line#ok - }" ;;
		"not ok - "*) tap "not ok" "${line#not ok - }" ;;
		?*) echo "# $line" ;;
		esac
	done <<<"$out"
	sed 's/^/# stderr: /' "$tmp/stderr"
	[ $rc -eq 0 ] || tap "not ok" "$(basename "$1") $2 exited with status $rc"
}

# Start zn-nicsim with bnxt0 and bnxt1 on a pair wire; $1: extra model options.
# The previous run's log goes first: the background job truncates it only
# when it gets to run, and until then its "ready" line would be read as this
# run's (under load the second start then went on before any socket existed).
start_sim() {
	rm -f "$tmp"/*.sock "$tmp/sim.log"
	"$NICSIM" --dir "$tmp" --dev "bnxt0=bnxt$1" --dev "bnxt1=bnxt$1" \
		--wire pair:bnxt0,bnxt1 >"$tmp/sim.log" 2>&1 &
	sim_pid=$!
	pids+=("$sim_pid")
	for _ in $(seq 200); do
		grep -qs "zn-nicsim: ready" "$tmp/sim.log" && return 0
		kill -0 "$sim_pid" 2>/dev/null || break
		sleep 0.05
	done
	sed 's/^/# zn-nicsim: /' "$tmp/sim.log"
	return 1
}

stop_sim() {
	kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
	# What the strict model refused, if anything, is worth seeing.
	grep -E " (warn|err) " "$tmp/sim.log" | head -20 | sed 's/^/# zn-nicsim: /'
	if grep -qE " (warn|err) bnxt" "$tmp/sim.log"; then
		tap "not ok" "zn-nicsim ($1) logged no rule broken by the driver"
	else
		tap ok "zn-nicsim ($1) logged no rule broken by the driver"
	fi
}

for b in "$NICSIM" "$PORT" "$IPP"; do
	if [ ! -x "$b" ]; then
		echo "not ok 1 - $b is not built (make tests)"
		exit 1
	fi
done

if start_sim ""; then
	tap ok "zn-nicsim serves bnxt0 and bnxt1 (multi-doorbell) on a pair wire"
	run_tap "$PORT" full "$tmp"
	stop_sim "multi-doorbell"
else
	tap "not ok" "zn-nicsim did not start"
fi

if start_sim ",multidb=0"; then
	tap ok "zn-nicsim serves bnxt0 and bnxt1 with the legacy doorbell only (multidb=0)"
	run_tap "$PORT" basic "$tmp"
	stop_sim "legacy doorbell"
else
	tap "not ok" "zn-nicsim (multidb=0) did not start"
fi

# Instructions per packet of the driver's RX + TX entry points, burst 32.
if [ "${SAN:-0}" = 1 ]; then
	echo "# SAN=1: instructions per packet are counted on the plain build only"
elif command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
	out=$(cd "$tmp" && timeout 300 valgrind --tool=callgrind \
		--toggle-collect=bnxt_rx_burst_op --toggle-collect=bnxt_tx_burst_op \
		--toggle-collect=bnxt_tx_reap_op --callgrind-out-file="$tmp/ipp.out" \
		"$OLDPWD/$IPP" "$IPP_ITERS" 32 2>"$tmp/vg.log")
	rc=$?
	echo "# $out"
	total=$(callgrind_annotate "$tmp/ipp.out" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
	if [ $rc -eq 0 ] && [ -n "$total" ]; then
		ipp=$(awk -v t="$total" -v p="$((IPP_ITERS * 32))" 'BEGIN { printf "%.1f", t / p }')
		callgrind_annotate "$tmp/ipp.out" 2>/dev/null | grep -E '^ *[0-9,]+ +\(' | head -8 | sed 's/^/# /'
		tap ok "bnxt data path: $ipp instructions per packet for RX + TX (rx_burst + tx_burst + tx_reap, burst 32, HDS with one payload buffer, callgrind)"
	else
		tail -5 "$tmp/vg.log" | sed 's/^/# /'
		tap "not ok" "bnxt_ipp under callgrind (status $rc)"
	fi
else
	echo "# valgrind not installed: instructions per packet not counted"
fi

[ "$fails" -eq 0 ]
