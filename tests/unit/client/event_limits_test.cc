// The limits every edge applies to what an event holds beside its payload.
#define BOOST_TEST_MODULE event_limits
#include <boost/test/unit_test.hpp>

#include <string>

#include "client/event_limits.h"

using ftb::Code;

BOOST_AUTO_TEST_CASE(client_names_and_job_ids_are_bounded_and_the_error_is_short) {
  BOOST_TEST(ftb::checkClientName(std::string(128, 'c')).ok());
  BOOST_TEST((ftb::checkClientName("").code() == Code::kInvalidArgument));
  ftb::Status long_name = ftb::checkClientName(std::string(10'000, 'c'));
  BOOST_TEST((long_name.code() == Code::kInvalidArgument));
  BOOST_TEST(long_name.message().find("is 10000 bytes; the limit is 128") != std::string::npos,
             long_name.message());
  BOOST_TEST(long_name.message().size() < 200u, long_name.message());
  BOOST_TEST(ftb::checkJobId("").ok());  // optional
  BOOST_TEST((ftb::checkJobId(std::string(129, 'j')).code() == Code::kInvalidArgument));
}

BOOST_AUTO_TEST_CASE(tags_are_bounded_by_key_and_in_all) {
  ftb::TagCheck ok;
  BOOST_TEST(ok.add("corr", "abc").ok());
  BOOST_TEST(ok.add(std::string(64, 'k'), std::string(8'000, 'v')).ok());
  BOOST_TEST((ftb::TagCheck().add("", "v").code() == Code::kInvalidArgument));
  BOOST_TEST((ftb::TagCheck().add(std::string(65, 'k'), "v").code() == Code::kInvalidArgument));
  // Twelve tags of 120 KB: the finding; refused at the first that overflows.
  ftb::TagCheck many;
  ftb::Status s;
  int accepted = 0;
  for (int i = 0; i < 12 && s.ok(); ++i) {
    s = many.add("t" + std::to_string(i), std::string(120'000, 'v'));
    if (s.ok()) ++accepted;
  }
  BOOST_TEST(accepted == 0);
  BOOST_TEST(s.message().find("more than 16384 bytes") != std::string::npos, s.message());
}
