// Turns a --metrics-listen value into a bound, listening TCP socket, or into
// one line that says what is wrong with it.
//
//   auto socket = ftb::metrics::ListeningSocket::open("[::1]:0");
//   if (!socket.ok()) { /* socket.status().message(): names the address and the fault */ }
//   socket->address();   // "[::1]:41234" (port 0 resolved)
//
// The value is "host:port": host an IPv4 address, a name (its first address
// is bound) or an IPv6 address in brackets; port 0..65535, 0 picks a free one.
// Errors: kInvalidArgument for a value that is not such an address (port out
// of range, unresolvable host), kFailedPrecondition when binding fails (port in
// use, address not on this host, privileged port).
#pragma once

#include <string>

#include "client/status.h"

namespace ftb::metrics {

class ListeningSocket {
 public:
  static Result<ListeningSocket> open(const std::string& listen);

  ListeningSocket(ListeningSocket&& other) noexcept;
  ListeningSocket& operator=(ListeningSocket&& other) noexcept;
  ListeningSocket(const ListeningSocket&) = delete;
  ListeningSocket& operator=(const ListeningSocket&) = delete;
  ~ListeningSocket();

  int fd() const { return fd_; }
  // What was bound, "127.0.0.1:9810" or "[::1]:9810".
  const std::string& address() const { return address_; }
  // Hands the descriptor over; the caller closes it.
  int release();

 private:
  ListeningSocket(int fd, std::string address) : fd_(fd), address_(std::move(address)) {}
  int fd_ = -1;
  std::string address_;
};

struct HostPort {
  std::string host;  // without brackets
  std::string port;  // digits, 0..65535
};

// Splits "host:port" / "[v6]:port" and checks the port; kInvalidArgument otherwise.
Result<HostPort> splitHostPort(const std::string& listen);

}  // namespace ftb::metrics
