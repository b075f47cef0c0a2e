// "Did you mean": the closest known word to a typo, and nothing when no word is close.
#define BOOST_TEST_MODULE suggest
#include "cli/suggest.h"

#include <boost/test/unit_test.hpp>

using ftb::cli::closestMatch;
using ftb::cli::editDistance;

namespace {
const std::vector<std::string> kCommands = {"publish", "watch", "status", "clients",
                                            "history", "tree",  "keygen"};
const std::vector<std::string> kOptions = {"--filter", "--count", "--timeout",   "--last",
                                           "--agent",  "--json",  "--timeout-ms"};
}  // namespace

BOOST_AUTO_TEST_CASE(edit_distance_counts_swaps_as_one) {
  BOOST_CHECK_EQUAL(editDistance("status", "status"), 0u);
  BOOST_CHECK_EQUAL(editDistance("stauts", "status"), 1u);  // swapped neighbours
  BOOST_CHECK_EQUAL(editDistance("statu", "status"), 1u);
  BOOST_CHECK_EQUAL(editDistance("sttus", "status"), 1u);
  BOOST_CHECK_EQUAL(editDistance("", "tree"), 4u);
  BOOST_CHECK_EQUAL(editDistance("kitten", "sitting"), 3u);
}

BOOST_AUTO_TEST_CASE(typos_of_commands_find_the_command) {
  BOOST_CHECK_EQUAL(closestMatch("stauts", kCommands), "status");
  BOOST_CHECK_EQUAL(closestMatch("histroy", kCommands), "history");
  BOOST_CHECK_EQUAL(closestMatch("wacth", kCommands), "watch");
  BOOST_CHECK_EQUAL(closestMatch("Status", kCommands), "status");
  BOOST_CHECK_EQUAL(closestMatch("trees", kCommands), "tree");
  BOOST_CHECK_EQUAL(closestMatch("hist", kCommands), "history");  // an abbreviation
}

BOOST_AUTO_TEST_CASE(typos_of_options_find_the_option) {
  BOOST_CHECK_EQUAL(closestMatch("--fitler", kOptions), "--filter");
  BOOST_CHECK_EQUAL(closestMatch("--jsn", kOptions), "--json");
  BOOST_CHECK_EQUAL(closestMatch("--timeout-s", kOptions), "--timeout-ms");
}

BOOST_AUTO_TEST_CASE(nothing_close_suggests_nothing) {
  BOOST_CHECK_EQUAL(closestMatch("frobnicate", kCommands), "");
  BOOST_CHECK_EQUAL(closestMatch("x", kCommands), "");
  BOOST_CHECK_EQUAL(closestMatch("--", kOptions), "");
  BOOST_CHECK_EQUAL(closestMatch("", kCommands), "");
}
