// ftbctl publish: declare one event and publish it (or --count copies), through
// the SDK, waiting until the agent has acknowledged every copy.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/agent_connection.h"
#include "cli/command.h"
#include "cli/output.h"
#include "client/names.h"

namespace ftb::cli {
namespace {

struct PublishOptions {
  std::string space;
  std::string name;
  std::string severity;
  std::string payload;
  std::vector<std::string> tags;  // KEY=VALUE
  std::string client_name = "ftbctl";
  std::string job_id;
  uint64_t count = 1;
};

Tags parseTags(const std::vector<std::string>& tags) {
  Tags out;
  for (const std::string& tag : tags) {
    const std::size_t eq = tag.find('=');  // checked by the option's validator
    out[tag.substr(0, eq)] = tag.substr(eq + 1);
  }
  return out;
}

int runPublish(const GlobalOptions& globals, const PublishOptions& o) {
  Result<Severity> severity = parseSeverity(o.severity);
  if (!severity.ok()) return fail("publish", kExitUsage, severity.status().message());
  const Tags tags = parseTags(o.tags);

  Result<std::unique_ptr<Client>> connected = connectClient(
      globals, {.event_space = o.space, .client_name = o.client_name, .job_id = o.job_id});
  if (!connected.ok()) return fail("publish", connected.status());
  Client& client = **connected;
  if (Status s = client.declare({{o.name, *severity}}); !s.ok()) return fail("publish", s);

  std::vector<EventId> ids;
  ids.reserve(o.count);
  while (ids.size() < o.count) {
    Result<EventId> id = client.publish(o.name, o.payload, tags);
    if (!id.ok() && id.status().code() == Code::kResourceExhausted && !ids.empty()) {
      // The SDK's publish buffer is full: let the agent catch up, then go on.
      if (Status s = client.flush(globals.timeout()); !s.ok()) return fail("publish", s);
      id = client.publish(o.name, o.payload, tags);
    }
    if (!id.ok()) return fail("publish", id.status());
    ids.push_back(*id);
  }
  if (Status s = client.flush(globals.timeout()); !s.ok()) {
    return fail("publish", kExitUnreachable,
                s.message() + ": the agent at " + globals.agent +
                    " is slow or gone; retry with a larger --timeout-ms or check the agent");
  }
  // A refused event is still acknowledged; the refusal (an Error) arrives before the ack.
  if (const ClientStats stats = client.stats(); stats.agent_errors > 0) {
    return fail("publish", kExitRejected, "the agent refused the event: " + stats.last_agent_error);
  }
  for (const EventId& id : ids) {
    if (globals.json) {
      JsonWriter j;
      j.beginObject();
      j.key("id").value(id.toString());
      j.key("space").value(toUpper(o.space));
      j.key("name").value(toUpper(o.name));
      j.key("severity").value(severityName(*severity));
      j.endObject();
      std::cout << j.str() << "\n";
    } else {
      std::cout << id.toString() << "\n";
    }
  }
  std::cout.flush();
  (void)client.disconnect(globals.timeout());
  return kExitOk;
}

}  // namespace

Command addPublishCommand(CLI::App& app, const GlobalOptions& globals) {
  auto o = std::make_shared<PublishOptions>();
  CLI::App* sub = app.add_subcommand(
      "publish",
      "Declare an event and publish it; prints its id once the agent has acknowledged it");
  sub->add_option("--space", o->space, "Event space (namespace) to publish in, e.g. FTB.TEST.DEMO")
      ->required();
  sub->add_option("--name", o->name, "Event name, e.g. NODE_HOT")->required();
  sub->add_option("--severity", o->severity, "info, warning, error or fatal")
      ->required()
      ->check(CLI::IsMember({"info", "warning", "error", "fatal"}, CLI::ignore_case));
  sub->add_option("--payload", o->payload, "Event payload (bytes)");
  sub->add_option("--tag", o->tags, "A KEY=VALUE tag; repeat for several")
      ->check(CLI::Validator(
          [](std::string& tag) -> std::string {
            const std::size_t eq = tag.find('=');
            if (eq == std::string::npos || eq == 0) return "tag '" + tag + "' is not KEY=VALUE";
            return {};
          },
          "KEY=VALUE"));
  sub->add_option("--client-name", o->client_name, "Client name the event carries")
      ->capture_default_str();
  sub->add_option("--job-id", o->job_id, "Job id the event carries");
  sub->add_option("--count", o->count, "Publish N copies")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 24));
  return {sub, [&globals, o] { return runPublish(globals, *o); }};
}

}  // namespace ftb::cli
