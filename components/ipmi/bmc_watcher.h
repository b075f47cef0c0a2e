// BmcWatcher: watches one BMC. It connects (with backoff after trouble),
// sweeps the sensors every interval (sooner while a change awaits
// confirmation), follows the SEL in between, runs each sensor through a
// SensorStateMachine and publishes what changed.
//
//   BmcWatcher w(options, std::make_unique<FreeIpmiSensorSource>(...), sink);
//   std::thread t([&] { w.run(); });  ...  w.requestStop(); t.join();
//
// Threading: run() (or step(), in tests) on one thread; requestStop() from any.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "client/status.h"
#include "components/ipmi/backoff.h"
#include "components/ipmi/event_sink.h"
#include "components/ipmi/payload.h"
#include "components/ipmi/sensor_source.h"
#include "components/ipmi/sensor_state.h"
#include "components/ipmi/watcher_metrics.h"

namespace ftb::ipmi {

struct WatcherOptions {
  std::string node;  // first word of every payload
  std::string bmc;   // "host:port" or "inband"
  Clock::duration interval = std::chrono::seconds(10);
  Clock::duration recheck = std::chrono::seconds(1);   // also the least gap between sweeps
  Clock::duration sel_poll = std::chrono::seconds(2);  // zero: do not follow the SEL
  Clock::duration repeat_holdoff = std::chrono::seconds(60);
  std::chrono::milliseconds retry_min{1000};
  std::chrono::milliseconds retry_max{60000};
  StateMachineOptions machine;
  prometheus::Registry* metrics = nullptr;  // where sweep times and errors go; null: nowhere
};

class BmcWatcher {
 public:
  BmcWatcher(WatcherOptions options, std::unique_ptr<SensorSource> source, EventSink& sink);

  // Does whatever is due at `now` (connect, SEL check, sweep) and returns when
  // it should be called next. May block while the BMC answers.
  Clock::time_point step(Clock::time_point now);

  // Calls step() until requestStop().
  void run();
  void requestStop();

  bool connected() const { return connected_; }

 private:
  struct Tracked {
    SensorStateMachine machine;
    std::string last_event;  // for the repeat hold-off
    Clock::time_point last_event_time;
    int held_back = 0;
  };

  void sweep(Clock::time_point now);
  void handleSel(const SelRecord& record, Clock::time_point now);
  void handleDecision(const SensorReading& reading, const Decision& d, Clock::time_point now);
  void sweepSoon(Clock::time_point now);
  void trouble(const Status& status, Clock::time_point now);
  // Publishes unless the same event went out for this sensor within repeat_holdoff.
  void publishFor(const std::string& key, std::string_view event, PayloadFields fields,
                  Clock::time_point now);
  PayloadFields baseFields() const;
  Tracked& tracked(const std::string& key);

  WatcherOptions options_;
  std::unique_ptr<SensorSource> source_;
  EventSink& sink_;
  Backoff backoff_;
  WatcherMetrics metrics_;

  bool connected_ = false;
  bool trouble_reported_ = false;
  bool ever_connected_ = false;
  Clock::time_point next_connect_{};
  Clock::time_point next_sweep_{};
  Clock::time_point next_sel_{};
  Clock::time_point last_sweep_{};
  std::map<std::string, Tracked> sensors_;   // key: "name#number"
  std::map<uint8_t, std::string> swept_;     // sensor number -> key, from the last sweep

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

}  // namespace ftb::ipmi
