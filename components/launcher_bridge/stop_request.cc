#include "components/launcher_bridge/stop_request.h"

#include <iostream>

#include "client/client.h"
#include "components/launcher_bridge/launcher.h"

namespace ftb::launcher {

int requestStop(const std::string& job_id, const std::string& agent, std::chrono::milliseconds timeout) {
  auto client = Client::connect({.event_space = "FTB.RUN.CONTROL", .client_name = "ftb-stop",
                                 .job_id = job_id, .agent_endpoint = agent});
  if (!client.ok()) {
    std::cerr << "ftb-run: cannot reach the ftb-agent: " << client.status().toString() << "\n";
    return 4;
  }
  auto sub = (*client)->subscribe(
      {.filter = "event_space=FTB.JL." + job_id + ", event_name=FTB_JOB_STATE|FTB_STOP_FAILED", .polling = true});
  if (!sub.ok()) {
    std::cerr << "ftb-run: " << sub.status().toString() << "\n";
    return 4;
  }
  const std::string name(kStopRequest);
  if (Status s = (*client)->declare({{name, Severity::kWarning}}); !s.ok()) {
    std::cerr << "ftb-run: " << s.toString() << "\n";
    return 4;
  }
  if (auto published = (*client)->publish(name, "stop job " + job_id + " for a later resume"); !published.ok()) {
    std::cerr << "ftb-run: cannot publish " << name << ": " << published.status().toString() << "\n";
    return 4;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto n = (*client)->poll(*sub, std::chrono::milliseconds(200));
    if (!n.ok() || !n->has_value() || (*n)->kind != Notification::Kind::kEvent) continue;
    const Event& e = (*n)->event;
    if (e.event_name == "FTB_STOP_FAILED") {
      std::cerr << "ftb-run: job " << job_id << " was not stopped: " << e.payload << "\n";
      return 1;
    }
    auto state = e.tags.find("state");
    if (state != e.tags.end() && state->second == "stopped") {
      std::cout << e.payload << "\n";
      return 0;
    }
  }
  std::cerr << "ftb-run: no answer from the ftb-run of job " << job_id << " within " << timeout.count()
            << " ms: is it running, and connected to this agent?\n";
  return 3;
}

}  // namespace ftb::launcher
