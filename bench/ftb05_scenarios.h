// The FTB 0.5 C API scenarios of ftb_bench: the two small C programs in
// bench/ftb05/ (written against libftb.h only, as a 2009 FTB program would
// be) run against the bench's agent, so their figures compare with the
// original FTB's when the same programs are built against it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "bench/bench_support.h"
#include "client/status.h"

namespace ftb::bench {

struct Ftb05Options {
  std::string pingpong_binary;    // bench/ftb05:ftb05_pingpong
  std::string throughput_binary;  // bench/ftb05:ftb05_throughput
  std::string endpoint;           // the agent's ipc:// endpoint (FTB_AGENT_ENDPOINT)
  pid_t agent_pid = -1;
  uint64_t rtt_iterations = 20'000;
  uint64_t rtt_warmup = 1'000;
  uint64_t events = 200'000;
  std::size_t payload_bytes = 64;
};

// Two processes answering each other's events by callback.
struct Ftb05PingPongResult {
  LatencySummary latency;
  uint64_t timeouts = 0;  // pings whose pong did not come within 1 s
  uint64_t rounds = 0;    // warm-up and measured: divide usages by this
  ProcessUsage agent, ping, pong;
};

// A publisher loop and a callback subscriber; FTB_Publish failures are counted, never retried.
struct Ftb05ThroughputResult {
  uint64_t published = 0;
  uint64_t publish_failed = 0;
  uint64_t delivered = 0;
  double publish_seconds = 0;   // first FTB_Publish to the last one returning
  double delivery_seconds = 0;  // first FTB_Publish to the last delivery
  ProcessUsage agent, publisher, subscriber;

  double deliveredPerSecond() const { return delivery_seconds > 0 ? delivered / delivery_seconds : 0; }
};

Result<Ftb05PingPongResult> runFtb05PingPong(const Ftb05Options& options);
Result<Ftb05ThroughputResult> runFtb05Throughput(const Ftb05Options& options);

}  // namespace ftb::bench
