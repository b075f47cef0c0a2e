// Departures with a real pidfd (a child process this test starts and ends)
// and a recording FrameSink in place of the client sockets: when a client
// gone without a Goodbye is lost, and when it is not.
#define BOOST_TEST_MODULE departures
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "agent/liveness/departures.h"
#include "client/clock.h"
#include "client/wire/codec.h"
#include "tests/support/recording_frame_sink.h"

using namespace ftb::agent;
using namespace std::chrono_literals;

namespace {

// A child that lives until end() (or the test's end).
class Child {
 public:
  Child() {
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    pid_ = ::fork();
    BOOST_REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::close(fds[1]);
      char c;
      (void)::read(fds[0], &c, 1);  // returns at EOF: the parent closed its end
      ::_exit(0);
    }
    ::close(fds[0]);
    release_ = fds[1];
  }
  ~Child() {
    end();
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  void end() {
    if (release_ >= 0) ::close(release_);
    release_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
};

struct Fixture {
  Fixture() {
    config.client_timeout_ms = 1000;
    departures = std::make_unique<Departures>(
        Departures::Parts{*poller, sessions, sink, clock, config, log},
        [this](const std::string& id, std::string_view why) {
          lost.push_back(id + ": " + std::string(why));
          sessions.remove(id);
        });
  }

  ClientSession& open(const std::string& id, std::optional<PidWatch> process) {
    auto s = std::make_unique<ClientSession>(16);
    s->routing_id = id;
    s->publisher_key = "key-" + id;
    s->client_name = "client-" + id;
    s->process = std::move(process);
    ClientSession& opened = sessions.add(std::move(s), Sender{});
    departures->watch(opened);
    return opened;
  }

  // Turns the poller until the session's process is seen to exit.
  void waitForExit(const ClientSession& s) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (!s.process_exited && std::chrono::steady_clock::now() < deadline) poller->wait(100ms);
    BOOST_REQUIRE(s.process_exited);
  }

  // First: it outlives every registration (the sessions' pidfds).
  std::unique_ptr<Poller> poller = Poller::create().value();
  AgentConfig config;
  ftb::ManualClock clock;
  SessionTable sessions{clock};
  ftb::testing::RecordingFrameSink sink;
  RateLimitedLog log;
  std::unique_ptr<Departures> departures;
  std::vector<std::string> lost;
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_client_whose_process_exited_is_lost_once_its_socket_is_reported_gone, Fixture) {
  Child child;
  ClientSession& s = open("r1", PidWatch::open(child.pid()));
  BOOST_REQUIRE(s.process.has_value());
  BOOST_TEST(!departures->probing());
  child.end();
  waitForExit(s);
  BOOST_TEST(departures->probing());

  departures->endTurn(clock.steadyNow());  // probes the socket
  BOOST_REQUIRE(sink.sent["r1"].size() == 1u);
  ftb::proto::Envelope probe;
  BOOST_REQUIRE(ftb::wire::decodeInto(probe, sink.sent["r1"][0].data(), sink.sent["r1"][0].size()).ok());
  BOOST_TEST(probe.has_ok());
  BOOST_TEST(probe.request_id() == 0u);  // answers nothing: the SDK drops it

  departures->socketGone("r1");  // what the sink reports for a gone peer
  departures->settle();          // the same turn: its last frames may be unread
  BOOST_TEST(lost.empty());
  departures->endTurn(clock.steadyNow());
  BOOST_TEST(departures->settling());
  departures->settle();
  BOOST_TEST(lost == std::vector<std::string>{"r1: its process exited"});
  BOOST_TEST(!departures->settling());
}

BOOST_FIXTURE_TEST_CASE(a_goodbye_read_before_the_settling_turn_wins, Fixture) {
  Child child;
  open("r1", PidWatch::open(child.pid()));
  child.end();
  waitForExit(*sessions.find("r1"));
  departures->socketGone("r1");
  departures->endTurn(clock.steadyNow());
  sessions.remove("r1");  // its Goodbye, read in the next turn
  departures->settle();
  BOOST_TEST(lost.empty());
}

BOOST_FIXTURE_TEST_CASE(a_socket_gone_while_its_process_lives_keeps_the_session, Fixture) {
  ClientSession& s = open("r1", PidWatch::open(::getpid()));
  departures->socketGone("r1");
  departures->endTurn(clock.steadyNow());
  departures->settle();
  BOOST_TEST(lost.empty());
  BOOST_TEST(s.socket_gone);  // waits for its Hello again, or the client timeout
  BOOST_TEST(sink.sent.empty());
}

BOOST_FIXTURE_TEST_CASE(a_process_that_exits_after_its_stream_closed_is_lost_at_once, Fixture) {
  Child child;
  ClientSession& s = open("r1", PidWatch::open(child.pid()));
  departures->socketGone("r1");  // the stream's EOF comes before the pidfd
  departures->endTurn(clock.steadyNow());
  departures->settle();
  BOOST_REQUIRE(s.socket_gone);
  BOOST_TEST(lost.empty());
  child.end();
  waitForExit(s);
  BOOST_TEST(departures->settling());
  departures->settle();
  BOOST_TEST(lost == std::vector<std::string>{"r1: its process exited"});
}

BOOST_FIXTURE_TEST_CASE(probes_stop_when_the_socket_outlives_the_process_past_the_client_timeout, Fixture) {
  Child child;
  ClientSession& s = open("r1", PidWatch::open(child.pid()));
  child.end();
  waitForExit(s);
  departures->endTurn(clock.steadyNow() + std::chrono::milliseconds(config.client_timeout_ms) + 1ms);
  BOOST_TEST(sink.sent.empty());
  BOOST_TEST(!s.process.has_value());  // the heartbeat timeout decides now
  BOOST_TEST(!departures->probing());
}

BOOST_FIXTURE_TEST_CASE(a_socket_without_a_session_is_no_departure, Fixture) {
  departures->socketGone("unknown");
  departures->endTurn(clock.steadyNow());
  BOOST_TEST(!departures->settling());
  BOOST_TEST(departures->takeGone().empty());
  open("r1", std::nullopt);
  departures->socketGone("r1");
  BOOST_TEST(departures->takeGone() == std::vector<std::string>{"r1"});  // at shutdown: no will
}
