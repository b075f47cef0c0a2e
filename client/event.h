// The event model as C++ values: what the SDK hands to and takes from callers.
// On the wire an Event is ftb::proto::Event (proto/ftb.proto); event_codec.h converts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "client/status.h"

namespace ftb {

// Ordered: INFO < WARNING < ERROR < FATAL.
enum class Severity { kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// "info" / "INFO" / "warning" ... (case-insensitive).
Result<Severity> parseSeverity(std::string_view text);
std::string_view severityName(Severity severity);  // "INFO", "WARNING", ...

enum class EventType { kNormal = 1, kResponse = 2 };

// Globally unique id of an event: the publishing process, which client within
// it, and that client's sequence number.
struct EventId {
  std::string host;
  uint32_t pid = 0;
  uint64_t process_start_ns = 0;
  uint32_t client_instance = 0;
  uint64_t seq = 0;

  // "host/pid/process_start_ns/client_instance/seq"; parse() reads it back.
  std::string toString() const;
  static Result<EventId> parse(std::string_view text);
  // Identifies the publishing client (everything but seq).
  std::string publisherKey() const;
  bool operator==(const EventId&) const = default;
};

// Who the accepting agent saw publish the event: uid and pid from the kernel
// for a local client (credentials_known); for a TCP client the uid its Curve
// key is mapped to, if the agent maps it (uid_known without credentials_known),
// else nothing (docs/SECURITY.md, "Who a client is").
struct VerifiedSender {
  uint32_t uid = 0;
  uint32_t pid = 0;
  std::string agent;
  bool credentials_known = false;
  bool uid_known = false;
  bool operator==(const VerifiedSender&) const = default;
};

// The key an event's sequence numbers count under, where duplicates are
// dropped (between agents, and in a subscriber): the publisher key when the
// accepting agent verified the sender's process (credentials_known), else that
// key scoped by the accepting agent, since a remote client's origin is only
// claimed: a claim of another's origin never makes its real events look like
// duplicates (docs/SECURITY.md, "Origins").
std::string sequenceKey(std::string publisher_key, bool credentials_known, std::string_view agent);

using Tags = std::map<std::string, std::string>;

struct Event {
  std::string event_space;  // upper case, e.g. "FTB.MPI.OPENMPI"
  std::string event_name;   // upper case
  Severity severity = Severity::kInfo;
  std::string client_name;
  std::string job_id;
  EventId id;
  int64_t time_sec = 0;
  int32_t time_nsec = 0;
  std::string payload;  // bytes
  EventType type = EventType::kNormal;
  std::optional<EventId> response_to;
  Tags tags;
  VerifiedSender sender;
  bool operator==(const Event&) const = default;
};

struct EventDeclaration {
  std::string name;
  Severity severity = Severity::kInfo;
};

}  // namespace ftb
