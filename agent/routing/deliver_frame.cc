#include "agent/routing/deliver_frame.h"

#include "client/wire/codec.h"
#include "client/wire/wire_format.h"

namespace ftb::agent {
namespace {

using wire::putVarint;
using wire::varintSize;
constexpr uint8_t kVarint = wire::kWireVarint, kLength = wire::kWireLength;
constexpr uint32_t key(uint32_t field, uint8_t type) { return wire::fieldKey(field, type); }

// Field numbers (proto/ftb.proto).
constexpr uint32_t kEnvelopeProtocolVersion = 1, kEnvelopeDeliver = 21;
constexpr uint32_t kDeliverMissedBefore = 1, kDeliverDeliveries = 2, kDeliverMissed = 3;
constexpr uint32_t kDeliveryEvent = 1, kDeliverySubscriptionIds = 2;
constexpr uint32_t kMissedSubscriptionId = 1, kMissedCount = 2;

}  // namespace

void DeliverFrame::add(std::string_view event_bytes, std::span<const uint32_t> subscription_ids) {
  std::size_t packed = 0;  // the ids, packed (proto3's encoding of a repeated scalar)
  for (uint32_t id : subscription_ids) packed += varintSize(id);
  std::size_t delivery = 1 + varintSize(event_bytes.size()) + event_bytes.size();
  if (!subscription_ids.empty()) delivery += 1 + varintSize(packed) + packed;

  putVarint(deliveries_, key(kDeliverDeliveries, kLength));
  putVarint(deliveries_, delivery);
  putVarint(deliveries_, key(kDeliveryEvent, kLength));
  putVarint(deliveries_, event_bytes.size());
  deliveries_.append(event_bytes);
  if (!subscription_ids.empty()) {
    putVarint(deliveries_, key(kDeliverySubscriptionIds, kLength));
    putVarint(deliveries_, packed);
    for (uint32_t id : subscription_ids) putVarint(deliveries_, id);
  }
  ids_.insert(ids_.end(), subscription_ids.begin(), subscription_ids.end());
  ++events_;
}

std::string DeliverFrame::finish(uint64_t missed_before,
                                 const std::map<uint32_t, uint64_t>& missed_by_subscription) const {
  std::string tail;  // the Deliver's fields after the deliveries
  if (missed_before > 0) {
    putVarint(tail, key(kDeliverMissedBefore, kVarint));
    putVarint(tail, missed_before);
  }
  for (const auto& [id, count] : missed_by_subscription) {
    const std::size_t size = 1 + varintSize(id) + 1 + varintSize(count);
    putVarint(tail, key(kDeliverMissed, kLength));
    putVarint(tail, size);
    putVarint(tail, key(kMissedSubscriptionId, kVarint));
    putVarint(tail, id);
    putVarint(tail, key(kMissedCount, kVarint));
    putVarint(tail, count);
  }
  const std::size_t deliver = deliveries_.size() + tail.size();
  std::string frame;
  frame.reserve(8 + varintSize(deliver) + deliver);
  putVarint(frame, key(kEnvelopeProtocolVersion, kVarint));
  putVarint(frame, wire::kProtocolVersion);
  putVarint(frame, key(kEnvelopeDeliver, kLength));
  putVarint(frame, deliver);
  frame.append(deliveries_);
  frame.append(tail);
  return frame;
}

}  // namespace ftb::agent
