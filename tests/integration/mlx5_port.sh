#!/usr/bin/env bash
# The mlx5 driver against the mlx5 model in zn-nicsim: bring-up and teardown
# of two ports on a pair wire with every page the device was lent returned
# (the model's page counters), frames across the pair byte-exact through
# zn-fwd with SHAMPO header-data split (4096-byte buffers) and with the
# cyclic fallback (zn-fwd's default 2048-byte pool), RSS over 2 queues,
# an n-tuple rule; zn-send -> zn-recv (zcrx + send_zc, and copies) on the
# mlx5 pair and on a mixed bnxt <-> mlx5 pair, every byte checked, at 1400
# and at 8000+ bytes (MTU 9000: multi-segment frames into 4 KiB buffers).
# ZN_MLX5_FRAMES=1000000 (make test-long) is the 1,000,000-frame run of
# 60..9000-byte frames. A model that refuses a queue command as not implemented
# (BAD_OP) skips the frame checks, saying so.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
FWD=$BUILD/bin/zn-fwd
RECV=$BUILD/bin/zn-recv
SEND=$BUILD/bin/zn-send
CYC=$BUILD/tests/mlx5_cycles
CYCLES=${ZN_MLX5_CYCLES:-5}
WAIT_S=10
FRAMES=${ZN_MLX5_FRAMES:-5000}	# ZN_MLX5_FRAMES=1000000 for the long run

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # $1 description, rest: command
	local d=$1; shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}

tmp=$(mktemp -d /tmp/zn-mlx5-test.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
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
stats_now() {
	rm -f "$tmp/stats"
	kill -USR1 "$pid"
	wait_for test -s "$tmp/stats"
}
stat() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/stats"; }
field() { grep -m1 '^zn-fwd: [0-9]* sent, ' "$2" | grep -o "[0-9]\+ $1" | head -n1 | cut -d' ' -f1; }

for b in "$SIM" "$FWD" "$CYC" "$RECV" "$SEND"; do
	if [ ! -x "$b" ]; then
		echo "not ok 1 - $b is built"
		exit 1
	fi
done

fifo=$tmp/ready
mkfifo "$fifo"
"$SIM" --dir "$tmp" --dev cx0=mlx5 --dev cx1=mlx5,device=cx7 --wire pair:cx0,cx1 \
	--stats-file "$tmp/stats" --ready-fd 3 3>"$fifo" >"$tmp/sim.out" 2>"$tmp/sim.err" &
pid=$!
line=
read -r -t $WAIT_S line <"$fifo"
if [ "$line" != ready ]; then
	nok "zn-nicsim with two mlx5 ports (CX-6 Dx, CX-7) on a pair wire is ready"
	tail -n 20 "$tmp/sim.err" | sed 's/^/#   /'
	echo "1..$n"
	exit 1
fi
ok "zn-nicsim with two mlx5 ports (CX-6 Dx, CX-7) on a pair wire is ready"
D0=vfio-user:$tmp/cx0.sock
D1=vfio-user:$tmp/cx1.sock

# pages_ok: every page given came back, none leaked, none held, on both ports
pages_ok() {
	stats_now || return 1
	for p in cx0 cx1; do
		[ "$(stat $p.model.pages_given)" -gt 0 ] &&
		[ "$(stat $p.model.pages_given)" = "$(stat $p.model.pages_returned)" ] &&
		[ "$(stat $p.model.pages_leaked)" = 0 ] &&
		[ "$(stat $p.model.pages_held)" = 0 ] || return 1
	done
}

# run_fwd LABEL ARGS...: zn-fwd across the pair; skips when the model lacks a command
run_fwd() {
	local label=$1 rc; shift
	"$FWD" --port0 "$D0" --port1 "$D1" "$@" >"$tmp/fwd" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/fwd" | tail -n 4
	if grep -q "status BAD_OP" "$tmp/fwd"; then
		skip "$label" "the model does not implement $(grep -o '[A-Z_]* (0x[0-9a-f]*) op_mod 0x[0-9a-f]* failed: status BAD_OP' "$tmp/fwd" | head -n1 | cut -d' ' -f1) yet"
		return
	fi
	check "$label (rc $rc)" bash -c "[ $rc -eq 0 ] && [ '$(field received "$tmp/fwd")' = '$(field sent "$tmp/fwd")' ] && [ '$(field mismatched "$tmp/fwd")' = 0 ]"
}

# ---- bring-up and teardown ----
"$CYC" "$D0" "$D1" 1 >"$tmp/up" 2>&1
check "bring-up: both ports report their firmware and MAC" \
	bash -c "[ \$(grep -c 'firmware 2[28].40.1000, MAC 02:6d:6c' '$tmp/up') -eq 2 ]"
"$CYC" "$D0" "$D1" "$CYCLES" >"$tmp/cyc" 2>&1
rc=$?
grep -E '^(ok|not ok)' "$tmp/cyc" | sed 's/^/# /'
check "$CYCLES open/configure/close cycles of both ports (rc $rc)" [ $rc -eq 0 ]
check "after close: every page lent to either device was returned, none leaked" pages_ok
if stats_now; then
	echo "# pages: cx0 given $(stat cx0.model.pages_given) returned $(stat cx0.model.pages_returned); cx1 given $(stat cx1.model.pages_given) returned $(stat cx1.model.pages_returned)"
	check "no DMA window left mapped, no client connected" \
		bash -c "[ '$(stat cx0.dma.windows)' = 0 ] && [ '$(stat cx1.dma.windows)' = 0 ] && [ '$(stat cx0.connected)' = 0 ]"
fi

# ---- frames byte-exact ----
run_fwd "SHAMPO (4096-byte buffers): $FRAMES frames of 60..1500 bytes byte-exact" \
	--buf-size 4096 --sizes 60-1500 --frames "$FRAMES"
# hw-docs/mlx5.md 12.4: a frame fills the WQE's data segments in order
# (here a 256-byte header slot and a 2048-byte buffer).
"$FWD" --port0 "$D0" --port1 "$D1" --sizes 60-1500 --frames "$FRAMES" >"$tmp/fwd" 2>&1
rc=$?
sed 's/^/# /' "$tmp/fwd" | tail -n 3
check "cyclic fallback (2048-byte buffers): $FRAMES frames of 60..1500 bytes byte-exact (rc $rc)" \
	bash -c "[ $rc -eq 0 ] && [ '$(field received "$tmp/fwd")' = $FRAMES ] && [ '$(field mismatched "$tmp/fwd")' = 0 ]"
run_fwd "SHAMPO, MTU 9000 (16 KiB buffers): 2000 frames of 60..9000 bytes byte-exact" \
	--buf-size 16384 --mtu 9000 --sizes 60-9000 --frames 2000
# MTU 9000 over 4 KiB (zcrx-sized) and 2 KiB buffers: a cyclic WQE scatters a
# frame over a header slot and 3 or 5 buffers, the frame comes as segments.
run_fwd "multi-segment, MTU 9000 (4096-byte buffers): $FRAMES frames of 60..9000 bytes byte-exact" \
	--buf-size 4096 --mtu 9000 --sizes 60-9000 --frames "$FRAMES"
run_fwd "multi-segment, MTU 9000 (2048-byte buffers): 2000 frames of 60..9000 bytes byte-exact" \
	--mtu 9000 --sizes 60-9000 --frames 2000
run_fwd "RSS over 2 queues and an n-tuple rule: every frame on its queue" \
	--buf-size 4096 -q 2 --flows 16 --frames 4000 --rule dport=20003,queue=1
check "the rule was freed after the port stopped (rules belong to the port)" \
	bash -c "! grep -q 'freeing rule' '$tmp/fwd'"
check "after all runs: every page returned, none leaked" pages_ok

# sendrecv LABEL FROM TO ZC [SIZE]: 1000 datagrams (1400 bytes by default), every byte checked
sendrecv() {
	local label=$1 from=$2 to=$3 zc=$4 size=${5:-1400} rpid rrc src bytes
	bytes=$((1000 * size))
	"$RECV" --dev "$to" --size "$size" --expect $bytes --duration-ms $((WAIT_S * 1000)) \
		--quiet >"$tmp/recv" 2>&1 &
	rpid=$!
	if ! wait_for grep -q "zn-recv: ready" "$tmp/recv"; then
		nok "$label: zn-recv is ready"; kill -9 $rpid 2>/dev/null; return
	fi
	"$SEND" --dev "$from" --size "$size" --count 1000 --batch 8 --window 32 --pps 20000 \
		--zc "$zc" --quiet >"$tmp/send" 2>&1
	src=$?
	wait $rpid; rrc=$?
	grep -v " info " "$tmp/recv" | sed 's/^/# /' | head -n 8
	check "$label: 1000 datagrams of $size bytes sent (rc $src), $bytes bytes received intact (rc $rrc)" \
		bash -c "[ $src -eq 0 ] && [ $rrc -eq 0 ] && grep -q '^zn-recv: $bytes bytes' '$tmp/recv' && grep -q 'every byte intact' '$tmp/recv'"
}
sendrecv "zn-send -> zn-recv, mlx5 pair, zcrx + send_zc" "$D0" "$D1" on
sendrecv "zn-send -> zn-recv, mlx5 pair, copies" "$D1" "$D0" off
sendrecv "zn-send -> zn-recv, mlx5 pair, zcrx + send_zc, MTU 9000" "$D0" "$D1" on 8000
check "after zn-send/zn-recv: every page returned, none leaked" pages_ok

kill -TERM "$pid"
wait_for bash -c "! kill -0 $pid 2>/dev/null"
pid=

# ---- a mixed pair: bnxt <-> mlx5 on one wire ----
rm -f "$tmp"/*.sock
"$SIM" --dir "$tmp" --dev b0=bnxt --dev cx1=mlx5 --wire pair:b0,cx1 >"$tmp/sim2.out" 2>&1 &
pid=$!
if wait_for grep -q "zn-nicsim: ready" "$tmp/sim2.out"; then
	ok "zn-nicsim with a bnxt and an mlx5 port on one pair wire is ready"
	sendrecv "mixed pair, bnxt -> mlx5, zcrx + send_zc" "vfio-user:$tmp/b0.sock" "vfio-user:$tmp/cx1.sock" on
	sendrecv "mixed pair, mlx5 -> bnxt, zcrx + send_zc" "vfio-user:$tmp/cx1.sock" "vfio-user:$tmp/b0.sock" on
	sendrecv "mixed pair, bnxt -> mlx5, zcrx + send_zc, MTU 9000" "vfio-user:$tmp/b0.sock" "vfio-user:$tmp/cx1.sock" on 8000
	sendrecv "mixed pair, mlx5 -> bnxt, zcrx + send_zc, MTU 9000" "vfio-user:$tmp/cx1.sock" "vfio-user:$tmp/b0.sock" on 8972
else
	nok "zn-nicsim with a bnxt and an mlx5 port on one pair wire is ready"
fi
kill -TERM "$pid"
wait_for bash -c "! kill -0 $pid 2>/dev/null"
pid=

# ---- a fatal firmware error mid-traffic ----
rm -f "$tmp"/*.sock
"$SIM" --dir "$tmp" --dev cx0=mlx5 --dev cx1=mlx5,fatal_after_ms=1000 --wire pair:cx0,cx1 \
	--stats-file "$tmp/stats" >"$tmp/sim3.out" 2>&1 &
pid=$!
if wait_for grep -q "zn-nicsim: ready" "$tmp/sim3.out"; then
	t0=$(date +%s%N)
	timeout 60 "$FWD" --port0 "$D0" --port1 "$D1" --buf-size 4096 --duration 3 >"$tmp/fatal" 2>&1
	ms=$((($(date +%s%N) - t0) / 1000000))
	grep -v " info " "$tmp/fatal" | sed 's/^/# /' | head -n 4
	check "fatal syndrome on port1 mid-traffic: one line names it, zn-fwd ends ($ms ms)" \
		bash -c "[ \$(grep -c 'device dead (health syndrome 0x08 HW_FATAL_ERR' '$tmp/fatal') -eq 1 ] && [ \$(grep 'zcnic err' '$tmp/fatal' | grep -c cx1.sock) -eq 1 ] && [ $ms -lt 30000 ]"
	check "fatal: no frame received corrupted" [ "$(field mismatched "$tmp/fatal")" = 0 ]
	if stats_now; then
		check "fatal: the healthy port got every page back ($(stat cx0.model.pages_given) given, $(stat cx0.model.pages_returned) returned); the dead one's were lost with it ($(stat cx1.model.pages_lost_reset))" \
			bash -c "[ '$(stat cx0.model.pages_given)' = '$(stat cx0.model.pages_returned)' ] && [ '$(stat cx1.model.fatal_events)' = 1 ]"
	fi
else
	nok "zn-nicsim with a port set to fail is ready"
fi
kill -TERM "$pid"
wait_for bash -c "! kill -0 $pid 2>/dev/null"
pid=
echo "1..$n"
[ $failed -eq 0 ]
