#include "client/transport/stream_frames.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstring>

namespace ftb::wire {
namespace {

// The buffer grows as bytes really arrive, never from a length prefix alone:
// an idle connection holds kFirstRoom, and a frame that announces 16 MiB costs
// what was sent of it (at most twice that).
constexpr std::size_t kFirstRoom = 4 * 1024;   // also the least room a read asks for
constexpr std::size_t kMaxGrowth = 1 << 20;    // growth by doubling, at most this much at once

uint32_t loadLength(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

void storeLength(char* p, uint32_t n) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((n >> (8 * i)) & 0xff);
}

}  // namespace

StreamFrameReader::Read StreamFrameReader::readFrom(int fd) {
  if (announced_ > 0) return Read::kTooLarge;  // the stream lost its framing for good
  // Drop what was handed out (frames still unread stay), only when the room
  // at the end is short: a reader that reads ahead does not move its bytes each time.
  if (start_ > 0 && (start_ == end_ || capacity_ - end_ < kFirstRoom)) {
    std::memmove(data_.get(), data_.get() + start_, end_ - start_);
    end_ -= start_;
    checked_ -= start_;
    start_ = 0;
  }
  if (capacity_ - end_ < kFirstRoom) {
    const std::size_t want =
        std::max(end_ + kFirstRoom, capacity_ + std::clamp(capacity_, kFirstRoom, kMaxGrowth));
    auto bigger = std::make_unique<char[]>(want);
    if (end_ > 0) std::memcpy(bigger.get(), data_.get(), end_);
    data_ = std::move(bigger);
    capacity_ = want;
  }
  ssize_t n;
  do {
    n = ::recv(fd, data_.get() + end_, capacity_ - end_, MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Read::kNothing;
    errno_ = errno;
    return Read::kClosed;
  }
  if (n == 0) return Read::kClosed;
  end_ += static_cast<std::size_t>(n);
  // Check each header as it completes, so an oversized frame is refused at once.
  while (checked_ + kStreamFrameHeader <= end_) {
    const uint32_t length = loadLength(data_.get() + checked_);
    if (length > max_frame_) {
      announced_ = length;
      return Read::kTooLarge;
    }
    checked_ += kStreamFrameHeader + length;
  }
  return Read::kData;
}

bool StreamFrameReader::hasFrame() const {
  // Only frames whose header was checked (an oversized one never is).
  if (start_ >= checked_ || end_ - start_ < kStreamFrameHeader) return false;
  return end_ - start_ - kStreamFrameHeader >= loadLength(data_.get() + start_);
}

std::optional<std::string_view> StreamFrameReader::next() {
  if (!hasFrame()) return std::nullopt;
  const uint32_t length = loadLength(data_.get() + start_);
  std::string_view frame(data_.get() + start_ + kStreamFrameHeader, length);
  start_ += kStreamFrameHeader + length;
  return frame;
}

bool StreamFrameWriter::trySend(int fd, std::string_view frame) {
  if (failed_) return true;
  if (pending() && !flush(fd)) return false;
  char header[kStreamFrameHeader];
  storeLength(header, static_cast<uint32_t>(frame.size()));
  iovec parts[2] = {{header, sizeof(header)}, {const_cast<char*>(frame.data()), frame.size()}};
  msghdr message{};
  message.msg_iov = parts;
  message.msg_iovlen = 2;
  ssize_t n;
  do {
    n = ::sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      failed_ = true;
      return true;
    }
    return false;  // nothing taken
  }
  const std::size_t total = sizeof(header) + frame.size();
  if (static_cast<std::size_t>(n) == total) return true;
  // Keep the rest: the frame is taken whole, the stream stays framed.
  pending_.clear();
  start_ = 0;
  if (static_cast<std::size_t>(n) < sizeof(header)) {
    pending_.append(header + n, sizeof(header) - static_cast<std::size_t>(n));
    pending_.append(frame);
  } else {
    pending_.append(frame.substr(static_cast<std::size_t>(n) - sizeof(header)));
  }
  return true;
}

bool StreamFrameWriter::flush(int fd) {
  while (pending() && !failed_) {
    const ssize_t n = ::send(fd, pending_.data() + start_, pending_.size() - start_,
                             MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      failed_ = true;
      break;
    }
    start_ += static_cast<std::size_t>(n);
  }
  if (!pending()) {
    pending_.clear();
    start_ = 0;
  }
  return true;
}

}  // namespace ftb::wire
