// Fuzzes the SDK's reader of Deliver frames (client/wire/deliver_reader.h), a
// second decoder beside protobuf for the frames subscribers receive most.
// Property: whatever it accepts, protobuf accepts too (wire::decode gives a
// Deliver), and both read the same content, event by event.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "client/wire/codec.h"
#include "client/wire/deliver_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ftb::DeliverContent read;
  if (!ftb::readDeliverFrame(std::string_view(reinterpret_cast<const char*>(data), size), read)) return 0;
  ftb::Result<ftb::proto::Envelope> decoded = ftb::wire::decode(data, size);
  if (!decoded.ok() || !decoded->has_deliver()) std::abort();  // accepted what protobuf refuses
  ftb::DeliverContent reference;
  ftb::deliverContentFromProto(decoded->deliver(), reference);
  if (reference.unparsable_events != 0 || read.missed_before != reference.missed_before ||
      read.missed != reference.missed || read.deliveries.size() != reference.deliveries.size()) {
    std::abort();
  }
  for (std::size_t i = 0; i < read.deliveries.size(); ++i) {
    if (!(read.deliveries[i].event == reference.deliveries[i].event) ||
        read.deliveries[i].subscription_ids != reference.deliveries[i].subscription_ids) {
      std::abort();  // read differently from protobuf
    }
  }
  return 0;
}
