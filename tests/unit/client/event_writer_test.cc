#define BOOST_TEST_MODULE event_writer
#include <boost/test/unit_test.hpp>

#include <string>

#include "client/wire/codec.h"
#include "client/wire/event_codec.h"
#include "client/wire/event_writer.h"

using ftb::OutgoingEvent;
namespace proto = ftb::proto;

namespace {

// The same event built as a proto::Event, serialized by protobuf with map
// entries in key order (as the writer orders them).
std::string byProtobuf(const OutgoingEvent& e) {
  proto::Event event;
  event.set_event_space(std::string(e.event_space));
  event.set_event_name(std::string(e.event_name));
  event.set_severity(e.severity);
  event.set_client_name(std::string(e.client_name));
  event.set_job_id(std::string(e.job_id));
  auto* id = event.mutable_id();
  if (e.origin) *id->mutable_origin() = *e.origin;
  id->set_client_instance(e.client_instance);
  id->set_seq(e.seq);
  event.set_time_sec(e.time_sec);
  event.set_time_nsec(e.time_nsec);
  event.set_payload(std::string(e.payload));
  event.set_type(e.type);
  if (e.response_to) ftb::toProto(*e.response_to, event.mutable_response_to());
  if (e.tags) {
    for (const auto& [k, v] : *e.tags) (*event.mutable_tags())[k] = v;
  }
  return ftb::wire::serializeDeterministic(event);
}

proto::Origin origin() {
  proto::Origin o;
  o.set_host("node17.cluster.example.org");
  o.set_pid(4242);
  o.set_process_start_ns(1700000000123456789ull);
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(writes_what_protobuf_writes) {
  const proto::Origin here = origin();
  const ftb::EventId asked{"node3", 7, 1600000000000000000ull, 2, 19};
  const ftb::Tags tags{{"", ""}, {"bmc", "node17-bmc"}, {"rack", ""}};
  const std::string payload("\0\x80 binary", 9);
  const OutgoingEvent cases[] = {
      {.event_space = "FTB.BENCH.SOURCE", .event_name = "BENCH_THROUGHPUT", .severity = proto::INFO,
       .client_name = "bench-publisher", .origin = &here, .client_instance = 1, .seq = 1,
       .time_sec = 1700000001, .time_nsec = 999999999, .payload = payload, .type = proto::NORMAL},
      {.event_space = "FTB.X", .event_name = "ANSWER", .severity = proto::FATAL, .job_id = "job-7",
       .origin = &here, .client_instance = 300, .seq = 1ull << 40, .time_sec = -5, .time_nsec = -1,
       .type = proto::RESPONSE, .response_to = &asked, .tags = &tags},
      {},  // every field at its default: only the (empty) id is written
  };
  for (const OutgoingEvent& e : cases) {
    BOOST_TEST(ftb::writeEvent(e) == byProtobuf(e));
  }
}

BOOST_AUTO_TEST_CASE(what_it_writes_reads_back_as_the_event) {
  const proto::Origin here = origin();
  const ftb::Tags tags{{"k", "v"}};
  OutgoingEvent e{.event_space = "FTB.A", .event_name = "E", .severity = proto::WARNING,
                  .client_name = "c", .origin = &here, .client_instance = 3, .seq = 9,
                  .payload = "p", .type = proto::NORMAL, .tags = &tags};
  proto::Event parsed;
  BOOST_REQUIRE(parsed.ParseFromString(ftb::writeEvent(e)));
  const ftb::Event event = ftb::fromProto(parsed);
  BOOST_TEST(event.event_space == "FTB.A");
  BOOST_TEST(event.id.host == "node17.cluster.example.org");
  BOOST_TEST(event.id.seq == 9u);
  BOOST_TEST(event.tags.at("k") == "v");
  BOOST_TEST((event.severity == ftb::Severity::kWarning));
}
