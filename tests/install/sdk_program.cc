// A program using ftb's C++ SDK as an installed library: compiled and linked
// outside Bazel with `pkg-config ftb-cpp`. It publishes an event to itself
// through the agent named by FTB_AGENT_ENDPOINT, polls it back and prints
// "received <payload>". Exit status: 0 on success, 1 + the step that failed.
#include <cstdlib>
#include <iostream>

#include "client/client.h"

int main() {
  const char* endpoint = std::getenv("FTB_AGENT_ENDPOINT");
  auto client = ftb::Client::connect({.event_space = "FTB.TEST.SDK",
                                      .client_name = "sdk-program",
                                      .agent_endpoint = endpoint ? endpoint : ""});
  if (!client.ok()) {
    std::cerr << client.status().toString() << "\n";
    return 2;
  }
  if (!(*client)->declare({{"SDK_EVENT", ftb::Severity::kInfo}}).ok()) return 3;
  auto sub = (*client)->subscribe({.filter = "event_space=FTB.TEST.SDK", .polling = true});
  if (!sub.ok()) return 4;
  if (!(*client)->publish("SDK_EVENT", "hello from the installed SDK").ok()) return 5;
  auto got = (*client)->poll(*sub, std::chrono::seconds(10));
  if (!got.ok() || !got->has_value()) return 6;
  std::cout << "received " << (*got)->event.payload << "\n";
  return (*client)->disconnect().ok() ? 0 : 7;
}
