// Test support: scrape a metrics endpoint over HTTP and parse the Prometheus
// text exposition format, independently of the code that writes it.
//
//   auto samples = ftb::testing::scrapeMetrics("127.0.0.1:9810");
//   double n = samples.value("ftb_agent_clients");
//   double m = samples.sum("ftb_agent_events_received_total", {{"severity", "ERROR"}});
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ftb::testing {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct MetricsText {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;  // metric family -> counter/gauge/histogram

  // Sum of the samples named `name` whose labels include all of `match`
  // (0 when there are none).
  double sum(const std::string& name, const std::map<std::string, std::string>& match = {}) const;
  // Whether at least one sample named `name` matches.
  bool has(const std::string& name, const std::map<std::string, std::string>& match = {}) const;
};

// Parses the exposition text; a malformed line fails the current Boost test
// with the line quoted (and is skipped).
MetricsText parseMetricsText(const std::string& text);

// GET http://<address>/metrics; fails the current test on any HTTP error.
// Returns the body (empty on failure).
std::string httpGet(const std::string& address, const std::string& path = "/metrics",
                    int* status = nullptr);

inline MetricsText scrapeMetrics(const std::string& address) {
  return parseMetricsText(httpGet(address));
}

}  // namespace ftb::testing
