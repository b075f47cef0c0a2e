// This process's identity as it appears in event ids.
#pragma once

#include <cstdint>

#include "proto/ftb.pb.h"

namespace ftb {

// Host name, pid and process start time (ns since the epoch, from /proc), so ids
// stay unique when a pid is reused.
const proto::Origin& localOrigin();

// A fresh number for each client created in this process.
uint32_t nextClientInstance();

}  // namespace ftb
