#define BOOST_TEST_MODULE http_server_test
#include "metrics/http_server.h"

#include <boost/test/unit_test.hpp>

#include "tests/support/prometheus_text.h"

using namespace ftb::metrics;

BOOST_AUTO_TEST_CASE(serves_the_registry_on_a_loopback_port) {
  Registry r;
  r.counter("ftb_test_total", "x").inc(7);
  auto server = HttpServer::start("127.0.0.1:0", r);
  BOOST_REQUIRE_MESSAGE(server.ok(), server.status().message());
  BOOST_TEST((*server)->address().rfind("127.0.0.1:", 0) == 0u);
  BOOST_TEST(ftb::testing::scrapeMetrics((*server)->address()).sum("ftb_test_total") == 7);
  r.counter("ftb_test_total", "x").inc();
  BOOST_TEST(ftb::testing::scrapeMetrics((*server)->address()).sum("ftb_test_total") == 8);
  BOOST_TEST((*server)->scrapes() == 2u);
}

BOOST_AUTO_TEST_CASE(other_paths_are_not_found) {
  Registry r;
  auto server = HttpServer::start("127.0.0.1:0", r);
  BOOST_REQUIRE(server.ok());
  int status = 0;
  ftb::testing::httpGet((*server)->address(), "/", &status);
  BOOST_TEST(status == 404);
}

BOOST_AUTO_TEST_CASE(bad_addresses_are_startup_errors) {
  Registry r;
  auto no_port = HttpServer::start("127.0.0.1", r);
  BOOST_TEST(!no_port.ok());
  BOOST_TEST(no_port.status().message().find("host:port") != std::string::npos);
  auto first = HttpServer::start("127.0.0.1:0", r);
  BOOST_REQUIRE(first.ok());
  auto taken = HttpServer::start((*first)->address(), r);
  BOOST_TEST(!taken.ok());
  BOOST_TEST(taken.status().message().find("cannot serve metrics") != std::string::npos);
}
