// A deterministic world for the tree protocol: thousands of TreeNodes in one
// process, virtual time, an in-memory network with per-link latency (FIFO per
// pair of nodes, like TCP), and faults: kill, restart, partition. Everything
// random comes from one seed, so a failing run replays exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/tree/tree_node.h"
#include "tests/sim/sim_trace.h"

namespace ftb::sim {

using tree::Nanos;

class World {
 public:
  World(uint64_t seed, tree::TreeConfig config);
  ~World();

  // Adds node `index` (address "n<index>") and starts it at `at`.
  void addNode(std::size_t index, Nanos at);
  void kill(std::size_t index);
  // Kills node `index` as a process death does: its kernel closes its
  // connections, so every live node linked to it hears of it at once
  // (TreeNode::onPeerDisconnected) instead of by silence.
  void killClosingConnections(std::size_t index);
  // Stops node `index` as a stopping agent does: it tells its neighbours (Leave), then ends.
  void stopGracefully(std::size_t index);
  void restart(std::size_t index);  // a new incarnation at the same address
  // Nodes in different islands cannot reach each other; all in island 0 heals.
  void setIsland(std::size_t index, int island);
  // Starves node `index` until `until`: messages to it wait unread (its timers
  // still run and see the backlog), as in an agent short of CPU.
  void stall(std::size_t index, Nanos until);

  // Local subscription of node `index` (a filter text; "" = everything).
  void subscribe(std::size_t index, const std::string& filter);
  // Publishes the next event of node `index`'s publisher in `event_space`.
  void publish(std::size_t index, const std::string& event_space);

  void runUntil(Nanos t);
  Nanos now() const { return now_; }
  std::mt19937_64& random() { return random_; }

  struct Node;
  std::size_t size() const { return nodes_.size(); }
  Node& node(std::size_t index) { return *nodes_[index]; }

  // Invariant checks; each returns "" or a description of the first violation.
  std::string checkSingleTree() const;
  // Every event of every publisher on a never-killed node reached every
  // never-killed subscriber whose filter covers it exactly once, in order.
  std::string checkDelivery() const;
  // No duplicate or out-of-order delivery anywhere, killed nodes included.
  std::string checkNoDuplicates() const;

  uint64_t messagesDelivered() const { return messages_delivered_; }
  std::vector<Nanos> repairTimes() const;

 private:
  class Transport;
  struct Pending {
    Nanos at;
    uint64_t order;  // ties broken by insertion: deterministic
    std::size_t to;
    bool tick;
    tree::TreeMessage message;
    uint64_t generation = 0;  // ticks of a killed incarnation are dropped
    bool held = false;        // a message a stall held back
  };
  struct Later {
    bool operator()(const Pending* a, const Pending* b) const {
      return a->at != b->at ? a->at > b->at : a->order > b->order;
    }
  };
  void push(Pending p);
  void deliver(Pending& p);

  uint64_t seed_;
  tree::TreeConfig config_;
  std::mt19937_64 random_;
  Nanos now_{0};
  uint64_t order_ = 0;
  std::priority_queue<Pending*, std::vector<Pending*>, Later> queue_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, std::size_t> by_address_;
  std::unordered_map<uint64_t, Nanos> last_arrival_;  // FIFO per (from << 32 | to)
  uint64_t messages_delivered_ = 0;
  Trace trace_;
};

struct World::Node : tree::TreeHost {
  std::size_t index = 0;
  std::string address;
  bool alive = false;
  bool ever_killed = false;
  int island = 0;
  Nanos stalled_until{0};
  std::size_t unread = 0;  // messages held back by a stall
  uint64_t incarnation = 0;
  uint64_t generation = 0;  // bumped by kill and restart
  std::unique_ptr<Transport> transport;
  std::unique_ptr<tree::TreeNode> tree;
  std::vector<std::pair<std::string, Filter>> filters;  // local subscriptions
  uint64_t published = 0;                               // this node's publisher's last seq
  std::string publisher;                                // its key
  std::string publish_space;
  // publisher -> sequences delivered here, in arrival order
  std::unordered_map<std::string, std::vector<uint64_t>> delivered;
  std::vector<Nanos> repair_times;
  tree::Residents residents;                        // what its heartbeats say lives here
  std::vector<tree::TopologyChange> losses;         // its topology changes with a presumed-dead peer
  const Trace* trace = nullptr;

  void deliverLocal(const tree::TreeEvent& event) override;
  void topologyChanged(const tree::TopologyChange& change) override;
  tree::Residents localResidents() const override { return residents; }
  bool wants(const std::string& event_space) const;
};

}  // namespace ftb::sim
