#include "client/wire/codec.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include "client/wire/publish_reader.h"

namespace ftb::wire {

bool parseFromPeer(google::protobuf::MessageLite& message, const void* data, std::size_t size) {
  if (size > static_cast<std::size_t>(INT32_MAX)) return false;
  // Silences every thread's protobuf logging below FATAL while it lives: for
  // the length of one parse that costs nothing of value.
  google::protobuf::LogSilencer quiet;
  return message.ParseFromArray(data, static_cast<int>(size));
}

bool parseFromPeer(google::protobuf::MessageLite& message, const std::string& bytes) {
  return parseFromPeer(message, bytes.data(), bytes.size());
}

namespace {

// Clear(), except that the id and its origin stay allocated (see codec.h).
void clearKeepingId(proto::Event& event) {
  proto::EventId* id = event.has_id() ? event.release_id() : nullptr;
  proto::Origin* origin = id != nullptr && id->has_origin() ? id->release_origin() : nullptr;
  event.Clear();
  if (id != nullptr) {
    id->Clear();
    if (origin != nullptr) {
      origin->Clear();  // keeps the host string's storage
      id->set_allocated_origin(origin);
    }
    event.set_allocated_id(id);
  }
}

}  // namespace

bool parseEventFromPeer(proto::Event& event, std::string_view bytes) {
  clearKeepingId(event);
  if (readPlainEvent(bytes, event)) return true;
  clearKeepingId(event);
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX)) return false;
  google::protobuf::LogSilencer quiet;  // as in parseFromPeer
  return event.MergeFromString(std::string(bytes));  // declined by the reader: rare
}

std::string serializeDeterministic(const google::protobuf::MessageLite& message) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

std::string encode(proto::Envelope& envelope) {
  envelope.set_protocol_version(kProtocolVersion);
  return envelope.SerializeAsString();
}

Status decodeInto(proto::Envelope& envelope, const void* data, std::size_t size) {
  if (size == 0) return invalidArgument("malformed frame: the frame is empty");
  if (!parseFromPeer(envelope, data, size)) {
    return invalidArgument("malformed frame: " + std::to_string(size) +
                           " bytes that do not parse as an ftb Envelope");
  }
  if (envelope.protocol_version() == 0) {
    return invalidArgument("malformed frame: no protocol version (is the peer an ftb client?)");
  }
  if (envelope.protocol_version() != kProtocolVersion) {
    return failedPrecondition("protocol version " + std::to_string(envelope.protocol_version()) +
                              " is not supported; this peer speaks version " +
                              std::to_string(kProtocolVersion));
  }
  if (envelope.body_case() == proto::Envelope::BODY_NOT_SET) {
    return invalidArgument("envelope carries no message, or a message type this peer does not know");
  }
  return {};
}

Result<proto::Envelope> decode(const void* data, std::size_t size) {
  proto::Envelope envelope;
  if (Status s = decodeInto(envelope, data, size); !s.ok()) return s;
  return envelope;
}

proto::Envelope makeError(proto::Error::Code code, std::string message, uint64_t request_id) {
  proto::Envelope envelope;
  envelope.set_request_id(request_id);
  auto* error = envelope.mutable_error();
  error->set_code(code);
  error->set_message(std::move(message));
  return envelope;
}

Code codeFromWire(proto::Error::Code code) {
  switch (code) {
    case proto::Error::INVALID_ARGUMENT: return Code::kInvalidArgument;
    case proto::Error::NOT_FOUND: return Code::kNotFound;
    case proto::Error::ALREADY_EXISTS: return Code::kAlreadyExists;
    case proto::Error::PERMISSION_DENIED: return Code::kPermissionDenied;
    case proto::Error::RESOURCE_EXHAUSTED: return Code::kResourceExhausted;
    case proto::Error::FAILED_PRECONDITION: return Code::kFailedPrecondition;
    case proto::Error::UNAUTHENTICATED: return Code::kUnauthenticated;
    case proto::Error::UNAVAILABLE: return Code::kUnavailable;
    default: return Code::kInternal;
  }
}

proto::Error::Code codeToWire(Code code) {
  switch (code) {
    case Code::kInvalidArgument: return proto::Error::INVALID_ARGUMENT;
    case Code::kNotFound: return proto::Error::NOT_FOUND;
    case Code::kAlreadyExists: return proto::Error::ALREADY_EXISTS;
    case Code::kPermissionDenied: return proto::Error::PERMISSION_DENIED;
    case Code::kResourceExhausted: return proto::Error::RESOURCE_EXHAUSTED;
    case Code::kFailedPrecondition: return proto::Error::FAILED_PRECONDITION;
    case Code::kUnauthenticated: return proto::Error::UNAUTHENTICATED;
    case Code::kUnavailable: return proto::Error::UNAVAILABLE;
    default: return proto::Error::UNKNOWN;
  }
}

Status statusFromError(const proto::Error& error) {
  return {codeFromWire(error.code()), error.message()};
}

}  // namespace ftb::wire
