#!/usr/bin/env bash
# The kernel-VFIO bridge (libznvfio.so, LD_PRELOAD) over zn-nicsim: two bnxt
# models on a pair wire, shown as PCI devices 0000:3b:00.0 and 0000:3b:00.1.
#
#   sysfs: the listing gains exactly the two devices, and nothing changes
#     without ZN_VFIO_DEVICES; ids, class, config, driver and IOMMU group
#     links agree with the model's config space; real paths are untouched;
#     a device whose server is down is not shown, with one message;
#   zcnic's own kernel-VFIO back end (core/bus/vfio*.c, the code that drives
#     real NICs) through the bridge: zn-fwd by PCI address, frames of
#     60..9000 bytes byte-exact on 2 queues, header-data split;
#   afterwards: no DMA window or client left in the models, the private
#     tree removed.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
FWD=$BUILD/bin/zn-fwd
LIB=$PWD/$BUILD/lib/libznvfio.so
FRAMES=${ZN_BRIDGE_FRAMES:-5000}
WAIT_S=10
B0=0000:3b:00.0 B1=0000:3b:00.1

PRELOAD=$LIB
if [ "${SAN:-0}" = 1 ]; then
	# An ASan-built preload needs the ASan runtime first in every program,
	# and ASan's check of that order relaxed for the ASan-built ones.
	PRELOAD=$(${CC:-cc} -print-file-name=libasan.so):$LIB
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:verify_asan_link_order=0
fi

n=0 failed=0
. tests/integration/lib/tap.sh

tmp=$(mktemp -d /tmp/zn-bridge-test.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT


for b in "$SIM" "$FWD" "$LIB"; do
	if [ ! -e "$b" ]; then
		echo "not ok 1 - $b is built"
		exit 1
	fi
done

mkdir -p "$tmp/sim" "$tmp/t"
sim_pair_ready "$tmp/sim"
DEVS=$B0=vfio-user:$tmp/sim/bnxt0.sock,$B1=vfio-user:$tmp/sim/bnxt1.sock

# bridged CMD...: CMD under the bridge with both devices, private tree in $tmp/t
bridged() { TMPDIR=$tmp/t LD_PRELOAD=$PRELOAD ZN_VFIO_DEVICES=$DEVS "$@"; }
plain_pre() { TMPDIR=$tmp/t LD_PRELOAD=$PRELOAD "$@"; }

# ---- sysfs ----
real=$(ls -1 /sys/bus/pci/devices 2>/dev/null)
check "without ZN_VFIO_DEVICES the preload changes nothing in /sys/bus/pci/devices" \
	[ "$(plain_pre ls -1 /sys/bus/pci/devices 2>/dev/null)" = "$real" ]
want=$(printf '%s\n%s\n%s\n' "$real" $B0 $B1 | sed '/^$/d' | sort)
got=$(bridged ls -1 /sys/bus/pci/devices 2>/dev/null | sort)
check "with it, the listing is the real one plus $B0 and $B1" [ "$got" = "$want" ]

cfg=$(bridged od -An -tx2 -N4 /sys/bus/pci/devices/$B0/config | tr -s ' ')
ven=$(bridged cat /sys/bus/pci/devices/$B0/vendor)
dev=$(bridged cat /sys/bus/pci/devices/$B0/device)
check "vendor $ven and device $dev agree with the model's config space ($cfg)" \
	[ "$cfg" = " ${ven#0x} ${dev#0x}" ]
check "vendor is Broadcom (0x14e4), class is Ethernet (0x020000)" \
	bash -c "[ '$ven' = 0x14e4 ] && [ '$(bridged cat /sys/bus/pci/devices/$B0/class)' = 0x020000 ]"
drv=$(bridged readlink /sys/bus/pci/devices/$B1/driver)
grp=$(bridged readlink /sys/bus/pci/devices/$B1/iommu_group)
check "driver link names vfio-pci ($drv)" [ "${drv##*/}" = vfio-pci ]
check "iommu_group link names a group ($grp) that lists the device" \
	bash -c "[ -n '${grp##*/}' ] && bridged_ls() { TMPDIR=$tmp/t LD_PRELOAD=$PRELOAD ZN_VFIO_DEVICES=$DEVS ls -1 \"\$1\"; }; [ \"\$(bridged_ls /sys/kernel/iommu_groups/${grp##*/}/devices)\" = $B1 ]"
check "realpath of the group link is /sys/kernel/iommu_groups/${grp##*/}" \
	[ "$(bridged realpath /sys/bus/pci/devices/$B1/iommu_group)" = "/sys/kernel/iommu_groups/${grp##*/}" ]
check "6 BAR lines + ROM + 6 in resource, BAR0 sized" \
	bash -c "r=\$(TMPDIR=$tmp/t LD_PRELOAD=$PRELOAD ZN_VFIO_DEVICES=$DEVS cat /sys/bus/pci/devices/$B0/resource); [ \$(echo \"\$r\" | wc -l) = 13 ] && [ \"\$(echo \"\$r\" | head -n1 | cut -d' ' -f1)\" != 0x0000000000000000 ]"
check "/dev/vfio/vfio and /dev/vfio/${grp##*/} exist under the bridge" \
	bridged bash -c "test -e /dev/vfio/vfio && test -e /dev/vfio/${grp##*/}"
if [ -e /sys/bus/pci/devices/0000:00:00.0/vendor ]; then
	check "a real device reads the same through the bridge" \
		[ "$(bridged cat /sys/bus/pci/devices/0000:00:00.0/vendor)" = "$(cat /sys/bus/pci/devices/0000:00:00.0/vendor)" ]
fi
out=$(bridged "$BUILD/bin/zn-devbind" --status 2>&1)
check "zn-devbind --status (libpci over sysfs) shows both bound to vfio-pci, driven by zcnic's bnxt" \
	bash -c "[ \$(echo '$out' | grep -c '^0000:3b:00.[01] .*drv=vfio-pci iommu_group=[0-9]* .*zcnic=bnxt') = 2 ]"
out=$(TMPDIR=$tmp/t LD_PRELOAD=$PRELOAD ZN_VFIO_DEVICES=$B0=vfio-user:$tmp/sim/none.sock \
	ls -1 /sys/bus/pci/devices/$B0 2>&1 >/dev/null)
check "a device whose server is down is not shown, said in one line" \
	bash -c "[ \$(echo '$out' | grep -c 'cannot reach its vfio-user server') = 1 ]"
out=$(TMPDIR=$tmp/t LD_PRELOAD=$PRELOAD ZN_VFIO_DEVICES=bogus cat /proc/self/comm 2>&1)
check "a malformed ZN_VFIO_DEVICES is said once and the program runs" \
	bash -c "echo '$out' | grep -q 'is not BDF=vfio-user:PATH' && echo '$out' | grep -qx cat"

# ---- zcnic's kernel-VFIO back end through the bridge ----
t0=$(date +%s%N)
bridged "$FWD" --port0 $B0 --port1 $B1 -q 2 --mtu 9000 --sizes 60-9000 --frames "$FRAMES" \
	>"$tmp/fwd" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
sed 's/^/# /' "$tmp/fwd" | tail -n 4
check "zn-fwd by PCI address through the bridge: $FRAMES frames of 60..9000 bytes, exit 0 (rc $rc, $ms ms)" \
	[ $rc -eq 0 ]
check "zn-fwd: all $FRAMES received byte-exact, none dropped" \
	bash -c "[ '$(field sent "$tmp/fwd")' = $FRAMES ] && [ '$(field received "$tmp/fwd")' = $FRAMES ] && [ '$(field mismatched "$tmp/fwd")' = 0 ] && [ '$(field dropped "$tmp/fwd")' = 0 ]"
check "zn-fwd opened the devices through kernel VFIO, not vfio-user (no socket named)" \
	bash -c "grep -q '$B0 (bnxt' '$tmp/fwd' && ! grep -q 'vfio-user:' '$tmp/fwd'"
bridged "$FWD" --port0 $B0 --port1 $B1 --mtu 9000 --sizes 64,400,9000 --frames 1500 \
	--hds-thresh 256 --check-hds >"$tmp/hds" 2>&1
rc=$?
split=$(sed -n 's/.*; split \([0-9]\+\), whole \([0-9]\+\);.*/\1/p' "$tmp/hds")
whole=$(sed -n 's/.*; split \([0-9]\+\), whole \([0-9]\+\);.*/\2/p' "$tmp/hds")
check "header-data split at 256 through the bridge: 1000 split, 500 whole, every byte placed (rc $rc; $split, $whole)" \
	bash -c "[ $rc -eq 0 ] && [ '$split' = 1000 ] && [ '$whole' = 500 ] && [ '$(field placement "$tmp/hds")' = 0 ]"

bridged "$FWD" --port0 vfio-user:$tmp/sim/bnxt0.sock --port1 vfio-user:$tmp/sim/bnxt1.sock \
	--sizes 64,1500 --frames 1000 >"$tmp/plain" 2>&1
rc=$?
check "under the bridge, a program using no bridged device (zn-fwd over vfio-user) runs as without it (rc $rc)" \
	bash -c "[ $rc -eq 0 ] && [ '$(field received "$tmp/plain")' = 1000 ] && [ '$(field mismatched "$tmp/plain")' = 0 ] && ! grep -q vfio-bridge '$tmp/plain'"

if stats_now; then
	check "models: no DMA window left ($(stat bnxt0.dma.windows), $(stat bnxt1.dma.windows)), no client connected" \
		bash -c "[ '$(stat bnxt0.dma.windows)' = 0 ] && [ '$(stat bnxt1.dma.windows)' = 0 ] && [ '$(stat bnxt0.connected)' = 0 ] && [ '$(stat bnxt1.connected)' = 0 ]"
else
	nok "zn-nicsim wrote its counters on SIGUSR1"
fi
dead=$(sh -c 'echo $$')
mkdir -p "$tmp/t/znvfio.$dead.stale/sys"
bridged cat /sys/bus/pci/devices/$B0/vendor >/dev/null
check "every private tree was removed at exit, a killed process's by the next one" \
	[ -z "$(ls -A "$tmp/t")" ]

kill -TERM "$pid"
check "zn-nicsim stops on SIGTERM" wait_for gone "$pid"
wait "$pid"; rc=$?
pid=
check "zn-nicsim exit status 0" [ $rc -eq 0 ]
echo "1..$n"
[ $failed -eq 0 ]
