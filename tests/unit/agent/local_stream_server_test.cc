#define BOOST_TEST_MODULE local_stream_server
#include <boost/test/unit_test.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/loop/poller.h"
#include "agent/transport/local_stream_server.h"
#include "client/transport/stream_frames.h"

using ftb::agent::InboundFrame;
using ftb::agent::LocalStreamServer;
using ftb::agent::Poller;
using ftb::agent::Receive;

namespace {

struct Dir {
  std::string path;
  Dir() {
    char templ[] = "/tmp/ftb-lss-XXXXXX";
    BOOST_REQUIRE(mkdtemp(templ) != nullptr);
    path = templ;
  }
  ~Dir() { std::filesystem::remove_all(path); }
};

int connectTo(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// The loop's poller: one for the whole test program, so it outlives every server.
Poller& poller() {
  static std::unique_ptr<Poller> p = std::move(Poller::create()).value();
  return *p;
}

// One loop turn as the agent's: wait (up to 1 s, none while input is left), then read.
std::vector<InboundFrame> turn(LocalStreamServer& server, std::vector<std::string>& bodies) {
  poller().wait(server.hasInput() ? std::chrono::milliseconds(0) : std::chrono::milliseconds(1000));
  std::vector<InboundFrame> frames;
  InboundFrame frame;
  while (server.tryReceive(frame) == Receive::kFrame) {
    bodies.emplace_back(frame.body);
    frames.push_back(frame);
  }
  return frames;
}

// The routing id the server gives the connection `fd`, learnt from a first frame.
std::string routingIdOf(LocalStreamServer& server, int fd) {
  ftb::wire::StreamFrameWriter writer;
  BOOST_REQUIRE(writer.trySend(fd, "hi"));
  std::vector<std::string> bodies;
  std::vector<InboundFrame> frames;
  for (int i = 0; i < 10 && frames.empty(); ++i) frames = turn(server, bodies);
  BOOST_REQUIRE(frames.size() == 1u);
  return frames[0].routing_id;
}

}  // namespace

BOOST_AUTO_TEST_CASE(frames_arrive_with_the_kernel_credentials_under_a_reserved_routing_id) {
  Dir dir;
  auto server = LocalStreamServer::listen("unix://" + dir.path + "/a.stream", 1024, 16, {}, poller());
  BOOST_REQUIRE(server.ok());
  struct stat st{};
  BOOST_REQUIRE(stat((dir.path + "/a.stream").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0666u);

  const int fd = connectTo(dir.path + "/a.stream");
  BOOST_REQUIRE(fd >= 0);
  ftb::wire::StreamFrameWriter writer;
  BOOST_REQUIRE(writer.trySend(fd, "hello"));
  BOOST_REQUIRE(writer.trySend(fd, "again"));
  std::vector<std::string> bodies;
  std::vector<InboundFrame> frames;
  for (int i = 0; i < 10 && bodies.size() < 2; ++i) {
    auto got = turn(**server, bodies);
    frames.insert(frames.end(), got.begin(), got.end());
  }
  BOOST_REQUIRE(bodies.size() == 2u);
  BOOST_TEST(bodies[0] == "hello");
  BOOST_TEST(bodies[1] == "again");
  BOOST_REQUIRE(frames[0].credentials != nullptr);
  BOOST_TEST(frames[0].credentials->pid == static_cast<uint32_t>(getpid()));
  BOOST_TEST(frames[0].credentials->uid == getuid());
  BOOST_TEST(LocalStreamServer::isRoutingId(frames[0].routing_id));
  BOOST_TEST(!LocalStreamServer::isRoutingId(std::string("\0\x01\x02\x03\x04", 5)));  // a ZeroMQ id

  // The answer goes back on the same connection, framed.
  BOOST_TEST((*server)->trySend(frames[0].routing_id, "welcome"));
  ftb::wire::StreamFrameReader reader(1024);
  std::string answer;
  while (answer.empty() && reader.readFrom(fd) == ftb::wire::StreamFrameReader::Read::kData) {
    if (auto f = reader.next()) answer = *f;
  }
  BOOST_TEST(answer == "welcome");

  // EOF: the connection is reported closed once.
  close(fd);
  std::vector<std::string> closed;
  for (int i = 0; i < 10 && closed.empty(); ++i) {
    turn(**server, bodies);
    closed = (*server)->takeClosed();
  }
  BOOST_REQUIRE(closed.size() == 1u);
  BOOST_TEST(closed[0] == frames[0].routing_id);
  BOOST_TEST((*server)->connections() == 0u);
  BOOST_TEST((*server)->takeClosed().empty());
  // Sending to a connection that is gone counts as sent.
  BOOST_TEST((*server)->trySend(frames[0].routing_id, "late"));
}

BOOST_AUTO_TEST_CASE(a_frame_over_the_limit_closes_only_its_connection_after_the_whole_frames_before_it) {
  Dir dir;
  auto server = LocalStreamServer::listen("unix://" + dir.path + "/a.stream", 64, 16, {}, poller());
  BOOST_REQUIRE(server.ok());
  const int bad = connectTo(dir.path + "/a.stream");
  const int good = connectTo(dir.path + "/a.stream");
  ftb::wire::StreamFrameWriter bad_writer, good_writer;
  BOOST_REQUIRE(bad_writer.trySend(bad, "first"));
  BOOST_REQUIRE(bad_writer.trySend(bad, std::string(65, 'x')));
  BOOST_REQUIRE(good_writer.trySend(good, "fine"));
  std::vector<std::string> bodies, closed;
  for (int i = 0; i < 10 && (closed.empty() || bodies.size() < 2); ++i) {
    turn(**server, bodies);
    for (auto& id : (*server)->takeClosed()) closed.push_back(id);
  }
  BOOST_TEST(closed.size() == 1u);
  BOOST_TEST((*server)->connections() == 1u);
  BOOST_REQUIRE(bodies.size() == 2u);
  BOOST_TEST((bodies[0] == "first" || bodies[1] == "first"));
  BOOST_TEST((bodies[0] == "fine" || bodies[1] == "fine"));
  close(bad);
  close(good);
}

BOOST_AUTO_TEST_CASE(a_stale_socket_file_is_replaced_and_a_live_one_is_not_taken) {
  Dir dir;
  const std::string endpoint = "unix://" + dir.path + "/a.stream";
  {
    auto first = LocalStreamServer::listen(endpoint, 64, 16, {}, poller());
    BOOST_REQUIRE(first.ok());
    auto second = LocalStreamServer::listen(endpoint, 64, 16, {}, poller());
    BOOST_REQUIRE(!second.ok());
    BOOST_TEST(second.status().message().find("another ftb-agent is already serving") != std::string::npos);
  }
  // A file nobody listens on (a bound socket that was never listened, as a dead agent leaves).
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s/a.stream", dir.path.c_str());
  BOOST_REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  close(fd);
  BOOST_REQUIRE(std::filesystem::exists(dir.path + "/a.stream"));
  auto again = LocalStreamServer::listen(endpoint, 64, 16, {}, poller());
  BOOST_TEST(again.ok());
}

BOOST_AUTO_TEST_CASE(endpoints_that_are_not_unix_paths_are_refused_with_the_reason) {
  auto wrong = LocalStreamServer::listen("ipc:///tmp/x", 64, 16, {}, poller());
  BOOST_REQUIRE(!wrong.ok());
  BOOST_TEST(wrong.status().message().find("must start with unix://") != std::string::npos);
  auto long_path = LocalStreamServer::listen("unix:///tmp/" + std::string(200, 'p'), 64, 16, {}, poller());
  BOOST_REQUIRE(!long_path.ok());
  BOOST_TEST(long_path.status().message().find("characters") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_client_that_does_not_read_fills_its_socket_then_its_backlog_then_is_full) {
  Dir dir;
  auto server = LocalStreamServer::listen("unix://" + dir.path + "/a.stream", 1024, 16, {}, poller());
  BOOST_REQUIRE(server.ok());
  const int fd = connectTo(dir.path + "/a.stream");
  const std::string id = routingIdOf(**server, fd);

  const std::string chunk(1000, 'c');
  int sent = 0;
  while ((*server)->trySend(id, chunk + std::to_string(sent))) {
    ++sent;
    BOOST_REQUIRE(sent < 100000);
  }
  BOOST_TEST(sent > 16);  // the kernel took some, the backlog 16 more
  // The client reads everything, in order, nothing lost or doubled.
  ftb::wire::StreamFrameReader reader(4096);
  int received = 0;
  while (received < sent) {
    poller().wait(std::chrono::milliseconds(10));  // writes the backlog as the client makes room
    reader.readFrom(fd);
    while (auto f = reader.next()) {
      BOOST_REQUIRE(std::string(*f) == chunk + std::to_string(received));
      ++received;
    }
  }
  BOOST_TEST(received == sent);
  BOOST_TEST((*server)->trySend(id, "room again"));
  close(fd);
}

BOOST_AUTO_TEST_CASE(a_connection_whose_backlog_is_at_its_bound_has_no_room_until_its_client_reads) {
  Dir dir;
  auto server = LocalStreamServer::listen("unix://" + dir.path + "/a.stream", 1 << 20, 4, {}, poller());
  BOOST_REQUIRE(server.ok());
  const int fd = connectTo(dir.path + "/a.stream");
  const std::string id = routingIdOf(**server, fd);
  BOOST_TEST((*server)->hasRoom(id));
  const std::string chunk(100, 'c');
  int sent = 0;
  while ((*server)->trySend(id, chunk)) BOOST_REQUIRE(++sent < 1000000);
  BOOST_TEST(!(*server)->hasRoom(id));  // the socket is full and the backlog holds 4
  ftb::wire::StreamFrameReader reader(4096);
  int received = 0;
  while (received < sent) {
    poller().wait(std::chrono::milliseconds(10));
    reader.readFrom(fd);
    while (reader.next()) ++received;
  }
  BOOST_TEST((*server)->hasRoom(id));
  BOOST_TEST((*server)->hasRoom("no such connection"));  // gone counts as sent, as trySend does
  close(fd);
}

BOOST_AUTO_TEST_CASE(frames_left_by_a_budget_keep_the_loop_awake_until_they_are_read) {
  Dir dir;
  auto server = LocalStreamServer::listen("unix://" + dir.path + "/a.stream", 64, 16, {}, poller());
  BOOST_REQUIRE(server.ok());
  const int fd = connectTo(dir.path + "/a.stream");
  ftb::wire::StreamFrameWriter writer;
  for (const char* body : {"one", "two", "three"}) BOOST_REQUIRE(writer.trySend(fd, body));
  // Accepted: the new connection is read at once, before any readiness is reported.
  InboundFrame frame;
  for (int i = 0; i < 100 && (*server)->connections() == 0; ++i) poller().wait(std::chrono::milliseconds(100));
  BOOST_REQUIRE((*server)->connections() == 1u);
  // A budget of one frame per turn: what is left is input, though the socket is read dry.
  std::vector<std::string> bodies;
  while (bodies.size() < 3) {
    BOOST_REQUIRE((*server)->hasInput());
    BOOST_REQUIRE((*server)->tryReceive(frame) == ftb::agent::Receive::kFrame);
    bodies.emplace_back(frame.body);
  }
  BOOST_TEST(bodies == (std::vector<std::string>{"one", "two", "three"}), boost::test_tools::per_element());
  BOOST_TEST(((*server)->tryReceive(frame) == ftb::agent::Receive::kEmpty));
  BOOST_TEST(!(*server)->hasInput());
  // Nothing more arrives: a wait times out with nothing ready.
  BOOST_TEST(poller().wait(std::chrono::milliseconds(0)) == 0);
  close(fd);
}

// The finding: a connection that never finishes a frame was never timed out.
// quietSince() names connections by their last whole frame, not their last byte.
BOOST_AUTO_TEST_CASE(a_connection_is_quiet_until_it_sends_a_whole_frame_and_may_then_be_disconnected) {
  Dir dir;
  auto server = LocalStreamServer::listen("unix://" + dir.path + "/a.stream", 1u << 20, 16, {}, poller());
  BOOST_REQUIRE(server.ok());
  const int half = connectTo(dir.path + "/a.stream");
  const int whole = connectTo(dir.path + "/a.stream");
  BOOST_REQUIRE(half >= 0 && whole >= 0);
  std::vector<std::string> bodies;
  for (int i = 0; i < 10 && (*server)->connections() < 2; ++i) turn(**server, bodies);
  BOOST_REQUIRE((*server)->connections() == 2u);

  const auto before = std::chrono::steady_clock::now();  // both were accepted before this
  const char header[] = {0, 0, 1, 0, 'x'};               // 64 KiB announced, 1 byte sent
  BOOST_REQUIRE(write(half, header, sizeof(header)) == static_cast<ssize_t>(sizeof(header)));
  ftb::wire::StreamFrameWriter writer;
  BOOST_REQUIRE(writer.trySend(whole, "hello"));
  for (int i = 0; i < 10 && bodies.empty(); ++i) turn(**server, bodies);
  BOOST_REQUIRE(bodies.size() == 1u);

  const std::vector<std::string> quiet = (*server)->quietSince(before);
  BOOST_REQUIRE(quiet.size() == 1u);  // the half frame does not count; the whole one does
  (*server)->disconnect(quiet[0], "test");
  BOOST_TEST((*server)->takeClosed() == quiet);
  BOOST_TEST((*server)->connections() == 1u);
  char byte;
  BOOST_TEST(read(half, &byte, 1) == 0);  // the client sees the end
  close(half);
  close(whole);
}
