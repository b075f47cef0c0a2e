// Test support: a sysfs tree in a temporary directory, laid out and formatted
// as the kernel's drivers/infiniband/core/sysfs.c writes it, for SysfsTree,
// the Monitor, the real ftb-ib (--sysfs-root) and node_exporter (--path.sysfs).
//
//   FakeSysfs sys;
//   sys.addDevice("mlx5_0", 2);                      // ACTIVE 4X EDR ports, all 21 PMA counters at 0
//   sys.setCounter("mlx5_0", 1, "symbol_error", 40);
//   sys.write("mlx5_0", 1, "counters/link_downed", "garbage");
//   Monitor m(..., SysfsTree(sys.root()), ...);
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "tests/support/agent_process.h"

namespace ftb::ib::testing {

// Every PortCounters(+Extended) name the kernel exposes under counters/.
extern const char* const kPmaCounters[21];

class FakeSysfs {
 public:
  const std::string& root() const { return dir_.path(); }

  // class/infiniband/<hca> with fw_ver, node_guid, board_id, hca_type and
  // `ports` ports, each "4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)",
  // with counters/ at zero unless `pma_counters` is false (RoCE) and an
  // hw_counters/ with "lifespan" and "link_downed".
  void addDevice(const std::string& hca, uint32_t ports, bool pma_counters = true);
  void removeDevice(const std::string& hca);

  // Writes ports/<port>/<relative> (creating directories) with `text` + "\n".
  void write(const std::string& hca, uint32_t port, const std::string& relative,
             const std::string& text);
  void setCounter(const std::string& hca, uint32_t port, const std::string& counter, uint64_t value);
  void setHwCounter(const std::string& hca, uint32_t port, const std::string& counter,
                    uint64_t value);
  void removeCounter(const std::string& hca, uint32_t port, const std::string& counter);
  // state 1..5 and phys_state 1..7 in the kernel's "4: ACTIVE" form.
  void setState(const std::string& hca, uint32_t port, int state, int phys_state);
  void setRate(const std::string& hca, uint32_t port, const std::string& rate);  // "40 Gb/sec (4X QDR)"

  std::string portDir(const std::string& hca, uint32_t port) const;

 private:
  void writeFile(const std::filesystem::path& path, const std::string& text) const;

  ftb::testing::TempDir dir_;
};

}  // namespace ftb::ib::testing
