#!/usr/bin/env bash
# zn-send -> zn-recv over two bnxt models on a zn-nicsim pair wire, every
# byte checked: SEND_ZC from a zcnic DMA region, SEND_ZC from registered
# ordinary memory, and plain SEND (copy), at 600..8000-byte datagrams; the
# receiver is zcrx (RECV_ZC + refill ring). The same three over TCP
# (--proto tcp). Also zn-recv/zn-send with no
# device (private zn-nicsim) leave nothing behind.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
RECV=$BUILD/bin/zn-recv
SEND=$BUILD/bin/zn-send
WAIT_S=20
COUNT=${ZN_SEND_RECV_COUNT:-400}

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

tmp=$(mktemp -d /tmp/zn-send-recv.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
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

for b in "$SIM" "$RECV" "$SEND"; do
	[ -x "$b" ] || { echo "not ok 1 - $b is built"; exit 1; }
done

"$SIM" --dir "$tmp" --dev bnxt0=bnxt --dev bnxt1=bnxt --wire pair:bnxt0,bnxt1 >"$tmp/sim" 2>&1 &
pids+=($!)
if ! wait_for grep -q "zn-nicsim: ready" "$tmp/sim"; then
	nok "zn-nicsim with two bnxt ports is ready"
	exit 1
fi
A="vfio-user:$tmp/bnxt0.sock"
B="vfio-user:$tmp/bnxt1.sock"

# one SIZE MODE: MODE is zc, fixed or copy
one() {
	local size=$1 mode=$2 bytes=$((COUNT * $1)) args=() rrc src
	case $mode in
	zc) args=(--zc on) ;;
	fixed) args=(--zc on --fixed on) ;;
	copy) args=(--zc off) ;;
	esac
	"$RECV" --dev "$B" --size "$size" --expect "$bytes" --duration-ms $((WAIT_S * 1000)) \
		--quiet >"$tmp/recv" 2>&1 &
	local rpid=$!
	if ! wait_for grep -q "zn-recv: ready" "$tmp/recv"; then
		nok "$mode $size B: zn-recv is ready"; kill -9 $rpid 2>/dev/null; return
	fi
	timeout $((WAIT_S * 2)) "$SEND" --dev "$A" --size "$size" --count "$COUNT" --batch 8 \
		--window 32 --pps 20000 "${args[@]}" --quiet >"$tmp/send" 2>&1
	src=$?
	wait $rpid; rrc=$?
	sed 's/^/# /' "$tmp/send" "$tmp/recv" | grep -v " info " | tail -n 6
	check "$mode $size B: zn-send sent $COUNT datagrams, exit 0 (rc $src)" \
		bash -c "[ $src -eq 0 ] && grep -q '^zn-send: $COUNT datagrams' '$tmp/send'"
	check "$mode $size B: zn-recv got $bytes bytes, every byte intact, exit 0 (rc $rrc)" \
		bash -c "[ $rrc -eq 0 ] && grep -q '^zn-recv: $bytes bytes' '$tmp/recv' && grep -q 'every byte intact' '$tmp/recv'"
	check "$mode $size B: the receiving NIC dropped nothing" \
		grep -q "RX queue 1: [0-9]* frames, 0 dropped" "$tmp/recv"
	case $mode in
	zc|fixed) check "$mode $size B: one notification per send, none copied" \
		grep -q "^zn-send: $COUNT notifications (0 copied)" "$tmp/send" ;;
	esac
}

for size in 600 1000 1500 4000 8000; do
	for mode in zc fixed copy; do
		one "$size" "$mode"
	done
done

# TCP: zn-send --proto tcp (SOCKET + CONNECT through the ring, SEND_ZC or
# SEND) -> zn-recv --proto tcp (SOCKET, BIND, LISTEN, ACCEPT through the
# ring; RECV_ZC when it takes TCP, else RECV); the run ends with zn-send's
# FIN and zn-recv's close, every byte checked
one_tcp() {
	local size=$1 mode=$2 count=$3 bytes=$(($1 * $3)) args=() rrc src
	case $mode in
	zc) args=(--zc on) ;;
	fixed) args=(--zc on --fixed on) ;;
	copy) args=(--zc off) ;;
	esac
	"$RECV" --dev "$B" --proto tcp --size "$size" --expect "$bytes" \
		--duration-ms $((WAIT_S * 1000)) --quiet >"$tmp/recv" 2>&1 &
	local rpid=$!
	if ! wait_for grep -q "zn-recv: ready" "$tmp/recv"; then
		nok "tcp $mode $size B: zn-recv is ready"; kill -9 $rpid 2>/dev/null; return
	fi
	timeout $((WAIT_S * 2)) "$SEND" --dev "$A" --proto tcp --size "$size" --count "$count" \
		--batch 8 --window 32 "${args[@]}" --quiet >"$tmp/send" 2>&1
	src=$?
	wait $rpid; rrc=$?
	sed 's/^/# /' "$tmp/send" "$tmp/recv" | grep -v " info " | tail -n 8
	check "tcp $mode $size B: zn-send sent $count, saw the receiver close, exit 0 (rc $src)" \
		bash -c "[ $src -eq 0 ] && grep -q '^zn-send: $count TCP sends' '$tmp/send' && grep -q 'the receiver read everything and closed' '$tmp/send'"
	check "tcp $mode $size B: zn-recv got $bytes bytes, every byte intact, EOF, exit 0 (rc $rrc)" \
		bash -c "[ $rrc -eq 0 ] && grep -q '^zn-recv: $bytes bytes' '$tmp/recv' && grep -q 'every byte intact' '$tmp/recv' && grep -q 'the sender closed (EOF)' '$tmp/recv'"
}

one_tcp 60000 zc 200
one_tcp 60000 fixed 200
one_tcp 3000 copy 300

# The embedded default: no --dev, a private zn-nicsim that goes away.
"$RECV" --duration-ms 300 >"$tmp/emb" 2>&1
rc=$?
dir=$(sed -n 's/.*vfio-user:\(\/tmp\/zn-nicsim\.[A-Za-z0-9]*\)\/.*/\1/p' "$tmp/emb" | head -n 1)
check "zn-recv with no --dev starts zn-nicsim, prints the zn-send command, exit 0 (rc $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q 'zn-send --dev vfio-user:' '$tmp/emb'"
check "zn-recv removed its zn-nicsim directory ($dir)" bash -c "[ -n '$dir' ] && [ ! -e '$dir' ]"

echo "1..$n"
[ $failed -eq 0 ]
