// writeEvent: the bytes of a serialized proto::Event for an event a client
// publishes, written directly. Building a proto::Event per publish() cost a
// dozen allocations (each string, the id, a copy of the origin, the payload
// twice) before serializing it; this costs the one string it returns. The
// bytes are what protobuf's deterministic serialization writes
// (tests/unit/client:event_writer_test).
//
//   std::string bytes = writeEvent({.event_space = "FTB.X", .event_name = "E", ...});
//
// Threading: a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "client/event.h"
#include "proto/ftb.pb.h"

namespace ftb {

struct OutgoingEvent {
  std::string_view event_space;
  std::string_view event_name;
  proto::Severity severity = proto::SEVERITY_UNSPECIFIED;
  std::string_view client_name;
  std::string_view job_id;
  const proto::Origin* origin = nullptr;  // none: the id has no origin
  uint32_t client_instance = 0;
  uint64_t seq = 0;
  int64_t time_sec = 0;
  int32_t time_nsec = 0;
  std::string_view payload;
  proto::EventType type = proto::EVENT_TYPE_UNSPECIFIED;
  const EventId* response_to = nullptr;
  const Tags* tags = nullptr;
};

std::string writeEvent(const OutgoingEvent& event);

}  // namespace ftb
