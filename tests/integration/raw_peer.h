// Test support for integration tests: a raw peer (a ZeroMQ DEALER, or for a
// unix:// endpoint a connection to the agent's own stream socket) that speaks (or
// deliberately mis-speaks) the ftb wire protocol to a real agent, plus helpers
// for the control API (StatusRequest, ClientsRequest) and for building Hello
// messages and events by hand.
//
//   ftb::testing::RawPeer peer(agent.ipcEndpoint());
//   peer.sendBytes("\x07garbage");
//   auto error = peer.recvMatching([](const auto& e) { return e.has_error(); }, 5s);
//
// Threading: one RawPeer per thread; nothing here is shared.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zmq.hpp>

#include "client/origin.h"
#include "client/transport/agent_link.h"
#include "proto/ftb.pb.h"

namespace ftb::testing {

class RawPeer {
 public:
  // Connects a DEALER to `endpoint` (unix://: the stream socket, fails the test
  // unless an agent listens). `rcvhwm` bounds what ZeroMQ buffers for us (1 = a
  // peer that reads nothing leaves everything in the agent); unused for unix://.
  explicit RawPeer(const std::string& endpoint, int rcvhwm = 1000);
  ~RawPeer();

  // Sends exactly these bytes as one frame.
  void sendBytes(std::string_view bytes);
  // Sends these frames as one multi-part message.
  void sendMultipart(const std::vector<std::string>& frames);
  // Gives the envelope a fresh request id unless it has one, stamps the current
  // protocol version, sends it; returns the request id.
  uint64_t send(proto::Envelope envelope);

  // Next frame from the agent (or from the backlog of frames call() skipped).
  std::optional<std::string> recvBytes(std::chrono::milliseconds timeout);
  // Next envelope, parsed without any version check; nullopt on timeout. A
  // frame that does not parse fails the test.
  std::optional<proto::Envelope> recv(std::chrono::milliseconds timeout);
  // Receives until `match` holds, keeping what it skipped for later recv()s.
  std::optional<proto::Envelope> recvMatching(
      const std::function<bool(const proto::Envelope&)>& match, std::chrono::milliseconds timeout);
  // send() and wait for the envelope that echoes its request id.
  std::optional<proto::Envelope> call(proto::Envelope envelope,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(5));

  zmq::socket_t& socket() { return socket_; }  // ZeroMQ endpoints only
  bool overStream() const { return stream_ != nullptr; }

 private:
  zmq::context_t context_{1};
  zmq::socket_t socket_;
  std::unique_ptr<AgentLink> stream_;  // set for unix:// endpoints
  std::deque<std::string> backlog_;
  uint64_t next_request_ = 1000;
};

// Control API over a fresh raw peer; an empty reply on timeout fails the test.
proto::StatusReply queryStatus(const std::string& endpoint);
proto::ClientsReply queryClients(const std::string& endpoint);

// The client called `name` in a ClientsReply, or nullptr.
const proto::ClientInfo* findClient(const proto::ClientsReply& clients, const std::string& name);

// A Hello as the SDK would send it. The origin is this process's (a local
// client's must be: agent/security/origin_check.h), under an instance of its own that no
// SDK client of this process uses.
uint32_t nextRawInstance();
struct RawIdentity {
  std::string client_name = "raw";
  std::string event_space = "FTB.RAW.TEST";
  std::string host = localOrigin().host();
  uint32_t pid = localOrigin().pid();
  uint64_t process_start_ns = localOrigin().process_start_ns();
  uint32_t client_instance = nextRawInstance();
};
proto::Envelope makeHello(const RawIdentity& who,
                          const std::vector<std::pair<std::string, proto::Severity>>& declarations);
// A serialized proto::Event from `who` with sequence number `seq`.
std::string makeEventBytes(const RawIdentity& who, std::string_view name, proto::Severity severity,
                           uint64_t seq, std::string_view payload = {});

}  // namespace ftb::testing
