// Envelope framing shared by the SDK, the agent and ftbctl: one ZeroMQ frame
// carries one serialized proto::Envelope stamped with kProtocolVersion.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::wire {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr std::string_view kVersion = "0.1.0";  // ftb release

// Stamps the protocol version and serializes.
std::string encode(proto::Envelope& envelope);

// Parses bytes from a peer into `message` without libprotobuf's own log line
// (it logs one ERROR per string field with invalid UTF-8, bypassing our
// rate-limited logs, so a peer could flood the journal). false: the bytes do
// not parse; the caller reports that its way.
bool parseFromPeer(google::protobuf::MessageLite& message, const void* data, std::size_t size);
bool parseFromPeer(google::protobuf::MessageLite& message, const std::string& bytes);
// parseFromPeer for an Event parsed again and again into one object (the
// agent's accept path): protobuf's Clear() frees the id and its origin, which
// every event carries, so they are kept, emptied, for the next parse. They then
// read as present even for bytes that lack them (with every field zero).
// Plain events are read by hand (client/wire/publish_reader.h), the rest by protobuf.
bool parseEventFromPeer(proto::Event& event, std::string_view bytes);

// protobuf's deterministic serialization (map entries sorted by key): the
// bytes the hand-written writers must produce, and the way tests compare
// messages' content.
std::string serializeDeterministic(const google::protobuf::MessageLite& message);

// kInvalidArgument for bytes that are not an Envelope or carry no body;
// kFailedPrecondition (naming both versions) for another protocol version.
Result<proto::Envelope> decode(const void* data, std::size_t size);
// decode() into a message the caller owns (e.g. on an arena); `envelope` is
// unspecified when it fails.
Status decodeInto(proto::Envelope& envelope, const void* data, std::size_t size);

proto::Envelope makeError(proto::Error::Code code, std::string message, uint64_t request_id);

// Maps between the wire error codes and Status codes.
Code codeFromWire(proto::Error::Code code);
proto::Error::Code codeToWire(Code code);
Status statusFromError(const proto::Error& error);

}  // namespace ftb::wire
