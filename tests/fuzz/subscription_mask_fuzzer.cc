// Fuzzes FTB 0.5 subscription strings (client/ftb05/subscription_mask.h), as
// old C programs pass them to FTB_Subscribe. Input: the string on the first
// line; the next lines are an event's space, name, severity, job id, host and
// client name. Property (Mask::agentFilter's contract): the filter the agent
// is given parses, and accepts every valid event the mask accepts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "client/event.h"
#include "client/filter.h"
#include "client/ftb05/subscription_mask.h"
#include "client/names.h"

namespace {

std::string nextLine(std::string_view& rest) {
  const std::size_t nl = rest.find('\n');
  const std::string line(rest.substr(0, nl));
  rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string text = nextLine(rest);  // stops at a NUL, as the C API reads it
  ftb::ftb05::Mask mask;
  if (ftb::ftb05::parseSubscription(text.c_str(), &mask) != FTB_SUCCESS) return 0;
  ftb::Result<ftb::Filter> filter = ftb::Filter::parse(mask.agentFilter());
  if (!filter.ok()) std::abort();  // FTB_Subscribe would fail on a string it accepted

  // An event as the agent holds it (names normalized) and as libftb shows it
  // to the mask (library.cc's toReceived, without a 0.5 meta tag).
  ftb::ftb05::ReceivedEvent received;
  received.event_space = nextLine(rest);
  received.event_name = nextLine(rest);
  received.severity = nextLine(rest);
  received.client_jobid = nextLine(rest);
  received.hostname = nextLine(rest);
  received.client_name = nextLine(rest);
  ftb::Result<std::string> space = ftb::normalizeEventSpace(received.event_space);
  ftb::Result<std::string> name = ftb::normalizeEventName(received.event_name);
  ftb::Result<ftb::Severity> severity = ftb::parseSeverity(received.severity);
  if (!space.ok() || !name.ok() || !severity.ok()) return 0;
  // Within the C API's field sizes, which libftb truncates to.
  if (space->size() >= FTB_MAX_EVENTSPACE || name->size() >= FTB_MAX_EVENT_NAME) return 0;
  received.event_space = *space;
  received.event_name = *name;
  ftb::proto::Event event;
  event.set_event_space(*space);
  event.set_event_name(*name);
  event.set_severity(static_cast<ftb::proto::Severity>(*severity));
  event.set_job_id(received.client_jobid);
  event.mutable_id()->mutable_origin()->set_host(received.hostname);
  event.set_client_name(received.client_name);
  if (mask.matches(received) && !filter->matches(event)) std::abort();
  return 0;
}
