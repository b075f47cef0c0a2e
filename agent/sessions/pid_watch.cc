#include "agent/sessions/pid_watch.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ftb::agent {

std::optional<PidWatch> PidWatch::open(uint32_t pid) {
#ifdef SYS_pidfd_open
  if (pid == 0) return std::nullopt;
  const long fd = syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0);
  if (fd < 0) return std::nullopt;
  return PidWatch(static_cast<int>(fd));
#else
  (void)pid;
  return std::nullopt;
#endif
}

PidWatch& PidWatch::operator=(PidWatch&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

PidWatch::~PidWatch() {
  if (fd_ >= 0) close(fd_);
}

bool PidWatch::exited() const {
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

}  // namespace ftb::agent
