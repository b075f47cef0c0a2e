// This process's identity as it appears in event ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "proto/ftb.pb.h"

namespace ftb {

// Host name, pid and process start time (ns since the epoch, from /proc), so ids
// stay unique when a pid is reused.
const proto::Origin& localOrigin();

// When the process whose /proc directory is `proc_dir` ("/proc/self",
// "/proc/4242") started, in the ns since the epoch that origins carry; nullopt
// when /proc does not say. The agent compares a local client's claimed origin
// with it, so both sides compute it here.
std::optional<uint64_t> processStartNs(const std::string& proc_dir);

// A fresh number for each client created in this process.
uint32_t nextClientInstance();

}  // namespace ftb
