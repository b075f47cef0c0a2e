#!/bin/sh
# /init of the QEMU tier's guest (busybox sh, Debian's kernel): loads Soft-RoCE,
# runs a real ftb-agent, ftbctl watch and ftb-ib on the real libibverbs, drives
# an rxe device through add, link down/up, GID change and removal, and prints
# one "FTBIB-CHECK <name> ok|FAILED" line per expectation on the serial console
# for qemu_tier.sh to parse. Never returns: powers the guest off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp /run/ftb
mount -t tmpfs tmp /tmp

say() { echo "FTBIB: $*"; }
# Debian's busybox shell runs its own applets before searching PATH; its ip
# cannot make veth pairs, so iproute2's is called by path.
ip() { /usr/sbin/ip "$@"; }
failures=0
check() {  # check NAME CONDITION...
  name=$1; shift
  if "$@"; then echo "FTBIB-CHECK $name ok"; else echo "FTBIB-CHECK $name FAILED"; failures=$((failures + 1)); fi
}
# Polls (every 0.1 s, up to $2 s) until the event log has a line matching $1.
await() {
  i=0
  while [ "$i" -lt $(($2 * 10)) ]; do
    grep -q -- "$1" /tmp/events.json && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
finish() {
  say "events seen:"
  sed 's/^/FTBIB-EVENT /' /tmp/events.json
  say "ftb-ib log:"
  sed 's/^/FTBIB-LOG /' /tmp/ftb-ib.log
  echo "FTBIB-DONE failures=$failures"
  poweroff -f
}

say "kernel $(uname -r), up $(cut -d" " -f1 /proc/uptime) s"
for m in $(cat /modules/order); do insmod "/modules/$m" || say "insmod $m failed"; done
ip link set lo up
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up

export FTB_AGENT_ENDPOINT=ipc:///run/ftb/agent.sock
ftb-agent --ipc-endpoint "$FTB_AGENT_ENDPOINT" --tcp-endpoint tcp://127.0.0.1:0 \
  --ready-file /run/ftb/ready > /tmp/agent.log 2>&1 &
i=0; while [ ! -e /run/ftb/ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
check agent_ready test -e /run/ftb/ready
: > /tmp/events.json
# --last replays what the agent published before the subscription took hold.
ftbctl --json watch --last 1000 --filter 'event_space=FTB.IB.*' >> /tmp/events.json 2>/tmp/watch.log &

# Before any rxe device: no adapters, said once.
ftb-ib --interval-ms 1000 --log-level info > /tmp/ftb-ib.log 2>&1 &
check no_adapters_at_start await 'FTB_IB_ADAPTER_UNAVAILABLE.*NUM_ADAPTERS:0' 60

rdma link add rxe0 type rxe netdev veth0 2>&1 | sed 's/^/FTBIB: rdma: /'
say "rdma links: $(rdma link show 2>&1 | tr '\n' ' ')"
say "uverbs: $(ls /sys/class/infiniband_verbs /dev/infiniband 2>&1 | tr '\n' ' ')"
check adapter_hot_added await 'FTB_IB_ADAPTER_AVAILABLE.*NUM_ADAPTERS:1' 30
check port_info await 'FTB_IB_PORT_INFO.*HCA:rxe0 PORT:1 STATE:PORT_ACTIVE' 30

ip link set veth0 down
check port_err_async await 'FTB_IB_PORT_ERR.*HCA:rxe0 PORT:1.*source=async' 30
ip link set veth0 up
check port_active_async await 'FTB_IB_PORT_ACTIVE.*HCA:rxe0 PORT:1.*source=async' 30

ip addr add fe80::1234/64 dev veth0
check gid_change_async await 'FTB_IB_EVENT_GID_CHANGE.*HCA:rxe0 PORT:1.*source=async' 30

# Removal blocks in the kernel until every context on rxe0 is closed: ftb-ib
# must notice at its next rescan and close its context.
start=$(cut -d' ' -f1 /proc/uptime)
rdma link delete rxe0
end=$(cut -d' ' -f1 /proc/uptime)
say "rdma link delete rxe0 took $(awk "BEGIN{print $end - $start}") s"
check adapter_removed await 'FTB_IB_ADAPTER_UNAVAILABLE.*HCA:rxe0' 30
check monitor_still_running kill -0 "$(pidof ftb-ib)"

say "done after $(cut -d" " -f1 /proc/uptime) s"
finish
