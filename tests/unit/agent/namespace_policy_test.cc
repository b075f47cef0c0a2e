#define BOOST_TEST_MODULE namespace_policy_test
#include "agent/security/namespace_policy.h"

#include <unistd.h>

#include <boost/test/unit_test.hpp>

using ftb::agent::NamespacePolicy;
using ftb::agent::PeerCredentials;
using ftb::agent::Principal;
using A = NamespacePolicy::Action;

namespace {
Principal local(uint32_t uid, uint32_t gid = 100) { return {.peer = PeerCredentials{uid, gid, 1}}; }
Principal remote(bool curve = false) { return {.curve_authenticated = curve}; }
}  // namespace

BOOST_AUTO_TEST_CASE(embedded_default_reserves_system_namespaces) {
  const auto p = NamespacePolicy::embeddedDefault();
  BOOST_TEST(p.allows(A::kPublish, "FTB.JL.JOB1", local(0)));
  BOOST_TEST(!p.allows(A::kPublish, "FTB.JL.JOB1", local(1000)));
  BOOST_TEST(!p.allows(A::kPublish, "FTB.JL", local(1000)));
  BOOST_TEST(!p.allows(A::kPublish, "FTB.AGENT", local(1000)));
  BOOST_TEST(!p.allows(A::kPublish, "FTB.IPMI.MONITOR", local(1000)));
  BOOST_TEST(!p.allows(A::kPublish, "FTB.IB.MONITOR", remote()));
  BOOST_TEST(p.allows(A::kPublish, "FTB.IB.MONITOR", remote(true)));
  BOOST_TEST(!p.allows(A::kPublish, "FTB.JL.JOB1", remote(true)));
  // A job's own namespace: anything not reserved.
  BOOST_TEST(p.allows(A::kPublish, "FTB.MPI.OPENMPI", local(1000)));
  BOOST_TEST(p.allows(A::kPublish, "FTB.JLX.JOB", local(1000)));  // FTB.JL.* is not a prefix of FTB.JLX
  BOOST_TEST(p.allows(A::kPublish, "FTB.JOB.42", remote()));
  BOOST_TEST(p.allows(A::kSubscribe, "FTB.JL.JOB1", local(1000)));
  BOOST_TEST(p.openToAll(A::kSubscribe));
  BOOST_TEST(!p.openToAll(A::kPublish));
  // The agent's own user counts as privileged.
  BOOST_TEST(p.allows(A::kPublish, "FTB.JL.JOB1", local(geteuid())));
  BOOST_TEST(p.whoMay(A::kPublish, "FTB.JL.X") == "uid=0 self");
}

BOOST_AUTO_TEST_CASE(first_matching_rule_decides_and_no_rule_refuses) {
  auto p = NamespacePolicy::parse(
      "publish FTB.SITE.SECRET uid=7   # exact\n"
      "publish FTB.SITE.* gid=50 remote\n"
      "subscribe FTB.SITE.* local\n",
      "test");
  BOOST_REQUIRE_MESSAGE(p.ok(), p.status().message());
  BOOST_TEST(p->allows(A::kPublish, "FTB.SITE.SECRET", local(7)));
  BOOST_TEST(!p->allows(A::kPublish, "FTB.SITE.SECRET", local(8, 50)));  // the exact rule decides
  BOOST_TEST(p->allows(A::kPublish, "FTB.SITE.OTHER", local(8, 50)));
  BOOST_TEST(p->allows(A::kPublish, "FTB.SITE.OTHER", remote()));
  BOOST_TEST(!p->allows(A::kPublish, "FTB.ELSEWHERE", local(0)));  // no rule
  BOOST_TEST(p->allows(A::kSubscribe, "FTB.SITE.X", local(9)));
  BOOST_TEST(!p->allows(A::kSubscribe, "FTB.SITE.X", remote()));
  BOOST_TEST(p->needsGroups());
  // Supplementary groups count too.
  Principal member = local(9, 100);
  member.groups = {50};
  BOOST_TEST(p->allows(A::kPublish, "FTB.SITE.OTHER", member));
}

// A TCP client whose Curve key the authorized keys map to a uid is that uid
// for uid=, user=, gid= and group= rules; never `self` or `local`.
BOOST_AUTO_TEST_CASE(a_mapped_curve_key_matches_uid_and_group_rules_only) {
  auto p = NamespacePolicy::parse(
      "publish FTB.TEAM.* uid=4242\n"
      "publish FTB.GROUP.* gid=50\n"
      "publish FTB.MINE.* self\n"
      "publish FTB.LOCAL.* local\n",
      "test");
  BOOST_REQUIRE_MESSAGE(p.ok(), p.status().message());
  Principal mapped{.curve_uid = 4242, .curve_authenticated = true};
  BOOST_TEST((mapped.uid() == std::optional<uint32_t>(4242)));
  BOOST_TEST(mapped.describe() == "uid 4242 (Curve key)");
  BOOST_TEST(p->allows(A::kPublish, "FTB.TEAM.A", mapped));
  BOOST_TEST(!p->allows(A::kPublish, "FTB.TEAM.A", remote(true)));
  BOOST_TEST(!p->allows(A::kPublish, "FTB.GROUP.A", mapped));
  mapped.groups = {50};
  BOOST_TEST(p->allows(A::kPublish, "FTB.GROUP.A", mapped));
  Principal as_agent_user{.curve_uid = static_cast<uint32_t>(geteuid()), .curve_authenticated = true};
  BOOST_TEST(!p->allows(A::kPublish, "FTB.MINE.A", as_agent_user));
  BOOST_TEST(!p->allows(A::kPublish, "FTB.LOCAL.A", as_agent_user));
}

BOOST_AUTO_TEST_CASE(patterns_are_normalised) {
  auto p = NamespacePolicy::parse("publish ftb.lower.* uid=1\npublish * *\n", "test");
  BOOST_REQUIRE(p.ok());
  BOOST_TEST(!p->allows(A::kPublish, "FTB.LOWER.X", local(2)));
  BOOST_TEST(p->allows(A::kPublish, "FTB.UPPER.X", local(2)));
}

BOOST_AUTO_TEST_CASE(bad_policies_name_the_line) {
  const std::pair<const char*, const char*> cases[] = {
      {"shout FTB.X.* *", "line 1: 'shout' is not publish or subscribe"},
      {"\npublish", "line 2: a namespace pattern is missing"},
      {"publish FTB.X.*", "no principal"},
      {"publish FTB.*.X *", "only at the end"},
      {"publish FTB.X.* uid=root", "uid must be a number"},
      {"publish FTB.X.* user=no-such-user-ftb", "unknown user 'no-such-user-ftb'"},
      {"publish FTB.X.* everyone", "'everyone' is not a principal"},
  };
  for (const auto& [text, expected] : cases) {
    auto p = NamespacePolicy::parse(text, "policy.conf");
    BOOST_TEST_CONTEXT(text) {
      BOOST_REQUIRE(!p.ok());
      BOOST_TEST(p.status().message().find(expected) != std::string::npos, p.status().message());
      BOOST_TEST(p.status().message().find("policy.conf") == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_an_error_and_no_file_is_the_default) {
  BOOST_TEST(!NamespacePolicy::load("/nonexistent/ftb-policy.conf").ok());
  auto p = NamespacePolicy::load("");
  BOOST_REQUIRE(p.ok());
  BOOST_TEST(!p->allows(A::kPublish, "FTB.JL.A", local(1000)));
}
