// Monitor: ftb-ib's single event loop. It keeps every present RDMA device
// open, waits in one poll() on all their asynchronous-event fds, and every
// `interval` rescans the device list, re-queries each port and sweeps the
// counters through a PortPredictor per port. What it learns goes to an
// EventSink as the events of events.h.
//
//   Monitor monitor(options, devices, SysfsTree("/sys"), sink);
//   monitor.run(stop_fd);   // until stop_fd polls readable
//
// Threading: not thread-safe; one thread calls everything (run() or, in tests,
// start()/pollOnce()/sweep()). A device that reports ENODEV or DEVICE_FATAL is
// closed at once (an open context blocks driver removal) and is not reopened
// before the next sweep.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "components/ib/event_sink.h"
#include "client/payload_fields.h"
#include "components/ib/port_predictor.h"
#include "components/ib/sysfs_tree.h"
#include "components/ib/verbs_devices.h"

namespace ftb::ib {

struct MonitorOptions {
  std::chrono::milliseconds interval{10000};
  PredictionOptions prediction;
  prometheus::Registry* metrics = nullptr;  // sweep times, devices, troubles (docs/METRICS.md); null: none
};

class Monitor {
 public:
  Monitor(MonitorOptions options, VerbsDevices& devices, SysfsTree sysfs, EventSink& sink);
  ~Monitor();

  // The first scan: ADAPTER_INFO and PORT_INFO for what is there, then
  // ADAPTER_AVAILABLE, or ADAPTER_UNAVAILABLE (once) when there is nothing;
  // also the counters' baseline.
  void start(Clock::time_point now);
  // Waits up to `timeout` for asynchronous events (or for `wake_fd`, if >= 0,
  // to poll readable) and handles those that arrived. True when wake_fd fired.
  bool pollOnce(std::chrono::milliseconds timeout, int wake_fd = -1);
  // Rescan devices, re-query ports, sweep counters.
  void sweep(Clock::time_point now);
  // start(), then pollOnce()/sweep() on schedule until `stop_fd` polls readable.
  // `each_turn` runs after every loop turn, and no wait lasts longer than
  // `max_wait`: the service watchdog is fed from here (main.cc).
  void run(int stop_fd, const std::function<void()>& each_turn = {},
           std::chrono::milliseconds max_wait = std::chrono::hours(1));

  std::size_t deviceCount() const { return open_.size(); }

 private:
  struct Port {
    std::optional<PortAttrs> last;
    PortPredictor predictor;
  };
  struct Open {
    std::unique_ptr<VerbsDevice> device;
    std::map<uint32_t, Port> ports;
  };

  void rescan();
  void openDevice(const std::string& name);
  // Closes `name` now, publishes ADAPTER_UNAVAILABLE; not reopened before the next sweep.
  void dropDevice(const std::string& name, const std::string& reason);
  void handleAsync(const std::string& name, const AsyncEvent& event);
  // Queries a port; on a state, LID or SM change publishes what changed.
  // False when the device has gone (then dropped).
  bool refreshPort(const std::string& name, uint32_t port, std::string_view source);
  void sweepCounters(const std::string& name, uint32_t port, Clock::time_point now);

  void publishPort(std::string_view event, const std::string& hca, uint32_t port,
                   const PortAttrs& attrs, PayloadFields extra);
  void publish(std::string_view event, const std::string& original, PayloadFields fields,
               Tags tags);
  // MONITOR_TROUBLE once per `key` until clearTrouble(key).
  void trouble(const std::string& key, const std::string& message);
  void clearTrouble(const std::string& key);

  MonitorOptions options_;
  VerbsDevices& devices_;
  SysfsTree sysfs_;
  EventSink& sink_;
  std::map<std::string, Open> open_;
  // Devices dropped since the last sweep: not reopened before the next one, so
  // a device the driver is removing is not held open again.
  std::set<std::string> held_;
  std::set<std::string> troubles_;
  bool said_unavailable_ = false;
  // Prometheus, when options_.metrics is set (the metrics thread only reads them).
  prometheus::Histogram* sweep_seconds_ = nullptr;
  prometheus::Gauge* devices_open_ = nullptr;
  prometheus::Counter* troubles_total_ = nullptr;
};

}  // namespace ftb::ib
