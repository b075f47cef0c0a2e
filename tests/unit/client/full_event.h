// An event with every field set, strings in ASCII and a payload of any bytes:
// the reference the hand-written wire readers are checked against.
#pragma once

#include <string>

#include "client/event.h"

namespace ftb::testing {

inline ftb::Event fullEvent() {
  ftb::Event e;
  e.event_space = "FTB.BENCH.SOURCE";
  e.event_name = "TICK";
  e.severity = ftb::Severity::kError;
  e.client_name = "bench-publisher";
  e.job_id = "job-7";
  e.id = {"node17", 4242, 1700000000000000000ull, 1, 7};
  e.time_sec = 1700000001;
  e.time_nsec = 5;
  e.payload = std::string("\0\x80\xff payload bytes", 18);  // bytes: any value
  e.type = ftb::EventType::kResponse;
  e.response_to = ftb::EventId{"node3", 7, 1600000000000000000ull, 2, 19};
  e.tags = {{"a", "1"}, {"rack", "r12"}};
  e.sender = {1000, 4242, "agent-node17", true};
  return e;
}

}  // namespace ftb::testing
