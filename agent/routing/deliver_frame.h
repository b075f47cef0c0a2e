// DeliverFrame: one client's Deliver frame (an Envelope holding a Deliver),
// written straight into its bytes as deliveries are added. Building it as
// protobuf messages cost an allocated Delivery and a copy of the event per
// delivery, then a second pass to serialize: the agent only forwards the
// event's bytes, so it writes them once, with the few header bytes around them.
// The result parses as the same Envelope (tests/unit/agent:deliver_frame_test).
//
//   DeliverFrame frame;
//   frame.add(event_bytes, {1, 4});                   // subscription ids it matched
//   std::string bytes = frame.finish(missed_before, missed_by_subscription);
//
// Threading: a value type; the agent's loop builds one per client and turn.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ftb::agent {

class DeliverFrame {
 public:
  void add(std::string_view event_bytes, std::span<const uint32_t> subscription_ids);
  uint32_t events() const { return events_; }
  // Every subscription id of every delivery, in order (one entry per delivery
  // and id): what the client misses if the frame cannot go.
  const std::vector<uint32_t>& subscriptionIds() const { return ids_; }
  // The frame: the protocol version, the deliveries, and the losses the client
  // has not been told of yet (all subscriptions, then per subscription).
  std::string finish(uint64_t missed_before, const std::map<uint32_t, uint64_t>& missed_by_subscription) const;

 private:
  std::string deliveries_;  // the Deliver's repeated field 2, encoded
  std::vector<uint32_t> ids_;
  uint32_t events_ = 0;
};

}  // namespace ftb::agent
