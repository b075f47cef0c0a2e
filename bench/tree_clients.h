// The SDK clients of the tree benchmark: a subscriber that times each event
// from its publish time to its delivery, and a publisher that streams at a
// set rate (or as fast as the agent takes them). Both live on threads of the
// benchmark process; the agents are separate processes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/client.h"

namespace ftb::bench {

// Subscribes one client to `filter`. Events with StreamPublisher's stream
// payload are counted and timed, and counted per stream (the payload says
// which); any other event (warm-ups, FTB.AGENT reports) is kept whole.
uint64_t wallNs();

class EventSink {
 public:
  static Result<std::unique_ptr<EventSink>> start(const std::string& endpoint,
                                                  const std::string& filter,
                                                  const std::string& name);
  ~EventSink();

  uint64_t streamEvents() const { return stream_events_.load(); }
  uint64_t otherEvents() const { return other_events_.load(); }
  uint64_t missed() const { return missed_.load(); }
  // Stream events of stream `stream` (PublishPlan::stream) ever received: not
  // cleared by reset(), so that a late arrival still counts for its own stream.
  uint64_t eventsOfStream(int stream) const;
  static constexpr int kStreams = 16;
  // CLOCK_MONOTONIC ns of the first and the latest stream event since reset(); 0 = none.
  uint64_t firstNs() const { return first_ns_.load(); }
  uint64_t lastNs() const { return last_ns_.load(); }
  // Per stream event: its publish time (the publisher's wall clock, same
  // machine) to this callback.
  std::vector<uint64_t> latenciesNs() const;
  std::vector<std::string> otherPayloads() const;
  // Any other event's name and publish time (the publishing agent's wall
  // clock, same machine), in arrival order: detection times after a kill.
  struct Stamped {
    std::string event_name;
    uint64_t published_wall_ns = 0;
  };
  std::vector<Stamped> otherStamps() const;
  void reset();

 private:
  EventSink() = default;
  void onNotification(const Notification& n);

  std::unique_ptr<Client> client_;
  std::atomic<uint64_t> stream_events_{0}, other_events_{0}, missed_{0}, first_ns_{0}, last_ns_{0};
  std::atomic<uint64_t> per_stream_[kStreams] = {};
  mutable std::mutex mutex_;
  std::vector<uint64_t> latencies_ns_;
  std::vector<std::string> other_payloads_;
  std::vector<Stamped> other_stamps_;
};

struct PublishPlan {
  double per_second = 0;  // 0: as fast as publish() accepts
  uint64_t max_events = UINT64_MAX;
  std::chrono::milliseconds duration{std::chrono::hours(1)};  // stop publishing after
  int stream = 0;  // which stream (0..EventSink::kStreams - 1) the payload names
};

class StreamPublisher {
 public:
  static Result<std::unique_ptr<StreamPublisher>> connect(const std::string& endpoint,
                                                          const std::string& event_space,
                                                          const std::string& name);
  ~StreamPublisher();

  // Publishes on a thread of its own; kResourceExhausted (a full publish
  // buffer) is retried after 50 us and counted.
  void start(PublishPlan plan);
  // Waits for the thread, then for the agent's acknowledgement of everything.
  Status finish(std::chrono::milliseconds flush_timeout);
  // One event, now, with payload "warm-up <tag>" (route checks); streamed
  // events carry kStreamPayload followed by their stream's number.
  Status publishWarmUp(std::string_view tag);
  static constexpr std::string_view kStreamPayload = "b";
  static std::string streamPayload(int stream) { return std::string(kStreamPayload) + std::to_string(stream); }

  uint64_t published() const { return published_.load(); }
  uint64_t retries() const { return retries_.load(); }

 private:
  StreamPublisher() = default;
  std::unique_ptr<Client> client_;
  std::thread thread_;
  std::atomic<uint64_t> published_{0}, retries_{0};
  Status error_;
};

}  // namespace ftb::bench
