// Test and benchmark support: ftb-run driving mpi_bridge's stencil in a
// NetnsLab (netns_lab.h). Per lab node an ipmi_sim BMC watched by its own
// ftb-ipmi (connected to that node's agent), an observer at the head that
// collects the whole story (FTB.JL/NLA/MPI/IPMI/AGENT), and helpers that
// start ftb-run and await the recovery steps with Boost.Test assertions.
//
//   JobLab lab(JobShape{...});
//   pid_t pid = lab.start("FAN", {"--spares", "n4"});
//   lab.awaitComputing("FAN");
//   lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");   // FAN1 to 0 RPM
//   ...
//   BOOST_TEST(lab.finish(pid) == expected);
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "components/ipmi/testing/ipmi_sim_process.h"
#include "components/ipmi/testing/monitor_process.h"
#include "components/ipmi/testing/monitor_rig.h"
#include "components/launcher_bridge/lab/netns_lab.h"
#include "tests/support/agent_process.h"

namespace ftb::launcher::lab {

// The lab's nodes, the job's part of them and the stencil's arguments.
struct JobShape {
  std::vector<std::string> nodes;      // every lab node (each gets a BMC + ftb-ipmi)
  std::vector<std::string> job_nodes;  // ftb-run --nodes
  int ranks_per_node = 2;
  std::vector<std::string> stencil;    // after the stencil binary
  int ipmi_interval_ms = 500;          // ftb-ipmi's sweep interval
  int ranks() const { return static_cast<int>(job_nodes.size()) * ranks_per_node; }
};

std::string tag(const Event& e, const std::string& key);
double seconds(const Event& e);  // the event's own timestamp
double now();                    // wall clock, same epoch
// Event named `name` carrying every tag of `tags`.
std::function<bool(const Event&)> is(const std::string& name, std::map<std::string, std::string> tags = {});

// Where no lab can be built here (NetnsLab::unavailable()), prints
// "SKIPPED: <why>" and returns true; a test or benchmark case then returns.
bool skipped();

class JobLab {
 public:
  explicit JobLab(JobShape shape);
  // Fails the test if anything in the lab tried to reach an address outside it.
  ~JobLab();

  // Starts ftb-run in the head on the shape's job nodes; `extra` goes before "--".
  pid_t start(const std::string& job, std::vector<std::string> extra);
  // Starts ftb-run in the head under `allocation` (e.g. {"salloc", "-w",
  // "n1,n2,n3,n4", "--"}) without --nodes: ftb-run takes the allocation's.
  pid_t startInAllocation(const std::string& job, const std::vector<std::string>& allocation,
                          std::vector<std::string> extra);
  // Starts `ftb-run --adopt JOB` in the head: a new launcher taking over the
  // job from the journal the last start() left in the lab's state directory.
  pid_t adopt(const std::string& job);
  // Waits for ftb-run to end; returns the stencil's last RESULT line (checked: exit 0).
  std::string finish(pid_t pid);
  // The first event from index `from` matching `p`; fails the test with ftb-run's log otherwise.
  Event require(const std::function<bool(const Event&)>& p, const std::string& what, std::size_t from = 0,
                std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Every rank restored for `corr` (the `moved` ones rebuilt from other
  // nodes), then the launcher says the job runs again; returns that event.
  Event requireRestored(const std::string& corr, const std::vector<int>& moved);
  // The job computes: an operator's checkpoint request is answered by every rank.
  void awaitComputing(const std::string& job);

  JobShape shape;  // start() reads it: a caller may change the stencil between runs
  NetnsLab lab;
  ftb::ipmi::testing::MonitorRig rig;
  std::unique_ptr<ftb::testing::EventCollector> story;
  std::map<std::string, std::unique_ptr<ftb::ipmi::testing::IpmiSimProcess>> bmcs;
  std::map<std::string, std::unique_ptr<ftb::ipmi::testing::MonitorProcess>> monitors;
  std::string log;  // ftb-run's log of the last start()

 private:
  std::string logTail() const;
  pid_t launch(const std::string& job, std::vector<std::string> prefix, std::vector<std::string> extra);
};

}  // namespace ftb::launcher::lab
