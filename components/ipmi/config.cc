#include "components/ipmi/config.h"

#include <set>

#include <CLI/CLI.hpp>

namespace ftb::ipmi {

namespace {

// A flag showing its default, limited to [lo, hi].
template <typename T>
void ranged(CLI::App& app, const char* name, T& field, const char* help, T lo, T hi) {
  app.add_option(name, field, help)->capture_default_str()->check(CLI::Range(lo, hi));
}

// A flag showing its default, one of `choices`.
void oneOf(CLI::App& app, const char* name, std::string& field, const char* help,
           std::vector<std::string> choices) {
  app.add_option(name, field, help)->capture_default_str()->check(CLI::IsMember(std::move(choices)));
}

}  // namespace

void addMonitorOptions(CLI::App& app, MonitorConfig& c) {
  app.add_option("--agent-endpoint", c.agent_endpoint,
                 "ftb-agent to publish to (default: $FTB_AGENT_ENDPOINT, else the local agent)");
  app.add_option("--metrics-listen", c.metrics_listen,
                 "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9811); "
                 "empty: off");
  app.add_option("--component", c.component, "Event space is FTB.IPMI.<component>")
      ->capture_default_str();
  app.add_option("--bmc", c.bmc,
                 "Out-of-band BMC to watch, name=host[:port] (repeat, or a list in the config "
                 "file); none = this node's BMC in-band");
  app.add_option("--credentials-file", c.credentials_file,
                 "BMC user names and passwords (owned by root, mode 600)")
      ->capture_default_str();
  app.add_option("--inband-device", c.inband_device, "In-band IPMI device (Linux ipmi_devintf)")
      ->capture_default_str();
  app.add_option("--node-name", c.node_name, "Name of this node in-band (default: host name)");
  ranged(app, "--interval-ms", c.interval_ms, "Sensor sweep interval", 50u, 3600000u);
  ranged(app, "--recheck-ms", c.recheck_ms,
         "Re-read this soon while a sensor's new state awaits confirmation", 10u, 3600000u);
  ranged(app, "--sel-poll-ms", c.sel_poll_ms,
         "How often to check the System Event Log for new records; 0 disables", 0u, 3600000u);
  ranged(app, "--debounce", c.debounce, "Consecutive readings that confirm a new state", 1u, 100u);
  ranged(app, "--hysteresis-percent", c.hysteresis_percent,
         "How far (percent of the threshold) a reading must come back to leave a state", 0.0, 50.0);
  ranged(app, "--flap-changes", c.flap_changes,
         "State changes within --flap-window-s after which a sensor counts as flapping", 1u, 1000u);
  ranged(app, "--flap-window-s", c.flap_window_s, "Flap detection window, seconds", 1u, 86400u);
  ranged(app, "--repeat-holdoff-s", c.repeat_holdoff_s,
         "The same event for the same sensor is not published again within this time", 0u, 86400u);
  ranged(app, "--retry-min-ms", c.retry_min_ms, "First reconnect delay after BMC trouble", 10u,
         3600000u);
  ranged(app, "--retry-max-ms", c.retry_max_ms, "Longest reconnect delay (doubling backoff)", 10u,
         3600000u);
  ranged(app, "--session-timeout-ms", c.session_timeout_ms, "IPMI LAN session timeout", 100u,
         600000u);
  ranged(app, "--retransmission-timeout-ms", c.retransmission_timeout_ms,
         "IPMI LAN retransmission timeout", 10u, 600000u);
  ranged(app, "--cipher-suite", c.cipher_suite, "RMCP+ cipher suite id", 0u, 17u);
  oneOf(app, "--privilege", c.privilege, "Session privilege: user, operator or admin",
        {"user", "operator", "admin"});
  app.add_option("--workaround", c.workaround,
                 "FreeIPMI workaround for quirky BMCs (opensesspriv, authcap, intel20, "
                 "supermicro20, sun20, integritycheckvalue)");
  app.add_option("--sdr-cache-dir", c.sdr_cache_dir, "Where each BMC's SDR cache is kept")
      ->capture_default_str();
  oneOf(app, "--log-level", c.log_level, "trace, debug, info, warn, error, critical or off",
        {"trace", "debug", "info", "warn", "error", "critical", "off"});
}

Result<std::vector<BmcTarget>> parseBmcTargets(const std::vector<std::string>& specs) {
  std::vector<BmcTarget> targets;
  std::set<std::string> names;
  for (const std::string& spec : specs) {
    BmcTarget t;
    const auto eq = spec.find('=');
    t.address = eq == std::string::npos ? spec : spec.substr(eq + 1);
    const auto colon = t.address.rfind(':');
    const std::string host = t.address.substr(0, colon);
    t.name = eq == std::string::npos ? host : spec.substr(0, eq);
    if (host.empty() || t.name.empty()) {
      return invalidArgument("bmc '" + spec + "' is not name=host[:port]");
    }
    if (t.name.find_first_of(" \t\"=/") != std::string::npos) {
      return invalidArgument("bmc name '" + t.name + "' must not contain spaces, quotes, '=' or '/'");
    }
    if (colon == std::string::npos) {
      // FreeIPMI reads a bare loopback host as "in-band"; an explicit port avoids that.
      t.address += ":623";
    } else {
      const std::string port = t.address.substr(colon + 1);
      if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos ||
          port.size() > 5 || std::stoi(port) == 0 || std::stoi(port) > 65535) {
        return invalidArgument("bmc '" + spec + "' has an invalid port '" + port + "'");
      }
    }
    if (!names.insert(t.name).second) {
      return invalidArgument("bmc name '" + t.name + "' is listed twice");
    }
    targets.push_back(std::move(t));
  }
  return targets;
}

Status validateConfig(const MonitorConfig& c) {
  if (c.recheck_ms > c.interval_ms) {
    return invalidArgument("recheck-ms (" + std::to_string(c.recheck_ms) +
                           ") must not exceed interval-ms (" + std::to_string(c.interval_ms) + ")");
  }
  if (c.retransmission_timeout_ms >= c.session_timeout_ms) {
    return invalidArgument("retransmission-timeout-ms (" + std::to_string(c.retransmission_timeout_ms) +
                           ") must be less than session-timeout-ms (" +
                           std::to_string(c.session_timeout_ms) + ")");
  }
  if (c.retry_min_ms > c.retry_max_ms) {
    return invalidArgument("retry-min-ms must not exceed retry-max-ms");
  }
  static const std::set<std::string> kWorkarounds = {
      "opensesspriv", "authcap", "intel20", "supermicro20", "sun20", "integritycheckvalue"};
  for (const auto& w : c.workaround) {
    if (!kWorkarounds.contains(w)) return invalidArgument("unknown workaround '" + w + "'");
  }
  return parseBmcTargets(c.bmc).status();
}

StateMachineOptions stateMachineOptions(const MonitorConfig& c) {
  return {.debounce_readings = static_cast<int>(c.debounce),
          .hysteresis_fraction = c.hysteresis_percent / 100.0,
          .flap_max_changes = static_cast<int>(c.flap_changes),
          .flap_window = std::chrono::seconds(c.flap_window_s)};
}

}  // namespace ftb::ipmi
