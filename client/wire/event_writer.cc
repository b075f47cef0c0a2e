#include "client/wire/event_writer.h"

#include "client/wire/wire_format.h"

namespace ftb {
namespace {

using wire::fieldKey;
using wire::kWireLength;
using wire::kWireVarint;
using wire::lengthFieldSize;
using wire::putLengthField;
using wire::putVarint;
using wire::varintSize;

// proto3 leaves out every field that holds its default.
void putString(std::string& out, uint32_t field, std::string_view value) {
  if (!value.empty()) putLengthField(out, field, value);
}
std::size_t stringSize(uint32_t field, std::string_view value) {
  return value.empty() ? 0 : lengthFieldSize(field, value.size());
}
void putNumber(std::string& out, uint32_t field, uint64_t value) {
  if (value == 0) return;
  putVarint(out, fieldKey(field, kWireVarint));
  putVarint(out, value);
}
std::size_t numberSize(uint32_t field, uint64_t value) {
  return value == 0 ? 0 : varintSize(fieldKey(field, kWireVarint)) + varintSize(value);
}
// Signed fields are sign-extended to 64 bits (a negative int32 takes 10 bytes).
uint64_t signExtended(int64_t value) { return static_cast<uint64_t>(value); }

// Origin and EventId: sizes first, as a length-delimited field needs.
struct OriginFields {
  std::string_view host;
  uint32_t pid;
  uint64_t process_start_ns;
  std::size_t size() const {
    return stringSize(1, host) + numberSize(2, pid) + numberSize(3, process_start_ns);
  }
  void put(std::string& out) const {
    putString(out, 1, host);
    putNumber(out, 2, pid);
    putNumber(out, 3, process_start_ns);
  }
};

struct IdFields {
  const OriginFields* origin;  // null: absent
  uint32_t client_instance;
  uint64_t seq;
  std::size_t size() const {
    return (origin ? lengthFieldSize(1, origin->size()) : 0) + numberSize(2, client_instance) +
           numberSize(3, seq);
  }
  void put(std::string& out, uint32_t field) const {
    putVarint(out, fieldKey(field, kWireLength));
    putVarint(out, size());
    if (origin) {
      putVarint(out, fieldKey(1, kWireLength));
      putVarint(out, origin->size());
      origin->put(out);
    }
    putNumber(out, 2, client_instance);
    putNumber(out, 3, seq);
  }
};

std::size_t tagSize(const std::string& key, const std::string& value) {
  return lengthFieldSize(1, key.size()) + lengthFieldSize(2, value.size());
}

}  // namespace

std::string writeEvent(const OutgoingEvent& e) {
  const OriginFields origin =
      e.origin ? OriginFields{e.origin->host(), e.origin->pid(), e.origin->process_start_ns()}
               : OriginFields{};
  const IdFields id{e.origin ? &origin : nullptr, e.client_instance, e.seq};
  OriginFields answered_origin{};
  IdFields answered{};
  if (e.response_to) {
    answered_origin = {e.response_to->host, e.response_to->pid, e.response_to->process_start_ns};
    answered = {&answered_origin, e.response_to->client_instance, e.response_to->seq};
  }
  std::string out;
  // Room for the strings and the fixed fields; tags grow it if they must.
  out.reserve(e.event_space.size() + e.event_name.size() + e.client_name.size() + e.job_id.size() +
              origin.host.size() + e.payload.size() + 96);
  putString(out, 1, e.event_space);
  putString(out, 2, e.event_name);
  putNumber(out, 3, signExtended(e.severity));
  putString(out, 4, e.client_name);
  putString(out, 5, e.job_id);
  id.put(out, 6);
  putNumber(out, 7, signExtended(e.time_sec));
  putNumber(out, 8, signExtended(e.time_nsec));
  putString(out, 9, e.payload);
  putNumber(out, 10, signExtended(e.type));
  if (e.response_to) answered.put(out, 11);
  if (e.tags) {
    // A map entry always holds its key and value, even empty ones (as protobuf writes them).
    for (const auto& [key, value] : *e.tags) {
      putVarint(out, fieldKey(12, kWireLength));
      putVarint(out, tagSize(key, value));
      putLengthField(out, 1, key);
      putLengthField(out, 2, value);
    }
  }
  return out;
}

}  // namespace ftb
