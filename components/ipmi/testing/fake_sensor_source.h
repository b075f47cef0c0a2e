// Test support: a scripted SensorSource and an EventSink that records, for
// unit tests of BmcWatcher without a BMC.
//
//   FakeSensorSource src;  src.readings = {fan(5000)};  src.open_status = unavailable("x");
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "components/ipmi/event_sink.h"
#include "components/ipmi/sensor_source.h"

namespace ftb::ipmi::testing {

class FakeSensorSource : public SensorSource {
 public:
  Status open() override {
    ++opens;
    is_open = open_status.ok();
    return open_status;
  }
  void close() override { is_open = false; }
  Result<std::vector<SensorReading>> readSensors() override {
    ++sweeps;
    if (!read_status.ok()) return read_status;
    return readings;
  }
  Result<std::vector<SelRecord>> readNewSelRecords() override {
    ++sel_checks;
    if (!read_status.ok()) return read_status;
    std::vector<SelRecord> out(sel.begin(), sel.end());
    sel.clear();
    return out;
  }
  std::size_t sensorCount() const override { return readings.size(); }

  // The script: what the next calls return.
  Status open_status;
  Status read_status;  // for readSensors and readNewSelRecords
  std::vector<SensorReading> readings;
  std::deque<SelRecord> sel;
  // What happened.
  bool is_open = false;
  int opens = 0, sweeps = 0, sel_checks = 0;
};

class RecordingSink : public EventSink {
 public:
  struct Published {
    std::string name;
    std::string payload;
  };
  void publish(std::string_view name, const std::string& payload) override {
    std::lock_guard lock(mu);
    events.push_back({std::string(name), payload});
  }
  std::size_t count(std::string_view name) const {
    std::size_t n = 0;
    for (const auto& e : events) n += e.name == name ? 1 : 0;
    return n;
  }
  std::mutex mu;
  std::vector<Published> events;
};

}  // namespace ftb::ipmi::testing
