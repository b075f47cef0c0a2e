// What an event may hold beside its payload, checked alike at every edge: the
// SDK (connect, publish), the C API and ftbctl (both through the SDK), and the
// agent (Hello, Publish), so that a client hears the same precise error
// wherever the check runs. The payload's own bound is the agent's
// max-payload-bytes; names, tags and id fit in kMaxEventExtraBytes, so no
// event the agent accepts is larger than max-payload-bytes + kMaxEventExtraBytes.
#pragma once

#include <cstddef>
#include <string_view>

#include "client/status.h"

namespace ftb {

inline constexpr std::size_t kMaxClientNameLength = 128;
inline constexpr std::size_t kMaxJobIdLength = 128;
inline constexpr std::size_t kMaxTagKeyLength = 64;
inline constexpr std::size_t kMaxTagsBytes = 16 * 1024;  // keys and values of all tags
inline constexpr std::size_t kMaxEventExtraBytes = 32 * 1024;

// OK, or kInvalidArgument naming the field, its length and the limit.
Status checkClientName(std::string_view client_name);
Status checkJobId(std::string_view job_id);
// A client that says its rank: the rank is not negative, and its job id is
// given and holds none of ",;:" (FTB_NODE_LOST lists ranks as job:r,r;job:...).
Status checkRankedJob(int rank, std::string_view job_id);

// An event's tags, checked one by one as they are read (an SDK map or a
// protobuf map alike): each key 1 to kMaxTagKeyLength bytes, all keys and
// values together at most kMaxTagsBytes.
class TagCheck {
 public:
  Status add(std::string_view key, std::string_view value);

 private:
  std::size_t bytes_ = 0;
};

}  // namespace ftb
