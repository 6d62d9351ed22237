#!/usr/bin/env bash
# zn-echo, the TCP echo server, against two clients, every byte checked:
#   1. zcnic's own (tests/progs/echo_client: SOCKET, CONNECT, SEND, RECV,
#      SHUTDOWN, CLOSE through the ring) on the other port of a zn-nicsim
#      pair wire, several connections at once; zn-nicsim --pcap records the
#      wire and tcpdump reads the file back (frame count, one SYN per
#      connection, FINs both ways);
#   2. Linux's TCP (a python3 client in a network namespace this script
#      makes, behind a veth pair joined to the model port by --wire
#      afpacket), when run as root.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
ECHO=$BUILD/bin/zn-echo
CLIENT=$BUILD/tests/echo_client
CONNS=${ZN_ECHO_CONNS:-4}
BYTES=${ZN_ECHO_BYTES:-200000}
# Linux's client sends all of it before it reads: past zcnic's receive
# window, recovery under load can take longer than the client waits
# (docs/tcp.md, "Not yet"), so the default stays under it
LBYTES=${ZN_ECHO_LINUX_BYTES:-262144}
WAIT_S=30

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

id=$$
ns_s=zes$id
ns_p=zep$id
ve_s=ve-es$id
ve_p=ve-ep$id
net=10.$((200 + id / 250 % 50)).$((id % 250))
tmp=$(mktemp -d /tmp/zn-echo.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	ip netns del "$ns_p" 2>/dev/null
	ip netns del "$ns_s" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() {
	local i
	for ((i = 0; i < WAIT_S * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

for b in "$SIM" "$ECHO" "$CLIENT"; do
	[ -x "$b" ] || { echo "not ok 1 - $b is built"; exit 1; }
done

check "zn-echo --help describes the server" bash -c "'$ECHO' --help | grep -q 'multishot ACCEPT'"

# ---- 1. zcnic client on a pair wire, captured -----------------------------
"$SIM" --dir "$tmp" --dev bnxt0=bnxt --dev bnxt1=bnxt --wire pair:bnxt0,bnxt1 \
	--pcap "$tmp/wire.pcap" >"$tmp/sim" 2>&1 &
sim=$!
pids+=($sim)
if ! wait_for grep -q "zn-nicsim: ready" "$tmp/sim"; then
	nok "zn-nicsim with two bnxt ports and --pcap is ready"
	exit 1
fi
timeout 120 "$ECHO" --dev "vfio-user:$tmp/bnxt1.sock" --ip 10.0.0.2/24 --conns "$CONNS" \
	--duration-ms $((WAIT_S * 1000)) --quiet >"$tmp/echo" 2>&1 &
epid=$!
if ! wait_for grep -q "zn-echo: ready" "$tmp/echo"; then
	nok "zn-echo is ready"; kill -9 $epid 2>/dev/null
else
	timeout 120 "$CLIENT" "vfio-user:$tmp/bnxt0.sock" 10.0.0.1/24 10.0.0.2 7 "$CONNS" "$BYTES" \
		>"$tmp/client" 2>&1
	crc=$?
	wait $epid; erc=$?
	grep -E "^(ok|not ok|#)" "$tmp/client" | sed 's/^/# /'
	grep "^zn-echo:" "$tmp/echo" | sed 's/^/# /'
	check "echo_client: $CONNS connections, $BYTES bytes each echoed intact, EOF (rc $crc)" \
		bash -c "[ $crc -eq 0 ] && grep -q '^ok - $CONNS connections through zn-echo' '$tmp/client'"
	check "zn-echo served and ended $CONNS connections, exit 0 (rc $erc)" \
		bash -c "[ $erc -eq 0 ] && grep -q '^zn-echo: $CONNS connections ($CONNS ended, 0 reset' '$tmp/echo'"
fi
kill $sim 2>/dev/null; wait $sim 2>/dev/null
frames=$(sed -n 's/^zn-nicsim: \([0-9]*\) frames written to the pcap file/\1/p' "$tmp/sim")
if command -v tcpdump >/dev/null; then
	read_n=$(tcpdump -nr "$tmp/wire.pcap" 2>/dev/null | wc -l)
	syns=$(tcpdump -nr "$tmp/wire.pcap" 'tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn' 2>/dev/null | wc -l)
	fins=$(tcpdump -nr "$tmp/wire.pcap" 'tcp[tcpflags] & tcp-fin != 0' 2>/dev/null | wc -l)
	echo "# pcap: zn-nicsim wrote ${frames:-?} frames; tcpdump read $read_n, $syns SYN, $fins FIN"
	check "tcpdump reads every frame zn-nicsim wrote to --pcap (${frames:-none})" \
		bash -c "[ -n '$frames' ] && [ '$frames' -gt 0 ] && [ '$read_n' -eq '$frames' ]"
	check "the capture holds one SYN per connection and FINs both ways" \
		bash -c "[ '$syns' -eq '$CONNS' ] && [ '$fins' -ge $((2 * CONNS)) ]"
else
	nok "tcpdump is installed (scripts/deps.sh installs it)"
fi

# ---- 2. Linux's TCP as the client ------------------------------------------
linux_client() { # IP PORT CONNS BYTES: prints ok/not ok lines
	python3 - "$@" <<'PY'
import socket, sys, threading
ip, port, conns, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
base = bytes(range(251)) * (n // 251 + 2)
bad = 0
for c in range(conns):
    data = base[c:c + n]
    s = socket.create_connection((ip, port), timeout=20)
    t = threading.Thread(target=lambda: (s.sendall(data), s.shutdown(socket.SHUT_WR)))
    t.start()
    got = bytearray()
    while True:
        b = s.recv(65536)
        if not b:
            break
        got += b
    t.join()
    s.close()
    good = got == data
    bad += not good
    print("%s - linux client %d: %d bytes sent, %d echoed, %s" %
          ("ok" if good else "not ok", c, n, len(got), "identical" if good else "DIFFERENT"))
sys.exit(1 if bad else 0)
PY
}

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v python3 >/dev/null; then
	ok "Linux client # SKIP needs root, iproute2 and python3"
elif ! ip netns add "$ns_s" 2>/dev/null; then
	ok "Linux client # SKIP cannot create a network namespace"
else
	ip netns add "$ns_p"
	ip link add "$ve_s" netns "$ns_s" type veth peer name "$ve_p" netns "$ns_p"
	for cmd in "ip netns exec $ns_s ip link set lo up" "ip netns exec $ns_p ip link set lo up" \
		"ip netns exec $ns_s sysctl -qw net.ipv6.conf.all.disable_ipv6=1" \
		"ip netns exec $ns_p sysctl -qw net.ipv6.conf.all.disable_ipv6=1" \
		"ip netns exec $ns_s ip link set $ve_s gso_max_segs 1" \
		"ip netns exec $ns_p ip link set $ve_p gso_max_segs 1" \
		"ip netns exec $ns_s ip link set $ve_s up" \
		"ip netns exec $ns_p ip addr add $net.1/24 dev $ve_p" \
		"ip netns exec $ns_p ip link set $ve_p up"; do
		$cmd || echo "# failed: $cmd"
	done
	ip netns exec "$ns_s" "$SIM" --dir "$tmp" --dev bnxt9=bnxt --wire "afpacket:bnxt9,$ve_s" \
		>"$tmp/sim2" 2>&1 &
	pids+=($!)
	if ! wait_for grep -q "zn-nicsim: ready" "$tmp/sim2"; then
		nok "zn-nicsim with --wire afpacket is ready"
	else
		timeout 120 "$ECHO" --dev "vfio-user:$tmp/bnxt9.sock" --ip "$net.2/24" --port 7007 \
			--conns 3 --duration-ms $((WAIT_S * 1000)) --quiet >"$tmp/echo2" 2>&1 &
		epid=$!
		if wait_for grep -q "zn-echo: ready" "$tmp/echo2"; then
			timeout 120 ip netns exec "$ns_p" bash -c "$(declare -f linux_client); linux_client $net.2 7007 3 $LBYTES" \
				>"$tmp/lin" 2>&1
			lrc=$?
			wait $epid; erc=$?
			sed 's/^/# /' "$tmp/lin"
			grep "^zn-echo:" "$tmp/echo2" | sed 's/^/# /'
			check "a Linux client: 3 connections of $LBYTES bytes echoed intact by zn-echo (rc $lrc)" \
				bash -c "[ $lrc -eq 0 ] && [ \$(grep -c '^ok - linux client' '$tmp/lin') -eq 3 ]"
			check "zn-echo served the Linux client's 3 connections, exit 0 (rc $erc)" \
				bash -c "[ $erc -eq 0 ] && grep -q '^zn-echo: 3 connections (3 ended, 0 reset' '$tmp/echo2'"
		else
			nok "zn-echo on the afpacket wire is ready"; kill -9 $epid 2>/dev/null
		fi
	fi
fi

echo "1..$n"
[ $failed -eq 0 ]
