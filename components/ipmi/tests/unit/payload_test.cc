// ftb-ipmi's numbers in payloads: two decimals. (The payload format itself is
// tested with client/payload_fields.h.)
#define BOOST_TEST_MODULE payload
#include <boost/test/unit_test.hpp>

#include "components/ipmi/payload.h"

using ftb::ipmi::formatNumber;

BOOST_AUTO_TEST_CASE(numbers_have_two_decimals) {
  BOOST_CHECK_EQUAL(formatNumber(95), "95.00");
  BOOST_CHECK_EQUAL(formatNumber(13.5), "13.50");
  BOOST_CHECK_EQUAL(formatNumber(-0.125), "-0.12");
}
