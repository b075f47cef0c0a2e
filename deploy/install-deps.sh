#!/usr/bin/env bash
# Installs what building and testing ftb needs, from Debian's archive only.
# Idempotent: installs only the packages that are missing. Run as root.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java bazel-platforms  # the build (offline Bazel 4)
  g++ protobuf-compiler libprotobuf-dev             # compiler, wire protocol
  libzmq3-dev cppzmq-dev                            # transport
  libspdlog-dev libfmt-dev libcli11-dev             # logging, command lines
  libboost-test-dev pkg-config                      # unit, integration and install tests
  libfreeipmi-dev libipmimonitoring-dev openipmi    # ftb-ipmi (FreeIPMI), its BMC simulator
  libibverbs-dev ibverbs-providers                  # ftb-ib (libibverbs, rxe provider for the QEMU tier)
  prometheus-node-exporter                          # ftb-ib integration test: independent sysfs reader
  qemu-system-x86 cpio iproute2                     # ftb-ib QEMU tier (Debian kernel with Soft-RoCE; ip, rdma)
  openmpi-bin libopenmpi-dev libisal-dev            # mpi_bridge: Open MPI, ISA-L Reed-Solomon
  libsystemd-dev systemd                            # sd_notify in the daemons; systemd-analyze verify of deploy/*.service
  slurmctld slurmd slurm-client munge util-linux  # launcher_bridge lab: a Slurm cluster of netns nodes (nsenter)
  debootstrap                                       # the .deb install test's fresh Debian root
  prometheus-cpp-dev                                # metrics/: prometheus-cpp core (registry, metric types, text format)
  prometheus                                        # promtool: `promtool check metrics` on real scrapes in the suite
  debhelper help2man lintian                        # deploy/package-deb.sh (dh), man pages from --help, lintian_test
  systemd-container                                 # tests/system: systemd-nspawn boots that root with systemd
  clang-14 libclang-rt-14-dev llvm-14               # tests/fuzz: libFuzzer + ASan/UBSan runtimes, llvm-symbolizer for findings
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps: missing packages ${missing[*]}; run as root to install them" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
