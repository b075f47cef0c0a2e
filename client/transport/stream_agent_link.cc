// The Unix-stream transport of AgentLink (unix://PATH): the agent's own
// socket, read and written by the SDK's I/O thread directly.
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include <deque>

#include "client/clock.h"
#include "client/transport/agent_link.h"
#include "client/transport/stream_frames.h"

namespace ftb::detail {
namespace {

using std::chrono::milliseconds;

// Frames from the agent: a delivery batch is far below this; the bound only
// keeps a broken stream from allocating without end.
constexpr std::size_t kMaxFrameBytes = 256u << 20;
constexpr milliseconds kFirstRetry{100};
constexpr milliseconds kLastRetry{1000};

class StreamAgentLink final : public AgentLink {
 public:
  explicit StreamAgentLink(const sockaddr_un& address) : address_(address), reader_(kMaxFrameBytes) {
    connect();
  }
  ~StreamAgentLink() override { drop(); }

  void reopen() override {
    drop();
    connect();
  }

  void prepareWait(int wake_fd, bool want_out) override {
    polled_ = 1;
    fds_[0] = {wake_fd, POLLIN, 0};
    if (fd_ < 0) return;  // reconnects after the wait
    const bool out = want_out || writer_.pending();
    fds_[polled_++] = {fd_, static_cast<short>(POLLIN | (out ? POLLOUT : 0)), 0};
  }

  bool wait(milliseconds timeout) override {
    if (::poll(fds_, polled_, static_cast<int>(timeout.count())) < 0) return false;  // EINTR
    return (fds_[0].revents & POLLIN) != 0;
  }

  void afterWait() override {
    if (fd_ < 0) {
      if (Clock::real().steadyNow() >= retry_at_) connect();
      return;
    }
    if (polled_ < 2 || fds_[1].fd != fd_) return;  // (re)connected after prepareWait
    const short revents = fds_[1].revents;
    if (revents & (POLLIN | POLLERR | POLLHUP)) readable_ = true;
    if (revents & POLLOUT) writer_.flush(fd_);
  }

  std::optional<std::string_view> receive() override {
    while (fd_ >= 0) {
      if (auto frame = reader_.next()) return frame;
      if (!readable_) return std::nullopt;
      switch (reader_.readFrom(fd_)) {
        case wire::StreamFrameReader::Read::kData: continue;
        case wire::StreamFrameReader::Read::kNothing: readable_ = false; return std::nullopt;
        case wire::StreamFrameReader::Read::kClosed:
        case wire::StreamFrameReader::Read::kTooLarge:
          lost();
          return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // Callers' threads too (sendsFromAnyThread): touches only the write side; a
  // failed write is reported by the read side, which sees the same end.
  bool send(std::string_view frame) override {
    if (fd_ < 0) return false;
    return writer_.trySend(fd_, frame);
  }

  bool sendsFromAnyThread() const override { return true; }

  Change takeChange() override {
    if (changes_.empty()) return Change::kNone;
    const Change next = changes_.front();
    changes_.pop_front();
    return next;
  }

  void close(milliseconds linger) override {
    // Write what waits, for at most `linger`; the agent reads it before our EOF.
    const auto deadline = Clock::real().steadyNow() + linger;
    while (fd_ >= 0 && writer_.pending() && !writer_.failed()) {
      if (writer_.flush(fd_)) break;
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::real().steadyNow());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLOUT, 0};
      (void)::poll(&p, 1, static_cast<int>(left.count()));
    }
    drop();
  }

 private:
  void connect() {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<const sockaddr*>(&address_), sizeof(address_)) == 0) {
      retry_after_ = kFirstRetry;
      readable_ = true;  // anything already waiting is read on the next turn
      changes_.push_back(Change::kConnected);
      return;
    }
    // No agent there (yet): try again later, backing off.
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    retry_at_ = Clock::real().steadyNow() + retry_after_;
    retry_after_ = std::min(retry_after_ * 2, kLastRetry);
  }

  void lost() {
    drop();
    changes_.push_back(Change::kDisconnected);
    retry_at_ = Clock::real().steadyNow() + kFirstRetry;
  }

  void drop() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    readable_ = false;
    reader_ = wire::StreamFrameReader(kMaxFrameBytes);
    writer_ = wire::StreamFrameWriter();
  }

  sockaddr_un address_{};
  int fd_ = -1;
  bool readable_ = false;
  wire::StreamFrameReader reader_;
  wire::StreamFrameWriter writer_;
  pollfd fds_[2]{};  // the owner's wake-up descriptor, the connection
  nfds_t polled_ = 0;
  std::deque<Change> changes_;  // in the order they happened
  std::chrono::steady_clock::time_point retry_at_{};
  milliseconds retry_after_ = kFirstRetry;
};

}  // namespace

std::unique_ptr<AgentLink> makeStreamAgentLink(const sockaddr_un& address) {
  return std::make_unique<StreamAgentLink>(address);
}

}  // namespace ftb::detail
