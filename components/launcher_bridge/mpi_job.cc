#include "components/launcher_bridge/mpi_job.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace ftb::launcher {

namespace {
// Open MPI gives the ranks of a run that ends with a non-zero exit code
// odls_base_sigkill_timeout seconds (default 1) between SIGTERM and SIGKILL,
// and a migration always ends with exit code 75 after the ranks have
// checkpointed: the grace only delays the relaunch. ftb-run sets it to 0
// unless the caller chose a value (--mpirun-arg or OMPI_MCA_ in the environment).
constexpr const char* kSigkillTimeout = "odls_base_sigkill_timeout";

bool callerSets(const MpiJobSpec& spec, const std::string& param) {
  if (std::getenv(("OMPI_MCA_" + param).c_str()) != nullptr) return true;
  return std::find(spec.mpirun_args.begin(), spec.mpirun_args.end(), param) != spec.mpirun_args.end();
}
}  // namespace

std::vector<std::string> mpirunCommand(const MpiJobSpec& spec) {
  std::vector<std::string> cmd{spec.mpirun};
  if (geteuid() == 0) cmd.push_back("--allow-run-as-root");
  cmd.insert(cmd.end(), {"--host", spec.host_list, "--map-by", "slot", "-np", std::to_string(spec.ranks)});
  if (!callerSets(spec, kSigkillTimeout)) cmd.insert(cmd.end(), {"--mca", kSigkillTimeout, "0"});
  for (const auto& [key, value] : spec.env) cmd.insert(cmd.end(), {"-x", key});
  cmd.insert(cmd.end(), spec.mpirun_args.begin(), spec.mpirun_args.end());
  cmd.insert(cmd.end(), spec.program.begin(), spec.program.end());
  return cmd;
}

MpiJob::~MpiJob() {
  if (running()) terminate(1000);
}

Status MpiJob::start(const MpiJobSpec& spec) {
  if (running()) return failedPrecondition("the job is still running");
  std::vector<std::string> cmd = mpirunCommand(spec);
  pid_t pid = fork();
  if (pid < 0) return internalError("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    for (const auto& [key, value] : spec.env) setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (auto& a : cmd) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no race with an early terminate()
  pid_ = pid;
  return {};
}

namespace {
int exitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }
}  // namespace

std::optional<int> MpiJob::poll() {
  if (ended_) {
    std::optional<int> code = ended_;
    ended_.reset();
    return code;
  }
  if (!running()) return std::nullopt;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
  pid_ = -1;
  return exitCode(status);
}

void MpiJob::terminate(int grace_ms) {
  if (!running()) return;
  kill(-pid_, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 20) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      ended_ = exitCode(status);
      return;
    }
    timespec ts{0, 20'000'000};
    nanosleep(&ts, nullptr);
  }
  kill(-pid_, SIGKILL);  // mpirun may ignore SIGTERM while it waits for a lost node
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  ended_ = exitCode(status);
}

}  // namespace ftb::launcher
