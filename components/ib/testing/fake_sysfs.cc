#include "components/ib/testing/fake_sysfs.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ftb::ib::testing {

namespace fs = std::filesystem;

const char* const kPmaCounters[21] = {
    "VL15_dropped",
    "excessive_buffer_overrun_errors",
    "link_downed",
    "link_error_recovery",
    "local_link_integrity_errors",
    "multicast_rcv_packets",
    "multicast_xmit_packets",
    "port_rcv_constraint_errors",
    "port_rcv_data",
    "port_rcv_errors",
    "port_rcv_packets",
    "port_rcv_remote_physical_errors",
    "port_rcv_switch_relay_errors",
    "port_xmit_constraint_errors",
    "port_xmit_data",
    "port_xmit_discards",
    "port_xmit_packets",
    "port_xmit_wait",
    "symbol_error",
    "unicast_rcv_packets",
    "unicast_xmit_packets",
};

namespace {

std::string stateText(int state) {
  static const char* const kNames[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  return std::to_string(state) + ": " + (state >= 0 && state <= 5 ? kNames[state] : "UNKNOWN");
}

std::string physStateText(int phys) {
  static const char* const kNames[] = {"<unknown>", "Sleep",    "Polling", "Disabled",
                                       "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
                                       "Phy Test"};
  return std::to_string(phys) + ": " + (phys >= 0 && phys <= 7 ? kNames[phys] : "<unknown>");
}

}  // namespace

// Written aside (outside every directory a reader lists) and renamed into
// place: the kernel's sysfs files change atomically for a reader, so a monitor
// sweeping mid-write must never see a truncated value (it did, under load:
// "'' is not a number").
void FakeSysfs::writeFile(const fs::path& path, const std::string& text) const {
  fs::create_directories(path.parent_path());
  const fs::path staged = fs::path(root()) / ".staged";
  {
    std::ofstream out(staged, std::ios::trunc);
    out << text << "\n";
    if (!out) throw std::runtime_error("cannot write " + staged.string());
  }
  fs::rename(staged, path);
}

std::string FakeSysfs::portDir(const std::string& hca, uint32_t port) const {
  return root() + "/class/infiniband/" + hca + "/ports/" + std::to_string(port);
}

void FakeSysfs::addDevice(const std::string& hca, uint32_t ports, bool pma_counters) {
  const fs::path dev = root() + "/class/infiniband/" + hca;
  writeFile(dev / "fw_ver", "20.99.1000");
  writeFile(dev / "node_guid", "0002:c903:0000:beef");
  writeFile(dev / "board_id", "MT_0000000223");
  writeFile(dev / "hca_type", "MT4123");
  writeFile(dev / "node_type", "1: CA");
  for (uint32_t p = 1; p <= ports; ++p) {
    setState(hca, p, 4, 5);
    setRate(hca, p, "100 Gb/sec (4X EDR)");
    write(hca, p, "lid", "0x11");
    write(hca, p, "sm_lid", "0x1");
    write(hca, p, "lid_mask_count", "0");
    write(hca, p, "sm_sl", "0");
    write(hca, p, "cap_mask", "0x2651e848");
    write(hca, p, "link_layer", pma_counters ? "InfiniBand" : "Ethernet");
    write(hca, p, "gids/0", "fe80:0000:0000:0000:0002:c903:0000:beef");
    write(hca, p, "pkeys/0", "0xffff");
    if (pma_counters) {
      for (const char* c : kPmaCounters) setCounter(hca, p, c, 0);
    }
    write(hca, p, "hw_counters/lifespan", "10");
    setHwCounter(hca, p, "link_downed", 0);
  }
}

void FakeSysfs::removeDevice(const std::string& hca) {
  fs::remove_all(root() + "/class/infiniband/" + hca);
}

void FakeSysfs::write(const std::string& hca, uint32_t port, const std::string& relative,
                      const std::string& text) {
  writeFile(fs::path(portDir(hca, port)) / relative, text);
}

void FakeSysfs::setCounter(const std::string& hca, uint32_t port, const std::string& counter,
                           uint64_t value) {
  write(hca, port, "counters/" + counter, std::to_string(value));
}

void FakeSysfs::setHwCounter(const std::string& hca, uint32_t port, const std::string& counter,
                             uint64_t value) {
  write(hca, port, "hw_counters/" + counter, std::to_string(value));
}

void FakeSysfs::removeCounter(const std::string& hca, uint32_t port, const std::string& counter) {
  fs::remove(fs::path(portDir(hca, port)) / "counters" / counter);
}

void FakeSysfs::setState(const std::string& hca, uint32_t port, int state, int phys_state) {
  write(hca, port, "state", stateText(state));
  write(hca, port, "phys_state", physStateText(phys_state));
}

void FakeSysfs::setRate(const std::string& hca, uint32_t port, const std::string& rate) {
  write(hca, port, "rate", rate);
}

}  // namespace ftb::ib::testing
