#define BOOST_TEST_MODULE hex
#include <boost/test/unit_test.hpp>

#include "client/hex.h"

BOOST_AUTO_TEST_CASE(every_byte_round_trips) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string text = ftb::hexEncode(all);
  BOOST_TEST(text.size() == 512u);
  BOOST_TEST(text.substr(0, 6) == "000102");
  BOOST_TEST(text.substr(506) == "fdfeff");
  BOOST_TEST(ftb::hexDecode(text).value_or("") == all);
  BOOST_TEST(ftb::hexDecode("ABcd").value_or("") == "\xab\xcd");
}

BOOST_AUTO_TEST_CASE(odd_lengths_and_non_digits_decode_to_nothing) {
  BOOST_TEST(!ftb::hexDecode("abc").has_value());
  BOOST_TEST(!ftb::hexDecode("0g").has_value());
  BOOST_TEST(ftb::hexDecode("").value_or("x").empty());
  BOOST_TEST(ftb::hexDigit('f') == 15);
  BOOST_TEST(ftb::hexDigit('G') == -1);
}
