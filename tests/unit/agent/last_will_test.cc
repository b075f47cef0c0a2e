#define BOOST_TEST_MODULE last_will
#include <boost/test/unit_test.hpp>

#include "agent/security/last_will.h"

using ftb::agent::clientLostTags;
using ftb::agent::kWillInstanceBit;
using ftb::agent::lastWillFromHello;

namespace {

ftb::proto::Hello helloWithWill(const std::string& name, ftb::proto::Severity declared,
                                ftb::proto::Severity will_severity, std::string payload = "p") {
  ftb::proto::Hello h;
  h.set_client_name("ftbckpt-r3");
  h.set_job_id("J1");
  h.mutable_origin()->set_host("n2");
  h.mutable_origin()->set_pid(99);
  h.mutable_origin()->set_process_start_ns(7);
  h.set_client_instance(2);
  auto* d = h.add_declarations();
  d->set_name(name);
  d->set_severity(declared);
  auto* w = h.mutable_last_will();
  w->set_event_name(name);
  w->set_severity(will_severity);
  w->set_payload(std::move(payload));
  (*w->mutable_tags())["rank"] = "3";
  return h;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_hello_without_will_has_none) {
  auto will = lastWillFromHello(ftb::proto::Hello(), "FTB.X", 368);
  BOOST_REQUIRE(will.ok());
  BOOST_TEST(!will->has_value());
}

BOOST_AUTO_TEST_CASE(a_valid_will_becomes_an_event_with_an_id_of_its_own) {
  auto will = lastWillFromHello(helloWithWill("ftb_mpi_procs_dead", ftb::proto::FATAL, ftb::proto::FATAL),
                                "FTB.MPI.FTBCKPT", 368);
  BOOST_REQUIRE_MESSAGE(will.ok(), will.status().toString());
  const ftb::proto::Event& e = **will;
  BOOST_TEST(e.event_space() == "FTB.MPI.FTBCKPT");
  BOOST_TEST(e.event_name() == "FTB_MPI_PROCS_DEAD");  // normalised
  BOOST_TEST(e.client_name() == "ftbckpt-r3");
  BOOST_TEST(e.job_id() == "J1");
  BOOST_TEST(e.id().origin().pid() == 99u);
  BOOST_TEST(e.id().client_instance() == (2u | kWillInstanceBit));
  BOOST_TEST(e.id().seq() == 1u);
  BOOST_TEST(e.tags().at("rank") == "3");
  BOOST_TEST(!e.has_sender());
}

BOOST_AUTO_TEST_CASE(an_undeclared_will_is_refused_naming_the_event) {
  auto hello = helloWithWill("RANK_GONE", ftb::proto::FATAL, ftb::proto::FATAL);
  hello.clear_declarations();
  auto will = lastWillFromHello(hello, "FTB.X", 368);
  BOOST_REQUIRE(!will.ok());
  BOOST_TEST(will.status().message().find("RANK_GONE is not among the Hello's declarations") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_will_with_another_severity_than_declared_is_refused) {
  auto will = lastWillFromHello(helloWithWill("RANK_GONE", ftb::proto::ERROR, ftb::proto::FATAL), "FTB.X", 368);
  BOOST_REQUIRE(!will.ok());
  BOOST_TEST(will.status().message().find("severity FATAL but is declared with ERROR") != std::string::npos,
             will.status().message());
}

BOOST_AUTO_TEST_CASE(an_oversized_or_badly_named_will_is_refused) {
  auto big = lastWillFromHello(helloWithWill("RANK_GONE", ftb::proto::FATAL, ftb::proto::FATAL, std::string(369, 'x')),
                               "FTB.X", 368);
  BOOST_REQUIRE(!big.ok());
  BOOST_TEST((big.status().code() == ftb::Code::kResourceExhausted));
  auto bad = lastWillFromHello(helloWithWill("rank gone!", ftb::proto::FATAL, ftb::proto::FATAL), "FTB.X", 368);
  BOOST_REQUIRE(!bad.ok());
  BOOST_TEST(bad.status().message().rfind("last_will.event_name", 0) == 0u, bad.status().message());
}

BOOST_AUTO_TEST_CASE(the_lost_notice_says_who_with_kernel_credentials_when_known) {
  auto tags = clientLostTags({.event_space = "FTB.MPI.FTBCKPT", .client_name = "ftbckpt-r3", .job_id = "J1",
                              .who = {.peer = ftb::agent::PeerCredentials{.uid = 1000, .gid = 1000, .pid = 4321}},
                              .origin_pid = 1, .node = "n2", .why = "its process exited",
                              .will_published = true});
  BOOST_TEST(tags.at("pid") == "4321");
  BOOST_TEST(tags.at("uid") == "1000");
  BOOST_TEST(tags.at("node") == "n2");
  BOOST_TEST(tags.at("will") == "1");
  BOOST_TEST(tags.at("job") == "J1");
  auto remote = clientLostTags({.client_name = "x", .origin_pid = 77, .node = "n1"});
  BOOST_TEST(remote.at("pid") == "77");
  BOOST_TEST(remote.at("uid") == "unknown");
  BOOST_TEST(remote.count("job") == 0u);
  auto mapped = clientLostTags({.client_name = "x", .who = {.curve_uid = 1000}, .origin_pid = 77, .node = "n1"});
  BOOST_TEST(mapped.at("pid") == "77");
  BOOST_TEST(mapped.at("uid") == "1000");
}
