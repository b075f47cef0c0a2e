// Protobuf's wire format, written by hand where building messages would cost
// more than the bytes: the agent's Deliver frames (agent/routing/deliver_frame.h) and
// the events a client publishes (client/wire/event_writer.h). Both have tests that
// compare their bytes with protobuf's own.
// Threading: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ftb::wire {

inline constexpr uint8_t kWireVarint = 0, kWireLength = 2;

// A field's key: (number << 3) | wire type.
constexpr uint32_t fieldKey(uint32_t field, uint8_t type) { return (field << 3) | type; }

inline void putVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

inline std::size_t varintSize(uint64_t value) {
  std::size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

// A length-delimited field (string, bytes or an encoded message).
inline void putLengthField(std::string& out, uint32_t field, std::string_view bytes) {
  putVarint(out, fieldKey(field, kWireLength));
  putVarint(out, bytes.size());
  out.append(bytes);
}

inline std::size_t lengthFieldSize(uint32_t field, std::size_t size) {
  return varintSize(fieldKey(field, kWireLength)) + varintSize(size) + size;
}

}  // namespace ftb::wire
