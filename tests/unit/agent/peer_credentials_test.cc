#define BOOST_TEST_MODULE peer_credentials
#include <boost/test/unit_test.hpp>

#include "agent/security/peer_credentials.h"

using ftb::agent::parsePeerAddress;

// libzmq 4.3 on Linux reports an IPC peer as "localhost:uid:gid:pid" (the host
// part comes from getnameinfo on an AF_UNIX address) and a TCP peer as its bare
// numeric address.
BOOST_AUTO_TEST_CASE(ipc_peer_address_as_libzmq_reports_it) {
  auto c = parsePeerAddress("localhost:1000:100:4242");
  BOOST_REQUIRE(c.has_value());
  BOOST_CHECK_EQUAL(c->uid, 1000u);
  BOOST_CHECK_EQUAL(c->gid, 100u);
  BOOST_CHECK_EQUAL(c->pid, 4242u);
}

BOOST_AUTO_TEST_CASE(credentials_without_a_host_part) {
  auto c = parsePeerAddress(":0:0:1");
  BOOST_REQUIRE(c.has_value());
  BOOST_CHECK_EQUAL(c->uid, 0u);
  BOOST_CHECK_EQUAL(c->gid, 0u);
  BOOST_CHECK_EQUAL(c->pid, 1u);
}

BOOST_AUTO_TEST_CASE(largest_ids) {
  auto c = parsePeerAddress("localhost:4294967295:4294967294:4194304");
  BOOST_REQUIRE(c.has_value());
  BOOST_CHECK_EQUAL(c->uid, 4294967295u);
  BOOST_CHECK_EQUAL(c->gid, 4294967294u);
  BOOST_CHECK_EQUAL(c->pid, 4194304u);
}

BOOST_AUTO_TEST_CASE(tcp_peer_addresses_carry_no_credentials) {
  BOOST_CHECK(!parsePeerAddress("127.0.0.1").has_value());
  BOOST_CHECK(!parsePeerAddress("10.1.2.3").has_value());
  BOOST_CHECK(!parsePeerAddress("::1").has_value());
  BOOST_CHECK(!parsePeerAddress("::ffff:127.0.0.1").has_value());
  BOOST_CHECK(!parsePeerAddress("fe80::1").has_value());
}

// An IPv6 peer whose last three groups happen to be decimal digits must not be
// taken for "uid:gid:pid" (TCP peers carry only an address, per the header).
BOOST_AUTO_TEST_CASE(ipv6_address_with_decimal_groups_is_not_credentials) {
  BOOST_CHECK_MESSAGE(!parsePeerAddress("2001:db8::1000:100:4242").has_value(),
                      "an IPv6 TCP peer address was parsed as uid 1000, gid 100, pid 4242");
  BOOST_CHECK_MESSAGE(!parsePeerAddress("fd00::0:0:1").has_value(),
                      "an IPv6 TCP peer address was parsed as uid 0 (root)");
}

BOOST_AUTO_TEST_CASE(malformed_addresses_are_rejected) {
  BOOST_CHECK(!parsePeerAddress("").has_value());
  BOOST_CHECK(!parsePeerAddress(":").has_value());
  BOOST_CHECK(!parsePeerAddress("localhost:1000:100").has_value());  // two fields
  BOOST_CHECK(!parsePeerAddress("localhost:1000:100:").has_value());  // empty pid
  BOOST_CHECK(!parsePeerAddress("localhost::100:4242").has_value());  // empty uid
  BOOST_CHECK(!parsePeerAddress("localhost:1000::4242").has_value());  // empty gid
  BOOST_CHECK(!parsePeerAddress("localhost:abc:100:4242").has_value());
  BOOST_CHECK(!parsePeerAddress("localhost:1000:100:42x").has_value());
  BOOST_CHECK(!parsePeerAddress("localhost:-1:100:4242").has_value());
  BOOST_CHECK(!parsePeerAddress("localhost:+1:100:4242").has_value());
  BOOST_CHECK(!parsePeerAddress("localhost: 1:100:4242").has_value());
  BOOST_CHECK(!parsePeerAddress("localhost:4294967296:100:4242").has_value());  // > uint32
  BOOST_CHECK(!parsePeerAddress("1000:100:4242").has_value());  // no separator before uid
}
