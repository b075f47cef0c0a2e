#include "components/launcher_bridge/lab/netns_lab.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "client/client.h"
#include "tests/support/spawn.h"

namespace ftb::launcher::lab {

namespace {

using ftb::Client;
using ftb::Notification;
using ftb::Severity;

void pause(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1'000'000L};
  nanosleep(&ts, nullptr);
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

void must(const std::vector<std::string>& argv) {
  std::string out;
  if (int rc = run(argv, &out); rc != 0) {
    throw std::runtime_error("'" + joined(argv) + "' failed (" + std::to_string(rc) + "): " + out);
  }
}

std::vector<pid_t> pidsIn(const std::string& ns) {
  std::string out;
  run({"ip", "netns", "pids", ns}, &out);
  std::vector<pid_t> pids;
  std::istringstream in(out);
  for (pid_t p; in >> p;) pids.push_back(p);
  return pids;
}

// spawn() execs without a PATH search: find the program in PATH or the sbin dirs.
std::vector<std::string> resolved(std::vector<std::string> argv) {
  if (argv.empty() || argv[0].find('/') != std::string::npos) return argv;
  const char* path = std::getenv("PATH");
  std::string dirs = std::string(path != nullptr ? path : "/usr/bin:/bin") + ":/usr/sbin:/sbin";
  std::istringstream in(dirs);
  for (std::string d; std::getline(in, d, ':');) {
    const std::string candidate = d + "/" + argv[0];
    if (access(candidate.c_str(), X_OK) == 0) {
      argv[0] = candidate;
      break;
    }
  }
  return argv;
}

}  // namespace

int run(const std::vector<std::string>& argv, std::string* out) {
  const std::string log = out != nullptr ? std::string("/tmp/ftb-lab-run.") + std::to_string(getpid()) : "/dev/null";
  pid_t pid = ftb::testing::spawn(resolved(argv), log);
  int status = 0;
  waitpid(pid, &status, 0);
  if (out != nullptr) {
    std::ifstream in(log);
    out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    unlink(log.c_str());
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::optional<int> waitExit(pid_t pid, int timeout_ms) {
  for (int waited = 0;; waited += 20) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (waited >= timeout_ms) return std::nullopt;
    pause(20);
  }
}

std::optional<std::string> NetnsLab::unavailable() {
  if (geteuid() != 0) return "network namespaces need root";
  const std::string probe = "ftblabprobe" + std::to_string(getpid());
  if (run({"ip", "netns", "add", probe}) != 0) return "'ip netns add' failed (no iproute2 or no CAP_SYS_ADMIN)";
  run({"ip", "netns", "del", probe});
  if (run({"sh", "-c", "command -v nsenter && command -v unshare && command -v mpirun"}) != 0) {
    return "nsenter, unshare or mpirun missing (deploy/install-deps.sh)";
  }
  return std::nullopt;
}

NetnsLab::NetnsLab(std::vector<std::string> nodes, int octet)
    : nodes_(std::move(nodes)), octet_(octet), tag_("jl" + std::to_string(getpid()) + "_") {
  head_ns_ = tag_ + "head";
  const std::string net = "10.253." + std::to_string(octet_) + ".";
  writeFiles();  // first: every anchor bind-mounts the hosts file
  must({"ip", "netns", "add", head_ns_});
  namespaces_.push_back(head_ns_);
  must({"ip", "-n", head_ns_, "link", "set", "lo", "up"});
  must({"ip", "-n", head_ns_, "link", "add", "br0", "type", "bridge"});
  must({"ip", "-n", head_ns_, "addr", "add", net + "1/24", "dev", "br0"});
  must({"ip", "-n", head_ns_, "link", "set", "br0", "up"});
  startAnchor("head", head_ns_, "");  // the machine's hostname and /dev/shm, the lab's hosts file
  for (std::size_t i = 0; i < nodes_.size(); ++i) createNode(i);
}

void NetnsLab::createNode(std::size_t i) {
  const std::string& node = nodes_[i];
  const std::string n = ns(node);
  const std::string net = "10.253." + std::to_string(octet_) + ".";
  must({"ip", "netns", "add", n});
  namespaces_.push_back(n);
  const std::string port = "p" + std::to_string(i);
  must({"ip", "link", "add", "veth0", "netns", n, "type", "veth", "peer", "name", port, "netns", head_ns_});
  must({"ip", "-n", n, "link", "set", "lo", "up"});
  must({"ip", "-n", n, "addr", "add", net + std::to_string(11 + i) + "/24", "dev", "veth0"});
  must({"ip", "-n", n, "link", "set", "veth0", "up"});
  must({"ip", "-n", head_ns_, "link", "set", port, "master", "br0"});
  must({"ip", "-n", head_ns_, "link", "set", port, "up"});
  startAnchor(node, n, "hostname " + node + " && mount -t tmpfs -o size=4g tmpfs /dev/shm && ");
}

// The anchor holds the UTS and mount namespaces that `setup` (shell commands
// ending in "&& ") changes, with the lab's hosts file and nsswitch.conf over
// /etc's; anchor(name) is its pid.
void NetnsLab::startAnchor(const std::string& name, const std::string& netns, const std::string& setup) {
  const std::string pidfile = dir() + "/" + name + ".anchor";
  spawn({"nsenter", "--net=/run/netns/" + netns, "unshare", "--uts", "--mount", "--propagation", "private", "--fork",
         "sh", "-c",
         setup + "mount --bind " + dir() + "/hosts /etc/hosts && mount --bind " + dir() +
             "/nsswitch.conf /etc/nsswitch.conf && echo $$ > " + pidfile + ".tmp && mv " + pidfile + ".tmp " +
             pidfile + " && exec sleep infinity"},
        pidfile + ".log");
  for (int waited = 0; anchor(name) <= 0; waited += 20) {
    if (waited > 5000) throw std::runtime_error(name + " did not come up (see " + pidfile + ".log)");
    pause(20);
  }
}

pid_t NetnsLab::anchor(const std::string& node) const {
  std::ifstream in(dir() + "/" + node + ".anchor");
  pid_t pid = 0;
  in >> pid;
  return pid;
}

void NetnsLab::writeFiles() const {
  const std::string net = "10.253." + std::to_string(octet_) + ".";
  {
    // Processes in the head may look up their own hostname (the machine's).
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::ofstream out(dir() + "/hosts");
    out << "127.0.0.1 localhost\n" << net << "1 ctl " << host << "\n";
    for (std::size_t i = 0; i < nodes_.size(); ++i) out << net << (11 + i) << " " << nodes_[i] << "\n";
  }
  {
    // Only the lab's hosts file: a name missing from it (or asked for as IPv6
    // only, as `getent hosts` and others do first) fails at once instead of
    // going to DNS. The machine's other lines are kept.
    std::ifstream machine("/etc/nsswitch.conf");
    std::ofstream out(dir() + "/nsswitch.conf");
    out << "hosts: files\n";
    for (std::string line; std::getline(machine, line);) {
      if (!line.starts_with("hosts:")) out << line << "\n";
    }
  }
  {
    std::ofstream out(rshAgent());
    // Open MPI calls "agent [options] HOST orted ..." with the command as one shell string.
    out << "#!/bin/sh\n"
        << "while [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; done\n"
        << "host=$1; shift\n"
        << "a=$(cat " << dir() << "/$host.anchor 2>/dev/null)\n"
        << "[ -n \"$a\" ] && [ -d /proc/$a ] || { echo \"nsrsh: node $host is down\" >&2; exit 255; }\n"
        << "exec nsenter -t \"$a\" --net --uts --mount -- env FTB_AGENT_ENDPOINT=ipc://" << dir()
        << "/$host.sock sh -c \"$*\"\n";
  }
  chmod(rshAgent().c_str(), 0755);
  std::ofstream out(mcaParamFile());
  out << "plm_rsh_agent = " << rshAgent() << "\n"
      << "pml = ob1\nmtl = ^ofi\nbtl = tcp,self\n"
      << "btl_tcp_if_include = " << subnet() << "\noob_tcp_if_include = " << subnet() << "\n"
      << "oob_tcp_keepalive_time = 3\noob_tcp_keepalive_intvl = 1\noob_tcp_keepalive_probes = 3\n"
      << "orte_tmpdir_base = /dev/shm\nrmaps_base_oversubscribe = 1\n"
      // More ranks than cores: a rank waiting in MPI gives its core up.
      << "mpi_yield_when_idle = 1\n";
}

std::vector<std::string> NetnsLab::inHead(std::vector<std::string> argv) const {
  // --wd: the anchor's working directory, the test's (entering a mount namespace alone moves to /).
  argv.insert(argv.begin(), {"nsenter", "-t", std::to_string(anchor("head")), "--net", "--mount", "--wd", "--"});
  return argv;
}

std::vector<std::string> NetnsLab::inNode(const std::string& node, std::vector<std::string> argv) const {
  argv.insert(argv.begin(), {"nsenter", "-t", std::to_string(anchor(node)), "--net", "--uts", "--mount", "--"});
  return argv;
}

pid_t NetnsLab::spawn(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = ftb::testing::spawn(resolved(argv), log);
  children_.insert(pid);
  return pid;
}

void NetnsLab::startAgents(const std::string& agent) {
  const std::string net = "10.253." + std::to_string(octet_) + ".";
  const std::string seed = "tcp://" + net + "1:10809";
  spawn(inHead({agent, "--name", "head", "--ipc-endpoint", headEndpoint(), "--tcp-endpoint", seed,
                "--tree-authentication", "insecure-none", "--log-level", "warn"}),
        dir() + "/agent-head.log");
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const std::string& node = nodes_[i];
    spawn(inNode(node, {agent, "--name", node, "--ipc-endpoint", nodeEndpoint(node), "--tcp-endpoint",
                        "tcp://" + net + std::to_string(11 + i) + ":10809", "--tree-seeds", seed,
                        "--tree-authentication", "insecure-none", "--log-level", "warn"}),
          dir() + "/agent-" + node + ".log");
  }
  awaitTree();
}

void NetnsLab::awaitTree() {
  std::unique_ptr<Client> head;
  for (int waited = 0; !head; waited += 100) {
    auto c = Client::connect({.event_space = "FTB.LAB.PROBE", .client_name = "lab", .agent_endpoint = headEndpoint()});
    if (c.ok()) head = std::move(*c);
    else if (waited > 20000) throw std::runtime_error("the head agent never answered: " + c.status().toString());
    else pause(100);
  }
  std::mutex mu;
  std::set<std::string> heard;
  auto sub = head->subscribe({.filter = "event_space=FTB.LAB.PROBE", .callback = [&](const Notification& n) {
                                std::lock_guard lock(mu);
                                heard.insert(n.event.payload);
                              }});
  if (!sub.ok()) throw std::runtime_error("probe subscription: " + sub.status().toString());
  std::map<std::string, std::unique_ptr<Client>> probes;
  // A loaded machine starves the agents for a second or more at a time: each
  // probe connect may take seconds, and the bound is on the clock, generous.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  for (;;) {
    std::size_t count = 0;
    for (const auto& node : nodes_) {
      {
        std::lock_guard lock(mu);
        if (heard.count(node) != 0) {
          ++count;
          continue;
        }
      }
      // Each node's agent may still be joining: publish again until heard.
      if (!probes[node]) {
        auto c = Client::connect({.event_space = "FTB.LAB.PROBE", .client_name = "lab",
                                  .agent_endpoint = nodeEndpoint(node), .connect_timeout = std::chrono::seconds(5)});
        if (c.ok() && (*c)->declare({{"PROBE", Severity::kInfo}}).ok()) probes[node] = std::move(*c);
      }
      if (probes[node]) (void)probes[node]->publish("PROBE", node);
    }
    if (count == nodes_.size()) break;
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("the agents' tree never formed within 90 s (see " + dir() + "/agent-*.log)");
    }
    pause(100);
  }
  for (auto& [node, c] : probes) {
    if (c) (void)c->disconnect();
  }
  (void)head->disconnect();
}

void NetnsLab::startSlurm() {
  const std::string d = dir();
  for (const char* sub : {"/slurm-state", "/slurm-spool", "/slurm-log"}) mkdir((d + sub).c_str(), 0700);
  must({"sh", "-c", "head -c 1024 /dev/urandom > " + d + "/munge.key && chmod 600 " + d + "/munge.key"});
  must({"munged", "--force", "--key-file=" + d + "/munge.key", "--socket=" + d + "/munge.sock",
        "--pid-file=" + d + "/munged.pid", "--log-file=" + d + "/munged.log", "--seed-file=" + d + "/munged.seed"});
  munged_ = true;
  const std::string net = "10.253." + std::to_string(octet_) + ".";
  {
    std::ofstream conf(slurmConf());
    conf << "ClusterName=ftblab\nSlurmctldHost=ctl(" << net << "1)\nSlurmUser=root\nSlurmdUser=root\n"
         << "AuthType=auth/munge\nAuthInfo=socket=" << d << "/munge.sock\nCredType=cred/munge\n"
         << "StateSaveLocation=" << d << "/slurm-state\nSlurmdSpoolDir=" << d << "/slurm-spool/%n\n"
         << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.%n.pid\n"
         << "SlurmctldLogFile=" << d << "/slurm-log/slurmctld.log\nSlurmdLogFile=" << d << "/slurm-log/slurmd.%n.log\n"
         // No cgroups in a VM without a usable cgroup tree (slurm-lab.md).
         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
         << "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\nMpiDefault=none\n"
         << "ReturnToService=2\nSlurmdTimeout=30\nMailProg=/bin/true\n";
    std::string names;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      conf << "NodeName=" << nodes_[i] << " NodeAddr=" << net << (11 + i) << " CPUs=2 RealMemory=1000 State=UNKNOWN\n";
      names += (names.empty() ? "" : ",") + nodes_[i];
    }
    conf << "PartitionName=batch Nodes=" << names << " Default=YES MaxTime=INFINITE State=UP\n";
  }
  // slurmctld and slurmd daemonize; they live in the lab's namespaces and die with them.
  const std::string slurmctld = resolved({"slurmctld"})[0];
  const std::string slurmd = resolved({"slurmd"})[0];
  must(inHead({"unshare", "--uts", "sh", "-c", "hostname ctl && exec " + slurmctld + " -f " + slurmConf()}));
  for (const auto& node : nodes_) must(inNode(node, {slurmd, "-f", slurmConf(), "-N", node}));
  for (int waited = 0;; waited += 200) {
    bool all_idle = true;
    for (const auto& node : nodes_) all_idle = all_idle && slurmState(node).rfind("idle", 0) == 0;
    if (all_idle) return;
    if (waited > 30000) throw std::runtime_error("slurm nodes not idle after 30 s (see " + d + "/slurm-log)");
    pause(200);
  }
}

std::string NetnsLab::slurmState(const std::string& node) const {
  std::string out;
  run(inHead({"env", "SLURM_CONF=" + slurmConf(), "sinfo", "-h", "-N", "-n", node, "-o", "%T %E"}), &out);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

void NetnsLab::killNode(const std::string& node) {
  for (int round = 0; round < 100; ++round) {
    std::vector<pid_t> pids = pidsIn(ns(node));
    if (pids.empty()) return;
    for (pid_t p : pids) kill(p, SIGKILL);
    pause(50);
  }
  throw std::runtime_error("processes of node " + node + " survive SIGKILL");
}

pid_t NetnsLab::rankPid(const std::string& node, int rank) {
  const std::string wanted = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (pid_t p : pidsIn(ns(node))) {
    std::ifstream environ("/proc/" + std::to_string(p) + "/environ", std::ios::binary);
    std::string entry;
    bool found = false;
    while (std::getline(environ, entry, '\0')) found |= entry == wanted;
    // orted's children that are ranks carry it; ftb-run --rank-exec execs the program, same pid.
    if (found) return p;
  }
  return -1;
}

std::string NetnsLab::outsideTraffic() const {
  std::string report;
  for (const auto& n : namespaces_) {
    std::string out;  // "#kernel", then "IpOutNoRoutes <count> <rate>" and the same for IPv6
    if (run({"nsenter", "--net=/run/netns/" + n, "nstat", "-asz", "IpOutNoRoutes", "Ip6OutNoRoutes"}, &out) != 0) {
      report += (report.empty() ? "" : ", ") + n.substr(tag_.size()) + ": not counted (nstat: " + out + ")";
      continue;
    }
    long attempts = 0;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string name;
      long count = 0;
      if (fields >> name >> count) attempts += count;
    }
    if (attempts > 0) report += (report.empty() ? "" : ", ") + n.substr(tag_.size()) + ": " + std::to_string(attempts);
  }
  return report;
}

NetnsLab::~NetnsLab() {
  // A child the caller reaped (waitExit) is gone and its pid may be another
  // process's now: keep only those still ours (WNOWAIT: not reaped here).
  std::erase_if(children_, [](pid_t p) {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(p), &info, WEXITED | WNOHANG | WNOWAIT) != 0;
  });
  for (pid_t p : children_) kill(p, SIGTERM);
  for (const auto& n : namespaces_) {
    for (pid_t p : pidsIn(n)) kill(p, SIGTERM);
  }
  for (pid_t p : children_) {
    if (!waitExit(p, 3000)) {
      kill(p, SIGKILL);
      waitpid(p, nullptr, 0);
    }
  }
  for (const auto& n : namespaces_) {
    for (pid_t p : pidsIn(n)) kill(p, SIGKILL);
  }
  for (const auto& n : namespaces_) run({"ip", "netns", "del", n});
  if (munged_) {
    std::ifstream in(dir() + "/munged.pid");
    pid_t pid = 0;
    if (in >> pid && pid > 0) kill(pid, SIGTERM);
  }
}

}  // namespace ftb::launcher::lab
