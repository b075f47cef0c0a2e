// Converts the tree protocol's messages (agent/tree/tree_messages.h) to and
// from their wire form (proto/tree.proto).
#pragma once

#include "agent/tree/tree_messages.h"
#include "client/status.h"
#include "proto/tree.pb.h"

namespace ftb::agent {

void toProto(const tree::TreeMessage& message, proto::TreeMessage* out);
// kInvalidArgument when a required part is missing (no sender, no body).
Result<tree::TreeMessage> fromProto(const proto::TreeMessage& message);

void toProto(const tree::NodeRef& node, proto::TreeNodeRef* out);
tree::NodeRef fromProto(const proto::TreeNodeRef& node);

}  // namespace ftb::agent
