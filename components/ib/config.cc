#include "components/ib/config.h"

#include <algorithm>
#include <charconv>

#include <CLI/CLI.hpp>

namespace ftb::ib {

void addMonitorOptions(CLI::App& app, MonitorConfig& c) {
  app.add_option("--agent-endpoint", c.agent_endpoint,
                 "ftb-agent to publish to (default: $FTB_AGENT_ENDPOINT, else the local agent)");
  app.add_option("--metrics-listen", c.metrics_listen,
                 "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9812); "
                 "empty: off");
  app.add_option("--component", c.component, "Event space is FTB.IB.<component>")
      ->capture_default_str();
  app.add_option("--backend", c.backend,
                 "verbs: libibverbs with asynchronous events; sysfs: port attributes read from "
                 "--sysfs-root at every sweep")
      ->capture_default_str()
      ->check(CLI::IsMember({"verbs", "sysfs"}));
  app.add_option("--sysfs-root", c.sysfs_root,
                 "Root of the sysfs tree with class/infiniband (counters, sysfs backend)")
      ->capture_default_str();
  app.add_option("--interval-ms", c.interval_ms, "Counter sweep, device rescan and port re-query")
      ->capture_default_str()
      ->check(CLI::Range(50u, 3600000u));
  app.add_option("--window-s", c.window_s, "Error rates are counted over this many seconds")
      ->capture_default_str()
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--threshold", c.threshold,
                 "counter=errors_per_minute (repeat); replaces that counter's default, 0 = off");
  app.add_option("--expected-width", c.expected_width,
                 "Lanes every port should train at (1X, 2X, 4X, 8X, 12X); empty = best seen")
      ->capture_default_str();
  app.add_option("--recover-sweeps", c.recover_sweeps,
                 "Clean sweeps in a row before a degraded port is reported healthy")
      ->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  app.add_option("--log-level", c.log_level, "trace, debug, info, warn, error")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
}

Result<PredictionOptions> predictionOptions(const MonitorConfig& c) {
  PredictionOptions o{.thresholds_per_min = defaultThresholds(),
                      .window = std::chrono::seconds(c.window_s),
                      .recover_sweeps = c.recover_sweeps};
  for (const std::string& t : c.threshold) {
    const auto eq = t.find('=');
    double rate = -1;
    if (eq != std::string::npos && eq > 0) {
      auto [end, ec] = std::from_chars(t.data() + eq + 1, t.data() + t.size(), rate);
      if (ec != std::errc() || end != t.data() + t.size()) rate = -1;
    }
    if (rate < 0) {
      return invalidArgument("threshold '" + t +
                             "' is not counter=errors_per_minute (e.g. symbol_error=10)");
    }
    o.thresholds_per_min[t.substr(0, eq)] = rate;
  }
  if (!c.expected_width.empty()) {
    static const std::vector<std::string> kWidths = {"1X", "2X", "4X", "8X", "12X"};
    if (std::find(kWidths.begin(), kWidths.end(), c.expected_width) == kWidths.end()) {
      return invalidArgument("expected-width '" + c.expected_width +
                             "' is not one of 1X, 2X, 4X, 8X, 12X");
    }
    o.expected_width = static_cast<uint32_t>(std::stoul(c.expected_width));
  }
  return o;
}

}  // namespace ftb::ib
