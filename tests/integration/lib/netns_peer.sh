# Sourced by the scripts that put Linux's TCP across the wire from a model
# port (tcp_kernel_peer.sh, tcp_liburing.sh):
#
#   namespace $ns_s     zn-nicsim, its port joined by the afpacket wire to
#                       $ve_s ($ip_b/24, for a kernel<->kernel baseline)
#   namespace $ns_p     $ve_p = $ip_k/24, kernel TCP sockets
#   (root ns)           the zcnic program: a netdev with $ip_z/24 on the
#                       model port, reached over vfio-user (a UNIX socket)
#
# veth would hand AF_PACKET TSO/GSO super-frames longer than the MTU (the
# NIC model takes Ethernet frames): gso_max_segs 1 makes the kernel send
# MTU-sized segments. The veth pair joins only the two namespaces made here
# (private 10.x addresses from the PID, so parallel runs do not collide; no
# route anywhere else); the root namespace's network is not touched.
# netns_peer_cleanup removes the namespaces (and with them the veth pair).

# netns_peer_names TAG: the names, from TAG and this shell's PID.
netns_peer_names() {
	local id=$$
	ns_s=${1}s$id
	ns_p=${1}p$id
	ve_s=ve-${1}s$id
	ve_p=ve-${1}p$id
	net=10.$((200 + id / 250 % 50)).$((id % 250))
	ip_k=$net.1
	ip_z=$net.2
	ip_b=$net.3
}

netns_peer_cleanup() {
	ip netns del "$ns_p" 2>/dev/null
	ip netns del "$ns_s" 2>/dev/null
}

# netns_peer_setup: 0 when the namespaces and the veth pair are up; 2 when
# this machine cannot have them ($netns_peer_why says why: skip); 1 when
# making them failed.
netns_peer_setup() {
	local err cmd
	netns_peer_why=
	if [ "$(id -u)" -ne 0 ]; then
		netns_peer_why="needs root (network namespaces, AF_PACKET)"
		return 2
	fi
	if ! command -v ip >/dev/null; then
		netns_peer_why="iproute2 is not installed (scripts/deps.sh installs it)"
		return 2
	fi
	if ! err=$(ip netns add "$ns_s" 2>&1); then
		netns_peer_why="cannot create a network namespace: $err"
		return 2
	fi
	if ! ip netns add "$ns_p" ||
	   ! ip link add "$ve_s" netns "$ns_s" type veth peer name "$ve_p" netns "$ns_p"; then
		return 1
	fi
	for cmd in \
		"ip netns exec $ns_s ip link set lo up" \
		"ip netns exec $ns_p ip link set lo up" \
		"ip netns exec $ns_s sysctl -qw net.ipv6.conf.all.disable_ipv6=1" \
		"ip netns exec $ns_p sysctl -qw net.ipv6.conf.all.disable_ipv6=1" \
		"ip netns exec $ns_s ip link set $ve_s up" \
		"ip netns exec $ns_s ip addr add $ip_b/24 dev $ve_s" \
		"ip netns exec $ns_p ip addr add $ip_k/24 dev $ve_p" \
		"ip netns exec $ns_p ip link set $ve_p gso_max_segs 1" \
		"ip netns exec $ns_s ip link set $ve_s gso_max_segs 1" \
		"ip netns exec $ns_p ip link set $ve_p up"; do
		$cmd || { echo "# failed: $cmd"; return 1; }
	done
	return 0
}

# netns_peer_sim NICSIM DIR DEV MODEL [ARGS...]: zn-nicsim in $ns_s with
# DEV (MODEL) wired to $ve_s, sockets in DIR, its log in DIR/sim.log;
# sim_pid set. 0 once it is ready (within 10 s), else 1.
netns_peer_sim() {
	local nicsim=$1 dir=$2 dev=$3 model=$4 i
	shift 4
	ip netns exec "$ns_s" "$nicsim" --dir "$dir" --dev "$dev=$model" \
		--wire "afpacket:$dev,$ve_s" "$@" >"$dir/sim.log" 2>&1 &
	sim_pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q "zn-nicsim: ready" "$dir/sim.log" && return 0
		kill -0 "$sim_pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
