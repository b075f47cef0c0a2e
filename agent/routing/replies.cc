#include "agent/routing/replies.h"

#include "client/wire/codec.h"

namespace ftb::agent {

void Replies::send(const std::string& routing_id, proto::Envelope& envelope) {
  std::string frame = wire::encode(envelope);
  ClientSession* session = sessions_.find(routing_id);
  if (session != nullptr && !session->outbound.empty()) {
    // Past the bound the client is lost at the next housekeeping turn; until then its replies are not kept.
    if (session->outbound.queuedReplyBytes() > maxClientFrameBytes(config_)) return;
    session->outbound.push(std::move(frame), 0);
    return;
  }
  if (!sink_.trySend(routing_id, frame)) {
    if (session != nullptr) {
      session->outbound.push(std::move(frame), 0);
    } else {
      log_.warn("reply-full", "could not reply to a peer whose socket is full");
    }
  }
}

void Replies::error(const std::string& routing_id, proto::Error::Code code, std::string message,
                    uint64_t request_id, uint64_t event_seq) {
  proto::Envelope error = wire::makeError(code, std::move(message), request_id);
  error.mutable_error()->set_event_seq(event_seq);
  send(routing_id, error);
}

bool Replies::haveRoom(const std::string& routing_id) {
  const ClientSession* session = sessions_.find(routing_id);
  if (session != nullptr && !session->outbound.empty()) {
    return session->outbound.queuedReplyBytes() <= maxClientFrameBytes(config_);
  }
  return sink_.hasRoom(routing_id);  // a stream client knows; the ROUTER socket finds out on send
}

}  // namespace ftb::agent
