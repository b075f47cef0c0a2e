#include "client/status.h"

namespace ftb {

std::string_view codeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: return "INVALID_ARGUMENT";
    case Code::kNotFound: return "NOT_FOUND";
    case Code::kAlreadyExists: return "ALREADY_EXISTS";
    case Code::kPermissionDenied: return "PERMISSION_DENIED";
    case Code::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case Code::kFailedPrecondition: return "FAILED_PRECONDITION";
    case Code::kUnauthenticated: return "UNAUTHENTICATED";
    case Code::kUnavailable: return "UNAVAILABLE";
    case Code::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case Code::kInternal: return "INTERNAL";
  }
  return "UNKNOWN";
}

std::string Status::toString() const {
  if (ok()) return "OK";
  return std::string(codeName(code_)) + ": " + message_;
}

std::string cutForMessage(std::string_view value, std::size_t keep) {
  if (value.size() <= keep) return std::string(value);
  return std::string(value.substr(0, keep)) + "... (" + std::to_string(value.size()) + " bytes)";
}

}  // namespace ftb
