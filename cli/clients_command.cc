// ftbctl clients: the clients connected to the agent, their subscriptions and traffic.
#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "cli/agent_connection.h"
#include "cli/command.h"
#include "cli/output.h"

namespace ftb::cli {
namespace {

void printJson(const proto::ClientsReply& reply) {
  JsonWriter j;
  j.beginObject().key("clients").beginArray();
  for (const proto::ClientInfo& c : reply.clients()) {
    j.beginObject();
    j.key("name").value(c.client_name());
    j.key("space").value(c.event_space());
    j.key("job_id").value(c.job_id());
    if (c.has_rank()) j.key("rank").value(c.rank());
    j.key("host").value(c.origin().host());
    j.key("pid").value(c.origin().pid());
    j.key("process_start_ns").value(c.origin().process_start_ns());
    j.key("peer").beginObject();
    j.key("uid").value(c.peer().uid());
    j.key("pid").value(c.peer().pid());
    j.key("agent").value(c.peer().agent());
    j.key("credentials_known").value(c.peer().credentials_known());
    j.key("uid_known").value(c.peer().uid_known());
    j.endObject();
    j.key("subscriptions").beginArray();
    for (const auto& s : c.subscriptions()) {
      j.beginObject()
          .key("id")
          .value(s.subscription_id())
          .key("filter")
          .value(s.filter())
          .endObject();
    }
    j.endArray();
    j.key("declarations").beginArray();
    for (const auto& d : c.declarations()) {
      j.beginObject();
      j.key("name").value(d.name());
      j.key("severity").value(proto::Severity_Name(d.severity()));
      j.endObject();
    }
    j.endArray();
    j.key("events_published").value(c.events_published());
    j.key("events_delivered").value(c.events_delivered());
    j.key("events_dropped").value(c.events_dropped());
    j.key("queue_depth").value(c.queue_depth());
    j.key("connected_ms").value(c.connected_ms());
    j.endObject();
  }
  j.endArray().endObject();
  std::cout << j.str() << std::endl;
}

void printTable(const proto::ClientsReply& reply, bool with_header) {
  const uint64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  Table t({"NAME", "SPACE", "JOB", "HOST/PID", "UID", "CONNECTED", "PUBLISHED", "DELIVERED",
           "DROPPED", "QUEUE", "SUBSCRIPTIONS"});
  for (const proto::ClientInfo& c : reply.clients()) {
    std::string subscriptions;
    for (const auto& s : c.subscriptions()) {
      if (!subscriptions.empty()) subscriptions += "; ";
      subscriptions += "#" + std::to_string(s.subscription_id()) + " " +
                       (s.filter().empty() ? "(all events)" : printable(s.filter()));
    }
    t.addRow({printable(c.client_name()), printable(c.event_space()),
              c.job_id().empty() ? "-" : printable(c.job_id()) + (c.has_rank() ? ":" + std::to_string(c.rank()) : ""),
              printable(c.origin().host()) + "/" + std::to_string(c.origin().pid()),
              c.peer().uid_known() ? std::to_string(c.peer().uid()) : "-",
              formatDuration(now_ms > c.connected_ms() ? now_ms - c.connected_ms() : 0) + " ago",
              std::to_string(c.events_published()), std::to_string(c.events_delivered()),
              std::to_string(c.events_dropped()), std::to_string(c.queue_depth()),
              subscriptions.empty() ? "-" : subscriptions});
  }
  t.print(std::cout, with_header);
  std::cout.flush();
}

}  // namespace

Command addClientsCommand(CLI::App& app, const GlobalOptions& globals) {
  CLI::App* sub = app.add_subcommand(
      "clients", "List the clients connected to the agent, their subscriptions and traffic");
  return {sub, [&globals]() -> int {
            Result<ControlClient> control = connectControl(globals);
            if (!control.ok()) return fail("clients", control.status());
            Result<proto::ClientsReply> clients = control->clients(globals.timeout());
            if (!clients.ok()) return fail("clients", clients.status());
            if (globals.json) {
              printJson(*clients);
            } else {
              printTable(*clients, !globals.no_headers);
            }
            return kExitOk;
          }};
}

}  // namespace ftb::cli
