#include "client/event_limits.h"

#include <string>

namespace ftb {
namespace {

std::string tooLong(std::string_view what, std::string_view value, std::size_t limit) {
  return std::string(what) + " '" + cutForMessage(value) + "' is " + std::to_string(value.size()) +
         " bytes; the limit is " + std::to_string(limit);
}

}  // namespace

Status checkClientName(std::string_view client_name) {
  if (client_name.empty()) return invalidArgument("client_name is empty");
  if (client_name.size() > kMaxClientNameLength) {
    return invalidArgument(tooLong("client_name", client_name, kMaxClientNameLength));
  }
  return {};
}

Status checkJobId(std::string_view job_id) {
  if (job_id.size() > kMaxJobIdLength) return invalidArgument(tooLong("job_id", job_id, kMaxJobIdLength));
  return {};
}

Status checkRankedJob(int rank, std::string_view job_id) {
  if (rank < 0) return invalidArgument("rank " + std::to_string(rank) + " is negative");
  if (job_id.empty()) return invalidArgument("a rank needs a job_id");
  if (job_id.find_first_of(",;:") != std::string_view::npos) {
    return invalidArgument("job_id '" + cutForMessage(job_id) + "' of a ranked client holds one of \",;:\"");
  }
  return {};
}

Status TagCheck::add(std::string_view key, std::string_view value) {
  if (key.empty()) return invalidArgument("a tag has an empty key");
  if (key.size() > kMaxTagKeyLength) return invalidArgument(tooLong("tag key", key, kMaxTagKeyLength));
  bytes_ += key.size() + value.size();
  if (bytes_ > kMaxTagsBytes) {
    return invalidArgument("the tags hold more than " + std::to_string(kMaxTagsBytes) +
                           " bytes of keys and values (at tag '" + cutForMessage(key) + "')");
  }
  return {};
}

}  // namespace ftb
