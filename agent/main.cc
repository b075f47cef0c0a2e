// ftb-agent: parse and check the configuration, start the agent; SIGHUP
// reloads the configuration, SIGINT/SIGTERM stop it (after draining queued
// events). Two more modes for the service manager (deploy/ftb-agent.service):
//   --check-config  check the configuration as a start would, then exit
//   --reload PID    ask the agent PID to reload and wait for its answer
//   --print-config-template  print deploy/ftb-agent.conf as this build makes it
#include <signal.h>
#include <sys/resource.h>

#include <csignal>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/config/agent_command_line.h"
#include "agent/config/config_check.h"
#include "agent/config/reload_request.h"
#include "agent/config/settings_text.h"
#include "daemon/command_line.h"
#include "daemon/daemon_logging.h"

namespace {

constexpr std::chrono::seconds kReloadAnswerTimeout{60};

// The soft descriptor limit up to the hard one (systemd's default soft limit
// is 1024, its hard one 524288): connections are bounded by the agent itself.
void raiseDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  const rlim_t was = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) == 0) {
    spdlog::debug("descriptor limit raised from {} to {}", was, limit.rlim_max);
  }
}

ftb::agent::Agent* g_agent = nullptr;
void onStopSignal(int) {
  if (g_agent != nullptr) g_agent->requestStop();
}
void onReloadSignal(int, siginfo_t* info, void*) {
  if (g_agent == nullptr) return;
  // Only a sender that asked for an answer gets one (reload_request.h).
  const bool wants_answer = info != nullptr && info->si_code == SI_QUEUE &&
                            info->si_value.sival_int == ftb::agent::kReloadRequest;
  g_agent->requestReload(wants_answer ? info->si_pid : 0);
}

}  // namespace

int main(int argc, char** argv) {
  ftb::agent::AgentConfig config;
  auto app = ftb::agent::makeAgentCommandLine(config);
  bool check_only = false;
  pid_t reload_pid = 0;
  // Modes of this invocation, not settings: never read from the --config file.
  ftb::daemon::addCheckConfigFlag(*app, check_only);
  app->add_option("--reload", reload_pid,
                  "Ask the running agent with this process id to reload its configuration and "
                  "wait for its answer: exit 0 when applied, 1 when refused (systemctl reload)")
      ->configurable(false);
  bool print_template = false;
  app->add_flag("--print-config-template", print_template,
                "Print a configuration file with every setting at its default and its help, "
                "and exit (deploy/ftb-agent.conf is this output)")
      ->configurable(false);
  if (auto done = ftb::daemon::parseCommandLine(*app, argc, argv, "ftb-agent")) return *done;
  if (print_template) {
    std::fputs(ftb::agent::configTemplate().c_str(), stdout);
    return 0;
  }

  if (reload_pid != 0) {
    auto answer = ftb::agent::requestReloadAndWait(reload_pid, kReloadAnswerTimeout);
    if (!answer.ok()) {
      ftb::daemon::reportStartupError("ftb-agent", answer.status().message());
      return 1;
    }
    // Applied what can change now: a success, with a warning for the rest.
    if (*answer == ftb::agent::ReloadOutcome::kAppliedRestartPending) {
      std::fprintf(stderr,
                   "ftb-agent: configuration applied, but some changed settings take effect only "
                   "at restart; the agent's log names them (journalctl -u ftb-agent)\n");
    }
    return 0;
  }
  if (ftb::Status s = ftb::agent::checkAgentConfig(config); !s.ok()) {
    ftb::daemon::reportStartupError("ftb-agent", "configuration refused: " + s.message());
    return 2;
  }
  if (check_only) {
    if (const std::string notice = ftb::agent::treeDisabledNotice(config); !notice.empty()) {
      std::fprintf(stderr, "ftb-agent: %s\n", notice.c_str());
    }
    return ftb::daemon::configurationOk("ftb-agent");
  }

  ftb::daemon::setUpLogging(config.log_level);
  raiseDescriptorLimit();
  auto agent = ftb::agent::Agent::create(config);
  if (!agent.ok()) {
    ftb::daemon::reportStartupError("ftb-agent", agent.status().message());
    return 2;
  }
  // A reload parses the same command line again, and so the --config file as it is now.
  const std::vector<std::string> args(argv + 1, argv + argc);
  (*agent)->setConfigReloader([args] { return ftb::agent::parseAgentCommandLine(args); });
  g_agent = agent->get();
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  struct sigaction reload {};
  reload.sa_sigaction = onReloadSignal;
  reload.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&reload.sa_mask);
  sigaction(SIGHUP, &reload, nullptr);
  (*agent)->run();
  g_agent = nullptr;
  return 0;
}
