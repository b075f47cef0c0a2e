// Repair: kill -9 an interior agent (not the root) and time how long its
// parent and children take to notice (their FTB_AGENT_*_LOST reports) and its
// children to re-attach, as they report it and as seen at the root. The silent
// variant SIGSTOPs the agent instead: its sockets stay open and nothing
// answers, as after a power cut; it is killed once the tree is whole again.
#include <signal.h>

#include <algorithm>
#include <thread>

#include "bench/local_tree.h"
#include "client/payload_fields.h"
#include "bench/tree_clients.h"
#include "bench/tree_scenarios.h"

namespace ftb::bench {
namespace {

using namespace std::chrono_literals;

std::vector<double> repairTimesMs(const std::vector<std::string>& payloads) {
  std::vector<double> ms;
  for (const auto& p : payloads) {
    if (const std::string v = payloadField(p, "repair_ms"); !v.empty()) ms.push_back(std::stod(v));
  }
  return ms;
}

// An interior agent to kill: not the root, not a seed when another will do.
int victim(LocalTree& tree, int root) {
  auto candidates = tree.interior();
  std::erase(candidates, root);
  if (candidates.empty()) return -1;
  for (int c : candidates) {
    if (c >= 2) return c;
  }
  return candidates.front();
}

// Each loss report's publish time after `killed_wall_ns`, in ms.
std::vector<double> detectionTimesMs(const std::vector<EventSink::Stamped>& stamps,
                                     uint64_t killed_wall_ns) {
  std::vector<double> ms;
  for (const auto& s : stamps) {
    if (s.event_name != "FTB_AGENT_PARENT_LOST" && s.event_name != "FTB_AGENT_CHILD_LOST") continue;
    ms.push_back(s.published_wall_ns > killed_wall_ns ? (s.published_wall_ns - killed_wall_ns) / 1e6 : 0);
  }
  return ms;
}

std::size_t lossReports(const EventSink& sink) { return detectionTimesMs(sink.otherStamps(), 0).size(); }

int childrenOf(const proto::TreeInfo& info) {
  int n = 0;
  for (const auto& l : info.links()) n += l.is_parent() ? 0 : 1;
  return n;
}

}  // namespace

Result<TreeRepairResult> runTreeRepair(const TreeRepairOptions& options) {
  auto started = LocalTree::start(options.agent_binary, {.agents = options.agents,
                                                         .fan_out = options.fan_out,
                                                         .heartbeat_ms = options.heartbeat_ms,
                                                         .timeout_ms = options.timeout_ms});
  if (!started.ok()) return started.status();
  LocalTree& tree = **started;
  if (auto why = tree.waitForOneTree(30s); !why.empty()) return unavailable("no single tree: " + why);
  const int root = tree.root();
  auto watcher = EventSink::start(tree.agent(root).ipcEndpoint(),
                                  "event_space=FTB.AGENT, event_name=FTB_AGENT_REATTACHED",
                                  "repair-watcher");
  if (!watcher.ok()) return watcher.status();
  // Loss reports of the orphans arrive once they are re-attached (replayed);
  // their publish time is when each agent noticed.
  auto losses = EventSink::start(tree.agent(root).ipcEndpoint(), "event_space=FTB.AGENT", "loss-watcher");
  if (!losses.ok()) return losses.status();

  TreeRepairResult result;
  for (int k = 0; k < options.kills; ++k) {
    const int dead = victim(tree, root);
    if (dead < 0) break;
    const auto infos = tree.infos();
    if (!infos[dead]) return unavailable("the agent to kill does not answer");
    const int orphans = childrenOf(*infos[dead]);
    (*watcher)->reset();
    (*losses)->reset();
    const uint64_t killed_at = nowNs();
    const uint64_t killed_wall_ns = wallNs();
    if (options.silent) {
      ::kill(tree.agent(dead).pid(), SIGSTOP);
    } else {
      tree.kill(dead);
    }
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while ((*watcher)->otherEvents() < static_cast<uint64_t>(orphans)) {
      if (std::chrono::steady_clock::now() > deadline) {
        return deadlineExceeded("only " + std::to_string((*watcher)->otherEvents()) + " of " +
                                std::to_string(orphans) + " orphans reported a re-attachment in 30 s");
      }
      std::this_thread::sleep_for(1ms);
    }
    result.kill_to_whole_ms.push_back((nowNs() - killed_at) / 1e6);
    // The parent and every orphan report the loss; allow their reports a moment to arrive.
    const std::size_t noticers = static_cast<std::size_t>(orphans) + 1;
    const auto reports_deadline = std::chrono::steady_clock::now() + 5s;
    while (lossReports(**losses) < noticers && std::chrono::steady_clock::now() < reports_deadline) {
      std::this_thread::sleep_for(1ms);
    }
    for (double ms : detectionTimesMs((*losses)->otherStamps(), killed_wall_ns)) {
      result.detection_ms.push_back(ms);
    }
    if (options.silent) tree.kill(dead);
    result.orphans += orphans;
    for (double ms : repairTimesMs((*watcher)->otherPayloads())) result.repair_ms.push_back(ms);
    if (auto why = tree.waitForOneTree(30s); !why.empty()) {
      return unavailable("the tree did not become whole after a kill: " + why);
    }
  }
  std::sort(result.repair_ms.begin(), result.repair_ms.end());
  std::sort(result.kill_to_whole_ms.begin(), result.kill_to_whole_ms.end());
  std::sort(result.detection_ms.begin(), result.detection_ms.end());
  return result;
}

}  // namespace ftb::bench
