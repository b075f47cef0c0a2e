// CurveEndpoint: the agent's CurveZMQ (docs/SECURITY.md). Its TCP endpoint is
// a Curve server whose ZAP handler admits authorized keys only; its tree links
// connect as Curve clients with the agent's key pair, whose public half is the
// server key the agents of a cluster share. IPC and the stream socket stay
// unencrypted: local clients are identified by their uid.
//
//   auto curve = CurveEndpoint::start(config, context);  // null: Curve is off
//   (*curve)->secure(router);  // then bind tcp://
//
// Threading: the agent's loop; the ZAP handler runs on a thread of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "agent/config/config.h"
#include "agent/security/curve_authenticator.h"
#include "agent/transport/tree_link.h"
#include "client/status.h"
#include "client/transport/zmq_socket.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

class CurveEndpoint {
 public:
  // Loads the keys of `config` and starts the ZAP handler in `context`; null
  // when Curve is off (no --curve-key-file). Errors name the file or option.
  static Result<std::unique_ptr<CurveEndpoint>> start(const AgentConfig& config, ZmqContext& context);

  // This agent's key pair and the agents' server key, for its tree links.
  const CurveClientKeys& keys() const { return keys_; }
  // Makes `socket` a Curve server for the endpoints bound after this call
  // (the IPC endpoint, bound before, stays plain).
  Status secure(ZmqSocket& socket) const;
  // The uid the authorized keys map `key` to (a remote client acting as that user).
  std::optional<uint32_t> uidOf(const std::string& key) const { return authenticator_->uidOf(key); }
  // Keys refused so far, and ftbctl status's account of them.
  uint64_t refused() const { return authenticator_->refused(); }
  void addStatus(proto::StatusReply& reply) const;

 private:
  CurveEndpoint(CurveClientKeys keys, std::unique_ptr<CurveAuthenticator> authenticator)
      : keys_(std::move(keys)), authenticator_(std::move(authenticator)) {}

  CurveClientKeys keys_;
  std::unique_ptr<CurveAuthenticator> authenticator_;
};

}  // namespace ftb::agent
