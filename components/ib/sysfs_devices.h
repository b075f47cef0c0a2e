// SysfsDevices: VerbsDevices that reads devices and port attributes from a
// sysfs tree (SysfsTree). It has no asynchronous events: the Monitor sees port
// changes at its sweeps. For nodes where libibverbs cannot open the devices,
// and for running the real ftb-ib over a test tree.
#pragma once

#include "components/ib/sysfs_tree.h"
#include "components/ib/verbs_devices.h"

namespace ftb::ib {

class SysfsDevices : public VerbsDevices {
 public:
  explicit SysfsDevices(SysfsTree tree) : tree_(std::move(tree)) {}
  Result<std::vector<std::string>> list() override;
  Result<std::unique_ptr<VerbsDevice>> open(const std::string& name) override;

 private:
  SysfsTree tree_;
};

}  // namespace ftb::ib
