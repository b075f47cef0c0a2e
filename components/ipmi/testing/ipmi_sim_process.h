// Test support: a private OpenIPMI BMC simulator (ipmi_sim) on free loopback
// ports, with ftb's own BMC definition (components/ipmi/sim), and its TCP
// console for fault injection.
//
//   IpmiSimProcess bmc;                              // starts, waits until ready
//   monitor flags: --bmc=node1=<bmc.address()>
//   bmc.command("sensor_set_value 0x20 0 3 0 1");    // FAN1 to 0 RPM, with a SEL record
//   bmc.kill(); bmc.restart();                       // same LAN port, same SEL
//
// Sensor numbers: 1 CPU1 Temp, 2 CPU2 Temp, 3 FAN1, 4 FAN2 (RPM = 50 * raw),
// 5 12V (V = 0.06 * raw), 6 DIMM ECC (bit 0 correctable, 1 uncorrectable),
// 7 PSU1 Status (bit 0 present, 1 failure, 2 predictive failure).
// Users: admin/secret (admin), monitor/watch1t (operator).
//
// ipmi_sim runs as a direct child with SIGPIPE ignored (it writes its log to
// every console client and would die of a client that just left). Failures
// throw std::runtime_error with the simulator's log.
#pragma once

#include <sys/types.h>

#include <string>

#include "tests/support/agent_process.h"

namespace ftb::ipmi::testing {


class IpmiSimProcess {
 public:
  // lan_port 0: pick a free one.
  explicit IpmiSimProcess(int lan_port = 0);
  ~IpmiSimProcess();
  IpmiSimProcess(const IpmiSimProcess&) = delete;
  IpmiSimProcess& operator=(const IpmiSimProcess&) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(lan_port_); }
  int lanPort() const { return lan_port_; }
  pid_t pid() const { return pid_; }

  // Runs one emulator command on the console and returns its reply; throws
  // when ipmi_sim reports an error ("**...").
  std::string command(const std::string& cmd);
  // "Added record N" of a sel_add, as N.
  int addSel(const std::string& sel_add_args);

  void kill();     // SIGKILL and reap (the BMC vanishes mid-session)
  void stop();     // SIGTERM and reap
  void restart();  // start again: same LAN port and persistent state (SEL)

 private:
  void start();
  void startOn(int console_port);  // start() with the console on that port; throws if it does not come up
  void writeConfig(int console_port);
  std::string readUntilPrompt();
  std::string log() const;

  ftb::testing::TempDir dir_;
  int lan_port_;
  pid_t pid_ = -1;
  int console_ = -1;
};

}  // namespace ftb::ipmi::testing
