// Test support: an SDK subscriber that records what a component publishes,
// and waits for the events a test expects.
//
//   EventCollector events(agent.ipcEndpoint(), "event_space=FTB.IB.*");  // subscribe first
//   auto e = events.waitFor([](const Event& e) { return e.event_name == "X"; }, 2s);
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/client.h"

namespace ftb::testing {

// A payload field of the event ("" when absent): client/payload_fields.h.
std::string field(const Event& event, const std::string& key);

using EventPredicate = std::function<bool(const Event&)>;

class EventCollector {
 public:
  // Subscribes (polling) a client of the agent at `agent_endpoint` to `filter`.
  EventCollector(const std::string& agent_endpoint, const std::string& filter);

  // First event at index >= `from` matching `predicate`, waiting up to `timeout`.
  std::optional<Event> waitFor(const EventPredicate& predicate, std::chrono::milliseconds timeout,
                               std::size_t from = 0);
  // Index of the first event matching, as waitFor; for "what came after it".
  std::optional<std::size_t> waitForIndex(const EventPredicate& predicate,
                                          std::chrono::milliseconds timeout, std::size_t from = 0);
  // Everything received so far (after collecting what is queued).
  std::vector<Event> events();
  std::size_t count(const EventPredicate& predicate, std::size_t from = 0);
  std::size_t size() { return events().size(); }

 private:
  void drain(std::chrono::milliseconds wait);

  std::unique_ptr<Client> client_;
  SubscriptionId subscription_ = 0;
  std::vector<Event> events_;
};

}  // namespace ftb::testing
