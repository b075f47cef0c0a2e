#include "tests/integration/tree/stream_check.h"

#include <algorithm>
#include <sstream>

#include "client/payload_fields.h"
#include "tests/support/agent_process.h"
#include "tests/support/test_clients.h"

namespace ftb::testing {

Recorder::Recorder(const std::string& endpoint, const std::string& filter, const std::string& name) {
  client_ = connectOrFail(endpoint, "FTB.TREETEST.SUB", name);
  auto sub = client_->subscribe({.filter = filter, .callback = [this](const Notification& n) {
                                   std::lock_guard lock(mutex_);
                                   if (n.kind == Notification::Kind::kMissed) {
                                     missed_ += n.missed;
                                     return;
                                   }
                                   seqs_[n.event.id.publisherKey()].push_back(n.event.id.seq);
                                   payloads_.push_back(n.event.payload);
                                 }});
  BOOST_REQUIRE_MESSAGE(sub.ok(), sub.status().toString());
}

Recorder::~Recorder() { (void)client_->disconnect(); }

std::size_t Recorder::total() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [key, seqs] : seqs_) n += seqs.size();
  return n;
}

uint64_t Recorder::missed() const {
  std::lock_guard lock(mutex_);
  return missed_;
}

std::vector<std::string> Recorder::payloads() const {
  std::lock_guard lock(mutex_);
  return payloads_;
}

std::string Recorder::check(const std::map<std::string, uint64_t>& expected) const {
  std::lock_guard lock(mutex_);
  for (const auto& [key, count] : expected) {
    auto it = seqs_.find(key);
    const std::size_t got = it == seqs_.end() ? 0 : it->second.size();
    for (std::size_t i = 0; i < got; ++i) {
      if (it->second[i] != i + 1) {
        std::ostringstream why;
        why << key << ": event " << i << " arrived as #" << it->second[i] << " (expected #" << i + 1
            << ")";
        return why.str();
      }
    }
    if (got != count) return key + ": " + std::to_string(got) + " of " + std::to_string(count) + " events";
  }
  return "";
}

std::vector<double> repairTimesMs(const Recorder& watcher) {
  std::vector<double> ms;
  for (const auto& p : watcher.payloads()) {
    if (const std::string v = payloadField(p, "repair_ms"); !v.empty()) ms.push_back(std::stod(v));
  }
  std::sort(ms.begin(), ms.end());
  return ms;
}

bool awaitRoutes(const std::vector<std::string>& publisher_endpoints, const std::string& space,
                 const std::vector<Recorder*>& subscribers, std::chrono::milliseconds timeout) {
  std::vector<std::unique_ptr<Client>> canaries;
  for (const auto& endpoint : publisher_endpoints) {
    canaries.push_back(connectOrFail(endpoint, space, "canary"));
    BOOST_REQUIRE(canaries.back()->declare({{"CANARY", Severity::kInfo}}).ok());
  }
  auto seen_all = [&] {
    for (const Recorder* sub : subscribers) {
      const auto payloads = sub->payloads();
      for (const auto& endpoint : publisher_endpoints) {
        if (std::find(payloads.begin(), payloads.end(), "canary:" + endpoint) == payloads.end()) {
          return false;
        }
      }
    }
    return true;
  };
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!seen_all()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    for (std::size_t i = 0; i < canaries.size(); ++i) {
      (void)canaries[i]->publish("CANARY", "canary:" + publisher_endpoints[i]);
    }
    waitFor(seen_all, std::chrono::milliseconds(50));
  }
  for (auto& c : canaries) (void)c->disconnect();
  return true;
}

Streamer::Streamer(const std::string& endpoint, const std::string& space, const std::string& name,
                   uint64_t count, double per_second) {
  client_ = connectOrFail(endpoint, space, name);
  BOOST_REQUIRE(client_->declare({{"TICK", Severity::kInfo}}).ok());
  thread_ = std::thread([this, count, per_second] {
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 1; i <= count; ++i) {
      auto id = client_->publish("TICK", std::to_string(i));
      if (!id.ok()) {
        error_ = id.status().toString();
        return;
      }
      if (i == 1) key_ = id->publisherKey();
      published_.store(i);
      // Pace the stream so that faults land in the middle of it.
      const auto due = start + std::chrono::duration<double>(static_cast<double>(i) / per_second);
      std::this_thread::sleep_until(due);
    }
    if (Status s = client_->flush(std::chrono::seconds(30)); !s.ok()) error_ = s.toString();
  });
}

void Streamer::join() {
  if (thread_.joinable()) thread_.join();
}

Streamer::~Streamer() {
  join();
  (void)client_->disconnect();
}

}  // namespace ftb::testing
