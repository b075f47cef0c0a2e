// Protobuf's wire format, read by hand where decoding whole messages costs more
// than the reading: the Deliver frames a subscriber receives
// (client/wire/deliver_reader.h) and the Publish frames the agent receives
// (client/wire/publish_reader.h). Each reader takes only the plain form of its
// message and declines everything else, which the caller then decodes with
// protobuf; a differential fuzzer per reader checks that both agree.
// Threading: a WireReader reads the caller's bytes on the caller's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "client/wire/wire_format.h"

namespace ftb::wire {

// Reads fields from a byte range. Every read returns false on malformed
// input; the reader then declines the whole frame.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : at_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool done() const { return at_ == end_; }

  bool key(uint32_t& field, uint32_t& type) {
    uint64_t k;
    if (!varint32(k) || k > UINT32_MAX) return false;
    field = static_cast<uint32_t>(k >> 3);
    type = static_cast<uint32_t>(k & 7);
    return field != 0;
  }

  // At most 10 bytes, the last carrying no more than the 64th bit: longer or
  // wider forms are declined rather than read the way protobuf would.
  bool varint(uint64_t& value) {
    if (at_ != end_ && static_cast<uint8_t>(*at_) < 0x80) {  // most keys and small values
      value = static_cast<uint8_t>(*at_++);
      return true;
    }
    value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (at_ == end_) return false;
      const auto byte = static_cast<uint8_t>(*at_++);
      if (shift == 63 && byte > 1) return false;
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return true;
    }
    return false;
  }

  // Keys and lengths: protobuf refuses them in more than 5 bytes (a length
  // also from 2^31), however the bytes would read.
  bool varint32(uint64_t& value) {
    if (at_ != end_ && static_cast<uint8_t>(*at_) < 0x80) {
      value = static_cast<uint8_t>(*at_++);
      return true;
    }
    const char* const limit = end_ - at_ > 5 ? at_ + 5 : end_;
    value = 0;
    for (int shift = 0; at_ < limit; shift += 7) {
      const auto byte = static_cast<uint8_t>(*at_++);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return true;
    }
    return false;
  }

  bool bytes(std::string_view& value) {
    uint64_t size;
    if (!varint32(size) || size > INT32_MAX || size > static_cast<uint64_t>(end_ - at_)) return false;
    value = std::string_view(at_, static_cast<std::size_t>(size));
    at_ += size;
    return true;
  }

  // A `string` field: protobuf checks UTF-8; ASCII needs no check.
  bool ascii(std::string& value) {
    std::string_view view;
    if (!bytes(view) || !isAscii(view)) return false;
    value.assign(view);
    return true;
  }

  // Eight bytes at a time: no byte with its high bit set.
  static bool isAscii(std::string_view text) {
    constexpr uint64_t kHighBits = 0x8080808080808080ull;
    std::size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) {
      uint64_t word;
      std::memcpy(&word, text.data() + i, 8);
      if (word & kHighBits) return false;
    }
    for (; i < text.size(); ++i) {
      if (static_cast<uint8_t>(text[i]) >= 0x80) return false;
    }
    return true;
  }

  template <typename T>
  bool scalar(T& value) {
    uint64_t v;
    if (!varint(v)) return false;
    value = static_cast<T>(v);  // protobuf truncates 32-bit fields the same way
    return true;
  }

 private:
  const char* at_;
  const char* end_;
};

// Calls field(in, number, wire type) for each field of one message's bytes;
// false (declined) at a malformed key or when field() declines. A reader takes
// each message this way; a sub-message read into what an earlier occurrence
// filled merges, as protobuf does.
template <typename Field>
bool readFields(std::string_view bytes, Field&& field) {
  WireReader in(bytes);
  while (!in.done()) {
    uint32_t number, type;
    if (!in.key(number, type) || !field(in, number, type)) return false;
  }
  return true;
}

// One entry of a map<string, string> field: key 1, value 2, each at most
// once in the plain form's sense (a later one wins, as in protobuf).
inline bool readStringPair(std::string_view bytes, std::string& key, std::string& value) {
  return readFields(bytes, [&](WireReader& in, uint32_t field, uint32_t type) {
    if (type != kWireLength) return false;
    if (field == 1) return in.ascii(key);
    if (field == 2) return in.ascii(value);
    return false;
  });
}

}  // namespace ftb::wire
