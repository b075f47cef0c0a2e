#define BOOST_TEST_MODULE subscription_index
#include <boost/test/unit_test.hpp>

#include <map>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "agent/routing/subscription_index.h"
#include "client/filter.h"

namespace ftb::agent {
// For Boost.Test's messages (found by ADL).
std::ostream& operator<<(std::ostream& out, const SubscriptionIndex::Match& m) {
  return out << "(" << m.owner << ", " << m.id << ")";
}
}  // namespace ftb::agent

using ftb::Filter;
using ftb::agent::SubscriptionIndex;
using Match = SubscriptionIndex::Match;

namespace {

ftb::proto::Event event(const std::string& space, const std::string& name = "E1",
                        ftb::proto::Severity severity = ftb::proto::INFO,
                        const std::string& host = "n1") {
  ftb::proto::Event e;
  e.set_event_space(space);
  e.set_event_name(name);
  e.set_severity(severity);
  e.mutable_id()->mutable_origin()->set_host(host);
  return e;
}

Filter parsed(const std::string& text) {
  auto f = Filter::parse(text);
  BOOST_TEST_REQUIRE(f.ok(), text << ": " << f.status().message());
  return *f;
}

SubscriptionIndex::Owner owner(int n) { return reinterpret_cast<SubscriptionIndex::Owner>(0x1000 + 16 * n); }

// The reference: every filter evaluated, as Agent::route did before the index.
struct BruteForce {
  std::map<Match, Filter> held;
  std::vector<Match> matching(const ftb::proto::Event& e) const {
    std::vector<Match> out;
    for (const auto& [m, f] : held) {
      if (f.matches(e)) out.push_back(m);
    }
    return out;
  }
};

// Which of `texts` match `space`, by index and by Filter alone (for targeted cases).
void expectSame(const std::vector<std::string>& texts, const std::vector<std::string>& spaces) {
  SubscriptionIndex index;
  BruteForce brute;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const Match m{owner(0), static_cast<uint32_t>(i + 1)};
    index.add(m.owner, m.id, parsed(texts[i]));
    brute.held.emplace(m, parsed(texts[i]));
  }
  for (const auto& space : spaces) {
    BOOST_TEST_CONTEXT("event space " << space) {
      const auto e = event(space);
      const auto expected = brute.matching(e);
      BOOST_TEST(index.matching(e) == expected, boost::test_tools::per_element());
    }
  }
}

const std::vector<std::string> kSpaces = {
    "FTB", "FTB.MPI", "FTB.MPI.OMPI", "FTB.MPI.OMPI.RANK", "FTB.IB", "FTB.IB.PORT",
    "ftb.mpi.ompi", "Ftb.Ib", "OTHER", "OTHER.MPI", "FTB.MPIX", "FTB.MP", "X.FTB.MPI"};

}  // namespace

BOOST_AUTO_TEST_CASE(globs_at_every_depth) {
  expectSame({"event_space=FTB.*", "event_space=FTB.MPI.*", "event_space=FTB.MPI.OMPI.*",
              "event_space=*.MPI", "event_space=FTB.*.OMPI", "event_space=FTB.M*",
              "event_space=FTB.MPI*.OMPI", "event_space=**", "event_space=FTB.**",
              "event_space=FTB.**.RANK", "event_space=**.OMPI", "event_space=*"},
             kSpaces);
}

BOOST_AUTO_TEST_CASE(ftb05_all_levels_and_empty_filters) {
  expectSame({"", "event_space=all", "event_space=FTB.all", "event_space=FTB.ALL.OMPI",
              "event_space=all.all", "severity=all", "event_space=FTB.MPI.all, severity=all",
              "jobid=all, event_space=ftb.mpi.all"},
             kSpaces);
}

BOOST_AUTO_TEST_CASE(alternatives_repeats_negations_and_case) {
  expectSame({"event_space=FTB.MPI|FTB.IB", "event_space=FTB.MPI.*|OTHER",
              "event_space=FTB.MPI, event_space=FTB.IB.*", "event_space=FTB.MPI|FTB.MPI",
              "event_space=FTB.MPI.*|FTB.MPI.OMPI", "event_space!=FTB.MPI",
              "event_space=FTB.*, event_space!=FTB.IB.*", "event_space=ftb.mpi.ompi",
              "EVENT_SPACE=Ftb.Ib", "event_space=FTB.MPI|all", "event_space=FTB.IB|*.MPI"},
             kSpaces);
}

BOOST_AUTO_TEST_CASE(other_keys_are_checked_on_candidates) {
  SubscriptionIndex index;
  index.add(owner(1), 1, parsed("event_space=FTB.MPI, severity>=error"));
  index.add(owner(1), 2, parsed("event_space=FTB.MPI, event_name=E1|E2, host_name=n1"));
  index.add(owner(2), 3, parsed("event_space=FTB.MPI, event_name!=e1"));
  BOOST_TEST(index.matching(event("FTB.MPI", "E1", ftb::proto::ERROR)) ==
                 (std::vector<Match>{{owner(1), 1}, {owner(1), 2}}),
             boost::test_tools::per_element());
  BOOST_TEST(index.matching(event("FTB.MPI", "E3", ftb::proto::INFO, "n2")) ==
                 (std::vector<Match>{{owner(2), 3}}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(filters_without_a_namespace_are_filed_by_literal_event_name) {
  SubscriptionIndex index;
  index.add(owner(1), 1, parsed("event_name=NODE_DOWN|link_down, severity>=error"));
  index.add(owner(1), 2, parsed("event_name=NODE_*"));         // glob: always checked
  index.add(owner(1), 3, parsed("event_name!=NODE_DOWN"));      // exclusion only: always checked
  index.add(owner(1), 4, parsed("event_name=all, event_name=X"));  // 'all': always checked
  BOOST_TEST(index.candidateCount("FTB.IB", "Link_Down") == 4u);
  BOOST_TEST(index.candidateCount("FTB.IB", "OTHER") == 3u);
  BOOST_TEST(index.matching(event("FTB.IB", "link_DOWN", ftb::proto::FATAL)) ==
                 (std::vector<Match>{{owner(1), 1}, {owner(1), 3}, {owner(1), 4}}),
             boost::test_tools::per_element());
  index.remove(owner(1), 1);
  BOOST_TEST(index.candidateCount("FTB.IB", "LINK_DOWN") == 3u);
}

BOOST_AUTO_TEST_CASE(add_replaces_and_remove_forgets) {
  SubscriptionIndex index;
  index.add(owner(1), 1, parsed("event_space=FTB.MPI"));
  index.add(owner(1), 1, parsed("event_space=FTB.IB"));  // same id: replaced
  index.add(owner(1), 2, parsed(""));
  index.add(owner(2), 1, parsed("event_space=FTB.IB.*"));
  BOOST_TEST(index.size() == 3u);
  BOOST_TEST(index.matching(event("FTB.MPI")) == (std::vector<Match>{{owner(1), 2}}),
             boost::test_tools::per_element());
  index.remove(owner(1), 2);
  index.remove(owner(1), 99);  // not held: no-op
  BOOST_TEST(index.matching(event("FTB.MPI")).empty());
  BOOST_TEST(index.matching(event("FTB.IB.X")) == (std::vector<Match>{{owner(2), 1}}),
             boost::test_tools::per_element());
  index.removeOwner(owner(2));
  BOOST_TEST(index.matching(event("FTB.IB.X")).empty());
  BOOST_TEST(index.matching(event("FTB.IB")) == (std::vector<Match>{{owner(1), 1}}),
             boost::test_tools::per_element());
  index.removeOwner(owner(1));
  BOOST_TEST(index.size() == 0u);
  BOOST_TEST(index.candidateCount("FTB.IB") == 0u);
}

namespace {

const std::vector<std::string> kSegments = {"FTB", "MPI", "IB", "X", "ompi"};

std::string randomSpace(std::mt19937& rng) {
  std::string s;
  const int depth = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < depth; ++i) {
    if (i > 0) s += '.';
    s += kSegments[rng() % kSegments.size()];
  }
  return s;
}

std::string randomSpacePattern(std::mt19937& rng) {
  static const std::vector<std::string> kWild = {"*", "all", "ALL", "**", "M*", "*B", "F*B"};
  std::string s;
  const int depth = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < depth; ++i) {
    if (i > 0) s += '.';
    s += rng() % 4 == 0 ? kWild[rng() % kWild.size()] : kSegments[rng() % kSegments.size()];
  }
  return s;
}

std::string randomFilter(std::mt19937& rng) {
  std::vector<std::string> elements;
  const int spaces = static_cast<int>(rng() % 3);  // 0: any namespace; 2: the key repeated
  for (int i = 0; i < spaces; ++i) {
    std::string values = randomSpacePattern(rng);
    while (rng() % 3 == 0) values += "|" + randomSpacePattern(rng);
    elements.push_back((rng() % 6 == 0 ? "event_space!=" : "event_space=") + values);
  }
  if (rng() % 4 == 0) elements.push_back(rng() % 2 ? "severity>=warning" : "severity=all");
  if (rng() % 3 == 0) {
    static const std::vector<std::string> kNames = {"event_name=E1|e2", "event_name!=E*",
                                                    "event_name=e3", "event_name=E*|E3",
                                                    "event_name=all|E1", "event_name=E1, event_name=E3"};
    elements.push_back(kNames[rng() % kNames.size()]);
  }
  if (rng() % 6 == 0) elements.push_back("host_name=n1");
  std::shuffle(elements.begin(), elements.end(), rng);
  std::string text;
  for (const auto& e : elements) text += (text.empty() ? "" : ", ") + e;
  return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_filters_match_as_brute_force) {
  for (uint32_t seed : {1u, 2u, 3u, 17u, 2026u}) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      std::mt19937 rng(seed);
      SubscriptionIndex index;
      BruteForce brute;
      for (int step = 0; step < 3000; ++step) {
        const int who = static_cast<int>(rng() % 20);
        const uint32_t id = 1 + rng() % 10;
        const unsigned action = rng() % 10;
        if (action < 6) {
          const std::string text = randomFilter(rng);
          auto f = Filter::parse(text);
          if (!f.ok()) continue;  // e.g. '!=all': the grammar refuses it, so does the agent
          index.add(owner(who), id, *f);
          brute.held.insert_or_assign(Match{owner(who), id}, *f);
        } else if (action < 8) {
          index.remove(owner(who), id);
          brute.held.erase(Match{owner(who), id});
        } else if (action == 8) {
          index.removeOwner(owner(who));
          std::erase_if(brute.held, [&](const auto& kv) { return kv.first.owner == owner(who); });
        }
        static const std::vector<std::string> kEventNames = {"E1", "e1", "E2", "E3", "X"};
        const auto e = event(randomSpace(rng), kEventNames[rng() % kEventNames.size()],
                             rng() % 2 ? ftb::proto::INFO : ftb::proto::FATAL, rng() % 2 ? "n1" : "n2");
        BOOST_TEST_CONTEXT("step " << step << ", event space " << e.event_space()) {
          BOOST_TEST_REQUIRE(index.size() == brute.held.size());
          const auto expected = brute.matching(e);
          BOOST_TEST_REQUIRE(index.matching(e) == expected, boost::test_tools::per_element());
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(ten_thousand_distinct_namespaces_are_not_all_evaluated) {
  SubscriptionIndex index;
  for (int client = 0; client < 100; ++client) {
    for (uint32_t id = 1; id <= 100; ++id) {
      const std::string space = "FTB.C" + std::to_string(client) + ".S" + std::to_string(id);
      index.add(owner(client), id, parsed("event_space=" + space + ", severity>=info"));
    }
  }
  index.add(owner(200), 1, parsed("event_space=FTB.C7.*"));
  index.add(owner(200), 2, parsed("severity>=error"));  // no namespace: always a candidate
  BOOST_TEST(index.size() == 10002u);
  BOOST_TEST(index.candidateCount("FTB.C7.S42") == 3u);
  BOOST_TEST(index.candidateCount("FTB.NOBODY") == 1u);
  BOOST_TEST(index.matching(event("FTB.C7.S42")) == (std::vector<Match>{{owner(7), 42}, {owner(200), 1}}),
             boost::test_tools::per_element());
}
