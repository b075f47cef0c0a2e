// One-way throughput: publisher processes publish as fast as the SDK lets them,
// subscriber processes count what arrives and check that each publisher's
// events arrive in publish order. The orchestrator only coordinates and reads
// the agent's CPU time.
#include <atomic>
#include <functional>
#include <iostream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench/scenarios.h"
#include "client/client.h"

namespace ftb::bench {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kEventName = "BENCH_THROUGHPUT";

// Messages on the orchestrator <-> child channels, in the order they travel.
struct Ready {};
struct Go {};
struct PublisherReport {
  uint64_t published, errors, retries;
  uint64_t start_ns, published_ns, acked_ns;
  bool flushed;
  ProcessUsage usage;
};
struct Expect {
  uint64_t published;
};
struct SubscriberReport {
  uint64_t delivered, missed_notices, missed, duplicates, reordered;
  uint64_t last_delivery_ns;
  ProcessUsage usage;
};

Result<std::unique_ptr<Client>> connectAs(const std::string& endpoint, const char* space,
                                          const char* name) {
  return Client::connect({.event_space = space, .client_name = name, .agent_endpoint = endpoint});
}

int subscriberMain(Channel& channel, const ThroughputOptions& options) {
  auto client = connectAs(options.endpoint, "FTB.BENCH.SINK", "bench-subscriber");
  if (!client.ok()) {
    std::cerr << "ftb_bench subscriber: " << client.status().toString() << "\n";
    return 1;
  }
  Client& c = **client;
  std::atomic<uint64_t> delivered{0}, notices{0}, missed{0}, reordered{0}, last_ns{0};
  // Each publisher's last delivered sequence number (read by one thread: the
  // callback's or the poller's).
  std::unordered_map<std::string, uint64_t> last_seq;
  const uint64_t work_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(options.subscriber_work).count();
  auto count = [&](const Notification& n) {
    if (n.kind == Notification::Kind::kEvent) {
      delivered.fetch_add(1, std::memory_order_relaxed);
      if (options.publishers > 1) {
        uint64_t& last = last_seq[n.event.id.publisherKey()];
        if (n.event.id.seq < last) reordered.fetch_add(1, std::memory_order_relaxed);
        last = std::max(last, n.event.id.seq);
      }
      uint64_t now = nowNs();
      if (work_ns > 0) {
        const uint64_t until = now + work_ns;
        while ((now = nowNs()) < until) {
        }
      }
      last_ns.store(now, std::memory_order_relaxed);
    } else {
      notices.fetch_add(1, std::memory_order_relaxed);
      missed.fetch_add(n.missed, std::memory_order_relaxed);
    }
  };
  SubscribeOptions subscription{.filter = "event_name=" + std::string(kEventName)};
  if (options.poll_subscriber) {
    subscription.polling = true;
  } else {
    subscription.callback = count;
  }
  auto id = c.subscribe(subscription);
  if (!id.ok()) {
    std::cerr << "ftb_bench subscriber: " << id.status().toString() << "\n";
    return 1;
  }
  std::atomic<bool> stop{false};
  std::thread poller;
  if (options.poll_subscriber) {
    poller = std::thread([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        auto n = c.poll(*id, 100ms);
        if (!n.ok()) return;
        if (n->has_value()) count(**n);
      }
    });
  }
  const ProcessUsage usage_before = selfUsage();
  if (!channel.send(Ready{})) return 1;
  Expect expect{};
  if (!channel.recv(&expect, 30min)) return 1;

  // Everything published has been acknowledged by the agent; wait until it has
  // all arrived (or been reported missed), or until nothing moves any more.
  uint64_t seen = 0;
  auto last_change = std::chrono::steady_clock::now();
  while (true) {
    const uint64_t total = delivered.load() + missed.load();
    if (total >= expect.published) break;
    const auto now = std::chrono::steady_clock::now();
    if (total != seen) {
      seen = total;
      last_change = now;
    } else if (now - last_change > options.drain_idle) {
      break;
    }
    std::this_thread::sleep_for(1ms);
  }
  stop.store(true);
  if (poller.joinable()) poller.join();
  SubscriberReport report{.delivered = delivered.load(),
                          .missed_notices = notices.load(),
                          .missed = missed.load(),
                          .duplicates = c.stats().duplicates_suppressed,
                          .reordered = reordered.load(),
                          .last_delivery_ns = last_ns.load(),
                          .usage = selfUsage() - usage_before};
  (void)c.disconnect(0ms);
  return channel.send(report) ? 0 : 1;
}

int publisherMain(Channel& channel, const ThroughputOptions& options) {
  auto client = connectAs(options.endpoint, "FTB.BENCH.SOURCE", "bench-publisher");
  if (!client.ok()) {
    std::cerr << "ftb_bench publisher: " << client.status().toString() << "\n";
    return 1;
  }
  Client& c = **client;
  if (Status s = c.declare({{std::string(kEventName), Severity::kInfo}}); !s.ok()) {
    std::cerr << "ftb_bench publisher: " << s.toString() << "\n";
    return 1;
  }
  if (!channel.send(Ready{})) return 1;
  Go go;
  if (!channel.recv(&go, 60s)) return 1;

  const ProcessUsage usage_before = selfUsage();
  const std::string payload(options.payload_bytes, 'x');
  PublisherReport report{};
  std::string first_error;
  report.start_ns = nowNs();
  for (uint64_t i = 0; i < options.events; ++i) {
    while (true) {
      Result<EventId> id = c.publish(kEventName, payload);
      if (id.ok()) {
        ++report.published;
        break;
      }
      if (id.status().code() == Code::kResourceExhausted) {
        // The publish buffer is full of events the agent has not acknowledged yet.
        ++report.retries;
        std::this_thread::sleep_for(50us);
        continue;
      }
      if (report.errors++ == 0) first_error = id.status().toString();
      break;
    }
  }
  report.published_ns = nowNs();
  report.flushed = c.flush(10min).ok();
  report.acked_ns = nowNs();
  report.usage = selfUsage() - usage_before;
  if (!first_error.empty()) std::cerr << "ftb_bench publisher: first error: " << first_error << "\n";
  (void)c.disconnect(0ms);
  return channel.send(report) ? 0 : 1;
}

// `count` (at least one) child processes running `body`, each of which said Ready.
Result<std::vector<ChildProcess>> spawnReady(const std::string& role, uint32_t count,
                                             const std::function<int(Channel&)>& body) {
  std::vector<ChildProcess> children;
  for (uint32_t i = 0; i < std::max<uint32_t>(1, count); ++i) {
    children.push_back(ChildProcess::spawn(role, body));
    Ready ready;
    if (!children.back().channel().recv(&ready, 15s)) {
      return unavailable("a " + role + " process did not get ready (see its message above)");
    }
  }
  return children;
}

}  // namespace

Result<ThroughputResult> runThroughput(const ThroughputOptions& options) {
  Result<std::vector<ChildProcess>> subscribers = spawnReady(
      "subscriber", options.subscribers, [&](Channel& ch) { return subscriberMain(ch, options); });
  if (!subscribers.ok()) return subscribers.status();
  Result<std::vector<ChildProcess>> publishers = spawnReady(
      "publisher", options.publishers, [&](Channel& ch) { return publisherMain(ch, options); });
  if (!publishers.ok()) return publishers.status();

  const ProcessUsage agent_before = processUsage(options.agent_pid);
  for (auto& p : *publishers) {
    if (!p.channel().send(Go{})) return unavailable("a publisher process is gone");
  }
  // Summed; the first start and the last publish and ack of all.
  PublisherReport pub{.start_ns = UINT64_MAX, .flushed = true};
  for (auto& p : *publishers) {
    PublisherReport one{};
    if (!p.channel().recv(&one, 30min)) {
      return unavailable("a publisher process did not finish (see its message above)");
    }
    pub.published += one.published;
    pub.errors += one.errors;
    pub.retries += one.retries;
    pub.start_ns = std::min(pub.start_ns, one.start_ns);
    pub.published_ns = std::max(pub.published_ns, one.published_ns);
    pub.acked_ns = std::max(pub.acked_ns, one.acked_ns);
    pub.flushed = pub.flushed && one.flushed;
    pub.usage = pub.usage + one.usage;
  }
  for (auto& s : *subscribers) {
    if (!s.channel().send(Expect{pub.published})) return unavailable("a subscriber process is gone");
  }
  SubscriberReport sub{};  // summed; the last delivery is the latest of all
  for (auto& s : *subscribers) {
    SubscriberReport one{};
    if (!s.channel().recv(&one, 30min)) {
      return unavailable("a subscriber process did not report (see its message above)");
    }
    sub.delivered += one.delivered;
    sub.missed_notices += one.missed_notices;
    sub.missed += one.missed;
    sub.duplicates += one.duplicates;
    sub.reordered += one.reordered;
    sub.last_delivery_ns = std::max(sub.last_delivery_ns, one.last_delivery_ns);
    sub.usage = sub.usage + one.usage;
  }
  const ProcessUsage agent_after = processUsage(options.agent_pid);
  for (auto& p : *publishers) (void)p.wait();
  for (auto& s : *subscribers) (void)s.wait();
  if (!pub.flushed) {
    std::cerr << "ftb_bench: the agent did not acknowledge every published event in time\n";
  }

  ThroughputResult r;
  r.published = pub.published;
  r.subscribers = static_cast<uint32_t>(subscribers->size());
  r.publishers = static_cast<uint32_t>(publishers->size());
  r.publish_errors = pub.errors;
  r.resource_exhausted_retries = pub.retries;
  r.publish_seconds = (pub.published_ns - pub.start_ns) / 1e9;
  r.acked_seconds = (pub.acked_ns - pub.start_ns) / 1e9;
  r.delivered = sub.delivered;
  r.missed_notices = sub.missed_notices;
  r.missed_reported = sub.missed;
  r.duplicates_suppressed = sub.duplicates;
  r.reordered = sub.reordered;
  r.delivery_seconds =
      sub.last_delivery_ns > pub.start_ns ? (sub.last_delivery_ns - pub.start_ns) / 1e9 : 0;
  r.agent = agent_after - agent_before;
  r.publisher = pub.usage;
  r.subscriber = sub.usage;
  return r;
}

}  // namespace ftb::bench
