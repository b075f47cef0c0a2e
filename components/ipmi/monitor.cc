#include "components/ipmi/monitor.h"

#include <unistd.h>

#include <filesystem>

#include "components/ipmi/credentials.h"
#include "components/ipmi/freeipmi_sensor_source.h"

namespace ftb::ipmi {
namespace {

std::string hostName() {
  char buf[256] = "";
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

WatcherOptions watcherOptions(const MonitorConfig& c, std::string node, std::string bmc,
                              prometheus::Registry* metrics) {
  using std::chrono::milliseconds;
  return {.node = std::move(node),
          .bmc = std::move(bmc),
          .interval = milliseconds(c.interval_ms),
          .recheck = milliseconds(c.recheck_ms),
          .sel_poll = milliseconds(c.sel_poll_ms),
          .repeat_holdoff = std::chrono::seconds(c.repeat_holdoff_s),
          .retry_min = milliseconds(c.retry_min_ms),
          .retry_max = milliseconds(c.retry_max_ms),
          .machine = stateMachineOptions(c),
          .metrics = metrics};
}

FreeIpmiOptions sourceOptions(const MonitorConfig& c, const std::string& cache_name) {
  return {.inband_device = c.inband_device,
          .privilege = c.privilege,
          .cipher_suite = static_cast<uint8_t>(c.cipher_suite),
          .session_timeout_ms = c.session_timeout_ms,
          .retransmission_timeout_ms = c.retransmission_timeout_ms,
          .workarounds = c.workaround,
          .sdr_cache_file = c.sdr_cache_dir + "/sdr-cache-" + cache_name};
}

}  // namespace

bool hasInbandDevice(const MonitorConfig& config) {
  return ::access(config.inband_device.c_str(), F_OK) == 0;
}

Result<std::unique_ptr<Monitor>> Monitor::create(const MonitorConfig& config, EventSink& sink,
                                                 prometheus::Registry* metrics) {
  if (Status s = validateConfig(config); !s.ok()) return s;
  auto targets = parseBmcTargets(config.bmc);
  if (!targets.ok()) return targets.status();

  std::error_code ec;
  std::filesystem::create_directories(config.sdr_cache_dir, ec);
  if (ec || ::access(config.sdr_cache_dir.c_str(), W_OK) != 0) {
    return failedPrecondition("cannot use sdr-cache-dir " + config.sdr_cache_dir + ": " +
                              (ec ? ec.message() : "not writable"));
  }

  std::unique_ptr<Monitor> m(new Monitor());
  if (targets->empty()) {
    const std::string node = config.node_name.empty() ? hostName() : config.node_name;
    m->watchers_.push_back(std::make_unique<BmcWatcher>(
        watcherOptions(config, node, "inband", metrics),
        std::make_unique<FreeIpmiSensorSource>(sourceOptions(config, "inband")), sink));
    return m;
  }

  auto credentials = CredentialsFile::load(config.credentials_file);
  if (!credentials.ok()) return credentials.status();
  for (const BmcTarget& t : *targets) {
    auto cred = credentials->lookup(t.name, t.address);
    if (!cred) {
      return invalidArgument("no credentials for bmc '" + t.name + "' (" + t.address + ") in " +
                             config.credentials_file + "; add a line '" + t.name +
                             " USER PASSWORD' or a '*' line");
    }
    FreeIpmiOptions o = sourceOptions(config, t.name);
    o.address = t.address;
    o.credentials = *cred;
    m->watchers_.push_back(std::make_unique<BmcWatcher>(
        watcherOptions(config, t.name, t.address, metrics), std::make_unique<FreeIpmiSensorSource>(o), sink));
  }
  return m;
}

Monitor::~Monitor() { stop(); }

void Monitor::start() {
  for (auto& w : watchers_) threads_.emplace_back([w = w.get()] { w->run(); });
}

void Monitor::stop() {
  for (auto& w : watchers_) w->requestStop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace ftb::ipmi
