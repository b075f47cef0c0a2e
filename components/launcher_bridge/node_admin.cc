#include "components/launcher_bridge/node_admin.h"

#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <sstream>
#include <vector>

namespace ftb::launcher {

Result<std::string> runProgram(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) return internalError("pipe failed");
  pid_t pid = fork();
  if (pid < 0) return internalError("fork failed");
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    return internalError("'" + cmd + "' failed (status " + std::to_string(status) + "): " + out);
  }
  return out;
}

Status SlurmNodeAdmin::drain(const std::string& node, const std::string& reason) {
  auto r = runProgram({scontrol_, "update", "nodename=" + node, "state=drain", "reason=" + reason});
  return r.ok() ? Status{} : r.status();
}

Status SlurmNodeAdmin::resume(const std::string& node) {
  auto r = runProgram({scontrol_, "update", "nodename=" + node, "state=resume"});
  return r.ok() ? Status{} : r.status();
}

std::optional<std::string> grantedJobId(const std::string& salloc_output) {
  std::smatch m;
  if (std::regex_search(salloc_output, m, std::regex("Granted job allocation ([0-9]+)"))) return m[1].str();
  return std::nullopt;
}

Result<std::vector<std::string>> SlurmNodeAdmin::requestNodes(int count, const std::string& job_id) {
  auto granted = runProgram({"salloc", "--no-shell", "--immediate=10", "-N", std::to_string(count),
                             "--job-name=ftb-spare-" + job_id});
  if (!granted.ok()) return unavailable("salloc: " + granted.status().message());
  auto id = grantedJobId(*granted);
  if (!id) return unavailable("salloc granted nothing: " + *granted);
  {
    std::lock_guard lock(mu_);
    companions_.push_back(*id);
  }
  auto list = runProgram({"squeue", "-h", "-j", *id, "-o", "%N"});
  if (!list.ok()) return unavailable("squeue: " + list.status().message());
  std::string nodelist = *list;
  while (!nodelist.empty() && (nodelist.back() == '\n' || nodelist.back() == ' ')) nodelist.pop_back();
  auto hosts = runProgram({scontrol_, "show", "hostnames", nodelist});
  if (!hosts.ok()) return unavailable("scontrol show hostnames: " + hosts.status().message());
  std::vector<std::string> nodes;
  std::istringstream in(*hosts);
  for (std::string host; std::getline(in, host);) {
    if (!host.empty()) nodes.push_back(host);
  }
  if (nodes.empty()) return unavailable("Slurm job " + *id + " has no nodes");
  return nodes;
}

void SlurmNodeAdmin::releaseNodes() {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mu_);
    ids.swap(companions_);
  }
  for (const auto& id : ids) (void)runProgram({"scancel", id});
}

}  // namespace ftb::launcher
