#!/usr/bin/env bash
# zcnic's TCP (core/net/tcp*.c, core/sock/tcp_sock.c) against Linux's TCP.
#
#   namespace zns<PID>  zn-nicsim, bnxt0 joined by the afpacket wire to ve-s<PID>
#                       (and ve-s<PID> = 10.<a>.<b>.3/24 for the kernel baseline)
#   namespace znp<PID>  ve-p<PID> = 10.<a>.<b>.1/24, kernel TCP sockets
#   (root ns)           tests/progs/tcp_peer zcnic: a netdev on bnxt0,
#                       10.<a>.<b>.2/24 (reached over vfio-user, a UNIX socket)
#
# Transfers (ZN_TCP_MIB MiB each, default 64), every byte checked by the
# receiver: zcnic client -> Linux server (SEND_ZC, completions on ACK),
# Linux client -> zcnic server (RECV until EOF), Linux client -> zcnic
# server with RECV_ZC multishot into a zcrx area (ZN_TCP_ZC_MIB, default 16:
# bytes checked in place, EOF as the final CQE, the area's accounting after
# the close), and Linux -> Linux over the same veth as the baseline the
# rates are compared with. The zcnic receiver's CPU per MiB is printed for
# RECV (copy) and RECV_ZC.
#
# The namespaces, the veth pair and zn-nicsim on it: tests/integration/lib/
# netns_peer.sh (why gso_max_segs 1, what is touched). A trap removes the
# namespaces (and with them the veth pair) and stops every process,
# whatever happens. Checked: zcnic resolves the
# kernel by ARP and its segments arrive byte-exact (the kernel checks their
# checksums). Prints TAP lines "ok N - what".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NICSIM=$BUILD/bin/zn-nicsim
PEER=$BUILD/tests/tcp_peer
MIB=${ZN_TCP_MIB:-64}
ZC_MIB=${ZN_TCP_ZC_MIB:-16}
PORT=5201

. tests/integration/lib/netns_peer.sh
netns_peer_names zn
n=0
fails=0
pids=()
tmp=$(mktemp -d /tmp/zn-tcp-peer.XXXXXX)

cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	netns_peer_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tap() { # $1: ok | "not ok", $2: what
	n=$((n + 1))
	echo "$1 $n - $2"
	[ "$1" = ok ] || fails=$((fails + 1))
}

skip() {
	echo "ok 1 - tcp_kernel_peer # SKIP $1"
	exit 0
}

# Number the "ok - what" lines of a program's output file.
tap_file() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) tap ok "${line#ok - }" ;;
		"not ok - "*) tap "not ok" "${line#not ok - }" ;;
		?*) echo "# $line" ;;
		esac
	done <"$1"
}

for b in "$NICSIM" "$PEER"; do
	if [ ! -x "$b" ]; then
		echo "not ok 1 - $b is not built (make tests)"
		exit 1
	fi
done
netns_peer_setup
case $? in
0) tap ok "namespaces $ns_s and $ns_p joined by veth $ve_s/$ve_p, kernel peer $ip_k/24" ;;
2) skip "$netns_peer_why" ;;
*) tap "not ok" "namespace set-up"; exit 1 ;;
esac

# zn-nicsim inside $ns_s: its socket file is reached from here all the same.
netns_peer_sim "$NICSIM" "$tmp" bnxt0 bnxt --stats-file "$tmp/stats"
ready=$?
pids+=("$sim_pid")
if [ $ready = 0 ]; then
	tap ok "zn-nicsim serves bnxt0 with its port joined to $ve_s by --wire afpacket"
else
	sed 's/^/# zn-nicsim: /' "$tmp/sim.log"
	tap "not ok" "zn-nicsim with --wire afpacket did not start"
	exit 1
fi

rate() { sed -n "s/^rate $1 \([0-9.]*\) MiB\/s/\1/p" "$2"; }

# 1. zcnic client -> Linux server
timeout 60 ip netns exec "$ns_p" "$PEER" kernel-recv "$ip_k" $PORT "$MIB" \
	>"$tmp/k1.out" 2>"$tmp/k1.err" &
k_pid=$!
pids+=("$k_pid")
for _ in $(seq 100); do grep -q listening "$tmp/k1.out" 2>/dev/null && break; sleep 0.05; done
timeout 60 "$PEER" zcnic-send "$tmp/bnxt0.sock" "$ip_z/24" "$ip_k" $PORT "$MIB" \
	>"$tmp/z1.out" 2>"$tmp/z1.err"
z_rc=$?
wait "$k_pid"
k_rc=$?
tap_file "$tmp/z1.out"
tap_file "$tmp/k1.out"
[ $z_rc -eq 0 ] || { tap "not ok" "tcp_peer zcnic-send exited with $z_rc"; sed 's/^/# zcnic: /' "$tmp/z1.err" | tail -20; }
[ $k_rc -eq 0 ] || tap "not ok" "tcp_peer kernel-recv exited with $k_rc"
r_zk=$(rate zcnic-\>linux "$tmp/z1.out")

# 2. Linux client -> zcnic server
timeout 60 "$PEER" zcnic-recv "$tmp/bnxt0.sock" "$ip_z/24" $PORT "$MIB" \
	>"$tmp/z2.out" 2>"$tmp/z2.err" &
z_pid=$!
pids+=("$z_pid")
for _ in $(seq 200); do grep -q listening "$tmp/z2.out" 2>/dev/null && break; sleep 0.05; done
timeout 60 ip netns exec "$ns_p" "$PEER" kernel-send "$ip_z" $PORT "$MIB" \
	>"$tmp/k2.out" 2>"$tmp/k2.err"
k_rc=$?
wait "$z_pid"
z_rc=$?
tap_file "$tmp/k2.out"
tap_file "$tmp/z2.out"
[ $z_rc -eq 0 ] || { tap "not ok" "tcp_peer zcnic-recv exited with $z_rc"; sed 's/^/# zcnic: /' "$tmp/z2.err" | tail -20; }
[ $k_rc -eq 0 ] || tap "not ok" "tcp_peer kernel-send exited with $k_rc"
r_kz=$(rate linux-\>zcnic "$tmp/z2.out")

# 2b. Linux client -> zcnic server, RECV_ZC into a zcrx area
timeout 60 "$PEER" zcnic-recvzc "$tmp/bnxt0.sock" "$ip_z/24" $((PORT + 2)) "$ZC_MIB" \
	>"$tmp/z5.out" 2>"$tmp/z5.err" &
z_pid=$!
pids+=("$z_pid")
for _ in $(seq 200); do grep -q listening "$tmp/z5.out" 2>/dev/null && break; sleep 0.05; done
timeout 60 ip netns exec "$ns_p" "$PEER" kernel-send "$ip_z" $((PORT + 2)) "$ZC_MIB" \
	>"$tmp/k5.out" 2>"$tmp/k5.err"
k_rc=$?
wait "$z_pid"
z_rc=$?
tap_file "$tmp/k5.out"
tap_file "$tmp/z5.out"
[ $z_rc -eq 0 ] || { tap "not ok" "tcp_peer zcnic-recvzc exited with $z_rc"; sed 's/^/# zcnic: /' "$tmp/z5.err" | tail -20; }
[ $k_rc -eq 0 ] || tap "not ok" "tcp_peer kernel-send (to RECV_ZC) exited with $k_rc"
c_copy=$(sed -n 's/^cpu linux->zcnic RECV \([0-9.]*\) us\/MiB/\1/p' "$tmp/z2.out")
c_zc=$(sed -n 's/^cpu linux->zcnic RECV_ZC \([0-9.]*\) us\/MiB/\1/p' "$tmp/z5.out")
[ -n "$c_copy" ] && [ -n "$c_zc" ] &&
	echo "# zcnic receiver CPU (us/MiB, this process only, busy polling included: the wire sets the pace; the NIC model runs apart): RECV $c_copy, RECV_ZC $c_zc"

# 3. the baseline: Linux -> Linux over the same veth
timeout 60 ip netns exec "$ns_p" "$PEER" kernel-recv "$ip_k" $((PORT + 1)) "$MIB" \
	>"$tmp/k3.out" 2>"$tmp/k3.err" &
k_pid=$!
pids+=("$k_pid")
for _ in $(seq 100); do grep -q listening "$tmp/k3.out" 2>/dev/null && break; sleep 0.05; done
timeout 60 ip netns exec "$ns_s" "$PEER" kernel-send "$ip_k" $((PORT + 1)) "$MIB" \
	>"$tmp/k4.out" 2>"$tmp/k4.err"
wait "$k_pid"
r_kk=$(rate kernel-recv "$tmp/k3.out")
if [ -n "$r_kk" ] && [ -n "$r_zk" ] && [ -n "$r_kz" ]; then
	echo "# rates (MiB/s): zcnic->linux $r_zk, linux->zcnic $r_kz, linux->linux $r_kk (baseline)"
	awk -v a="$r_zk" -v b="$r_kz" -v k="$r_kk" 'BEGIN { printf "# ratio to the kernel<->kernel baseline: zcnic->linux %.3f, linux->zcnic %.3f\n", a / k, b / k }'
fi

kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
if grep -qE " (warn|err) " "$tmp/sim.log"; then
	grep -E " (warn|err) " "$tmp/sim.log" | head -20 | sed 's/^/# zn-nicsim: /'
	tap "not ok" "zn-nicsim logged no warning (driver rules, wire errors)"
else
	tap ok "zn-nicsim logged no warning (driver rules, wire errors)"
fi

[ "$fails" -eq 0 ]
