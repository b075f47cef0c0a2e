#define BOOST_TEST_MODULE listen_address_test
#include "metrics/listen_address.h"

#include <boost/test/unit_test.hpp>

using ftb::metrics::ListeningSocket;
using ftb::metrics::splitHostPort;

namespace {

bool mentions(const ftb::Status& s, const std::string& what) {
  return s.message().find(what) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(host_and_port_are_split) {
  auto v4 = splitHostPort("127.0.0.1:9810");
  BOOST_REQUIRE(v4.ok());
  BOOST_TEST(v4->host == "127.0.0.1");
  BOOST_TEST(v4->port == "9810");
  auto v6 = splitHostPort("[::1]:0");
  BOOST_REQUIRE(v6.ok());
  BOOST_TEST(v6->host == "::1");
  BOOST_TEST(v6->port == "0");
  BOOST_TEST(splitHostPort("localhost:65535").ok());
}

BOOST_AUTO_TEST_CASE(malformed_addresses_say_what_is_wrong) {
  const auto out_of_range = splitHostPort("127.0.0.1:99999");
  BOOST_TEST(!out_of_range.ok());
  BOOST_TEST(mentions(out_of_range.status(), "port 99999 is out of range (0-65535"));
  BOOST_TEST(mentions(splitHostPort("127.0.0.1:65536").status(), "out of range"));
  BOOST_TEST(mentions(splitHostPort("127.0.0.1:0000009810").status(), "out of range"));
  BOOST_TEST(mentions(splitHostPort("127.0.0.1").status(), "is not host:port"));
  BOOST_TEST(mentions(splitHostPort("127.0.0.1:http").status(), "port 'http' is not a number"));
  BOOST_TEST(mentions(splitHostPort("127.0.0.1:").status(), "port '' is not a number"));
  BOOST_TEST(mentions(splitHostPort(":9810").status(), "has no host"));
  BOOST_TEST(mentions(splitHostPort("::1:9810").status(), "IPv6 address in brackets"));
  BOOST_TEST(mentions(splitHostPort("[::1:9810").status(), "'[' without ']'"));
  BOOST_TEST(mentions(splitHostPort("[::1]").status(), "no port after ']'"));
  BOOST_TEST(mentions(splitHostPort("[::1]9810").status(), "no port after ']'"));
}

BOOST_AUTO_TEST_CASE(binds_ipv4_and_ipv6_loopback_and_reports_the_port) {
  auto v4 = ListeningSocket::open("127.0.0.1:0");
  BOOST_REQUIRE_MESSAGE(v4.ok(), v4.status().message());
  BOOST_TEST(v4->address().rfind("127.0.0.1:", 0) == 0u);
  BOOST_TEST(v4->address() != "127.0.0.1:0");
  auto v6 = ListeningSocket::open("[::1]:0");
  BOOST_REQUIRE_MESSAGE(v6.ok(), v6.status().message());
  BOOST_TEST(v6->address().rfind("[::1]:", 0) == 0u);
  BOOST_TEST(v6->address() != "[::1]:0");
}

BOOST_AUTO_TEST_CASE(unusable_addresses_are_refused_with_the_reason) {
  auto first = ListeningSocket::open("127.0.0.1:0");
  BOOST_REQUIRE(first.ok());
  auto taken = ListeningSocket::open(first->address());
  BOOST_TEST(!taken.ok());
  BOOST_TEST(mentions(taken.status(), "cannot serve metrics on " + first->address() +
                                          ": Address already in use"));

  auto bad_host = ListeningSocket::open("no-such-host.invalid:9810");
  BOOST_TEST(!bad_host.ok());
  BOOST_TEST(mentions(bad_host.status(), "cannot resolve 'no-such-host.invalid'"));

  // TEST-NET-1 is on no interface of this host.
  auto foreign = ListeningSocket::open("192.0.2.1:0");
  BOOST_TEST(!foreign.ok());
  BOOST_TEST(mentions(foreign.status(), "Cannot assign requested address"));

  auto out_of_range = ListeningSocket::open("127.0.0.1:99999");
  BOOST_TEST(!out_of_range.ok());
  BOOST_TEST(mentions(out_of_range.status(), "out of range"));
}

BOOST_AUTO_TEST_CASE(messages_are_one_line) {
  for (const std::string bad : {"127.0.0.1:99999", "nohost", "no-such-host.invalid:1", "[::1"}) {
    auto s = ListeningSocket::open(bad);
    BOOST_TEST(!s.ok());
    BOOST_TEST(s.status().message().find('\n') == std::string::npos);
  }
}
