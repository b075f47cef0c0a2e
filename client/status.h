// Status and Result<T>: how every fallible ftb call reports failure.
//
// Pick the code by what the caller should do next:
//   kInvalidArgument    the caller passed something malformed (fix the input)
//   kNotFound           a named thing does not exist (subscription, event id)
//   kFailedPrecondition the state is wrong (event not declared, version mismatch)
//   kResourceExhausted  a bound was hit (payload size, buffer full); retry later
//   kUnavailable        no agent reachable now; the SDK keeps retrying
//   kDeadlineExceeded   a wait ran out
//   kPermissionDenied, kUnauthenticated, kAlreadyExists, kInternal as named.
// The message names the offending field or value.
//
//   ftb::Result<int> r = parsePort("80x");
//   if (!r) std::cerr << r.status().toString();
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ftb {

enum class Code {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kResourceExhausted,
  kFailedPrecondition,
  kUnauthenticated,
  kUnavailable,
  kDeadlineExceeded,
  kInternal,
};

std::string_view codeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status okStatus() { return {}; }

  bool ok() const { return code_ == Code::kOk; }
  explicit operator bool() const { return ok(); }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: severity 'loud' is not one of info, warning, error, fatal"
  std::string toString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// `value` as an error message may quote it: whole up to `keep` bytes, else its
// first `keep` bytes, "..." and its size, so that a 10,000-character name
// does not fill a log line or a reply.
std::string cutForMessage(std::string_view value, std::size_t keep = 64);

inline Status invalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status notFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
inline Status failedPrecondition(std::string m) { return {Code::kFailedPrecondition, std::move(m)}; }
inline Status resourceExhausted(std::string m) { return {Code::kResourceExhausted, std::move(m)}; }
inline Status unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
inline Status deadlineExceeded(std::string m) { return {Code::kDeadlineExceeded, std::move(m)}; }
inline Status internalError(std::string m) { return {Code::kInternal, std::move(m)}; }

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: must not be ok

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<1>(v_);
  }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ftb
