# ipmi_sim inside the booted container as a systemd unit (ftb-test-bmc), with
# ftb's test BMC (components/ipmi/sim), and ftb-ipmi configured to watch it as
# node "node1". Sourced after container.sh; ct_start_bmc needs a booted container.
#
# Inside the container's own network namespace the ports can be fixed:
# IPMI LAN on 127.0.0.1:9001, the emulator console on 127.0.0.1:9002.

ct_bmc_lan=9001
ct_bmc_console=9002

# The emulator file with one main_sdr_add per record of sensors.bsdr (sdrcomp -r:
# records back to back, byte 4 of each is the length of what follows the 5-byte header).
ct_bmc_sdr_commands() {
  od -An -v -tu1 "$1" | tr -s ' \n' '\n\n' | grep -v '^$' | awk '
    { b[n++] = $1 + 0 }
    END {
      for (off = 0; off + 5 <= n;) {
        len = 5 + b[off + 4]; line = "main_sdr_add 0x20"
        for (i = off; i < off + len; i++) line = line sprintf(" 0x%02x", b[i])
        print line; off += len
      }
    }'
}

ct_start_bmc() {
  local sim="$ct_runfiles/components/ipmi/sim" dir="$ct_root/etc/ftb-test-bmc"
  mkdir -p "$dir"
  sed -e "s/@LAN_PORT@/$ct_bmc_lan/" -e "s/@CONSOLE_PORT@/$ct_bmc_console/" "$sim/lan.conf.in" >"$dir/lan.conf"
  ct_bmc_sdr_commands "$sim/sensors.bsdr" >"$ct_work/sdrs.emu"
  awk -v sdrs="$ct_work/sdrs.emu" '/^@SDR_RECORDS@$/ { while ((getline l < sdrs) > 0) print l; next } { print }' \
    "$sim/bmc.emu.in" >"$dir/bmc.emu"
  grep -q '^main_sdr_add' "$dir/bmc.emu" || fail "no SDR records in the simulated BMC's emulator file"
  # SIGPIPE ignored: ipmi_sim dies of it when a console client goes (ipmi-sim notes).
  cat >"$ct_root/etc/systemd/system/ftb-test-bmc.service" <<UNIT
[Unit]
Description=ftb test BMC (OpenIPMI ipmi_sim)
[Service]
ExecStart=/bin/sh -c 'trap "" PIPE; exec /usr/bin/ipmi_sim -n -c /etc/ftb-test-bmc/lan.conf -f /etc/ftb-test-bmc/bmc.emu -s /run/ftb-test-bmc'
RuntimeDirectory=ftb-test-bmc
UNIT
  ct_exec systemctl daemon-reload
  ct_exec systemctl start ftb-test-bmc.service
  ct_await "ipmi_sim's console on 127.0.0.1:$ct_bmc_console" 20 \
    ct_sh "exec 3<>/dev/tcp/127.0.0.1/$ct_bmc_console"

  # ftb-ipmi, as an operator sets it up for one out-of-band BMC.
  printf '* monitor watch1t\n' >"$ct_root/etc/ftb/ipmi-credentials"
  chmod 0600 "$ct_root/etc/ftb/ipmi-credentials"
  chown 0:0 "$ct_root/etc/ftb/ipmi-credentials"
  cat >>"$ct_root/etc/ftb/ftb-ipmi.conf" <<CONF

# ftb's system test: the simulated BMC in this container.
bmc = ["node1=127.0.0.1:$ct_bmc_lan"]
workaround = ["opensesspriv"]
interval-ms = 1000
recheck-ms = 200
CONF
}

# ct_bmc_command "sensor_set_value ..." ...: emulator commands through the console.
ct_bmc_command() {
  local script="exec 3<>/dev/tcp/127.0.0.1/$ct_bmc_console"
  for cmd in "$@"; do script+="; printf '%s\\n' '$cmd' >&3"; done
  # Read until the console has answered every line (a prompt per command).
  script+="; timeout 5 head -c 4096 <&3 >/dev/null || true"
  ct_sh "$script"
}
