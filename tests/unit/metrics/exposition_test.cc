// What our daemons rely on from prometheus-cpp's text format, read back by the
// tests' own parser (tests/support/prometheus_text.h), which every metrics
// test uses: labels, escaping, cumulative histogram buckets, shared families;
// and our own helpers (capped label values, bucket bounds).
#define BOOST_TEST_MODULE exposition_test
#include <boost/test/unit_test.hpp>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "metrics/buckets.h"
#include "metrics/capped_label.h"
#include "tests/support/prometheus_text.h"

using namespace ftb::metrics;
using ftb::testing::parseMetricsText;
using ftb::testing::promtoolCheckMetrics;

namespace {

std::string render(const prometheus::Registry& r) {
  return prometheus::TextSerializer().Serialize(r.Collect());
}

}  // namespace

BOOST_AUTO_TEST_CASE(counters_with_labels_render_and_parse_back) {
  prometheus::Registry r;
  auto& f = prometheus::BuildCounter().Name("ftb_test_events_total").Help("Events seen").Register(r);
  f.Add({{"event_space", "FTB.A"}, {"severity", "INFO"}}).Increment(3);
  f.Add({{"event_space", "FTB.B"}, {"severity", "ERROR"}}).Increment();
  f.Add({{"event_space", "FTB.A"}, {"severity", "INFO"}}).Increment();
  const auto m = parseMetricsText(render(r));
  BOOST_TEST(m.types.at("ftb_test_events_total") == "counter");
  BOOST_TEST(m.sum("ftb_test_events_total", {{"event_space", "FTB.A"}}) == 4);
  BOOST_TEST(m.sum("ftb_test_events_total", {{"severity", "ERROR"}}) == 1);
  BOOST_TEST(m.sum("ftb_test_events_total") == 5);
}

// Label values may come from clients. (prometheus-cpp 1.0.1 does not escape
// HELP text: ours are constants without backslashes or newlines.)
BOOST_AUTO_TEST_CASE(label_values_are_escaped) {
  prometheus::Registry r;
  prometheus::BuildGauge().Name("ftb_test_gauge").Help("A gauge").Register(r)
      .Add({{"v", "a\"b\\c\nd"}}).Set(2.5);
  const std::string text = render(r);
  BOOST_TEST(text.find("v=\"a\\\"b\\\\c\\nd\"") != std::string::npos, text);
  BOOST_TEST(parseMetricsText(text).sum("ftb_test_gauge", {{"v", "a\"b\\c\nd"}}) == 2.5);
}

BOOST_AUTO_TEST_CASE(histogram_buckets_are_cumulative) {
  prometheus::Registry r;
  auto& h = prometheus::BuildHistogram().Name("ftb_test_seconds").Help("Durations").Register(r)
                .Add({}, prometheus::Histogram::BucketBoundaries{0.1, 1});
  h.Observe(0.05);
  h.Observe(0.5);
  h.Observe(0.5);
  h.Observe(1);  // on a bound: counted in that bucket (le means <=)
  h.Observe(7);
  const auto m = parseMetricsText(render(r));
  BOOST_TEST(m.types.at("ftb_test_seconds") == "histogram");
  BOOST_TEST(m.sum("ftb_test_seconds_bucket", {{"le", "0.1"}}) == 1);
  BOOST_TEST(m.sum("ftb_test_seconds_bucket", {{"le", "1"}}) == 4);
  BOOST_TEST(m.sum("ftb_test_seconds_bucket", {{"le", "+Inf"}}) == 5);
  BOOST_TEST(m.sum("ftb_test_seconds_count") == 5);
  BOOST_TEST(m.sum("ftb_test_seconds_sum") == 9.05, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(registering_a_name_twice_shares_the_family) {
  prometheus::Registry r;
  prometheus::BuildCounter().Name("ftb_test_total").Help("x").Register(r).Add({}).Increment();
  prometheus::BuildCounter().Name("ftb_test_total").Help("x").Register(r).Add({}).Increment();
  BOOST_TEST(parseMetricsText(render(r)).sum("ftb_test_total") == 2);
}

BOOST_AUTO_TEST_CASE(promtool_accepts_good_text_and_names_what_is_wrong) {
  prometheus::Registry good;
  prometheus::BuildCounter().Name("ftb_test_total").Help("Things").Register(good).Add({}).Increment();
  BOOST_TEST(promtoolCheckMetrics(render(good)) == "");
  // A counter without _total: the linter must say so (else the suite's
  // promtool checks would prove nothing).
  prometheus::Registry bad;
  prometheus::BuildCounter().Name("ftb_test_things").Help("Things").Register(bad).Add({}).Increment();
  BOOST_TEST(promtoolCheckMetrics(render(bad)).find("_total") != std::string::npos);
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
