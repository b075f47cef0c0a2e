// The subscription crowd: one child process holding many idle clients, each with
// subscriptions in namespaces of its own, so the agent holds many subscriptions
// that the measured events must be routed past. A few of them match those events.
#include <atomic>
#include <iostream>
#include <memory>
#include <vector>

#include "bench/scenarios.h"
#include "client/client.h"

namespace ftb::bench {
namespace {

using namespace std::chrono_literals;

struct Ready {
  bool ok;
};
struct Stop {};
struct CrowdReport {
  uint64_t matched_deliveries;
};

int crowdMain(Channel& channel, const CrowdOptions& options) {
  std::vector<std::unique_ptr<Client>> clients;
  std::atomic<uint64_t> matched{0};
  uint32_t matching_left = options.matching;
  for (uint32_t c = 0; c < options.clients; ++c) {
    auto client = Client::connect({.event_space = "FTB.CROWD.C" + std::to_string(c),
                                   .client_name = "bench-crowd-" + std::to_string(c),
                                   .agent_endpoint = options.endpoint});
    if (!client.ok()) {
      std::cerr << "ftb_bench crowd: " << client.status().toString() << "\n";
      (void)channel.send(Ready{false});
      return 1;
    }
    for (uint32_t s = 0; s < options.subscriptions_per_client; ++s) {
      SubscribeOptions sub;
      if (matching_left > 0) {
        --matching_left;
        sub.filter = options.matching_filter;
        sub.callback = [&](const Notification&) { matched.fetch_add(1, std::memory_order_relaxed); };
      } else {
        sub.filter = "event_space=FTB.CROWD.C" + std::to_string(c) + ".S" + std::to_string(s);
        sub.polling = true;  // never delivered to: nothing is published there
      }
      if (auto id = (*client)->subscribe(sub); !id.ok()) {
        std::cerr << "ftb_bench crowd: " << id.status().toString() << "\n";
        (void)channel.send(Ready{false});
        return 1;
      }
    }
    clients.push_back(std::move(*client));
  }
  if (!channel.send(Ready{true})) return 1;
  Stop stop;
  (void)channel.recv(&stop, 60min);
  for (auto& c : clients) (void)c->disconnect(0ms);
  return channel.send(CrowdReport{matched.load()}) ? 0 : 1;
}

}  // namespace

Result<ChildProcess> startCrowd(const CrowdOptions& options) {
  ChildProcess crowd =
      ChildProcess::spawn("crowd", [options](Channel& ch) { return crowdMain(ch, options); });
  Ready ready{false};
  if (!crowd.channel().recv(&ready, 5min) || !ready.ok) {
    return unavailable("the crowd process did not get ready (see its message above)");
  }
  return crowd;
}

uint64_t stopCrowd(ChildProcess& crowd) {
  CrowdReport report{0};
  if (crowd.channel().send(Stop{})) (void)crowd.channel().recv(&report, 60s);
  (void)crowd.wait(60s);
  return report.matched_deliveries;
}

}  // namespace ftb::bench
