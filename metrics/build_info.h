// ftb_build_info{version="0.1.0"} 1: which ftb release a daemon runs, the
// usual way (a gauge fixed at 1 whose labels carry the facts), so that
// `count by (version) (ftb_build_info)` shows a rollout's progress.
#pragma once

#include <prometheus/registry.h>

namespace ftb::metrics {

void addBuildInfo(prometheus::Registry& registry);

}  // namespace ftb::metrics
