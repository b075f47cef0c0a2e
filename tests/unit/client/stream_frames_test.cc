#define BOOST_TEST_MODULE stream_frames
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "client/transport/stream_frames.h"

using ftb::wire::StreamFrameReader;
using ftb::wire::StreamFrameWriter;
using Read = StreamFrameReader::Read;

namespace {

struct SocketPair {
  int a = -1, b = -1;
  SocketPair() {
    int fds[2];
    BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) == 0);
    a = fds[0];
    b = fds[1];
  }
  ~SocketPair() {
    if (a >= 0) close(a);
    if (b >= 0) close(b);
  }
};

// Reads until `count` frames arrived or the stream reports something else.
std::vector<std::string> readFrames(StreamFrameReader& reader, int fd, std::size_t count) {
  std::vector<std::string> frames;
  while (frames.size() < count) {
    if (reader.readFrom(fd) != Read::kData) break;
    while (auto f = reader.next()) frames.emplace_back(*f);
  }
  return frames;
}

}  // namespace

BOOST_AUTO_TEST_CASE(many_frames_in_one_read_come_out_whole_and_in_order) {
  SocketPair pair;
  StreamFrameWriter writer;
  for (int i = 0; i < 100; ++i) BOOST_REQUIRE(writer.trySend(pair.a, "frame " + std::to_string(i)));
  BOOST_TEST(writer.pending() == false);
  StreamFrameReader reader(1024);
  const auto frames = readFrames(reader, pair.b, 100);
  BOOST_REQUIRE(frames.size() == 100u);
  BOOST_TEST(frames.front() == "frame 0");
  BOOST_TEST(frames.back() == "frame 99");
  BOOST_TEST(!reader.next().has_value());
}

BOOST_AUTO_TEST_CASE(an_empty_frame_is_a_frame) {
  SocketPair pair;
  StreamFrameWriter writer;
  BOOST_REQUIRE(writer.trySend(pair.a, ""));
  StreamFrameReader reader(16);
  const auto frames = readFrames(reader, pair.b, 1);
  BOOST_REQUIRE(frames.size() == 1u);
  BOOST_TEST(frames[0].empty());
}

BOOST_AUTO_TEST_CASE(a_frame_larger_than_the_socket_buffer_goes_out_on_flush) {
  SocketPair pair;
  int small = 4096;
  setsockopt(pair.a, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
  std::string big(2 * 1024 * 1024, 'x');
  for (std::size_t i = 0; i < big.size(); i += 4099) big[i] = static_cast<char>('a' + i % 26);
  StreamFrameWriter writer;
  BOOST_REQUIRE(writer.trySend(pair.a, big));  // taken, in part
  BOOST_TEST(writer.pending());
  // While it is going out, another frame is refused and not taken.
  BOOST_TEST(!writer.trySend(pair.a, "after"));
  StreamFrameReader reader(big.size());
  std::vector<std::string> frames;
  while (frames.empty()) {
    writer.flush(pair.a);
    if (reader.readFrom(pair.b) == Read::kClosed) break;
    while (auto f = reader.next()) frames.emplace_back(*f);
  }
  BOOST_REQUIRE(frames.size() == 1u);
  BOOST_TEST((frames[0] == big));
  BOOST_TEST(writer.flush(pair.a));
  BOOST_REQUIRE(writer.trySend(pair.a, "after"));
  const auto rest = readFrames(reader, pair.b, 1);
  BOOST_REQUIRE(rest.size() == 1u);
  BOOST_TEST(rest[0] == "after");
}

BOOST_AUTO_TEST_CASE(a_full_socket_takes_nothing) {
  SocketPair pair;
  StreamFrameWriter writer;
  const std::string chunk(1000, 'y');
  int sent = 0;
  while (writer.trySend(pair.a, chunk) && !writer.pending()) ++sent;
  // Either the last frame went in part (pending) or none of it fit (false).
  if (writer.pending()) {
    BOOST_TEST(!writer.trySend(pair.a, chunk));
  }
  BOOST_TEST(sent > 0);
}

BOOST_AUTO_TEST_CASE(a_frame_split_across_reads_is_held_until_whole) {
  SocketPair pair;
  const char bytes[] = {5, 0, 0, 0, 'h', 'e'};
  BOOST_REQUIRE(write(pair.a, bytes, sizeof(bytes)) == static_cast<ssize_t>(sizeof(bytes)));
  StreamFrameReader reader(64);
  BOOST_TEST((reader.readFrom(pair.b) == Read::kData));
  BOOST_TEST(!reader.next().has_value());
  BOOST_TEST((reader.readFrom(pair.b) == Read::kNothing));
  BOOST_REQUIRE(write(pair.a, "llo", 3) == 3);
  BOOST_TEST((reader.readFrom(pair.b) == Read::kData));
  auto frame = reader.next();
  BOOST_REQUIRE(frame.has_value());
  BOOST_TEST(std::string(*frame) == "hello");
}

BOOST_AUTO_TEST_CASE(a_closed_peer_reads_as_closed) {
  SocketPair pair;
  close(pair.a);
  pair.a = -1;
  StreamFrameReader reader(64);
  BOOST_TEST((reader.readFrom(pair.b) == Read::kClosed));
  StreamFrameWriter writer;
  BOOST_TEST(writer.trySend(pair.b, "x"));  // to a closed peer: counts as sent
  BOOST_TEST(writer.failed());
}

BOOST_AUTO_TEST_CASE(a_frame_over_the_limit_is_refused_at_its_header_after_the_frames_before_it) {
  SocketPair pair;
  StreamFrameWriter writer;
  BOOST_REQUIRE(writer.trySend(pair.a, "first"));
  BOOST_REQUIRE(writer.trySend(pair.a, std::string(100, 'x')));
  StreamFrameReader reader(64);
  BOOST_TEST((reader.readFrom(pair.b) == Read::kTooLarge));
  BOOST_TEST(reader.announced() == 100u);
  auto first = reader.next();
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(std::string(*first) == "first");
  BOOST_TEST(!reader.next().has_value());  // the oversized frame is whole in the buffer, yet refused
  BOOST_TEST((reader.readFrom(pair.b) == Read::kTooLarge));
  BOOST_TEST(!reader.next().has_value());
}

// The finding: a 4-byte header announcing 16 MiB made the agent allocate (and
// keep) 16 MiB per connection, and every connection cost 256 KiB at once.
BOOST_AUTO_TEST_CASE(memory_follows_the_bytes_that_arrived_not_the_length_announced) {
  SocketPair pair;
  StreamFrameReader reader(32u << 20);
  const char header[] = {0, 0, 0, 1, 'x', 'y'};  // announces 16 MiB, sends 2 bytes of it
  BOOST_REQUIRE(write(pair.a, header, sizeof(header)) == static_cast<ssize_t>(sizeof(header)));
  BOOST_TEST((reader.readFrom(pair.b) == Read::kData));
  BOOST_TEST((reader.readFrom(pair.b) == Read::kNothing));
  BOOST_TEST(!reader.next().has_value());
  BOOST_TEST(reader.capacity() <= 8u * 1024, reader.capacity() << " bytes held");

  // A large frame, sent whole, still comes out whole; the buffer grew with it.
  StreamFrameWriter writer;
  StreamFrameReader big(32u << 20);
  const std::string frame(3u << 20, 'f');
  SocketPair pipe;
  bool sent = writer.trySend(pipe.a, frame);
  std::vector<std::string> got;
  while (got.empty()) {
    if (!sent) sent = writer.trySend(pipe.a, frame);
    else writer.flush(pipe.a);
    if (big.readFrom(pipe.b) == Read::kClosed) break;
    while (auto f = big.next()) got.emplace_back(*f);
  }
  BOOST_REQUIRE(got.size() == 1u);
  BOOST_TEST((got[0] == frame));
  BOOST_TEST(big.capacity() <= 2 * (frame.size() + 4 * 1024), big.capacity() << " bytes held");
}
