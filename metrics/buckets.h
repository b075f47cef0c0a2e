// Histogram bucket bounds (prometheus-cpp 1.0 leaves them to the caller).
#pragma once

#include <vector>

namespace ftb::metrics {

// `count` upper bounds from `start`, each `factor` times the previous; +Inf is implicit.
inline std::vector<double> exponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (double v = start; count-- > 0; v *= factor) out.push_back(v);
  return out;
}

}  // namespace ftb::metrics
