#include "tests/support/notify_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace ftb::testing {

NotifySocket::NotifySocket() : path_(dir_.path() + "/notify") {
  fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("notify socket: " + std::string(strerror(errno)));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path_.c_str(), sizeof(addr.sun_path) - 1);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    throw std::runtime_error("bind " + path_ + ": " + strerror(errno));
  }
}

NotifySocket::~NotifySocket() {
  if (fd_ >= 0) close(fd_);
}

std::optional<std::string> NotifySocket::receive(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
  char buf[4096];
  const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<std::string> NotifySocket::receiveLine(const std::string& assignment,
                                                     std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto datagram = receive(left);
    if (!datagram) return std::nullopt;
    if (hasLine(*datagram, assignment)) return datagram;
  }
}

pid_t spawnNotified(const std::vector<std::string>& argv, const NotifySocket& notify,
                    std::chrono::microseconds watchdog) {
  std::vector<std::string> args = argv;  // copied before fork: the child only execs
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setenv("NOTIFY_SOCKET", notify.path().c_str(), 1);
    if (watchdog.count() > 0) {
      setenv("WATCHDOG_USEC", std::to_string(watchdog.count()).c_str(), 1);
      setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
    }
    std::vector<char*> raw;
    for (auto& a : args) raw.push_back(a.data());
    raw.push_back(nullptr);
    execv(raw[0], raw.data());
    _exit(127);
  }
  return pid;
}

bool hasLine(const std::string& datagram, const std::string& assignment) {
  std::istringstream in(datagram);
  for (std::string line; std::getline(in, line);) {
    if (line == assignment) return true;
  }
  return false;
}

}  // namespace ftb::testing
