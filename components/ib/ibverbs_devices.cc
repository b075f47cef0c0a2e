#include "components/ib/ibverbs_devices.h"

#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>

#include <cstdio>
#include <cstring>

namespace ftb::ib {

namespace {

// ibv_port_attr.active_width bits: 1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X, 16 = 2X.
uint32_t lanes(uint8_t active_width) {
  switch (active_width) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
  }
}

// ibv_port_attr.active_speed: 1 SDR, 2 DDR, 4 QDR, 8 FDR10, 16 FDR, 32 EDR, 64 HDR, 128 NDR.
double laneGbps(uint8_t active_speed) {
  switch (active_speed) {
    case 1: return 2.5;
    case 2: return 5;
    case 4: return 10;
    case 8: return 10;  // FDR10
    case 16: return 14;
    case 32: return 25;
    case 64: return 50;
    case 128: return 100;
    default: return 0;
  }
}

std::string guidText(__be64 guid) {
  const uint64_t g = be64toh(guid);
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x", unsigned(g >> 48) & 0xffff,
                unsigned(g >> 32) & 0xffff, unsigned(g >> 16) & 0xffff, unsigned(g) & 0xffff);
  return buf;
}

Status errnoStatus(int err, const std::string& what) {
  // ENODEV: the device is being removed; EIO: the driver gave up on it.
  if (err == ENODEV || err == EIO) return notFound(what + ": " + std::strerror(err));
  return {Code::kInternal, what + ": " + std::strerror(err)};
}

class IbverbsDevice : public VerbsDevice {
 public:
  IbverbsDevice(ibv_context* context, DeviceInfo info) : context_(context), info_(std::move(info)) {}
  ~IbverbsDevice() override { ibv_close_device(context_); }

  const DeviceInfo& info() const override { return info_; }
  int asyncFd() const override { return context_->async_fd; }

  Result<PortAttrs> queryPort(uint32_t port) override {
    ibv_port_attr a{};
    if (int rc = ibv_query_port(context_, static_cast<uint8_t>(port), &a); rc != 0) {
      return errnoStatus(rc, info_.name + " port " + std::to_string(port) + ": ibv_query_port");
    }
    return PortAttrs{.state = a.state,
                     .phys_state = a.phys_state,
                     .lid = a.lid,
                     .sm_lid = a.sm_lid,
                     .lmc = a.lmc,
                     .sm_sl = a.sm_sl,
                     .link_layer = a.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet"
                                                                             : "InfiniBand",
                     .width = lanes(a.active_width),
                     .lane_gbps = laneGbps(a.active_speed)};
  }

  Result<std::optional<AsyncEvent>> nextEvent() override {
    ibv_async_event e{};
    if (ibv_get_async_event(context_, &e) != 0) {
      if (errno == EAGAIN || errno == EINTR) return std::optional<AsyncEvent>();
      return errnoStatus(errno, info_.name + ": ibv_get_async_event");
    }
    AsyncEvent out{.type = static_cast<AsyncEventType>(e.event_type)};
    switch (e.event_type) {
      case IBV_EVENT_PORT_ACTIVE:
      case IBV_EVENT_PORT_ERR:
      case IBV_EVENT_LID_CHANGE:
      case IBV_EVENT_PKEY_CHANGE:
      case IBV_EVENT_SM_CHANGE:
      case IBV_EVENT_CLIENT_REREGISTER:
      case IBV_EVENT_GID_CHANGE:
        out.port = static_cast<uint32_t>(e.element.port_num);
        break;
      default:
        break;
    }
    ibv_ack_async_event(&e);
    return std::optional<AsyncEvent>(out);
  }

 private:
  ibv_context* context_;
  DeviceInfo info_;
};

}  // namespace

Result<std::vector<std::string>> IbverbsDevices::list() {
  int n = 0;
  errno = 0;
  ibv_device** devices = ibv_get_device_list(&n);
  if (devices == nullptr) {
    // ENOSYS: the kernel has no RDMA core (no /sys/class/infiniband_verbs).
    return Status(Code::kUnavailable,
                  std::string("ibv_get_device_list: ") + std::strerror(errno ? errno : ENOSYS));
  }
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.emplace_back(ibv_get_device_name(devices[i]));
  ibv_free_device_list(devices);
  return names;
}

Result<std::unique_ptr<VerbsDevice>> IbverbsDevices::open(const std::string& name) {
  int n = 0;
  ibv_device** devices = ibv_get_device_list(&n);
  if (devices == nullptr) return errnoStatus(errno, "ibv_get_device_list");
  ibv_context* context = nullptr;
  for (int i = 0; i < n && context == nullptr; ++i) {
    if (name == ibv_get_device_name(devices[i])) {
      context = ibv_open_device(devices[i]);
      if (context == nullptr) {
        const int err = errno;
        ibv_free_device_list(devices);
        return errnoStatus(err, name + ": ibv_open_device");
      }
    }
  }
  ibv_free_device_list(devices);
  if (context == nullptr) return notFound(name + ": no such RDMA device");

  ibv_device_attr attr{};
  if (int rc = ibv_query_device(context, &attr); rc != 0) {
    ibv_close_device(context);
    return errnoStatus(rc, name + ": ibv_query_device");
  }
  const int flags = fcntl(context->async_fd, F_GETFL);
  if (flags < 0 || fcntl(context->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    const int err = errno;
    ibv_close_device(context);
    return errnoStatus(err, name + ": making the async event fd non-blocking");
  }
  DeviceInfo info{.name = name,
                  .num_ports = attr.phys_port_cnt,
                  .fw_ver = attr.fw_ver,
                  .node_guid = guidText(attr.node_guid)};
  return std::unique_ptr<VerbsDevice>(new IbverbsDevice(context, std::move(info)));
}

}  // namespace ftb::ib
