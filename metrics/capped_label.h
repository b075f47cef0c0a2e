// Bounds the number of distinct values one label takes, so a label fed from
// client input (an event namespace) cannot grow a metric without limit: the
// first `max_values` distinct values keep their own series, every later one is
// reported under kOtherValue.
// Threading: not thread-safe; owned by the one thread that updates the metric.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>

namespace ftb::metrics {

inline constexpr const char* kOtherValue = "_other";

class CappedLabel {
 public:
  explicit CappedLabel(std::size_t max_values) : max_values_(max_values) {}

  // `value` itself while it is one of the first max_values seen, else kOtherValue.
  const std::string& map(const std::string& value) {
    if (auto it = seen_.find(value); it != seen_.end()) return *it;
    if (seen_.size() < max_values_) return *seen_.insert(value).first;
    return other_;
  }

 private:
  std::size_t max_values_;
  std::unordered_set<std::string> seen_;
  const std::string other_ = kOtherValue;
};

}  // namespace ftb::metrics
