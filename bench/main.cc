// ftb_bench: throughput and round-trip latency through one real ftb-agent.
// Flags in, figures out; the scenarios live in scenarios.h. Asserts nothing about time.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench_support.h"
#include "bench/environment.h"
#include "bench/ftb05_scenarios.h"
#include "bench/scenarios.h"
#include "client/wire/codec.h"

namespace {

using namespace ftb::bench;

std::string withCommas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string kernel() {
  utsname u{};
  if (uname(&u) != 0) return "unknown kernel";
  return std::string(u.sysname) + " " + u.release;
}

void printFanout(const ThroughputOptions& o, const ThroughputResult& r) {
  std::printf("\n[5] fan-out: %u publisher processes x %s x %zu-byte events -> agent -> %u subscriber "
              "processes (callback), every subscriber gets every event\n",
              r.publishers, withCommas(o.events).c_str(), o.payload_bytes, r.subscribers);
  const uint64_t unaccounted = r.lost() > r.missed_reported ? r.lost() - r.missed_reported : 0;
  std::printf("  delivered      %s of %s in %.2f s = %s deliveries/s; lost %s (reported missed %s, "
              "unaccounted %s)\n",
              withCommas(r.delivered).c_str(), withCommas(r.expected()).c_str(), r.delivery_seconds,
              withCommas(static_cast<uint64_t>(r.deliveredPerSecond())).c_str(),
              withCommas(r.lost()).c_str(), withCommas(r.missed_reported).c_str(),
              withCommas(unaccounted).c_str());
  std::printf("  duplicates     %s suppressed by the SDK; reordered %s (an event delivered after a "
              "later one of its publisher)\n",
              withCommas(r.duplicates_suppressed).c_str(), withCommas(r.reordered).c_str());
  const double d = r.delivered > 0 ? static_cast<double>(r.delivered) : 1;
  std::printf("  CPU per delivery  agent %.2f us, subscribers %.2f us (publisher %.2f us per event)\n",
              r.agent.cpu_seconds / d * 1e6, r.subscriber.cpu_seconds / d * 1e6,
              r.publisher.cpu_seconds / std::max<double>(1, static_cast<double>(r.published)) * 1e6);
}

void printThroughput(const ThroughputOptions& o, const ThroughputResult& r, double agent_peak_rss_mb) {
  std::printf("\n[1] one-way throughput: %s x %zu-byte events, publisher -> agent -> subscriber "
              "(%s%s), separate processes, IPC\n",
              withCommas(o.events).c_str(), o.payload_bytes,
              o.poll_subscriber ? "poll loop" : "callback",
              o.subscriber_work.count() > 0
                  ? (", " + std::to_string(o.subscriber_work.count()) + " us work per event").c_str()
                  : "");
  std::printf("  published      %s in %.2f s = %s events/s at publish(); all acked after %.2f s\n",
              withCommas(r.published).c_str(), r.publish_seconds,
              withCommas(static_cast<uint64_t>(r.publishedPerSecond())).c_str(), r.acked_seconds);
  std::printf("  delivered      %s in %.2f s = %s events/s (first publish to last delivery)\n",
              withCommas(r.delivered).c_str(), r.delivery_seconds,
              withCommas(static_cast<uint64_t>(r.deliveredPerSecond())).c_str());
  const uint64_t unaccounted = r.lost() > r.missed_reported ? r.lost() - r.missed_reported : 0;
  std::printf("  lost           %s (reported missed: %s in %s kMissed notices; unaccounted: %s)\n",
              withCommas(r.lost()).c_str(), withCommas(r.missed_reported).c_str(),
              withCommas(r.missed_notices).c_str(), withCommas(unaccounted).c_str());
  std::printf("  back-pressure  %s publish() calls returned kResourceExhausted (50 us back-off each)"
              "; %s other publish errors\n",
              withCommas(r.resource_exhausted_retries).c_str(),
              withCommas(r.publish_errors).c_str());
  const double n = r.published > 0 ? static_cast<double>(r.published) : 1;
  std::printf("  CPU per event  agent %.2f us, publisher %.2f us, subscriber %.2f us "
              "(agent %.2f s in total; /proc ticks are 10 ms)\n",
              r.agent.cpu_seconds / n * 1e6, r.publisher.cpu_seconds / n * 1e6,
              r.subscriber.cpu_seconds / n * 1e6, r.agent.cpu_seconds);
  std::printf("  blocking       %.1f / %.1f / %.1f voluntary context switches per 1,000 events "
              "(agent / publisher / subscriber)\n",
              r.agent.voluntary_switches / n * 1e3, r.publisher.voluntary_switches / n * 1e3,
              r.subscriber.voluntary_switches / n * 1e3);
  std::printf("  agent memory   peak RSS %.1f MB (VmHWM since the agent started)\n", agent_peak_rss_mb);
}

void printFloor(const FloorOptions& o, const FloorResult& r) {
  std::printf("\n[0] transport floor, no ftb: blocking ping-pong, %s round trips of %zu bytes\n",
              withCommas(o.iterations).c_str(), o.payload_bytes);
  std::printf("  %-38s %8s %8s %8s\n", "path", "p50 us", "p90 us", "p99 us");
  auto row = [](const char* label, const LatencySummary& l) {
    std::printf("  %-38s %8.1f %8.1f %8.1f\n", label, l.p50_us, l.p90_us, l.p99_us);
  };
  row("2 threads, condition variable", r.threads);
  row("2 processes, Unix socketpair", r.socketpair);
  row("2 processes, ZeroMQ DEALER/ROUTER ipc", r.zmq_ipc);
  std::printf("  one blocking wake-up costs ~%.1f us here (half the socketpair round trip)\n",
              r.socketpair.p50_us / 2);
}

void printRoundTripRow(const char* label, const RoundTripResult& r) {
  const auto& l = r.latency;
  std::printf("  %-10s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9s %7s\n", label, l.min_us, l.p50_us,
              l.p90_us, l.p99_us, l.max_us, l.mean_us, withCommas(r.timeouts).c_str(),
              withCommas(r.errors).c_str());
}

// What one round trip costs each process: CPU time, and how often its threads
// blocked (each block is a wake-up some other thread had to pay for).
void printRoundTripCost(const char* label, const RoundTripResult& r) {
  const double n = r.rounds > 0 ? static_cast<double>(r.rounds) : 1;
  const double total =
      r.agent.voluntary_switches + r.requester.voluntary_switches + r.responder.voluntary_switches;
  std::printf("  %-10s %6.1f / %6.1f / %6.1f        %5.1f / %5.1f / %5.1f = %5.1f\n", label,
              r.agent.cpu_seconds / n * 1e6, r.requester.cpu_seconds / n * 1e6,
              r.responder.cpu_seconds / n * 1e6, r.agent.voluntary_switches / n,
              r.requester.voluntary_switches / n, r.responder.voluntary_switches / n, total / n);
}

// The FTB 0.5 C programs' figures, with the socketpair floor of this run as the scale.
void printFtb05(const Ftb05Options& o, const std::optional<Ftb05PingPongResult>& pp,
                const std::optional<Ftb05ThroughputResult>& t, const std::optional<FloorResult>& floor) {
  std::printf("\n[4] FTB 0.5 C API: plain C programs using only libftb.h (bench/ftb05/)\n");
  if (pp) {
    const auto& l = pp->latency;
    const double n = pp->rounds > 0 ? static_cast<double>(pp->rounds) : 1;
    std::printf("  pingpong       %s round trips (%s warm-up), answered by callback: "
                "p50 %.1f us, p90 %.1f us, p99 %.1f us, %s timeouts\n",
                withCommas(o.rtt_iterations).c_str(), withCommas(o.rtt_warmup).c_str(), l.p50_us,
                l.p90_us, l.p99_us, withCommas(pp->timeouts).c_str());
    if (floor) {
      std::printf("                 = %.1fx the socketpair floor of this run (%.1f us)\n",
                  l.p50_us / floor->socketpair.p50_us, floor->socketpair.p50_us);
    }
    std::printf("  per round trip CPU us agent/ping/pong %.1f / %.1f / %.1f; voluntary context "
                "switches %.1f / %.1f / %.1f = %.1f\n",
                pp->agent.cpu_seconds / n * 1e6, pp->ping.cpu_seconds / n * 1e6,
                pp->pong.cpu_seconds / n * 1e6, pp->agent.voluntary_switches / n,
                pp->ping.voluntary_switches / n, pp->pong.voluntary_switches / n,
                (pp->agent.voluntary_switches + pp->ping.voluntary_switches +
                 pp->pong.voluntary_switches) / n);
  }
  if (t) {
    const double n = t->published > 0 ? static_cast<double>(t->published) : 1;
    std::printf("  throughput     %s x %zu-byte events by FTB_Publish, callback subscriber: "
                "%s events/s delivered, %s lost, %s FTB_Publish failures\n",
                withCommas(o.events).c_str(), o.payload_bytes,
                withCommas(static_cast<uint64_t>(t->deliveredPerSecond())).c_str(),
                withCommas(t->published > t->delivered ? t->published - t->delivered : 0).c_str(),
                withCommas(t->publish_failed).c_str());
    std::printf("  CPU per event  agent %.2f us, publisher %.2f us, subscriber %.2f us\n",
                t->agent.cpu_seconds / n * 1e6, t->publisher.cpu_seconds / n * 1e6,
                t->subscriber.cpu_seconds / n * 1e6);
  }
}

int run(int argc, char** argv) {
  std::string agent_binary;
  std::vector<std::string> agent_args;
  ThroughputOptions tput;
  RoundTripOptions rtt;
  std::string subscriber_mode = "callback";
  std::string local_transport = "stream";
  FloorOptions floor;
  double subscriber_work_us = 0;
  bool skip_throughput = false, skip_rtt = false, skip_floor = false, skip_ftb05 = false,
       subscription_scale = false;
  Ftb05Options ftb05;
  uint64_t scale_events = 20'000;
  uint32_t fanout_subscribers = 16;
  uint32_t fanout_publishers = 1;
  uint64_t fanout_events = 100'000;

  CLI::App app{"ftb_bench: one-way throughput and request/response round-trip latency through\n"
               "one real ftb-agent that it starts itself. Prints figures; asserts nothing.",
               "ftb_bench"};
  app.add_option("--agent-binary", agent_binary,
                 "ftb-agent to run (default: from the runfiles, else bazel-bin/agent/ftb-agent)");
  app.add_option("--agent-arg", agent_args, "Extra flag for the agent (repeatable), "
                 "e.g. --agent-arg=--client-queue-events=262144");
  app.add_option("--events", tput.events, "Events to publish in the throughput run")
      ->capture_default_str();
  app.add_option("--payload-bytes", tput.payload_bytes, "Payload of every event and request")
      ->capture_default_str();
  app.add_option("--local-transport", local_transport,
                 "How the bench's clients reach the agent: stream (its own Unix socket, "
                 "unix://) or ipc (ZeroMQ ipc://)")
      ->check(CLI::IsMember({"stream", "ipc"}))
      ->capture_default_str();
  app.add_option("--subscriber", subscriber_mode, "Throughput subscriber: callback or poll")
      ->check(CLI::IsMember({"callback", "poll"}))
      ->capture_default_str();
  app.add_option("--subscriber-work-us", subscriber_work_us,
                 "Busy work per event in the throughput subscriber (a slow consumer)")
      ->capture_default_str();
  app.add_option("--rtt-iterations", rtt.iterations, "Measured request() round trips per variant")
      ->capture_default_str();
  app.add_option("--rtt-warmup", rtt.warmup, "Unmeasured round trips before them")
      ->capture_default_str();
  app.add_option("--floor-iterations", floor.iterations, "Round trips per transport-floor path")
      ->capture_default_str();
  app.add_flag("--skip-floor", skip_floor, "Skip the transport-floor measurements");
  app.add_flag("--skip-throughput", skip_throughput, "Run only the round-trip measurements");
  app.add_flag("--skip-rtt", skip_rtt, "Run only the throughput measurement");
  app.add_flag("--skip-ftb05", skip_ftb05, "Skip the FTB 0.5 C API programs");
  app.add_option("--ftb05-events", ftb05.events, "Events the FTB 0.5 throughput program publishes")
      ->capture_default_str();
  app.add_flag("--subscription-scale", subscription_scale,
               "Also run [3]: throughput with 10 and with 10,000 subscriptions on the agent");
  app.add_option("--scale-events", scale_events, "Events per run of [3]")->capture_default_str();
  app.add_option("--fanout-subscribers", fanout_subscribers,
                 "Subscriber processes in [5], every publisher to all of them (0 skips [5])")
      ->capture_default_str();
  app.add_option("--fanout-publishers", fanout_publishers,
                 "Publisher processes in [5], each publishing --fanout-events")
      ->capture_default_str();
  app.add_option("--fanout-events", fanout_events, "Events each publisher publishes in [5]")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  tput.poll_subscriber = subscriber_mode == "poll";
  tput.subscriber_work = std::chrono::microseconds(static_cast<int64_t>(subscriber_work_us));
  rtt.payload_bytes = floor.payload_bytes = tput.payload_bytes;

  auto binary = findAgentBinary(agent_binary, argv[0]);
  if (!binary.ok()) {
    std::cerr << "ftb_bench: " << binary.status().message() << "\n";
    return 2;
  }
  auto agent = AgentRunner::start(*binary, agent_args);
  if (!agent.ok()) {
    std::cerr << "ftb_bench: cannot start the agent: " << agent.status().message() << "\n";
    return 2;
  }
  tput.endpoint = rtt.endpoint = ftb05.endpoint =
      local_transport == "stream" ? (*agent)->streamEndpoint() : (*agent)->ipcEndpoint();
  tput.agent_pid = rtt.agent_pid = ftb05.agent_pid = (*agent)->pid();
  ftb05.rtt_iterations = rtt.iterations;
  ftb05.rtt_warmup = rtt.warmup;
  ftb05.payload_bytes = tput.payload_bytes;
  if (!skip_ftb05) {
    auto pingpong = findBuiltProgram("bench/ftb05/ftb05_pingpong", argv[0]);
    auto throughput = findBuiltProgram("bench/ftb05/ftb05_throughput", argv[0]);
    if (!pingpong.ok() || !throughput.ok()) {
      std::cerr << "ftb_bench: " << (pingpong.ok() ? throughput : pingpong).status().message()
                << " (or pass --skip-ftb05)\n";
      return 2;
    }
    ftb05.pingpong_binary = *pingpong;
    ftb05.throughput_binary = *throughput;
  }

#ifdef NDEBUG
  const char* build = "NDEBUG (opt)";
#else
  const char* build = "assertions on (fastbuild/dbg)";
#endif
  std::printf("ftb_bench: ftb %s, protocol %u\n", std::string(ftb::wire::kVersion).c_str(),
              ftb::wire::kProtocolVersion);
  std::printf("  machine    nproc=%ld (%s), %s; build %s\n", sysconf(_SC_NPROCESSORS_ONLN),
              cpuModel().c_str(), kernel().c_str(), build);
  std::printf("  %s\n", formatEnvironment(measureEnvironment()).c_str());
  std::printf("  agent      %s (pid %d) on %s\n", binary->c_str(), (*agent)->pid(),
              tput.endpoint.c_str());
  std::printf("  reference  original FTB: ~145,000 events/s, ~120 us round-trip median; "
              "aim: 10x throughput, < 20 us\n");
  std::fflush(stdout);

  std::optional<FloorResult> f;
  if (!skip_floor) {
    auto r = runFloor(floor);
    if (!r.ok()) {
      std::cerr << "ftb_bench: transport floor failed: " << r.status().message() << "\n";
      return 1;
    }
    f = *r;
    printFloor(floor, *f);
    std::fflush(stdout);
  }

  std::optional<ThroughputResult> t;
  double agent_peak_rss_mb = 0;
  if (!skip_throughput) {
    auto r = runThroughput(tput);
    if (!r.ok()) {
      std::cerr << "ftb_bench: throughput run failed: " << r.status().message() << "\n";
      return 1;
    }
    t = *r;
    agent_peak_rss_mb = static_cast<double>(peakRssBytes(tput.agent_pid)) / 1e6;
    printThroughput(tput, *t, agent_peak_rss_mb);
    std::fflush(stdout);
  }

  std::optional<ThroughputResult> scale_few, scale_many;
  if (subscription_scale) {
    std::printf("\n[3] subscription scale: throughput as in [1] (%s events) while a crowd of idle "
                "clients holds subscriptions in namespaces of their own; 2 of them match every event\n",
                withCommas(scale_events).c_str());
    std::fflush(stdout);
    for (auto [clients, per_client] : {std::pair<uint32_t, uint32_t>{1, 9}, {100, 100}}) {
      CrowdOptions crowd_options{.endpoint = tput.endpoint,
                                 .clients = clients,
                                 .subscriptions_per_client = per_client,
                                 .matching = 2,
                                 .matching_filter = "event_space=FTB.BENCH.SOURCE"};
      auto crowd = startCrowd(crowd_options);
      if (!crowd.ok()) {
        std::cerr << "ftb_bench: " << crowd.status().message() << "\n";
        return 1;
      }
      ThroughputOptions o = tput;
      o.events = scale_events;
      auto r = runThroughput(o);
      const uint64_t crowd_got = stopCrowd(*crowd);
      if (!r.ok()) {
        std::cerr << "ftb_bench: subscription-scale run failed: " << r.status().message() << "\n";
        return 1;
      }
      const uint64_t subscriptions = uint64_t{clients} * per_client + 1;  // + the subscriber's
      std::printf("  %6s subscriptions (%3u crowd clients): %s events/s delivered, %s lost, "
                  "agent CPU %.1f us/event; the crowd's 2 matching subscriptions got %s before it was stopped\n",
                  withCommas(subscriptions).c_str(), clients,
                  withCommas(static_cast<uint64_t>(r->deliveredPerSecond())).c_str(),
                  withCommas(r->lost()).c_str(),
                  r->agent.cpu_seconds / (r->published > 0 ? r->published : 1) * 1e6,
                  withCommas(crowd_got).c_str());
      std::fflush(stdout);
      (clients == 1 ? scale_few : scale_many) = *r;
    }
    std::printf("  ratio 10,000 / 10 subscriptions: %.2f\n",
                scale_many->deliveredPerSecond() / scale_few->deliveredPerSecond());
  }

  std::optional<ThroughputResult> fanout;
  if (!skip_throughput && fanout_subscribers > 0) {
    ThroughputOptions o = tput;
    o.events = fanout_events;
    o.subscribers = fanout_subscribers;
    o.publishers = fanout_publishers;
    auto r = runThroughput(o);
    if (!r.ok()) {
      std::cerr << "ftb_bench: fan-out run failed: " << r.status().message() << "\n";
      return 1;
    }
    fanout = *r;
    printFanout(o, *fanout);
    std::fflush(stdout);
  }

  std::optional<RoundTripResult> rtt_callback, rtt_poll;
  if (!skip_rtt) {
    std::printf("\n[2] request/response round trip: request(name, %zu bytes, %lld ms, 1) x %s "
                "after %s warm-up; responder in another process\n",
                rtt.payload_bytes, static_cast<long long>(rtt.deadline.count()),
                withCommas(rtt.iterations).c_str(), withCommas(rtt.warmup).c_str());
    std::printf("  %-10s %8s %8s %8s %8s %8s %8s %9s %7s\n", "responder", "min us", "p50 us",
                "p90 us", "p99 us", "max us", "mean us", "timeouts", "errors");
    std::fflush(stdout);
    for (bool poll : {false, true}) {
      RoundTripOptions o = rtt;
      o.poll_responder = poll;
      auto r = runRoundTrip(o);
      if (!r.ok()) {
        std::cerr << "ftb_bench: round-trip run failed: " << r.status().message() << "\n";
        return 1;
      }
      printRoundTripRow(poll ? "poll loop" : "callback", *r);
      std::fflush(stdout);
      (poll ? rtt_poll : rtt_callback) = *r;
    }
    std::printf("  per round trip: %-26s %s\n", "CPU us agent/req/resp",
                "voluntary context switches agent/req/resp = total");
    printRoundTripCost("callback", *rtt_callback);
    printRoundTripCost("poll loop", *rtt_poll);
  }

  std::optional<Ftb05PingPongResult> ftb05_pingpong;
  std::optional<Ftb05ThroughputResult> ftb05_throughput;
  if (!skip_ftb05) {
    auto pp = runFtb05PingPong(ftb05);
    if (!pp.ok()) {
      std::cerr << "ftb_bench: FTB 0.5 pingpong failed: " << pp.status().message() << "\n";
      return 1;
    }
    ftb05_pingpong = *pp;
    auto tp = runFtb05Throughput(ftb05);
    if (!tp.ok()) {
      std::cerr << "ftb_bench: FTB 0.5 throughput failed: " << tp.status().message() << "\n";
      return 1;
    }
    ftb05_throughput = *tp;
    printFtb05(ftb05, ftb05_pingpong, ftb05_throughput, f);
  }

  std::printf("\n");
  std::printf("nproc=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("ftb_version=%s\n", std::string(ftb::wire::kVersion).c_str());
  if (f) {
    std::printf("floor_thread_rtt_us=%.1f\n", f->threads.p50_us);
    std::printf("floor_socketpair_rtt_us=%.1f\n", f->socketpair.p50_us);
    std::printf("floor_zmq_ipc_rtt_us=%.1f\n", f->zmq_ipc.p50_us);
  }
  if (t) {
    const double n = t->published > 0 ? static_cast<double>(t->published) : 1;
    std::printf("throughput_events_per_s=%.0f\n", t->deliveredPerSecond());
    std::printf("publish_events_per_s=%.0f\n", t->publishedPerSecond());
    std::printf("events_published=%llu\n", static_cast<unsigned long long>(t->published));
    std::printf("events_delivered=%llu\n", static_cast<unsigned long long>(t->delivered));
    std::printf("events_lost=%llu\n", static_cast<unsigned long long>(t->lost()));
    std::printf("events_reported_missed=%llu\n", static_cast<unsigned long long>(t->missed_reported));
    std::printf("publish_resource_exhausted_retries=%llu\n",
                static_cast<unsigned long long>(t->resource_exhausted_retries));
    std::printf("agent_cpu_s_per_event=%.3e\n", t->agent.cpu_seconds / n);
    std::printf("agent_peak_rss_mb=%.1f\n", agent_peak_rss_mb);
  }
  auto rttLines = [](const char* prefix, const RoundTripResult& r) {
    const double n = r.rounds > 0 ? static_cast<double>(r.rounds) : 1;
    std::printf("%s_p50_us=%.1f\n%s_p90_us=%.1f\n%s_p99_us=%.1f\n%s_max_us=%.1f\n%s_timeouts=%llu\n",
                prefix, r.latency.p50_us, prefix, r.latency.p90_us, prefix, r.latency.p99_us,
                prefix, r.latency.max_us, prefix, static_cast<unsigned long long>(r.timeouts));
    std::printf("%s_switches_per_round_trip=%.1f\n", prefix,
                (r.agent.voluntary_switches + r.requester.voluntary_switches +
                 r.responder.voluntary_switches) / n);
  };
  if (fanout) {
    std::printf("fanout_subscribers=%u\nfanout_publishers=%u\nfanout_deliveries_per_s=%.0f\n"
                "fanout_lost=%llu\nfanout_reordered=%llu\n",
                fanout->subscribers, fanout->publishers, fanout->deliveredPerSecond(),
                static_cast<unsigned long long>(fanout->lost()),
                static_cast<unsigned long long>(fanout->reordered));
    std::printf("fanout_agent_cpu_s_per_delivery=%.3e\n",
                fanout->agent.cpu_seconds / std::max<double>(1, static_cast<double>(fanout->delivered)));
  }
  if (scale_few && scale_many) {
    std::printf("scale_10_subscriptions_events_per_s=%.0f\n", scale_few->deliveredPerSecond());
    std::printf("scale_10000_subscriptions_events_per_s=%.0f\n", scale_many->deliveredPerSecond());
    std::printf("scale_ratio=%.2f\n",
                scale_many->deliveredPerSecond() / scale_few->deliveredPerSecond());
  }
  if (rtt_callback) rttLines("rtt_callback", *rtt_callback);
  if (rtt_poll) rttLines("rtt_poll", *rtt_poll);
  if (f && rtt_callback) std::printf("rtt_callback_floor_ratio=%.2f\n", rtt_callback->latency.p50_us / f->socketpair.p50_us);
  if (ftb05_pingpong) {
    const auto& pp = *ftb05_pingpong;
    const double n = pp.rounds > 0 ? static_cast<double>(pp.rounds) : 1;
    std::printf("ftb05_pingpong_p50_us=%.1f\nftb05_pingpong_p99_us=%.1f\nftb05_pingpong_timeouts=%llu\n",
                pp.latency.p50_us, pp.latency.p99_us, static_cast<unsigned long long>(pp.timeouts));
    std::printf("ftb05_pingpong_switches_per_round_trip=%.1f\n",
                (pp.agent.voluntary_switches + pp.ping.voluntary_switches + pp.pong.voluntary_switches) / n);
    if (f) std::printf("ftb05_pingpong_floor_ratio=%.2f\n", pp.latency.p50_us / f->socketpair.p50_us);
  }
  if (ftb05_throughput) {
    const auto& t = *ftb05_throughput;
    std::printf("ftb05_throughput_events_per_s=%.0f\nftb05_publish_failed=%llu\nftb05_events_lost=%llu\n",
                t.deliveredPerSecond(), static_cast<unsigned long long>(t.publish_failed),
                static_cast<unsigned long long>(t.published > t.delivered ? t.published - t.delivered : 0));
    std::printf("ftb05_agent_cpu_s_per_event=%.3e\n",
                t.agent.cpu_seconds / (t.published > 0 ? static_cast<double>(t.published) : 1));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // fork/socketpair failures in the orchestrator
    std::cerr << "ftb_bench: " << e.what() << "\n";
    return 1;
  }
}
