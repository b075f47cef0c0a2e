// A client's last will (proto LastWill in its Hello): checked at Hello like a
// publish, kept on the session, and turned into an event when the session
// ends without a Goodbye. Also the agent's FTB_CLIENT_LOST notice.
// Pure functions: no sockets, no clock (time is passed in); unit-tested alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "agent/security/namespace_policy.h"
#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// The will's event id: the client's origin with this bit set in
// client_instance, sequence 1. Its own publisher key means the will never
// collides with the client's sequence (a client that was only silent may come
// back and publish on) and that subscribers and the tree see it at most once.
inline constexpr uint32_t kWillInstanceBit = 0x80000000u;

// The will of `hello`, validated: nullopt when it carries none. Errors name
// the offending field: an event name that is not a valid name, not among the
// Hello's declarations, or declared with another severity; a payload above
// `max_payload_bytes`. The namespace policy is the caller's check (it needs
// the session's principal).
Result<std::optional<proto::Event>> lastWillFromHello(const proto::Hello& hello,
                                                      const std::string& event_space,
                                                      uint64_t max_payload_bytes);

// The will as published: the stored event with its time and the verified
// sender filled in.
proto::Event stampLastWill(proto::Event will, std::chrono::system_clock::time_point now,
                           const std::string& agent_name,
                           const Principal& who);

// What FTB_CLIENT_LOST says about a client that vanished (tags; the payload
// repeats them as key=value words).
struct LostClient {
  std::string event_space;
  std::string client_name;
  std::string job_id;
  Principal who;                        // pid known for local clients; uid also for mapped Curve ones
  uint32_t origin_pid = 0;              // what the client said in its Hello
  std::string node;                     // the agent's name (agents are named after their node)
  std::string why;                      // "socket closed" / "no heartbeat"
  bool will_published = false;
};
std::unordered_map<std::string, std::string> clientLostTags(const LostClient& lost);

}  // namespace ftb::agent
