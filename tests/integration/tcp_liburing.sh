#!/usr/bin/env bash
# The liburing-style TCP programs, tests/progs/tcp_zcrx_recv (SOCKET, BIND,
# LISTEN, multishot ACCEPT, io_uring_register_ifq, RECV_ZC multishot,
# refill ring) and tests/progs/tcp_send_zc (SOCKET, CONNECT, SEND_ZC of
# 4 KiB, notifications counted, SHUTDOWN, CLOSE), written with liburing's
# names only apart from the device set-up:
#   1. against each other over two bnxt models (SEND_ZC from plain memory)
#      and over two mlx5 models (from a registered buffer) on a zn-nicsim
#      pair wire: every byte checked in the zcrx area, one notification per
#      request; then a short run with the receiving
#      process stopped for a second: results come, notifications do not
#      (nothing is acknowledged);
#   2. against Linux's TCP (as root: namespaces and a veth pair joined to a
#      bnxt model port by --wire afpacket, tests/integration/lib/netns_peer.sh):
#      Linux's client (tests/progs/tcp_peer kernel-send) -> tcp_zcrx_recv,
#      tcp_send_zc -> Linux's server (tcp_peer kernel-recv), byte-exact.
# ZN_TCP_LIBURING_MIB: MiB per transfer (default 2; make test-long 64).
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
RECV=$BUILD/tests/tcp_zcrx_recv
SEND=$BUILD/tests/tcp_send_zc
PEER=$BUILD/tests/tcp_peer
MIB=${ZN_TCP_LIBURING_MIB:-2}
SIZE=4096
N=$((MIB * 1024 * 1024 / SIZE))
WAIT_S=20
PORT=5301

n=0 failed=0
. tests/integration/lib/tap.sh
. tests/integration/lib/netns_peer.sh

tmp=$(mktemp -d /tmp/zn-tcp-liburing.XXXXXX)
pids=()
netns_peer_names ztl
cleanup() {
	for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	netns_peer_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Number a program's "ok - what" lines; the rest as diagnostics.
tap_file() { # FILE LABEL
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$2: ${line#ok - }" ;;
		"not ok - "*) nok "$2: ${line#not ok - }" ;;
		"# "*|rate*) echo "# $2: ${line#\# }" ;;
		esac
	done <"$1"
}

for b in "$SIM" "$RECV" "$SEND" "$PEER"; do
	[ -x "$b" ] || { echo "not ok 1 - $b is built"; exit 1; }
done

# duo LABEL DIR SERVER_NAME CLIENT_NAME SERVER... -- CLIENT...: the server
# in the background until it says "listening", then the client; both
# outputs numbered, both exit codes checked. With stop=S set, once the
# client says "connected" the server process is stopped (SIGSTOP), the
# client gets a line on its stdin (tcp_send_zc -W waits for it), and S
# seconds later the server goes on.
duo() {
	local label=$1 dir=$2 sname=$3 cname=$4 t0=$SECONDS srv=() spid cpid src crc pid
	shift 4
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	timeout $((WAIT_S * 3 + MIB)) "${srv[@]}" >"$dir/srv" 2>"$dir/srv.err" &
	spid=$!
	pids+=($spid)
	if wait_for grep -q "^listening" "$dir/srv"; then
		mkfifo "$dir/go"
		exec 7<>"$dir/go"	# read-write: opening it does not wait
		timeout $((WAIT_S * 3 + MIB)) "$@" <"$dir/go" >"$dir/cli" 2>"$dir/cli.err" &
		cpid=$!
		# the server itself, not the timeout that runs it
		pid=$(pgrep -P $spid)
		if [ -n "${stop:-}" ] && [ -n "$pid" ] && wait_for grep -q "^connected" "$dir/cli"; then
			kill -STOP "$pid"
			echo go >&7
			echo "# $label: $sname stopped $((SECONDS - t0)) s in, for $stop s"
			sleep "$stop"
			kill -CONT "$pid"
		fi
		wait $cpid; crc=$?
		exec 7>&-
	else
		crc=-1
	fi
	wait $spid; src=$?
	tap_file "$dir/cli" "$label $cname"
	tap_file "$dir/srv" "$label $sname"
	check "$label: $cname exit 0 (rc $crc)" [ $crc -eq 0 ]
	check "$label: $sname exit 0 (rc $src)" [ $src -eq 0 ]
	[ $crc -eq 0 ] || grep -v " info " "$dir/cli.err" | tail -n 10 | sed 's/^/#   /'
	[ $src -eq 0 ] || grep -v " info " "$dir/srv.err" | tail -n 10 | sed 's/^/#   /'
	echo "# $label: $((SECONDS - t0)) s"
}

# pair MODEL REQUESTS MEM [RECV_STOP_S]: the two programs on a fresh pair
# of MODEL, REQUESTS sends of SIZE from MEM: "fixed" (a registered buffer,
# zero copy) or "plain" (ordinary memory, which zcnic copies). With
# RECV_STOP_S the receiver is stopped for that long from the sender's
# CONNECT on, and the sender sends only once it is: for the first second
# of sending (RECV_STOP_S - 1 before the receiver goes on) no
# notification may come.
pair() {
	local model=$1 reqs=$2 mem=$3 stop=${4:-} sim extra=() dir=$tmp/$1$3${4:-}
	mkdir -p "$dir"
	"$SIM" --dir "$dir" --dev a="$model" --dev b="$model" --wire pair:a,b >"$dir/sim" 2>&1 &
	sim=$!
	pids+=($sim)
	if ! wait_for grep -q "zn-nicsim: ready" "$dir/sim"; then
		nok "$model: zn-nicsim with two $model ports is ready"; return
	fi
	[ "$mem" = fixed ] && extra+=(-F)
	[ -n "$stop" ] && extra+=(-W -q 1000)
	duo "$model $mem${stop:+ stopped receiver}" "$dir" tcp_zcrx_recv tcp_send_zc \
		"$RECV" -d "vfio-user:$dir/b.sock" -a 10.0.0.2/24 -p $PORT -b $((reqs * SIZE)) -- \
		"$SEND" -d "vfio-user:$dir/a.sock" -a 10.0.0.1/24 -D 10.0.0.2 -p $PORT \
		-n "$reqs" -s $SIZE "${extra[@]}"
	kill $sim; wait $sim 2>/dev/null
}

# ---- 1. the two programs against each other -------------------------------
pair bnxt "$N" plain
pair mlx5 "$N" fixed
pair bnxt 64 fixed 3

# ---- 2. against Linux's TCP ------------------------------------------------
t0=$SECONDS
netns_peer_setup
case $? in
0) ok "namespaces $ns_s and $ns_p joined by veth $ve_s/$ve_p, Linux at $ip_k/24" ;;
2) ok "Linux's TCP as the peer # SKIP $netns_peer_why"
   echo "1..$n"; [ $failed -eq 0 ]; exit ;;
*) nok "namespace set-up"; echo "1..$n"; exit 1 ;;
esac
if ! netns_peer_sim "$SIM" "$tmp" bnxt0 bnxt; then
	sed 's/^/# zn-nicsim: /' "$tmp/sim.log" | tail -n 20
	nok "zn-nicsim with bnxt0 on --wire afpacket:bnxt0,$ve_s is ready"
	echo "1..$n"; exit 1
fi
pids+=($sim_pid)
echo "# set-up: $((SECONDS - t0)) s"

mkdir -p "$tmp/k1" "$tmp/k2"
duo "linux->tcp_zcrx_recv" "$tmp/k1" tcp_zcrx_recv "Linux's client (tcp_peer)" \
	"$RECV" -d "vfio-user:$tmp/bnxt0.sock" -a "$ip_z/24" -p $PORT -b $((MIB * 1024 * 1024)) -- \
	ip netns exec "$ns_p" "$PEER" kernel-send "$ip_z" $PORT "$MIB"
duo "tcp_send_zc->linux" "$tmp/k2" "Linux's server (tcp_peer)" tcp_send_zc \
	ip netns exec "$ns_p" "$PEER" kernel-recv "$ip_k" $((PORT + 1)) "$MIB" -- \
	"$SEND" -d "vfio-user:$tmp/bnxt0.sock" -a "$ip_z/24" -D "$ip_k" -p $((PORT + 1)) \
	-n "$N" -s $SIZE -F

kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
if grep -qE " (warn|err) " "$tmp/sim.log"; then
	grep -E " (warn|err) " "$tmp/sim.log" | head -n 20 | sed 's/^/# zn-nicsim: /'
	nok "zn-nicsim logged no warning (driver rules, wire errors)"
else
	ok "zn-nicsim logged no warning (driver rules, wire errors)"
fi
echo "1..$n"
[ $failed -eq 0 ]
