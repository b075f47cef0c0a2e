#define BOOST_TEST_MODULE registry_test
#include "metrics/registry.h"

#include <boost/test/unit_test.hpp>

#include "metrics/capped_label.h"
#include "tests/support/prometheus_text.h"

using namespace ftb::metrics;
using ftb::testing::parseMetricsText;

BOOST_AUTO_TEST_CASE(counters_with_labels_render_and_parse_back) {
  Registry r;
  auto& f = r.counterFamily("ftb_test_events_total", "Events seen", {"namespace", "severity"});
  f.labels({"FTB.A", "INFO"}).inc(3);
  f.labels({"FTB.B", "ERROR"}).inc();
  f.labels({"FTB.A", "INFO"}).inc();
  const auto m = parseMetricsText(r.render());
  BOOST_TEST(m.types.at("ftb_test_events_total") == "counter");
  BOOST_TEST(m.sum("ftb_test_events_total", {{"namespace", "FTB.A"}}) == 4);
  BOOST_TEST(m.sum("ftb_test_events_total", {{"severity", "ERROR"}}) == 1);
  BOOST_TEST(m.sum("ftb_test_events_total") == 5);
}

BOOST_AUTO_TEST_CASE(label_values_are_escaped) {
  Registry r;
  r.gaugeFamily("ftb_test_gauge", "A \\ help\nline", {"v"}).labels({"a\"b\\c\nd"}).set(2.5);
  const std::string text = r.render();
  BOOST_TEST(text.find("# HELP ftb_test_gauge A \\\\ help\\nline\n") != std::string::npos);
  const auto m = parseMetricsText(text);
  BOOST_TEST(m.sum("ftb_test_gauge", {{"v", "a\"b\\c\nd"}}) == 2.5);
}

BOOST_AUTO_TEST_CASE(histogram_buckets_are_cumulative) {
  Registry r;
  auto& h = r.histogram("ftb_test_seconds", "Durations", {0.1, 1});
  h.observe(0.05);
  h.observe(0.5);
  h.observe(0.5);
  h.observe(7);
  const auto m = parseMetricsText(r.render());
  BOOST_TEST(m.types.at("ftb_test_seconds") == "histogram");
  BOOST_TEST(m.sum("ftb_test_seconds_bucket", {{"le", "0.1"}}) == 1);
  BOOST_TEST(m.sum("ftb_test_seconds_bucket", {{"le", "1"}}) == 3);
  BOOST_TEST(m.sum("ftb_test_seconds_bucket", {{"le", "+Inf"}}) == 4);
  BOOST_TEST(m.sum("ftb_test_seconds_count") == 4);
  BOOST_TEST(m.sum("ftb_test_seconds_sum") == 8.05, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(registering_a_name_twice_shares_the_family) {
  Registry r;
  r.counter("ftb_test_total", "x").inc();
  r.counter("ftb_test_total", "x").inc();
  BOOST_TEST(parseMetricsText(r.render()).sum("ftb_test_total") == 2);
}

BOOST_AUTO_TEST_CASE(capped_label_reports_the_rest_as_other) {
  CappedLabel label(2);
  BOOST_TEST(label.map("a") == "a");
  BOOST_TEST(label.map("b") == "b");
  BOOST_TEST(label.map("c") == kOtherValue);
  BOOST_TEST(label.map("a") == "a");
}

BOOST_AUTO_TEST_CASE(exponential_buckets) {
  const auto b = exponentialBuckets(0.001, 10, 3);
  BOOST_TEST(b.size() == 3u);
  BOOST_TEST(b[2] == 0.1, boost::test_tools::tolerance(1e-12));
}
