// Fuzzes what every peer of the agent can send it: one ZeroMQ frame, decoded by
// wire::decode (client/wire/codec.h), then what the agent reads out of an accepted
// envelope: serialized events (Publish, Deliver, HistoryReply) through the event
// codec and the name rules, and filter texts (Subscribe, HistoryQuery).
// Property: an accepted envelope survives encode/decode unchanged.
#include <google/protobuf/util/message_differencer.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "client/filter.h"
#include "client/names.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace {

// What the agent's data path does with one serialized event (agent/intake/event_intake.cc).
void readEvent(const std::string& bytes) {
  ftb::proto::Event event;
  if (!event.ParseFromString(bytes)) return;
  const ftb::Event model = ftb::fromProto(event);
  (void)ftb::normalizeEventSpace(model.event_space);
  (void)ftb::normalizeEventName(model.event_name);
  (void)model.id.toString();
  (void)model.id.publisherKey();
}

void readFilter(const std::string& text) {
  ftb::Result<ftb::Filter> filter = ftb::Filter::parse(text);
  if (filter.ok()) (void)filter->matchesEventSpace("FTB.MPI.OPENMPI");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ftb::Result<ftb::proto::Envelope> decoded = ftb::wire::decode(data, size);
  if (!decoded.ok()) return 0;
  ftb::proto::Envelope envelope = *decoded;

  const std::string again = ftb::wire::encode(envelope);
  ftb::Result<ftb::proto::Envelope> redecoded = ftb::wire::decode(again.data(), again.size());
  if (!redecoded.ok() ||
      !google::protobuf::util::MessageDifferencer::Equals(*decoded, *redecoded)) {
    std::abort();  // an envelope we accepted does not survive our own encoding
  }

  for (const auto& bytes : envelope.publish().events()) readEvent(bytes);
  for (const auto& delivery : envelope.deliver().deliveries()) readEvent(delivery.event());
  for (const auto& bytes : envelope.history_reply().events()) readEvent(bytes);
  readFilter(envelope.subscribe().filter());
  readFilter(envelope.history_query().filter());
  return 0;
}
