// ftbctl watch: subscribe and print matching events as they arrive, until
// --count events, --timeout, or SIGINT/SIGTERM.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>

#include "cli/agent_connection.h"
#include "cli/command.h"
#include "cli/duration_option.h"
#include "cli/event_output.h"

namespace ftb::cli {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often the wait for events looks at the stop flag: the latency of Ctrl-C.
constexpr milliseconds kStopCheck{50};
// The event space ftbctl's watching client registers under (it publishes nothing).
constexpr std::string_view kWatchSpace = "FTB.FTBCTL";

volatile std::sig_atomic_t g_stop = 0;

void onStopSignal(int signal) {
  g_stop = 1;
  std::signal(signal, SIG_DFL);  // a second Ctrl-C ends ftbctl at once
}

void installStopHandlers() {
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: let blocking waits return
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", s);
  return buf;
}

struct WatchOptions {
  std::string filter;
  uint64_t count = 0;
  double timeout_s = 0;
  uint32_t last = 0;
  std::string client_name = "ftbctl";
};

int runWatch(const GlobalOptions& globals, const WatchOptions& o) {
  installStopHandlers();
  Result<std::unique_ptr<Client>> connected = connectClient(
      globals, {.event_space = std::string(kWatchSpace), .client_name = o.client_name});
  if (!connected.ok()) return fail("watch", connected.status());
  Client& client = **connected;

  SubscribeOptions subscribe{.filter = o.filter, .polling = true};
  if (o.last > 0) subscribe.history = HistoryReplay{.last_n = o.last};
  Result<SubscriptionId> sub = client.subscribe(std::move(subscribe));
  if (!sub.ok()) {
    if (sub.status().code() == Code::kInvalidArgument) {
      return fail(
          "watch", kExitRejected,
          "invalid --filter: " + sub.status().message() + " (filter syntax: docs/FILTERS.md)");
    }
    return fail("watch", sub.status());
  }

  const auto deadline = o.timeout_s > 0
                            ? Clock::now() + std::chrono::ceil<milliseconds>(
                                                 std::chrono::duration<double>(o.timeout_s))
                            : Clock::time_point::max();
  EventTableStream table;
  if (!globals.json && !globals.no_headers) std::cout << table.header() << std::endl;
  uint64_t received = 0;
  bool timed_out = false;
  bool agent_up = true;
  while (g_stop == 0 && (o.count == 0 || received < o.count)) {
    // The SDK reconnects and re-subscribes by itself; say so, as events published
    // while no agent ran are not seen.
    if (const bool now_connected = client.stats().connected; now_connected != agent_up) {
      agent_up = now_connected;
      std::cerr << "ftbctl watch: "
                << (agent_up
                        ? "reconnected to the agent at " + globals.agent
                        : "lost the agent at " + globals.agent + "; reconnecting (Ctrl-C to stop)")
                << std::endl;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    const milliseconds wait =
        deadline == Clock::time_point::max()
            ? kStopCheck
            : std::min(kStopCheck, std::chrono::ceil<milliseconds>(deadline - now));
    Result<std::optional<Notification>> next = client.poll(*sub, wait);
    if (!next.ok()) return fail("watch", next.status());
    if (!next->has_value()) continue;
    const Notification& n = **next;
    if (n.kind == Notification::Kind::kMissed) {
      std::cout << (globals.json ? missedJson(n.missed) : missedTableRow(n.missed)) << std::endl;
      continue;
    }
    ++received;
    std::cout << (globals.json ? eventJson(n.event) : table.row(n.event)) << std::endl;
  }
  (void)client.disconnect(milliseconds(0));
  if (timed_out) {
    if (o.count > 0) {
      return fail("watch", kExitWatchTimeout,
                  std::to_string(received) + " of " + std::to_string(o.count) +
                      " events arrived before --timeout " + seconds(o.timeout_s) +
                      " s ran out: check that the publishers run and --filter matches them, or "
                      "wait longer");
    }
    return kExitWatchTimeout;
  }
  return kExitOk;
}

}  // namespace

Command addWatchCommand(CLI::App& app, const GlobalOptions& globals) {
  auto o = std::make_shared<WatchOptions>();
  CLI::App* sub = app.add_subcommand(
      "watch", "Print matching events as they arrive, until --count events, --timeout or Ctrl-C");
  sub->add_option("--filter", o->filter,
                  "Only events matching this filter (docs/FILTERS.md), e.g. "
                  "'event_space=FTB.MPI.*, severity>=warning'; default: every event");
  sub->add_option("--count", o->count, "Stop (exit 0) after N events (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);  // CLI11 would wrap -3 into an unsigned
  sub->add_option("--timeout", o->timeout_s,
                  "Stop after this long (20s, 500ms, 2m; a plain number is seconds), exit 4, "
                  "even without --count; 0: no limit")
      ->capture_default_str()
      ->transform(durationIn(PlainNumber::kSeconds, std::chrono::nanoseconds(0),
                             std::chrono::hours(24 * 365 * 10)))
      ->type_name("DURATION");
  sub->add_option("--last", o->last,
                  "First replay the newest N retained events that match (history)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--client-name", o->client_name,
                  "Client name this watch shows up as in 'ftbctl clients'")
      ->capture_default_str();
  return {sub, [&globals, o] { return runWatch(globals, *o); }};
}

}  // namespace ftb::cli
