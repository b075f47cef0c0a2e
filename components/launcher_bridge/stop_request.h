// `ftb-run --stop JOB`: asks the ftb-run that manages JOB to stop it for a
// later `ftb-run --resume` (FTB_STOP_REQUEST), and waits for its answer:
// FTB_JOB_STATE state=stopped (exit 0) or FTB_STOP_FAILED (exit 1).
#pragma once

#include <chrono>
#include <string>

namespace ftb::launcher {

// Prints what happened on stdout (or why not on stderr); returns the exit code:
// 0 stopped, 1 refused or failed, 3 no answer within `timeout`, 4 no agent.
int requestStop(const std::string& job_id, const std::string& agent, std::chrono::milliseconds timeout);

}  // namespace ftb::launcher
