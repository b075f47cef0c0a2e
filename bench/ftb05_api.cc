// Runs the FTB 0.5 C programs of bench/ftb05/ and reads their figures.
#include <map>
#include <vector>

#include "bench/ftb05_scenarios.h"
#include "bench/program_child.h"

namespace ftb::bench {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr milliseconds kReady = seconds(10);

std::map<std::string, std::string> agentEnv(const Ftb05Options& o) {
  return {{"FTB_AGENT_ENDPOINT", o.endpoint}};
}

// Starts a program and waits for its "ready" line.
Result<ProgramChild> startReady(const std::vector<std::string>& argv, const Ftb05Options& o) {
  auto child = ProgramChild::start(argv, agentEnv(o));
  if (!child.ok()) return child.status();
  auto line = child->readLine(kReady);
  if (!line.ok()) return Status(line.status().code(), argv[0] + ": " + line.status().message());
  if (*line != "ready") return internalError(argv[0] + " said '" + *line + "' instead of ready");
  return child;
}

ProcessUsage usageOf(const std::multimap<std::string, std::string>& fields, const std::string& who) {
  ProcessUsage u;
  if (auto cpu = numberField(fields, who + "_cpu_s"); cpu.ok()) u.cpu_seconds = *cpu;
  if (auto v = numberField(fields, who + "_voluntary_switches"); v.ok()) {
    u.voluntary_switches = static_cast<uint64_t>(*v);
  }
  return u;
}

}  // namespace

Result<Ftb05PingPongResult> runFtb05PingPong(const Ftb05Options& o) {
  auto pong = startReady({o.pingpong_binary, "pong"}, o);
  if (!pong.ok()) return pong.status();
  auto ping = startReady({o.pingpong_binary, "ping", std::to_string(o.rtt_iterations),
                          std::to_string(o.rtt_warmup), std::to_string(o.payload_bytes)},
                         o);
  if (!ping.ok()) return ping.status();
  const ProcessUsage agent_before = processUsage(o.agent_pid);
  const milliseconds budget = seconds(60) + milliseconds(o.rtt_iterations + o.rtt_warmup);
  auto ping_fields = ping->finish(budget);
  if (!ping_fields.ok()) return ping_fields.status();
  auto pong_fields = pong->finish(seconds(10));
  if (!pong_fields.ok()) return pong_fields.status();

  Ftb05PingPongResult r;
  r.agent = processUsage(o.agent_pid) - agent_before;
  std::vector<uint64_t> rtts;
  for (auto [it, end] = ping_fields->equal_range("rtt_ns"); it != end; ++it) {
    rtts.push_back(std::stoull(it->second));
  }
  r.latency = summarize(std::move(rtts));
  r.timeouts = static_cast<uint64_t>(numberField(*ping_fields, "timeouts").ok()
                                         ? *numberField(*ping_fields, "timeouts")
                                         : 0);
  r.rounds = o.rtt_iterations + o.rtt_warmup;
  r.ping = usageOf(*ping_fields, "ping");
  r.pong = usageOf(*pong_fields, "pong");
  return r;
}

Result<Ftb05ThroughputResult> runFtb05Throughput(const Ftb05Options& o) {
  constexpr long kIdleMs = 2000;
  auto sub = startReady({o.throughput_binary, "sub", std::to_string(o.events), std::to_string(kIdleMs)}, o);
  if (!sub.ok()) return sub.status();
  const ProcessUsage agent_before = processUsage(o.agent_pid);
  auto pub = ProgramChild::start({o.throughput_binary, "pub", std::to_string(o.events),
                                  std::to_string(o.payload_bytes)},
                                 agentEnv(o));
  if (!pub.ok()) return pub.status();
  const milliseconds budget = seconds(120) + milliseconds(o.events / 1000);
  auto pub_fields = pub->finish(budget);
  if (!pub_fields.ok()) return pub_fields.status();
  auto sub_fields = sub->finish(budget);
  if (!sub_fields.ok()) return sub_fields.status();

  Ftb05ThroughputResult r;
  r.agent = processUsage(o.agent_pid) - agent_before;
  auto first = numberField(*pub_fields, "first_publish_ns");
  auto last_publish = numberField(*pub_fields, "last_publish_ns");
  auto failed = numberField(*pub_fields, "publish_failed");
  auto delivered = numberField(*sub_fields, "delivered");
  auto last_arrival = numberField(*sub_fields, "last_arrival_ns");
  for (const auto* f : {&first, &last_publish, &failed, &delivered, &last_arrival}) {
    if (!f->ok()) return f->status();
  }
  r.publish_failed = static_cast<uint64_t>(*failed);
  r.published = o.events - r.publish_failed;
  r.delivered = static_cast<uint64_t>(*delivered);
  r.publish_seconds = (*last_publish - *first) / 1e9;
  r.delivery_seconds = (*last_arrival - *first) / 1e9;
  r.publisher = usageOf(*pub_fields, "pub");
  r.subscriber = usageOf(*sub_fields, "sub");
  return r;
}

}  // namespace ftb::bench
