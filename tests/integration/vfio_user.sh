#!/usr/bin/env bash
# End to end over vfio-user: zn-nicsim (its own process) serves the edu device.
# tests/progs/edu_test, the same program make test-vfio runs against QEMU's edu
# under kernel VFIO, drives it through zn_bus_open("vfio-user:..."); then
# tests/progs/vfu_e2e checks what only zn-nicsim has (the BAR2 doorbell page,
# MSI-X by doorbell, reset) and kills the server and a client mid-session, and
# vfu_latency measures a trapped register write, a doorbell, and what an idle
# client costs the server. Prints TAP lines "ok N - what".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NICSIM=$BUILD/bin/zn-nicsim
EDU=$BUILD/tests/edu_test
E2E=$BUILD/tests/vfu_e2e
LAT=$BUILD/tests/vfu_latency
SAMPLES=${ZN_VFU_LAT_SAMPLES:-20000}
IDLE_CPU_MAX=10	# % of a CPU an idle client may cost the server (idle: ~1.3 %; a spinning
		# server would cost ~100 %; 10 leaves room for a loaded machine)

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

# Run a TAP program (tests/progs/prog_tap.h); renumber its lines into ours.
run_tap() {
	local out rc line re='^(not )?ok [0-9]+ - (.*)$'
	out=$(timeout 60 "$@" 2>"$tmp/stderr")
	rc=$?
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			tap "${BASH_REMATCH[1]}ok" "${BASH_REMATCH[2]}"
		elif [[ $line = "#"* ]]; then
			echo "$line"
		elif [ -n "$line" ]; then
			echo "# $line"
		fi
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

for b in "$NICSIM" "$EDU" "$E2E" "$LAT"; do
	if [ ! -x "$b" ]; then
		echo "not ok 1 - $b is not built (make tests)"
		exit 1
	fi
done

# 1. edu_test, as under kernel VFIO; the vfio-user-only parts; a client that
#    dies and a new one.
if start_sim edu0; then
	tap ok "zn-nicsim serves edu0 at $sock"
	run_tap "$EDU" "vfio-user:$sock" small
	huge_free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	if [ "${huge_free:-0}" -gt 0 ]; then
		run_tap "$EDU" "vfio-user:$sock" huge
	else
		# core/mem falls back to 4 KiB pages only when not told "huge".
		tap ok "edu_test huge # SKIP no free 2 MiB hugepage (HugePages_Free ${huge_free:-none}); the small run covered the same checks"
	fi
	run_tap "$E2E" device "$sock"
	run_tap "$E2E" client-death "$sock"

	# A client that holds the device without talking (connects and never
	# sends; stops inside a message) is dropped after the server's 2 s limit,
	# and the next one is served within its own 5 s.
	for how in silent half; do
		python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
if sys.argv[2] == "half":
    s.send(b"\x01\x00\x01\x00\x20")   # 5 bytes of a VERSION header
print("connected", flush=True)
time.sleep(30)
' "$sock" "$how" >"$tmp/stall.out" 2>&1 &
		stall_pid=$!
		pids+=("$stall_pid")
		for _ in $(seq 100); do
			grep -q connected "$tmp/stall.out" && break
			sleep 0.05
		done
		t0=$(date +%s%N)
		run_tap "$E2E" device "$sock"
		ms=$((($(date +%s%N) - t0) / 1000000))
		kill "$stall_pid" 2>/dev/null
		wait "$stall_pid" 2>/dev/null
		what="sent no VERSION"
		[ $how = half ] && what="stopped inside a message"
		if [ "$(grep -c "client disconnected: stalled: $what within 2000 ms" "$tmp/edu0.log")" = 1 ]; then
			tap ok "a $how client is dropped with one line after 2 s; the next was served ($ms ms after it came)"
		else
			grep stalled "$tmp/edu0.log" | sed 's/^/# zn-nicsim: /'
			tap "not ok" "a $how client: no single 'stalled: $what' line"
		fi
	done

	# 2. Latency of a trapped register write and of a doorbell; the CPU an
	#    idle client costs the server.
	if out=$(timeout 120 "$LAT" "$sock" "$SAMPLES" "$sim_pid" 2>&1); then
		sed 's/^/# /' <<<"$out"
		tap ok "latency probe: $(grep -o '(a).*p99 *[0-9.]* us' <<<"$out" | tr -s ' '); $(grep -o '(b).*busy *median *[0-9.]* us *p99 *[0-9.]* us' <<<"$out" | tr -s ' '); $(grep -o '2 ms idle *median *[0-9.]* us *p99 *[0-9.]* us' <<<"$out" | tr -s ' ')"
		cpu=$(sed -n 's/^(c).* \([0-9.]*\) %.*/\1/p' <<<"$out")
		if [ -n "$cpu" ] && awk -v c="$cpu" -v m="$IDLE_CPU_MAX" 'BEGIN { exit !(c < m) }'; then
			tap ok "an idle client costs the server $cpu % of a CPU (< $IDLE_CPU_MAX %)"
		else
			tap "not ok" "an idle client costs the server ${cpu:-?} % of a CPU (want < $IDLE_CPU_MAX %)"
		fi
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
