// Latency through the tree: one publisher on the deepest agent; subscribers
// on that same agent, on the root, and on the deepest agent of another branch.
#include <thread>

#include "bench/local_tree.h"
#include "bench/tree_clients.h"
#include "bench/tree_scenarios.h"

namespace ftb::bench {
namespace {

using namespace std::chrono_literals;

constexpr const char* kSpace = "FTB.BENCH.LATENCY";

// Publishes one event at a time until every sink has received one: then the
// subscriptions have travelled the tree and routes are in place.
Status awaitRoutes(StreamPublisher& publisher, const std::vector<EventSink*>& sinks) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Status s = publisher.publishWarmUp("latency"); !s.ok()) return s;
    std::this_thread::sleep_for(20ms);
    bool all = true;
    for (auto* s : sinks) all = all && s->otherEvents() > 0;
    if (all) return {};
  }
  return deadlineExceeded("subscriptions did not reach the publisher's agent within 20 s");
}

}  // namespace

Result<TreeLatencyResult> runTreeLatency(const TreeLatencyOptions& options) {
  auto started = LocalTree::start(options.agent_binary,
                                  {.agents = options.agents, .fan_out = options.fan_out});
  if (!started.ok()) return started.status();
  LocalTree& tree = **started;
  if (auto why = tree.waitForOneTree(30s); !why.empty()) return unavailable("no single tree: " + why);

  // The deepest agent publishes; the far subscriber is the deepest agent whose
  // path leaves the root through another child.
  const auto infos = tree.infos();
  int publisher_at = -1, far_at = -1, depth = 0;
  for (int i = 0; i < tree.size(); ++i) {
    if (infos[i] && infos[i]->path_size() - 1 > depth) depth = infos[i]->path_size() - 1, publisher_at = i;
  }
  if (publisher_at < 0 || depth < 1) return unavailable("the tree has no depth");
  const std::string branch = infos[publisher_at]->path(1).address();
  int far_depth = 0;
  for (int i = 0; i < tree.size(); ++i) {
    if (!infos[i] || infos[i]->path_size() < 2 || infos[i]->path(1).address() == branch) continue;
    if (infos[i]->path_size() - 1 > far_depth) far_depth = infos[i]->path_size() - 1, far_at = i;
  }
  const int root_at = tree.root();

  struct Placed {
    std::string label;
    int agent, hops;
    std::unique_ptr<EventSink> sink;
  };
  std::vector<Placed> placed;
  placed.push_back({"same agent", publisher_at, 0, nullptr});
  placed.push_back({"to the root", root_at, depth, nullptr});
  if (far_at >= 0) placed.push_back({"leaf to leaf", far_at, depth + far_depth, nullptr});
  std::vector<EventSink*> sinks;
  for (auto& p : placed) {
    auto sink = EventSink::start(tree.agent(p.agent).ipcEndpoint(),
                                 std::string("event_space=") + kSpace, "latency-" + p.label);
    if (!sink.ok()) return sink.status();
    p.sink = std::move(*sink);
    sinks.push_back(p.sink.get());
  }
  auto publisher = StreamPublisher::connect(tree.agent(publisher_at).ipcEndpoint(), kSpace, "latency-pub");
  if (!publisher.ok()) return publisher.status();
  if (Status s = awaitRoutes(**publisher, sinks); !s.ok()) return s;
  for (auto* s : sinks) s->reset();  // late warm-up events count as "other"

  (*publisher)->start({.per_second = options.per_second, .max_events = options.events});
  if (Status s = (*publisher)->finish(30s); !s.ok()) return s;
  const uint64_t published = (*publisher)->published();
  for (auto* s : sinks) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (s->streamEvents() + s->missed() < published &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
  }

  TreeLatencyResult result{.tree_depth = depth, .published = published};
  for (auto& p : placed) {
    result.paths.push_back({.label = p.label,
                            .hops = p.hops,
                            .latency = summarize(p.sink->latenciesNs()),
                            .received = p.sink->streamEvents()});
  }
  return result;
}

}  // namespace ftb::bench
