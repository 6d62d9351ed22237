#!/usr/bin/env bash
# End to end over vfio-user: zn-nicsim (its own process) serves the edu device,
# tests/progs/vfu_e2e drives it through zn_bus_open("vfio-user:..."), then the
# server and a client are killed mid-session, and vfu_latency measures a
# trapped register write and a doorbell. Prints TAP lines "ok N - what".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NICSIM=$BUILD/bin/zn-nicsim
E2E=$BUILD/tests/vfu_e2e
LAT=$BUILD/tests/vfu_latency
SAMPLES=${ZN_VFU_LAT_SAMPLES:-20000}

n=0
fails=0
pids=()
tmp=$(mktemp -d /tmp/zn-vfu-e2e.XXXXXX)

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
	out=$(timeout 60 "$@" 2>"$tmp/stderr")
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

# Start zn-nicsim with one edu device named $1; sets sim_pid and sock.
start_sim() {
	"$NICSIM" --dir "$tmp" --dev "$1=edu" >"$tmp/$1.log" 2>&1 &
	sim_pid=$!
	pids+=("$sim_pid")
	sock=$tmp/$1.sock
	for _ in $(seq 200); do
		grep -q "zn-nicsim: ready" "$tmp/$1.log" && return 0
		kill -0 "$sim_pid" 2>/dev/null || break
		sleep 0.05
	done
	sed 's/^/# zn-nicsim: /' "$tmp/$1.log"
	return 1
}

for b in "$NICSIM" "$E2E" "$LAT"; do
	if [ ! -x "$b" ]; then
		echo "not ok 1 - $b is not built (make tests)"
		exit 1
	fi
done

# 1. A whole driver session, then a client that dies and a new one.
if start_sim edu0; then
	tap ok "zn-nicsim serves edu0 at $sock"
	run_tap "$E2E" basic "$sock"
	run_tap "$E2E" client-death "$sock"

	# 2. Latency of a trapped register write and of a doorbell.
	if out=$(timeout 120 "$LAT" "$sock" "$SAMPLES" 2>&1); then
		sed 's/^/# /' <<<"$out"
		tap ok "latency probe: $(grep -o '(a).*p99 *[0-9.]* us' <<<"$out" | tr -s ' '); $(grep -o '(b).*busy *median *[0-9.]* us *p99 *[0-9.]* us' <<<"$out" | tr -s ' ')"
	else
		sed 's/^/# /' <<<"$out"
		tap "not ok" "latency probe failed"
	fi

	kill -TERM "$sim_pid"
	wait "$sim_pid"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -e "$sock" ]; then
		tap ok "zn-nicsim stops on SIGTERM and removes its socket"
	else
		sed 's/^/# zn-nicsim: /' "$tmp/edu0.log" | tail -n 20
		tap "not ok" "zn-nicsim stop: status $rc, socket left: $([ -e "$sock" ] && echo yes || echo no)"
	fi
else
	tap "not ok" "zn-nicsim did not come up"
fi

# 3. The server dies in the middle of a session.
if start_sim edu1; then
	run_tap "$E2E" server-death "$sock" "$sim_pid"
	wait "$sim_pid" 2>/dev/null
	rc=$?
	if [ $rc -eq 137 ]; then tap ok "zn-nicsim was killed by the test (status $rc)"
	else tap "not ok" "zn-nicsim exit status $rc, expected 137 (SIGKILL)"; fi
else
	tap "not ok" "zn-nicsim did not come up"
fi

echo "1..$n"
[ $fails -eq 0 ]
