// What one BmcWatcher reports to Prometheus (docs/METRICS.md), labelled with
// its BMC ("inband" or host:port: as many series as configured BMCs).
// A watcher without a registry (tests, --metrics-listen unset) records nothing.
// Threading: the watcher's thread updates; the metrics HTTP thread renders.
#pragma once

#include <chrono>
#include <string>

#include "metrics/registry.h"

namespace ftb::ipmi {

class WatcherMetrics {
 public:
  WatcherMetrics() = default;  // records nothing
  WatcherMetrics(metrics::Registry& registry, const std::string& bmc)
      : sweep_seconds_(&registry.histogramFamily(
                           "ftb_ipmi_sweep_seconds", "Time one sensor sweep of a BMC took",
                           {"bmc"}, metrics::exponentialBuckets(0.005, 2, 12))
                            .labels({bmc})),
        sweep_errors_(&registry.counterFamily("ftb_ipmi_sweep_errors_total",
                                              "Sensor sweeps that failed (the session is reopened)",
                                              {"bmc"})
                           .labels({bmc})),
        connect_errors_(&registry.counterFamily("ftb_ipmi_connect_errors_total",
                                                "Failed attempts to open a session with a BMC",
                                                {"bmc"})
                             .labels({bmc})),
        up_(&registry.gaugeFamily("ftb_ipmi_bmc_up", "1 while a session with the BMC is open",
                                  {"bmc"})
                 .labels({bmc})) {}

  void swept(std::chrono::steady_clock::duration took) {
    if (sweep_seconds_) sweep_seconds_->observe(std::chrono::duration<double>(took).count());
  }
  void sweepFailed() {
    if (sweep_errors_) sweep_errors_->inc();
    setUp(false);
  }
  void connectFailed() {
    if (connect_errors_) connect_errors_->inc();
    setUp(false);
  }
  void setUp(bool up) {
    if (up_) up_->set(up ? 1 : 0);
  }

 private:
  metrics::Histogram* sweep_seconds_ = nullptr;
  metrics::Counter* sweep_errors_ = nullptr;
  metrics::Counter* connect_errors_ = nullptr;
  metrics::Gauge* up_ = nullptr;
};

}  // namespace ftb::ipmi
