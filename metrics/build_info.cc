#include "metrics/build_info.h"

#include <prometheus/gauge.h>

#include "client/wire/codec.h"

namespace ftb::metrics {

void addBuildInfo(prometheus::Registry& registry) {
  prometheus::BuildGauge()
      .Name("ftb_build_info")
      .Help("The ftb release this daemon runs (always 1)")
      .Register(registry)
      .Add({{"version", std::string(wire::kVersion)}})
      .Set(1);
}

}  // namespace ftb::metrics
