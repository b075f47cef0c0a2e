#!/usr/bin/env bash
# ftb-ib's QEMU tier: the real kernel path. Boots Debian's own kernel (which has
# Soft-RoCE, rdma_rxe) under QEMU software emulation with no network card, with
# an initramfs holding busybox, ftb-agent, ftbctl, ftb-ib, the host's
# libibverbs and rxe provider, iproute2's ip and rdma, and the RDMA modules.
# guest_init.sh drives an rxe device and prints FTBIB-CHECK lines; this script
# fails unless every check passed.
#
# Everything comes from Debian's archive: the kernel and busybox-static are
# fetched with `apt-get download` and unpacked with dpkg -x into the cache
# ($FTB_IB_QEMU_CACHE, default /var/cache/ftb-ib-qemu), never installed.
#
# By hand:  bazel build //components/ib:ftb-ib //agent:ftb-agent //cli:ftbctl
#           components/ib/qemu/qemu_tier.sh bazel-bin/agent/ftb-agent bazel-bin/cli/ftbctl \
#               bazel-bin/components/ib/ftb-ib
# Under Bazel: bazel test //components/ib/qemu:qemu_tier_test
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -eq 3 ]]; then
  agent=$1 ftbctl=$2 ftbib=$3
else
  # Under bazel test: the binaries are in the runfiles.
  runfiles=${RUNFILES_DIR:-$PWD}
  [[ -d $runfiles/ftb ]] && runfiles=$runfiles/ftb
  agent=$runfiles/agent/ftb-agent ftbctl=$runfiles/cli/ftbctl ftbib=$runfiles/components/ib/ftb-ib
  here=$runfiles/components/ib/qemu
fi
for b in "$agent" "$ftbctl" "$ftbib"; do
  [[ -x $b ]] || { echo "qemu_tier: $b is not an executable (build it first)" >&2; exit 2; }
done
for tool in qemu-system-x86_64 cpio apt-get dpkg objcopy ip rdma; do
  command -v "$tool" > /dev/null ||
    { echo "qemu_tier: $tool missing: run deploy/install-deps.sh" >&2; exit 2; }
done
[[ -e /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so ]] ||
  { echo "qemu_tier: the rxe provider is missing: run deploy/install-deps.sh (ibverbs-providers)" >&2; exit 2; }

cache=${FTB_IB_QEMU_CACHE:-/var/cache/ftb-ib-qemu}
mkdir -p "$cache" 2> /dev/null && [[ -w $cache ]] || cache=${TEST_TMPDIR:-/tmp}/ftb-ib-qemu
mkdir -p "$cache/debs"

# --- The kernel and busybox from Debian's archive (once per kernel version) ---
kpkg=$(apt-cache depends linux-image-amd64 2> /dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
[[ -n $kpkg ]] || { echo "qemu_tier: apt-cache cannot resolve linux-image-amd64 (apt-get update?)" >&2; exit 2; }
unpacked=$cache/$kpkg
if [[ ! -e $unpacked/.complete ]]; then
  echo "qemu_tier: fetching $kpkg and busybox-static from Debian's archive"
  (cd "$cache/debs" && apt-get download -q "$kpkg" busybox-static > /dev/null 2>&1) ||
    { echo "qemu_tier: apt-get download $kpkg busybox-static failed" >&2; exit 2; }
  rm -rf "$unpacked" && mkdir -p "$unpacked"
  dpkg -x "$(ls "$cache"/debs/"${kpkg}"_*.deb | tail -1)" "$unpacked/kernel"
  dpkg -x "$(ls "$cache"/debs/busybox-static_*.deb | tail -1)" "$unpacked/busybox"
  touch "$unpacked/.complete"
fi
vmlinuz=$(ls "$unpacked"/kernel/boot/vmlinuz-*)
moddir=$(ls -d "$unpacked"/kernel/lib/modules/*/kernel)

# --- The initramfs ---
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/libibverbs.d,modules,proc,sys,dev,tmp,run}
cp "$unpacked/busybox/bin/busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$here/guest_init.sh" "$root/init"
chmod +x "$root/init"
cp "$agent" "$root/usr/bin/ftb-agent"
cp "$ftbctl" "$root/usr/bin/ftbctl"
cp "$ftbib" "$root/usr/bin/ftb-ib"
cp "$(command -v ip)" "$root/usr/sbin/ip"
cp "$(command -v rdma)" "$root/usr/sbin/rdma"
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
provider=/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
# Every shared library the binaries and the provider need, at the host's paths.
for elf in "$root"/usr/bin/* "$root"/usr/sbin/* "$provider"; do
  ldd "$elf" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'
done | sort -u | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
mkdir -p "$root$(dirname "$provider")"
cp -L "$provider" "$root$provider"

# Modules: rdma_rxe and veth with their dependencies, dependencies first.
declare -A wanted=()
order=()
add_module() {
  local name=$1 file deps
  [[ -n ${wanted[$name]:-} ]] && return
  wanted[$name]=1
  file=$(find "$moddir" -name "$name.ko" -o -name "$name.ko.xz" | head -1)
  [[ -n $file ]] || { echo "qemu_tier: module $name not in $kpkg" >&2; exit 2; }
  deps=$(objcopy -O binary --only-section=.modinfo "$file" /dev/stdout | tr '\0' '\n' |
         sed -n 's/^depends=//p' | tr ',' ' ')
  for d in $deps; do add_module "$d"; done
  cp "$file" "$root/modules/"
  order+=("$(basename "$file")")
}
add_module veth
add_module rdma_rxe
# rxe asks the crypto API for "crc32" by name (a module request, not a symbol
# dependency, and the guest has no modprobe): load the generic one up front.
add_module crc32_generic
printf '%s\n' "${order[@]}" > "$root/modules/order"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"

# --- Boot ---
# TCG (software emulation): KVM is not usable on these machines. No network card.
echo "qemu_tier: booting $(basename "$vmlinuz") with $(du -h "$work/initrd.gz" | cut -f1) initramfs"
start=$(date +%s)
console=$work/console.log
timeout 600 qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 -nic none \
  -kernel "$vmlinuz" -initrd "$work/initrd.gz" \
  -append "console=ttyS0 rdinit=/init panic=-1 quiet loglevel=3" \
  -display none -serial "file:$console" -monitor none -no-reboot || true
echo "qemu_tier: guest ran $(($(date +%s) - start)) s"

grep '^FTBIB' "$console" | tr -d '\r' || true
cp "$console" "$cache/last-console.log"  # for a look after a failure
checks=$(grep -c '^FTBIB-CHECK' "$console" || true)
failed=$(grep -c '^FTBIB-CHECK .* FAILED' "$console" || true)
if ! grep -q '^FTBIB-DONE' "$console"; then
  echo "qemu_tier: the guest did not finish; its console:" >&2
  tail -50 "$console" >&2
  exit 1
fi
echo "qemu_tier: $((checks - failed)) of $checks guest checks passed"
[[ $failed -eq 0 && $checks -gt 0 ]]
