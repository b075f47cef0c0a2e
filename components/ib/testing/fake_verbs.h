// Test support: a scripted VerbsDevices for Monitor unit tests (no libibverbs:
// this machine's kernel has no RDMA; the QEMU tier covers the real path).
// Each open device gets a pipe as its async fd, so the Monitor's real poll()
// loop wakes on injected events.
//
//   FakeVerbsDevices verbs;
//   verbs.add("mlx5_0", 2);                          // two ACTIVE 4X EDR ports
//   verbs.port("mlx5_0", 1).state = 1;               // what queryPort returns next
//   verbs.inject("mlx5_0", {AsyncEventType::kPortErr, 1});
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <deque>
#include <map>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "components/ib/event_sink.h"
#include "components/ib/verbs_devices.h"

namespace ftb::ib::testing {

struct FakeDeviceState {
  DeviceInfo info;
  std::map<uint32_t, PortAttrs> ports;
  std::deque<AsyncEvent> events;
  bool gone = false;          // queryPort and nextEvent answer kNotFound (ENODEV)
  Status query_status;        // when not ok: what queryPort answers
  int open_contexts = 0;
  int pipe_fds[2] = {-1, -1};
};

inline PortAttrs activePort() {
  return PortAttrs{.state = kStateActive, .phys_state = 5, .lid = 17, .sm_lid = 1,
                   .link_layer = "InfiniBand", .width = 4, .lane_gbps = 25};
}

class FakeVerbsDevice : public VerbsDevice {
 public:
  explicit FakeVerbsDevice(std::shared_ptr<FakeDeviceState> s) : s_(std::move(s)) {
    ++s_->open_contexts;
  }
  ~FakeVerbsDevice() override { --s_->open_contexts; }
  const DeviceInfo& info() const override { return s_->info; }
  int asyncFd() const override { return s_->pipe_fds[0]; }
  Result<PortAttrs> queryPort(uint32_t port) override {
    if (s_->gone) return notFound(s_->info.name + ": No such device");
    if (!s_->query_status.ok()) return s_->query_status;
    return s_->ports.at(port);
  }
  Result<std::optional<AsyncEvent>> nextEvent() override {
    if (s_->gone) return notFound(s_->info.name + ": No such device");
    char byte;
    if (::read(s_->pipe_fds[0], &byte, 1) != 1 || s_->events.empty()) {
      return std::optional<AsyncEvent>();
    }
    AsyncEvent e = s_->events.front();
    s_->events.pop_front();
    return std::optional<AsyncEvent>(e);
  }

 private:
  std::shared_ptr<FakeDeviceState> s_;
};

class FakeVerbsDevices : public VerbsDevices {
 public:
  ~FakeVerbsDevices() override {
    for (auto& [name, s] : devices_) closePipe(*s);
    for (auto& s : removed_) closePipe(*s);
  }
  // A present device with `ports` ACTIVE ports.
  FakeDeviceState& add(const std::string& name, uint32_t ports) {
    auto s = std::make_shared<FakeDeviceState>();
    s->info = {.name = name, .num_ports = ports, .fw_ver = "20.99.1000",
               .node_guid = "0002:c903:0000:beef"};
    for (uint32_t p = 1; p <= ports; ++p) s->ports[p] = activePort();
    if (::pipe2(s->pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    devices_[name] = s;
    return *s;
  }
  // Gone from the list (an open context stays usable until the monitor closes it).
  void remove(const std::string& name) {
    removed_.push_back(devices_.at(name));
    devices_.erase(name);
  }
  FakeDeviceState& device(const std::string& name) { return *devices_.at(name); }
  PortAttrs& port(const std::string& name, uint32_t port) { return devices_.at(name)->ports.at(port); }
  void inject(const std::string& name, AsyncEvent event) {
    FakeDeviceState& s = *devices_.at(name);
    s.events.push_back(event);
    if (::write(s.pipe_fds[1], "e", 1) != 1) throw std::runtime_error("write to event pipe");
  }

  Status list_status;  // when not ok: what list() answers

  Result<std::vector<std::string>> list() override {
    if (!list_status.ok()) return list_status;
    std::vector<std::string> names;
    for (const auto& [name, s] : devices_) names.push_back(name);
    return names;
  }
  Result<std::unique_ptr<VerbsDevice>> open(const std::string& name) override {
    auto it = devices_.find(name);
    if (it == devices_.end()) return notFound(name + ": no such RDMA device");
    return std::unique_ptr<VerbsDevice>(new FakeVerbsDevice(it->second));
  }

 private:
  static void closePipe(FakeDeviceState& s) {
    for (int& fd : s.pipe_fds) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }
  std::map<std::string, std::shared_ptr<FakeDeviceState>> devices_;
  std::vector<std::shared_ptr<FakeDeviceState>> removed_;
};

struct RecordedEvent {
  std::string name;
  std::string payload;
  Tags tags;
};

class RecordingSink : public EventSink {
 public:
  void publish(std::string_view name, const std::string& payload, const Tags& tags) override {
    events.push_back({std::string(name), payload, tags});
  }
  std::size_t count(std::string_view name) const {
    std::size_t n = 0;
    for (const RecordedEvent& e : events) n += e.name == name;
    return n;
  }
  // The last event called `name`; throws when there is none.
  const RecordedEvent& last(std::string_view name) const {
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if (it->name == name) return *it;
    }
    throw std::runtime_error("no event " + std::string(name));
  }
  std::vector<RecordedEvent> events;
};

}  // namespace ftb::ib::testing
