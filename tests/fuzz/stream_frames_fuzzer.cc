// Fuzzes the framing of the agent's stream socket (client/transport/stream_frames.h):
// the bytes a local client can write, delivered through a real socketpair in
// pieces whose sizes the input also chooses. Property: the reader hands out
// exactly the frames a direct walk over the same bytes finds, in order, refuses
// the first frame over its limit and nothing before it, and never reads a byte
// beyond what was written.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "client/transport/stream_frames.h"

namespace {

constexpr std::size_t kLimit = 4096;

uint32_t lengthAt(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t piece = 1 + data[0] % 64;  // bytes written between reads
  data += 1;
  size -= 1;
  if (size > 64 * 1024) return 0;

  // What the stream holds, walked directly.
  std::vector<std::string> expected;
  bool too_large = false;
  for (std::size_t at = 0; at + 4 <= size;) {
    const uint32_t length = lengthAt(data + at);
    if (length > kLimit) {
      too_large = true;
      break;
    }
    if (at + 4 + length > size) break;
    expected.emplace_back(reinterpret_cast<const char*>(data + at + 4), length);
    at += 4 + length;
  }

  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0) abort();
  ftb::wire::StreamFrameReader reader(kLimit);
  std::vector<std::string> got;
  bool refused = false;
  for (std::size_t at = 0; at < size && !refused; at += piece) {
    const std::size_t n = std::min(piece, size - at);
    if (write(fds[0], data + at, n) != static_cast<ssize_t>(n)) abort();
    using Read = ftb::wire::StreamFrameReader::Read;
    const Read r = reader.readFrom(fds[1]);
    if (r == Read::kClosed) abort();  // the writer is still open
    refused = r == Read::kTooLarge;
    while (auto frame = reader.next()) got.emplace_back(*frame);
  }
  close(fds[0]);
  close(fds[1]);
  // Frames before a refused one all come out; a refusal is only ever for a real oversize header.
  if (refused && !too_large) abort();
  if (got.size() > expected.size()) abort();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expected[i]) abort();
  }
  if (!refused && got.size() != expected.size()) abort();
  return 0;
}
