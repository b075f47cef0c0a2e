#define BOOST_TEST_MODULE process_collector_test
#include "metrics/process_collector.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <vector>

#include <boost/test/unit_test.hpp>

using ftb::metrics::parseBootTime;
using ftb::metrics::parseProcStat;
using ftb::metrics::ProcessCollector;

namespace {

// name -> value of one collection.
std::map<std::string, double> collect() {
  std::map<std::string, double> out;
  for (const auto& f : ProcessCollector().Collect()) {
    BOOST_REQUIRE(f.metric.size() == 1u);
    out[f.name] = f.type == prometheus::MetricType::Counter ? f.metric[0].counter.value
                                                            : f.metric[0].gauge.value;
  }
  return out;
}

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

BOOST_AUTO_TEST_CASE(stat_fields_are_counted_after_the_last_parenthesis) {
  // A command name may hold spaces and parentheses.
  const std::string stat =
      "4242 (a) b (c)) S 1 2 3 4 5 6 7 8 9 10 111 222 16 17 18 19 20 21 4444 5555 66 "
      "25 26 27\n";
  const auto s = parseProcStat(stat);
  BOOST_REQUIRE(s.has_value());
  BOOST_TEST(s->utime_ticks == 111u);
  BOOST_TEST(s->stime_ticks == 222u);
  BOOST_TEST(s->start_ticks == 4444u);
  BOOST_TEST(s->vsize_bytes == 5555u);
  BOOST_TEST(s->rss_pages == 66u);
}

BOOST_AUTO_TEST_CASE(malformed_stat_is_refused) {
  BOOST_TEST(!parseProcStat("").has_value());
  BOOST_TEST(!parseProcStat("4242 (x) S 1 2 3").has_value());  // truncated
  BOOST_TEST(!parseProcStat("4242 (x) S 1 2 3 4 5 6 7 8 9 10 x 222 16 17 18 19 20 21 4444 5555 66")
                  .has_value());
  BOOST_TEST(!parseProcStat("no parenthesis 1 2 3").has_value());
}

BOOST_AUTO_TEST_CASE(boot_time_comes_from_the_btime_line) {
  BOOST_TEST(parseBootTime("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n").value() == 1700000000u);
  BOOST_TEST(!parseBootTime("cpu  1 2 3\n").has_value());
  BOOST_TEST(!parseBootTime("btime soon\n").has_value());
}

BOOST_AUTO_TEST_CASE(every_standard_metric_is_there_with_its_type) {
  const auto families = ProcessCollector().Collect();
  std::map<std::string, prometheus::MetricType> types;
  for (const auto& f : families) types[f.name] = f.type;
  BOOST_TEST(types.size() == 6u);
  BOOST_TEST((types.at("process_cpu_seconds_total") == prometheus::MetricType::Counter));
  for (const char* gauge : {"process_resident_memory_bytes", "process_virtual_memory_bytes",
                            "process_start_time_seconds", "process_open_fds", "process_max_fds"}) {
    BOOST_TEST((types.at(gauge) == prometheus::MetricType::Gauge), gauge);
  }
}

BOOST_AUTO_TEST_CASE(open_fds_follow_the_process_exactly) {
  const double before = collect().at("process_open_fds");
  std::vector<int> fds;
  for (int i = 0; i < 10; ++i) fds.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  BOOST_TEST(collect().at("process_open_fds") == before + 10);
  for (int fd : fds) ::close(fd);
  BOOST_TEST(collect().at("process_open_fds") == before);
  rlimit limit{};
  BOOST_REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  BOOST_TEST(collect().at("process_max_fds") == static_cast<double>(limit.rlim_cur));
}

BOOST_AUTO_TEST_CASE(cpu_time_grows_while_the_process_computes) {
  const double before = collect().at("process_cpu_seconds_total");
  // Compute until the kernel has charged 50 ms more (ticks are 10 ms), within a deadline.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  volatile double sink = 0;
  double now = before;
  while (now < before + 0.05 && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 1'000'000; ++i) sink = sink + i * 0.5;
    now = collect().at("process_cpu_seconds_total");
  }
  BOOST_TEST(now >= before + 0.05);
  BOOST_TEST(now < before + 30);  // seconds, not clock ticks
}

BOOST_AUTO_TEST_CASE(memory_follows_what_the_process_touches) {
  const double before = collect().at("process_resident_memory_bytes");
  constexpr std::size_t kBytes = 64 << 20;
  std::vector<char> block(kBytes, 1);  // written, so resident
  const auto after = collect();
  BOOST_TEST(after.at("process_resident_memory_bytes") >= before + 0.75 * kBytes);
  BOOST_TEST(after.at("process_virtual_memory_bytes") >= after.at("process_resident_memory_bytes"));
  BOOST_TEST(block[kBytes - 1] == 1);
}

BOOST_AUTO_TEST_CASE(start_time_is_seconds_since_the_epoch) {
  const double start = collect().at("process_start_time_seconds");
  const double now = nowSeconds();
  // This test process started moments ago (2 s: the clock-tick granularity and
  // boot-time rounding, plus a slow machine).
  BOOST_TEST(start <= now + 2);
  BOOST_TEST(start >= now - 600);
}
