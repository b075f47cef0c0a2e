// Fuzzes the agent's reader of Publish frames and events
// (client/wire/publish_reader.h), a second decoder beside protobuf for the frames
// the agent receives most. Property: whatever it accepts, protobuf accepts
// too, and both read the same content: a frame's request id and event bytes,
// an event's every field.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "client/wire/codec.h"
#include "client/wire/publish_reader.h"

namespace {

std::string canonical(const ftb::proto::Event& event) {
  return ftb::wire::serializeDeterministic(event);
}

// An event the reader accepts must parse, and read the same, with protobuf.
void checkEvent(std::string_view bytes) {
  ftb::proto::Event read;
  if (!ftb::wire::readPlainEvent(bytes, read)) return;
  ftb::proto::Event reference;
  if (!ftb::wire::parseFromPeer(reference, bytes.data(), bytes.size())) std::abort();
  if (canonical(read) != canonical(reference)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  checkEvent(input);
  ftb::wire::PublishFrame read;
  if (!ftb::wire::readPublishFrame(input, read)) return 0;
  ftb::Result<ftb::proto::Envelope> decoded = ftb::wire::decode(data, size);
  if (!decoded.ok() || !decoded->has_publish()) std::abort();  // accepted what protobuf refuses
  const auto& events = decoded->publish().events();
  if (read.request_id != decoded->request_id() ||
      read.events.size() != static_cast<std::size_t>(events.size())) {
    std::abort();
  }
  for (int i = 0; i < events.size(); ++i) {
    if (read.events[static_cast<std::size_t>(i)] != events[i]) std::abort();
    checkEvent(read.events[static_cast<std::size_t>(i)]);
  }
  return 0;
}
