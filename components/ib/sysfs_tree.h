// SysfsTree: reads the kernel's InfiniBand sysfs attributes under a root
// (normally /sys; tests and --sysfs-root point it at a tree they built):
//
//   <root>/class/infiniband/<hca>/{fw_ver,node_guid}
//   <root>/class/infiniband/<hca>/ports/<n>/{state,phys_state,rate,lid,sm_lid,...}
//   <root>/class/infiniband/<hca>/ports/<n>/counters/*      (PMA counters; IB HCAs only)
//   <root>/class/infiniband/<hca>/ports/<n>/hw_counters/*   (driver counters; listed, not assumed)
//
// Stateless and cheap to copy; every call reads the files afresh.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/ib/port_attrs.h"

namespace ftb::ib {

struct CounterValue {
  std::string name;  // "symbol_error"; hw_counters are "hw_counters/<name>"
  uint64_t value = 0;
};

struct CounterReadout {
  std::vector<CounterValue> counters;
  // Files that exist but do not hold a number: "counters/symbol_error: 'x1' is not a number".
  std::vector<std::string> problems;
};

// "100 Gb/sec (4X EDR)" -> width 4, lane 25 Gb/s. kInvalidArgument names the text.
Result<PortAttrs> parseRate(const std::string& text);

class SysfsTree {
 public:
  explicit SysfsTree(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  // HCAs in class/infiniband, sorted; empty when the directory does not exist.
  std::vector<std::string> devices() const;
  // Port numbers in class/infiniband/<hca>/ports, sorted.
  std::vector<uint32_t> ports(const std::string& hca) const;
  // kNotFound when the HCA is not there.
  Result<DeviceInfo> deviceInfo(const std::string& hca) const;
  // state, phys_state, lid, sm_lid, lid_mask_count, sm_sl, link_layer, rate.
  // kNotFound when the port is not there, kInvalidArgument for a malformed file.
  Result<PortAttrs> portAttrs(const std::string& hca, uint32_t port) const;
  // Every counter of counters/ and hw_counters/ ("lifespan" is a setting, not a counter).
  CounterReadout counters(const std::string& hca, uint32_t port) const;

 private:
  std::string portDir(const std::string& hca, uint32_t port) const;
  std::string root_;
};

}  // namespace ftb::ib
