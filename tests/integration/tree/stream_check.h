// Test support for the tree tests: publishers that stream numbered events
// and subscribers that record, per publisher, the sequence of what arrived,
// so a test can assert "every event exactly once, in publish order".
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/client.h"

namespace ftb::testing {

class Recorder {
 public:
  // Subscribes a new client of the agent at `endpoint` to `filter`.
  Recorder(const std::string& endpoint, const std::string& filter, const std::string& name);
  ~Recorder();
  std::size_t total() const;
  uint64_t missed() const;
  // "" when each publisher in `expected` (key -> events published) arrived
  // exactly once, in order; else the first discrepancy.
  std::string check(const std::map<std::string, uint64_t>& expected) const;
  std::vector<std::string> payloads() const;  // of every event, in arrival order

 private:
  std::unique_ptr<Client> client_;
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<uint64_t>> seqs_;  // publisher key -> arrival order
  std::vector<std::string> payloads_;
  uint64_t missed_ = 0;
};

// Publishes `count` events of `space` from a client of `endpoint` on its own
// thread, about `per_second` a second.
class Streamer {
 public:
  Streamer(const std::string& endpoint, const std::string& space, const std::string& name,
           uint64_t count, double per_second);
  ~Streamer();
  void join();
  const std::string& publisherKey() const { return key_; }
  uint64_t published() const { return published_.load(); }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  std::unique_ptr<Client> client_;
  std::string key_;
  std::atomic<uint64_t> published_{0};
  std::string error_;
  std::thread thread_;
};

// Repair times (ms, sorted) from the FTB.AGENT events `watcher` recorded
// (their payloads carry repair_ms=...).
std::vector<double> repairTimesMs(const Recorder& watcher);

// Subscriptions travel through the tree asynchronously. Publishes canary
// events into `space` from a client of each agent in `publisher_endpoints`
// until every subscriber has seen one from each: then routes are in place.
// False on timeout.
bool awaitRoutes(const std::vector<std::string>& publisher_endpoints, const std::string& space,
                 const std::vector<Recorder*>& subscribers,
                 std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace ftb::testing
