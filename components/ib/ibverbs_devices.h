// IbverbsDevices: VerbsDevices on the real libibverbs. Device lists come from
// ibv_get_device_list on every list() (so hot-plugged devices show up), each
// open device's async_fd is switched to O_NONBLOCK for the monitor's poll().
#pragma once

#include "components/ib/verbs_devices.h"

namespace ftb::ib {

class IbverbsDevices : public VerbsDevices {
 public:
  Result<std::vector<std::string>> list() override;
  Result<std::unique_ptr<VerbsDevice>> open(const std::string& name) override;
};

}  // namespace ftb::ib
