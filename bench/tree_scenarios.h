// The tree benchmark's scenarios: each starts its own tree of real ftb-agent
// processes on loopback (LocalTree), drives SDK clients on threads of this
// process, and returns figures. None asserts anything about time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "client/status.h"

namespace ftb::bench {

// ---- end-to-end latency through a tree of depth >= 3

struct TreeLatencyOptions {
  std::string agent_binary;
  int agents = 15;        // with fan-out 2: a tree of depth 3
  uint32_t fan_out = 2;
  uint64_t events = 5'000;
  double per_second = 1'000;  // paced: latency, not queueing
};

struct LatencyPath {
  std::string label;
  int hops = 0;  // agent-to-agent links crossed
  LatencySummary latency;
  uint64_t received = 0;
};

struct TreeLatencyResult {
  int tree_depth = 0;
  uint64_t published = 0;
  std::vector<LatencyPath> paths;
};

Result<TreeLatencyResult> runTreeLatency(const TreeLatencyOptions& options);

// ---- events arriving at the root from many publishing agents

struct TreeLoadOptions {
  std::string agent_binary;
  int publishing_agents = 32;
  uint32_t fan_out = 8;
  // Offered aggregate rates (events/s); 0 = every publisher as fast as it can.
  std::vector<double> rates = {10'000, 100'000, 1'000'000, 0};
  std::chrono::milliseconds duration{3000};  // of publishing, per rate
  std::string keep_logs_in;  // copy the agents' logs there (LocalTree::Options)
};

struct TreeLoadStep {
  double offered_per_second = 0;  // 0 = flat out
  uint64_t published = 0;
  uint64_t arrived = 0;           // at the subscriber on the root agent
  uint64_t missed_reported = 0;   // kMissed counts there (of any step: notices name no step)
  uint64_t late = 0;              // arrived after the step closed (nothing moved for 10 s),
                                  // while later steps ran or at the end: held, not lost
  uint64_t publish_retries = 0;   // kResourceExhausted back-offs
  uint64_t repairs = 0;           // re-attachments during the step (an overloaded
                                  // machine can starve an agent past its link timeout)
  double publish_seconds = 0;     // first to last publish()
  double arrival_seconds = 0;     // first to last arrival at the root
  double root_cpu_seconds = 0;    // the root agent, over publishing and draining
  double wall_seconds = 0;        // the same window
  double others_cpu_seconds = 0;  // every other agent together
  double bench_cpu_seconds = 0;   // this process: 32 publishers + the subscriber

  double arrivedPerSecond() const { return arrival_seconds > 0 ? arrived / arrival_seconds : 0; }
  // Neither delivered (in time or late) nor reported missed.
  uint64_t unaccounted() const {
    const uint64_t known = arrived + late + missed_reported;
    return published > known ? published - known : 0;
  }
  double rootCores() const { return wall_seconds > 0 ? root_cpu_seconds / wall_seconds : 0; }
};

struct TreeLoadResult {
  int tree_depth = 0;
  std::vector<TreeLoadStep> steps;
};

Result<TreeLoadResult> runTreeLoad(const TreeLoadOptions& options);

// ---- repair after an interior agent is killed

struct TreeRepairOptions {
  std::string agent_binary;
  int agents = 15;
  uint32_t fan_out = 2;
  uint32_t heartbeat_ms = 50;
  uint32_t timeout_ms = 150;
  int kills = 3;  // one after another, each once the tree is whole again
  bool silent = false;  // SIGSTOP instead of SIGKILL: no FIN/RST, only silence tells
};

struct TreeRepairResult {
  // Both sorted. repair_ms as the orphans report it (FTB_AGENT_REATTACHED repair_ms=);
  // kill_to_whole_ms from each kill to every orphan's report delivered at the root.
  std::vector<double> repair_ms;
  std::vector<double> kill_to_whole_ms;
  // From each kill to each FTB_AGENT_PARENT_LOST / CHILD_LOST report's publish
  // time (the parent and the orphans of the victim): detection.
  std::vector<double> detection_ms;
  int orphans = 0;
};

Result<TreeRepairResult> runTreeRepair(const TreeRepairOptions& options);

}  // namespace ftb::bench
