#!/usr/bin/env bash
# zn-send --queues 2 -> zn-recv --queues 2 over a zn-nicsim pair wire, on
# bnxt and on mlx5 models: RSS spreads the two flows over the receiver's two
# queues (a thread each), each queue receives its share, the totals are
# exact and every byte is checked on every queue.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
RECV=$BUILD/bin/zn-recv
SEND=$BUILD/bin/zn-send
WAIT_S=20
COUNT=400
SIZE=1000

n=0 failed=0
. tests/integration/lib/tap.sh

tmp=$(mktemp -d /tmp/zn-queues.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

for b in "$SIM" "$RECV" "$SEND"; do
	[ -x "$b" ] || { echo "not ok 1 - $b is built"; exit 1; }
done

# one MODEL: a pair of MODEL ports, 2 queues each side
one() {
	local m=$1 dir=$tmp/$1 bytes=$((COUNT * SIZE)) share=$((COUNT * SIZE / 2)) spid rpid src rrc
	mkdir -p "$dir"
	"$SIM" --dir "$dir" --dev a=$m --dev b=$m --wire pair:a,b >"$dir/sim" 2>&1 &
	spid=$!
	pids+=($spid)
	if ! wait_for grep -q "zn-nicsim: ready" "$dir/sim"; then
		nok "$m: zn-nicsim is ready"; return
	fi
	"$RECV" --dev "vfio-user:$dir/b.sock" --queues 2 --size $SIZE --expect $bytes \
		--duration-ms $((WAIT_S * 1000)) --quiet >"$dir/recv" 2>&1 &
	rpid=$!
	if ! wait_for grep -q "zn-recv: ready" "$dir/recv"; then
		nok "$m: zn-recv --queues 2 is ready"; kill -9 $rpid 2>/dev/null; return
	fi
	timeout $WAIT_S "$SEND" --dev "vfio-user:$dir/a.sock" --queues 2 --size $SIZE \
		--count $COUNT --batch 8 --window 32 --pps 20000 --quiet >"$dir/send" 2>&1
	src=$?
	wait $rpid; rrc=$?
	sed 's/^/# /' "$dir/send" "$dir/recv" | grep -v " info \|CPU"
	check "$m: zn-send --queues 2 sent $COUNT datagrams, 200 per queue, exit 0 (rc $src)" \
		bash -c "[ $src -eq 0 ] && grep -q '^zn-send: $COUNT datagrams' '$dir/send' &&
			 [ \$(grep -c '^zn-send queue [12]: 200 datagrams' '$dir/send') -eq 2 ]"
	check "$m: the two flows left from distinct source ports" \
		bash -c "[ \$(sed -n 's/^zn-send queue [12]: flow \([0-9]*\) .*/\1/p' '$dir/send' | sort -u | wc -l) -eq 2 ]"
	check "$m: zn-recv got $bytes bytes in total, exit 0 (rc $rrc)" \
		bash -c "[ $rrc -eq 0 ] && grep -q '^zn-recv: $bytes bytes' '$dir/recv'"
	check "$m: each queue received its share ($share bytes on queues 1 and 2)" \
		bash -c "grep -q '^zn-recv queue 1: $share bytes' '$dir/recv' &&
			 grep -q '^zn-recv queue 2: $share bytes' '$dir/recv'"
	check "$m: every byte intact on each queue and in total" \
		bash -c "[ \$(grep -c 'payload check.*every byte intact' '$dir/recv') -eq 3 ]"
	check "$m: the NIC placed 200 frames on each queue and dropped none" \
		bash -c "grep -q 'RX queue 1: 200 frames, 0 dropped' '$dir/recv' &&
			 grep -q 'RX queue 2: 200 frames, 0 dropped' '$dir/recv'"
	kill $spid 2>/dev/null; wait $spid 2>/dev/null
}

one bnxt
one mlx5

# misuse is said, exit 2
"$RECV" --queues 2 --proto tcp >"$tmp/use" 2>&1
check "zn-recv --queues with --proto tcp: usage error, exit 2" bash -c "[ $? -eq 2 ]"
"$SEND" --queues 0 >"$tmp/use" 2>&1
check "zn-send --queues 0: usage error, exit 2" bash -c "[ $? -eq 2 ]"

echo "1..$n"
[ $failed -eq 0 ]
