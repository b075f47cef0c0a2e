#include "tests/sim/sim_world.h"

#include <algorithm>
#include <sstream>

namespace ftb::sim {

using tree::TreeMessage;

// Sends from one node: picks a latency and keeps each pair of nodes FIFO.
class World::Transport : public tree::TreeTransport {
 public:
  Transport(World& world, std::size_t from) : world_(world), from_(from) {}
  void send(const std::string& to, TreeMessage message) override {
    auto it = world_.by_address_.find(to);
    if (it == world_.by_address_.end()) return;  // nobody there: lost
    std::uniform_int_distribution<int64_t> latency_us(50, 500);
    Nanos at = world_.now_ + std::chrono::microseconds(latency_us(world_.random_));
    Nanos& last = world_.last_arrival_[static_cast<uint64_t>(from_) << 32 | it->second];
    at = std::max(at, last + Nanos(1));
    last = at;
    world_.push(Pending{at, 0, it->second, false, std::move(message), 0});
  }
  void forget(const std::string&) override {}

 private:
  World& world_;
  std::size_t from_;
};

World::World(uint64_t seed, tree::TreeConfig config)
    : seed_(seed), config_(std::move(config)), random_(seed) {}

World::~World() {
  while (!queue_.empty()) {
    delete queue_.top();
    queue_.pop();
  }
}

void World::push(Pending p) {
  p.order = ++order_;
  queue_.push(new Pending(std::move(p)));
}

void World::addNode(std::size_t index, Nanos at) {
  if (nodes_.size() <= index) nodes_.resize(index + 1);
  auto node = std::make_unique<Node>();
  node->index = index;
  node->address = "n" + std::to_string(index);
  node->transport = std::make_unique<Transport>(*this, index);
  node->trace = &trace_;
  by_address_[node->address] = index;
  nodes_[index] = std::move(node);
  push(Pending{at, 0, index, true, {}, 0});  // the first tick starts it
}

void World::restart(std::size_t index) {
  Node& n = *nodes_[index];
  n.tree.reset();
  n.alive = false;
  n.delivered.clear();
  n.unread = 0;
  trace_.fault(now_, "RESTART", n.address);
  push(Pending{now_, 0, index, true, {}, ++n.generation});
}

void World::kill(std::size_t index) {
  Node& n = *nodes_[index];
  n.alive = false;
  n.unread = 0;
  n.ever_killed = true;
  trace_.fault(now_, "KILL", n.address);
  ++n.generation;
  n.tree.reset();
}

void World::killClosingConnections(std::size_t index) {
  const std::string address = nodes_[index]->address;
  kill(index);
  for (auto& other : nodes_) {
    if (!other->alive || !other->tree) continue;
    other->tree->onPeerDisconnected(address, now_);
    other->tree->flush();
  }
}

void World::stopGracefully(std::size_t index) {
  Node& n = *nodes_[index];
  if (n.tree) {
    n.tree->leave("stopping");
    n.tree->flush();
  }
  kill(index);
}

void World::setIsland(std::size_t index, int island) { nodes_[index]->island = island; }

void World::stall(std::size_t index, Nanos until) { nodes_[index]->stalled_until = until; }

void World::subscribe(std::size_t index, const std::string& filter) {
  Node& n = *nodes_[index];
  n.filters.emplace_back(filter, *Filter::parse(filter));
  if (n.tree) {
    tree::Interest interest;
    for (const auto& [text, f] : n.filters) interest.push_back(f.eventSpaceText());
    n.tree->setLocalInterest(interest, now_);
    n.tree->flush();
  }
}

void World::publish(std::size_t index, const std::string& event_space) {
  Node& n = *nodes_[index];
  if (!n.alive || !n.tree) return;
  n.publish_space = event_space;
  tree::TreeEvent event{n.publisher, ++n.published, event_space, false, nullptr};
  if (n.wants(event_space)) n.delivered[n.publisher].push_back(event.seq);
  n.tree->publishLocal(event, now_);
  n.tree->flush();
}

void World::runUntil(Nanos t) {
  while (!queue_.empty() && queue_.top()->at <= t) {
    std::unique_ptr<Pending> p(queue_.top());
    queue_.pop();
    now_ = p->at;
    deliver(*p);
  }
  now_ = t;
}

void World::deliver(Pending& p) {
  Node& n = *nodes_[p.to];
  if (p.tick) {
    if (p.generation != n.generation) return;  // from before a kill or restart
    if (!n.tree) {
      // Start (or restart) this node.
      n.alive = true;
      n.incarnation = static_cast<uint64_t>(now_.count()) + 1;
      n.publisher = "p" + std::to_string(p.to) + "." + std::to_string(n.incarnation);
      n.published = 0;
      tree::NodeRef self{n.address, n.incarnation, ""};
      n.tree = std::make_unique<tree::TreeNode>(self, config_, *n.transport, n, random_());
      tree::Interest interest;
      for (const auto& [text, f] : n.filters) interest.push_back(f.eventSpaceText());
      n.tree->setLocalInterest(interest, now_);
      n.tree->start(now_);
    } else {
      n.tree->tick(now_, n.unread > 0);
    }
    n.tree->flush();
    push(Pending{now_ + config_.heartbeat_interval / 4, 0, p.to, true, {}, n.generation});
    return;
  }
  if (!n.alive || !n.tree) return;
  if (now_ < n.stalled_until) {  // held back, in order, until the stall ends
    if (!p.held) ++n.unread;
    Pending later = std::move(p);
    later.at = n.stalled_until;
    later.held = true;
    push(std::move(later));
    return;
  }
  if (p.held && n.unread > 0) --n.unread;
  const auto& from = by_address_.find(p.message.from.address);
  if (from != by_address_.end() && nodes_[from->second]->island != n.island) return;
  ++messages_delivered_;
  trace_.message(now_, n.address, p.message);
  n.tree->onMessage(p.message, now_);
  n.tree->flush();
}

bool World::Node::wants(const std::string& event_space) const {
  return std::any_of(filters.begin(), filters.end(),
                     [&](const auto& f) { return f.second.matchesEventSpace(event_space); });
}

void World::Node::deliverLocal(const tree::TreeEvent& event) {
  if (wants(event.event_space)) delivered[event.publisher].push_back(event.seq);
}

void World::Node::topologyChanged(const tree::TopologyChange& change) {
  trace->topology(address, change);
  if (change.repair_time > Nanos(0)) repair_times.push_back(change.repair_time);
  if (change.loss) losses.push_back(change);
}

std::vector<Nanos> World::repairTimes() const {
  std::vector<Nanos> all;
  for (const auto& n : nodes_) all.insert(all.end(), n->repair_times.begin(), n->repair_times.end());
  std::sort(all.begin(), all.end());
  return all;
}

std::string World::checkSingleTree() const {
  std::ostringstream why;
  std::size_t roots = 0, live = 0;
  std::string a_root;
  for (const auto& n : nodes_) {
    if (!n->alive) continue;
    ++live;
    const auto& t = *n->tree;
    if (t.state() == tree::TreeNode::State::kJoining) {
      why << n->address << " is still joining";
      return why.str();
    }
    if (t.children().size() > config_.fan_out) {
      why << n->address << " has " << t.children().size() << " children, fan-out is " << config_.fan_out;
      return why.str();
    }
    if (t.state() == tree::TreeNode::State::kRoot) {
      ++roots;
      a_root = n->address;
      continue;
    }
    // The parent is alive, knows us as a child, and the walk up ends at a root.
    std::size_t at = n->index, steps = 0;
    while (nodes_[at]->tree->state() != tree::TreeNode::State::kRoot) {
      auto parent = nodes_[at]->tree->parent();
      if (!parent) {
        why << nodes_[at]->address << " has no parent and is not a root";
        return why.str();
      }
      const auto it = by_address_.find(parent->address);
      const Node& p = *nodes_[it->second];
      if (!p.alive || !p.tree || !(p.tree->self().sameNode(*parent))) {
        why << nodes_[at]->address << "'s parent " << parent->address << " is dead";
        return why.str();
      }
      const auto kids = p.tree->children();
      if (std::none_of(kids.begin(), kids.end(), [&](const tree::NodeRef& k) {
            return k.sameNode(nodes_[at]->tree->self());
          })) {
        why << parent->address << " does not list its child " << nodes_[at]->address;
        return why.str();
      }
      at = it->second;
      if (++steps > nodes_.size()) {
        why << "cycle above " << n->address;
        return why.str();
      }
    }
  }
  if (live > 0 && roots != 1) {
    why << roots << " roots among " << live << " live agents (one is " << a_root << ")";
    return why.str();
  }
  return "";
}

std::string World::checkNoDuplicates() const {
  for (const auto& n : nodes_) {
    for (const auto& [publisher, seqs] : n->delivered) {
      for (std::size_t i = 1; i < seqs.size(); ++i) {
        if (seqs[i] <= seqs[i - 1]) {
          return n->address + " got " + publisher + " #" + std::to_string(seqs[i]) + " after #" +
                 std::to_string(seqs[i - 1]);
        }
      }
    }
  }
  return "";
}

std::string World::checkDelivery() const {
  if (std::string dup = checkNoDuplicates(); !dup.empty()) return dup;
  for (const auto& sub : nodes_) {
    if (sub->ever_killed || !sub->alive || sub->filters.empty()) continue;
    for (const auto& pub : nodes_) {
      if (pub->ever_killed || pub->published == 0 || !sub->wants(pub->publish_space)) continue;
      auto it = sub->delivered.find(pub->publisher);
      const std::size_t got = it == sub->delivered.end() ? 0 : it->second.size();
      if (got != pub->published) {
        std::ostringstream why;
        why << sub->address << " got " << got << " of the " << pub->published << " events of "
            << pub->publisher;
        if (got > 0) {
          // Name the first missing sequence.
          for (std::size_t i = 0; i < got; ++i) {
            if (it->second[i] != i + 1) {
              why << " (first missing: #" << i + 1 << ")";
              break;
            }
          }
        }
        return why.str();
      }
    }
  }
  return "";
}

}  // namespace ftb::sim
