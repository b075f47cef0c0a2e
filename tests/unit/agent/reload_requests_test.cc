// ReloadRequests: what a signal handler records and the loop takes.
#define BOOST_TEST_MODULE reload_requests
#include <boost/test/unit_test.hpp>

#include <vector>

#include "agent/config/reload_request.h"

using ftb::agent::ReloadRequests;

BOOST_AUTO_TEST_CASE(requests_before_a_reload_make_one_reload_due) {
  ReloadRequests requests;
  BOOST_TEST(!requests.due());
  requests.request(0);  // a plain kill -HUP
  requests.request(0);
  BOOST_TEST(requests.due());
  BOOST_TEST(!requests.due());
  BOOST_TEST(requests.takeRequesters().empty());  // no one asked for an answer
}

BOOST_AUTO_TEST_CASE(those_who_asked_are_taken_once) {
  ReloadRequests requests;
  requests.request(4101);
  requests.request(4102);
  BOOST_TEST(requests.due());
  BOOST_TEST(requests.takeRequesters() == (std::vector<pid_t>{4101, 4102}), boost::test_tools::per_element());
  BOOST_TEST(requests.takeRequesters().empty());
  requests.request(4103);  // asked after that reload began: the next one answers it
  BOOST_TEST(requests.takeRequesters() == std::vector<pid_t>{4103}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(past_the_slots_a_request_still_reloads_without_an_answer) {
  ReloadRequests requests;
  for (pid_t pid = 1; pid <= static_cast<pid_t>(ReloadRequests::kMaxWaiting) + 1; ++pid) requests.request(pid);
  BOOST_TEST(requests.due());
  BOOST_TEST(requests.takeRequesters().size() == ReloadRequests::kMaxWaiting);
}
