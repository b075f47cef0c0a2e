#define BOOST_TEST_MODULE publish_reader
#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "client/wire/codec.h"
#include "client/wire/event_codec.h"
#include "client/wire/event_writer.h"
#include "client/wire/publish_reader.h"
#include "tests/unit/client/full_event.h"

namespace proto = ftb::proto;
namespace wire = ftb::wire;

namespace {

proto::Event fullEvent() {
  proto::Event wire;
  ftb::toProto(ftb::testing::fullEvent(), &wire);
  return wire;
}

// Content compared as protobuf's deterministic bytes (maps sorted by key).
std::string canonical(const proto::Event& event) {
  return ftb::wire::serializeDeterministic(event);
}

// Reads `bytes` by hand; fails the test if the reader declines them.
proto::Event readByHand(std::string_view bytes) {
  proto::Event event;
  BOOST_REQUIRE(wire::readPlainEvent(bytes, event));
  return event;
}

proto::Event readByProtobuf(const std::string& bytes) {
  proto::Event event;
  BOOST_REQUIRE(event.ParseFromString(bytes));
  return event;
}

std::string publishFrame(const std::vector<std::string>& events, uint64_t request_id) {
  proto::Envelope envelope;
  envelope.set_request_id(request_id);
  for (const auto& e : events) envelope.mutable_publish()->add_events(e);
  return wire::encode(envelope);
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_an_event_as_protobuf_does) {
  const std::string bytes = fullEvent().SerializeAsString();
  BOOST_TEST(canonical(readByHand(bytes)) == canonical(readByProtobuf(bytes)));
  BOOST_TEST(readByHand(bytes).tags().at("rack") == "r12");
  BOOST_TEST(readByHand(bytes).sender().credentials_known());
}

BOOST_AUTO_TEST_CASE(reads_what_the_sdk_writes) {
  proto::Origin origin;
  origin.set_host("node4");
  origin.set_pid(99);
  origin.set_process_start_ns(123456789);
  const ftb::Tags tags = {{"rank", "3"}};
  const std::string bytes = ftb::writeEvent({.event_space = "FTB.MPI.OPENMPI",
                                             .event_name = "RANK_FAILED",
                                             .severity = proto::FATAL,
                                             .client_name = "rank-3",
                                             .origin = &origin,
                                             .seq = 41,
                                             .payload = "x",
                                             .tags = &tags});
  const proto::Event event = readByHand(bytes);
  BOOST_TEST(canonical(event) == canonical(readByProtobuf(bytes)));
  BOOST_TEST(event.id().seq() == 41u);
  BOOST_TEST(event.severity() == proto::FATAL);
}

BOOST_AUTO_TEST_CASE(a_repeated_sub_message_merges_and_a_later_scalar_wins) {
  proto::Event first;
  first.mutable_id()->set_seq(5);
  first.set_severity(proto::INFO);
  proto::Event second;
  second.mutable_id()->mutable_origin()->set_host("h");
  second.set_severity(proto::WARNING);
  (*second.mutable_tags())["k"] = "later";
  proto::Event earlier_tag;
  (*earlier_tag.mutable_tags())["k"] = "earlier";
  const std::string bytes =
      earlier_tag.SerializeAsString() + first.SerializeAsString() + second.SerializeAsString();
  const proto::Event event = readByHand(bytes);
  BOOST_TEST(canonical(event) == canonical(readByProtobuf(bytes)));
  BOOST_TEST(event.id().seq() == 5u);
  BOOST_TEST(event.id().origin().host() == "h");
  BOOST_TEST(event.tags().at("k") == "later");
}

BOOST_AUTO_TEST_CASE(declines_what_is_not_plain_and_protobuf_still_reads_it) {
  proto::Event utf8 = fullEvent();
  utf8.set_client_name("r\xc3\xa9seau");  // UTF-8: protobuf's check decides
  proto::Event unknown_field = fullEvent();
  const std::string with_unknown = unknown_field.SerializeAsString() + std::string("\xa8\x06\x01", 3);  // field 101
  for (const std::string& bytes : {utf8.SerializeAsString(), with_unknown}) {
    proto::Event by_hand;
    BOOST_TEST(!wire::readPlainEvent(bytes, by_hand));
    proto::Event parsed;
    BOOST_REQUIRE(wire::parseEventFromPeer(parsed, bytes));  // the fallback reads it
    BOOST_TEST(canonical(parsed) == canonical(readByProtobuf(bytes)));
  }
}

BOOST_AUTO_TEST_CASE(declines_malformed_events_as_protobuf_refuses_them) {
  const std::string bytes = fullEvent().SerializeAsString();
  const std::string truncated = bytes.substr(0, bytes.size() - 3);
  const std::string wrong_type = std::string("\x09", 1) + std::string(8, 'a');  // field 1 as fixed64
  const std::string bad_varint(11, '\xff');
  for (const std::string& bad : {truncated, bad_varint}) {
    proto::Event event;
    BOOST_TEST(!wire::readPlainEvent(bad, event));
    BOOST_TEST(!wire::parseEventFromPeer(event, bad));
  }
  proto::Event event;
  BOOST_TEST(!wire::readPlainEvent(wrong_type, event));
}

// Found by tests/fuzz:publish_reader_fuzzer: protobuf reads keys and lengths
// in at most 5 bytes, so a length of 0 written in 8 was accepted by hand only.
BOOST_AUTO_TEST_CASE(declines_keys_and_lengths_longer_than_protobuf_reads) {
  const std::string long_length("\x62\x80\x80\x80\x80\x80\x80\x80\x00", 9);  // tags entry, length 0
  const std::string long_key("\x98\x80\x80\x80\x80\x00\x01", 7);              // severity = 1
  const std::string five_byte_length("\x62\x80\x80\x80\x80\x00", 6);          // still protobuf's
  for (const std::string& bad : {long_length, long_key}) {
    proto::Event event;
    BOOST_TEST(!wire::readPlainEvent(bad, event));
    BOOST_TEST(!wire::parseEventFromPeer(event, bad));
  }
  BOOST_TEST(canonical(readByHand(five_byte_length)) == canonical(readByProtobuf(five_byte_length)));
}

BOOST_AUTO_TEST_CASE(parsing_again_into_one_event_leaves_nothing_of_the_last) {
  proto::Event reused;
  BOOST_REQUIRE(wire::parseEventFromPeer(reused, fullEvent().SerializeAsString()));
  proto::Event small;
  small.set_event_name("ONLY");
  BOOST_REQUIRE(wire::parseEventFromPeer(reused, small.SerializeAsString()));
  BOOST_TEST(reused.event_name() == "ONLY");
  BOOST_TEST(reused.tags().empty());
  BOOST_TEST(!reused.has_sender());
  BOOST_TEST(!reused.has_response_to());
  BOOST_TEST(reused.payload().empty());
  BOOST_TEST(reused.id().seq() == 0u);  // kept present, emptied (codec.h)
  BOOST_TEST(reused.id().origin().host().empty());
}

BOOST_AUTO_TEST_CASE(reads_a_publish_frame_as_views_of_its_events) {
  const std::vector<std::string> events = {fullEvent().SerializeAsString(), "", std::string("\0\1", 2)};
  const std::string frame = publishFrame(events, 77);
  wire::PublishFrame read;
  BOOST_REQUIRE(wire::readPublishFrame(frame, read));
  BOOST_TEST(read.request_id == 77u);
  BOOST_REQUIRE_EQUAL(read.events.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    BOOST_TEST(read.events[i] == events[i]);
    // A view into the frame, not a copy (pointers, not C strings: double parentheses).
    BOOST_TEST((read.events[i].data() >= frame.data()));
    BOOST_TEST((read.events[i].data() + read.events[i].size() <= frame.data() + frame.size()));
  }
}

BOOST_AUTO_TEST_CASE(declines_every_other_frame) {
  proto::Envelope hello;
  hello.mutable_hello()->set_client_name("c");
  proto::Envelope other_version;
  other_version.mutable_publish()->add_events("e");
  other_version.set_protocol_version(wire::kProtocolVersion + 1);
  const std::string publish = publishFrame({"e"}, 1);
  const std::string declined[] = {
      wire::encode(hello),
      other_version.SerializeAsString(),
      publish + publish.substr(2),                      // a second Publish (protobuf merges them)
      publish + std::string("\x10\x05\x10", 3),         // truncated at the end
      publishFrame({}, 1),                              // no Publish at all: no body
      std::string("\x08\x01\x6a\x02\x10\x01", 6),        // inside the Publish: field 2, not 1
  };
  for (const std::string& frame : declined) {
    wire::PublishFrame read;
    BOOST_TEST(!wire::readPublishFrame(frame, read));
  }
}
