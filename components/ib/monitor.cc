#include "components/ib/monitor.h"

#include <errno.h>
#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include <spdlog/spdlog.h>

#include "components/ib/events.h"
#include "metrics/buckets.h"

namespace ftb::ib {

namespace {

std::string widthText(uint32_t lanes) { return lanes ? std::to_string(lanes) + "X" : "unknown"; }

std::string speedText(double gbps) {
  std::string_view name = speedName(gbps);
  if (!name.empty()) return std::string(name);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%gGb/s", gbps);
  return gbps > 0 ? buf : "unknown";
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

}  // namespace

Monitor::Monitor(MonitorOptions options, VerbsDevices& devices, SysfsTree sysfs, EventSink& sink)
    : options_(std::move(options)), devices_(devices), sysfs_(std::move(sysfs)), sink_(sink) {
  if (prometheus::Registry* r = options_.metrics) {
    sweep_seconds_ = &prometheus::BuildHistogram()
                          .Name("ftb_ib_sweep_seconds")
                          .Help("Time one sweep (rescan, port queries, counters) took")
                          .Register(*r)
                          .Add({}, metrics::exponentialBuckets(0.0005, 2, 12));
    devices_open_ = &prometheus::BuildGauge().Name("ftb_ib_devices").Help("Adapters open").Register(*r).Add({});
    troubles_total_ = &prometheus::BuildCounter()
                           .Name("ftb_ib_monitor_troubles_total")
                           .Help("Problems of the monitor itself (unreadable counters, failed queries)")
                           .Register(*r)
                           .Add({});
  }
}

Monitor::~Monitor() = default;

void Monitor::publish(std::string_view event, const std::string& original, PayloadFields fields,
                      Tags tags) {
  sink_.publish(event, formatPayload(original, fields), tags);
}

void Monitor::publishPort(std::string_view event, const std::string& hca, uint32_t port,
                          const PortAttrs& a, PayloadFields extra) {
  const std::string state(portStateName(a.state));
  PayloadFields fields = {{"hca", hca},
                          {"port", std::to_string(port)},
                          {"state", state},
                          {"phys_state", std::string(physStateName(a.phys_state))}};
  fields.insert(fields.end(), extra.begin(), extra.end());
  fields.insert(fields.end(), {{"width", widthText(a.width)},
                               {"speed", speedText(a.lane_gbps)},
                               {"lid", std::to_string(a.lid)},
                               {"sm_lid", std::to_string(a.sm_lid)},
                               {"link_layer", a.link_layer}});
  publish(event, "HCA:" + hca + " PORT:" + std::to_string(port) + " STATE:" + state, fields,
          {{"hca", hca}, {"port", std::to_string(port)}});
}

void Monitor::trouble(const std::string& key, const std::string& message) {
  if (!troubles_.insert(key).second) {
    spdlog::debug("still: {}", message);
    return;
  }
  spdlog::warn("{}", message);
  if (troubles_total_) troubles_total_->Increment();
  publish(kMonitorTrouble, "FTB_IB_MONITOR: " + message, {{"problem", message}}, {});
}

void Monitor::clearTrouble(const std::string& key) { troubles_.erase(key); }

void Monitor::start(Clock::time_point now) {
  rescan();
  for (auto& [name, open] : open_) {
    for (auto& [number, port] : open.ports) sweepCounters(name, number, now);
  }
}

void Monitor::rescan() {
  Result<std::vector<std::string>> listed = devices_.list();
  std::vector<std::string> names;
  if (listed.ok()) {
    names = *listed;
    clearTrouble("list");
  } else if (listed.status().code() == Code::kUnavailable) {
    // No RDMA in this kernel or no library: the same answer as no adapters.
    spdlog::debug("no RDMA support: {}", listed.status().message());
  } else {
    trouble("list", "cannot list RDMA devices: " + listed.status().message());
    return;
  }

  std::vector<std::string> gone;
  for (const auto& [name, open] : open_) {
    if (std::find(names.begin(), names.end(), name) == names.end()) gone.push_back(name);
  }
  for (const std::string& name : gone) dropDevice(name, "removed");

  const std::size_t before = open_.size();
  for (const std::string& name : names) {
    if (!open_.count(name) && !held_.count(name)) openDevice(name);
  }
  if (open_.size() > before) {
    std::vector<std::string> all;
    for (const auto& [name, open] : open_) all.push_back(name);
    publish(kAdapterAvailable, "NUM_ADAPTERS:" + std::to_string(open_.size()),
            {{"num_adapters", std::to_string(open_.size())}, {"hcas", joined(all, ",")}}, {});
    said_unavailable_ = false;
  } else if (open_.empty() && !said_unavailable_ && names.empty()) {
    // A node without HCAs is a normal answer: say it once and idle.
    spdlog::info("no InfiniBand/RDMA adapters on this node; watching for some to appear");
    publish(kAdapterUnavailable, "NUM_ADAPTERS:0",
            {{"num_adapters", "0"}, {"reason", "none present"}}, {});
    said_unavailable_ = true;
  }
}

void Monitor::openDevice(const std::string& name) {
  Result<std::unique_ptr<VerbsDevice>> opened = devices_.open(name);
  if (!opened.ok()) {
    trouble("open " + name, "cannot open RDMA device " + name + ": " + opened.status().message());
    return;
  }
  clearTrouble("open " + name);
  Open& open = open_[name];
  open.device = std::move(*opened);
  const DeviceInfo& info = open.device->info();
  spdlog::info("{}: {} port(s), firmware {}, node GUID {}", name, info.num_ports, info.fw_ver,
               info.node_guid);
  publish(kAdapterInfo,
          "HCA:" + name + " NUM_PORTS:" + std::to_string(info.num_ports) + " FW_VER:" +
              info.fw_ver + " NODE_GUID:" + info.node_guid,
          {{"hca", name},
           {"num_ports", std::to_string(info.num_ports)},
           {"fw_ver", info.fw_ver},
           {"node_guid", info.node_guid}},
          {{"hca", name}});
  for (uint32_t p = 1; p <= info.num_ports; ++p) {
    open.ports.emplace(p, Port{.predictor = PortPredictor(options_.prediction)});
    if (!refreshPort(name, p, "discovery")) return;
  }
}

void Monitor::dropDevice(const std::string& name, const std::string& reason) {
  if (open_.erase(name) == 0) return;  // closes the context here
  held_.insert(name);
  said_unavailable_ = open_.empty();  // this event says it: no second "none present"
  spdlog::warn("{}: closed ({})", name, reason);
  publish(kAdapterUnavailable, "NUM_ADAPTERS:" + std::to_string(open_.size()) + " HCA:" + name,
          {{"num_adapters", std::to_string(open_.size())}, {"hca", name}, {"reason", reason}},
          {{"hca", name}});
}

bool Monitor::refreshPort(const std::string& name, uint32_t number, std::string_view source) {
  Open& open = open_.at(name);
  Result<PortAttrs> attrs = open.device->queryPort(number);
  const std::string key = "query " + name + "/" + std::to_string(number);
  if (!attrs.ok()) {
    if (attrs.status().code() == Code::kNotFound) {
      dropDevice(name, "gone: " + attrs.status().message());
      return false;
    }
    trouble(key, "cannot query " + name + " port " + std::to_string(number) + ": " +
                     attrs.status().message());
    return true;
  }
  clearTrouble(key);
  Port& port = open.ports.at(number);
  const std::optional<PortAttrs> last = port.last;
  port.last = *attrs;
  const PayloadFields src = {{"source", std::string(source)}};
  if (!last) {
    publishPort(kPortInfo, name, number, *attrs, src);
    return true;
  }
  if (attrs->state != last->state) {
    PayloadFields fields = {{"previous", std::string(portStateName(last->state))},
                            {"source", std::string(source)}};
    if (attrs->state == kStateActive) {
      publishPort(kPortActive, name, number, *attrs, fields);
    } else if (last->state == kStateActive) {
      publishPort(kPortErr, name, number, *attrs, fields);
    } else {
      publishPort(kPortInfo, name, number, *attrs, fields);
    }
  }
  if (attrs->lid != last->lid || attrs->lmc != last->lmc) {
    publishPort(kLidChange, name, number, *attrs,
                {{"previous_lid", std::to_string(last->lid)}, {"source", std::string(source)}});
  }
  if (attrs->sm_lid != last->sm_lid || attrs->sm_sl != last->sm_sl) {
    publishPort(kSmChange, name, number, *attrs,
                {{"previous_sm_lid", std::to_string(last->sm_lid)},
                 {"source", std::string(source)}});
  }
  return true;
}

void Monitor::handleAsync(const std::string& name, const AsyncEvent& event) {
  const std::string type = asyncEventName(event.type);
  spdlog::info("{}: async event {} port {}", name, type, event.port);
  Open& open = open_.at(name);
  auto portEvent = [&](std::string_view ftb_event) {
    if (!open.ports.count(event.port)) {
      trouble("port " + name + "/" + std::to_string(event.port),
              name + ": " + type + " for unknown port " + std::to_string(event.port));
      return;
    }
    Result<PortAttrs> attrs = open.device->queryPort(event.port);
    if (!attrs.ok()) {
      if (attrs.status().code() == Code::kNotFound) {
        // The event still happened: publish it, then let the device go.
        publish(ftb_event, "HCA:" + name + " PORT:" + std::to_string(event.port) + " EVENT:" + type,
                {{"hca", name}, {"port", std::to_string(event.port)}, {"event", type}},
                {{"hca", name}, {"port", std::to_string(event.port)}});
        dropDevice(name, "gone: " + attrs.status().message());
        return;
      }
      trouble("query " + name + "/" + std::to_string(event.port), attrs.status().message());
      return;
    }
    open.ports.at(event.port).last = *attrs;  // the sweep must not report it again
    publishPort(ftb_event, name, event.port, *attrs, {{"event", type}, {"source", "async"}});
  };
  switch (event.type) {
    case AsyncEventType::kPortErr: return portEvent(kPortErr);
    case AsyncEventType::kPortActive: return portEvent(kPortActive);
    case AsyncEventType::kLidChange: return portEvent(kLidChange);
    case AsyncEventType::kPkeyChange: return portEvent(kPkeyChange);
    case AsyncEventType::kSmChange: return portEvent(kSmChange);
    case AsyncEventType::kGidChange: return portEvent(kGidChange);
    case AsyncEventType::kClientReregister: return portEvent(kClientReregister);
    case AsyncEventType::kDeviceFatal:
      publish(kDeviceFatal, "HCA:" + name + " EVENT:" + type, {{"hca", name}, {"event", type}},
              {{"hca", name}});
      dropDevice(name, "device fatal");
      rescan();
      return;
    default:
      // QP/CQ/SRQ/WQ events: ftb-ib owns no such resources; logged above.
      return;
  }
}

bool Monitor::pollOnce(std::chrono::milliseconds timeout, int wake_fd) {
  std::vector<pollfd> fds;
  std::vector<std::string> names;
  if (wake_fd >= 0) fds.push_back({.fd = wake_fd, .events = POLLIN});
  for (const auto& [name, open] : open_) {
    if (open.device->asyncFd() < 0) continue;
    fds.push_back({.fd = open.device->asyncFd(), .events = POLLIN});
    names.push_back(name);
  }
  const int n = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
  if (n < 0) {
    if (errno != EINTR) spdlog::warn("poll: {}", std::strerror(errno));
    return false;
  }
  bool woken = false;
  std::size_t first = 0;
  if (wake_fd >= 0) {
    woken = fds[0].revents != 0;
    first = 1;
  }
  for (std::size_t i = first; i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    const std::string& name = names[i - first];
    // Drain: one readable fd may hold several events.
    while (open_.count(name)) {
      Result<std::optional<AsyncEvent>> event = open_.at(name).device->nextEvent();
      if (!event.ok()) {
        if (event.status().code() == Code::kNotFound) {
          dropDevice(name, "gone: " + event.status().message());
          rescan();
        } else {
          trouble("events " + name, event.status().message());
        }
        break;
      }
      if (!*event) break;
      handleAsync(name, **event);
    }
  }
  return woken;
}

void Monitor::sweepCounters(const std::string& name, uint32_t number, Clock::time_point now) {
  CounterReadout readout = sysfs_.counters(name, number);
  const std::string key = "counters " + name + "/" + std::to_string(number);
  if (!readout.problems.empty()) {
    // Keyed by the bad files, not their contents: a file holding a different
    // bad value at every sweep is still one trouble.
    std::vector<std::string> files;
    for (const std::string& p : readout.problems) files.push_back(p.substr(0, p.find(':')));
    trouble(key + " " + joined(files, ","),
            name + " port " + std::to_string(number) + ": " + joined(readout.problems, "; "));
  }
  Port& port = open_.at(name).ports.at(number);
  Assessment a = port.predictor.assess(readout.counters, port.last, now);
  for (const std::string& counter : a.resets) {
    spdlog::info("{} port {}: counter {} went down (reset); counting from zero", name, number,
                 counter);
  }
  const PortAttrs attrs = port.last.value_or(PortAttrs{});
  if (a.change == Assessment::Change::kDegraded) {
    PayloadFields fields = {{"reasons", joined(a.reasons, "; ")}};
    for (const auto& [counter, value] : a.values) fields.emplace_back(counter, std::to_string(value));
    publishPort(kPortDegraded, name, number, attrs, std::move(fields));
  } else if (a.change == Assessment::Change::kHealthy) {
    publishPort(kPortHealthy, name, number, attrs, {});
  }
}

void Monitor::sweep(Clock::time_point now) {
  const auto started = std::chrono::steady_clock::now();
  held_.clear();
  rescan();
  std::vector<std::string> names;
  for (const auto& [name, open] : open_) names.push_back(name);
  for (const std::string& name : names) {
    if (!open_.count(name)) continue;
    std::vector<uint32_t> ports;
    for (const auto& [number, port] : open_.at(name).ports) ports.push_back(number);
    for (uint32_t number : ports) {
      if (!refreshPort(name, number, "sweep")) break;
      sweepCounters(name, number, now);
    }
  }
  if (sweep_seconds_) {
    sweep_seconds_->Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    devices_open_->Set(static_cast<double>(open_.size()));
  }
}

void Monitor::run(int stop_fd, const std::function<void()>& each_turn,
                  std::chrono::milliseconds max_wait) {
  start(Clock::now());
  Clock::time_point next = Clock::now() + options_.interval;
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now());
    if (pollOnce(std::clamp(left, std::chrono::milliseconds(0), max_wait), stop_fd)) return;
    if (Clock::now() >= next) {
      sweep(Clock::now());
      next = Clock::now() + options_.interval;
    }
    if (each_turn) each_turn();
  }
}

}  // namespace ftb::ib
