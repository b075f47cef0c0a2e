// Payload formatting and the configuration (deploy/ftb-ib.conf, thresholds, widths).
#define BOOST_TEST_MODULE payload_config
#include <boost/test/unit_test.hpp>

#include <CLI/CLI.hpp>

#include "components/ib/config.h"
#include "client/payload_fields.h"
#include "tests/support/agent_process.h"

using namespace ftb::ib;
using ftb::Result;
using ftb::formatPayload;
using ftb::kMaxPayloadBytes;

BOOST_AUTO_TEST_CASE(original_text_first_then_quoted_fields) {
  BOOST_TEST(formatPayload("NUM_ADAPTERS:2", {{"num_adapters", "2"}, {"hcas", "mlx5_0,mlx5_1"}}) ==
             "NUM_ADAPTERS:2 num_adapters=2 hcas=mlx5_0,mlx5_1");
  BOOST_TEST(formatPayload("X", {{"reasons", "width 1X < 4X"}, {"q", "a\"b\\c"}, {"e", ""}}) ==
             "X reasons=\"width 1X < 4X\" q=\"a\\\"b\\\\c\" e=\"\"");
}

BOOST_AUTO_TEST_CASE(trailing_fields_are_dropped_to_fit) {
  std::string p = formatPayload("HCA:mlx5_0", {{"a", std::string(300, 'x')}, {"b", std::string(80, 'y')}});
  BOOST_TEST(p.size() <= kMaxPayloadBytes);
  BOOST_TEST(p.find("a=x") != std::string::npos);
  BOOST_TEST(p.find("b=") == std::string::npos);
}

namespace {

MonitorConfig parse(std::vector<std::string> args) {
  MonitorConfig c;
  CLI::App app;
  app.set_config("--config");
  addMonitorOptions(app, c);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return c;
}

}  // namespace

BOOST_AUTO_TEST_CASE(example_config_file_holds_the_defaults) {
  MonitorConfig c = parse({"--config", ftb::testing::runfile("deploy/ftb-ib.conf")});
  MonitorConfig d;
  BOOST_TEST(c.component == d.component);
  BOOST_TEST(c.backend == d.backend);
  BOOST_TEST(c.sysfs_root == d.sysfs_root);
  BOOST_TEST(c.interval_ms == d.interval_ms);
  BOOST_TEST(c.window_s == d.window_s);
  BOOST_TEST(c.recover_sweeps == d.recover_sweeps);
  BOOST_TEST(c.expected_width == d.expected_width);
  BOOST_TEST(c.threshold.empty());
}

BOOST_AUTO_TEST_CASE(thresholds_and_width_are_checked) {
  MonitorConfig c = parse({"--threshold", "symbol_error=5", "--threshold", "hw_counters/out_of_buffer=100",
                           "--expected-width", "4X", "--window-s", "30"});
  Result<PredictionOptions> o = predictionOptions(c);
  BOOST_TEST_REQUIRE(o.ok());
  BOOST_TEST(o->thresholds_per_min.at("symbol_error") == 5);
  BOOST_TEST(o->thresholds_per_min.at("hw_counters/out_of_buffer") == 100);
  BOOST_TEST(o->thresholds_per_min.at("link_downed") == 10);  // default kept
  BOOST_TEST(o->expected_width == 4u);
  BOOST_TEST(o->window.count() == 30);

  for (const char* bad : {"symbol_error", "=5", "symbol_error=-1", "symbol_error=lots"}) {
    c = parse({"--threshold", bad});
    Result<PredictionOptions> r = predictionOptions(c);
    BOOST_TEST(!r.ok(), bad);
    BOOST_TEST(r.status().message().find(bad) != std::string::npos);
  }
  c = parse({"--expected-width", "3X"});
  BOOST_TEST(predictionOptions(c).status().message() ==
             "expected-width '3X' is not one of 1X, 2X, 4X, 8X, 12X");
  BOOST_CHECK_THROW(parse({"--backend", "magic"}), CLI::ValidationError);
}
