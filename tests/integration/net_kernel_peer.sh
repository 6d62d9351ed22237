#!/usr/bin/env bash
# core/net against the Linux network stack as a real peer.
#
#   namespace zns<PID>  zn-nicsim, bnxt0 joined by the afpacket wire to ve-s<PID>
#   namespace znp<PID>  ve-p<PID> = 10.<a>.<b>.1/24, kernel UDP sockets, ping
#   (root ns)           tests/progs/udp_peer zcnic: core/port + core/net on bnxt0,
#                       10.<a>.<b>.2/24 (reached over vfio-user, a UNIX socket)
#
# The veth pair joins only the two namespaces this script makes (private
# 10.x addresses, no route anywhere else); the root namespace's network is
# not touched. A trap removes the namespaces (and with them the veth pair)
# and stops every process, whatever happens. Checked: zcnic resolves the
# kernel by ARP and its datagrams arrive byte-exact (the kernel checks their
# checksums); the kernel resolves zcnic by ARP, its datagrams (sizes up to
# the MTU, some without checksum) arrive byte-exact and are answered; ping
# is answered, also with 1400-byte payloads. Prints TAP lines "ok N - what".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NICSIM=$BUILD/bin/zn-nicsim
PEER=$BUILD/tests/udp_peer
NECHO=${ZN_NET_NECHO:-200}

id=$$
ns_s=zns$id
ns_p=znp$id
ve_s=ve-s$id
ve_p=ve-p$id
# 10.<a>.<b>.0/24 from the PID: parallel runs do not collide (and never leave the namespaces)
net=10.$((200 + id / 250 % 50)).$((id % 250))
ip_k=$net.1
ip_z=$net.2
n=0
fails=0
pids=()
tmp=$(mktemp -d /tmp/zn-net-peer.XXXXXX)

cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	ip netns del "$ns_p" 2>/dev/null
	ip netns del "$ns_s" 2>/dev/null
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
	echo "ok 1 - net_kernel_peer # SKIP $1"
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
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, AF_PACKET)"
command -v ip >/dev/null || skip "iproute2 is not installed (scripts/deps.sh installs it)"
if ! err=$(ip netns add "$ns_s" 2>&1); then
	skip "cannot create a network namespace: $err"
fi
if ! ip netns add "$ns_p" ||
   ! ip link add "$ve_s" netns "$ns_s" type veth peer name "$ve_p" netns "$ns_p"; then
	echo "not ok 1 - could not make the namespaces and the veth pair"
	exit 1
fi
setup_ok=1
for cmd in \
	"ip netns exec $ns_s ip link set lo up" \
	"ip netns exec $ns_p ip link set lo up" \
	"ip netns exec $ns_s sysctl -qw net.ipv6.conf.all.disable_ipv6=1" \
	"ip netns exec $ns_p sysctl -qw net.ipv6.conf.all.disable_ipv6=1" \
	"ip netns exec $ns_s ip link set $ve_s up" \
	"ip netns exec $ns_p ip addr add $ip_k/24 dev $ve_p" \
	"ip netns exec $ns_p ip link set $ve_p up"; do
	$cmd || { echo "# failed: $cmd"; setup_ok=0; }
done
if [ $setup_ok = 1 ]; then
	tap ok "namespaces $ns_s and $ns_p joined by veth $ve_s/$ve_p, kernel peer $ip_k/24"
else
	tap "not ok" "namespace set-up"
	exit 1
fi

# zn-nicsim inside $ns_s: its socket file is reached from here all the same.
ip netns exec "$ns_s" "$NICSIM" --dir "$tmp" --dev bnxt0=bnxt \
	--wire "afpacket:bnxt0,$ve_s" --stats-file "$tmp/stats" >"$tmp/sim.log" 2>&1 &
sim_pid=$!
pids+=("$sim_pid")
ready=0
for _ in $(seq 200); do
	grep -q "zn-nicsim: ready" "$tmp/sim.log" && { ready=1; break; }
	kill -0 "$sim_pid" 2>/dev/null || break
	sleep 0.05
done
if [ $ready = 1 ]; then
	tap ok "zn-nicsim serves bnxt0 with its port joined to $ve_s by --wire afpacket"
else
	sed 's/^/# zn-nicsim: /' "$tmp/sim.log"
	tap "not ok" "zn-nicsim with --wire afpacket did not start"
	exit 1
fi

# The kernel side listens first; then zcnic starts and speaks.
timeout 120 ip netns exec "$ns_p" "$PEER" kernel "$ip_k" "$ip_z" "$NECHO" \
	>"$tmp/kernel.out" 2>"$tmp/kernel.err" &
k_pid=$!
pids+=("$k_pid")
sleep 0.2
timeout 150 "$PEER" zcnic "$tmp/bnxt0.sock" "$ip_z/24" "$ip_k" "$NECHO" \
	>"$tmp/zcnic.out" 2>"$tmp/zcnic.err" &
z_pid=$!
pids+=("$z_pid")
wait "$k_pid"
k_rc=$?
tap_file "$tmp/kernel.out"
sed 's/^/# kernel stderr: /' "$tmp/kernel.err"
[ $k_rc -eq 0 ] || tap "not ok" "udp_peer kernel exited with status $k_rc"

# The kernel learnt zcnic's MAC from core/net's ARP reply.
mac=$(ip netns exec "$ns_p" ip neigh show "$ip_z" dev "$ve_p" | awk '{ print $3 }')
case $mac in
??:??:??:??:??:??) tap ok "kernel neighbour table: $ip_z is at $mac (answered by core/net's ARP)" ;;
*) tap "not ok" "kernel has no neighbour entry for $ip_z ('$(ip netns exec "$ns_p" ip neigh show)')" ;;
esac

if command -v ping >/dev/null; then
	for size in 56 1400; do
		out=$(ip netns exec "$ns_p" timeout 20 ping -n -c 5 -i 0.2 -W 2 -s $size "$ip_z" 2>&1)
		if grep -q " 5 received" <<<"$out"; then
			tap ok "ping -s $size $ip_z from the namespace: 5 of 5 echo replies from core/net"
		else
			sed 's/^/# /' <<<"$out"
			tap "not ok" "ping -s $size $ip_z from the namespace"
		fi
	done
else
	echo "# ping is not installed (scripts/deps.sh installs iputils-ping): not run"
fi

ip netns exec "$ns_p" "$PEER" bye "$ip_z"
wait "$z_pid"
z_rc=$?
tap_file "$tmp/zcnic.out"
sed 's/^/# zcnic stderr: /' "$tmp/zcnic.err" | head -20
[ $z_rc -eq 0 ] || tap "not ok" "udp_peer zcnic exited with status $z_rc"

kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
# veth hands the kernel's frames over with the UDP checksum left to the NIC
fixed=$(sed -n 's/^wire0.rx_csum_completed //p' "$tmp/stats" 2>/dev/null)
wire_rx=$(sed -n 's/^wire0.rx_frames //p' "$tmp/stats" 2>/dev/null)
if [ -n "$fixed" ] && [ "$fixed" -gt 0 ]; then
	tap ok "afpacket wire: $wire_rx frames from $ve_s to the model, $fixed partial checksums completed"
else
	tap "not ok" "afpacket wire stats (rx_frames '$wire_rx', rx_csum_completed '$fixed')"
fi
if grep -qE " (warn|err) " "$tmp/sim.log"; then
	grep -E " (warn|err) " "$tmp/sim.log" | head -20 | sed 's/^/# zn-nicsim: /'
	tap "not ok" "zn-nicsim logged no warning (driver rules, wire errors)"
else
	tap ok "zn-nicsim logged no warning (driver rules, wire errors)"
fi

[ "$fails" -eq 0 ]
