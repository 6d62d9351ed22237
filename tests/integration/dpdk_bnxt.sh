#!/usr/bin/env bash
# DPDK's own bnxt PMD (Debian 12's dpdk-testpmd, librte_net_bnxt) on two bnxt
# models joined by a pair wire, through the kernel-VFIO bridge (libznvfio.so):
#
#   probe and port start of both ports (every HWRM command answered or
#     refused as the PMD tolerates: hw-docs/dpdk-bnxt.md);
#   txonly on port 0 in one testpmd, rxonly on port 1 in another: testpmd's
#     TX count is the frames model 0 sent, model 1 received them all, and
#     the receiver's count is what model 1 delivered;
#   io forwarding of both ports in one testpmd (start tx_first): each port's
#     TX count is its model's, what a model sent the other received, and
#     testpmd took all of it but what arrived after forwarding stopped;
#   afterwards no DMA window or client left in the models.
# Installs the DPDK packages with scripts/deps.sh dpdk; prints one SKIP line
# and exits 0 only if they cannot be installed. Prints TAP lines; every wait
# is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
LIB=$PWD/$BUILD/lib/libznvfio.so
TESTPMD=${ZN_TESTPMD:-dpdk-testpmd}
RUN_S=${ZN_DPDK_RUN_S:-1}
MODEL_OPTS=${ZN_DPDK_MODEL_OPTS-}
WAIT_S=20
B0=0000:3b:00.0 B1=0000:3b:00.1

if ! command -v "$TESTPMD" >/dev/null 2>&1; then
	scripts/deps.sh dpdk >/dev/null 2>&1
	if ! command -v "$TESTPMD" >/dev/null 2>&1; then
		echo "SKIP dpdk_bnxt: $TESTPMD not installed and scripts/deps.sh dpdk could not install it"
		exit 0
	fi
fi

PRELOAD=$LIB
if [ "${SAN:-0}" = 1 ]; then
	PRELOAD=$(${CC:-cc} -print-file-name=libasan.so):$LIB
	# testpmd is not built with ASan: leaks in it are not ours to report
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}:verify_asan_link_order=0
fi

n=0 failed=0
. tests/integration/lib/tap.sh

tmp=$(mktemp -d /tmp/zn-dpdk-test.XXXXXX)
pid= tpids=
cleanup() {
	for p in $tpids $pid; do kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	[ -n "${ZN_KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

# forward statistics of a port in a testpmd log: fwd LOG PORT RX-packets|TX-packets
fwd() {
	awk -v p="$2" -v k="$3:" '/Forward statistics for port/ { cur = ($(NF-1) == p) }
		cur { for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$1"
}

# the last "NIC statistics" block of a port in a testpmd log: nic LOG PORT KEY
nic() {
	awk -v p="$2" -v k="$3:" '/NIC statistics for port/ { cur = ($(NF-1) == p); if (cur) v = "" }
		cur { for (i = 1; i < NF; i++) if ($i == k) { v = $(i + 1); cur = 0 } }
		END { print v }' "$1"
}

for b in "$SIM" "$LIB"; do
	if [ ! -e "$b" ]; then
		echo "not ok 1 - $b is built"
		exit 1
	fi
done

mkdir -p "$tmp/sim" "$tmp/t"
fifo=$tmp/ready
mkfifo "$fifo"
# DPDK 22.11 rings every doorbell at BAR2 + 0x10000 through its mapping of
# the BAR; the model traps that page and the bridge turns each store into a
# message (hw-docs/dpdk-bnxt.md 2, 4). ZN_DPDK_MODEL_OPTS=,legacy_db_map=1
# polls the page instead (lossy: RX refills are missed).
"$SIM" --dir "$tmp/sim" --dev bnxt0=bnxt$MODEL_OPTS --dev bnxt1=bnxt$MODEL_OPTS \
	--wire pair:bnxt0,bnxt1 --stats-file "$tmp/stats" --ready-fd 3 3>"$fifo" \
	>"$tmp/sim.out" 2>"$tmp/sim.err" &
pid=$!
line=
read -r -t $WAIT_S line <"$fifo"
if [ "$line" != ready ]; then
	nok "zn-nicsim with two bnxt ports on a pair wire is ready"
	echo "1..$n"
	exit 1
fi
ok "zn-nicsim with two bnxt ports on a pair wire is ready"
D0=$B0=vfio-user:$tmp/sim/bnxt0.sock
D1=$B1=vfio-user:$tmp/sim/bnxt1.sock

# testpmd NAME DEVICES ARGS...: interactive testpmd on the bridged devices,
# log in $tmp/NAME.log, commands through the fifo $tmp/NAME.in (cmd NAME TEXT)
testpmd() {
	local name=$1 devs=$2 allow=() fd
	shift 2
	for d in ${devs//,/ }; do allow+=(-a "${d%%=*}"); done
	mkfifo "$tmp/$name.in"
	TMPDIR=$tmp/t LD_PRELOAD=$PRELOAD ZN_VFIO_DEVICES=$devs \
		timeout -k 2 $((WAIT_S * 3)) "$TESTPMD" -l 0-1 --no-huge -m 128 --iova-mode=va \
		--no-shconf --file-prefix "zn$name$$" "${allow[@]}" -- -i \
		--total-num-mbufs=4096 "$@" <"$tmp/$name.in" >"$tmp/$name.log" 2>&1 &
	tpids="$tpids $!"
	eval "pid_$name=$!"
	exec {fd}>"$tmp/$name.in"
	eval "fd_$name=$fd"
}
cmd() { # NAME LINE: one testpmd command
	local fd
	eval "fd=\$fd_$1"
	(trap '' PIPE; echo "$2" >&"$fd") 2>/dev/null
}
# its prompt after the ports are up
started() { grep -q "^testpmd> " "$tmp/$1.log"; }
finish() { # NAME: quit, then wait for the exit; rc_NAME its status
	local fd p
	eval "fd=\$fd_$1 p=\$pid_$1"
	cmd "$1" quit
	exec {fd}>&-
	wait_for gone "$p"
	wait "$p" 2>/dev/null
	eval "rc_$1=$?"
}
show_log() { tail -n 15 "$tmp/$1.log" | sed 's/^/#   /'; }

# ---- txonly on port 0, rxonly on port 1 ----
testpmd rx "$D1" --forward-mode=rxonly
if wait_for started rx && cmd rx start; then ok "testpmd probes and starts port 1 (rxonly)"; else
	nok "testpmd probes and starts port 1 (rxonly)"; show_log rx; fi
testpmd tx "$D0" --forward-mode=txonly
if wait_for started tx && cmd tx start; then ok "testpmd probes and starts port 0 (txonly)"; else
	nok "testpmd probes and starts port 0 (txonly)"; show_log tx; fi
sleep "$RUN_S"
cmd tx stop
# what the ring still held when forwarding stopped goes out now; then the
# port's counters (STAT_CTX_QUERY) are final
sleep 0.5
cmd tx "show port stats 0"
sleep 0.3
finish tx
check "txonly testpmd exits 0 (rc $rc_tx)" [ "$rc_tx" = 0 ]
stats_now
sent=$(fwd "$tmp/tx.log" 0 TX-packets)
m0tx=$(stat bnxt0.model.tx_frames)
m1rx=$(stat bnxt1.model.rx_frames)
m1nobuf=$(stat bnxt1.model.rx_no_buffer)
echo "# txonly: testpmd sent ${sent:-?}; model 0 sent $m0tx; model 1 received $m1rx, no buffer $m1nobuf"
check "frames flowed (${sent:-none} > 1000)" [ "${sent:-0}" -gt 1000 ]
nsent=$(nic "$tmp/tx.log" 0 TX-packets)
check "testpmd's port 0 TX count is model 0's ($nsent = $m0tx), forwarding's ($sent) at most a ring less" \
	bash -c "[ '${nsent:-x}' = $m0tx ] && [ ${sent:-0} -le $m0tx ] && [ $((m0tx - ${sent:-0})) -lt 512 ]"
check "model 1 got every frame model 0 sent ($m1rx + $m1nobuf no-buffer = $m0tx)" \
	[ $((m1rx + m1nobuf)) -eq "$m0tx" ]
sleep 0.5
cmd rx stop
sleep 0.2
finish rx
check "rxonly testpmd exits 0 (rc $rc_rx)" [ "$rc_rx" = 0 ]
got=$(fwd "$tmp/rx.log" 0 RX-packets)
check "rxonly testpmd counted what model 1 delivered (${got:-?} = $m1rx)" [ "${got:-x}" = "$m1rx" ]
check "no HWRM command of the PMD went unanswered or was refused where it hurts" \
	[ "$(grep -c 'Error(timeout)\|Failed to\|failure rc' "$tmp/tx.log" "$tmp/rx.log" | \
	     awk -F: '{ s += $2 } END { print s }')" = 0 ]

# ---- io forwarding, both ports in one testpmd ----
stats_now
b0tx=$(stat bnxt0.model.tx_frames) b1tx=$(stat bnxt1.model.tx_frames)
b0rx=$(stat bnxt0.model.rx_frames) b1rx=$(stat bnxt1.model.rx_frames)
b0nb=$(stat bnxt0.model.rx_no_buffer) b1nb=$(stat bnxt1.model.rx_no_buffer)
testpmd io "$D0,$D1" --forward-mode=io
if wait_for started io && cmd io "start tx_first"; then ok "testpmd probes and starts both ports (io, --tx-first)"; else
	nok "testpmd probes and starts both ports (io, --tx-first)"; show_log io; fi
sleep "$RUN_S"
cmd io stop
sleep 0.5
cmd io "show port stats all"
sleep 0.3
finish io
check "io testpmd exits 0 (rc $rc_io)" [ "$rc_io" = 0 ]
stats_now
for p in 0 1; do
	q=$((1 - p))
	t=$(fwd "$tmp/io.log" $p TX-packets)
	r=$(fwd "$tmp/io.log" $q RX-packets)
	eval "base_tx=\$b${p}tx base_rx=\$b${q}rx base_nb=\$b${q}nb"
	mt=$(($(stat bnxt$p.model.tx_frames) - base_tx))
	mr=$(($(stat bnxt$q.model.rx_frames) - base_rx))
	mnb=$(($(stat bnxt$q.model.rx_no_buffer) - base_nb))
	echo "# io: port $p sent ${t:-?} (model $mt); port $q received ${r:-?} (model $mr, no buffer $mnb)"
	nt=$(nic "$tmp/io.log" $p TX-packets)
	nr=$(nic "$tmp/io.log" $q RX-packets)
	check "io: port $p's TX count is model $p's (${nt:-?} = $mt, > 1000; forwarding's ${t:-?} at most a ring less)" \
		bash -c "[ '${nt:-x}' = $mt ] && [ $mt -gt 1000 ] && [ ${t:-0} -le $mt ] && [ $((mt - ${t:-0})) -lt 512 ]"
	check "io: port $q's RX count is model $q's (${nr:-?} = $mr)" [ "${nr:-x}" = "$mr" ]
	check "io: model $q got every frame model $p sent ($mr + $mnb no-buffer = $mt)" \
		[ $((mr + mnb)) -eq $mt ]
	# What arrived after forwarding stopped stays in port q's RX ring.
	check "io: port $q took what model $q delivered but at most a ring's worth (${r:-?} of $mr)" \
		bash -c "[ ${r:-0} -le $mr ] && [ $((mr - ${r:-0})) -lt 512 ]"
done

stats_now
check "afterwards no client and no DMA window left in either model" \
	[ "$(stat bnxt0.connected)$(stat bnxt1.connected)$(stat bnxt0.dma.windows)$(stat bnxt1.dma.windows)" = 0000 ]
refused=$(grep -a "refused" "$tmp/sim.err" | sed 's/.*req_type \(0x[0-9a-f]*\).*with \(0x[0-9a-f]*\).*/\1:\2/' |
	sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')
echo "# HWRM refusals the PMD tolerated (req_type:code): ${refused:-none}"

echo "1..$n"
[ $failed -eq 0 ]
