#include "bench/tree_clients.h"

#include <algorithm>
#include <cstdlib>

#include "bench/bench_support.h"

namespace ftb::bench {
namespace {

constexpr std::string_view kEventName = "BENCH_TREE";

}  // namespace

uint64_t wallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::unique_ptr<EventSink>> EventSink::start(const std::string& endpoint,
                                                    const std::string& filter,
                                                    const std::string& name) {
  std::unique_ptr<EventSink> sink(new EventSink());
  auto client = Client::connect(
      {.event_space = "FTB.BENCH.SINK", .client_name = name, .agent_endpoint = endpoint});
  if (!client.ok()) return client.status();
  sink->client_ = std::move(*client);
  auto id = sink->client_->subscribe(
      {.filter = filter, .callback = [s = sink.get()](const Notification& n) { s->onNotification(n); }});
  if (!id.ok()) return id.status();
  return sink;
}

EventSink::~EventSink() {
  if (client_) (void)client_->disconnect(std::chrono::milliseconds(0));
}

void EventSink::onNotification(const Notification& n) {
  if (n.kind == Notification::Kind::kMissed) {
    missed_.fetch_add(n.missed);
    return;
  }
  const std::string& payload = n.event.payload;
  const bool streamed = payload.size() >= 2 && payload.size() <= 3 &&
                        payload.starts_with(StreamPublisher::kStreamPayload) &&
                        std::all_of(payload.begin() + 1, payload.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int stream = streamed ? std::atoi(payload.c_str() + 1) : -1;
  if (stream < 0 || stream >= kStreams) {
    std::lock_guard lock(mutex_);
    other_payloads_.push_back(n.event.payload);
    other_stamps_.push_back({n.event.event_name, static_cast<uint64_t>(n.event.time_sec) * 1'000'000'000ULL +
                                                     static_cast<uint64_t>(n.event.time_nsec)});
    other_events_.fetch_add(1);
    return;
  }
  const uint64_t published_ns =
      static_cast<uint64_t>(n.event.time_sec) * 1'000'000'000ULL + n.event.time_nsec;
  const uint64_t now_wall = wallNs();
  const uint64_t now = nowNs();
  uint64_t none = 0;
  first_ns_.compare_exchange_strong(none, now);
  last_ns_.store(now);
  std::lock_guard lock(mutex_);
  latencies_ns_.push_back(now_wall > published_ns ? now_wall - published_ns : 0);
  per_stream_[stream].fetch_add(1);
  stream_events_.fetch_add(1);
}

uint64_t EventSink::eventsOfStream(int stream) const {
  return stream >= 0 && stream < kStreams ? per_stream_[stream].load() : 0;
}

std::vector<uint64_t> EventSink::latenciesNs() const {
  std::lock_guard lock(mutex_);
  return latencies_ns_;
}

std::vector<std::string> EventSink::otherPayloads() const {
  std::lock_guard lock(mutex_);
  return other_payloads_;
}

std::vector<EventSink::Stamped> EventSink::otherStamps() const {
  std::lock_guard lock(mutex_);
  return other_stamps_;
}

void EventSink::reset() {
  std::lock_guard lock(mutex_);
  latencies_ns_.clear();
  other_payloads_.clear();
  other_stamps_.clear();
  stream_events_ = other_events_ = missed_ = first_ns_ = last_ns_ = 0;
}

Result<std::unique_ptr<StreamPublisher>> StreamPublisher::connect(const std::string& endpoint,
                                                                  const std::string& event_space,
                                                                  const std::string& name) {
  std::unique_ptr<StreamPublisher> p(new StreamPublisher());
  auto client =
      Client::connect({.event_space = event_space, .client_name = name, .agent_endpoint = endpoint});
  if (!client.ok()) return client.status();
  p->client_ = std::move(*client);
  if (Status s = p->client_->declare({{std::string(kEventName), Severity::kInfo}}); !s.ok()) return s;
  return p;
}

StreamPublisher::~StreamPublisher() {
  if (thread_.joinable()) thread_.join();
  if (client_) (void)client_->disconnect(std::chrono::milliseconds(0));
}

Status StreamPublisher::publishWarmUp(std::string_view tag) {
  return client_->publish(kEventName, "warm-up " + std::string(tag)).status();
}

void StreamPublisher::start(PublishPlan plan) {
  thread_ = std::thread([this, plan] {
    const std::string payload = streamPayload(plan.stream);
    const auto start = std::chrono::steady_clock::now();
    const auto stop = start + plan.duration;
    for (uint64_t i = 1; i <= plan.max_events; ++i) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= stop) return;
      if (plan.per_second > 0) {
        const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>((i - 1) / plan.per_second));
        if (due > now) std::this_thread::sleep_until(due);
      }
      while (true) {
        auto id = client_->publish(kEventName, payload);
        if (id.ok()) break;
        if (id.status().code() != Code::kResourceExhausted) {
          error_ = id.status();
          return;
        }
        retries_.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
      published_.fetch_add(1);
    }
  });
}

Status StreamPublisher::finish(std::chrono::milliseconds flush_timeout) {
  if (thread_.joinable()) thread_.join();
  if (!error_.ok()) return error_;
  return client_->flush(flush_timeout);
}

}  // namespace ftb::bench
