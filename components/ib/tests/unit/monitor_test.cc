// Monitor with scripted verbs devices (testing/fake_verbs.h) and a sysfs tree
// the test writes: discovery, every asynchronous event, ENODEV and
// DEVICE_FATAL closing the context, hot add/remove, sweeps, prediction and the
// monitor's own trouble. The real poll() loop runs on the fakes' pipes.
#define BOOST_TEST_MODULE monitor
#include <boost/test/unit_test.hpp>

#include "components/ib/events.h"
#include "components/ib/monitor.h"
#include "components/ib/sysfs_devices.h"
#include "components/ib/testing/fake_sysfs.h"
#include "components/ib/testing/fake_verbs.h"

using namespace ftb::ib;
using ftb::Result;
using namespace ftb::ib::testing;
using namespace std::chrono_literals;

namespace {

struct Rig {
  Rig() {
    verbs.add("mlx5_0", 2);
    verbs.add("mlx5_1", 1);
    sys.addDevice("mlx5_0", 2);
    sys.addDevice("mlx5_1", 1);
  }
  Monitor& monitor() {
    if (!m) {
      m = std::make_unique<Monitor>(
          MonitorOptions{.interval = 10s,
                         .prediction = {.thresholds_per_min = defaultThresholds(),
                                        .window = 60s,
                                        .recover_sweeps = 2}},
          verbs, SysfsTree(sys.root()), sink);
    }
    return *m;
  }
  void start() { monitor().start(now); }
  void sweep() {
    now += 10s;
    monitor().sweep(now);
  }
  // Injects `event` and lets the real poll() loop take it.
  void inject(const std::string& hca, AsyncEventType type, uint32_t port) {
    verbs.inject(hca, {type, port});
    BOOST_TEST_REQUIRE(!monitor().pollOnce(1000ms));
  }
  std::string payloadOf(std::string_view name) { return sink.last(name).payload; }
  bool has(std::string_view name, const std::string& text) {
    return payloadOf(name).find(text) != std::string::npos;
  }

  FakeVerbsDevices verbs;
  FakeSysfs sys;
  RecordingSink sink;
  std::unique_ptr<Monitor> m;
  Clock::time_point now{};
};

}  // namespace

BOOST_AUTO_TEST_CASE(discovery_publishes_adapters_and_ports) {
  Rig r;
  r.start();
  BOOST_TEST(r.monitor().deviceCount() == 2u);
  BOOST_TEST(r.sink.count(kAdapterInfo) == 2u);
  BOOST_TEST(r.sink.count(kPortInfo) == 3u);
  BOOST_TEST(r.sink.count(kAdapterAvailable) == 1u);
  BOOST_TEST(r.payloadOf(kAdapterAvailable) == "NUM_ADAPTERS:2 num_adapters=2 hcas=mlx5_0,mlx5_1");
  BOOST_TEST(r.payloadOf(kAdapterInfo).starts_with(
      "HCA:mlx5_1 NUM_PORTS:1 FW_VER:20.99.1000 NODE_GUID:0002:c903:0000:beef hca=mlx5_1"));
  const RecordedEvent& port = r.sink.last(kPortInfo);
  BOOST_TEST(port.payload ==
             "HCA:mlx5_1 PORT:1 STATE:PORT_ACTIVE hca=mlx5_1 port=1 state=PORT_ACTIVE "
             "phys_state=LinkUp source=discovery width=4X speed=EDR lid=17 sm_lid=1 "
             "link_layer=InfiniBand");
  BOOST_TEST(port.tags.at("hca") == "mlx5_1");
  BOOST_TEST(port.tags.at("port") == "1");
  BOOST_TEST(r.sink.count(kAdapterUnavailable) == 0u);
}

BOOST_AUTO_TEST_CASE(a_node_without_adapters_says_so_once_and_picks_up_later_ones) {
  FakeVerbsDevices verbs;
  verbs.list_status = ftb::Status(ftb::Code::kUnavailable, "ibv_get_device_list: Function not implemented");
  FakeSysfs sys;
  RecordingSink sink;
  Monitor m({.interval = 10s}, verbs, SysfsTree(sys.root()), sink);
  Clock::time_point now{};
  m.start(now);
  for (int i = 0; i < 3; ++i) m.sweep(now += 10s);
  BOOST_TEST(sink.count(kAdapterUnavailable) == 1u);
  BOOST_TEST(sink.last(kAdapterUnavailable).payload.starts_with("NUM_ADAPTERS:0 "));
  BOOST_TEST(sink.count(kMonitorTrouble) == 0u);  // not the monitor's trouble
  BOOST_TEST(!m.pollOnce(0ms));                   // idles: nothing to wait on

  verbs.list_status = ftb::Status();
  verbs.add("mlx5_0", 1);
  m.sweep(now += 10s);
  BOOST_TEST(m.deviceCount() == 1u);
  BOOST_TEST(sink.last(kAdapterAvailable).payload.starts_with("NUM_ADAPTERS:1 "));
}

BOOST_AUTO_TEST_CASE(port_err_and_port_active_from_async_events) {
  Rig r;
  r.start();
  r.verbs.port("mlx5_0", 1).state = kStateDown;
  r.verbs.port("mlx5_0", 1).phys_state = 3;
  r.inject("mlx5_0", AsyncEventType::kPortErr, 1);
  BOOST_TEST(r.sink.count(kPortErr) == 1u);
  BOOST_TEST(r.payloadOf(kPortErr).starts_with(
      "HCA:mlx5_0 PORT:1 STATE:PORT_DOWN hca=mlx5_0 port=1 state=PORT_DOWN phys_state=Disabled "
      "event=IBV_EVENT_PORT_ERR source=async"));
  r.sweep();  // the sweep sees the same DOWN state: no second PORT_ERR
  BOOST_TEST(r.sink.count(kPortErr) == 1u);

  r.verbs.port("mlx5_0", 1) = activePort();
  r.inject("mlx5_0", AsyncEventType::kPortActive, 1);
  BOOST_TEST(r.sink.count(kPortActive) == 1u);
  BOOST_TEST(r.has(kPortActive, "STATE:PORT_ACTIVE"));
  BOOST_TEST(r.sink.last(kPortActive).tags.at("port") == "1");
}

BOOST_AUTO_TEST_CASE(every_port_event_type_maps_to_its_ftb_event) {
  struct Case {
    AsyncEventType type;
    std::string_view event;
  };
  for (const Case& c : std::vector<Case>{{AsyncEventType::kLidChange, kLidChange},
                                         {AsyncEventType::kPkeyChange, kPkeyChange},
                                         {AsyncEventType::kSmChange, kSmChange},
                                         {AsyncEventType::kGidChange, kGidChange},
                                         {AsyncEventType::kClientReregister, kClientReregister},
                                         {AsyncEventType::kPortErr, kPortErr},
                                         {AsyncEventType::kPortActive, kPortActive}}) {
    Rig r;
    r.start();
    r.verbs.port("mlx5_0", 2).lid = 66;
    r.inject("mlx5_0", c.type, 2);
    BOOST_TEST_REQUIRE(r.sink.count(c.event) == 1u, c.event);
    BOOST_TEST(r.has(c.event, "event=" + asyncEventName(c.type)), c.event);
    BOOST_TEST(r.has(c.event, "HCA:mlx5_0 PORT:2 "), c.event);
    BOOST_TEST(r.has(c.event, "lid=66"), c.event);  // re-queried after the event
  }
}

BOOST_AUTO_TEST_CASE(several_events_in_one_wakeup_and_non_port_events_are_not_published) {
  Rig r;
  r.start();
  const std::size_t before = r.sink.events.size();
  r.verbs.inject("mlx5_1", {AsyncEventType::kQpFatal, 0});
  r.verbs.inject("mlx5_1", {AsyncEventType::kSmChange, 1});
  r.verbs.inject("mlx5_1", {AsyncEventType::kGidChange, 1});
  BOOST_TEST(!r.monitor().pollOnce(1000ms));
  BOOST_TEST(r.sink.events.size() == before + 2);  // SM change and GID change; QP_FATAL logged only
  BOOST_TEST(r.sink.count(kSmChange) == 1u);
  BOOST_TEST(r.sink.count(kGidChange) == 1u);
}

BOOST_AUTO_TEST_CASE(device_fatal_closes_the_context_at_once) {
  Rig r;
  r.start();
  BOOST_TEST(r.verbs.device("mlx5_1").open_contexts == 1);
  r.inject("mlx5_1", AsyncEventType::kDeviceFatal, 0);
  BOOST_TEST(r.sink.count(kDeviceFatal) == 1u);
  BOOST_TEST(r.payloadOf(kDeviceFatal).starts_with("HCA:mlx5_1 EVENT:IBV_EVENT_DEVICE_FATAL"));
  BOOST_TEST(r.verbs.device("mlx5_1").open_contexts == 0);
  BOOST_TEST(r.monitor().deviceCount() == 1u);
  BOOST_TEST(r.payloadOf(kAdapterUnavailable) ==
             "NUM_ADAPTERS:1 HCA:mlx5_1 num_adapters=1 hca=mlx5_1 reason=\"device fatal\"");
  // Still listed (driver not done yet): held off until the next sweep, then reopened.
  BOOST_TEST(r.verbs.device("mlx5_1").open_contexts == 0);
  r.sweep();
  BOOST_TEST(r.verbs.device("mlx5_1").open_contexts == 1);
  BOOST_TEST(r.payloadOf(kAdapterAvailable).starts_with("NUM_ADAPTERS:2 "));
}

BOOST_AUTO_TEST_CASE(enodev_on_a_port_event_publishes_it_and_closes_the_device) {
  Rig r;
  r.start();
  r.verbs.device("mlx5_0").gone = false;
  r.verbs.device("mlx5_0").query_status = ftb::Status();
  r.verbs.inject("mlx5_0", {AsyncEventType::kPortErr, 1});
  r.verbs.device("mlx5_0").gone = true;  // queryPort answers ENODEV
  // nextEvent answers ENODEV too, so mark gone after the event is read: emulate
  // the rxe order (event delivered, then the port query fails).
  r.verbs.device("mlx5_0").gone = false;
  r.verbs.device("mlx5_0").query_status = ftb::notFound("mlx5_0 port 1: ibv_query_port: No such device");
  BOOST_TEST(!r.monitor().pollOnce(1000ms));
  BOOST_TEST(r.sink.count(kPortErr) == 1u);
  BOOST_TEST(r.payloadOf(kPortErr).starts_with("HCA:mlx5_0 PORT:1 EVENT:IBV_EVENT_PORT_ERR"));
  BOOST_TEST(r.verbs.device("mlx5_0").open_contexts == 0);
  BOOST_TEST(r.has(kAdapterUnavailable, "hca=mlx5_0 reason=\"gone: mlx5_0 port 1"));
}

BOOST_AUTO_TEST_CASE(enodev_from_the_event_fd_closes_the_device) {
  Rig r;
  r.start();
  r.verbs.device("mlx5_1").gone = true;
  r.verbs.inject("mlx5_1", {AsyncEventType::kPortErr, 1});
  BOOST_TEST(!r.monitor().pollOnce(1000ms));
  BOOST_TEST(r.verbs.device("mlx5_1").open_contexts == 0);
  BOOST_TEST(r.monitor().deviceCount() == 1u);
}

BOOST_AUTO_TEST_CASE(hot_add_and_remove_at_sweeps) {
  Rig r;
  r.start();
  r.verbs.remove("mlx5_1");
  r.sweep();
  BOOST_TEST(r.monitor().deviceCount() == 1u);
  BOOST_TEST(r.payloadOf(kAdapterUnavailable) ==
             "NUM_ADAPTERS:1 HCA:mlx5_1 num_adapters=1 hca=mlx5_1 reason=removed");
  r.verbs.add("mlx5_2", 1);
  r.sys.addDevice("mlx5_2", 1);
  r.sweep();
  BOOST_TEST(r.monitor().deviceCount() == 2u);
  BOOST_TEST(r.payloadOf(kAdapterAvailable) == "NUM_ADAPTERS:2 num_adapters=2 hcas=mlx5_0,mlx5_2");
  BOOST_TEST(r.has(kAdapterInfo, "HCA:mlx5_2 "));
}

BOOST_AUTO_TEST_CASE(sweeps_see_changes_the_events_did_not_report) {
  Rig r;
  r.start();
  r.verbs.port("mlx5_0", 2).state = 2;  // INIT, no event
  r.verbs.port("mlx5_0", 2).phys_state = 5;
  r.verbs.port("mlx5_0", 1).sm_lid = 7;
  r.verbs.port("mlx5_0", 1).lid = 99;
  r.sweep();
  BOOST_TEST(r.sink.count(kPortErr) == 1u);  // ACTIVE -> INIT
  BOOST_TEST(r.has(kPortErr, "state=PORT_INIT phys_state=LinkUp previous=PORT_ACTIVE source=sweep"));
  BOOST_TEST(r.has(kLidChange, "previous_lid=17 source=sweep"));
  BOOST_TEST(r.has(kSmChange, "previous_sm_lid=1 source=sweep"));
  r.verbs.port("mlx5_0", 2).state = 3;  // INIT -> ARMED: neither error nor active
  r.sweep();
  BOOST_TEST(r.has(kPortInfo, "state=PORT_ARMED phys_state=LinkUp previous=PORT_INIT"));
  r.verbs.port("mlx5_0", 2).state = kStateActive;
  r.sweep();
  BOOST_TEST(r.has(kPortActive, "previous=PORT_ARMED source=sweep"));
}

BOOST_AUTO_TEST_CASE(a_failing_port_query_is_trouble_said_once) {
  Rig r;
  r.start();
  r.verbs.device("mlx5_1").query_status = ftb::Status(ftb::Code::kInternal, "ibv_query_port: Input/output error");
  r.sweep();
  r.sweep();
  BOOST_TEST(r.sink.count(kMonitorTrouble) == 1u);
  BOOST_TEST(r.has(kMonitorTrouble, "cannot query mlx5_1 port 1"));
  BOOST_TEST(r.monitor().deviceCount() == 2u);  // not a reason to drop the device
}

BOOST_AUTO_TEST_CASE(rising_error_counters_degrade_the_port_then_it_recovers) {
  Rig r;
  r.start();
  r.sys.setCounter("mlx5_0", 2, "symbol_error", 25);
  r.sys.setCounter("mlx5_0", 2, "link_downed", 1);
  r.sweep();
  BOOST_TEST(r.sink.count(kPortDegraded) == 1u);
  const RecordedEvent& e = r.sink.last(kPortDegraded);
  BOOST_TEST(e.payload.starts_with("HCA:mlx5_0 PORT:2 STATE:PORT_ACTIVE hca=mlx5_0 port=2"));
  BOOST_TEST(e.payload.find("reasons=\"symbol_error 25/min > 10/min\" symbol_error=25 ") !=
             std::string::npos);
  BOOST_TEST(e.tags.at("port") == "2");
  // Quiet: the 25 leave the 60 s window, then two clean sweeps.
  for (int i = 0; i < 8; ++i) r.sweep();
  BOOST_TEST(r.sink.count(kPortHealthy) == 1u);
  BOOST_TEST(r.has(kPortHealthy, "HCA:mlx5_0 PORT:2 "));
  BOOST_TEST(r.sink.count(kPortDegraded) == 1u);
}

BOOST_AUTO_TEST_CASE(saturation_reset_malformed_and_missing_counters) {
  Rig r;
  r.sys.setCounter("mlx5_1", 1, "local_link_integrity_errors", 14);
  r.start();
  r.sys.setCounter("mlx5_1", 1, "local_link_integrity_errors", 15);  // 4-bit maximum
  r.sweep();
  BOOST_TEST(r.has(kPortDegraded, "local_link_integrity_errors saturated at its maximum"));
  r.sys.setCounter("mlx5_1", 1, "local_link_integrity_errors", 0);  // reset
  r.sys.write("mlx5_1", 1, "counters/symbol_error", "not-a-number");
  r.sys.removeCounter("mlx5_1", 1, "link_downed");
  for (int i = 0; i < 3; ++i) {
    r.sweep();
    r.sys.write("mlx5_1", 1, "counters/symbol_error", "bad" + std::to_string(i));
  }
  BOOST_TEST(r.sink.count(kMonitorTrouble) == 1u);  // said once, not every sweep
  BOOST_TEST(r.sink.last(kMonitorTrouble).payload.starts_with(
      "FTB_IB_MONITOR: mlx5_1 port 1: counters/symbol_error: 'not-a-number' is not a number"));
  // The reset cleared the saturation; 1/min since is clean: healthy after two sweeps.
  BOOST_TEST(r.sink.count(kPortHealthy) == 1u);
}

BOOST_AUTO_TEST_CASE(the_sysfs_backend_reads_ports_from_the_tree) {
  FakeSysfs sys;
  sys.addDevice("mlx5_0", 1);
  SysfsDevices devices{SysfsTree(sys.root())};
  RecordingSink sink;
  Monitor m({.interval = 10s, .prediction = {.window = 60s}}, devices, SysfsTree(sys.root()), sink);
  Clock::time_point now{};
  m.start(now);
  BOOST_TEST(sink.count(kPortInfo) == 1u);
  sys.setState("mlx5_0", 1, 1, 2);
  m.sweep(now += 10s);
  BOOST_TEST(sink.last(kPortErr).payload.find("state=PORT_DOWN phys_state=Polling") !=
             std::string::npos);
  sys.setState("mlx5_0", 1, 4, 5);
  sys.setRate("mlx5_0", 1, "25 Gb/sec (1X EDR)");
  m.sweep(now += 10s);
  BOOST_TEST(sink.count(kPortActive) == 1u);
  BOOST_TEST(sink.last(kPortDegraded).payload.find("reasons=\"width 1X < 4X\"") != std::string::npos);
  sys.removeDevice("mlx5_0");
  m.sweep(now += 10s);
  BOOST_TEST(m.deviceCount() == 0u);
  BOOST_TEST(sink.last(kAdapterUnavailable).payload.find("reason=removed") != std::string::npos);
}
