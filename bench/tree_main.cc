// ftb_tree_bench: figures for a tree of real ftb-agent processes on loopback:
// latency through depth 3, load arriving at the root from 32 publishing
// agents and the root's CPU at set rates, and repair time after a kill.
// Prints figures; asserts nothing about time.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/environment.h"
#include "bench/tree_scenarios.h"

namespace {

using namespace ftb::bench;

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const std::size_t rank = static_cast<std::size_t>(p / 100.0 * (sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

void printLatency(const TreeLatencyOptions& o, const TreeLatencyResult& r) {
  std::printf("\n[1] latency: %d agents, fan-out %u (depth %d); %llu events at %.0f/s from the "
              "deepest agent\n",
              o.agents, o.fan_out, r.tree_depth, static_cast<unsigned long long>(r.published),
              o.per_second);
  std::printf("  %-14s %5s %9s %9s %9s %9s %9s\n", "subscriber", "hops", "received", "p50 us",
              "p99 us", "max us", "mean us");
  for (const auto& p : r.paths) {
    std::printf("  %-14s %5d %9llu %9.1f %9.1f %9.1f %9.1f\n", p.label.c_str(), p.hops,
                static_cast<unsigned long long>(p.received), p.latency.p50_us, p.latency.p99_us,
                p.latency.max_us, p.latency.mean_us);
  }
}

void printLoad(const TreeLoadOptions& o, const TreeLoadResult& r) {
  std::printf("\n[2] load at the root: %d publishing agents + the root, fan-out %u (depth %d), "
              "one subscriber on the root; %lld ms of publishing per rate\n",
              o.publishing_agents, o.fan_out, r.tree_depth,
              static_cast<long long>(o.duration.count()));
  std::printf("  %-10s %10s %10s %7s %7s %7s %11s %9s %10s %10s %9s %7s\n", "offered/s", "published",
              "arrived", "late", "missed", "unacc.", "arrived/s", "root CPU", "root us/ev", "others CPU",
              "bench CPU", "repairs");
  for (const auto& s : r.steps) {
    const std::string offered = s.offered_per_second > 0
                                    ? std::to_string(static_cast<long long>(s.offered_per_second))
                                    : "flat out";
    std::printf("  %-10s %10llu %10llu %7llu %7llu %7llu %11.0f %8.0f%% %10.2f %9.0f%% %8.0f%% %7llu\n",
                offered.c_str(), static_cast<unsigned long long>(s.published),
                static_cast<unsigned long long>(s.arrived), static_cast<unsigned long long>(s.late),
                static_cast<unsigned long long>(s.missed_reported),
                static_cast<unsigned long long>(s.unaccounted()), s.arrivedPerSecond(),
                s.rootCores() * 100,
                s.arrived > 0 ? s.root_cpu_seconds / s.arrived * 1e6 : 0.0,
                s.wall_seconds > 0 ? s.others_cpu_seconds / s.wall_seconds * 100 : 0.0,
                s.wall_seconds > 0 ? s.bench_cpu_seconds / s.wall_seconds * 100 : 0.0,
                static_cast<unsigned long long>(s.repairs));
  }
  std::printf("  CPU columns are %% of one core over publishing + draining; the machine has %ld.\n",
              sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("  late: arrived after its step closed (10 s without progress); unacc.: neither arrived, late nor "
              "reported missed by the end.\n");
}

void printRepair(const char* label, const TreeRepairOptions& o, const TreeRepairResult& r) {
  std::printf("  %-18s hb %4u ms, timeout %4u ms: %2zu repairs of %d orphans; detection "
              "(kill -> loss reported) %zu reports p50 %.0f max %.0f ms; repair_ms "
              "min %.0f p50 %.0f max %.0f; kill -> all re-attached at the root: p50 %.0f max %.0f ms\n",
              label, o.heartbeat_ms, o.timeout_ms, r.repair_ms.size(), r.orphans,
              r.detection_ms.size(), percentile(r.detection_ms, 50), percentile(r.detection_ms, 100),
              percentile(r.repair_ms, 0), percentile(r.repair_ms, 50), percentile(r.repair_ms, 100),
              percentile(r.kill_to_whole_ms, 50), percentile(r.kill_to_whole_ms, 100));
}

int run(int argc, char** argv) {
  std::string agent_binary;
  TreeLatencyOptions latency;
  TreeLoadOptions load;
  TreeRepairOptions repair_default, repair_fast{.heartbeat_ms = 25, .timeout_ms = 100};
  TreeRepairOptions repair_silent{.silent = true};
  int duration_ms = 3000;
  bool skip_latency = false, skip_load = false, skip_repair = false;

  CLI::App app{"ftb_tree_bench: latency, load and repair time of a tree of real ftb-agent\n"
               "processes on loopback that it starts itself. Prints figures; asserts nothing.",
               "ftb_tree_bench"};
  app.add_option("--agent-binary", agent_binary,
                 "ftb-agent to run (default: from the runfiles, else bazel-bin/agent/ftb-agent)");
  app.add_option("--latency-events", latency.events, "Events in the latency run")->capture_default_str();
  app.add_option("--latency-rate", latency.per_second, "Their rate per second")->capture_default_str();
  app.add_option("--publishing-agents", load.publishing_agents, "Agents with a publisher in the load run")
      ->capture_default_str();
  app.add_option("--rates", load.rates, "Offered aggregate rates, events/s (0 = flat out)")
      ->capture_default_str();
  app.add_option("--load-ms", duration_ms, "Publishing time per rate")->capture_default_str();
  app.add_option("--keep-load-logs", load.keep_logs_in,
                 "Copy the load run's agent logs into this directory (agent<i>.log)");
  app.add_option("--kills", repair_default.kills, "Interior agents killed per repair setting")
      ->capture_default_str();
  app.add_option("--fast-heartbeat-ms", repair_fast.heartbeat_ms, "Aggressive setting: heartbeat")
      ->capture_default_str();
  app.add_option("--fast-timeout-ms", repair_fast.timeout_ms, "Aggressive setting: link timeout")
      ->capture_default_str();
  app.add_flag("--skip-latency", skip_latency);
  app.add_flag("--skip-load", skip_load);
  app.add_flag("--skip-repair", skip_repair);
  CLI11_PARSE(app, argc, argv);
  load.duration = std::chrono::milliseconds(duration_ms);
  repair_fast.kills = repair_silent.kills = repair_default.kills;

  auto binary = findAgentBinary(agent_binary, argv[0]);
  if (!binary.ok()) {
    std::cerr << "ftb_tree_bench: " << binary.status().message() << "\n";
    return 2;
  }
  latency.agent_binary = load.agent_binary = repair_default.agent_binary = repair_fast.agent_binary =
      repair_silent.agent_binary = *binary;
#ifdef NDEBUG
  const char* build = "NDEBUG (opt)";
#else
  const char* build = "assertions on (fastbuild/dbg)";
#endif
  std::printf("ftb_tree_bench: agents from %s; nproc=%ld; build %s\n", binary->c_str(),
              sysconf(_SC_NPROCESSORS_ONLN), build);
  std::printf("  every agent, publisher and subscriber shares this machine's cores\n");
  std::printf("  %s\n", formatEnvironment(measureEnvironment()).c_str());
  std::fflush(stdout);

  auto fail = [](const char* what, const ftb::Status& s) {
    std::cerr << "ftb_tree_bench: " << what << " failed: " << s.toString() << "\n";
    return 1;
  };
  std::vector<std::string> lines;  // key=value for scripts, printed last
  char buf[320];
  if (!skip_latency) {
    auto r = runTreeLatency(latency);
    if (!r.ok()) return fail("latency", r.status());
    printLatency(latency, *r);
    for (const auto& p : r->paths) {
      std::string key = p.label;
      for (auto& c : key) c = c == ' ' ? '_' : c;
      std::snprintf(buf, sizeof buf, "latency_%s_hops=%d\nlatency_%s_p50_us=%.1f\nlatency_%s_p99_us=%.1f",
                    key.c_str(), p.hops, key.c_str(), p.latency.p50_us, key.c_str(), p.latency.p99_us);
      lines.push_back(buf);
    }
    std::fflush(stdout);
  }
  if (!skip_load) {
    auto r = runTreeLoad(load);
    if (!r.ok()) return fail("load", r.status());
    printLoad(load, *r);
    for (const auto& s : r->steps) {
      const long long rate = static_cast<long long>(s.offered_per_second);
      std::snprintf(buf, sizeof buf, "load_%lld_arrived_per_s=%.0f\nload_%lld_root_cpu_percent=%.1f",
                    rate, s.arrivedPerSecond(), rate, s.rootCores() * 100);
      lines.push_back(buf);
    }
    std::fflush(stdout);
  }
  if (!skip_repair) {
    std::printf("\n[3] repair after kill -9 of an interior agent (%d agents, fan-out %u); repair_ms "
                "is counted by each orphan from the last heartbeat it heard; 'silent' SIGSTOPs "
                "the agent instead (no FIN/RST: a power cut)\n",
                repair_default.agents, repair_default.fan_out);
    for (auto* o : {&repair_default, &repair_silent, &repair_fast}) {
      auto r = runTreeRepair(*o);
      if (!r.ok()) return fail("repair", r.status());
      const char* label = o == &repair_fast ? "aggressive" : o == &repair_silent ? "default, silent" : "default";
      const char* key = o == &repair_fast ? "aggressive" : o == &repair_silent ? "silent" : "default";
      printRepair(label, *o, *r);
      std::snprintf(buf, sizeof buf,
                    "repair_%s_p50_ms=%.0f\nrepair_%s_max_ms=%.0f\ndetect_%s_p50_ms=%.0f\ndetect_%s_max_ms=%.0f",
                    key, percentile(r->repair_ms, 50), key, percentile(r->repair_ms, 100), key,
                    percentile(r->detection_ms, 50), key, percentile(r->detection_ms, 100));
      lines.push_back(buf);
      std::fflush(stdout);
    }
  }
  std::printf("\n");
  for (const auto& l : lines) std::printf("%s\n", l.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ftb_tree_bench: " << e.what() << "\n";
    return 1;
  }
}
