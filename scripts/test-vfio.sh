#!/usr/bin/env bash
# make test-vfio: core/bus's kernel VFIO back end against a real Linux VFIO
# stack, in QEMU guests with a virtual IOMMU (intel-iommu), QEMU's edu device
# and an e1000e (for MSI-X).
#
#   1. host packages (no recommends): qemu-system-x86 busybox-static cpio kmod
#   2. the kernel linux-image-amd64 points to, resolved now, fetched with
#      apt-get download and unpacked (never installed) into $ZN_VFIO_CACHE
#   3. the guest test programs, linked statically against libzcnic.a (or,
#      when a library has no static archive, dynamically, with the shared
#      libraries copied into the initramfs)
#   4. an initramfs: busybox-static, the VFIO and e1000e modules in dependency
#      order, the programs, tests/vfio-guest/init
#   5. two guests under a hard timeout: "iommu" (the tests) and "noiommu" (no
#      vIOMMU: the back end must refuse clearly)
# Passes only when every guest printed "RESULT: PASS". Re-prints the guests'
# ok/not ok lines and ends with one "N passed, N failed" line.
#
# Environment: ZN_VFIO_CACHE (default .cache/test-vfio), ZN_VFIO_TIMEOUT
# (seconds per guest, default 180), ZN_VFIO_SERIAL=1 (boot the guests one
# after the other; default: both at once, QEMU TCG uses one core each).
# Facts and measurements behind the command lines: hw-docs/vfio.md, "Tested on a real kernel".
set -uo pipefail
cd "$(dirname "$0")/.."

CACHE=${ZN_VFIO_CACHE:-.cache/test-vfio}
TIMEOUT=${ZN_VFIO_TIMEOUT:-180}
BUILD_DIR=build                     # static links need objects without ASan
OUT=$BUILD_DIR/vfio-guest
HOST_PKGS="qemu-system-x86 busybox-static cpio kmod"
GUEST_PROGS="edu_test e1000e_msix_test vfio_error_test"
GUEST_MODULES="vfio_iommu_type1 vfio-pci e1000e"
GUEST_MEM_MB=512
# intel_iommu=on: Debian's kernel leaves the Intel IOMMU off by default.
# panic=-1 with -no-reboot: a guest panic ends QEMU at once.
# no_timer_check: under TCG on a loaded 2-core host the early IO-APIC timer
# check can miss its window and panic ("timer doesn't work through
# Interrupt-remapped IO-APIC"); the timer works, the check is just too eager.
KERNEL_ARGS="console=ttyS0 panic=-1 quiet loglevel=4 no_timer_check"

t_start=$(date +%s.%N)
say() { echo "test-vfio: $*"; }
die() { echo "test-vfio: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# --- 1. host packages -------------------------------------------------------
ZN_DEPS_EXTRA="$HOST_PKGS" scripts/deps.sh || die "could not install $HOST_PKGS"

# --- 2. guest kernel --------------------------------------------------------
resolve_kernel() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
kpkg=$(resolve_kernel)
if [ -z "$kpkg" ]; then
	$SUDO apt-get update -qq >/dev/null 2>&1
	kpkg=$(resolve_kernel)
fi
[ -n "$kpkg" ] || die "cannot resolve the package linux-image-amd64 depends on (apt-cache depends linux-image-amd64)"
kver=${kpkg#linux-image-}
kroot=$CACHE/$kpkg/root
if [ ! -f "$CACHE/$kpkg/.ready" ]; then
	t=$(date +%s.%N)
	# The mirror keeps only the newest ABI: drop kernels it no longer points to.
	rm -rf "$CACHE"/linux-image-*
	mkdir -p "$CACHE/$kpkg/deb" "$kroot"
	fetch() { (cd "$CACHE/$kpkg/deb" && apt-get download -q "$kpkg" >/dev/null 2>&1); }
	if ! fetch; then
		$SUDO apt-get update -qq >/dev/null 2>&1
		fetch || die "apt-get download $kpkg failed"
	fi
	# Only the kernel image and its modules; modules.dep is made by the
	# package's postinst, not shipped, hence depmod.
	dpkg-deb --fsys-tarfile "$CACHE/$kpkg"/deb/*.deb |
		tar -x -C "$kroot" --wildcards "./boot/vmlinuz-$kver" "./lib/modules/$kver/*" ||
		die "unpacking $kpkg failed"
	depmod -b "$kroot" "$kver" || die "depmod -b $kroot $kver failed"
	rm -rf "$CACHE/$kpkg/deb"
	touch "$CACHE/$kpkg/.ready"
	say "fetched $kpkg in $(elapsed "$t") s"
fi
kernel=$kroot/boot/vmlinuz-$kver
[ -f "$kernel" ] || die "$kernel is missing; remove $CACHE and retry"

# --- 3. guest programs, static -------------------------------------------------
mkdir -p "$OUT/bin"
rm -f "$OUT"/bin/*
objs=""
for p in $GUEST_PROGS; do objs="$objs $BUILD_DIR/obj/tests/progs/$p.o"; done
make --no-print-directory -s -j2 BUILD=$BUILD_DIR SAN=0 "$BUILD_DIR/lib/libzcnic.a" $objs ||
	die "building libzcnic.a and the guest programs failed"
# The libraries the Makefile links with, less those without a static archive.
ldlibs=$(echo 'zn-print-ldlibs: ; @echo $(LDLIBS)' | make -s --no-print-directory -f Makefile -f - zn-print-ldlibs)
static_libs=
for l in $ldlibs; do
	a=lib${l#-l}.a
	[ "${l#-l}" = "$l" ] || [ "$(${CC:-cc} -print-file-name="$a")" != "$a" ] && static_libs="$static_libs $l"
done
dynamic=0
for p in $GUEST_PROGS; do
	# glibc warns that libnuma's getaddrinfo needs NSS at run time: unused here.
	msg=$(${CC:-cc} -static "$BUILD_DIR/obj/tests/progs/$p.o" "$BUILD_DIR/lib/libzcnic.a" \
		$static_libs -o "$OUT/bin/$p" 2>&1) && continue
	# Code that needs a library without a static archive (Debian has no
	# libpci.a) got pulled in: link against the shared libraries and carry
	# them in the initramfs.
	echo "test-vfio: static link of $p failed ($(grep -m1 -o 'undefined reference to .*' <<<"$msg" ||
		echo "${msg##*$'\n'}")); linking it dynamically"
	${CC:-cc} "$BUILD_DIR/obj/tests/progs/$p.o" "$BUILD_DIR/lib/libzcnic.a" $ldlibs \
		-o "$OUT/bin/$p" || die "linking $p failed"
	dynamic=1
done

# --- 4. initramfs -------------------------------------------------------------
build_initramfs() { # $1 output
	local work ko name
	work=$(mktemp -d)
	mkdir -p "$work/bin" "$work/dev" "$work/proc" "$work/sys" "$work/tmp" "$work/lib/modules"
	# busybox-static's: the initramfs has no libc for a dynamic one.
	cp /bin/busybox "$work/bin/busybox"
	cp "$OUT"/bin/* "$work/bin/"
	if [ "$dynamic" = 1 ]; then
		# The loader and every library at the path the binaries expect.
		ldd "$OUT"/bin/* 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
			sort -u | while read -r lib; do cp -L --parents "$lib" "$work/"; done
	fi
	cp tests/vfio-guest/init "$work/init"
	chmod 755 "$work/init" "$work"/bin/*
	: >"$work/lib/modules/load-order"
	# -a: without it --show-depends silently takes only the first module.
	modprobe -d "$kroot" -S "$kver" -a --show-depends $GUEST_MODULES |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$work/mods" ||
		{ rm -rf "$work"; return 1; }
	while read -r ko; do
		name=$(basename "$ko")
		case $name in
		*.ko.xz) xz -dc "$ko" >"$work/lib/modules/${name%.xz}"; name=${name%.xz} ;;
		*.ko.zst) zstd -dqc "$ko" >"$work/lib/modules/${name%.zst}"; name=${name%.zst} ;;
		*) cp "$ko" "$work/lib/modules/$name" ;;
		esac
		echo "$name" >>"$work/lib/modules/load-order"
	done <"$work/mods"
	rm "$work/mods"
	# Uncompressed: gunzip under TCG costs more than it saves.
	(cd "$work" && find . | cpio -o -H newc --owner=0:0 --quiet) >"$1"
	local rc=$?
	rm -rf "$work"
	return $rc
}
build_initramfs "$OUT/initramfs.cpio" || die "building the initramfs failed"

# --- 5. guests ----------------------------------------------------------------
# TCG only: /dev/kvm on these machines is kvm-pvm, which cannot run a stock
# kernel (it hangs or QEMU aborts). kernel-irqchip=split is ignored by TCG and
# keeps the line valid under real KVM, where intremap=on needs it.
boot() { # $1 name, $2 extra kernel args, $3... extra QEMU args
	local name=$1 args=$2 t
	shift 2
	t=$(date +%s.%N)
	timeout -k 5 "$TIMEOUT" qemu-system-x86_64 \
		-accel tcg -machine q35,kernel-irqchip=split -cpu max \
		-m $GUEST_MEM_MB -smp 1 "$@" \
		-kernel "$kernel" -initrd "$OUT/initramfs.cpio" \
		-append "$KERNEL_ARGS zn.mode=$name $args" \
		-nographic -nic none -no-reboot </dev/null >"$OUT/$name.raw.log" 2>&1
	echo $? >"$OUT/$name.rc"
	elapsed "$t" >"$OUT/$name.secs"
}
IOMMU_GUEST=(iommu "intel_iommu=on" -device intel-iommu,intremap=on,caching-mode=on
	     -device edu -device e1000e)
NOIOMMU_GUEST=(noiommu "" -device edu)
rm -f "$OUT"/*.log "$OUT"/*.rc "$OUT"/*.secs
if [ "${ZN_VFIO_SERIAL:-0}" = 1 ]; then
	boot "${IOMMU_GUEST[@]}"
	boot "${NOIOMMU_GUEST[@]}"
else
	boot "${IOMMU_GUEST[@]}" &
	pid=$!
	boot "${NOIOMMU_GUEST[@]}"
	wait $pid
fi

# A guest that panicked while booting, before any check ran, says nothing
# about our code: boot it once more (the machine may have been starved).
for g in IOMMU_GUEST NOIOMMU_GUEST; do
	declare -n spec=$g
	name=${spec[0]}
	if ! grep -aq -E '^(not )?ok |^RESULT:' "$OUT/$name.raw.log" &&
	   grep -aq 'Kernel panic' "$OUT/$name.raw.log"; then
		say "guest $name panicked while booting; booting it once more"
		boot "${spec[@]}"
	fi
	unset -n spec
done

# --- 6. results -----------------------------------------------------------------
passed=0 failed=0
for g in iommu noiommu; do
	# The serial console writes CR LF; CI's parsers want plain lines.
	tr -d '\r' <"$OUT/$g.raw.log" >"$OUT/$g.log"
	rc=$(cat "$OUT/$g.rc") secs=$(cat "$OUT/$g.secs")
	echo "# guest $g (${secs} s, qemu exit $rc)"
	grep -a -E '^(not )?ok |^# ' "$OUT/$g.log"
	p=$(grep -a -c '^ok ' "$OUT/$g.log") f=$(grep -a -c '^not ok ' "$OUT/$g.log")
	if grep -aq '^RESULT: FAIL' "$OUT/$g.log"; then
		[ "$f" -eq 0 ] && { echo "not ok - guest $g: RESULT: FAIL"; f=1; }
	elif ! grep -aq '^RESULT: PASS' "$OUT/$g.log"; then
		# No verdict: QEMU died, the guest panicked or hung.
		why="no RESULT line, qemu exit status $rc"
		[ "$rc" = 124 ] || [ "$rc" = 137 ] && why="killed after ${TIMEOUT} s"
		grep -aq 'Kernel panic' "$OUT/$g.log" && why="guest kernel panic"
		echo "not ok - guest $g: $why (log: $OUT/$g.log)"
		f=$((f + 1))
		{ grep -a -E '^qemu|Kernel panic' "$OUT/$g.log" | head -n 5
		  grep -a -vE '^(RAX|RSI|R8 |R12|RIP|[ECDFGS]S |LDT|TR |GDT|IDT|CR[0-4]|DR[0-7]|EFER|FCW|FPR|YMM)' \
			"$OUT/$g.log" | tail -n 20; } | sed 's/^/    /'
	fi
	passed=$((passed + p)) failed=$((failed + f))
done
say "kernel $kver, total $(elapsed "$t_start") s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
