// Asks many agents at once for their place in the tree (TreeQuery -> TreeInfo).
// ftb::ControlClient asks one agent at a time; `ftbctl tree` asks a whole level
// of the tree in parallel, so that agents that do not answer cost one
// --timeout-ms per level rather than one each.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "client/control_client.h"
#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::cli {

// One request per endpoint (ipc://PATH or tcp://HOST:PORT), all sent before
// waiting; answers[i] belongs to endpoints[i]. An agent that has not answered
// by `timeout` gets kDeadlineExceeded; an Error reply becomes its Status.
// tcp:// endpoints use `curve` when it is enabled (agents with --curve-key-file).
std::vector<Result<proto::TreeInfo>> queryTreeInfo(const std::vector<std::string>& endpoints,
                                                   std::chrono::milliseconds timeout,
                                                   const CurveClientKeys& curve = {});

}  // namespace ftb::cli
