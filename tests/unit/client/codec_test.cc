#define BOOST_TEST_MODULE codec
#include <boost/test/unit_test.hpp>

#include <google/protobuf/stubs/logging.h>

#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

using namespace ftb;

BOOST_AUTO_TEST_CASE(envelope_round_trip_stamps_the_protocol_version) {
  proto::Envelope envelope;
  envelope.set_request_id(42);
  envelope.mutable_status_request();
  const std::string frame = wire::encode(envelope);
  auto decoded = wire::decode(frame.data(), frame.size());
  BOOST_REQUIRE(decoded.ok());
  BOOST_CHECK_EQUAL(decoded->protocol_version(), wire::kProtocolVersion);
  BOOST_CHECK_EQUAL(decoded->request_id(), 42u);
  BOOST_CHECK(decoded->has_status_request());
}

BOOST_AUTO_TEST_CASE(garbage_is_invalid_argument) {
  const std::string garbage = "\xff\xff\xff\xff not protobuf";
  auto decoded = wire::decode(garbage.data(), garbage.size());
  BOOST_REQUIRE(!decoded.ok());
  BOOST_CHECK(decoded.status().code() == Code::kInvalidArgument);
  BOOST_CHECK(decoded.status().message().find("malformed frame") != std::string::npos);
}

namespace {
int protobuf_log_lines = 0;
void countProtobufLog(google::protobuf::LogLevel, const char*, int, const std::string&) {
  ++protobuf_log_lines;
}
}  // namespace

// Found by tests/fuzz/envelope_fuzzer: libprotobuf logged one ERROR line of its
// own per frame with invalid UTF-8 in a string field, past the agent's
// rate-limited log, so any peer could flood the journal.
BOOST_AUTO_TEST_CASE(invalid_utf8_is_refused_without_a_protobuf_log_line) {
  // Envelope{protocol_version: 1, error: Error{message: "\xff"}}
  const std::string frame("\x08\x01\xb2\x01\x03\x12\x01\xff", 8);
  auto* previous = google::protobuf::SetLogHandler(&countProtobufLog);
  auto decoded = wire::decode(frame.data(), frame.size());
  proto::Event event;
  const bool parsed = wire::parseFromPeer(event, std::string("\x0a\x01\xff", 3));  // event_space
  google::protobuf::SetLogHandler(previous);
  BOOST_REQUIRE(!decoded.ok());
  BOOST_CHECK(decoded.status().code() == Code::kInvalidArgument);
  BOOST_CHECK(!parsed);
  BOOST_CHECK_EQUAL(protobuf_log_lines, 0);
}

BOOST_AUTO_TEST_CASE(other_protocol_version_names_both_versions) {
  proto::Envelope envelope;
  envelope.mutable_status_request();
  envelope.set_protocol_version(99);
  const std::string frame = envelope.SerializeAsString();
  auto decoded = wire::decode(frame.data(), frame.size());
  BOOST_REQUIRE(!decoded.ok());
  BOOST_CHECK(decoded.status().code() == Code::kFailedPrecondition);
  BOOST_CHECK(decoded.status().message().find("99") != std::string::npos);
  BOOST_CHECK(decoded.status().message().find(std::to_string(wire::kProtocolVersion)) !=
              std::string::npos);
}

BOOST_AUTO_TEST_CASE(envelope_without_body_is_rejected) {
  proto::Envelope envelope;
  const std::string frame = wire::encode(envelope);
  auto decoded = wire::decode(frame.data(), frame.size());
  BOOST_REQUIRE(!decoded.ok());
  BOOST_CHECK(decoded.status().code() == Code::kInvalidArgument);
}

BOOST_AUTO_TEST_CASE(event_round_trip_keeps_every_field) {
  Event e;
  e.event_space = "FTB.MPI.OPENMPI";
  e.event_name = "PROC_DEAD";
  e.severity = Severity::kFatal;
  e.client_name = "mpirun";
  e.job_id = "1234";
  e.id = {.host = "node7", .pid = 99, .process_start_ns = 123456789, .client_instance = 2, .seq = 17};
  e.time_sec = 1700000000;
  e.time_nsec = 999999999;
  e.payload = std::string("\0binary\xff", 8);
  e.type = EventType::kResponse;
  e.response_to = EventId{.host = "node1", .pid = 1, .process_start_ns = 5, .client_instance = 1, .seq = 3};
  e.tags = {{"rank", "3"}, {"node", "node7"}};
  proto::Event wire_event;
  toProto(e, &wire_event);
  Event back = fromProto(wire_event);
  BOOST_CHECK_EQUAL(back.event_space, e.event_space);
  BOOST_CHECK_EQUAL(back.event_name, e.event_name);
  BOOST_CHECK(back.severity == e.severity);
  BOOST_CHECK_EQUAL(back.client_name, e.client_name);
  BOOST_CHECK_EQUAL(back.job_id, e.job_id);
  BOOST_CHECK(back.id == e.id);
  BOOST_CHECK_EQUAL(back.time_sec, e.time_sec);
  BOOST_CHECK_EQUAL(back.time_nsec, e.time_nsec);
  BOOST_CHECK(back.payload == e.payload);
  BOOST_CHECK(back.type == EventType::kResponse);
  BOOST_REQUIRE(back.response_to.has_value());
  BOOST_CHECK(*back.response_to == *e.response_to);
  BOOST_CHECK(back.tags == e.tags);
}

BOOST_AUTO_TEST_CASE(appended_sender_merges_into_serialized_event) {
  // The agent appends a serialized Event holding only `sender` to the client's
  // bytes instead of re-encoding; protobuf merges concatenated messages.
  proto::Event original;
  original.set_event_name("X");
  original.set_payload("p");
  proto::Event sender_only;
  sender_only.mutable_sender()->set_uid(1000);
  sender_only.mutable_sender()->set_credentials_known(true);
  const std::string bytes = original.SerializeAsString() + sender_only.SerializeAsString();
  proto::Event merged;
  BOOST_REQUIRE(merged.ParseFromString(bytes));
  BOOST_CHECK_EQUAL(merged.event_name(), "X");
  BOOST_CHECK_EQUAL(merged.payload(), "p");
  BOOST_CHECK_EQUAL(merged.sender().uid(), 1000u);
  BOOST_CHECK(merged.sender().credentials_known());
}

BOOST_AUTO_TEST_CASE(an_event_parsed_into_a_reused_object_reads_as_a_fresh_parse) {
  Event first;
  first.event_space = "FTB.A";
  first.event_name = "ONE";
  first.id = {"a-rather-long-host-name-beyond-sso", 1, 2, 3, 4};
  first.tags = {{"k", "v"}};
  first.payload = "first";
  Event second;
  second.event_space = "FTB.B";
  second.event_name = "TWO";
  second.id = {"h2", 5, 6, 7, 8};
  proto::Event wire1, wire2;
  toProto(first, &wire1);
  toProto(second, &wire2);

  proto::Event reused;
  BOOST_REQUIRE(wire::parseEventFromPeer(reused, wire1.SerializeAsString()));
  const proto::EventId* id = &reused.id();
  BOOST_REQUIRE(wire::parseEventFromPeer(reused, wire2.SerializeAsString()));
  BOOST_TEST(&reused.id() == id);  // the id's storage was kept
  BOOST_TEST(reused.SerializeAsString() == wire2.SerializeAsString());  // nothing of the first left
  BOOST_CHECK(fromProto(reused).tags.empty());

  // Bytes without an id: every id field reads as zero (the id stays present).
  proto::Event no_id = wire2;
  no_id.clear_id();
  BOOST_REQUIRE(wire::parseEventFromPeer(reused, no_id.SerializeAsString()));
  BOOST_TEST(reused.id().seq() == 0u);
  BOOST_TEST(reused.id().origin().host().empty());
  BOOST_TEST(!wire::parseEventFromPeer(reused, "\xff\xff"));
}
