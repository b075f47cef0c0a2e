// What one BmcWatcher reports to Prometheus (docs/METRICS.md), labelled with
// its node's name (bmc="node17"): the name of its --bmc entry ("node17=host:port";
// a bare "host[:port]" entry is named by its host), or for the in-band BMC
// --node-name, else this host's name. The same name starts every event payload,
// so alerts and events speak of the same node. ftb_ipmi_bmc_info maps the name
// to the address watched. As many series as configured BMCs.
// A watcher without a registry (tests, --metrics-listen unset) records nothing.
// Threading: the watcher's thread updates; the metrics HTTP thread collects.
#pragma once

#include <chrono>
#include <string>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "metrics/buckets.h"

namespace ftb::ipmi {

class WatcherMetrics {
 public:
  WatcherMetrics() = default;  // records nothing
  // `node`: the label value; `address`: "host:port" or "inband".
  WatcherMetrics(prometheus::Registry& registry, const std::string& node, const std::string& address)
      : sweep_seconds_(&prometheus::BuildHistogram()
                            .Name("ftb_ipmi_sweep_seconds")
                            .Help("Time one sensor sweep of a BMC took")
                            .Register(registry)
                            .Add({{"bmc", node}}, metrics::exponentialBuckets(0.005, 2, 12))),
        sweep_errors_(&prometheus::BuildCounter()
                           .Name("ftb_ipmi_sweep_errors_total")
                           .Help("Sensor sweeps that failed (the session is reopened)")
                           .Register(registry)
                           .Add({{"bmc", node}})),
        connect_errors_(&prometheus::BuildCounter()
                             .Name("ftb_ipmi_connect_errors_total")
                             .Help("Failed attempts to open a session with a BMC")
                             .Register(registry)
                             .Add({{"bmc", node}})),
        up_(&prometheus::BuildGauge()
                 .Name("ftb_ipmi_bmc_up")
                 .Help("1 while a session with the BMC is open")
                 .Register(registry)
                 .Add({{"bmc", node}})) {
    prometheus::BuildGauge()
        .Name("ftb_ipmi_bmc_info")
        .Help("The address watched for each BMC (always 1)")
        .Register(registry)
        .Add({{"bmc", node}, {"address", address}})
        .Set(1);
  }

  void swept(std::chrono::steady_clock::duration took) {
    if (sweep_seconds_) sweep_seconds_->Observe(std::chrono::duration<double>(took).count());
  }
  void sweepFailed() {
    if (sweep_errors_) sweep_errors_->Increment();
    setUp(false);
  }
  void connectFailed() {
    if (connect_errors_) connect_errors_->Increment();
    setUp(false);
  }
  void setUp(bool up) {
    if (up_) up_->Set(up ? 1 : 0);
  }

 private:
  prometheus::Histogram* sweep_seconds_ = nullptr;
  prometheus::Counter* sweep_errors_ = nullptr;
  prometheus::Counter* connect_errors_ = nullptr;
  prometheus::Gauge* up_ = nullptr;
};

}  // namespace ftb::ipmi
