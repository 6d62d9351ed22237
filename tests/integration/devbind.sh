#!/usr/bin/env bash
# zn-devbind against fake sysfs trees (built by $BUILD/tests/mkfakesysfs):
# status listing, dry-run and real writes, refusals, usage and exit codes.
# TAP lines; exits non-zero when a check fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin/zn-devbind
MK=$BUILD/tests/mkfakesysfs

n=0 failed=0 roots=()
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check()  { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diff <(echo "$3") <(echo "$2") | sed 's/^/#   /'; fi; }
cleanup() { for r in "${roots[@]}"; do case $r in */zn-fakesys-*) rm -rf -- "$r";; esac; done; }
trap cleanup EXIT

for f in "$BIN" "$MK"; do
	[ -x "$f" ] || { echo "not ok 1 - $f is not built (run make tests)"; exit 1; }
done
# Sets the variable named $1 to a new tree's root (not in a subshell, so cleanup sees it).
mkroot() {
	local r
	r=$("$MK" "${@:2}") || { echo "not ok 1 - mkfakesysfs ${*:2} failed"; exit 1; }
	roots+=("$r")
	printf -v "$1" '%s' "$r"
}
mkroot ROOT
mkroot NOVFIO --no-vfio
mkroot EMPTY --empty
run() { ZN_SYSFS_ROOT=$ROOT "$BIN" "$@"; }

# --- usage and exit codes ---
out=$("$BIN" --help); rc=$?
check "--help exits 0" "$rc" 0
if grep -q '^Usage: zn-devbind' <<<"$out" && grep -q '^Examples:' <<<"$out"; then
	ok "--help prints usage and examples"; else not_ok "--help prints usage and examples"; fi
err=$("$BIN" --bogus 2>&1 >/dev/null); rc=$?
check "bad option exits 2" "$rc" 2
check "bad option message" "$err" "zn-devbind: unknown option '--bogus'; run 'zn-devbind --help' for usage"
run -b >/dev/null 2>&1; check "--bind without a device exits 2" $? 2
run -b -u 5e:00.0 >/dev/null 2>&1; check "--bind with --unbind exits 2" $? 2
run 5e:00.0 >/dev/null 2>&1; check "a stray address without --bind exits 2" $? 2
run --reprobe >/dev/null 2>&1; check "--reprobe without --unbind exits 2" $? 2

# --- status ---
want_status="Network devices using vfio-pci
==============================
0000:3b:00.0 'ConnectX-6 Dx' 15b3:101d drv=vfio-pci iommu_group=12 numa_node=0 zcnic=mlx5

Network devices using kernel driver
===================================
0000:5e:00.0 'BCM57508 NetXtreme-E 200G' 14e4:1750 drv=bnxt_en iommu_group=7 numa_node=1 zcnic=bnxt

Other network devices
=====================
0000:af:00.1 'BCM57414 NetXtreme-E 25G' 14e4:16d7 drv=none iommu_group=none numa_node=none zcnic=bnxt"
out=$(run --status); rc=$?
check "--status exits 0" "$rc" 0
check "--status lists the NICs by group (no NVMe)" "$out" "$want_status"
out=$(run); check "no arguments means --status" "$out" "$want_status"
out=$(ZN_SYSFS_ROOT=$EMPTY "$BIN" --status); rc=$?
check "empty PCI bus: exit 0" "$rc" 0
check "empty PCI bus: one clear line" "$out" "no PCI devices found (nothing under $EMPTY/bus/pci/devices)"
out=$(ZN_SYSFS_ROOT=$ROOT/nonexistent "$BIN"); rc=$?
check "no PCI bus at all: exit 0" "$rc" 0
check "no PCI bus at all: one clear line" "$out" "no PCI devices found (nothing under $ROOT/nonexistent/bus/pci/devices)"

# --- bind, dry run ---
B=0000:5e:00.0
out=$(run --bind --dry-run 5e:00.0); rc=$?
check "--bind --dry-run exits 0" "$rc" 0
check "--bind --dry-run prints the three writes" "$out" "would write \"vfio-pci\" to $ROOT/bus/pci/devices/$B/driver_override
would write \"$B\" to $ROOT/bus/pci/drivers/bnxt_en/unbind
would write \"$B\" to $ROOT/bus/pci/drivers_probe"
written=$(cat "$ROOT/bus/pci/devices/$B/driver_override" "$ROOT/bus/pci/drivers/bnxt_en/unbind" \
	"$ROOT/bus/pci/drivers_probe")
check "--dry-run wrote nothing" "$written" ""
out=$(run -b vfio-pci -n $B 3b:00.0); rc=$?
check "dpdk-style '-b vfio-pci' with two devices exits 0" "$rc" 0
check "second device already bound" "$(tail -n1 <<<"$out")" "0000:3b:00.0 already bound to vfio-pci"
out=$(run --unbind --reprobe --dry-run 3b:00.0)
check "--unbind --reprobe --dry-run prints the writes" "$out" "would write \"0000:3b:00.0\" to $ROOT/bus/pci/drivers/vfio-pci/unbind
would write \"\\n\" to $ROOT/bus/pci/devices/0000:3b:00.0/driver_override
would write \"0000:3b:00.0\" to $ROOT/bus/pci/drivers_probe"

# --- refusals ---
err=$(run --bind 01:00.0 2>&1); rc=$?
check "non-NIC: exit 1" "$rc" 1
check "non-NIC: message" "$err" "zn-devbind: error: 0000:01:00.0 is not a network device (class 010802); use --force to bind it anyway"
err=$(run --bind 0000:99:00.0 2>&1); rc=$?
check "missing device: exit 1" "$rc" 1
check "missing device: message" "$err" "zn-devbind: error: no PCI device 0000:99:00.0 ($ROOT/bus/pci/devices/0000:99:00.0 does not exist)"
err=$(ZN_SYSFS_ROOT=$NOVFIO "$BIN" --bind $B 2>&1); rc=$?
check "vfio-pci not loaded: exit 1" "$rc" 1
check "vfio-pci not loaded: says modprobe" "$err" "zn-devbind: error: vfio-pci is not loaded (no $NOVFIO/bus/pci/drivers/vfio-pci): run 'modprobe vfio-pci' first"
err=$(run --bind eth0 2>&1); rc=$?
check "not an address: exit 1" "$rc" 1

# --- a real bind on plain files: the writes land, the kernel's part is missing ---
err=$(run --bind $B 2>&1 >/dev/null); rc=$?
check "bind on a fake tree fails its check: exit 1" "$rc" 1
check "bind on a fake tree: message" "$err" "zn-devbind: error: $B: vfio-pci did not take the device (driver now: bnxt_en); see dmesg"
check "driver_override got vfio-pci, then the undo" "$(cat "$ROOT/bus/pci/devices/$B/driver_override")" "vfio-pci"
check "driver_override bytes" "$(od -An -c "$ROOT/bus/pci/devices/$B/driver_override" | tr -s ' ')" " v f i o - p c i \n"
check "bnxt_en/unbind got the address" "$(cat "$ROOT/bus/pci/drivers/bnxt_en/unbind")" "$B"
check "drivers_probe got the address twice (probe, undo)" "$(cat "$ROOT/bus/pci/drivers_probe")" "$B$B"
check "vfio-pci/bind untouched" "$(cat "$ROOT/bus/pci/drivers/vfio-pci/bind")" ""

# --- --status after --bind shows the (unchanged) state; exit reflects the failure ---
out=$(run -b -s 0000:3b:00.0); rc=$?
check "--bind --status on an already bound device exits 0" "$rc" 0
if grep -qx "Network devices using vfio-pci" <<<"$out" && grep -q "^0000:3b:00.0 already bound to vfio-pci$" <<<"$out"; then
	ok "--bind --status prints the result and the status"; else not_ok "--bind --status prints the result and the status"; fi

echo "1..$n"
[ "$failed" -eq 0 ]
