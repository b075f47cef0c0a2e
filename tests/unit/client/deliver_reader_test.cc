#define BOOST_TEST_MODULE deliver_reader
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "agent/routing/deliver_frame.h"
#include "client/wire/codec.h"
#include "client/wire/deliver_reader.h"
#include "client/wire/event_codec.h"
#include "tests/unit/client/full_event.h"

using ftb::DeliverContent;
using ftb::agent::DeliverFrame;
namespace proto = ftb::proto;

namespace {

using ftb::testing::fullEvent;

std::string serialized(const ftb::Event& event) {
  proto::Event wire;
  ftb::toProto(event, &wire);
  return wire.SerializeAsString();
}

// What protobuf reads from `frame` (the reference the reader must agree with).
DeliverContent viaProtobuf(const std::string& frame) {
  ftb::Result<proto::Envelope> envelope = ftb::wire::decode(frame.data(), frame.size());
  BOOST_REQUIRE(envelope.ok());
  DeliverContent content;
  ftb::deliverContentFromProto(envelope->deliver(), content);
  return content;
}

void requireSame(const DeliverContent& a, const DeliverContent& b) {
  BOOST_TEST(a.missed_before == b.missed_before);
  BOOST_TEST((a.missed == b.missed));
  BOOST_TEST(a.unparsable_events == b.unparsable_events);
  BOOST_REQUIRE_EQUAL(a.deliveries.size(), b.deliveries.size());
  for (std::size_t i = 0; i < a.deliveries.size(); ++i) {
    BOOST_TEST((a.deliveries[i].event == b.deliveries[i].event));
    BOOST_TEST(a.deliveries[i].subscription_ids == b.deliveries[i].subscription_ids,
               boost::test_tools::per_element());
  }
}

// A frame whose one delivery carries `event_bytes`.
std::string frameOf(const std::string& event_bytes) {
  DeliverFrame frame;
  const uint32_t ids[] = {3};
  frame.add(event_bytes, ids);
  return frame.finish(0, {});
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_the_agents_frames_as_protobuf_does) {
  ftb::Event plain;
  plain.event_space = "FTB.MPI";
  plain.event_name = "E";
  plain.id = {"n", 1, 2, 3, 4};
  DeliverFrame frame;
  const uint32_t two[] = {1, 300};
  frame.add(serialized(fullEvent()), two);
  frame.add(serialized(plain), std::span<const uint32_t>(two, 1));
  frame.add("", std::span<const uint32_t>(two + 1, 1));  // an empty event reads as all defaults
  const std::string bytes = frame.finish(12, {{1, 9}, {300, 3}});

  DeliverContent read;
  BOOST_REQUIRE(ftb::readDeliverFrame(bytes, read));
  BOOST_TEST((read.deliveries.at(0).event == fullEvent()));
  BOOST_TEST(read.deliveries.at(0).subscription_ids == (std::vector<uint32_t>{1, 300}),
             boost::test_tools::per_element());
  BOOST_TEST(read.missed_before == 12u);
  requireSame(read, viaProtobuf(bytes));
}

BOOST_AUTO_TEST_CASE(a_repeated_sub_message_merges_and_a_repeated_field_takes_the_last) {
  ftb::Event first = fullEvent();
  proto::Event later;  // only seq and the event name, sent after the whole event
  later.mutable_id()->set_seq(99);
  later.set_event_name("LATER");
  later.mutable_response_to()->set_seq(20);
  (*later.mutable_tags())["a"] = "2";
  const std::string bytes = frameOf(serialized(first) + later.SerializeAsString());

  DeliverContent read;
  BOOST_REQUIRE(ftb::readDeliverFrame(bytes, read));
  const ftb::Event& e = read.deliveries.at(0).event;
  BOOST_TEST(e.id.seq == 99u);
  BOOST_TEST(e.id.host == "node17");  // kept: the second id merged into the first
  BOOST_TEST(e.response_to->seq == 20u);
  BOOST_TEST(e.response_to->host == "node3");
  BOOST_TEST(e.event_name == "LATER");
  BOOST_TEST(e.tags.at("a") == "2");
  requireSame(read, viaProtobuf(bytes));
}

BOOST_AUTO_TEST_CASE(declines_what_it_does_not_read_and_protobuf_still_decides) {
  DeliverContent read;
  // Non-ASCII UTF-8 in a string field: protobuf accepts it, the reader leaves it to protobuf.
  ftb::Event accented = fullEvent();
  accented.id.host = "n\xc5\x93ud";
  const std::string utf8 = frameOf(serialized(accented));
  BOOST_TEST(!ftb::readDeliverFrame(utf8, read));
  BOOST_TEST(viaProtobuf(utf8).deliveries.at(0).event.id.host == accented.id.host);

  // Invalid UTF-8 in a string field: protobuf counts the event as unparsable.
  ftb::Event broken = fullEvent();
  broken.event_space = "FTB.\xff";
  const std::string bad = frameOf(serialized(broken));
  BOOST_TEST(!ftb::readDeliverFrame(bad, read));
  BOOST_TEST(viaProtobuf(bad).unparsable_events == 1u);

  // A field this version does not know (field 99, varint): protobuf skips it.
  std::string unknown = serialized(fullEvent());
  unknown += std::string("\x98\x06\x01", 3);
  BOOST_TEST(!ftb::readDeliverFrame(frameOf(unknown), read));
  BOOST_TEST((viaProtobuf(frameOf(unknown)).deliveries.at(0).event == fullEvent()));

  // Another body, another protocol version, a truncated frame.
  proto::Envelope ok;
  ok.mutable_ok();
  BOOST_TEST(!ftb::readDeliverFrame(ftb::wire::encode(ok), read));
  std::string frame = frameOf(serialized(fullEvent()));
  std::string v2 = frame;
  v2[1] = 2;  // the protocol version's value (field 1, varint)
  BOOST_TEST(!ftb::readDeliverFrame(v2, read));
  BOOST_TEST(!ftb::readDeliverFrame(frame.substr(0, frame.size() - 1), read));
  BOOST_TEST(ftb::readDeliverFrame(frame, read));
}

BOOST_AUTO_TEST_CASE(reuses_its_storage_between_frames) {
  DeliverContent read;
  BOOST_REQUIRE(ftb::readDeliverFrame(frameOf(serialized(fullEvent())), read));
  DeliverFrame frame;
  const std::string bytes = frame.finish(4, {});  // a loss notice alone
  BOOST_REQUIRE(ftb::readDeliverFrame(bytes, read));
  BOOST_TEST(read.deliveries.empty());
  BOOST_TEST(read.missed_before == 4u);
}
