// ftb-ib: InfiniBand fabric monitor. Parses the configuration, connects to the
// ftb-agent, runs the Monitor until SIGINT/SIGTERM. Everything else lives in
// the ib libraries.
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <CLI/CLI.hpp>
#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include "components/ib/config.h"
#include "components/ib/event_sink.h"
#include "components/ib/events.h"
#include "components/ib/ibverbs_devices.h"
#include "components/ib/monitor.h"
#include "components/ib/sysfs_devices.h"
#include "daemon/command_line.h"
#include "daemon/component_start.h"
#include "daemon/daemon_logging.h"
#include "daemon/service_notifier.h"
#include "metrics/http_server.h"

int main(int argc, char** argv) {
  ftb::ib::MonitorConfig config;
  CLI::App app{
      "ftb-ib: watches this node's InfiniBand/RDMA adapters (libibverbs asynchronous events,\n"
      "port state, sysfs error counters) and publishes FTB.IB.<component> events on the fault\n"
      "tolerance backplane, including FTB_IB_PORT_DEGRADED when a port's error counters rise\n"
      "too fast or its link trains below its width or speed.\n"
      "Runs with embedded defaults; every option can also be set in the file given by\n"
      "--config (key = value, same names without dashes).",
      "ftb-ib"};
  app.set_config("--config", "", "Read options from this file (INI/TOML key = value)");
  app.set_version_flag("--version", "ftb-ib 0.1.0");
  ftb::ib::addMonitorOptions(app, config);
  bool check_only = false;
  ftb::daemon::addCheckConfigFlag(app, check_only);
  if (auto done = ftb::daemon::parseCommandLine(app, argc, argv, "ftb-ib")) return *done;

  ftb::Result<ftb::ib::PredictionOptions> prediction = ftb::ib::predictionOptions(config);
  if (!prediction.ok()) {
    ftb::daemon::reportStartupError("ftb-ib", "configuration refused: " + prediction.status().message());
    return 2;
  }
  if (check_only) return ftb::daemon::configurationOk("ftb-ib");
  ftb::daemon::setUpLogging(config.log_level);

  // SIGINT/SIGTERM arrive on a signalfd that the monitor's poll() watches.
  sigset_t signals = ftb::daemon::blockStopSignals();
  const int stop_fd = signalfd(-1, &signals, SFD_CLOEXEC);
  if (stop_fd < 0) {
    ftb::daemon::reportStartupError("ftb-ib", std::string("signalfd failed: ") + std::strerror(errno));
    return 1;
  }
  auto client = ftb::daemon::connectAndDeclare({.event_space = "FTB.IB." + config.component,
                                                .client_name = "ftb-ib",
                                                .agent_endpoint = config.agent_endpoint},
                                               ftb::ib::eventDeclarations());
  if (!client.ok()) {
    ftb::daemon::reportStartupError("ftb-ib", client.status().message());
    return 1;
  }

  ftb::ib::SysfsTree sysfs(config.sysfs_root);
  ftb::ib::IbverbsDevices verbs;
  ftb::ib::SysfsDevices sysfs_devices(sysfs);
  ftb::ib::VerbsDevices& devices =
      config.backend == "sysfs" ? static_cast<ftb::ib::VerbsDevices&>(sysfs_devices) : verbs;
  ftb::ib::SdkEventSink sink(**client);
  auto registry = std::make_shared<prometheus::Registry>();
  auto metrics_server = ftb::metrics::HttpServer::startIfSet(config.metrics_listen, registry);
  if (!metrics_server.ok()) {
    ftb::daemon::reportStartupError("ftb-ib", metrics_server.status().message());
    return 2;
  }
  ftb::ib::Monitor monitor({.interval = std::chrono::milliseconds(config.interval_ms),
                            .prediction = *prediction,
                            .metrics = registry.get()},
                           devices, sysfs, sink);
  spdlog::info("ftb-ib: backend {}, sysfs root {}, sweep every {} ms", config.backend,
               config.sysfs_root, config.interval_ms);
  ftb::daemon::ServiceNotifier notifier;
  notifier.ready("watching RDMA adapters (backend " + config.backend + ")");
  monitor.run(
      stop_fd, [&] { notifier.feedWatchdog(std::chrono::steady_clock::now()); },
      notifier.maxLoopSleep(std::chrono::milliseconds(config.interval_ms)));
  notifier.stopping("stopping");
  spdlog::info("stopping");
  (void)(*client)->disconnect();
  close(stop_fd);
  return 0;
}
