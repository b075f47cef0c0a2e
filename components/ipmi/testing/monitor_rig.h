// Test support: what every ftb-ipmi integration test needs around its
// simulators — a real ftb-agent, an SDK subscriber on FTB.IPMI.*, a
// credentials file (mode 600) and fast test settings for the monitor.
//
//   MonitorRig rig;
//   IpmiSimProcess bmc;
//   auto monitor = rig.startMonitor({"n1=" + bmc.address()});
//   BOOST_REQUIRE(rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", "n1"), 10s));
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "components/ipmi/testing/monitor_process.h"
#include "tests/support/agent_process.h"

namespace ftb::ipmi::testing {

// The sweep interval the rig's monitors use unless a test overrides it.
inline constexpr std::chrono::milliseconds kTestInterval{1000};

class MonitorRig {
 public:
  MonitorRig();

  // Writes the credentials file ("* admin secret" unless given) with `mode`.
  void writeCredentials(const std::string& text = "* admin secret\n", mode_t mode = 0600);
  const std::string& credentialsPath() const { return credentials_; }

  // Flags for the monitor: agent, credentials, a private SDR cache, the
  // opensesspriv workaround ipmi_sim needs, fast timers; a flag in `extra`
  // replaces the default of the same name.
  std::vector<std::string> flags(const std::vector<std::string>& bmcs,
                                 const std::vector<std::string>& extra = {}) const;
  std::unique_ptr<MonitorProcess> startMonitor(const std::vector<std::string>& bmcs,
                                               const std::vector<std::string>& extra = {});

  ftb::testing::AgentProcess agent;
  ftb::testing::TempDir dir;
  EventCollector events;

 private:
  std::string credentials_;
};

}  // namespace ftb::ipmi::testing
