// The credentials file: format, lookup order, and the root-only permission rule.
#define BOOST_TEST_MODULE ipmi_credentials
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "components/ipmi/credentials.h"
#include "tests/support/agent_process.h"

using ftb::Code;
using ftb::ipmi::CredentialsFile;

namespace {

std::string write(const ftb::testing::TempDir& dir, const std::string& text, mode_t mode) {
  const std::string path = dir.path() + "/credentials";
  std::ofstream(path, std::ios::trunc) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(lookup_by_name_then_address_then_wildcard) {
  auto f = CredentialsFile::parse(
      "# comment\n"
      "\n"
      "node17 admin s3cret\n"
      "10.1.0.18:623  operator   pass with spaces  \n"
      "*  monitor watch\n",
      "test");
  BOOST_REQUIRE_MESSAGE(f.ok(), f.status().toString());
  BOOST_CHECK_EQUAL(f->lookup("node17", "10.1.0.17:623")->username, "admin");
  BOOST_CHECK_EQUAL(f->lookup("node17", "10.1.0.17:623")->password, "s3cret");
  BOOST_CHECK_EQUAL(f->lookup("node18", "10.1.0.18:623")->password, "pass with spaces");
  BOOST_CHECK_EQUAL(f->lookup("other", "10.9.9.9:623")->username, "monitor");
  auto none = CredentialsFile::parse("node17 admin x\n", "test");
  BOOST_REQUIRE(none.ok());
  BOOST_CHECK(!none->lookup("other", "h:623"));
}

BOOST_AUTO_TEST_CASE(malformed_lines_are_named) {
  auto missing = CredentialsFile::parse("node17 admin\n", "creds");
  BOOST_REQUIRE(!missing.ok());
  BOOST_CHECK_NE(missing.status().message().find("creds:1"), std::string::npos);
  auto twice = CredentialsFile::parse("a u p\n\na u q\n", "creds");
  BOOST_REQUIRE(!twice.ok());
  BOOST_CHECK_NE(twice.status().message().find("creds:3"), std::string::npos);
  auto long_password = CredentialsFile::parse("a u 123456789012345678901\n", "creds");
  BOOST_REQUIRE(!long_password.ok());
  BOOST_CHECK_NE(long_password.status().message().find("20 bytes"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(file_readable_by_group_or_others_is_refused) {
  ftb::testing::TempDir dir;
  for (mode_t mode : {0644, 0640, 0604, 0660, 0601}) {
    const std::string path = write(dir, "* u p\n", mode);
    auto f = CredentialsFile::load(path, ::geteuid());
    BOOST_TEST_CONTEXT("mode " << std::oct << mode) {
      BOOST_REQUIRE(!f.ok());
      BOOST_CHECK(f.status().code() == Code::kPermissionDenied);
      BOOST_CHECK_NE(f.status().message().find("readable only by root"), std::string::npos);
      BOOST_CHECK_NE(f.status().message().find("chmod 600 " + path), std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(file_owned_by_someone_else_is_refused) {
  ftb::testing::TempDir dir;
  const std::string path = write(dir, "* u p\n", 0600);
  auto f = CredentialsFile::load(path, ::geteuid() + 1);
  BOOST_REQUIRE(!f.ok());
  BOOST_CHECK(f.status().code() == Code::kPermissionDenied);
  BOOST_CHECK_NE(f.status().message().find("owned by uid " + std::to_string(::geteuid())),
                 std::string::npos);
  BOOST_CHECK_NE(f.status().message().find("chown root:root"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(private_file_of_the_required_owner_loads) {
  ftb::testing::TempDir dir;
  for (mode_t mode : {0600, 0400}) {
    auto f = CredentialsFile::load(write(dir, "* u p\n", mode), ::geteuid());
    BOOST_REQUIRE_MESSAGE(f.ok(), f.status().toString());
    BOOST_CHECK_EQUAL(f->lookup("x", "y")->username, "u");
  }
}

BOOST_AUTO_TEST_CASE(missing_file_says_so) {
  auto f = CredentialsFile::load("/nonexistent/ftb-ipmi-credentials");
  BOOST_REQUIRE(!f.ok());
  BOOST_CHECK_NE(f.status().message().find("/nonexistent/ftb-ipmi-credentials"), std::string::npos);
}
