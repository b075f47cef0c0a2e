// Conversions between the C++ event model (client/event.h) and the wire form.
#pragma once

#include "client/event.h"
#include "proto/ftb.pb.h"

namespace ftb {

proto::Severity toProto(Severity severity);
Severity fromProto(proto::Severity severity);  // unspecified reads as kInfo
void toProto(const EventId& id, proto::EventId* out);
EventId fromProto(const proto::EventId& id);
void toProto(const Event& event, proto::Event* out);
// The rvalue form takes the strings out of `event` instead of copying them.
Event fromProto(const proto::Event& event);
Event fromProto(proto::Event&& event);

}  // namespace ftb
