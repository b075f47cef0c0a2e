#define BOOST_TEST_MODULE curve_keys_test
#include "client/curve_keys.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <boost/test/unit_test.hpp>

#include "tests/support/agent_process.h"  // TempDir

using namespace ftb::curve;

BOOST_AUTO_TEST_CASE(written_keys_load_back_whatever_characters_they_hold) {
  ftb::testing::TempDir dir;
  // Z85 keys may contain '#', the comment character: many pairs cover that.
  for (int i = 0; i < 200; ++i) {
    auto pair = generateKeyPair();
    BOOST_REQUIRE(pair.ok());
    BOOST_REQUIRE(writeKeyFiles(*pair, dir.path() + "/k").ok());
    auto secret = loadSecretKeyFile(dir.path() + "/k.key");
    BOOST_REQUIRE_MESSAGE(secret.ok(), secret.status().message());
    BOOST_TEST(*secret == pair->secret_key);
    BOOST_TEST(publicKeyOf(*secret).value() == pair->public_key);
    auto listed = loadAuthorizedKeys(dir.path() + "/k.pub");
    BOOST_REQUIRE(listed.ok());
    BOOST_TEST(listed->count(pair->public_key) == 1u);
  }
  struct stat st{};
  BOOST_REQUIRE(stat((dir.path() + "/k.key").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
}

BOOST_AUTO_TEST_CASE(secret_key_files_readable_by_others_are_refused) {
  ftb::testing::TempDir dir;
  BOOST_REQUIRE(writeKeyFiles(generateKeyPair().value(), dir.path() + "/k").ok());
  BOOST_REQUIRE(chmod((dir.path() + "/k.key").c_str(), 0640) == 0);
  auto secret = loadSecretKeyFile(dir.path() + "/k.key");
  BOOST_TEST(!secret.ok());
  BOOST_TEST(secret.status().message().find("chmod 600") != std::string::npos);
  BOOST_TEST(!loadSecretKeyFile(dir.path() + "/missing.key").ok());
}

BOOST_AUTO_TEST_CASE(authorized_keys_files_take_comments_and_reject_garbage) {
  ftb::testing::TempDir dir;
  const auto a = generateKeyPair().value(), b = generateKeyPair().value();
  std::ofstream(dir.path() + "/ok") << "# agents\n" << a.public_key << "  node17\n\n  " << b.public_key << "\n";
  auto keys = loadAuthorizedKeys(dir.path() + "/ok");
  BOOST_REQUIRE_MESSAGE(keys.ok(), keys.status().message());
  BOOST_TEST(keys->size() == 2u);
  std::ofstream(dir.path() + "/bad") << a.public_key << "\nnot-a-key\n";
  auto bad = loadAuthorizedKeys(dir.path() + "/bad");
  BOOST_TEST(!bad.ok());
  BOOST_TEST(bad.status().message().find("'not-a-key'") != std::string::npos);
  BOOST_TEST(!publicKeyOf("short").ok());
}

BOOST_AUTO_TEST_CASE(authorized_keys_map_keys_to_local_users) {
  ftb::testing::TempDir dir;
  const auto a = generateKeyPair().value(), b = generateKeyPair().value(),
             c = generateKeyPair().value();
  std::ofstream(dir.path() + "/ok") << a.public_key << " ipmi-mgmt1 uid=1000\n"
                                    << b.public_key << " user=nobody # monitor\n"
                                    << c.public_key << " unmapped\n";
  auto keys = loadAuthorizedKeys(dir.path() + "/ok");
  BOOST_REQUIRE_MESSAGE(keys.ok(), keys.status().message());
  BOOST_TEST((keys->at(a.public_key) == std::optional<uint32_t>(1000)));
  BOOST_TEST((keys->at(b.public_key) == std::optional<uint32_t>(65534)));
  BOOST_TEST(!keys->at(c.public_key).has_value());

  const auto refused = [&](const std::string& line, const std::string& why) {
    std::ofstream(dir.path() + "/bad", std::ios::trunc) << c.public_key << "\n" << line << "\n";
    auto bad = loadAuthorizedKeys(dir.path() + "/bad");
    BOOST_TEST_CONTEXT(line) {
      BOOST_TEST(!bad.ok());
      BOOST_TEST(bad.status().message().find("line 2: ") != std::string::npos, bad.status().message());
      BOOST_TEST(bad.status().message().find(why) != std::string::npos, bad.status().message());
    }
  };
  refused(a.public_key + " user=no-such-user-here", "'user=no-such-user-here' names no user");
  refused(a.public_key + " uid=4294967295", "is not a uid");
  refused(a.public_key + " uid=12x", "is not a uid");
  refused(a.public_key + " gid=0", "'gid=0' is not a mapping");
  refused(a.public_key + " uid=1 uid=2", "maps the key twice");
  refused(c.public_key + " uid=5", "again with another mapping");
}

// A root-only key read by another user (an agent running as `ftb`): the error
// says why (errno text) and what to do (LoadCredential=), not just "cannot read".
BOOST_AUTO_TEST_CASE(an_unreadable_key_file_is_refused_with_the_reason_and_a_hint) {
  ftb::testing::TempDir dir;
  BOOST_REQUIRE(chmod(dir.path().c_str(), 0755) == 0);
  BOOST_REQUIRE(writeKeyFiles(generateKeyPair().value(), dir.path() + "/k").ok());
  int pipe_fds[2];
  BOOST_REQUIRE(pipe(pipe_fds) == 0);
  const pid_t child = fork();
  if (child == 0) {
    // As root, become nobody (root reads anything); otherwise take our own read permission away.
    if (geteuid() == 0 ? setresuid(65534, 65534, 65534) != 0
                       : chmod((dir.path() + "/k.key").c_str(), 0200) != 0) {
      _exit(3);
    }
    const std::string message = loadSecretKeyFile(dir.path() + "/k.key").status().message();
    (void)!write(pipe_fds[1], message.data(), message.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  BOOST_REQUIRE(waitpid(child, &status, 0) == child);
  BOOST_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  BOOST_TEST(message.find("cannot read Curve key file " + dir.path() + "/k.key: Permission denied") !=
             std::string::npos, message);
  BOOST_TEST(message.find("LoadCredential=") != std::string::npos, message);
  BOOST_TEST(loadSecretKeyFile(dir.path() + "/missing.key").status().message().find("No such file") !=
             std::string::npos);
}

// systemd hands a credential to the unit's user alone; an ACL can make its mode
// look group-readable, which is not refused inside $CREDENTIALS_DIRECTORY only.
BOOST_AUTO_TEST_CASE(credentials_of_systemd_are_taken_whatever_their_group_bits) {
  ftb::testing::TempDir dir;
  const auto pair = generateKeyPair().value();
  BOOST_REQUIRE(writeKeyFiles(pair, dir.path() + "/k").ok());
  BOOST_REQUIRE(chmod((dir.path() + "/k.key").c_str(), 0440) == 0);
  BOOST_TEST(!loadSecretKeyFile(dir.path() + "/k.key").ok());
  BOOST_REQUIRE(setenv("CREDENTIALS_DIRECTORY", dir.path().c_str(), 1) == 0);
  auto secret = loadSecretKeyFile(dir.path() + "/k.key");
  unsetenv("CREDENTIALS_DIRECTORY");
  BOOST_REQUIRE_MESSAGE(secret.ok(), secret.status().message());
  BOOST_TEST(*secret == pair.secret_key);
}
