#include "components/ipmi/payload.h"

#include <cstdio>

namespace ftb::ipmi {

std::string formatNumber(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  return buf;
}

}  // namespace ftb::ipmi
