#include "client/wire/deliver_reader.h"

#include "client/wire/codec.h"
#include "client/wire/event_codec.h"
#include "client/wire/wire_format.h"
#include "client/wire/wire_reader.h"

namespace ftb {
namespace {

using wire::readFields;
using wire::WireReader;
constexpr uint32_t kVarint = wire::kWireVarint, kLength = wire::kWireLength;

bool readOrigin(std::string_view bytes, EventId& id) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    if (field == 1 && type == kLength) return in.ascii(id.host);
    if (field == 2 && type == kVarint) return in.scalar(id.pid);
    if (field == 3 && type == kVarint) return in.scalar(id.process_start_ns);
    return false;
  });
}

bool readEventId(std::string_view bytes, EventId& id) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    std::string_view origin;
    if (field == 1 && type == kLength) return in.bytes(origin) && readOrigin(origin, id);
    if (field == 2 && type == kVarint) return in.scalar(id.client_instance);
    if (field == 3 && type == kVarint) return in.scalar(id.seq);
    return false;
  });
}

bool readSender(std::string_view bytes, VerifiedSender& sender) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    uint64_t flag;
    if (field == 1 && type == kVarint) return in.scalar(sender.uid);
    if (field == 2 && type == kVarint) return in.scalar(sender.pid);
    if (field == 3 && type == kLength) return in.ascii(sender.agent);
    if (field == 4 && type == kVarint && in.varint(flag)) {
      sender.credentials_known = flag != 0;
      return true;
    }
    if (field == 5 && type == kVarint && in.varint(flag)) {
      sender.uid_known = flag != 0;
      return true;
    }
    return false;
  });
}

bool readTag(std::string_view bytes, Tags& tags) {
  std::string key, value;
  if (!wire::readStringPair(bytes, key, value)) return false;
  tags.insert_or_assign(std::move(key), std::move(value));  // a later entry of a key wins
  return true;
}

bool readEvent(std::string_view bytes, Event& event) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    std::string_view part;
    int32_t number;
    switch (field) {
      case 1: return type == kLength && in.ascii(event.event_space);
      case 2: return type == kLength && in.ascii(event.event_name);
      case 3:
        if (type != kVarint || !in.scalar(number)) return false;
        event.severity = fromProto(static_cast<proto::Severity>(number));
        return true;
      case 4: return type == kLength && in.ascii(event.client_name);
      case 5: return type == kLength && in.ascii(event.job_id);
      case 6: return type == kLength && in.bytes(part) && readEventId(part, event.id);
      case 7: return type == kVarint && in.scalar(event.time_sec);
      case 8: return type == kVarint && in.scalar(event.time_nsec);
      case 9:
        if (type != kLength || !in.bytes(part)) return false;
        event.payload.assign(part);
        return true;
      case 10:
        if (type != kVarint || !in.scalar(number)) return false;
        event.type = number == proto::RESPONSE ? EventType::kResponse : EventType::kNormal;
        return true;
      case 11:
        if (type != kLength || !in.bytes(part)) return false;
        if (!event.response_to) event.response_to.emplace();
        return readEventId(part, *event.response_to);
      case 12: return type == kLength && in.bytes(part) && readTag(part, event.tags);
      case 13: return type == kLength && in.bytes(part) && readSender(part, event.sender);
      default: return false;
    }
  });
}

bool readSubscriptionIds(uint32_t type, WireReader& in, std::vector<uint32_t>& ids) {
  uint32_t id;
  if (type == kVarint) {
    if (!in.scalar(id)) return false;
    ids.push_back(id);
    return true;
  }
  std::string_view packed;
  if (type != kLength || !in.bytes(packed)) return false;
  WireReader list(packed);
  while (!list.done()) {
    if (!list.scalar(id)) return false;
    ids.push_back(id);
  }
  return true;
}

bool readDelivery(std::string_view bytes, DeliverContent& out) {
  std::string_view event;  // the last occurrence wins
  DeliverContent::Delivery& delivery = out.deliveries.emplace_back();
  return readFields(bytes,
                    [&](WireReader& in, uint32_t field, uint32_t type) {
                      if (field == 1 && type == kLength) return in.bytes(event);
                      if (field == 2) return readSubscriptionIds(type, in, delivery.subscription_ids);
                      return false;
                    }) &&
         readEvent(event, delivery.event);
}

bool readMissed(std::string_view bytes, DeliverContent& out) {
  DeliverContent::Missed missed;
  const bool ok = readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    if (type != kVarint) return false;
    if (field == 1) return in.scalar(missed.subscription_id);
    if (field == 2) return in.scalar(missed.count);
    return false;
  });
  if (ok) out.missed.push_back(missed);
  return ok;
}

bool readDeliver(std::string_view bytes, DeliverContent& out) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    std::string_view part;
    if (field == 1 && type == kVarint) return in.scalar(out.missed_before);
    if (field == 2 && type == kLength) return in.bytes(part) && readDelivery(part, out);
    if (field == 3 && type == kLength) return in.bytes(part) && readMissed(part, out);
    return false;
  });
}

}  // namespace

void DeliverContent::clear() {
  missed_before = 0;
  missed.clear();
  deliveries.clear();
  unparsable_events = 0;
}

bool readDeliverFrame(std::string_view frame, DeliverContent& out) {
  out.clear();
  uint32_t version = 0;
  std::string_view deliver;
  bool have_deliver = false;
  const bool plain = readFields(frame, [&](WireReader& in, uint32_t field, uint32_t type) {
    uint64_t request_id;
    if (field == 1 && type == kVarint) return in.scalar(version);
    if (field == 2 && type == kVarint) return in.varint(request_id);  // a Deliver answers no request
    if (field == 21 && type == kLength && !have_deliver) return have_deliver = in.bytes(deliver);
    return false;
  });
  return plain && have_deliver && version == wire::kProtocolVersion && readDeliver(deliver, out);
}

void deliverContentFromProto(const proto::Deliver& deliver, DeliverContent& out) {
  out.clear();
  out.missed_before = deliver.missed_before();
  for (const auto& m : deliver.missed()) out.missed.push_back({m.subscription_id(), m.count()});
  for (const auto& delivery : deliver.deliveries()) {
    proto::Event parsed;
    if (!wire::parseFromPeer(parsed, delivery.event())) {
      ++out.unparsable_events;
      continue;
    }
    auto& d = out.deliveries.emplace_back();
    d.event = fromProto(std::move(parsed));
    d.subscription_ids.assign(delivery.subscription_ids().begin(), delivery.subscription_ids().end());
  }
}

}  // namespace ftb
