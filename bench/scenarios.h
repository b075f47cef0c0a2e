// The ftb benchmark scenarios. Each one forks its own client processes against
// an agent that is already running, measures, and returns figures; none asserts
// anything about time. Call them from a process that has no ftb::Client of its
// own (see the fork rule in bench_support.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "bench/bench_support.h"
#include "client/status.h"

namespace ftb::bench {

// ---- transport floor: blocking ping-pong without ftb, for scale

struct FloorOptions {
  uint64_t iterations = 5'000;
  std::size_t payload_bytes = 64;
};

struct FloorResult {
  LatencySummary socketpair;  // two processes, Unix socketpair, blocking read/write
  LatencySummary threads;     // two threads, one condition variable
  LatencySummary zmq_ipc;     // two processes, ZeroMQ DEALER -> ROUTER echo over ipc://
};

Result<FloorResult> runFloor(const FloorOptions& options);

// ---- one-way throughput: one publisher process, one subscriber process

struct ThroughputOptions {
  std::string endpoint;           // the agent's ipc:// endpoint
  pid_t agent_pid = -1;           // for its CPU time
  uint64_t events = 1'000'000;
  std::size_t payload_bytes = 64;
  bool poll_subscriber = false;   // poll() loop instead of a callback
  uint32_t subscribers = 1;       // processes, each subscribed to every event (fan-out)
  uint32_t publishers = 1;        // processes, each publishing `events` (fan-in)
  // Busy work per delivered event in the subscriber: a slow consumer, to see
  // how overflow is reported (kMissed) or absorbed.
  std::chrono::microseconds subscriber_work{0};
  // The subscriber stops waiting once nothing has arrived for this long
  // after the publisher's last event was acknowledged.
  std::chrono::milliseconds drain_idle{2000};
};

struct ThroughputResult {
  uint64_t published = 0;                // by all publishers
  uint32_t subscribers = 1;
  uint32_t publishers = 1;
  uint64_t publish_errors = 0;           // failures other than kResourceExhausted
  uint64_t resource_exhausted_retries = 0;
  double publish_seconds = 0;            // first publish() to the last one returning
  double acked_seconds = 0;              // first publish() to the agent's last ack
  uint64_t delivered = 0;                // summed over the subscribers
  uint64_t missed_notices = 0;           // kMissed notifications
  uint64_t missed_reported = 0;          // their `missed` counts summed
  uint64_t duplicates_suppressed = 0;
  // Deliveries of an event older than one already delivered from the same
  // publisher (each publisher's events must arrive in publish order).
  uint64_t reordered = 0;
  double delivery_seconds = 0;           // first publish() to the last delivery anywhere
  // While publishing and delivering (the subscriber's includes its idle wait;
  // summed over the subscribers).
  ProcessUsage agent, publisher, subscriber;

  double deliveredPerSecond() const { return delivery_seconds > 0 ? delivered / delivery_seconds : 0; }
  double publishedPerSecond() const { return publish_seconds > 0 ? published / publish_seconds : 0; }
  uint64_t expected() const { return published * subscribers; }
  uint64_t lost() const { return expected() > delivered ? expected() - delivered : 0; }
};

Result<ThroughputResult> runThroughput(const ThroughputOptions& options);

// ---- request/response round trip: one requester process, one responder process

struct RoundTripOptions {
  std::string endpoint;
  pid_t agent_pid = -1;
  uint64_t iterations = 20'000;
  uint64_t warmup = 1'000;
  std::size_t payload_bytes = 64;
  bool poll_responder = false;  // poll() loop instead of a callback
  std::chrono::milliseconds deadline{1000};  // per request()
};

struct RoundTripResult {
  LatencySummary latency;
  uint64_t timeouts = 0;  // request() returned no response before its deadline
  uint64_t errors = 0;    // request() failed
  uint64_t responded = 0;
  double seconds = 0;     // the measured iterations, wall clock
  // Over warm-up and measured round trips together: divide by rounds.
  uint64_t rounds = 0;
  ProcessUsage agent, requester, responder;
};

Result<RoundTripResult> runRoundTrip(const RoundTripOptions& options);

// ---- the subscription crowd: idle clients holding many subscriptions, for
// throughput as the number of subscriptions on the agent grows

struct CrowdOptions {
  std::string endpoint;
  uint32_t clients = 100;
  uint32_t subscriptions_per_client = 100;  // the agent's default cap is 1024
  // The first `matching` subscriptions use matching_filter (counted deliveries);
  // every other one has a namespace of its own where nothing is published.
  uint32_t matching = 2;
  std::string matching_filter;
};

// A child process holding the crowd, returned once every subscription is made.
Result<ChildProcess> startCrowd(const CrowdOptions& options);
// Disconnects the crowd; returns how many events its matching subscriptions got.
uint64_t stopCrowd(ChildProcess& crowd);

}  // namespace ftb::bench
