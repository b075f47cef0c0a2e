// A process watched through a pidfd: readable (poll) once the process has
// exited. How the agent learns within milliseconds that a local client died
// (its IPC peer credentials name the pid): ZeroMQ itself tells a ROUTER
// nothing until it next sends to the dead peer.
// Threading: owned by one thread (the agent's loop).
#pragma once

#include <cstdint>
#include <optional>

namespace ftb::agent {

class PidWatch {
 public:
  // nullopt when the kernel has no pidfd_open (before Linux 5.3) or the pid is
  // gone already / not visible in this pid namespace: the heartbeat timeout
  // then remains the only detection.
  static std::optional<PidWatch> open(uint32_t pid);

  PidWatch(PidWatch&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  PidWatch& operator=(PidWatch&& other) noexcept;
  PidWatch(const PidWatch&) = delete;
  PidWatch& operator=(const PidWatch&) = delete;
  ~PidWatch();

  int fd() const { return fd_; }
  // Whether the process has exited (a non-blocking poll of the pidfd).
  bool exited() const;

 private:
  explicit PidWatch(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace ftb::agent
