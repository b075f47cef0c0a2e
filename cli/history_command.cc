// ftbctl history: the recent events the agent retains, optionally filtered.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/agent_connection.h"
#include "cli/command.h"
#include "cli/event_output.h"
#include "client/event_codec.h"

namespace ftb::cli {
namespace {

struct HistoryOptions {
  std::string filter;
  uint32_t last = 0;
};

int runHistory(const GlobalOptions& globals, const HistoryOptions& options) {
  Result<ControlClient> control = connectControl(globals);
  if (!control.ok()) return fail("history", control.status());
  Result<proto::HistoryReply> history =
      control->history(options.filter, options.last, globals.timeout());
  if (!history.ok()) {
    if (history.status().code() == Code::kInvalidArgument) {
      return fail("history", kExitRejected,
                  "the agent rejected --filter: " + history.status().message() +
                      " (filter syntax: docs/FILTERS.md)");
    }
    return fail("history", history.status());
  }
  if (!globals.json) std::cout << eventTableHeader() << "\n";
  uint64_t unreadable = 0;
  for (const std::string& bytes : history->events()) {
    proto::Event parsed;
    if (!parsed.ParseFromString(bytes)) {
      ++unreadable;
      continue;
    }
    const Event event = fromProto(parsed);
    std::cout << (globals.json ? eventJson(event) : eventTableRow(event)) << "\n";
  }
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
  sub->add_option("--last", options->last, "Only the newest N matching events (0: all retained)")
      ->capture_default_str();
  return {sub, [&globals, options] { return runHistory(globals, *options); }};
}

}  // namespace ftb::cli
