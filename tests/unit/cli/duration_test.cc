// The one parser of durations and times behind every ftbctl option that takes
// one: units, plain numbers in each option's historical unit, RFC 3339.
#define BOOST_TEST_MODULE duration
#include "cli/duration.h"

#include <boost/test/unit_test.hpp>

using namespace std::chrono_literals;
using ftb::cli::parseDuration;
using ftb::cli::parseRfc3339;
using ftb::cli::parseTimeBound;
using ftb::cli::PlainNumber;

namespace {

std::chrono::nanoseconds ok(std::string_view text, PlainNumber plain = PlainNumber::kRefused) {
  auto d = parseDuration(text, plain);
  BOOST_REQUIRE_MESSAGE(d.ok(), text << ": " << d.status().message());
  return *d;
}

std::string error(std::string_view text, PlainNumber plain = PlainNumber::kRefused) {
  auto d = parseDuration(text, plain);
  BOOST_REQUIRE_MESSAGE(!d.ok(), text << " was accepted");
  BOOST_CHECK(d.status().code() == ftb::Code::kInvalidArgument);
  return d.status().message();
}

constexpr int64_t kSec = 1'000'000'000;

}  // namespace

BOOST_AUTO_TEST_CASE(every_unit) {
  BOOST_CHECK(ok("7ns") == 7ns);
  BOOST_CHECK(ok("7us") == 7us);
  BOOST_CHECK(ok("7\xC2\xB5s") == 7us);
  BOOST_CHECK(ok("500ms") == 500ms);
  BOOST_CHECK(ok("20s") == 20s);
  BOOST_CHECK(ok("2m") == 2min);
  BOOST_CHECK(ok("3h") == 3h);
  BOOST_CHECK(ok("1d") == 24h);
}

BOOST_AUTO_TEST_CASE(fractions_and_compound_durations) {
  BOOST_CHECK(ok("1.5s") == 1500ms);
  BOOST_CHECK(ok(".25s") == 250ms);
  BOOST_CHECK(ok("1h30m") == 90min);
  BOOST_CHECK(ok("1m30s500ms") == 90500ms);
  BOOST_CHECK(ok("0s") == 0ns);
}

BOOST_AUTO_TEST_CASE(plain_numbers_keep_each_options_unit) {
  BOOST_CHECK(ok("2000", PlainNumber::kMillis) == 2000ms);  // --timeout-ms 2000
  BOOST_CHECK(ok("20", PlainNumber::kSeconds) == 20s);      // watch --timeout 20
  BOOST_CHECK(ok("0.5", PlainNumber::kSeconds) == 500ms);
  BOOST_CHECK(ok("20s", PlainNumber::kMillis) == 20s);  // a unit wins
  BOOST_CHECK(error("10").find("without a unit") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_text_is_refused_with_the_reason) {
  BOOST_CHECK(error("").find("empty") != std::string::npos);
  BOOST_CHECK(error("20x").find("unknown unit 'x'") != std::string::npos);
  BOOST_CHECK(error("20 s").find("unknown unit ' s'") != std::string::npos);
  BOOST_CHECK(error("-5s").find("expected a number") != std::string::npos);
  BOOST_CHECK(error("s").find("expected a number") != std::string::npos);
  BOOST_CHECK(error("1m30", PlainNumber::kSeconds).find("without a unit") != std::string::npos);
  BOOST_CHECK(error("ms").find("expected a number") != std::string::npos);
  BOOST_CHECK(error("1e3s").find("unknown unit 'e'") != std::string::npos);
  BOOST_CHECK(error("99999999999d").find("too long") != std::string::npos);
  // Every error says what is accepted.
  BOOST_CHECK(error("20x").find("500ms, 20s, 2m") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rfc3339_times) {
  BOOST_CHECK_EQUAL(parseRfc3339("1970-01-01T00:00:00Z").value(), 0);
  BOOST_CHECK_EQUAL(parseRfc3339("2026-11-25T16:00:00Z").value(), 1795622400 * kSec);
  BOOST_CHECK_EQUAL(parseRfc3339("2026-11-25t16:00:00z").value(), 1795622400 * kSec);
  BOOST_CHECK_EQUAL(parseRfc3339("2026-11-25 16:00:00Z").value(), 1795622400 * kSec);
  BOOST_CHECK_EQUAL(parseRfc3339("2026-11-25T17:00:00+01:00").value(), 1795622400 * kSec);
  BOOST_CHECK_EQUAL(parseRfc3339("2026-11-25T15:30:00-00:30").value(), 1795622400 * kSec);
  BOOST_CHECK_EQUAL(parseRfc3339("2026-11-25T16:00:00.25Z").value(),
                    1795622400 * kSec + 250'000'000);
  BOOST_CHECK_EQUAL(parseRfc3339("2026-11-25T16:00:00.123456789123Z").value(),
                    1795622400 * kSec + 123'456'789);
  BOOST_CHECK_EQUAL(parseRfc3339("2024-02-29T00:00:00Z").value(), 1709164800 * kSec);
}

BOOST_AUTO_TEST_CASE(bad_rfc3339_times_say_what_is_wrong) {
  const auto why = [](std::string_view text) {
    auto t = parseRfc3339(text);
    BOOST_REQUIRE_MESSAGE(!t.ok(), text << " was accepted");
    return t.status().message();
  };
  BOOST_CHECK(why("2026-11-25T16:00:00").find("time zone") != std::string::npos);
  BOOST_CHECK(why("2026-11-25").find("'T'") != std::string::npos);
  BOOST_CHECK(why("2026-13-01T00:00:00Z").find("month 13") != std::string::npos);
  BOOST_CHECK(why("2025-02-29T00:00:00Z").find("day 29") != std::string::npos);
  BOOST_CHECK(why("2026-11-25T24:00:00Z").find("out of range") != std::string::npos);
  BOOST_CHECK(why("2026-11-25T16:00Z").find("HH:MM:SS") != std::string::npos);
  BOOST_CHECK(why("2026-11-25T16:00:00.Z").find("digit") != std::string::npos);
  BOOST_CHECK(why("2026-11-25T16:00:00+0100").find("+HH:MM") != std::string::npos);
  BOOST_CHECK(why("2026-11-25T16:00:00Zjunk").find("'junk'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(time_bounds_are_absolute_or_that_long_before_now) {
  const int64_t now = 1795622400 * kSec;
  BOOST_CHECK_EQUAL(parseTimeBound("10m", now).value(), now - 600 * kSec);
  BOOST_CHECK_EQUAL(parseTimeBound("1h30m", now).value(), now - 5400 * kSec);
  BOOST_CHECK_EQUAL(parseTimeBound("2026-11-25T15:00:00Z", now).value(), now - 3600 * kSec);
  auto plain = parseTimeBound("10", now);
  BOOST_REQUIRE(!plain.ok());
  BOOST_CHECK(plain.status().message().find("neither a duration with a unit") != std::string::npos);
  BOOST_CHECK(!parseTimeBound("yesterday", now).ok());
  BOOST_CHECK(!parseTimeBound("2026-11-25", now).ok());
}
