// MonitorConfig: every ftb-ib setting with its embedded default. Each field is
// a command-line flag and a key of the same name in the --config file
// (key = value; see deploy/ftb-ib.conf).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/ib/port_predictor.h"

namespace CLI {
class App;
}

namespace ftb::ib {

struct MonitorConfig {
  std::string agent_endpoint;         // "" = $FTB_AGENT_ENDPOINT or the local agent
  std::string component = "MONITOR";  // events go to FTB.IB.<component>
  std::string backend = "verbs";      // "verbs" (libibverbs) or "sysfs"
  std::string sysfs_root = "/sys";    // counters, and ports for the sysfs backend
  uint32_t interval_ms = 10000;       // counter sweep, device rescan, port re-query
  uint32_t window_s = 60;             // rates are counted over this window
  std::vector<std::string> threshold; // "counter=errors_per_minute", replacing defaults
  std::string expected_width;         // "4X"; "" = best seen on the port
  uint32_t recover_sweeps = 3;
  std::string log_level = "info";
  std::string metrics_listen;  // Prometheus metrics at http://HOST:PORT/metrics; "" = off
};

// Registers every MonitorConfig field as a flag (and so as a config-file key).
void addMonitorOptions(CLI::App& app, MonitorConfig& config);

// The prediction settings; kInvalidArgument names a bad threshold or width.
Result<PredictionOptions> predictionOptions(const MonitorConfig& config);

}  // namespace ftb::ib
