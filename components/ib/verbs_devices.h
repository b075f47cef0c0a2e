// VerbsDevices: the seam between the monitor and whatever lists and opens RDMA
// devices. IbverbsDevices (ibverbs_devices.h) is libibverbs, SysfsDevices
// (sysfs_devices.h) reads sysfs, tests use testing/fake_verbs.h.
//
// Threading: one thread (the monitor's) uses a VerbsDevices and its devices.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/ib/port_attrs.h"

namespace ftb::ib {

// ibv_event_type numbers (IBV_EVENT_*); the monitor only acts on port and device events.
enum class AsyncEventType : int {
  kCqErr = 0,
  kQpFatal = 1,
  kQpReqErr = 2,
  kQpAccessErr = 3,
  kCommEst = 4,
  kSqDrained = 5,
  kPathMig = 6,
  kPathMigErr = 7,
  kDeviceFatal = 8,
  kPortActive = 9,
  kPortErr = 10,
  kLidChange = 11,
  kPkeyChange = 12,
  kSmChange = 13,
  kSrqErr = 14,
  kSrqLimitReached = 15,
  kQpLastWqeReached = 16,
  kClientReregister = 17,
  kGidChange = 18,
  kWqFatal = 19,
};

// "IBV_EVENT_PORT_ERR", ...; "IBV_EVENT_<n>" for numbers libibverbs does not name.
std::string asyncEventName(AsyncEventType type);

struct AsyncEvent {
  AsyncEventType type = AsyncEventType::kCqErr;
  uint32_t port = 0;  // for port events; 0 otherwise
};

// An open device. Destroying it closes the context at once: an open context
// keeps a driver (rxe) from removing the device.
class VerbsDevice {
 public:
  virtual ~VerbsDevice() = default;
  virtual const DeviceInfo& info() const = 0;
  // A non-blocking fd that polls readable when nextEvent() has something;
  // -1 when this backend has no asynchronous events.
  virtual int asyncFd() const = 0;
  // kNotFound when the device has gone (ENODEV); other codes for other failures.
  virtual Result<PortAttrs> queryPort(uint32_t port) = 0;
  // The next pending event (already acknowledged), std::nullopt when none is
  // pending. Never blocks. kNotFound when the device has gone.
  virtual Result<std::optional<AsyncEvent>> nextEvent() = 0;
};

class VerbsDevices {
 public:
  virtual ~VerbsDevices() = default;
  // Names of the devices present now. kUnavailable when this node has no RDMA
  // support at all (no kernel support, no library): the same as no device.
  virtual Result<std::vector<std::string>> list() = 0;
  virtual Result<std::unique_ptr<VerbsDevice>> open(const std::string& name) = 0;
};

}  // namespace ftb::ib
