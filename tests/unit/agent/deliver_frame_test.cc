#define BOOST_TEST_MODULE deliver_frame
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "agent/routing/deliver_frame.h"
#include "client/wire/codec.h"
#include "proto/ftb.pb.h"

using ftb::agent::DeliverFrame;
namespace proto = ftb::proto;

namespace {

// The same frame built the ordinary way, from protobuf messages.
std::string expected(const std::vector<std::pair<std::string, std::vector<uint32_t>>>& deliveries,
                     uint64_t missed_before, const std::map<uint32_t, uint64_t>& missed) {
  proto::Envelope envelope;
  auto* d = envelope.mutable_deliver();
  for (const auto& [event, ids] : deliveries) {
    auto* delivery = d->add_deliveries();
    delivery->set_event(event);
    for (uint32_t id : ids) delivery->add_subscription_ids(id);
  }
  d->set_missed_before(missed_before);
  for (const auto& [id, count] : missed) {
    auto* m = d->add_missed();
    m->set_subscription_id(id);
    m->set_count(count);
  }
  return ftb::wire::encode(envelope);
}

// Parsed and serialized again: protobuf's own canonical bytes, whatever the field order.
std::string canonical(const std::string& frame) {
  auto envelope = ftb::wire::decode(frame.data(), frame.size());
  BOOST_REQUIRE_MESSAGE(envelope.ok(), envelope.status().message());
  return envelope->SerializeAsString();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_frame_parses_as_the_envelope_protobuf_would_build) {
  const std::string small = "event bytes";
  const std::string large(300, 'x');  // lengths past one varint byte
  const std::vector<std::pair<std::string, std::vector<uint32_t>>> deliveries = {
      {small, {1}}, {large, {2, 200, 70000}}, {small, {}}, {"", {0}}};
  DeliverFrame frame;
  for (const auto& [event, ids] : deliveries) frame.add(event, ids);
  BOOST_TEST(frame.events() == 4u);
  BOOST_TEST(frame.subscriptionIds() == (std::vector<uint32_t>{1, 2, 200, 70000, 0}),
             boost::test_tools::per_element());
  const std::map<uint32_t, uint64_t> missed = {{1, 5}, {300, 1ull << 40}};
  const std::string bytes = frame.finish(7, missed);
  BOOST_TEST(canonical(bytes) == canonical(expected(deliveries, 7, missed)));
  auto envelope = ftb::wire::decode(bytes.data(), bytes.size());
  BOOST_REQUIRE(envelope.ok());
  BOOST_TEST(envelope->protocol_version() == ftb::wire::kProtocolVersion);
  BOOST_TEST(envelope->deliver().deliveries(1).event() == large);
}

BOOST_AUTO_TEST_CASE(a_frame_without_losses_or_deliveries_is_still_a_deliver) {
  DeliverFrame empty;
  const std::string notice = empty.finish(3, {{9, 3}});
  BOOST_TEST(canonical(notice) == canonical(expected({}, 3, {{9, 3}})));
  DeliverFrame one;
  one.add("e", std::vector<uint32_t>{4});
  BOOST_TEST(canonical(one.finish(0, {})) == canonical(expected({{"e", {4}}}, 0, {})));
  auto envelope = ftb::wire::decode(notice.data(), notice.size());
  BOOST_REQUIRE(envelope.ok());
  BOOST_TEST(envelope->has_deliver());
}
