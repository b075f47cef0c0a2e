#include "components/ib/events.h"

#include <string>

namespace ftb::ib {

std::vector<EventDeclaration> eventDeclarations() {
  auto d = [](std::string_view name, Severity s) { return EventDeclaration{std::string(name), s}; };
  return {
      d(kAdapterAvailable, Severity::kInfo),   d(kAdapterUnavailable, Severity::kWarning),
      d(kAdapterInfo, Severity::kInfo),        d(kPortInfo, Severity::kInfo),
      d(kPortErr, Severity::kError),           d(kPortActive, Severity::kInfo),
      d(kDeviceFatal, Severity::kFatal),       d(kLidChange, Severity::kInfo),
      d(kPkeyChange, Severity::kInfo),         d(kSmChange, Severity::kInfo),
      d(kGidChange, Severity::kInfo),          d(kClientReregister, Severity::kInfo),
      d(kPortDegraded, Severity::kWarning),    d(kPortHealthy, Severity::kInfo),
      d(kMonitorTrouble, Severity::kWarning),
  };
}

}  // namespace ftb::ib
