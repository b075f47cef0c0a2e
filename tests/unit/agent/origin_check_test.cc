// checkOrigin: a local client says Hello only as its own process, or as a live
// process of its uid; bit 31 of the instance is the agent's. The lookup is a
// table here, and /proc itself in the last case.
#define BOOST_TEST_MODULE origin_check
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <map>

#include "agent/security/origin_check.h"
#include "client/origin.h"

namespace proto = ftb::proto;
using ftb::Code;
using ftb::agent::checkOrigin;
using ftb::agent::LocalProcess;
using ftb::agent::PeerCredentials;
using ftb::agent::Sender;

namespace {

constexpr char kHost[] = "node7";

// Processes as /proc would show them: pid 100 (uid 1000, started at 5000),
// pid 200 (uid 1000, in a container where it is pid 7), pid 300 (root).
std::optional<LocalProcess> table(uint32_t pid) {
  static const std::map<uint32_t, LocalProcess> processes{
      {100, {.uid = 1000, .start_ns = 5000, .ns_pids = {100}}},
      {200, {.uid = 1000, .start_ns = 6000, .ns_pids = {200, 7}}},
      {300, {.uid = 0, .start_ns = 7000, .ns_pids = {300}}},
  };
  auto it = processes.find(pid);
  if (it == processes.end()) return std::nullopt;
  return it->second;
}

proto::Hello helloAs(std::string host, uint32_t pid, uint64_t start, uint32_t instance = 1) {
  proto::Hello h;
  h.mutable_origin()->set_host(std::move(host));
  h.mutable_origin()->set_pid(pid);
  h.mutable_origin()->set_process_start_ns(start);
  h.set_client_instance(instance);
  return h;
}

Sender localPeer(uint32_t uid, uint32_t pid) {
  Sender s;
  s.local = PeerCredentials{.uid = uid, .gid = uid, .pid = pid};
  return s;
}

Code codeOf(const proto::Hello& h, const Sender& s) { return checkOrigin(h, s, table).code(); }

}  // namespace

BOOST_AUTO_TEST_CASE(a_local_client_may_say_hello_as_its_own_process) {
  BOOST_TEST(checkOrigin(helloAs(kHost, 100, 5000), localPeer(1000, 100), table).ok());
  // In its container, the process knows itself as pid 7.
  BOOST_TEST(checkOrigin(helloAs(kHost, 7, 6000), localPeer(1000, 200), table).ok());
}

BOOST_AUTO_TEST_CASE(a_local_client_may_speak_for_a_live_process_of_its_own_uid) {
  BOOST_TEST(checkOrigin(helloAs(kHost, 200, 6000), localPeer(1000, 100), table).ok());
  // Root may speak for anyone's process.
  BOOST_TEST(checkOrigin(helloAs(kHost, 100, 5000), localPeer(0, 300), table).ok());
}

BOOST_AUTO_TEST_CASE(a_local_client_may_not_claim_another_users_or_a_past_or_future_process) {
  // Another uid's process (uid 1000 claiming root's pid 300).
  BOOST_TEST((codeOf(helloAs(kHost, 300, 7000), localPeer(1000, 100)) == Code::kPermissionDenied));
  // Its own pid with another start time: an earlier process that had the pid.
  BOOST_TEST((codeOf(helloAs(kHost, 100, 4999), localPeer(1000, 100)) == Code::kPermissionDenied));
  // A pid no process has yet: claimed before its owner connects.
  BOOST_TEST((codeOf(helloAs(kHost, 400, 8000), localPeer(1000, 100)) == Code::kPermissionDenied));
  ftb::Status s = checkOrigin(helloAs(kHost, 300, 7000), localPeer(1000, 100), table);
  BOOST_TEST(s.message().find("origin pid 300 started at 7000 ns is neither the connecting process "
                              "(pid 100) nor a live process of uid 1000") != std::string::npos,
             s.message());
}

// The packaged unit runs the agent with ProtectProc=invisible: another user's
// process (pid 500 here) is not in its /proc.
BOOST_AUTO_TEST_CASE(where_proc_hides_the_client_its_kernel_pid_alone_binds_the_origin) {
  BOOST_TEST(checkOrigin(helloAs(kHost, 500, 1234), localPeer(0, 500), table).ok());
  BOOST_TEST((codeOf(helloAs(kHost, 501, 1234), localPeer(0, 500)) == Code::kPermissionDenied));
  BOOST_TEST((codeOf(helloAs(kHost, 300, 7000), localPeer(1000, 500)) == Code::kPermissionDenied));
}

BOOST_AUTO_TEST_CASE(the_host_is_the_clients_to_name) {
  // A container with a UTS namespace of its own has a hostname of its own.
  BOOST_TEST(checkOrigin(helloAs("container-3", 100, 5000), localPeer(1000, 100), table).ok());
}

BOOST_AUTO_TEST_CASE(the_last_will_bit_of_the_instance_is_refused_to_every_client) {
  BOOST_TEST((codeOf(helloAs(kHost, 100, 5000, 0x80000002u), localPeer(1000, 100)) ==
             Code::kInvalidArgument));
  Sender remote;
  remote.address = "10.0.0.9";
  BOOST_TEST((codeOf(helloAs("elsewhere", 1, 1, 0x80000000u), remote) == Code::kInvalidArgument));
  // A remote client's origin is otherwise its own to name.
  BOOST_TEST(checkOrigin(helloAs("elsewhere", 1, 1), remote, table).ok());
}

BOOST_AUTO_TEST_CASE(this_process_as_proc_shows_it_passes_and_its_start_time_is_what_origins_carry) {
  const proto::Origin& self = ftb::localOrigin();
  std::optional<LocalProcess> facts = ftb::agent::readLocalProcess(static_cast<uint32_t>(getpid()));
  BOOST_TEST_REQUIRE(facts.has_value());
  BOOST_TEST(facts->uid == getuid());
  BOOST_TEST(facts->start_ns == self.process_start_ns());
  proto::Hello h = helloAs(self.host(), self.pid(), self.process_start_ns());
  BOOST_TEST(ftb::agent::checkOrigin(h, localPeer(getuid(), self.pid()), ftb::agent::readLocalProcess).ok());
}
