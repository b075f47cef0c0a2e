// Fuzzes subscription filters (client/filter.h): the text a client subscribes
// with and a peer agent's interest. Input: the filter on the first line; the
// next lines are an event's space, name, job id, host and client name, and a
// byte of severity. Properties (filter.h's contracts): eventSpaceText() parses
// and accepts what matchesEventSpace() accepts; an event that matches() also
// passes matchesEventSpace().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "client/filter.h"

namespace {

// The next '\n'-terminated part of `rest` ("" when none is left).
std::string_view nextLine(std::string_view& rest) {
  const std::size_t nl = rest.find('\n');
  const std::string_view line = rest.substr(0, nl);
  rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string_view text = nextLine(rest);
  ftb::Result<ftb::Filter> filter = ftb::Filter::parse(text);
  if (!filter.ok()) return 0;

  ftb::proto::Event event;
  event.set_event_space(std::string(nextLine(rest)));
  event.set_event_name(std::string(nextLine(rest)));
  event.set_job_id(std::string(nextLine(rest)));
  event.mutable_id()->mutable_origin()->set_host(std::string(nextLine(rest)));
  event.set_client_name(std::string(nextLine(rest)));
  if (!rest.empty()) event.set_severity(static_cast<ftb::proto::Severity>(rest[0] % 6));

  const bool space_ok = filter->matchesEventSpace(event.event_space());
  if (filter->matches(event) && !space_ok) std::abort();
  ftb::Result<ftb::Filter> space_only = ftb::Filter::parse(filter->eventSpaceText());
  if (!space_only.ok() || space_only->matches(event) != space_ok) std::abort();
  return 0;
}
