#!/usr/bin/env bash
# `make run`: the main job. Shows the NICs zcnic can drive here, then moves
# verified traffic between two bnxt ports through the real driver: two NICs
# named by ZN_PORT0/ZN_PORT1 (PCI addresses bound to vfio-pci, cabled back to
# back), or by default a private zn-nicsim with two bnxt models on a pair wire.
# zn-fwd starts and stops that zn-nicsim itself, also on Ctrl-C.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
FRAMES=${ZN_RUN_FRAMES:-200000}

echo "== NICs on this machine (zn-devbind --status)"
"$BUILD/bin/zn-devbind" --status || true
echo

ports=()
if [ -n "${ZN_PORT0:-}" ] && [ -n "${ZN_PORT1:-}" ]; then
	echo "== zn-fwd on $ZN_PORT0 -> $ZN_PORT1"
	ports=(--port0 "$ZN_PORT0" --port1 "$ZN_PORT1")
else
	echo "== zn-fwd on zn-nicsim: two bnxt (BCM57508) models on a pair wire"
	echo "   (set ZN_PORT0/ZN_PORT1 to two PCI addresses to use real NICs)"
fi
# Every byte of every frame is checked; header-data split placement too.
ZN_LOG=${ZN_LOG:-warn} "$BUILD/bin/zn-fwd" "${ports[@]}" -n "$FRAMES" \
	-s 64,1500,9000 -q 2 --check-hds 2>&1 |
	grep -v '^zn-nicsim info'
exit "${PIPESTATUS[0]}"
