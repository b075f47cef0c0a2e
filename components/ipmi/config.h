// MonitorConfig: every ftb-ipmi setting with its embedded default. Each field is
// a command-line flag and a key of the same name in the --config file
// (key = value; see deploy/ftb-ipmi.conf).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/ipmi/sensor_state.h"

namespace CLI {
class App;
}

namespace ftb::ipmi {

struct MonitorConfig {
  std::string agent_endpoint;          // "" = $FTB_AGENT_ENDPOINT or the local agent
  std::string component = "MONITOR";   // events go to FTB.IPMI.<component>
  // Out-of-band BMCs, "name=host[:port]" or "host[:port]" (port 623 by default).
  // None: watch this node's own BMC in-band through inband_device.
  std::vector<std::string> bmc;
  std::string credentials_file = "/etc/ftb/ipmi-credentials";
  std::string inband_device = "/dev/ipmi0";  // Linux OpenIPMI driver
  std::string node_name;                     // in-band node name; "" = host name
  uint32_t interval_ms = 10000;    // full sensor sweep
  uint32_t recheck_ms = 1000;      // sooner re-read while a change awaits confirmation
  uint32_t sel_poll_ms = 2000;     // System Event Log check; 0 = do not follow the SEL
  uint32_t debounce = 2;           // consecutive readings that confirm a new state
  double hysteresis_percent = 2;   // of the crossed threshold, to leave a state
  uint32_t flap_changes = 4;       // changes within flap_window_s that mean "flapping"
  uint32_t flap_window_s = 300;
  uint32_t repeat_holdoff_s = 60;  // same event for the same sensor is not repeated sooner
  uint32_t retry_min_ms = 1000;    // reconnect backoff after BMC trouble
  uint32_t retry_max_ms = 60000;
  uint32_t session_timeout_ms = 5000;
  uint32_t retransmission_timeout_ms = 500;
  uint32_t cipher_suite = 3;
  std::string privilege = "operator";  // user, operator or admin
  // FreeIPMI workarounds for quirky BMCs; "opensesspriv" for OpenIPMI's ipmi_sim.
  std::vector<std::string> workaround;
  std::string sdr_cache_dir = "/var/cache/ftb-ipmi";
  std::string log_level = "info";
  std::string metrics_listen;  // Prometheus metrics at http://HOST:PORT/metrics; "" = off
};

// Registers every MonitorConfig field as a flag (and so as a config-file key).
void addMonitorOptions(CLI::App& app, MonitorConfig& config);

struct BmcTarget {
  std::string name;     // the node's name, first in every payload
  std::string address;  // "host:port" as FreeIPMI takes it
};

// Parses the bmc list; kInvalidArgument names the bad entry.
Result<std::vector<BmcTarget>> parseBmcTargets(const std::vector<std::string>& specs);

// Cross-field checks (recheck <= interval, retry_min <= retry_max, ...).
Status validateConfig(const MonitorConfig& config);

StateMachineOptions stateMachineOptions(const MonitorConfig& config);

}  // namespace ftb::ipmi
