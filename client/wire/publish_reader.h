// PublishReader: reads the frames the agent receives most, an Envelope holding
// a Publish, straight from their bytes. Decoding them with protobuf built an
// Envelope, copied each event's bytes out of it, and parsed each event with
// protobuf's generic parser: about a third of the agent's instructions per
// event (bench/results/2026-11-28-event-path-history.md, "Publish frames read by hand").
//
// As client/wire/deliver_reader.h, it reads only the plain form: every field known
// with its declared wire type, strings in ASCII, the Publish once. Anything
// else makes it decline and the caller decodes with protobuf as before, which
// accepts or reports it exactly as it always did. So it never accepts what
// protobuf would refuse, and reads what it accepts as protobuf would
// (tests/fuzz:publish_reader_fuzzer checks both on arbitrary bytes).
//
//   PublishFrame publish;
//   if (readPublishFrame(frame, publish)) for (std::string_view e : publish.events) ...
//
// Threading: plain functions over the caller's values.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "proto/ftb.pb.h"

namespace ftb::wire {

struct PublishFrame {
  uint64_t request_id = 0;
  std::vector<std::string_view> events;  // views into the frame: valid while it is
};

// Fills `out` from a plain Publish frame of this protocol version; false (and
// `out` unspecified) for any other frame: decode that with protobuf.
bool readPublishFrame(std::string_view frame, PublishFrame& out);

// Reads a plain event into `event`, which must be as Clear() leaves it (its id
// and origin may be kept present, as parseEventFromPeer keeps them); false (and
// `event` unspecified) for any other bytes: parse those with protobuf.
bool readPlainEvent(std::string_view bytes, proto::Event& event);

}  // namespace ftb::wire
