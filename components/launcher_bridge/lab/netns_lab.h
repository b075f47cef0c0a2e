// Test support: a small cluster on one machine. A head network namespace
// holds a bridge (10.253.<octet>.1/24), the root ftb-agent and the launcher;
// every node is its own network namespace (10.253.<octet>.1N) with its own
// UTS (hostname = node name) and mount namespace whose /dev/shm is a private
// tmpfs, so a node's shared-memory checkpoints die with it. Each node runs
// an ftb-agent that joins the head's tree (--tree-seeds).
//
//   NetnsLab lab({"n1", "n2", "n3", "n4"}, 0);   // throws on failure
//   lab.startAgents(runfile("agent/ftb-agent"));
//   lab.inHead({ftb_run, ...});                    // argv prefix for the head
//   lab.killNode("n3");                            // SIGKILL to everything in it
//   BOOST_TEST(lab.outsideTraffic().empty());      // nothing tried to leave the lab
//
// mpirun in the head reaches the nodes through rshAgent() (nsenter into the
// node; it sets FTB_AGENT_ENDPOINT to the node's agent) with the Open MPI
// parameters of mcaParamFile() (ob1 + TCP BTL on the lab subnet; see
// ../shared/notes/slurm-lab.md G6/G7).
//
// Names resolve inside the lab only: the head and every node have a private
// mount namespace (held, like a node's UTS one, by an "anchor" process) in
// which the lab's hosts file (localhost; the head as "ctl" and as the
// machine's hostname; every node) and an nsswitch.conf with "hosts: files"
// are bind-mounted over /etc's, so no lookup goes to the machine's DNS
// server. The machine's own files are never changed.
//
// No lab namespace has a default route: an attempt to reach any address
// beyond loopback and the lab subnet fails at once (ENETUNREACH), nothing
// leaves the lab, and the kernel counts the attempt in that namespace
// (IpOutNoRoutes, Ip6OutNoRoutes); outsideTraffic() reports those counts.
// A test must reach nothing else, so JobLab fails the test when any is not 0.
// (The kernel's counters rather than a default route into a dummy device:
// nothing waits for a dropped packet's timeout, and not every kernel has
// the dummy driver; this VM's has none.)
//
// Namespace names carry the test's pid, so parallel tests never collide;
// the destructor kills every process in them and the children it started
// that nobody reaped yet, then deletes the namespaces.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/agent_process.h"

namespace ftb::launcher::lab {

class NetnsLab {
 public:
  // Why no lab can be built here (not root, no `ip netns`), or nullopt.
  static std::optional<std::string> unavailable();

  NetnsLab(std::vector<std::string> nodes, int octet);
  ~NetnsLab();
  NetnsLab(const NetnsLab&) = delete;
  NetnsLab& operator=(const NetnsLab&) = delete;

  // The head's agent, then one per node; returns once an event published at
  // every node's agent reaches a subscriber at the head (throws after 20 s).
  void startAgents(const std::string& agent_binary);

  // A real Slurm cluster over the lab: munged (root namespace, private
  // socket), slurmctld in the head (hostname "ctl"), one slurmd per node.
  // Returns once sinfo shows every node idle (throws after 30 s). Clients
  // need SLURM_CONF=slurmConf() and must run in the head (inHead).
  void startSlurm();
  std::string slurmConf() const { return dir() + "/slurm.conf"; }
  // `sinfo` state and reason of `node`, e.g. "drained ftb: migrated off (FAN-1)".
  std::string slurmState(const std::string& node) const;

  const std::string& dir() const { return dir_.path(); }
  std::string headEndpoint() const { return "ipc://" + dir() + "/head.sock"; }
  std::string nodeEndpoint(const std::string& node) const { return "ipc://" + dir() + "/" + node + ".sock"; }
  std::string rshAgent() const { return dir() + "/nsrsh"; }
  std::string mcaParamFile() const { return dir() + "/mca-params.conf"; }
  std::string subnet() const { return "10.253." + std::to_string(octet_) + ".0/24"; }

  std::vector<std::string> inHead(std::vector<std::string> argv) const;
  std::vector<std::string> inNode(const std::string& node, std::vector<std::string> argv) const;

  // SIGKILL to every process in the node's network namespace (its agent,
  // orted, ranks, and the anchor that holds its /dev/shm); waits until none is left.
  void killNode(const std::string& node);
  // The MPI process of world rank `rank` running on `node` (found by
  // OMPI_COMM_WORLD_RANK in its environment), or -1 when none runs there.
  pid_t rankPid(const std::string& node, int rank);

  // Attempts from inside the lab to reach an address outside it, per
  // namespace ("head: 8, n3: 2"), or "" when there were none.
  std::string outsideTraffic() const;

  // Starts `argv` as a child (stdout+stderr to `log`) and remembers it for
  // cleanup. The caller may reap it (waitExit); the lab then leaves it alone.
  pid_t spawn(const std::vector<std::string>& argv, const std::string& log);

 private:
  void createNode(std::size_t index);
  void startAnchor(const std::string& name, const std::string& netns, const std::string& setup);
  void awaitTree();
  void writeFiles() const;
  std::string ns(const std::string& node) const { return tag_ + node; }
  pid_t anchor(const std::string& node) const;

  ftb::testing::TempDir dir_;
  std::vector<std::string> nodes_;
  int octet_;
  std::string tag_;
  std::string head_ns_;
  std::vector<std::string> namespaces_;
  std::set<pid_t> children_;  // a set: a reaped child's pid may come back as a new one
  bool munged_ = false;
};

// Runs argv, returns its exit code (stdout/stderr discarded unless `out`).
int run(const std::vector<std::string>& argv, std::string* out = nullptr);

// The exit code of child `pid` if it exits within `timeout_ms`, else nullopt.
std::optional<int> waitExit(pid_t pid, int timeout_ms);

}  // namespace ftb::launcher::lab
