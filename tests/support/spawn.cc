#include "tests/support/spawn.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace ftb::testing {
namespace {

int bindTo(int type, int port) {
  const int fd = ::socket(AF_INET, type, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

pid_t spawn(std::vector<std::string> args, const std::string& log_path, bool ignore_sigpipe) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (ignore_sigpipe) ::signal(SIGPIPE, SIG_IGN);
    const int null = ::open("/dev/null", O_RDONLY);
    const int out = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(null, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int freePort() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int udp = bindTo(SOCK_DGRAM, 0);
    if (udp < 0) continue;
    sockaddr_in a{};
    socklen_t len = sizeof a;
    ::getsockname(udp, reinterpret_cast<sockaddr*>(&a), &len);
    const int port = ntohs(a.sin_port);
    const int tcp = bindTo(SOCK_STREAM, port);
    ::close(udp);
    if (tcp >= 0) {
      ::close(tcp);
      return port;
    }
  }
  throw std::runtime_error("no free loopback port");
}

}  // namespace ftb::testing
