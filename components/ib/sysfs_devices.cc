#include "components/ib/sysfs_devices.h"

namespace ftb::ib {

namespace {

class SysfsDevice : public VerbsDevice {
 public:
  SysfsDevice(SysfsTree tree, DeviceInfo info) : tree_(std::move(tree)), info_(std::move(info)) {}
  const DeviceInfo& info() const override { return info_; }
  int asyncFd() const override { return -1; }
  Result<PortAttrs> queryPort(uint32_t port) override { return tree_.portAttrs(info_.name, port); }
  Result<std::optional<AsyncEvent>> nextEvent() override { return std::optional<AsyncEvent>(); }

 private:
  SysfsTree tree_;
  DeviceInfo info_;
};

}  // namespace

Result<std::vector<std::string>> SysfsDevices::list() { return tree_.devices(); }

Result<std::unique_ptr<VerbsDevice>> SysfsDevices::open(const std::string& name) {
  Result<DeviceInfo> info = tree_.deviceInfo(name);
  if (!info.ok()) return info.status();
  return std::unique_ptr<VerbsDevice>(new SysfsDevice(tree_, *info));
}

}  // namespace ftb::ib
