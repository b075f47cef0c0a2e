#include "components/ipmi/bmc_watcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "components/ipmi/events.h"

namespace ftb::ipmi {
namespace {

std::string sensorKey(const std::string& name, uint8_t number) {
  return name + "#" + std::to_string(number);
}

std::string_view problemName(Code code) {
  switch (code) {
    case Code::kUnauthenticated: return "credentials";
    case Code::kUnavailable: return "unreachable";
    case Code::kNotFound: return "no_device";
    default: return "error";
  }
}

}  // namespace

BmcWatcher::BmcWatcher(WatcherOptions options, std::unique_ptr<SensorSource> source,
                       EventSink& sink)
    : options_(std::move(options)),
      source_(std::move(source)),
      sink_(sink),
      backoff_(options_.retry_min, options_.retry_max),
      metrics_(options_.metrics ? WatcherMetrics(*options_.metrics, options_.node, options_.bmc) : WatcherMetrics()) {}

void BmcWatcher::run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    const Clock::time_point next = step(Clock::now());
    lock.lock();
    cv_.wait_until(lock, next, [&] { return stop_; });
  }
  lock.unlock();
  source_->close();
}

void BmcWatcher::requestStop() {
  std::lock_guard lock(mu_);
  stop_ = true;
  cv_.notify_all();
}

PayloadFields BmcWatcher::baseFields() const {
  return {{"node", options_.node}, {"bmc", options_.bmc}};
}

BmcWatcher::Tracked& BmcWatcher::tracked(const std::string& key) {
  auto it = sensors_.find(key);
  if (it == sensors_.end()) it = sensors_.emplace(key, Tracked{.machine = SensorStateMachine(options_.machine)}).first;
  return it->second;
}

Clock::time_point BmcWatcher::step(Clock::time_point now) {
  if (!connected_) {
    if (now < next_connect_) return next_connect_;
    if (Status s = source_->open(); !s.ok()) {
      trouble(s, now);
      return next_connect_;
    }
    connected_ = true;
    metrics_.setUp(true);
    backoff_.reset();
    PayloadFields f = baseFields();
    f.emplace_back("sensors", std::to_string(source_->sensorCount()));
    f.emplace_back("recovered", trouble_reported_ || ever_connected_ ? "true" : "false");
    sink_.publish(kBmcOnline, formatPayload(options_.node, f));
    spdlog::info("{} ({}): session open, {} sensors", options_.node, options_.bmc,
                 source_->sensorCount());
    trouble_reported_ = false;
    ever_connected_ = true;
    next_sweep_ = now;
    next_sel_ = now + options_.sel_poll;
  }

  const bool follow_sel = options_.sel_poll > Clock::duration::zero();
  if (follow_sel && now >= next_sel_) {
    auto records = source_->readNewSelRecords();
    if (!records.ok()) {
      // A broken session (BMC reset, idle timeout) is reopened at once; only a
      // failing open() counts as trouble.
      spdlog::info("{}: SEL read failed ({}); reconnecting", options_.node, records.status().message());
      source_->close();
      connected_ = false;
      metrics_.setUp(false);
      return now;
    }
    for (const SelRecord& r : *records) handleSel(r, now);
    next_sel_ = now + options_.sel_poll;
  }
  if (now >= next_sweep_) sweep(now);
  if (!connected_) return now;
  return follow_sel ? std::min(next_sweep_, next_sel_) : next_sweep_;
}

void BmcWatcher::sweep(Clock::time_point now) {
  const auto started = std::chrono::steady_clock::now();  // real time, whatever clock `now` is on
  auto readings = source_->readSensors();
  if (!readings.ok()) {
    metrics_.sweepFailed();
    spdlog::info("{}: sensor sweep failed ({}); reconnecting", options_.node,
                 readings.status().message());
    source_->close();
    connected_ = false;
    return;
  }
  bool pending = false;
  for (const SensorReading& r : *readings) {
    const std::string key = sensorKey(r.name, r.sensor_number);
    swept_[r.sensor_number] = key;
    Tracked& t = tracked(key);
    const Decision d = t.machine.observe(
        {.level = r.level, .crossed = r.crossed, .value = r.value, .threshold_value = r.threshold_value},
        now);
    handleDecision(r, d, now);
    pending = pending || t.machine.pending();
  }
  metrics_.swept(std::chrono::steady_clock::now() - started);
  last_sweep_ = now;
  next_sweep_ = now + (pending ? options_.recheck : options_.interval);
}

void BmcWatcher::sweepSoon(Clock::time_point now) {
  next_sweep_ = std::min(next_sweep_, std::max(now, last_sweep_ + options_.recheck));
}

void BmcWatcher::handleDecision(const SensorReading& r, const Decision& d, Clock::time_point now) {
  if (d.kind == Decision::Kind::kNone) return;
  PayloadFields f = baseFields();
  f.emplace_back("sensor", r.name);
  f.emplace_back("type", std::string(kindName(r.kind)));
  std::string_view event;
  if (d.kind == Decision::Kind::kFlapping) {
    event = kFlapping;
    f.emplace_back("state", std::string(levelName(d.to)));
    f.emplace_back("published", std::string(levelName(d.from)));
  } else {
    event = d.to == Level::kNormal ? kNormal : eventFor(r.kind, d.to, d.crossed, r.condition);
    f.emplace_back("state", std::string(levelName(d.to)));
    f.emplace_back("previous", std::string(levelName(d.from)));
  }
  if (r.value) {
    f.emplace_back("reading", formatNumber(*r.value));
    f.emplace_back("units", r.units);
  }
  if (d.kind == Decision::Kind::kChange && d.crossed != Threshold::kNone) {
    f.emplace_back("threshold", std::string(thresholdName(d.crossed)));
    if (d.threshold_value) f.emplace_back("threshold_value", formatNumber(*d.threshold_value));
  }
  if (!r.condition.empty()) f.emplace_back("condition", r.condition);
  publishFor(sensorKey(r.name, r.sensor_number), event, std::move(f), now);
}

void BmcWatcher::handleSel(const SelRecord& r, Clock::time_point now) {
  auto swept = swept_.find(r.sensor_number);
  if (swept != swept_.end()) sweepSoon(now);  // the sweep confirms state changes
  // Threshold crossings of swept sensors, and every deassertion, are left to
  // the sweep and its state machine; discrete assertions (an ECC error, a PSU
  // failure) are occurrences the sensor state may never show, so they go out now.
  if (!r.assertion || r.level == Level::kNormal) return;
  if (r.threshold_event && swept != swept_.end()) return;
  PayloadFields f = baseFields();
  const std::string name = r.sensor_name.empty() ? "sensor " + std::to_string(r.sensor_number)
                                                 : r.sensor_name;
  f.emplace_back("sensor", name);
  f.emplace_back("type", std::string(kindName(r.kind)));
  f.emplace_back("state", std::string(levelName(r.level)));
  if (r.crossed != Threshold::kNone) f.emplace_back("threshold", std::string(thresholdName(r.crossed)));
  if (!r.condition.empty()) f.emplace_back("condition", r.condition);
  f.emplace_back("sel_id", std::to_string(r.record_id));
  if (!r.description.empty()) f.emplace_back("event", r.description);
  const std::string key = swept != swept_.end() ? swept->second : sensorKey(name, r.sensor_number);
  publishFor(key, eventFor(r.kind, r.level, r.crossed, r.condition), std::move(f), now);
}

void BmcWatcher::publishFor(const std::string& key, std::string_view event, PayloadFields fields,
                            Clock::time_point now) {
  Tracked& t = tracked(key);
  if (t.last_event == event && now - t.last_event_time < options_.repeat_holdoff) {
    ++t.held_back;
    spdlog::debug("{}: {} for {} held back (repeat)", options_.node, event, key);
    return;
  }
  if (t.held_back > 0 && t.last_event == event) {
    fields.emplace_back("repeats_held_back", std::to_string(t.held_back));
  }
  t.last_event = std::string(event);
  t.last_event_time = now;
  t.held_back = 0;
  sink_.publish(event, formatPayload(options_.node, fields));
}

void BmcWatcher::trouble(const Status& s, Clock::time_point now) {
  metrics_.connectFailed();
  const auto wait = backoff_.next();
  next_connect_ = now + wait;
  if (trouble_reported_) {
    spdlog::debug("{} ({}): still failing ({}); next attempt in {} ms", options_.node,
                  options_.bmc, s.message(), wait.count());
    return;
  }
  trouble_reported_ = true;
  spdlog::warn("{} ({}): {}; retrying with backoff from {} ms", options_.node, options_.bmc,
               s.message(), wait.count());
  PayloadFields f = baseFields();
  f.emplace_back("problem", std::string(problemName(s.code())));
  f.emplace_back("retry_ms", std::to_string(wait.count()));
  f.emplace_back("error", s.message());
  sink_.publish(kMonitorTrouble, formatPayload(options_.node, f));
}

}  // namespace ftb::ipmi
