#!/usr/bin/env bash
# Soak: rounds of zn-send -> zn-recv over two bnxt ports whose wire and
# devices inject random faults (random seed, printed, so a failing round
# replays with its --fault lines), for SOAK_SECS seconds (default 10; make
# soak: 600). Odd rounds move one TCP stream (random record size and count)
# over a wire that drops, duplicates, reorders and corrupts frames both ways
# (data and ACKs): every byte arrives intact, both ends exit 0, the sender
# sees the receiver read all and close. Even rounds are UDP (checksummed,
# random sizes). Each UDP round: no crash, no hang, every
# byte zn-recv got intact, the wire's books balance exactly (frames in =
# frames out - lost - bad FCS + duplicated, bad FCS all dropped by the
# receiving MAC, every missing-buffer fault counted as such), and a function
# reset, when one was drawn, is recovered from with one line.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
RECV=$BUILD/bin/zn-recv
SEND=$BUILD/bin/zn-send
SOAK_SECS=${SOAK_SECS:-10}

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

tmp=$(mktemp -d /tmp/zn-soak.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do "$@" && return 0; sleep 0.05; done
	return 1
}
stat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print -1 }' "$tmp/stats"; }
pct() { printf '0.%03d' $((RANDOM % ($1 + 1))); }	# 0 .. $1 per mille

for b in "$SIM" "$RECV" "$SEND"; do
	[ -x "$b" ] || { echo "not ok 1 - $b is built"; exit 1; }
done

# zn-nicsim with the two ports' faults $1 and $2 (spid): ready, or false.
start_sim() {
	rm -f "$tmp"/*.sock "$tmp/stats"
	"$SIM" --dir "$tmp" --dev bnxt0=bnxt --dev bnxt1=bnxt --wire pair:bnxt0,bnxt1 \
		--stats-file "$tmp/stats" --fault "$1" --fault "$2" >"$tmp/sim" 2>&1 &
	spid=$!
	pids+=($spid)
	wait_for grep -qs "zn-nicsim: ready" "$tmp/sim"
}

# One TCP stream under wire faults both ways; its bytes added to tcp_bytes.
tcp_round() {
	local seed=$1 size=$((1000 + RANDOM % 64000)) count=$((5 + RANDOM % 40)) src rrc rpid
	local w="wire-drop=$(pct 20),wire-dup=$(pct 20),wire-reorder=$(pct 20),wire-corrupt=$(pct 20),wire-csum=$(pct 20)"
	local f0="bnxt0:seed=$seed,after=20,$w" f1="bnxt1:seed=$((seed + 1)),after=20,$w"
	local what="round $round: tcp, $count records of $size bytes, --fault $f0 --fault $f1" why=""

	if ! start_sim "$f0" "$f1"; then
		nok "$what: zn-nicsim ready"; return
	fi
	timeout 40 "$RECV" --dev "vfio-user:$tmp/bnxt1.sock" --proto tcp --size $size \
		--expect $((size * count)) --duration-ms 30000 >"$tmp/recv" 2>&1 &
	rpid=$!
	pids+=($rpid)
	wait_for grep -qs "zn-recv: ready" "$tmp/recv"
	timeout 40 "$SEND" --dev "vfio-user:$tmp/bnxt0.sock" --proto tcp --size $size \
		--count $count >"$tmp/send" 2>&1
	src=$?
	wait $rpid
	rrc=$?
	kill -TERM $spid
	wait $spid
	[ $src -eq 0 ] || why="$why zn-send rc $src;"
	[ $rrc -eq 0 ] || why="$why zn-recv rc $rrc;"
	grep -q "^zn-recv: $((size * count)) bytes" "$tmp/recv" || why="$why short;"
	grep -q "every byte intact" "$tmp/recv" || why="$why bytes damaged;"
	grep -q "the receiver read everything and closed" "$tmp/send" || why="$why no orderly close;"
	if [ -z "$why" ]; then
		tcp_rounds=$((tcp_rounds + 1))
		tcp_bytes=$((tcp_bytes + size * count))
		ok "$what: $((size * count)) bytes intact (lost $(stat bnxt0.fault.wire_drops)+$(stat bnxt1.fault.wire_drops), duplicated $(stat bnxt0.fault.wire_dups)+$(stat bnxt1.fault.wire_dups), reordered $(stat bnxt0.fault.wire_reorders)+$(stat bnxt1.fault.wire_reorders), corrupted $(($(stat bnxt0.fault.wire_corrupts) + $(stat bnxt0.fault.wire_csums)))+$(($(stat bnxt1.fault.wire_corrupts) + $(stat bnxt1.fault.wire_csums))) frames)"
	else
		nok "$what:$why"
		grep -v ' info ' "$tmp/recv" "$tmp/send" | sed 's/^/# /' | tail -n 10
	fi
}

end=$((SECONDS + SOAK_SECS))
round=0 frames=0 bytes=0 tcp_rounds=0 tcp_bytes=0
while [ $SECONDS -lt $end ]; do
	round=$((round + 1))
	seed=$((RANDOM * 32768 + RANDOM))
	if [ $((round % 2)) -eq 1 ]; then
		tcp_round $seed
		continue
	fi
	size=$((64 + RANDOM % 1400))
	count=$((200 + RANDOM % 600))
	f0="bnxt0:seed=$seed,after=20,wire-drop=$(pct 30),wire-dup=$(pct 30),wire-reorder=$(pct 30),wire-corrupt=$(pct 30),wire-csum=$(pct 30)"
	f1="bnxt1:seed=$((seed + 1)),after=20,rx-nobuf=$(pct 30)"
	flr=0
	if [ $((RANDOM % 4)) -eq 0 ]; then
		flr=$((100 + RANDOM % 300))
		f1="$f1,flr-after=$flr"
	fi
	[ $((RANDOM % 4)) -eq 0 ] && f0="$f0,tx-delay=$((1 + RANDOM % 20))"
	what="round $round: size $size, $count datagrams, --fault $f0 --fault $f1"
	if ! start_sim "$f0" "$f1"; then
		nok "$what: zn-nicsim ready"; continue
	fi
	timeout 30 "$RECV" --dev "vfio-user:$tmp/bnxt1.sock" --size $size \
		--expect $((count * size)) --duration-ms 5000 >"$tmp/recv" 2>&1 &
	rpid=$!
	pids+=($rpid)
	wait_for grep -qs "zn-recv: ready" "$tmp/recv"
	timeout 30 "$SEND" --dev "vfio-user:$tmp/bnxt0.sock" --size $size --count $count \
		--pps 4000 --zc off >"$tmp/send" 2>&1
	src=$?
	# what is still on the way arrives within a second; then SIGINT (the
	# summary, exit 130) rather than the whole --duration-ms
	for ((i = 0; i < 20; i++)); do kill -0 $rpid 2>/dev/null || break; sleep 0.05; done
	kill -INT $rpid 2>/dev/null
	wait $rpid
	rrc=$?
	kill -TERM $spid
	wait $spid
	got=$(sed -n 's/^zn-recv: \([0-9]*\) bytes in.*/\1/p' "$tmp/recv" | head -1)
	got=${got:-0}
	frames=$((frames + got / size))
	bytes=$((bytes + got))
	in=$(stat bnxt1.model.port.rx_frames)
	want=$(($(stat bnxt0.model.port.tx_frames) - $(stat bnxt0.fault.wire_drops) - $(stat bnxt0.fault.wire_corrupts) + $(stat bnxt0.fault.wire_dups)))
	why=""
	[ $src -le 1 ] || why="$why zn-send rc $src;"
	[ $rrc -le 1 ] || [ $rrc -eq 130 ] || why="$why zn-recv rc $rrc;"
	[ "$got" -eq 0 ] || grep -q "every byte intact" "$tmp/recv" || why="$why bytes damaged;"
	[ "$in" -eq "$want" ] || why="$why wire frames $in, want $want;"
	[ "$(stat bnxt1.model.port.rx_fcs_errors)" -eq "$(stat bnxt0.fault.wire_corrupts)" ] ||
		why="$why bad FCS not all dropped;"
	[ "$(stat bnxt1.model.rx_no_buffer)" -ge "$(stat bnxt1.fault.rx_nobufs)" ] ||
		why="$why missing buffers not counted;"
	if [ $flr -gt 0 ] && [ "$(stat bnxt1.fault.flrs)" -eq 1 ] &&
	   [ "$(grep -c 'resetting the function and bringing the port back' "$tmp/recv")" -ne 1 ]; then
		why="$why no single recovery line after the reset;"
	fi
	if [ -z "$why" ]; then
		ok "$what: $((got / size)) datagrams intact"
	else
		nok "$what:$why"
		grep -v ' info ' "$tmp/recv" "$tmp/send" | sed 's/^/# /' | tail -n 10
	fi
done
echo "# soak: $round rounds in ${SOAK_SECS} s, $frames datagrams ($bytes bytes) checked, $tcp_rounds TCP streams ($tcp_bytes bytes) intact"
echo "1..$n"
[ $failed -eq 0 ]
