// ControlClient: the agent's control API (status, clients, history), as used by
// ftbctl and by scripts or monitors that want to inspect an ftb-agent.
// Unlike ftb::Client it needs no Hello and holds no session: each call sends one
// request on a DEALER socket and waits for the reply that echoes its request_id.
//
//   auto control = ftb::ControlClient::connect();  // defaultAgentEndpoint()
//   if (!control) { log(control.status().toString()); return; }
//   auto status = control->status(std::chrono::milliseconds(2000));
//   if (status) std::cout << status->counters().events_in();
//
// Errors:
//   kUnavailable        nothing listens at the endpoint (connection refused, no such
//                       socket, the handshake failed), or no answer and no connection
//                       by the deadline
//   kDeadlineExceeded   connected, but the agent did not answer by the deadline
//   kInvalidArgument    the endpoint is malformed (connect) or the agent rejected the
//                       request (an invalid history filter, naming the key or value)
//   kPermissionDenied   the agent's Curve authenticator refused this client's key
//   kFailedPrecondition the agent speaks another protocol version
//   kInternal           ZeroMQ failed in an unexpected way
// Messages say what to do next (start the agent, pass --agent / FTB_AGENT_ENDPOINT).
//
// Threading: one thread at a time per ControlClient (it owns a ZeroMQ socket);
// calls block for at most their timeout. Never throws; never aborts.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "client/status.h"
#include "client/transport/agent_link.h"  // CurveClientKeys
#include "proto/ftb.pb.h"

namespace ftb {

// Where a history query starts and ends, by the events' publish time in
// nanoseconds since the Unix epoch; 0 leaves that side open.
struct HistoryBounds {
  int64_t since_unix_ns = 0;
  int64_t until_unix_ns = 0;
};

class ControlClient {
 public:
  // Prepares a connection to `endpoint` ("" = defaultAgentEndpoint(), see client.h).
  // Does not wait for the agent: the first call finds out whether one answers.
  // kInvalidArgument when the endpoint is not ipc://PATH, unix://PATH or tcp://HOST:PORT.
  static Result<ControlClient> connect(std::string endpoint = {});
  // The same over CurveZMQ when `curve` is enabled and the endpoint is tcp://;
  // kInvalidArgument when its keys are not 40-character Z85 text.
  static Result<ControlClient> connect(std::string endpoint, const CurveClientKeys& curve);
  // The check connect() makes: kInvalidArgument naming the endpoint unless it
  // reads ipc://PATH, unix://PATH (the agent's own stream socket) or tcp://HOST:PORT.
  static Status checkEndpoint(std::string_view endpoint);

  ControlClient(ControlClient&&) noexcept;
  ControlClient& operator=(ControlClient&&) noexcept;
  ~ControlClient();

  const std::string& endpoint() const;

  Result<proto::StatusReply> status(std::chrono::milliseconds timeout);
  Result<proto::ClientsReply> clients(std::chrono::milliseconds timeout);
  // This agent's place in the tree (state "off" without a cluster key).
  Result<proto::TreeInfo> tree(std::chrono::milliseconds timeout);
  // The newest `last_n` retained events matching `filter` (docs/FILTERS.md),
  // oldest first; last_n == 0 asks for every retained match.
  Result<proto::HistoryReply> history(std::string_view filter, uint32_t last_n,
                                      std::chrono::milliseconds timeout);
  // The same within `bounds` (published at or after since, at or before until);
  // last_n counts among the events within them.
  Result<proto::HistoryReply> history(std::string_view filter, uint32_t last_n,
                                      const HistoryBounds& bounds,
                                      std::chrono::milliseconds timeout);

  struct Impl;  // defined in control_client.cc

 private:
  explicit ControlClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ftb
