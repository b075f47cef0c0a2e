#define BOOST_TEST_MODULE names_test
#include "client/names.h"

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>

namespace ftb {

// Boost.Test prints values of failed checks; this lets it print Code.
std::ostream& boost_test_print_type(std::ostream& os, Code code) { return os << codeName(code); }

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void expectSpaceError(const std::string& space, const std::string& part) {
  auto r = normalizeEventSpace(space);
  BOOST_TEST_CONTEXT(space) {
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.status().code() == Code::kInvalidArgument);
    BOOST_TEST(contains(r.status().message(), part), r.status().message());
  }
}

void expectNameError(const std::string& name, const std::string& part) {
  auto r = normalizeEventName(name);
  BOOST_TEST_CONTEXT(name) {
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.status().code() == Code::kInvalidArgument);
    BOOST_TEST(contains(r.status().message(), part), r.status().message());
  }
}

// "A.A.A..." with `segments` segments of `width` characters each.
std::string spaceOf(std::size_t segments, std::size_t width) {
  std::string out;
  for (std::size_t i = 0; i < segments; ++i) out += (i ? "." : "") + std::string(width, 'a');
  return out;
}

BOOST_AUTO_TEST_CASE(to_upper_is_ascii) {
  BOOST_TEST(toUpper("ftb.mpi_x-9") == "FTB.MPI_X-9");
  BOOST_TEST(toUpper("") == "");
  BOOST_TEST(toUpper("\xc3\xa9") == "\xc3\xa9");  // non-ASCII bytes unchanged
}

BOOST_AUTO_TEST_CASE(event_space_normalises_to_upper_case) {
  BOOST_TEST(*normalizeEventSpace("ftb.mpi.openmpi") == "FTB.MPI.OPENMPI");
  BOOST_TEST(*normalizeEventSpace("Ftb") == "FTB");
  BOOST_TEST(*normalizeEventSpace("ftb.ib.mlx5_0-port1") == "FTB.IB.MLX5_0-PORT1");
}

BOOST_AUTO_TEST_CASE(event_space_limits) {
  BOOST_TEST(normalizeEventSpace(spaceOf(16, 1)).ok());
  expectSpaceError(spaceOf(17, 1), "more than 16 segments");
  BOOST_TEST(normalizeEventSpace(std::string(64, 'a')).ok());
  expectSpaceError("FTB." + std::string(65, 'a'),
                   "segment 2 '" + std::string(64, 'a') + "... (65 bytes)' is 65 characters; the limit is 64");
  // 4 segments of 63 + 3 dots = 255, the limit; one more character is over.
  std::string at_limit = spaceOf(4, 63);
  BOOST_REQUIRE(at_limit.size() == 255u);
  BOOST_TEST(normalizeEventSpace(at_limit).ok());
  expectSpaceError(at_limit + "a", "is 256 characters; the limit is 255");
}

BOOST_AUTO_TEST_CASE(event_space_errors_name_the_segment) {
  expectSpaceError("", "event space is empty");
  expectSpaceError("FTB..MPI", "event space 'FTB..MPI': segment 2 is empty");
  expectSpaceError(".FTB", "segment 1 is empty");
  expectSpaceError("FTB.", "segment 2 is empty");
  expectSpaceError("FTB.M/PI", "segment 2 'M/PI' has invalid character '/'");
  expectSpaceError("FTB MPI", "segment 1 'FTB MPI' has invalid character ' '");
  expectSpaceError("FTB.MPI.*", "segment 3 '*' has invalid character '*'");
  expectSpaceError("FTB.\x01", "invalid character '\\x01'");
}

BOOST_AUTO_TEST_CASE(event_name_normalises_and_validates) {
  BOOST_TEST(*normalizeEventName("ftb_mpi_procs_dead") == "FTB_MPI_PROCS_DEAD");
  BOOST_TEST(*normalizeEventName("ib.port-down") == "IB.PORT-DOWN");
  BOOST_TEST(normalizeEventName(std::string(128, 'x')).ok());
  expectNameError(std::string(129, 'x'), "is 129 characters; the limit is 128");
  expectNameError("", "event name is empty");
  expectNameError("PORT DOWN", "event name 'PORT DOWN' has invalid character ' '");
  expectNameError("PORT*", "invalid character '*'");
  expectNameError("A/B", "invalid character '/'");
}

}  // namespace
}  // namespace ftb
