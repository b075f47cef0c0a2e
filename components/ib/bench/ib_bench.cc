// ftb-ib sweep cost: CPU time of one Monitor sweep (rescan, port re-query,
// counter readout and prediction) for N ports, over a kernel-formatted sysfs
// tree in a temporary directory under /tmp (regular files: reads from the
// page cache, not the kernel's sysfs attribute handlers, so a lower bound).
// Prints figures; asserts nothing about time.
//
//   bazel run -c opt //components/ib/bench:ib_bench [-- --sweeps=200]
#include <time.h>

#include <cstdio>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "bench/environment.h"
#include "components/ib/monitor.h"
#include "components/ib/sysfs_devices.h"
#include "components/ib/testing/fake_sysfs.h"
#include "components/ib/testing/fake_verbs.h"

namespace {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int sweeps = 200;
  CLI::App app{"ftb-ib sweep cost"};
  app.add_option("--sweeps", sweeps, "Sweeps measured per configuration")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  ftb::bench::printEnvironment();

  std::printf("%8s %8s %10s %16s %18s\n", "hcas", "ports", "counters", "cpu_us/sweep",
              "cpu_s/day@10s");
  for (auto [hcas, ports_each] : {std::pair{1, 1}, {1, 2}, {4, 2}, {16, 2}, {32, 4}}) {
    ftb::ib::testing::FakeSysfs sys;
    for (int h = 0; h < hcas; ++h) {
      sys.addDevice("mlx5_" + std::to_string(h), static_cast<uint32_t>(ports_each));
    }
    ftb::ib::SysfsTree tree(sys.root());
    ftb::ib::SysfsDevices devices(tree);
    ftb::ib::testing::RecordingSink sink;
    ftb::ib::Monitor monitor({.interval = std::chrono::seconds(10),
                              .prediction = {.thresholds_per_min = ftb::ib::defaultThresholds()}},
                             devices, tree, sink);
    auto now = ftb::ib::Clock::time_point{};
    monitor.start(now);
    const std::size_t counters =
        tree.counters("mlx5_0", 1).counters.size() * static_cast<std::size_t>(hcas * ports_each);
    const double start = cpuSeconds();
    for (int i = 0; i < sweeps; ++i) monitor.sweep(now += std::chrono::seconds(10));
    const double per_sweep = (cpuSeconds() - start) / sweeps;
    std::printf("%8d %8d %10zu %16.1f %18.2f\n", hcas, hcas * ports_each, counters, per_sweep * 1e6,
                per_sweep * 8640);
  }
  return 0;
}
