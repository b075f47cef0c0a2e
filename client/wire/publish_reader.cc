#include "client/wire/publish_reader.h"

#include "client/wire/codec.h"
#include "client/wire/wire_reader.h"

namespace ftb::wire {
namespace {

constexpr uint32_t kVarint = kWireVarint, kLength = kWireLength;

// Reads a varint field into `message` through its generated setter, narrowed
// to the setter's type as protobuf narrows it (a bool: any nonzero value).
template <typename Message, typename T>
bool scalarInto(WireReader& in, Message& message, void (Message::*set)(T)) {
  T value;
  if (!in.scalar(value)) return false;
  (message.*set)(value);
  return true;
}

bool readOrigin(std::string_view bytes, proto::Origin& origin) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    if (field == 1 && type == kLength) return in.ascii(*origin.mutable_host());
    if (type != kVarint) return false;
    if (field == 2) return scalarInto(in, origin, &proto::Origin::set_pid);
    if (field == 3) return scalarInto(in, origin, &proto::Origin::set_process_start_ns);
    return false;
  });
}

bool readEventId(std::string_view bytes, proto::EventId& id) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    std::string_view origin;
    if (field == 1 && type == kLength) return in.bytes(origin) && readOrigin(origin, *id.mutable_origin());
    if (type != kVarint) return false;
    if (field == 2) return scalarInto(in, id, &proto::EventId::set_client_instance);
    if (field == 3) return scalarInto(in, id, &proto::EventId::set_seq);
    return false;
  });
}

bool readSender(std::string_view bytes, proto::VerifiedSender& sender) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    if (field == 3 && type == kLength) return in.ascii(*sender.mutable_agent());
    if (type != kVarint) return false;
    switch (field) {
      case 1: return scalarInto(in, sender, &proto::VerifiedSender::set_uid);
      case 2: return scalarInto(in, sender, &proto::VerifiedSender::set_pid);
      case 4: return scalarInto(in, sender, &proto::VerifiedSender::set_credentials_known);
      default: return false;
    }
  });
}

bool readTag(std::string_view bytes, proto::Event& event) {
  std::string key, value;
  if (!readStringPair(bytes, key, value)) return false;
  (*event.mutable_tags())[key] = std::move(value);  // a later entry of a key wins
  return true;
}

bool readScalar(WireReader& in, uint32_t field, proto::Event& event) {
  uint64_t value;
  if (!in.varint(value)) return false;
  // Narrowed as protobuf narrows a varint into a 32-bit field; enums stay
  // open (proto3), so an unknown severity or type is kept as its number.
  switch (field) {
    case 3: event.set_severity(static_cast<proto::Severity>(static_cast<int32_t>(value))); return true;
    case 7: event.set_time_sec(static_cast<int64_t>(value)); return true;
    case 8: event.set_time_nsec(static_cast<int32_t>(value)); return true;
    case 10: event.set_type(static_cast<proto::EventType>(static_cast<int32_t>(value))); return true;
    default: return false;
  }
}

}  // namespace

bool readPlainEvent(std::string_view bytes, proto::Event& event) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    std::string_view part;
    if (type == kVarint) return readScalar(in, field, event);
    if (type != kLength) return false;
    switch (field) {
      case 1: return in.ascii(*event.mutable_event_space());
      case 2: return in.ascii(*event.mutable_event_name());
      case 4: return in.ascii(*event.mutable_client_name());
      case 5: return in.ascii(*event.mutable_job_id());
      case 6: return in.bytes(part) && readEventId(part, *event.mutable_id());
      case 9: return in.bytes(part) && (event.mutable_payload()->assign(part), true);
      case 11: return in.bytes(part) && readEventId(part, *event.mutable_response_to());
      case 12: return in.bytes(part) && readTag(part, event);
      case 13: return in.bytes(part) && readSender(part, *event.mutable_sender());
      default: return false;
    }
  });
}

bool readPublishFrame(std::string_view frame, PublishFrame& out) {
  out.request_id = 0;
  out.events.clear();
  uint32_t version = 0;
  bool have_publish = false;
  const bool plain = readFields(frame, [&](WireReader& in, uint32_t field, uint32_t type) {
    std::string_view publish;
    if (field == 1 && type == kVarint) return in.scalar(version);
    if (field == 2 && type == kVarint) return in.scalar(out.request_id);
    if (field != 13 || type != kLength || have_publish || !in.bytes(publish)) return false;
    have_publish = true;
    return readFields(publish, [&](WireReader& events, uint32_t number, uint32_t wire_type) {
      std::string_view event;
      if (number != 1 || wire_type != kLength || !events.bytes(event)) return false;
      out.events.push_back(event);
      return true;
    });
  });
  return plain && have_publish && version == kProtocolVersion;
}

}  // namespace ftb::wire
