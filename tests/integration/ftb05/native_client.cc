#include "tests/integration/ftb05/native_client.h"

#include <chrono>
#include <cstdio>
#include <string>

#include "client/client.h"

extern "C" int ftb05_test_native_publish(const char* event_space, const char* event_name,
                                         const char* severity, const char* payload,
                                         size_t payload_len) {
  auto sev = ftb::parseSeverity(severity);
  if (!sev.ok()) return -1;
  auto client = ftb::Client::connect({.event_space = event_space, .client_name = "native"});
  if (!client.ok()) {
    std::fprintf(stderr, "native connect: %s\n", client.status().toString().c_str());
    return -1;
  }
  if (!(*client)->declare({{event_name, *sev}}).ok()) return -1;
  auto id = (*client)->publish(event_name, std::string(payload, payload_len));
  if (!id.ok()) {
    std::fprintf(stderr, "native publish: %s\n", id.status().toString().c_str());
    return -1;
  }
  if (!(*client)->flush(std::chrono::seconds(5)).ok()) return -1;
  (void)(*client)->disconnect();
  return 0;
}
