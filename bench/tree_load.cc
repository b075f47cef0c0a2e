// Load at the root: a tree of 1 + N agents, a publisher on every agent but
// the root, one subscriber on the root that receives everything. For each
// offered rate: what arrives at the root, and what the root agent's CPU costs.
#include <algorithm>
#include <set>
#include <thread>

#include "bench/local_tree.h"
#include "bench/tree_clients.h"
#include "bench/tree_scenarios.h"

namespace ftb::bench {
namespace {

using namespace std::chrono_literals;

constexpr const char* kSpace = "FTB.BENCH.LOAD";

double cpuOf(LocalTree& tree, int i) { return processUsage(tree.agent(i).pid()).cpu_seconds; }

double othersCpu(LocalTree& tree, int root) {
  double sum = 0;
  for (int i = 0; i < tree.size(); ++i) sum += i == root ? 0 : cpuOf(tree, i);
  return sum;
}

// Warm-up rounds from every publisher until the root's subscriber has one
// from each: the subscription has then reached every publishing agent.
Status awaitRoutes(std::vector<std::unique_ptr<StreamPublisher>>& publishers, EventSink& sink) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    for (std::size_t i = 0; i < publishers.size(); ++i) {
      if (Status s = publishers[i]->publishWarmUp(std::to_string(i)); !s.ok()) return s;
    }
    std::this_thread::sleep_for(50ms);
    const auto seen = sink.otherPayloads();
    const std::set<std::string> distinct(seen.begin(), seen.end());
    if (distinct.size() >= publishers.size()) return {};
  }
  return deadlineExceeded("the subscription did not reach every publishing agent within 30 s");
}

// Waits while `remaining()` is above 0 and has changed within the last `quiet`.
template <typename Remaining>
void waitWhileMoving(Remaining remaining, std::chrono::milliseconds quiet) {
  uint64_t left = remaining();
  for (auto last_change = std::chrono::steady_clock::now();
       left > 0 && std::chrono::steady_clock::now() - last_change < quiet;) {
    std::this_thread::sleep_for(2ms);
    if (const uint64_t now_left = remaining(); now_left != left) {
      left = now_left;
      last_change = std::chrono::steady_clock::now();
    }
  }
}

Result<TreeLoadStep> runStep(LocalTree& tree, int root,
                             std::vector<std::unique_ptr<StreamPublisher>>& publishers,
                             EventSink& sink, double rate, std::chrono::milliseconds duration, int stream) {
  sink.reset();
  TreeLoadStep step{.offered_per_second = rate};
  uint64_t published_before = 0, retries_before = 0;
  for (auto& p : publishers) published_before += p->published(), retries_before += p->retries();
  const double root_cpu0 = cpuOf(tree, root), others_cpu0 = othersCpu(tree, root);
  const double bench_cpu0 = selfUsage().cpu_seconds;
  const uint64_t repairs0 = tree.repairs();
  const uint64_t t0 = nowNs();

  for (auto& p : publishers) {
    p->start({.per_second = rate > 0 ? rate / publishers.size() : 0, .duration = duration, .stream = stream});
  }
  for (auto& p : publishers) {
    if (Status s = p->finish(60s); !s.ok()) return s;
  }
  step.publish_seconds = (nowNs() - t0) / 1e9;
  for (auto& p : publishers) step.published += p->published(), step.publish_retries += p->retries();
  step.published -= published_before;
  step.publish_retries -= retries_before;

  // Every publisher's agent has acknowledged its events; wait until they have
  // all crossed the tree (or been reported missed), or nothing moves for 10 s
  // (longer than an agent holds events behind a gap: 4 link timeouts).
  waitWhileMoving(
      [&]() -> uint64_t {
        const uint64_t seen = sink.eventsOfStream(stream) + sink.missed();
        return step.published > seen ? step.published - seen : 0;
      },
      10s);
  step.wall_seconds = (nowNs() - t0) / 1e9;
  step.root_cpu_seconds = cpuOf(tree, root) - root_cpu0;
  step.others_cpu_seconds = othersCpu(tree, root) - others_cpu0;
  step.bench_cpu_seconds = selfUsage().cpu_seconds - bench_cpu0;
  step.repairs = tree.repairs() - repairs0;
  step.arrived = sink.eventsOfStream(stream);
  step.missed_reported = sink.missed();
  if (sink.lastNs() > sink.firstNs()) step.arrival_seconds = (sink.lastNs() - sink.firstNs()) / 1e9;
  return step;
}

}  // namespace

Result<TreeLoadResult> runTreeLoad(const TreeLoadOptions& options) {
  auto started = LocalTree::start(options.agent_binary,
                                  {.agents = options.publishing_agents + 1,
                                   .fan_out = options.fan_out,
                                   .keep_logs_in = options.keep_logs_in});
  if (!started.ok()) return started.status();
  LocalTree& tree = **started;
  if (auto why = tree.waitForOneTree(60s); !why.empty()) return unavailable("no single tree: " + why);
  const int root = tree.root();
  TreeLoadResult result;
  for (int d : tree.depths()) result.tree_depth = std::max(result.tree_depth, d);

  auto sink = EventSink::start(tree.agent(root).ipcEndpoint(), std::string("event_space=") + kSpace,
                               "load-sink");
  if (!sink.ok()) return sink.status();
  std::vector<std::unique_ptr<StreamPublisher>> publishers;
  for (int i = 0; i < tree.size(); ++i) {
    if (i == root) continue;
    auto p = StreamPublisher::connect(tree.agent(i).ipcEndpoint(), kSpace, "load-pub" + std::to_string(i));
    if (!p.ok()) return p.status();
    publishers.push_back(std::move(*p));
  }
  if (Status s = awaitRoutes(publishers, **sink); !s.ok()) return s;
  for (double rate : options.rates) {
    const int stream = static_cast<int>(result.steps.size());
    if (stream >= EventSink::kStreams) return invalidArgument("at most 16 rates");
    auto step = runStep(tree, root, publishers, **sink, rate, options.duration, stream);
    if (!step.ok()) return step.status();
    result.steps.push_back(*step);
  }
  // A step closes after 10 s without progress, but a starved agent can hold
  // events longer (loop turns of 13 s were logged on 2 cores): what arrives
  // after its step closed is late, not lost. Wait for the stragglers until
  // nothing moves for 10 s more, then count per step.
  auto stragglers = [&] {
    uint64_t missing = 0;
    for (std::size_t i = 0; i < result.steps.size(); ++i) {
      const TreeLoadStep& s = result.steps[i];
      const uint64_t got = (*sink)->eventsOfStream(static_cast<int>(i));
      missing += s.published > got + s.missed_reported ? s.published - got - s.missed_reported : 0;
    }
    return missing;
  };
  waitWhileMoving(stragglers, 10s);
  for (std::size_t i = 0; i < result.steps.size(); ++i) {
    TreeLoadStep& s = result.steps[i];
    s.late = (*sink)->eventsOfStream(static_cast<int>(i)) - s.arrived;
  }
  return result;
}

}  // namespace ftb::bench
