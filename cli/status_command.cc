// ftbctl status: the agent's name, version, uptime, endpoints, load and counters.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/agent_connection.h"
#include "cli/command.h"
#include "cli/output.h"

namespace ftb::cli {
namespace {

void printJson(const proto::StatusReply& s) {
  const proto::Counters& c = s.counters();
  JsonWriter j;
  j.beginObject();
  j.key("agent").value(s.agent_name());
  j.key("version").value(s.version());
  j.key("protocol_version").value(s.protocol_version());
  j.key("uptime_ms").value(s.uptime_ms());
  j.key("endpoints").beginArray();
  for (const auto& e : s.endpoints()) j.value(e);
  j.endArray();
  j.key("clients").value(s.clients());
  j.key("subscriptions").value(s.subscriptions());
  j.key("history_events").value(s.history_events());
  j.key("counters").beginObject();
  j.key("events_in").value(c.events_in());
  j.key("events_out").value(c.events_out());
  j.key("events_dropped").value(c.events_dropped());
  j.key("events_rejected").value(c.events_rejected());
  j.key("bad_frames").value(c.bad_frames());
  j.key("clients_connected_total").value(c.clients_connected_total());
  j.key("clients_expired").value(c.clients_expired());
  j.key("auth_refused").value(c.auth_refused());
  j.endObject();
  j.key("last_auth_refusal").value(s.last_auth_refusal());
  j.endObject();
  std::cout << j.str() << std::endl;
}

void printTable(const proto::StatusReply& s) {
  const proto::Counters& c = s.counters();
  std::string endpoints;
  for (const auto& e : s.endpoints()) endpoints += (endpoints.empty() ? "" : ", ") + e;
  Table t({});
  t.addRow({"agent", printable(s.agent_name())});
  t.addRow({"version",
            printable(s.version()) + " (protocol " + std::to_string(s.protocol_version()) + ")"});
  t.addRow({"uptime", formatDuration(s.uptime_ms())});
  t.addRow({"endpoints", printable(endpoints)});
  t.addRow({"clients", std::to_string(s.clients())});
  t.addRow({"subscriptions", std::to_string(s.subscriptions())});
  t.addRow({"history events", std::to_string(s.history_events())});
  t.addRow({"events in", std::to_string(c.events_in())});
  t.addRow({"events out", std::to_string(c.events_out())});
  t.addRow({"events dropped", std::to_string(c.events_dropped())});
  t.addRow({"events rejected", std::to_string(c.events_rejected())});
  t.addRow({"bad frames", std::to_string(c.bad_frames())});
  t.addRow({"clients connected (total)", std::to_string(c.clients_connected_total())});
  t.addRow({"clients expired", std::to_string(c.clients_expired())});
  t.addRow({"auth refused (Curve)", std::to_string(c.auth_refused())});
  if (!s.last_auth_refusal().empty()) t.addRow({"last auth refusal", printable(s.last_auth_refusal())});
  t.print(std::cout);
  std::cout.flush();
}

}  // namespace

Command addStatusCommand(CLI::App& app, const GlobalOptions& globals) {
  CLI::App* sub = app.add_subcommand(
      "status", "Show the agent's name, version, uptime, endpoints, load and counters");
  return {sub, [&globals]() -> int {
            Result<ControlClient> control = connectControl(globals);
            if (!control.ok()) return fail("status", control.status());
            Result<proto::StatusReply> status = control->status(globals.timeout());
            if (!status.ok()) return fail("status", status.status());
            if (globals.json) {
              printJson(*status);
            } else {
              printTable(*status);
            }
            return kExitOk;
          }};
}

}  // namespace ftb::cli
