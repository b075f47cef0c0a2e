// ftb-ipmi: node health monitor. Parses the configuration, connects to the
// ftb-agent, runs the Monitor until SIGINT/SIGTERM. Everything else lives in
// the ipmi library.
#include <CLI/CLI.hpp>
#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include "components/ipmi/config.h"
#include "components/ipmi/credentials.h"
#include "components/ipmi/event_sink.h"
#include "components/ipmi/events.h"
#include "components/ipmi/monitor.h"
#include "daemon/command_line.h"
#include "daemon/component_start.h"
#include "daemon/daemon_logging.h"
#include "daemon/service_notifier.h"
#include "metrics/http_server.h"

int main(int argc, char** argv) {
  ftb::ipmi::MonitorConfig config;
  CLI::App app{
      "ftb-ipmi: watches BMCs (this node's in-band, or many over IPMI LAN 2.0) and publishes\n"
      "node-health events (FTB.IPMI.<component>) on the fault tolerance backplane.\n"
      "Runs with embedded defaults; every option can also be set in the file given by\n"
      "--config (key = value, same names without dashes).",
      "ftb-ipmi"};
  app.set_config("--config", "", "Read options from this file (INI/TOML key = value)");
  app.set_version_flag("--version", "ftb-ipmi 0.1.0");
  ftb::ipmi::addMonitorOptions(app, config);
  bool check_only = false;
  ftb::daemon::addCheckConfigFlag(app, check_only);
  if (auto done = ftb::daemon::parseCommandLine(app, argc, argv, "ftb-ipmi")) return *done;

  if (ftb::Status s = ftb::ipmi::validateConfig(config); !s.ok()) {
    ftb::daemon::reportStartupError("ftb-ipmi", "configuration refused: " + s.message());
    return 2;
  }
  if (!config.bmc.empty()) {
    // Refuse a readable credentials file before touching the network.
    if (auto creds = ftb::ipmi::CredentialsFile::load(config.credentials_file); !creds.ok()) {
      ftb::daemon::reportStartupError("ftb-ipmi", creds.status().message());
      return 2;
    }
  }
  if (check_only) return ftb::daemon::configurationOk("ftb-ipmi");
  ftb::daemon::setUpLogging(config.log_level);

  if (config.bmc.empty() && !ftb::ipmi::hasInbandDevice(config)) {
    // A node without a BMC is a normal answer, not an error (STYLE.md).
    spdlog::info("no BMC on this node ({} not found) and no --bmc given: nothing to watch",
                 config.inband_device);
    // Started fine and has nothing to do: a Type=notify unit ends "inactive", not "failed".
    ftb::daemon::ServiceNotifier().ready("no BMC on this node: nothing to watch");
    return 0;
  }

  // Signals are taken by sigtimedwait() below, so no thread is interrupted by them.
  sigset_t signals = ftb::daemon::blockStopSignals();
  auto client = ftb::daemon::connectAndDeclare({.event_space = "FTB.IPMI." + config.component,
                                                .client_name = "ftb-ipmi",
                                                .agent_endpoint = config.agent_endpoint},
                                               ftb::ipmi::eventDeclarations());
  if (!client.ok()) {
    ftb::daemon::reportStartupError("ftb-ipmi", client.status().message());
    return 1;
  }
  ftb::ipmi::SdkEventSink sink(**client);
  auto registry = std::make_shared<prometheus::Registry>();
  auto metrics_server = ftb::metrics::HttpServer::startIfSet(config.metrics_listen, registry);
  if (!metrics_server.ok()) {
    ftb::daemon::reportStartupError("ftb-ipmi", metrics_server.status().message());
    return 2;
  }
  auto monitor = ftb::ipmi::Monitor::create(config, sink, registry.get());
  if (!monitor.ok()) {
    ftb::daemon::reportStartupError("ftb-ipmi", monitor.status().message());
    return 2;
  }
  spdlog::info("watching {} BMC(s), sweep every {} ms", (*monitor)->watcherCount(),
               config.interval_ms);
  (*monitor)->start();
  // Connected to the agent, events declared, the first sweeps under way: ready.
  ftb::daemon::ServiceNotifier notifier;
  notifier.ready(fmt::format("watching {} BMC(s)", (*monitor)->watcherCount()));
  int sig = -1;
  while (sig < 0) {
    // The main thread only waits for signals; it feeds systemd's watchdog between waits.
    const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
        notifier.maxLoopSleep(std::chrono::milliseconds(1000)));
    const timespec timeout{static_cast<time_t>(wait.count() / 1'000'000'000),
                           static_cast<long>(wait.count() % 1'000'000'000)};
    sig = sigtimedwait(&signals, nullptr, &timeout);
    notifier.feedWatchdog(std::chrono::steady_clock::now());
  }
  spdlog::info("signal {}: stopping", sig);
  notifier.stopping("stopping");
  (*monitor)->stop();
  (void)(*client)->disconnect();
  return 0;
}
