#include "tests/integration/raw_peer.h"

#include <boost/test/unit_test.hpp>

#include <atomic>

#include "client/transport/unix_endpoint.h"
#include "client/wire/codec.h"

namespace ftb::testing {

RawPeer::RawPeer(const std::string& endpoint, int rcvhwm)
    : socket_(context_, zmq::socket_type::dealer) {
  if (isUnixEndpoint(endpoint)) {
    auto link = AgentLink::create(endpoint, {});
    BOOST_REQUIRE_MESSAGE(link.ok(), link.status().toString());
    stream_ = std::move(link).value();
    BOOST_REQUIRE_MESSAGE(stream_->takeChange() == AgentLink::Change::kConnected,
                          "raw peer: nothing listens at " << endpoint);
    return;
  }
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::rcvhwm, rcvhwm);
  socket_.set(zmq::sockopt::sndtimeo, 5000);
  socket_.connect(endpoint);
}

RawPeer::~RawPeer() {
  if (stream_) stream_->close(std::chrono::milliseconds(0));
  socket_.close();
}

void RawPeer::sendBytes(std::string_view bytes) {
  if (stream_) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!stream_->send(bytes)) {
      BOOST_REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline,
                            "raw peer could not send within 5 s");
      stream_->prepareWait(-1, true);
      stream_->wait(std::chrono::milliseconds(100));
      stream_->afterWait();
    }
    return;
  }
  auto sent = socket_.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
  BOOST_REQUIRE_MESSAGE(sent.has_value(), "raw peer could not send within 5 s");
}

void RawPeer::sendMultipart(const std::vector<std::string>& frames) {
  BOOST_REQUIRE_MESSAGE(!stream_, "multi-part messages are a ZeroMQ notion: the stream socket has none");
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto flags = i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
    auto sent = socket_.send(zmq::buffer(frames[i]), flags);
    BOOST_REQUIRE_MESSAGE(sent.has_value(), "raw peer could not send within 5 s");
  }
}

uint64_t RawPeer::send(proto::Envelope envelope) {
  if (envelope.request_id() == 0) envelope.set_request_id(next_request_++);
  const uint64_t id = envelope.request_id();
  sendBytes(wire::encode(envelope));
  return id;
}

std::optional<std::string> RawPeer::recvBytes(std::chrono::milliseconds timeout) {
  if (!backlog_.empty()) {
    std::string frame = std::move(backlog_.front());
    backlog_.pop_front();
    return frame;
  }
  zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (stream_) {
    if (std::optional<std::string_view> frame = stream_->receive()) return std::string(*frame);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    stream_->prepareWait(-1, false);
    stream_->wait(left);
    stream_->afterWait();
  }
  while (true) {
    zmq::message_t frame;
    if (socket_.recv(frame, zmq::recv_flags::dontwait)) return frame.to_string();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    zmq::poll(&item, 1, left);
  }
}

std::optional<proto::Envelope> RawPeer::recv(std::chrono::milliseconds timeout) {
  std::optional<std::string> frame = recvBytes(timeout);
  if (!frame) return std::nullopt;
  proto::Envelope envelope;
  BOOST_REQUIRE_MESSAGE(envelope.ParseFromString(*frame),
                        "the agent sent " << frame->size() << " bytes that are not an Envelope");
  return envelope;
}

std::optional<proto::Envelope> RawPeer::recvMatching(
    const std::function<bool(const proto::Envelope&)>& match, std::chrono::milliseconds timeout) {
  // Look through the backlog first, then the socket; keep what does not match.
  std::deque<std::string> skipped;
  std::optional<proto::Envelope> found;
  for (auto it = backlog_.begin(); it != backlog_.end(); ++it) {
    proto::Envelope e;
    if (e.ParseFromString(*it) && match(e)) {
      found = std::move(e);
      backlog_.erase(it);
      return found;
    }
  }
  std::deque<std::string> saved = std::move(backlog_);
  backlog_.clear();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!found) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    std::optional<std::string> frame = recvBytes(left);
    if (!frame) break;
    proto::Envelope e;
    BOOST_REQUIRE_MESSAGE(e.ParseFromString(*frame),
                          "the agent sent " << frame->size() << " bytes that are not an Envelope");
    if (match(e)) {
      found = std::move(e);
    } else {
      skipped.push_back(std::move(*frame));
    }
  }
  backlog_ = std::move(saved);
  for (auto& f : skipped) backlog_.push_back(std::move(f));
  return found;
}

std::optional<proto::Envelope> RawPeer::call(proto::Envelope envelope,
                                             std::chrono::milliseconds timeout) {
  const uint64_t id = send(std::move(envelope));
  return recvMatching([id](const proto::Envelope& e) { return e.request_id() == id; }, timeout);
}

proto::StatusReply queryStatus(const std::string& endpoint) {
  RawPeer peer(endpoint);
  proto::Envelope request;
  request.mutable_status_request();
  auto reply = peer.call(request);
  BOOST_REQUIRE_MESSAGE(reply.has_value(), "no StatusReply within 5 s");
  BOOST_REQUIRE_MESSAGE(reply->has_status_reply(), "expected a StatusReply, got " << reply->DebugString());
  return reply->status_reply();
}

proto::ClientsReply queryClients(const std::string& endpoint) {
  RawPeer peer(endpoint);
  proto::Envelope request;
  request.mutable_clients_request();
  auto reply = peer.call(request);
  BOOST_REQUIRE_MESSAGE(reply.has_value(), "no ClientsReply within 5 s");
  BOOST_REQUIRE_MESSAGE(reply->has_clients_reply(), "expected a ClientsReply, got " << reply->DebugString());
  return reply->clients_reply();
}

proto::Envelope makeHello(const RawIdentity& who,
                          const std::vector<std::pair<std::string, proto::Severity>>& declarations) {
  proto::Envelope envelope;
  auto* hello = envelope.mutable_hello();
  hello->set_client_name(who.client_name);
  hello->set_event_space(who.event_space);
  hello->mutable_origin()->set_host(who.host);
  hello->mutable_origin()->set_pid(who.pid);
  hello->mutable_origin()->set_process_start_ns(who.process_start_ns);
  hello->set_client_instance(who.client_instance);
  for (const auto& [name, severity] : declarations) {
    auto* d = hello->add_declarations();
    d->set_name(name);
    d->set_severity(severity);
  }
  return envelope;
}

std::string makeEventBytes(const RawIdentity& who, std::string_view name, proto::Severity severity,
                           uint64_t seq, std::string_view payload) {
  proto::Event event;
  event.set_event_space(who.event_space);
  event.set_event_name(std::string(name));
  event.set_severity(severity);
  event.set_client_name(who.client_name);
  auto* id = event.mutable_id();
  id->mutable_origin()->set_host(who.host);
  id->mutable_origin()->set_pid(who.pid);
  id->mutable_origin()->set_process_start_ns(who.process_start_ns);
  id->set_client_instance(who.client_instance);
  id->set_seq(seq);
  event.set_payload(std::string(payload));
  event.set_type(proto::NORMAL);
  return event.SerializeAsString();
}

const proto::ClientInfo* findClient(const proto::ClientsReply& clients, const std::string& name) {
  for (const auto& c : clients.clients()) {
    if (c.client_name() == name) return &c;
  }
  return nullptr;
}

uint32_t nextRawInstance() {
  // Far above the SDK's instances (numbered from 1), below the last-will bit.
  static std::atomic<uint32_t> next{0x40000000u};
  return next.fetch_add(1);
}

}  // namespace ftb::testing
