// DeliverReader: reads the agent's Deliver frames (an Envelope holding a
// Deliver, as agent/routing/deliver_frame.h writes them) straight from their bytes into
// ftb::Event values. Decoding them with protobuf first built an Envelope, a
// Delivery per event, a copy of each event's bytes and a proto::Event, then
// moved that into an ftb::Event: most of a subscriber's CPU per event.
//
// It reads only the plain form: every field known, with its declared wire
// type, strings in ASCII, each sub-message once. Anything else (an unknown
// field, UTF-8, a malformed varint, another protocol version) makes it
// decline, and the caller decodes the frame with protobuf as before, which
// accepts or reports it exactly as it always did. So the reader never accepts
// what protobuf would refuse, and what it accepts reads as protobuf would read
// it (tests/fuzz:deliver_reader_fuzzer checks both on arbitrary bytes).
//
//   DeliverContent content;
//   if (!readDeliverFrame(frame, content)) ... decode with protobuf, then
//   deliverContentFromProto(envelope.deliver(), content);
//
// Threading: plain functions over the caller's values.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "client/event.h"
#include "proto/ftb.pb.h"

namespace ftb {

struct DeliverContent {
  struct Missed {
    uint32_t subscription_id = 0;
    uint64_t count = 0;
    bool operator==(const Missed&) const = default;
  };
  struct Delivery {
    Event event;
    std::vector<uint32_t> subscription_ids;
  };
  uint64_t missed_before = 0;
  std::vector<Missed> missed;
  std::vector<Delivery> deliveries;
  // Deliveries whose event did not parse (left out of `deliveries`).
  uint32_t unparsable_events = 0;

  // Empties it, keeping the vectors' storage for the next frame.
  void clear();
};

// Fills `out` from a plain Deliver frame; false (and `out` unspecified) when
// the frame is anything else: decode it with protobuf then.
bool readDeliverFrame(std::string_view frame, DeliverContent& out);

// The same content from a Deliver that protobuf decoded.
void deliverContentFromProto(const proto::Deliver& deliver, DeliverContent& out);

}  // namespace ftb
