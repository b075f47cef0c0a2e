// Test support: scrape a metrics endpoint over HTTP and parse the Prometheus
// text exposition format, independently of the code that writes it.
//
//   auto samples = ftb::testing::scrapeMetrics("127.0.0.1:9810");
//   double n = samples.value("ftb_agent_clients");
//   double m = samples.sum("ftb_agent_events_received_total", {{"severity", "ERROR"}});
//   scrapeUntil(address, [](const MetricsText& t) { return t.sum("ftb_agent_clients") == 2; });
//   BOOST_TEST(promtoolCheckMetrics(text) == "");  // Prometheus' own linter agrees
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "tests/support/agent_process.h"  // waitFor

namespace ftb::testing {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct MetricsText {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;  // metric family -> counter/gauge/histogram/summary/untyped

  // Sum of the samples named `name` whose labels include all of `match`
  // (0 when there are none).
  double sum(const std::string& name, const std::map<std::string, std::string>& match = {}) const;
  // Whether at least one sample named `name` matches.
  bool has(const std::string& name, const std::map<std::string, std::string>& match = {}) const;
};

// Parses the exposition text; a malformed line fails the current Boost test
// with the line quoted (and is skipped).
MetricsText parseMetricsText(const std::string& text);

// GET http://<address><path>; address "127.0.0.1:port" or "[::1]:port". Without `status`, anything but a 200 fails the
// current test; with it, *status is the HTTP status (0: no connection or no
// answer) and the caller judges. Returns the body (empty on failure).
std::string httpGet(const std::string& address, const std::string& path = "/metrics",
                    int* status = nullptr);

// A TCP connection to "127.0.0.1:port" / "[::1]:port": a blocking socket whose
// reads give up after 10 s (a stuck server fails a test instead of hanging
// it); -1 if refused. `receive_buffer` > 0 sets SO_RCVBUF before connecting.
int connectTo(const std::string& address, int receive_buffer = 0);

inline MetricsText scrapeMetrics(const std::string& address) {
  return parseMetricsText(httpGet(address));
}

// What `promtool check metrics` (Debian package prometheus) says about
// `text`: "" when it finds nothing wrong; else its complaints, or why it could
// not run ("promtool not found: run deploy/install-deps.sh").
std::string promtoolCheckMetrics(const std::string& text);

// Scrapes until `condition` holds on what was scraped (gauges follow the
// daemon's housekeeping turn; the endpoint may not be up yet), failing the
// current test when `timeout` passes first. Returns the last scrape.
template <typename Condition>
MetricsText scrapeUntil(const std::string& address, Condition condition,
                        std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  MetricsText m;
  const bool ok = waitFor(
      [&] {
        int status = 0;
        const std::string text = httpGet(address, "/metrics", &status);
        if (status != 200) return false;
        m = parseMetricsText(text);
        return condition(m);
      },
      timeout);
  BOOST_CHECK_MESSAGE(ok, "metrics at " << address << " never reached the expected values");
  return m;
}

}  // namespace ftb::testing
