// Fuzzes the tree frames one agent sends another (proto/tree.proto, carried in
// an Envelope's `tree` body): parse, fromProto (agent/transport/tree_wire.h), then the
// event bytes and interest filters the receiving agent reads next
// (agent/tree_bridge/, agent/tree/interest.cc).
// Property: what fromProto accepts converts back and forth unchanged.
#include <google/protobuf/util/message_differencer.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <variant>

#include "agent/transport/tree_wire.h"
#include "agent/tree/interest.h"
#include "client/wire/event_codec.h"

namespace {

// What a link does with a peer's interest: compile it and route by it.
void readInterest(const ftb::tree::Interest& interest) {
  ftb::tree::InterestMatcher matcher;
  matcher.assign(interest);
  (void)matcher.matches("FTB.MPI.OPENMPI");
  (void)ftb::tree::grows(interest, ftb::tree::unionOf({&interest}));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  ftb::proto::TreeMessage wire;
  if (!wire.ParseFromArray(data, static_cast<int>(size))) return 0;
  ftb::Result<ftb::tree::TreeMessage> message = ftb::agent::fromProto(wire);
  if (!message.ok()) return 0;

  ftb::proto::TreeMessage once, twice;
  ftb::agent::toProto(*message, &once);
  ftb::Result<ftb::tree::TreeMessage> back = ftb::agent::fromProto(once);
  if (!back.ok()) std::abort();  // our own encoding of an accepted message is refused
  ftb::agent::toProto(*back, &twice);
  if (!google::protobuf::util::MessageDifferencer::Equals(once, twice)) std::abort();

  std::visit(
      [](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        namespace tree = ftb::tree;
        if constexpr (std::is_same_v<T, tree::EventBatch>) {
          for (const auto& e : body.events) {
            ftb::proto::Event event;
            if (e.bytes && event.ParseFromString(*e.bytes)) (void)ftb::fromProto(event);
          }
        } else if constexpr (std::is_same_v<T, tree::JoinRequest> ||
                             std::is_same_v<T, tree::JoinReply> ||
                             std::is_same_v<T, tree::InterestUpdate>) {
          readInterest(body.interest);
        }
      },
      message->body);
  return 0;
}
