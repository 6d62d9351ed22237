#!/usr/bin/env bash
# make cost: instructions per operation of each hot path, counted by
# callgrind (exact, the same on every machine; this one has no hardware
# counters), with the split by layer, the system calls and the allocator
# calls made on the way. One table on stdout, the same as JSON in
# $OUT/cost.json.
#
# Only the measured functions are collected (--toggle-collect); waiting for
# the device model happens outside them, so no instruction of a poll that
# spins for the model is counted:
#   driver RX+TX   zn-fwd (private zn-nicsim, 64-byte frames, burst 32, bnxt and mlx5,
#                  paced so that bursts come full): its wrappers of the
#                  port's RX and TX bursts (scripts/bench-bnxt.sh's method),
#                  per frame received; the payload buffer provider (zn-fwd's
#                  code) and the TX completion reap are apart
#   zcrx receive   tests/progs/net_rx_cost (scripts/cost-rx.sh's method): its
#                  ring pass poll_a, at two round counts, the difference over
#                  the frames between, so that set-up and warm-up cancel out
#   the ring ops   tests/progs/cost_ops: SEND_ZC, SEND, MSG_RING, NOP in
#                  batches of 32, measured_submit + measured_reap of the
#                  measured rounds only (warm-up rounds call the same work
#                  directly)
#   TCP            tests/progs/cost_tcp (bnxt pair, LSO and TPA on, a ring per
#                  end): SEND_ZC of 4 KiB requests in batches of 32,
#                  measured_submit + measured_pass_b (B's passes: TCP output,
#                  TX, completions, ACK input, result and notification CQEs),
#                  and the zcrx receive of that stream, measured_reap_a +
#                  measured_refill_a (A's passes: RX, TCP input, ACKs,
#                  RECV_ZC CQEs, refill; the app's check of the bytes apart)
# scripts/cost_cg.py does the sums: with --separate-callers each function's
# cost, calls and system calls are told apart by the measured function on
# its call chain.
#
#   scripts/cost.sh [--quick]      (--quick: fewer rounds, for make test)
# Environment: BUILD (default build), OUT (default $BUILD/bench), JOBS
# (callgrind runs at once, default 4: they mostly wait for the model).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench}
JOBS=${JOBS:-4}
FRAMES=2048 ROUNDS=16 R1=8 R2=24
if [ "${1:-}" = --quick ]; then
	FRAMES=512 ROUNDS=4 R1=2 R2=6
fi

command -v valgrind >/dev/null || ZN_DEPS_EXTRA=valgrind scripts/deps.sh
make --no-print-directory -j2 BUILD="$BUILD" "$BUILD/bin/zn-fwd" "$BUILD/tests/net_rx_cost" \
	"$BUILD/tests/cost_ops" "$BUILD/tests/cost_tcp" >/dev/null
mkdir -p "$OUT"
tmp=$(mktemp -d /tmp/zn-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows.jsonl

# NAME FUNCTIONS -- COMMAND...: run under callgrind in the background (at
# most JOBS at once; exact counts do not care what else runs) into
# $tmp/NAME.sum (cost_cg.py sum) and $tmp/NAME.txt (the program's output)
cg() {
	local name=$1 fns=$2 toggles=()
	shift 3
	for f in $fns; do toggles+=(--toggle-collect="$f*"); done
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
	(
		if ! valgrind --tool=callgrind --separate-callers=48 \
			--callgrind-out-file="$tmp/$name.cg" "${toggles[@]}" "$@" \
			>"$tmp/$name.txt" 2>"$tmp/$name.err"; then
			echo "cost: $name failed:" >&2
			tail -n 20 "$tmp/$name.err" "$tmp/$name.txt" >&2
			touch "$tmp/failed"
			exit 1
		fi
		python3 scripts/cost_cg.py sum --bin "$1" "$tmp/$name.cg" $fns >"$tmp/$name.sum" ||
			touch "$tmp/failed"
		rm -f "$tmp/$name.cg"
	) &
}

# ID NAME PER TARGET OPS NOTE RUN...  (RUN: SIGN:NAME:ROOT,ROOT)
row() {
	local id=$1 name=$2 per=$3 target=$4 ops=$5 note=$6 runs= sep= r sign run roots
	shift 6
	for r in "$@"; do
		IFS=: read -r sign run roots <<<"$r"
		runs+="$sep{\"sign\": $sign, \"roots\": [\"${roots//,/\", \"}\"], \"sum\": $(cat "$tmp/$run.sum")}"
		sep=", "
	done
	printf '{"id": "%s", "name": "%s", "per": "%s", "target": %s, "ops": %s, "note": "%s", "runs": [%s]}\n' \
		"$id" "$name" "$per" "$target" "$ops" "$note" "$runs" >>"$rows"
}

field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' "$@"; }
per() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

t0=$(date +%s)
FWD=(--sizes 64 --frames "$FRAMES" --burst 32 --pace-us 2000 --window 64)
OPS="send_zc send send_user msgring nop"
cg fwd_whole "fwd_rx_burst fwd_tx_burst fwd_tx_reap provide" -- \
	"$BUILD/bin/zn-fwd" "${FWD[@]}" --hds-thresh 256
cg fwd_split "fwd_rx_burst fwd_tx_burst fwd_tx_reap provide" -- "$BUILD/bin/zn-fwd" "${FWD[@]}"
# mlx5: zn-fwd's 2048-byte buffers take the cyclic RQ (whole frames), 4096-byte
# ones the SHAMPO striding RQ (header-data split, a filler CQE per frame)
export ZN_NICSIM_MODEL=mlx5
cg fwd_mlx5_whole "fwd_rx_burst fwd_tx_burst fwd_tx_reap provide" -- "$BUILD/bin/zn-fwd" "${FWD[@]}"
cg fwd_mlx5_split "fwd_rx_burst fwd_tx_burst fwd_tx_reap provide" -- "$BUILD/bin/zn-fwd" \
	"${FWD[@]}" --buf-size 4096
unset ZN_NICSIM_MODEL
for r in "$R1" "$R2"; do
	cg "rx_$r" poll_a -- "$BUILD/tests/net_rx_cost" "$r" 64
done
for m in $OPS; do
	cg "ops_$m" "measured_submit measured_reap" -- "$BUILD/tests/cost_ops" $m "$ROUNDS"
done
cg tcp_send_zc "measured_submit measured_pass_b" -- "$BUILD/tests/cost_tcp" send_zc "$ROUNDS"
cg tcp_zcrx "measured_reap_a measured_refill_a" -- "$BUILD/tests/cost_tcp" zcrx "$ROUNDS"
wait
[ ! -e "$tmp/failed" ] || exit 1

# driver: --pace-us (above) makes zn-fwd sleep after each TX burst and each empty RX
# round, so that RX bursts come full and the model works while it sleeps
for run in whole split mlx5_whole mlx5_split; do
	rx=$(sed -n 's/^zn-fwd: [0-9]* sent, \([0-9]*\) received, 0 dropped, 0 mismatched.*/\1/p' \
		"$tmp/fwd_$run.txt")
	[ "${rx:-0}" -gt 0 ] || { echo "cost: zn-fwd ($run) lost frames" >&2; exit 1; }
	reap=$(per "$(field "$tmp/fwd_$run.sum" fwd_tx_reap ir)" "$rx")
	prov=$(per "$(field "$tmp/fwd_$run.sum" provide ir)" "$rx")
	case $run in
	whole) id=driver_whole desc="bnxt, whole frames" ;;
	split) id=driver_split desc="bnxt, header-data split" ;;
	mlx5_whole) id=driver_mlx5_whole desc="mlx5, cyclic RQ, 2 KiB buffers" ;;
	mlx5_split) id=driver_mlx5_split desc="mlx5, SHAMPO split, 4 KiB buffers" ;;
	esac
	row "$id" "driver RX+TX burst, $desc" "packet, burst 32" 60 "$rx" \
		"$rx frames; apart: TX completion reap $reap, the app's buffer provider $prov per packet" \
		"1:fwd_$run:fwd_rx_burst,fwd_tx_burst"
done

# the ring ops
for m in $OPS; do
	extra=$(sed -n 's/.* \([0-9]*\) extra polls$/\1/p' "$tmp/ops_$m.txt")
	[ "$extra" = 0 ] || note_extra="; $extra extra reap passes (the model was late)"
	ops=$((ROUNDS * 32))
	unit=requests
	[ $m = msgring ] && unit=messages
	note="$ops $unit${note_extra:-}"
	unset note_extra
	case $m in
	send_zc) row send_zc "UDP SEND_ZC, registered buffer, 64 B" "request, batch 32" 250 \
			"$ops" "$note; result and notification CQEs reaped" "1:ops_$m:measured_submit,measured_reap" ;;
	send) row send "UDP SEND (copy) from a zcnic DMA region, 64 B" "request, batch 32" null \
			"$ops" "$note" "1:ops_$m:measured_submit,measured_reap" ;;
	send_user) row send_user "UDP SEND (copy) from ordinary memory, 64 B" "request, batch 32" null \
			"$ops" "$note; its sys: the checked copy (process_vm_readv, core/sock/ucopy.c)" \
			"1:ops_$m:measured_submit,measured_reap" ;;
	msgring) row msg_ring "MSG_RING post to CQE seen by the target" "message, batch 32" 60 \
			"$ops" "$note" "1:ops_$m:measured_submit,measured_reap" ;;
	nop) row nop "NOP submit and reap" "request, batch 32" 30 \
			"$ops" "$note" "1:ops_$m:measured_submit,measured_reap" ;;
	esac
done

# zcrx: two round counts, the difference
frames() { sed -n 's/^net_rx_cost: \([0-9]*\) frames.*/\1/p' "$tmp/rx_$1.txt"; }
extra() { sed -n 's/.* \([0-9]*\) extra polls$/\1/p' "$tmp/rx_$1.txt"; }
f=$(($(frames "$R2") - $(frames "$R1")))
row zcrx "zcrx receive, 64 B UDP, RECV_ZC CQE + refill" "frame, burst 32" 150 "$f" \
	"rounds $R2 - $R1 = $f frames; extra polls $(extra "$R1")/$(extra "$R2")" \
	"1:rx_$R2:poll_a" "-1:rx_$R1:poll_a"

# TCP: "cost_tcp: MODE: R rounds, N requests, B bytes, G aggregates, S segments
# in them, F frames, passes A a B b (i idle)"
tcp() { sed -n "s/^cost_tcp: .* $1 \([0-9]*\) $2.*/\1/p" "$tmp/tcp_$3.txt"; }
reqs=$(tcp rounds, requests send_zc)
passes=$(sed -n 's/.*passes \(A [0-9]* B [0-9]* ([0-9]* idle)\)$/\1/p' "$tmp/tcp_send_zc.txt")
row tcp_send_zc "TCP SEND_ZC, 4 KiB, bnxt LSO+TPA on" "request, batch 32" null \
	"$reqs" "$reqs requests; prep to notification: TCP output, TX, completions, ACK input; passes $passes" \
	"1:tcp_send_zc:measured_submit,measured_pass_b"
bytes=$(tcp requests, bytes zcrx)
aggs=$(tcp bytes, aggregates zcrx)
inagg=$(tcp aggregates, segments zcrx)
frames=$(tcp "in them," frames zcrx)
segs=$((inagg + frames - aggs))
[ "${aggs:-0}" -gt 0 ] || { echo "cost: cost_tcp received no aggregate" >&2; exit 1; }
ir=$(($(field "$tmp/tcp_zcrx.sum" measured_reap_a ir) + $(field "$tmp/tcp_zcrx.sum" measured_refill_a ir)))
passes=$(sed -n 's/.*passes \(A [0-9]* B [0-9]* ([0-9]* idle)\)$/\1/p' "$tmp/tcp_zcrx.txt")
row tcp_zcrx "TCP zcrx receive, bnxt LSO+TPA on" \
	"aggregate" null "$aggs" \
	"$bytes bytes in $aggs aggregates ($frames frames, $segs segments): $(per "$ir" "$(per "$bytes" 1000000)") per MB, $(per "$ir" "$segs") per segment; passes $passes" \
	"1:tcp_zcrx:measured_reap_a,measured_refill_a"

python3 scripts/cost_cg.py table "$rows" "$OUT/cost.json"
echo "($OUT/cost.json; $(($(date +%s) - t0)) s)"
