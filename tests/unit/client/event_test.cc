#define BOOST_TEST_MODULE event_test
#include "client/event.h"

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>

namespace ftb {

// Boost.Test prints values of failed checks; these let it print our enums.
std::ostream& boost_test_print_type(std::ostream& os, Code code) { return os << codeName(code); }
std::ostream& boost_test_print_type(std::ostream& os, Severity s) { return os << severityName(s); }

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

BOOST_AUTO_TEST_CASE(parse_severity_is_case_insensitive) {
  BOOST_TEST(*parseSeverity("info") == Severity::kInfo);
  BOOST_TEST(*parseSeverity("WARNING") == Severity::kWarning);
  BOOST_TEST(*parseSeverity("Error") == Severity::kError);
  BOOST_TEST(*parseSeverity("fAtAl") == Severity::kFatal);
}

BOOST_AUTO_TEST_CASE(parse_severity_error_names_value_and_choices) {
  for (const char* bad : {"loud", "", "info ", "warn"}) {
    auto r = parseSeverity(bad);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.status().code() == Code::kInvalidArgument);
    BOOST_TEST(contains(r.status().message(), "'" + std::string(bad) + "'"));
    BOOST_TEST(contains(r.status().message(), "info, warning, error, fatal"));
  }
}

BOOST_AUTO_TEST_CASE(severity_names_and_order) {
  BOOST_TEST(severityName(Severity::kInfo) == "INFO");
  BOOST_TEST(severityName(Severity::kWarning) == "WARNING");
  BOOST_TEST(severityName(Severity::kError) == "ERROR");
  BOOST_TEST(severityName(Severity::kFatal) == "FATAL");
  BOOST_TEST((Severity::kInfo < Severity::kWarning && Severity::kWarning < Severity::kError &&
              Severity::kError < Severity::kFatal));
}

EventId sample() {
  return EventId{.host = "node-17.cluster",
                 .pid = 4242,
                 .process_start_ns = 1700000000123456789ULL,
                 .client_instance = 3,
                 .seq = 99};
}

BOOST_AUTO_TEST_CASE(event_id_to_string_and_publisher_key) {
  BOOST_TEST(sample().toString() == "node-17.cluster/4242/1700000000123456789/3/99");
  BOOST_TEST(sample().publisherKey() == "node-17.cluster/4242/1700000000123456789/3");
  EventId other = sample();
  other.seq = 100;
  BOOST_TEST(other.publisherKey() == sample().publisherKey());
}

BOOST_AUTO_TEST_CASE(event_id_round_trip) {
  auto r = EventId::parse(sample().toString());
  BOOST_REQUIRE(r.ok());
  BOOST_TEST((*r == sample()));

  EventId max{.host = "h",
              .pid = UINT32_MAX,
              .process_start_ns = UINT64_MAX,
              .client_instance = UINT32_MAX,
              .seq = UINT64_MAX};
  auto m = EventId::parse(max.toString());
  BOOST_REQUIRE(m.ok());
  BOOST_TEST((*m == max));

  EventId zero{.host = "h"};
  BOOST_TEST((*EventId::parse("h/0/0/0/0") == zero));
}

void expectParseError(const std::string& text, const std::string& part) {
  auto r = EventId::parse(text);
  BOOST_TEST_CONTEXT(text) {
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.status().code() == Code::kInvalidArgument);
    BOOST_TEST(contains(r.status().message(), part), r.status().message());
    BOOST_TEST(contains(r.status().message(), "'" + text + "'"));
  }
}

BOOST_AUTO_TEST_CASE(event_id_parse_errors) {
  expectParseError("", "got 1");
  expectParseError("h/1/2/3", "got 4");
  expectParseError("a/b/1/2/3/4", "got 6");  // host may not contain '/'
  expectParseError("/1/2/3/4", "host is empty");
  expectParseError("h/x/2/3/4", "pid 'x' is not an unsigned 32-bit integer");
  expectParseError("h//2/3/4", "pid ''");
  expectParseError("h/-1/2/3/4", "pid '-1'");
  expectParseError("h/+1/2/3/4", "pid '+1'");
  expectParseError("h/4294967296/2/3/4", "pid '4294967296'");
  expectParseError("h/1/18446744073709551616/3/4", "process_start_ns '18446744073709551616'");
  expectParseError("h/1/2/3x/4", "client_instance '3x'");
  expectParseError("h/1/2/3/ 4", "seq ' 4' is not an unsigned 64-bit integer");
  expectParseError("h/1/2/3/", "seq ''");
}

}  // namespace
BOOST_AUTO_TEST_CASE(a_remote_publishers_sequence_key_is_scoped_by_its_agent) {
  const std::string key = sample().publisherKey();
  BOOST_TEST(sequenceKey(key, /*credentials_known=*/true, "n1") == key);
  BOOST_TEST(sequenceKey(key, false, "n1") == key + "@n1");
  BOOST_TEST(sequenceKey(key, false, "n1") != sequenceKey(key, false, "n2"));
}

}  // namespace ftb
