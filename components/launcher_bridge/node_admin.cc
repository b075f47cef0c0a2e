#include "components/launcher_bridge/node_admin.h"

#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace ftb::launcher
