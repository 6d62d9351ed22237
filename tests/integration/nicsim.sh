#!/usr/bin/env bash
# zn-nicsim as a program: command line, ready signal, sockets, stats on
# SIGUSR1 and at exit, clean SIGTERM, stale/live socket files, idle CPU.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin/zn-nicsim
WAIT_S=10

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # $1 description, rest: command
	local d=$1; shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}

tmp=$(mktemp -d /tmp/zn-nicsim-test.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# wait_for CMD...: retries for WAIT_S seconds
wait_for() {
	local i
	for ((i = 0; i < WAIT_S * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
gone() { ! kill -0 "$1" 2>/dev/null; }

if [ ! -x "$BIN" ]; then
	echo "not ok 1 - $BIN is built"
	exit 1
fi

# ---- command line ----
out=$("$BIN" --help 2>&1); rc=$?
check "--help exits 0" [ $rc -eq 0 ]
check "--help shows the usage and the socket convention" \
	grep -q "DIR/NAME.sock" <<<"$out"
out=$("$BIN" --list-models 2>&1); rc=$?
check "--list-models exits 0" [ $rc -eq 0 ]
check "--list-models lists edu and its options" grep -q "msix=N" <<<"$out"

expect_usage() { # $1 description, $2 message substring, rest: args
	local d=$1 msg=$2 out rc; shift 2
	out=$("$BIN" "$@" 2>&1); rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$msg" <<<"$out"; then
		ok "$d"
	else
		nok "$d (rc $rc: $out)"
	fi
}
expect_usage "no --dev: exit 2" "no device" --dir "$tmp"
expect_usage "unknown option: exit 2" "unknown option" --dir "$tmp" --dev a=edu --bogus
expect_usage "unknown model: exit 2" "unknown model 'nic9'" --dir "$tmp" --dev a=nic9
expect_usage "unknown model option: exit 2" "no option 'speed'" --dir "$tmp" --dev a=edu,speed=1
expect_usage "bad device name: exit 2" "device name" --dir "$tmp" --dev "a/b=edu"
expect_usage "duplicate device: exit 2" "given twice" --dir "$tmp" --dev a=edu --dev a=edu
expect_usage "missing --dir: exit 2" "exactly one of --dir" --dev a=edu
# A missing --dir is created (the README's example works verbatim); a file is refused.
: >"$tmp/file"
expect_usage "--dir not a directory: exit 2" "not a directory" --dir "$tmp/file" --dev a=edu
expect_usage "--wire on a model without ports: exit 2" \
	"device 'a' (model edu) has no network ports" \
	--dir "$tmp" --dev a=edu --dev b=edu --wire pair:a,b
expect_usage "--wire of an unknown device: exit 2" "no device 'c'" \
	--dir "$tmp" --dev a=edu --wire pair:c,a
expect_usage "--wire of an unknown kind: exit 2" "unknown kind" \
	--dir "$tmp" --dev a=edu --wire cable:a,b

# ---- a running daemon ----
fifo=$tmp/ready.fifo
mkfifo "$fifo"
stats=$tmp/stats.txt
"$BIN" --dir "$tmp" --dev edu0=edu --dev edu1=edu,msix=8,dma_delay_ms=5 \
	--stats-file "$stats" --ready-fd 3 3>"$fifo" >"$tmp/out" 2>"$tmp/err" &
pid=$!
pids+=("$pid")
line=
read -r -t $WAIT_S line <"$fifo"
check "--ready-fd gets 'ready'" [ "$line" = ready ]
check "stdout says 'zn-nicsim: ready'" wait_for grep -qx "zn-nicsim: ready" "$tmp/out"
check "one socket per device: DIR/NAME.sock" \
	bash -c "[ -S '$tmp/edu0.sock' ] && [ -S '$tmp/edu1.sock' ]"

# an idle daemon (no client) sleeps: under 5% of a CPU over a second
t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
sleep 1
t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
check "idle daemon uses next to no CPU ($((t1 - t0)) ticks in 1 s)" [ $((t1 - t0)) -lt 5 ]

kill -USR1 "$pid"
check "SIGUSR1 prints counters on stdout" wait_for grep -q "^edu1.msgs.VERSION 0$" "$tmp/out"
check "SIGUSR1 prints error counters per reason" grep -q "^edu0.errors.bad_size 0$" "$tmp/out"
check "SIGUSR1 prints model counters" grep -q "^edu0.model.doorbell_reactions 0$" "$tmp/out"
check "SIGUSR1 writes --stats-file" wait_for grep -q "^edu0.clients 0$" "$stats"

# a second server on the same socket is refused, the first keeps it
out=$("$BIN" --dir "$tmp" --dev edu0=edu 2>&1); rc=$?
check "a second server on a live socket exits 1" \
	bash -c "[ $rc -eq 1 ] && grep -q 'another server listens' <<<'$out'"
check "the first server still owns its socket" [ -S "$tmp/edu0.sock" ]

rm -f "$stats"
kill -TERM "$pid"
check "SIGTERM stops it" wait_for gone "$pid"
wait "$pid"; rc=$?
check "exit status 0 after SIGTERM" [ $rc -eq 0 ]
check "sockets removed" bash -c "[ ! -e '$tmp/edu0.sock' ] && [ ! -e '$tmp/edu1.sock' ]"
check "--stats-file written at exit" grep -q "^edu1.disconnects 0$" "$stats"
check "nothing on stderr but info lines" bash -c "! grep -v ' info ' '$tmp/err'"

# ---- a socket left by a killed server is replaced; --socket-path ----
sock=$tmp/only.sock
"$BIN" --socket-path "$sock" --dev solo=edu >"$tmp/out2" 2>/dev/null &
pid=$!
pids+=("$pid")
check "--socket-path: ready" wait_for grep -qx "zn-nicsim: ready" "$tmp/out2"
kill -9 "$pid"
wait "$pid" 2>/dev/null
check "SIGKILL leaves the socket file" [ -S "$sock" ]
"$BIN" --socket-path "$sock" --dev solo=edu >"$tmp/out3" 2>/dev/null &
pid=$!
pids+=("$pid")
check "a stale socket file is replaced" wait_for grep -qx "zn-nicsim: ready" "$tmp/out3"
kill -INT "$pid"
check "SIGINT stops it" wait_for gone "$pid"
wait "$pid"; rc=$?
check "exit status 0 after SIGINT, socket removed" bash -c "[ $rc -eq 0 ] && [ ! -e '$sock' ]"

echo "1..$n"
[ $failed -eq 0 ]
