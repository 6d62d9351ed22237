#!/usr/bin/env bash
# The apps on bad input, a lost server and Ctrl-C: one number rule for every
# app (decimal, K/M/G = 1024s, overflow and zero counts refused), one-line
# usage errors, --quiet, the --size limits, zn-bench's --cpu and --out checked
# before running, zn-devbind's dry run without vfio-pci, the README's
# zn-nicsim example, zn-nicsim killed under zn-recv/zn-send/zn-fwd (noticed
# within a second, one line, exit 1), and SIGINT to zn-send/zn-recv/zn-fwd
# (summary, clean-up, exit 130, no simulator left).
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin
SIM=$BIN/zn-nicsim
WAIT_S=20

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

tmp=$(mktemp -d /tmp/zn-apps-input.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
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
now_ms() { echo $(($(date +%s%N) / 1000000)); }

for b in zn-nicsim zn-send zn-recv zn-fwd zn-echo zn-bench zn-devbind; do
	[ -x "$BIN/$b" ] || { echo "not ok 1 - $BIN/$b is built"; exit 1; }
done

# usage RC WANT-STDERR CMD...: exit status RC and stderr exactly the one line WANT.
usage() {
	local rc=$1 want=$2 got err; shift 2
	err=$(timeout 10 "$@" 2>&1 >/dev/null); got=$?
	[ "$got" -eq "$rc" ] && [ "$err" = "$want" ] && return 0
	echo "# rc $got, stderr: $err" >&2
	return 1
}

# --- 1. numbers ---
check "zn-send --count 10000000000000000000000: overflow refused, exit 2, one line" \
	usage 2 "zn-send: --count 10000000000000000000000: too large (see zn-send --help)" \
	"$BIN/zn-send" --count 10000000000000000000000
check "zn-send --count 99999999999G: a suffix that overflows is refused" \
	usage 2 "zn-send: --count 99999999999G: too large (see zn-send --help)" \
	"$BIN/zn-send" --count 99999999999G
check "zn-send --count 0: refused, exit 2, one line" \
	usage 2 "zn-send: --count wants at least 1 (to send for a time: --duration-ms): 0 (see zn-send --help)" \
	"$BIN/zn-send" --count 0
check "zn-recv --expect 0: refused at once, exit 2, one line" \
	usage 2 "zn-recv: --expect wants at least 1 byte (to receive for a time: --duration-ms): 0 (see zn-recv --help)" \
	"$BIN/zn-recv" --expect 0
check "zn-fwd --frames with overflow: exit 2, one line" \
	usage 2 "zn-fwd: --frames 10000000000000000000000: too large (see zn-fwd --help)" \
	"$BIN/zn-fwd" --frames 10000000000000000000000
check "zn-echo --port 0x10: not a number, exit 2, one line" \
	usage 2 "zn-echo: --port 0x10: not a number (decimal, K/M/G = 1024s) (see zn-echo --help)" \
	"$BIN/zn-echo" --port 0x10
for b in zn-send zn-recv zn-fwd zn-echo zn-bench; do
	check "$b --help states the number rule" \
		bash -c "'$BIN/$b' --help | grep -q 'K, M, G mean 1024, 1024^2, 1024^3'"
done

"$SIM" --dir "$tmp" --dev bnxt0=bnxt --dev bnxt1=bnxt --wire pair:bnxt0,bnxt1 >"$tmp/sim" 2>&1 &
sim=$!
pids+=($sim)
if ! wait_for grep -qs "zn-nicsim: ready" "$tmp/sim"; then
	nok "zn-nicsim with two bnxt ports is ready"
	exit 1
fi
A="vfio-user:$tmp/bnxt0.sock"
B="vfio-user:$tmp/bnxt1.sock"

# sendrecv NAME SEND-ARGS -- RECV-ARGS: zn-recv ready, then zn-send, both waited for.
sendrecv() {
	local name=$1 rpid; shift
	local sargs=() rargs=()
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	rargs=("$@")
	"$BIN/zn-recv" --dev "$B" "${rargs[@]}" --duration-ms $((WAIT_S * 1000)) \
		>"$tmp/$name.recv" 2>&1 &
	rpid=$!
	pids+=($rpid)
	wait_for grep -qs "ready on" "$tmp/$name.recv" || return 1
	timeout $WAIT_S "$BIN/zn-send" --dev "$A" --ip 10.0.0.1/24 "${sargs[@]}" \
		>"$tmp/$name.send" 2>&1
	echo $? >"$tmp/$name.src"
	wait "$rpid"
	echo $? >"$tmp/$name.rrc"
}
sendrecv k2 --count 2K --size 1 --pps 4000 -- --expect 2K --size 1
check "zn-send --count 2K sends 2048 datagrams; zn-recv --expect 2K takes 2048 bytes intact" \
	bash -c "[ \$(cat '$tmp/k2.src') -eq 0 ] && [ \$(cat '$tmp/k2.rrc') -eq 0 ] &&
		grep -q '^zn-send: 2048 datagrams of 1 B' '$tmp/k2.send' &&
		grep -q '^zn-recv: 2048 bytes in' '$tmp/k2.recv' &&
		grep -q 'every byte intact' '$tmp/k2.recv'"
sendrecv oct --count 08 --size 1000 -- --expect 8000 --size 1000
check "--count 08 is decimal 8 (8000 bytes arrive)" \
	bash -c "[ \$(cat '$tmp/oct.src') -eq 0 ] && [ \$(cat '$tmp/oct.rrc') -eq 0 ] &&
		grep -q '^zn-send: 8 datagrams of 1000 B' '$tmp/oct.send' &&
		grep -q '^zn-recv: 8000 bytes in' '$tmp/oct.recv'"
out=$(timeout $WAIT_S "$BIN/zn-recv" --dev "$B" --size 100 --duration-ms 300 2>&1); rc=$?
check "zn-recv after 0 bytes: not 'every byte intact', says nothing was checked" \
	bash -c "! grep -q 'every byte intact' <<<'$out' && grep -q 'nothing came, nothing checked' <<<'$out'"

# --- 2. usage errors, --quiet, --size, zn-bench, zn-devbind, the README ---
check "zn-send --dev without its argument: one line, no 'unknown option'" \
	usage 2 "zn-send: option '--dev' needs an argument (see zn-send --help)" "$BIN/zn-send" --dev
check "zn-recv -e without its argument: one line" \
	usage 2 "zn-recv: option '-e' needs an argument (see zn-recv --help)" "$BIN/zn-recv" -e
check "zn-fwd --port0 without its argument: one line" \
	usage 2 "zn-fwd: option '--port0' needs an argument (see zn-fwd --help)" "$BIN/zn-fwd" --port0
check "zn-echo --port without its argument: one line" \
	usage 2 "zn-echo: option '--port' needs an argument (see zn-echo --help)" "$BIN/zn-echo" --port
check "zn-send --bogus: one line naming it" \
	usage 2 "zn-send: unknown option '--bogus' (see zn-send --help)" "$BIN/zn-send" --bogus

timeout $WAIT_S "$BIN/zn-recv" --quiet --duration-ms 300 >"$tmp/quiet" 2>&1
check "zn-recv --quiet (private zn-nicsim): no info lines, only the ready line and the summary" \
	bash -c "! grep -q ' info \|no --dev' '$tmp/quiet' && grep -q '^zn-recv: 0 bytes' '$tmp/quiet'"
timeout $WAIT_S "$BIN/zn-send" --quiet --dev "$A" --count 1 --dst 10.0.0.9:9 >"$tmp/squiet" 2>&1
check "zn-send --quiet: no info lines" bash -c "! grep -q ' info ' '$tmp/squiet'"
timeout $WAIT_S "$BIN/zn-fwd" --quiet --port0 "$A" --port1 "$B" --frames 200 >"$tmp/fquiet" 2>&1
check "zn-fwd --quiet: the three summary lines only" \
	bash -c "[ \$(wc -l <'$tmp/fquiet') -eq 3 ] && grep -q '^zn-fwd: 200 sent, 200 received' '$tmp/fquiet'"
timeout $WAIT_S "$BIN/zn-echo" --quiet --dev "$A" --duration-ms 300 >"$tmp/equiet" 2>&1
check "zn-echo --quiet: no info lines" \
	bash -c "! grep -q ' info ' '$tmp/equiet' && grep -q '^zn-echo: 0 connections' '$tmp/equiet'"

# A device that does not open: one line, zcnic's, naming it and why.
for app in zn-send zn-recv zn-echo zn-fwd; do
	case $app in
	zn-fwd) args=(--port0 "vfio-user:$tmp/nope.sock" --port1 "$B") ;;
	*) args=(--dev "vfio-user:$tmp/nope.sock") ;;
	esac
	timeout $WAIT_S "$BIN/$app" "${args[@]}" >"$tmp/badev" 2>&1
	rc=$?
	check "$app with a --dev that is not there: exit 1, one line" \
		bash -c "[ $rc -eq 1 ] && [ \$(grep -vc ' info ' '$tmp/badev') -eq 1 ] &&
			grep -q 'no socket at $tmp/nope.sock' '$tmp/badev'"
done

for b in zn-send zn-recv; do
	check "$b --size 9000 (UDP): exit 2, the same limit in both" \
		usage 2 "$b: --size wants 1-8972 for UDP (see $b --help)" "$BIN/$b" --size 9000
	check "$b --help says why UDP sizes stop at 8972" \
		bash -c "'$BIN/$b' --help | grep -q '1-8972'"
done

err=$(timeout 10 "$BIN/zn-bench" --cpu 99,100 2>&1 >/dev/null); rc=$?
check "zn-bench --cpu 99,100: exit 2, one line naming CPU 99" \
	bash -c "[ $rc -eq 2 ] && [ \"\$(sed 's/taskset -p [0-9]*/taskset -p PID/' <<<'$err')\" = \
		'zn-bench: --cpu: CPU 99 is not one this process may run on ($(getconf _NPROCESSORS_ONLN) online; see taskset -p PID)' ]"
t0=$(now_ms)
check "zn-bench --out /proc/nope: exit 2 before running" \
	usage 2 "zn-bench: --out /proc/nope: cannot create it: No such file or directory" \
	"$BIN/zn-bench" --out /proc/nope
check "... within a second (nothing was run)" bash -c "[ $(($(now_ms) - t0)) -lt 1000 ]"

fake=$("$BUILD/tests/mkfakesysfs" --no-vfio 2>/dev/null)
if [ -n "$fake" ]; then
	ZN_SYSFS_ROOT=$fake "$BIN/zn-devbind" --bind --dry-run 5e:00.0 >"$tmp/dry" 2>&1
	rc=$?
	check "zn-devbind --bind --dry-run without vfio-pci: exit 0, shows the plan" \
		bash -c "[ $rc -eq 0 ] && grep -qF \"would need 'modprobe vfio-pci' first\" '$tmp/dry' &&
			grep -qF 'would write \"vfio-pci\" to $fake/bus/pci/devices/0000:5e:00.0/driver_override' '$tmp/dry'"
	case $fake in */zn-fakesys-*) rm -rf -- "$fake";; esac
else
	nok "mkfakesysfs --no-vfio (make tests builds it)"
fi

# The README's example, with its directory moved under $tmp (and not created).
cmd=$(grep -m1 '^build/bin/zn-nicsim --dir /tmp/sim ' README.md | sed "s|/tmp/sim|$tmp/readme|; s|^build/bin|$BIN|; s| &\$||")
if [ -n "$cmd" ]; then
	$cmd >"$tmp/readme.out" 2>&1 &
	rpid=$!
	pids+=($rpid)
	check "the README's zn-nicsim example works verbatim (its --dir is created)" \
		wait_for test -S "$tmp/readme/bnxt1.sock"
	kill -INT $rpid; wait $rpid
else
	nok "the README has the zn-nicsim example"
fi

# --- 3. a lost server ---
# dead NAME ARGS...: NAME runs on its own zn-nicsim, which is SIGKILLed after 1.5 s.
dead() {
	local name=$1 spid apid t0 rc; shift
	mkdir -p "$tmp/$name.d"
	"$SIM" --dir "$tmp/$name.d" --dev bnxt0=bnxt --dev bnxt1=bnxt \
		--wire pair:bnxt0,bnxt1 >"$tmp/$name.sim" 2>&1 &
	spid=$!
	pids+=($spid)
	wait_for grep -qs "zn-nicsim: ready" "$tmp/$name.sim" || return 1
	"$BIN/$name" "${@//@D@/$tmp/$name.d}" >"$tmp/$name.out" 2>&1 &
	apid=$!
	pids+=($apid)
	sleep 1.5
	kill -9 $spid
	t0=$(now_ms)
	wait $spid 2>/dev/null
	for ((i = 0; i < 100; i++)); do kill -0 $apid 2>/dev/null || break; sleep 0.02; done
	echo $(($(now_ms) - t0)) >"$tmp/$name.ms"
	kill -9 $apid 2>/dev/null
	wait $apid; rc=$?
	echo $rc >"$tmp/$name.rc"
}
for app in zn-recv zn-send zn-fwd; do
	case $app in
	zn-recv) dead zn-recv --dev vfio-user:@D@/bnxt1.sock --duration-ms 20000 ;;
	zn-send) dead zn-send --dev vfio-user:@D@/bnxt0.sock --duration-ms 20000 ;;
	zn-fwd) dead zn-fwd --port0 vfio-user:@D@/bnxt0.sock --port1 vfio-user:@D@/bnxt1.sock --duration 20 ;;
	esac
	# the apps look every 250 ms (apps/common/watch.c); on 2 cores shared
	# with the busy-polling models a deschedule can add a second, so the
	# bound here is 3 s and the time is printed
	check "$app: zn-nicsim killed: exit 1 ($(cat "$tmp/$app.ms" 2>/dev/null) ms; bound 3 s)" \
		bash -c "[ \$(cat '$tmp/$app.rc') -eq 1 ] && [ \$(cat '$tmp/$app.ms') -lt 3000 ]"
	check "$app: one line says so, no repeated BAR0 errors" \
		bash -c "[ \$(grep -c 'the device stopped answering' '$tmp/$app.out') -eq 1 ] &&
			! grep -q 'writing the request to BAR0' '$tmp/$app.out' &&
			! grep -q 'answer ARP' '$tmp/$app.out'" ||
		sed 's/^/# /' "$tmp/$app.out" | tail -n 20
done

# --- 4. SIGINT ---
for app in zn-recv zn-send zn-fwd; do
	case $app in
	zn-recv) args=(--duration-ms 20000) ;;
	zn-send) args=(--duration-ms 20000 --pps 1000) ;;
	zn-fwd) args=(--duration 20) ;;
	esac
	"$BIN/$app" "${args[@]}" >"$tmp/$app.int" 2>&1 &
	apid=$!
	pids+=($apid)
	wait_for grep -qs "started zn-nicsim (pid" "$tmp/$app.int"
	spid=$(grep -o 'started zn-nicsim (pid [0-9]*' "$tmp/$app.int" | grep -o '[0-9]*$')
	sleep 1.5
	kill -INT $apid
	for ((i = 0; i < WAIT_S * 20; i++)); do kill -0 $apid 2>/dev/null || break; sleep 0.05; done
	kill -9 $apid 2>/dev/null
	wait $apid; rc=$?
	check "$app: SIGINT: exit 130 with its summary" \
		bash -c "[ $rc -eq 130 ] && grep -q '^$app: [0-9]* \(bytes\|datagrams\|sent\)' '$tmp/$app.int'"
	check "$app: SIGINT: its zn-nicsim is gone, no transport errors" \
		bash -c "[ -n '$spid' ] && ! kill -0 '$spid' 2>/dev/null &&
			! grep -q 'BAR0\|zcnic err' '$tmp/$app.int'"
done

echo "1..$n"
exit $((failed > 0))
