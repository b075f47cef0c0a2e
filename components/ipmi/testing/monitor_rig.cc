#include "components/ipmi/testing/monitor_rig.h"

#include <sys/stat.h>

#include <fstream>
#include <stdexcept>

namespace ftb::ipmi::testing {

MonitorRig::MonitorRig() : events(agent.ipcEndpoint(), "event_space=FTB.IPMI.*"), credentials_(dir.path() + "/credentials") {
  writeCredentials();
}

void MonitorRig::writeCredentials(const std::string& text, mode_t mode) {
  {
    std::ofstream out(credentials_, std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + credentials_);
  }
  if (::chmod(credentials_.c_str(), mode) != 0) throw std::runtime_error("chmod failed");
}

std::vector<std::string> MonitorRig::flags(const std::vector<std::string>& bmcs,
                                           const std::vector<std::string>& extra) const {
  std::vector<std::string> f = {
      "--agent-endpoint=" + agent.ipcEndpoint(),
      "--credentials-file=" + credentials_,
      "--sdr-cache-dir=" + dir.path() + "/sdr",
      "--workaround=opensesspriv",
      "--interval-ms=" + std::to_string(kTestInterval.count()),
      "--recheck-ms=200",
      "--sel-poll-ms=250",
      "--session-timeout-ms=1000",
      "--retransmission-timeout-ms=250",
      "--retry-min-ms=200",
      "--retry-max-ms=1000",
      "--log-level=debug",
  };
  // A flag in `extra` replaces the default of the same name.
  for (const auto& e : extra) {
    const std::string name = e.substr(0, e.find('=') + 1);
    std::erase_if(f, [&](const std::string& d) { return d.rfind(name, 0) == 0; });
  }
  for (const auto& b : bmcs) f.push_back("--bmc=" + b);
  f.insert(f.end(), extra.begin(), extra.end());
  return f;
}

std::unique_ptr<MonitorProcess> MonitorRig::startMonitor(const std::vector<std::string>& bmcs,
                                                         const std::vector<std::string>& extra) {
  return std::make_unique<MonitorProcess>(flags(bmcs, extra));
}

}  // namespace ftb::ipmi::testing
