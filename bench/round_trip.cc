// Request/response round trip: a requester process calls request() in a loop,
// a responder process answers each request with respond(), from a subscription
// callback or from a poll() loop.
#include <atomic>
#include <iostream>
#include <thread>
#include <vector>

#include "bench/scenarios.h"
#include "client/client.h"

namespace ftb::bench {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kRequestName = "BENCH_PING";
constexpr std::string_view kResponseName = "BENCH_PONG";

// Messages on the orchestrator <-> child channels, in the order they travel.
struct Ready {};
struct Go {};
struct RequesterReport {
  LatencySummary latency;
  uint64_t timeouts, errors;
  uint64_t start_ns, end_ns;
  uint64_t rounds;     // warm-up and measured
  ProcessUsage usage;  // over all rounds
};
struct Stop {};
struct ResponderReport {
  uint64_t responded, errors;
  ProcessUsage usage;  // from Ready to Stop
};

int responderMain(Channel& channel, const RoundTripOptions& options) {
  auto client = Client::connect({.event_space = "FTB.BENCH.RESPONDER",
                                 .client_name = "bench-responder",
                                 .agent_endpoint = options.endpoint});
  if (!client.ok()) {
    std::cerr << "ftb_bench responder: " << client.status().toString() << "\n";
    return 1;
  }
  Client& c = **client;
  if (Status s = c.declare({{std::string(kResponseName), Severity::kInfo}}); !s.ok()) {
    std::cerr << "ftb_bench responder: " << s.toString() << "\n";
    return 1;
  }
  std::atomic<uint64_t> responded{0}, errors{0};
  auto answer = [&](const Notification& n) {
    if (n.kind != Notification::Kind::kEvent) return;
    if (c.respond(n.event, kResponseName, n.event.payload).ok()) {
      responded.fetch_add(1, std::memory_order_relaxed);
    } else {
      errors.fetch_add(1, std::memory_order_relaxed);
    }
  };
  SubscribeOptions subscription{.filter = "event_name=" + std::string(kRequestName)};
  if (options.poll_responder) {
    subscription.polling = true;
  } else {
    subscription.callback = answer;
  }
  auto id = c.subscribe(subscription);
  if (!id.ok()) {
    std::cerr << "ftb_bench responder: " << id.status().toString() << "\n";
    return 1;
  }
  std::atomic<bool> stop{false};
  std::thread poller;
  if (options.poll_responder) {
    // A blocking poll with a timeout, as an application thread would write it.
    poller = std::thread([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        auto n = c.poll(*id, 100ms);
        if (!n.ok()) return;
        if (n->has_value()) answer(**n);
      }
    });
  }
  const ProcessUsage usage_before = selfUsage();
  if (!channel.send(Ready{})) return 1;
  Stop halt;
  (void)channel.recv(&halt, 30min);
  stop.store(true);
  if (poller.joinable()) poller.join();
  ResponderReport report{.responded = responded.load(),
                         .errors = errors.load(),
                         .usage = selfUsage() - usage_before};
  (void)c.disconnect(0ms);
  return channel.send(report) ? 0 : 1;
}

int requesterMain(Channel& channel, const RoundTripOptions& options) {
  auto client = Client::connect({.event_space = "FTB.BENCH.REQUESTER",
                                 .client_name = "bench-requester",
                                 .agent_endpoint = options.endpoint});
  if (!client.ok()) {
    std::cerr << "ftb_bench requester: " << client.status().toString() << "\n";
    return 1;
  }
  Client& c = **client;
  if (Status s = c.declare({{std::string(kRequestName), Severity::kInfo}}); !s.ok()) {
    std::cerr << "ftb_bench requester: " << s.toString() << "\n";
    return 1;
  }
  if (!channel.send(Ready{})) return 1;
  Go go;
  if (!channel.recv(&go, 60s)) return 1;

  const std::string payload(options.payload_bytes, 'x');
  RequesterReport report{};
  const ProcessUsage usage_before = selfUsage();
  std::string first_error;
  std::vector<uint64_t> samples;
  samples.reserve(options.iterations);
  for (uint64_t i = 0; i < options.warmup + options.iterations; ++i) {
    if (i == options.warmup) report.start_ns = nowNs();
    const uint64_t start = nowNs();
    auto responses = c.request(kRequestName, payload, options.deadline, 1);
    const uint64_t elapsed = nowNs() - start;
    if (i < options.warmup) continue;
    if (!responses.ok()) {
      if (report.errors++ == 0) first_error = responses.status().toString();
    } else if (responses->empty()) {
      ++report.timeouts;
    } else {
      samples.push_back(elapsed);
    }
  }
  report.end_ns = nowNs();
  report.usage = selfUsage() - usage_before;
  report.rounds = options.warmup + options.iterations;
  report.latency = summarize(std::move(samples));
  if (!first_error.empty()) std::cerr << "ftb_bench requester: first error: " << first_error << "\n";
  (void)c.disconnect(0ms);
  return channel.send(report) ? 0 : 1;
}

}  // namespace

Result<RoundTripResult> runRoundTrip(const RoundTripOptions& options) {
  ChildProcess responder = ChildProcess::spawn(
      "responder", [&](Channel& ch) { return responderMain(ch, options); });
  Ready ready;
  if (!responder.channel().recv(&ready, 15s)) {
    return unavailable("the responder process did not get ready (see its message above)");
  }
  ChildProcess requester = ChildProcess::spawn(
      "requester", [&](Channel& ch) { return requesterMain(ch, options); });
  if (!requester.channel().recv(&ready, 15s)) {
    return unavailable("the requester process did not get ready (see its message above)");
  }
  const ProcessUsage agent_before = processUsage(options.agent_pid);
  if (!requester.channel().send(Go{})) return unavailable("the requester process is gone");
  RequesterReport req{};
  if (!requester.channel().recv(&req, 30min)) {
    return unavailable("the requester process did not finish (see its message above)");
  }
  const ProcessUsage agent_after = processUsage(options.agent_pid);
  ResponderReport resp{};
  if (!responder.channel().send(Stop{}) || !responder.channel().recv(&resp, 15s)) {
    return unavailable("the responder process did not report (see its message above)");
  }
  (void)requester.wait();
  (void)responder.wait();

  RoundTripResult r;
  r.latency = req.latency;
  r.timeouts = req.timeouts;
  r.errors = req.errors;
  r.responded = resp.responded;
  r.seconds = (req.end_ns - req.start_ns) / 1e9;
  r.rounds = req.rounds;
  r.agent = agent_after - agent_before;
  r.requester = req.usage;
  r.responder = resp.usage;
  return r;
}

}  // namespace ftb::bench
