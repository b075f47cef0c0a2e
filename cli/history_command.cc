// ftbctl history: the recent events the agent retains, optionally filtered by
// a filter and by publish time (--since/--until).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>

#include "cli/agent_connection.h"
#include "cli/command.h"
#include "cli/duration.h"
#include "cli/event_output.h"
#include "cli/output.h"
#include "client/wire/event_codec.h"

namespace ftb::cli {
namespace {

struct HistoryOptions {
  std::string filter;
  uint32_t last = 0;
  std::string since;  // RFC 3339 or a duration ago; "" = open
  std::string until;
};

UnixNanos nowUnixNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// --since/--until as bounds; the same `now` for both, so "--since 10m --until 5m" is 5 minutes.
Result<HistoryBounds> parseBounds(const HistoryOptions& options) {
  const UnixNanos now = nowUnixNanos();
  HistoryBounds bounds;
  if (!options.since.empty()) {
    Result<UnixNanos> since = parseTimeBound(options.since, now);
    if (!since.ok()) return invalidArgument("--since: " + since.status().message());
    bounds.since_unix_ns = std::max<UnixNanos>(*since, 1);  // 0 would mean "open"
  }
  if (!options.until.empty()) {
    Result<UnixNanos> until = parseTimeBound(options.until, now);
    if (!until.ok()) return invalidArgument("--until: " + until.status().message());
    if (*until <= 0) return invalidArgument("--until " + options.until + " lies before 1970");
    bounds.until_unix_ns = *until;
  }
  if (bounds.since_unix_ns != 0 && bounds.until_unix_ns != 0 &&
      bounds.since_unix_ns > bounds.until_unix_ns) {
    return invalidArgument("--since " + options.since + " lies after --until " + options.until +
                           ": no event can be in between");
  }
  return bounds;
}

bool within(const Event& event, const HistoryBounds& bounds) {
  const int64_t published = event.time_sec * 1'000'000'000 + event.time_nsec;
  return (bounds.since_unix_ns == 0 || published >= bounds.since_unix_ns) &&
         (bounds.until_unix_ns == 0 || published <= bounds.until_unix_ns);
}

int runHistory(const GlobalOptions& globals, const HistoryOptions& options) {
  Result<HistoryBounds> bounds = parseBounds(options);
  if (!bounds.ok()) return fail("history", kExitUsage, bounds.status().message());
  Result<ControlClient> control = connectControl(globals);
  if (!control.ok()) return fail("history", control.status());
  Result<proto::HistoryReply> history =
      control->history(options.filter, options.last, *bounds, globals.timeout());
  if (!history.ok()) {
    if (history.status().code() == Code::kInvalidArgument) {
      return fail("history", kExitRejected,
                  "the agent rejected --filter: " + history.status().message() +
                      " (filter syntax: docs/FILTERS.md)");
    }
    return fail("history", history.status());
  }
  Table table(eventHeaderCells());
  uint64_t unreadable = 0;
  for (const std::string& bytes : history->events()) {
    proto::Event parsed;
    if (!parsed.ParseFromString(bytes)) {
      ++unreadable;
      continue;
    }
    const Event event = fromProto(parsed);
    // The agent filters by time already; an agent older than the bounds
    // ignores them, and then this keeps the answer true (docs/FTBCTL.md).
    if (!within(event, *bounds)) continue;
    if (globals.json) {
      std::cout << eventJson(event) << "\n";
    } else {
      table.addRow(eventCells(event));
    }
  }
  if (!globals.json) table.print(std::cout, !globals.no_headers);
  std::cout.flush();
  if (unreadable > 0) {
    std::cerr << "ftbctl history: skipped " << unreadable
              << " event(s) that do not parse; is the agent a newer version than ftbctl?"
              << std::endl;
  }
  return kExitOk;
}

}  // namespace

Command addHistoryCommand(CLI::App& app, const GlobalOptions& globals) {
  auto options = std::make_shared<HistoryOptions>();
  CLI::App* sub =
      app.add_subcommand("history", "Show the recent events the agent retains (oldest first)");
  sub->add_option("--filter", options->filter,
                  "Only events matching this filter (docs/FILTERS.md), e.g. "
                  "'event_space=FTB.MPI.*, severity>=warning'");
  sub->add_option("--last", options->last,
                  "Only the newest N matching events (within --since/--until; 0: all retained)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--since", options->since,
                  "Only events published at or after TIME: an RFC 3339 time "
                  "(2026-11-25T16:00:00Z) or a duration ago (10m, 2h, 1d)")
      ->type_name("TIME");
  sub->add_option("--until", options->until,
                  "Only events published at or before TIME (same forms as --since)")
      ->type_name("TIME");
  return {sub, [&globals, options] { return runHistory(globals, *options); }};
}

}  // namespace ftb::cli
