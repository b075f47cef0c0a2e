// SysfsTree over a tree the test writes: attributes, counters, the RoCE case
// without counters/, malformed and missing files, the rate text.
#define BOOST_TEST_MODULE sysfs_tree
#include <boost/test/unit_test.hpp>

#include <optional>

#include "components/ib/sysfs_tree.h"
#include "components/ib/testing/fake_sysfs.h"

using namespace ftb::ib;
using ftb::Result;
using ftb::ib::testing::FakeSysfs;

namespace {

std::optional<uint64_t> counter(const CounterReadout& r, const std::string& name) {
  for (const CounterValue& c : r.counters) {
    if (c.name == name) return c.value;
  }
  return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rate_text_gives_lanes_and_lane_speed) {
  struct Case {
    std::string text;
    uint32_t width;
    double lane;
  };
  for (const Case& c : std::vector<Case>{{"100 Gb/sec (4X EDR)", 4, 25},
                                         {"200 Gb/sec (4X HDR)", 4, 50},
                                         {"10 Gb/sec (1X FDR10)", 1, 10},
                                         {"2.5 Gb/sec (1X SDR)", 1, 2.5},
                                         {"56 Gb/sec (4X FDR)", 4, 14},
                                         {"300 Gb/sec (12X EDR)", 12, 25},
                                         {"40 Gb/sec (4X)", 4, 10}}) {
    Result<PortAttrs> r = parseRate(c.text);
    BOOST_TEST_REQUIRE(r.ok(), c.text);
    BOOST_TEST(r->width == c.width, c.text);
    BOOST_TEST(r->lane_gbps == c.lane, c.text);
  }
  for (const char* bad : {"", "fast", "100 Gb/sec", "100 Gb/sec (xX EDR)"}) {
    Result<PortAttrs> r = parseRate(bad);
    BOOST_TEST(!r.ok(), bad);
    BOOST_TEST(r.status().message().find("rate") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(devices_ports_and_attributes) {
  FakeSysfs sys;
  SysfsTree tree(sys.root());
  BOOST_TEST(tree.devices().empty());
  sys.addDevice("mlx5_1", 1);
  sys.addDevice("mlx5_0", 2);
  BOOST_TEST(tree.devices() == (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  BOOST_TEST(tree.ports("mlx5_0") == (std::vector<uint32_t>{1, 2}));

  Result<DeviceInfo> info = tree.deviceInfo("mlx5_0");
  BOOST_TEST_REQUIRE(info.ok());
  BOOST_TEST(info->num_ports == 2u);
  BOOST_TEST(info->fw_ver == "20.99.1000");
  BOOST_TEST(info->node_guid == "0002:c903:0000:beef");
  BOOST_TEST((tree.deviceInfo("mlx9_9").status().code() == ftb::Code::kNotFound));

  sys.setState("mlx5_0", 2, 1, 3);
  sys.write("mlx5_0", 2, "lid", "0x2a");
  sys.setRate("mlx5_0", 2, "25 Gb/sec (1X EDR)");
  Result<PortAttrs> a = tree.portAttrs("mlx5_0", 2);
  BOOST_TEST_REQUIRE(a.ok());
  BOOST_TEST(a->state == 1);
  BOOST_TEST(a->phys_state == 3);
  BOOST_TEST(a->lid == 42u);  // hex in sysfs
  BOOST_TEST(a->sm_lid == 1u);
  BOOST_TEST(a->link_layer == "InfiniBand");
  BOOST_TEST(a->width == 1u);
  BOOST_TEST(a->lane_gbps == 25);

  BOOST_TEST((tree.portAttrs("mlx5_0", 3).status().code() == ftb::Code::kNotFound));
  sys.write("mlx5_0", 1, "lid", "zz");
  Result<PortAttrs> bad = tree.portAttrs("mlx5_0", 1);
  BOOST_TEST((bad.status().code() == ftb::Code::kInvalidArgument));
  BOOST_TEST(bad.status().message().find("lid: 'zz'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(counters_read_both_directories_and_name_bad_files) {
  FakeSysfs sys;
  sys.addDevice("mlx5_0", 1);
  sys.setCounter("mlx5_0", 1, "symbol_error", 1234);
  sys.setHwCounter("mlx5_0", 1, "out_of_buffer", 7);
  SysfsTree tree(sys.root());
  CounterReadout r = tree.counters("mlx5_0", 1);
  BOOST_TEST(r.problems.empty());
  BOOST_TEST(r.counters.size() == 21u + 2u);  // all PMA counters, hw link_downed + out_of_buffer
  BOOST_TEST((counter(r, "symbol_error") == 1234u));
  BOOST_TEST((counter(r, "hw_counters/out_of_buffer") == 7u));
  BOOST_TEST(!counter(r, "hw_counters/lifespan"));  // a setting, not a counter

  sys.write("mlx5_0", 1, "counters/link_downed", "x1");
  sys.write("mlx5_0", 1, "counters/port_xmit_wait", "");
  sys.removeCounter("mlx5_0", 1, "symbol_error");
  r = tree.counters("mlx5_0", 1);
  BOOST_TEST(!counter(r, "link_downed"));
  BOOST_TEST(!counter(r, "symbol_error"));
  BOOST_TEST_REQUIRE(r.problems.size() == 2u);
  BOOST_TEST(r.problems[0] == "counters/link_downed: 'x1' is not a number");
  BOOST_TEST(r.problems[1] == "counters/port_xmit_wait: '' is not a number");
}

BOOST_AUTO_TEST_CASE(roce_port_without_pma_counters_is_not_a_problem) {
  FakeSysfs sys;
  sys.addDevice("rxe0", 1, /*pma_counters=*/false);
  CounterReadout r = SysfsTree(sys.root()).counters("rxe0", 1);
  BOOST_TEST(r.problems.empty());
  BOOST_TEST_REQUIRE(r.counters.size() == 1u);
  BOOST_TEST(r.counters[0].name == "hw_counters/link_downed");
}
