#include "client/deliver_reader.h"

#include <algorithm>

#include "client/codec.h"
#include "client/event_codec.h"
#include "client/wire_format.h"

namespace ftb {
namespace {

constexpr uint32_t kVarint = wire::kWireVarint, kLength = wire::kWireLength;

// Reads protobuf wire format from a byte range. Every read returns false on
// malformed input; the reader then declines the whole frame.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : at_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool done() const { return at_ == end_; }

  bool key(uint32_t& field, uint32_t& type) {
    uint64_t k;
    if (!varint(k) || k > UINT32_MAX) return false;
    field = static_cast<uint32_t>(k >> 3);
    type = static_cast<uint32_t>(k & 7);
    return field != 0;
  }

  // At most 10 bytes, the last carrying no more than the 64th bit: longer or
  // wider forms are declined rather than read the way protobuf would.
  bool varint(uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (at_ == end_) return false;
      const auto byte = static_cast<uint8_t>(*at_++);
      if (shift == 63 && byte > 1) return false;
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return true;
    }
    return false;
  }

  bool bytes(std::string_view& value) {
    uint64_t size;
    if (!varint(size) || size > static_cast<uint64_t>(end_ - at_)) return false;
    value = std::string_view(at_, static_cast<std::size_t>(size));
    at_ += size;
    return true;
  }

  // A `string` field: protobuf checks UTF-8; ASCII needs no check.
  bool ascii(std::string& value) {
    std::string_view view;
    if (!bytes(view)) return false;
    if (std::any_of(view.begin(), view.end(), [](char c) { return static_cast<uint8_t>(c) >= 0x80; })) {
      return false;
    }
    value.assign(view);
    return true;
  }

  template <typename T>
  bool scalar(T& value) {
    uint64_t v;
    if (!varint(v)) return false;
    value = static_cast<T>(v);  // protobuf truncates 32-bit fields the same way
    return true;
  }

 private:
  const char* at_;
  const char* end_;
};

// Each read*() takes one message's bytes; false declines. A sub-message read
// into what an earlier occurrence filled merges, as protobuf does.
bool readOrigin(std::string_view bytes, EventId& id) {
  WireReader in(bytes);
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type)) return false;
    bool ok = false;
    if (field == 1 && type == kLength) ok = in.ascii(id.host);
    if (field == 2 && type == kVarint) ok = in.scalar(id.pid);
    if (field == 3 && type == kVarint) ok = in.scalar(id.process_start_ns);
    if (!ok) return false;
  }
  return true;
}

bool readEventId(std::string_view bytes, EventId& id) {
  WireReader in(bytes);
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type)) return false;
    bool ok = false;
    std::string_view origin;
    if (field == 1 && type == kLength) ok = in.bytes(origin) && readOrigin(origin, id);
    if (field == 2 && type == kVarint) ok = in.scalar(id.client_instance);
    if (field == 3 && type == kVarint) ok = in.scalar(id.seq);
    if (!ok) return false;
  }
  return true;
}

bool readSender(std::string_view bytes, VerifiedSender& sender) {
  WireReader in(bytes);
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type)) return false;
    bool ok = false;
    uint64_t flag;
    if (field == 1 && type == kVarint) ok = in.scalar(sender.uid);
    if (field == 2 && type == kVarint) ok = in.scalar(sender.pid);
    if (field == 3 && type == kLength) ok = in.ascii(sender.agent);
    if (field == 4 && type == kVarint && in.varint(flag)) {
      sender.credentials_known = flag != 0;
      ok = true;
    }
    if (!ok) return false;
  }
  return true;
}

bool readTag(std::string_view bytes, Tags& tags) {
  WireReader in(bytes);
  std::string key, value;
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type) || type != kLength) return false;
    if (field == 1) {
      if (!in.ascii(key)) return false;
    } else if (field == 2) {
      if (!in.ascii(value)) return false;
    } else {
      return false;
    }
  }
  tags.insert_or_assign(std::move(key), std::move(value));  // a later entry of a key wins
  return true;
}

bool readEvent(std::string_view bytes, Event& event) {
  WireReader in(bytes);
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type)) return false;
    bool ok = false;
    std::string_view part;
    int32_t number;
    switch (field) {
      case 1: ok = type == kLength && in.ascii(event.event_space); break;
      case 2: ok = type == kLength && in.ascii(event.event_name); break;
      case 3:
        ok = type == kVarint && in.scalar(number);
        if (ok) event.severity = fromProto(static_cast<proto::Severity>(number));
        break;
      case 4: ok = type == kLength && in.ascii(event.client_name); break;
      case 5: ok = type == kLength && in.ascii(event.job_id); break;
      case 6: ok = type == kLength && in.bytes(part) && readEventId(part, event.id); break;
      case 7: ok = type == kVarint && in.scalar(event.time_sec); break;
      case 8: ok = type == kVarint && in.scalar(event.time_nsec); break;
      case 9:
        ok = type == kLength && in.bytes(part);
        if (ok) event.payload.assign(part);
        break;
      case 10:
        ok = type == kVarint && in.scalar(number);
        if (ok) event.type = number == proto::RESPONSE ? EventType::kResponse : EventType::kNormal;
        break;
      case 11:
        if (type == kLength && in.bytes(part)) {
          if (!event.response_to) event.response_to.emplace();
          ok = readEventId(part, *event.response_to);
        }
        break;
      case 12: ok = type == kLength && in.bytes(part) && readTag(part, event.tags); break;
      case 13: ok = type == kLength && in.bytes(part) && readSender(part, event.sender); break;
      default: break;
    }
    if (!ok) return false;
  }
  return true;
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
  WireReader in(bytes);
  std::string_view event;  // the last occurrence wins
  DeliverContent::Delivery& delivery = out.deliveries.emplace_back();
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type)) return false;
    if (field == 1 && type == kLength) {
      if (!in.bytes(event)) return false;
    } else if (field == 2) {
      if (!readSubscriptionIds(type, in, delivery.subscription_ids)) return false;
    } else {
      return false;
    }
  }
  return readEvent(event, delivery.event);
}

bool readMissed(std::string_view bytes, DeliverContent& out) {
  WireReader in(bytes);
  DeliverContent::Missed missed;
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type) || type != kVarint) return false;
    if (field == 1) {
      if (!in.scalar(missed.subscription_id)) return false;
    } else if (field == 2) {
      if (!in.scalar(missed.count)) return false;
    } else {
      return false;
    }
  }
  out.missed.push_back(missed);
  return true;
}

bool readDeliver(std::string_view bytes, DeliverContent& out) {
  WireReader in(bytes);
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type)) return false;
    std::string_view part;
    bool ok = false;
    if (field == 1 && type == kVarint) ok = in.scalar(out.missed_before);
    if (field == 2 && type == kLength) ok = in.bytes(part) && readDelivery(part, out);
    if (field == 3 && type == kLength) ok = in.bytes(part) && readMissed(part, out);
    if (!ok) return false;
  }
  return true;
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
  WireReader in(frame);
  uint32_t version = 0;
  std::string_view deliver;
  bool have_deliver = false;
  while (!in.done()) {
    uint32_t field, type;
    if (!in.key(field, type)) return false;
    uint64_t request_id;
    bool ok = false;
    if (field == 1 && type == kVarint) ok = in.scalar(version);
    if (field == 2 && type == kVarint) ok = in.varint(request_id);  // a Deliver answers no request
    if (field == 21 && type == kLength && !have_deliver) ok = have_deliver = in.bytes(deliver);
    if (!ok) return false;
  }
  return have_deliver && version == wire::kProtocolVersion && readDeliver(deliver, out);
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
