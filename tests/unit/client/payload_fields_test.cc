// The components' payload format: a head word first, then key=value fields that parse back.
#define BOOST_TEST_MODULE payload_fields
#include <boost/test/unit_test.hpp>

#include "client/payload_fields.h"

using ftb::formatPayload;
using ftb::kMaxPayloadBytes;
using ftb::parsePayload;

BOOST_AUTO_TEST_CASE(host_comes_first_and_plain_values_are_bare) {
  const std::string p = formatPayload("node17", {{"sensor", "FAN1"}, {"reading", "0.00"}});
  BOOST_CHECK_EQUAL(p, "node17 sensor=FAN1 reading=0.00");
}

BOOST_AUTO_TEST_CASE(values_with_spaces_quotes_and_equals_are_quoted_and_parse_back) {
  const std::string p = formatPayload(
      "n1", {{"sensor", "CPU1 Temp"}, {"event", "say \"hi\" \\ a=b"}, {"empty", ""}});
  BOOST_CHECK_EQUAL(p, R"(n1 sensor="CPU1 Temp" event="say \"hi\" \\ a=b" empty="")");
  auto parsed = parsePayload(p);
  BOOST_REQUIRE_MESSAGE(parsed.ok(), parsed.status().toString());
  BOOST_CHECK_EQUAL(parsed->head, "n1");
  BOOST_CHECK_EQUAL(parsed->fields.at("sensor"), "CPU1 Temp");
  BOOST_CHECK_EQUAL(parsed->fields.at("event"), "say \"hi\" \\ a=b");
  BOOST_CHECK_EQUAL(parsed->fields.at("empty"), "");
}

BOOST_AUTO_TEST_CASE(old_consumers_read_the_host_as_the_first_word) {
  const std::string p = formatPayload("node17", {{"sensor", "CPU1 Temp"}});
  BOOST_CHECK_EQUAL(p.substr(0, p.find(' ')), "node17");
}

BOOST_AUTO_TEST_CASE(trailing_fields_are_dropped_to_fit_the_ftb05_limit) {
  const std::string long_text(400, 'x');
  const std::string p = formatPayload(
      "n1", {{"sensor", "FAN1"}, {"state", "critical"}, {"event", long_text}, {"sel_id", "4"}});
  BOOST_CHECK_LE(p.size(), kMaxPayloadBytes);
  BOOST_CHECK_EQUAL(p, "n1 sensor=FAN1 state=critical");
  BOOST_CHECK_EQUAL(formatPayload("n1", {{"a", "1"}, {"b", "2"}}, 8), "n1 a=1");
}

BOOST_AUTO_TEST_CASE(malformed_payloads_are_rejected_with_the_reason) {
  BOOST_CHECK(!parsePayload("").ok());
  auto noeq = parsePayload("n1 sensor");
  BOOST_REQUIRE(!noeq.ok());
  BOOST_CHECK_NE(noeq.status().message().find("no '='"), std::string::npos);
  BOOST_CHECK(!parsePayload("n1 a=\"open").ok());
  BOOST_CHECK(!parsePayload("n1 a=\"x\"y").ok());
  auto bare = parsePayload("n1");
  BOOST_REQUIRE(bare.ok());
  BOOST_CHECK(bare->fields.empty());
}

BOOST_AUTO_TEST_CASE(one_field_is_found_whatever_the_head_holds) {
  const std::string p = formatPayload("HCA:mlx5_0 PORT:1 STATE:PORT_DOWN",
                                      {{"state", "PORT_DOWN"}, {"reasons", "width 1X < \"4X\""}});
  BOOST_CHECK_EQUAL(ftb::payloadField(p, "state"), "PORT_DOWN");
  BOOST_CHECK_EQUAL(ftb::payloadField(p, "reasons"), "width 1X < \"4X\"");
  BOOST_CHECK_EQUAL(ftb::payloadField(p, "PORT"), "");
  BOOST_CHECK_EQUAL(ftb::payloadField(p, "missing"), "");
}

BOOST_AUTO_TEST_CASE(tags_are_fields_in_key_order) {
  BOOST_CHECK_EQUAL(ftb::formatTagsPayload("done", ftb::Tags{{"rank", "3"}, {"corr", "C 1"}}),
                    "done corr=\"C 1\" rank=3");
}
