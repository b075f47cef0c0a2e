// Replies: the answer to one request of a client (or of a control peer such
// as ftbctl). A client's replies queue behind its deliveries, in order, and
// are never shed; one that lets them pile up past maxClientFrameBytes gets no
// more kept (the agent ends its session as lost at its next housekeeping turn).
//
//   Replies replies(sessions, sink, config, log);
//   if (!replies.haveRoom(id)) ...  // before building a costly answer
//   replies.send(id, envelope);
//   replies.error(id, proto::Error::INVALID_ARGUMENT, "why", request_id);
//
// Threading: the agent's event loop only.
#pragma once

#include <cstdint>
#include <string>

#include "agent/config/config.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/routing/router.h"
#include "agent/sessions/session_table.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

class Replies {
 public:
  Replies(const SessionTable& sessions, FrameSink& sink, const AgentConfig& config, RateLimitedLog& log)
      : sessions_(sessions), sink_(sink), config_(config), log_(log) {}

  void send(const std::string& routing_id, proto::Envelope& envelope);
  void error(const std::string& routing_id, proto::Error::Code code, std::string message,
             uint64_t request_id, uint64_t event_seq = 0);
  // False when a reply would not be kept (the peer lets its replies pile up).
  bool haveRoom(const std::string& routing_id);

 private:
  const SessionTable& sessions_;
  FrameSink& sink_;
  const AgentConfig& config_;  // max_payload_bytes: the bound on unread replies
  RateLimitedLog& log_;
};

}  // namespace ftb::agent
