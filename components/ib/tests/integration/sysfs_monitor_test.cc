// The real ftb-ib binary (--backend=sysfs) over a sysfs tree the test writes,
// publishing through a real ftb-agent to a subscriber, cross-checked against
// an independent reader of the same tree: Prometheus node_exporter's
// infiniband collector (--path.sysfs), scraped on a loopback port.
// Also: ftb-ib with the real libibverbs on this host (no RDMA in its kernel)
// reports "no adapters" once and keeps running.
#define BOOST_TEST_MODULE ib_sysfs_monitor
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "components/ib/port_attrs.h"
#include "components/ib/testing/fake_sysfs.h"
#include "tests/support/agent_process.h"
#include "tests/support/event_collector.h"
#include "tests/support/spawn.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::ib::testing::FakeSysfs;
using ftb::testing::EventCollector;
using ftb::testing::field;
using ftb::testing::AgentProcess;
using ftb::testing::runfile;
using ftb::testing::TempDir;

namespace {

constexpr const char* kNodeExporter = "/usr/bin/prometheus-node-exporter";

// A child process (ftb-ib or node_exporter) with its output in a log; SIGTERM on destruction.
class Child {
 public:
  explicit Child(std::vector<std::string> args)
      : pid_(ftb::testing::spawn(std::move(args), dir_.path() + "/out.log")) {}
  ~Child() { stop(); }
  // SIGTERM and the exit status (128 + signal when killed).
  int stop() {
    if (pid_ <= 0) return status_;
    ::kill(pid_, SIGTERM);
    int status = 0;
    if (!ftb::testing::waitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, 10s)) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return status_;
  }
  bool running() { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }
  std::string log() const {
    std::ifstream in(dir_.path() + "/out.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  TempDir dir_;
  pid_t pid_;
  int status_ = -1;
};

// A loopback port nobody listens on right now (the kernel's choice).
int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
  socklen_t len = sizeof(a);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    throw std::runtime_error("cannot bind a loopback port");
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

// GET /metrics over plain HTTP/1.0; "" when nothing answers.
std::string scrape(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = {htonl(INADDR_LOOPBACK)}};
  std::string body;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) {
    const std::string req = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[8192];
      for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) body.append(buf, n);
    }
  }
  ::close(fd);
  return body;
}

// node_exporter on the tree; metric("state_id", "mlx5_0", 1) reads one value.
class NodeExporter {
 public:
  explicit NodeExporter(const std::string& sysfs_root)
      : port_(freeLoopbackPort()),
        child_({kNodeExporter, "--path.sysfs=" + sysfs_root, "--collector.disable-defaults",
                "--collector.infiniband", "--web.listen-address=127.0.0.1:" + std::to_string(port_)}) {
    BOOST_REQUIRE_MESSAGE(ftb::testing::waitFor([&] { return !scrape(port_).empty(); }, 15s),
                          "node_exporter did not answer: " + child_.log());
  }
  std::optional<double> metric(const std::string& name, const std::string& hca, int port) {
    const std::string key = "node_infiniband_" + name + "{device=\"" + hca + "\",port=\"" +
                            std::to_string(port) + "\"} ";
    std::istringstream lines(scrape(port_));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(key, 0) == 0) return std::stod(line.substr(key.size()));
    }
    return std::nullopt;
  }

 private:
  int port_;
  Child child_;
};

auto about(std::string name, std::string hca, std::string port = "") {
  return [=](const Event& e) {
    return e.event_name == name && e.tags.count("hca") && e.tags.at("hca") == hca &&
           (port.empty() || e.tags.at("port") == port);
  };
}

struct Rig {
  Rig() {
    BOOST_REQUIRE_MESSAGE(std::filesystem::exists(kNodeExporter),
                          "prometheus-node-exporter missing: run deploy/install-deps.sh");
    sys.addDevice("mlx5_0", 2);
    sys.addDevice("mlx5_1", 1);
    sys.setState("mlx5_1", 1, 1, 2);  // DOWN, Polling
    sys.setRate("mlx5_0", 2, "56 Gb/sec (4X FDR)");
    sys.setCounter("mlx5_0", 1, "symbol_error", 1234);
    sys.setCounter("mlx5_0", 1, "port_xmit_data", 1000);
  }
  Child startMonitor() {
    return Child({runfile("components/ib/ftb-ib"), "--backend=sysfs", "--sysfs-root=" + sys.root(),
                  "--agent-endpoint=" + agent.ipcEndpoint(), "--interval-ms=200", "--window-s=2",
                  "--threshold=symbol_error=600", "--recover-sweeps=2"});
  }
  Event await(const std::function<bool(const Event&)>& p, std::size_t from = 0) {
    auto e = events.waitFor(p, 20s, from);  // a sweep or two, on a loaded machine
    BOOST_REQUIRE_MESSAGE(e.has_value(), "event not published");
    return *e;
  }

  FakeSysfs sys;
  AgentProcess agent;
  EventCollector events{agent.ipcEndpoint(), "event_space=FTB.IB.*"};
};

}  // namespace

BOOST_AUTO_TEST_CASE(what_ftb_ib_publishes_matches_node_exporter) {
  Rig r;
  NodeExporter exporter(r.sys.root());
  Child monitor = r.startMonitor();

  Event available = r.await([](const Event& e) { return e.event_name == "FTB_IB_ADAPTER_AVAILABLE"; });
  BOOST_TEST(available.event_space == "FTB.IB.MONITOR");
  BOOST_TEST(available.payload.starts_with("NUM_ADAPTERS:2 "));
  BOOST_TEST((available.severity == ftb::Severity::kInfo));

  // Every port: state, physical state and rate as node_exporter decodes them.
  for (auto [hca, port] : std::vector<std::pair<std::string, int>>{{"mlx5_0", 1}, {"mlx5_0", 2}, {"mlx5_1", 1}}) {
    Event info = r.await(about("FTB_IB_PORT_INFO", hca, std::to_string(port)));
    const std::string what = hca + "/" + std::to_string(port);
    BOOST_TEST(info.payload.starts_with("HCA:" + hca + " PORT:" + std::to_string(port) + " STATE:"), what);
    auto state = exporter.metric("state_id", hca, port);
    auto phys = exporter.metric("physical_state_id", hca, port);
    auto rate = exporter.metric("rate_bytes_per_second", hca, port);
    BOOST_TEST_REQUIRE((state && phys && rate), what);
    BOOST_TEST(field(info, "state") == ftb::ib::portStateName(static_cast<int>(*state)), what);
    BOOST_TEST(field(info, "phys_state") == ftb::ib::physStateName(static_cast<int>(*phys)), what);
    // ftb-ib reports lanes and lane speed; node_exporter the total in bytes per second.
    const double lanes = std::stod(field(info, "width"));  // "4X" -> 4
    const std::map<std::string, double> lane_gbps = {{"EDR", 25}, {"FDR", 14}};
    BOOST_TEST(lanes * lane_gbps.at(field(info, "speed")) * 1e9 / 8 == *rate, what);
  }
  Event adapter = r.await(about("FTB_IB_ADAPTER_INFO", "mlx5_0"));
  BOOST_TEST(field(adapter, "fw_ver") == "20.99.1000");

  // Symbol errors rising: 20 in the 2 s window = 600/min... above 600/min needs more.
  const std::size_t mark = r.events.size();
  r.sys.setCounter("mlx5_0", 1, "symbol_error", 1234 + 40);
  Event degraded = r.await(about("FTB_IB_PORT_DEGRADED", "mlx5_0", "1"), mark);
  BOOST_TEST((degraded.severity == ftb::Severity::kWarning));
  BOOST_TEST(field(degraded, "reasons").starts_with("symbol_error 1200/min > 600/min"));
  auto symbol_errors = exporter.metric("symbol_error_total", "mlx5_0", 1);
  BOOST_TEST_REQUIRE(symbol_errors.has_value());
  BOOST_TEST(std::stod(field(degraded, "symbol_error")) == *symbol_errors);
  // Quiet again: healthy once the 40 have left the window and two sweeps were clean.
  Event healthy = r.await(about("FTB_IB_PORT_HEALTHY", "mlx5_0", "1"), mark);
  BOOST_TEST(healthy.payload.starts_with("HCA:mlx5_0 PORT:1 STATE:PORT_ACTIVE"));

  // Link down, then up: PORT_ERR and PORT_ACTIVE, and node_exporter agrees on the state.
  r.sys.setState("mlx5_0", 2, 1, 3);
  Event err = r.await(about("FTB_IB_PORT_ERR", "mlx5_0", "2"), mark);
  BOOST_TEST((err.severity == ftb::Severity::kError));
  BOOST_TEST(field(err, "previous") == "PORT_ACTIVE");
  BOOST_TEST(*exporter.metric("state_id", "mlx5_0", 2) == 1);
  BOOST_TEST(field(err, "state") == "PORT_DOWN");
  r.sys.setState("mlx5_0", 2, 4, 5);
  r.sys.setRate("mlx5_0", 2, "14 Gb/sec (1X FDR)");  // came back on one lane
  r.await(about("FTB_IB_PORT_ACTIVE", "mlx5_0", "2"), mark);
  Event narrow = r.await(about("FTB_IB_PORT_DEGRADED", "mlx5_0", "2"), mark);
  BOOST_TEST(field(narrow, "reasons") == "width 1X < 4X");
  BOOST_TEST(*exporter.metric("rate_bytes_per_second", "mlx5_0", 2) == 14e9 / 8);

  // A malformed counter is the monitor's trouble, said once.
  r.sys.write("mlx5_0", 1, "counters/link_downed", "garbage");
  Event trouble = r.await([](const Event& e) { return e.event_name == "FTB_IB_MONITOR_TROUBLE"; }, mark);
  BOOST_TEST(trouble.payload.find("counters/link_downed: 'garbage' is not a number") != std::string::npos);

  // An adapter removed: ADAPTER_UNAVAILABLE, and node_exporter no longer sees it.
  r.sys.removeDevice("mlx5_1");
  Event gone = r.await(about("FTB_IB_ADAPTER_UNAVAILABLE", "mlx5_1"), mark);
  BOOST_TEST((gone.severity == ftb::Severity::kWarning));
  BOOST_TEST(gone.payload.starts_with("NUM_ADAPTERS:1 HCA:mlx5_1 "));
  BOOST_TEST(!exporter.metric("state_id", "mlx5_1", 1).has_value());

  const auto trouble_events = r.events.count(
      [](const Event& e) { return e.event_name == "FTB_IB_MONITOR_TROUBLE"; });
  BOOST_TEST(trouble_events == 1u);
  BOOST_TEST(monitor.stop() == 0, monitor.log());  // clean shutdown on SIGTERM
}

BOOST_AUTO_TEST_CASE(real_libibverbs_on_a_node_without_rdma_says_no_adapters_once) {
  AgentProcess agent;
  EventCollector events{agent.ipcEndpoint(), "event_space=FTB.IB.*"};
  Child monitor({runfile("components/ib/ftb-ib"), "--agent-endpoint=" + agent.ipcEndpoint(),
                 "--interval-ms=100", "--component=NODE7"});
  auto e = events.waitFor([](const Event& e) { return e.event_name == "FTB_IB_ADAPTER_UNAVAILABLE"; }, 10s);
  BOOST_TEST_REQUIRE(e.has_value(), monitor.log());
  BOOST_TEST(e->event_space == "FTB.IB.NODE7");
  BOOST_TEST(e->payload == "NUM_ADAPTERS:0 num_adapters=0 reason=\"none present\"");
  BOOST_TEST(monitor.log().find("no InfiniBand/RDMA adapters on this node") != std::string::npos);
  // About ten more sweeps (100 ms each): still running, nothing more said.
  BOOST_TEST(!events.waitFor([](const Event& e) { return e.event_name != "FTB_IB_ADAPTER_UNAVAILABLE"; }, 1s).has_value());
  BOOST_TEST(events.size() == 1u);
  BOOST_TEST(monitor.running());
  BOOST_TEST(monitor.stop() == 0, monitor.log());
}
