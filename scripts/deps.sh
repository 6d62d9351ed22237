#!/usr/bin/env bash
# Installs the Debian packages zcnic needs to build and test, only those missing.
# One list, used by `make run` and `make test`, so that a fresh machine needs nothing by hand.
# `deps.sh dpdk` installs the DPDK group instead (make test-dpdk): a foreign driver is needed
# only by the tests that run it, not by every build.
set -euo pipefail

PKGS=(
  build-essential pkg-config
  libpci-dev libnuma-dev libcmocka-dev libjson-c-dev
  clang libclang-rt-14-dev   # libFuzzer targets (make fuzz)
  iproute2                   # network namespaces for integration tests
  iputils-ping               # ping from a namespace (net_kernel_peer.sh)
  valgrind                   # callgrind: instructions per packet (bnxt_port.sh)
  liburing-dev               # zn-bench: the kernel io_uring path, measured against zcnic
  gnuplot-nox                # zn-bench: the requests/s plot (SVG)
  python3                    # tests: zn-bench's JSON/CSV checked (zn_bench.sh, zn_run.sh)
  procps                     # tests: pgrep for leftover processes
  libibverbs-dev             # rdma-core headers: the mlx5 DevX transport (loaded with dlopen at run time)
  libpcap-dev                # zn-nicsim --pcap writes captures with libpcap
  tcpdump                    # tests: the captures read back (nicsim_pcap.sh)
)
case "${1:-}" in
  "") ;;
  dpdk)
    PKGS=(
      dpdk-dev                 # /usr/bin/dpdk-testpmd (Debian 12 ships it here, not in dpdk)
      librte-net-bnxt23        # the bnxt PMD itself (a plugin testpmd loads from the driver dir)
    ) ;;
  *) echo "deps: unknown group '$1' (known: dpdk)" >&2; exit 2 ;;
esac
[ "${ZN_DEPS_EXTRA:-}" ] && read -r -a extra <<<"$ZN_DEPS_EXTRA" && PKGS+=("${extra[@]}")

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have stale or empty package lists.
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
