// The agent's ZAP handler (ZeroMQ RFC 27): decides which CurveZMQ client keys
// may connect to the agent's TCP endpoint, agents of the tree and remote SDK
// clients alike. Keys not in the authorized set are refused; refusals are
// counted and the last one is kept for ftbctl status and the metrics.
// Other mechanisms (NULL, on the IPC endpoint) are accepted: local clients are
// identified by their uid and governed by the namespace policy.
// Threading: start() and the accessors on any thread; the handler runs on a
// thread of its own and must be started before the agent binds TCP.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/curve_keys.h"
#include "client/status.h"
#include "client/transport/zmq_socket.h"

namespace ftb::agent {

class CurveAuthenticator {
 public:
  // Binds inproc://zeromq.zap.01 in `context` (one handler per context).
  static Result<std::unique_ptr<CurveAuthenticator>> start(ZmqContext& context,
                                                           curve::AuthorizedKeys authorized_keys);
  ~CurveAuthenticator();

  uint64_t refused() const { return refused_.load(); }
  uint64_t accepted() const { return accepted_.load(); }
  std::string lastRefusal() const;  // "key ... from 127.0.0.1 at 2026-..."; "" if none
  // The uid the authorized keys map `key` to (the User-Id of a message ZAP
  // admitted), if they do: a remote client acting as that local user.
  std::optional<uint32_t> uidOf(const std::string& key) const;

 private:
  CurveAuthenticator(ZmqSocket socket, curve::AuthorizedKeys keys);
  void serve();
  void answer(const std::vector<std::string>& request);

  ZmqSocket socket_;
  const curve::AuthorizedKeys keys_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> refused_{0}, accepted_{0};
  mutable std::mutex mutex_;
  std::string last_refusal_;
  std::chrono::steady_clock::time_point last_logged_{};
  std::thread thread_;
};

}  // namespace ftb::agent
