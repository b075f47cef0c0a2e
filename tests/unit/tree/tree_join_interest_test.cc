// A node's side may come to want more while its join is in flight (a child
// attaches or subscribes, a local client subscribes): the join request carried
// the interest as it was, so the new parent must hear the rest once it accepts,
// or it never routes those events down. Found by tree_sim_test seed 1487995682:
// a root merging into another tree lost a publisher's events for good.
#define BOOST_TEST_MODULE tree_join_interest
#include <boost/test/unit_test.hpp>

#include "agent/tree/tree_node.h"

using namespace ftb::tree;
using namespace std::chrono_literals;

namespace {

struct RecordingTransport : TreeTransport {
  std::vector<std::pair<std::string, TreeMessage>> sent;
  void send(const std::string& to, TreeMessage message) override { sent.emplace_back(to, std::move(message)); }
  void forget(const std::string&) override {}

  template <class Body>
  std::vector<Body> to(const std::string& address) const {
    std::vector<Body> out;
    for (const auto& [destination, message] : sent) {
      if (destination != address) continue;
      if (const auto* body = std::get_if<Body>(&message.body)) out.push_back(*body);
    }
    return out;
  }
};

struct QuietHost : TreeHost {
  void deliverLocal(const TreeEvent&) override {}
  void topologyChanged(const TopologyChange&) override {}
};

NodeRef node(const std::string& address, uint64_t incarnation) { return {address, incarnation, address, ""}; }

TreeConfig withSeeds(std::vector<std::string> seeds) {
  TreeConfig config;
  config.seeds = std::move(seeds);
  return config;
}

JoinReply acceptance(uint64_t attempt, const NodeRef& acceptor) {
  return JoinReply{.attempt = attempt,
                   .result = JoinReply::Result::kAccepted,
                   .reason = "",
                   .redirect = {},
                   .path = {acceptor},
                   .interest = {},
                   .seen = {}};
}

bool wants(const InterestUpdate& update, const std::string& filter) {
  return std::find(update.interest.begin(), update.interest.end(), filter) != update.interest.end();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_subscription_made_while_joining_reaches_the_new_parent) {
  RecordingTransport transport;
  QuietHost host;
  const NodeRef parent = node("p", 1);
  TreeNode child(node("c", 2), withSeeds({"p"}), transport, host, 1);
  child.start(0ns);
  const auto requests = transport.to<JoinRequest>("p");
  BOOST_TEST_REQUIRE(requests.size() == 1u);
  BOOST_TEST(requests[0].interest.empty());

  child.setLocalInterest({"event_space=FTB.X"}, 1ms);
  child.onMessage({parent, acceptance(requests[0].attempt, parent)}, 2ms);

  BOOST_TEST_REQUIRE((child.state() == TreeNode::State::kAttached));
  const auto updates = transport.to<InterestUpdate>("p");
  BOOST_TEST_REQUIRE(updates.size() == 1u, "the parent must hear the interest that grew during the join");
  BOOST_TEST(wants(updates[0], "event_space=FTB.X"));
}

BOOST_AUTO_TEST_CASE(a_childs_repair_during_a_merge_reaches_the_new_parent_with_its_replay_window) {
  RecordingTransport transport;
  QuietHost host;
  TreeConfig config = withSeeds({});
  config.retention_age = 2s;  // below the child's window, so the test sees which one is sent
  const NodeRef older_root = node("p", 1);
  const NodeRef grandchild = node("g", 3);
  TreeNode root(node("c", 2), config, transport, host, 1);
  root.start(0ns);
  BOOST_TEST_REQUIRE((root.state() == TreeNode::State::kRoot));
  root.onMessage({grandchild, JoinRequest{.attempt = 1, .replay_window = 0ns, .lost_parent = {},
                                          .interest = {}, .seen = {}}},
                 1ms);
  BOOST_TEST_REQUIRE(root.children().size() == 1u);

  // The older tree invites us; while our join is in flight, our child's side
  // re-attaches something that wants FTB.X and missed 5 s of it.
  root.onMessage({older_root, MergeInvite{}}, 2ms);
  const auto requests = transport.to<JoinRequest>("p");
  BOOST_TEST_REQUIRE(requests.size() == 1u);
  root.onMessage({grandchild, InterestUpdate{.interest = {"event_space=FTB.X"}, .seen = {}, .replay_window = 5s}},
                 3ms);
  root.onMessage({older_root, acceptance(requests[0].attempt, older_root)}, 4ms);

  const auto updates = transport.to<InterestUpdate>("p");
  BOOST_TEST_REQUIRE(updates.size() == 1u, "the parent must hear the interest that grew during the merge");
  BOOST_TEST(wants(updates[0], "event_space=FTB.X"));
  BOOST_TEST(updates[0].replay_window.count() == Nanos(5s).count());
}
