#include "components/launcher_bridge/mpi_job.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

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

// glibc 2.35 and later (Debian 12's 2.36 too) know it; older ones ignore it.
constexpr const char* kHugePageMalloc = "glibc.malloc.hugetlb=1";
}  // namespace

std::string ranksTunables(const MpiJobSpec& spec) {
  for (const auto& arg : spec.mpirun_args) {
    if (arg.rfind("GLIBC_TUNABLES", 0) == 0) return "";
  }
  const char* own = std::getenv("GLIBC_TUNABLES");
  if (own == nullptr || *own == '\0') return kHugePageMalloc;
  if (std::string(own).find("glibc.malloc.hugetlb") != std::string::npos) return "";
  return std::string(own) + ":" + kHugePageMalloc;
}

std::vector<std::string> mpirunCommand(const MpiJobSpec& spec) {
  std::vector<std::string> cmd{spec.mpirun};
  if (geteuid() == 0) cmd.push_back("--allow-run-as-root");
  cmd.insert(cmd.end(), {"--host", spec.host_list});
  if (spec.rankfile.empty()) {
    cmd.insert(cmd.end(), {"--map-by", "slot"});
  } else {
    cmd.insert(cmd.end(), {"--map-by", "rankfile:file=" + spec.rankfile, "--bind-to", "none"});
  }
  cmd.insert(cmd.end(), {"-np", std::to_string(spec.ranks)});
  if (spec.with_ft_ulfm && !callerSets(spec, "--with-ft")) cmd.insert(cmd.end(), {"--with-ft", "ulfm"});
  if (!callerSets(spec, kSigkillTimeout)) cmd.insert(cmd.end(), {"--mca", kSigkillTimeout, "0"});
  for (const auto& [key, value] : spec.env) cmd.insert(cmd.end(), {"-x", key});
  if (const std::string tunables = ranksTunables(spec); !tunables.empty()) {
    cmd.insert(cmd.end(), {"-x", "GLIBC_TUNABLES=" + tunables});
  }
  cmd.insert(cmd.end(), spec.mpirun_args.begin(), spec.mpirun_args.end());
  cmd.insert(cmd.end(), spec.program.begin(), spec.program.end());
  return cmd;
}

MpiJob::~MpiJob() {
  if (running()) terminate(1000);
  if (pidfd_ >= 0) ::close(pidfd_);
}

Status MpiJob::start(const MpiJobSpec& spec) {
  if (running()) return failedPrecondition("the job is still running");
  std::vector<std::string> cmd = mpirunCommand(spec);
  if (!spec.keeper.empty()) {
    ::unlink(spec.exit_file.c_str());  // an earlier run's
    cmd.insert(cmd.begin(), spec.keeper.begin(), spec.keeper.end());
  }
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

std::optional<int> readExitFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return std::nullopt;
  int code = 0;
  const bool ok = std::fscanf(f, "%d", &code) == 1;
  std::fclose(f);
  return ok ? std::optional<int>(code) : std::nullopt;
}
}  // namespace

Status MpiJob::adopt(pid_t keeper_pid, const std::string& exit_file) {
  if (running()) return failedPrecondition("a job is running already");
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, keeper_pid, 0));
  exit_file_ = exit_file;
  if (fd < 0) {
    pid_ = -1;
    if (auto code = readExitFile(exit_file)) {
      ended_ = code;  // it ended while nobody watched: poll() reports it
      return {};
    }
    return notFound("the job's keeper (pid " + std::to_string(keeper_pid) + ") is gone and left no exit code in " +
                    exit_file);
  }
  pidfd_ = fd;
  pid_ = keeper_pid;
  return {};
}

std::optional<int> MpiJob::reap(bool block) {
  if (pidfd_ >= 0) {
    pollfd p{pidfd_, POLLIN, 0};
    if (::poll(&p, 1, block ? -1 : 0) <= 0) return std::nullopt;
    ::close(pidfd_);
    pidfd_ = -1;
    return readExitFile(exit_file_).value_or(128 + SIGKILL);
  }
  int status = 0;
  if (waitpid(pid_, &status, block ? 0 : WNOHANG) != pid_) return std::nullopt;
  return exitCode(status);
}

std::optional<int> MpiJob::poll() {
  if (ended_) {
    std::optional<int> code = ended_;
    ended_.reset();
    return code;
  }
  if (!running()) return std::nullopt;
  auto code = reap(false);
  if (code) pid_ = -1;
  return code;
}

void MpiJob::terminate(int grace_ms) {
  if (!running()) return;
  kill(-pid_, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 20) {
    if (auto code = reap(false)) {
      pid_ = -1;
      ended_ = code;
      return;
    }
    timespec ts{0, 20'000'000};
    nanosleep(&ts, nullptr);
  }
  kill(-pid_, SIGKILL);  // mpirun may ignore SIGTERM while it waits for a lost node
  ended_ = reap(true);
  pid_ = -1;
}

int keepProcess(const std::string& exit_file, const std::vector<std::string>& program) {
  if (program.empty()) return 2;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, SIG_IGN);
  const pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, SIG_DFL);  // ignored ones survive exec
    std::vector<char*> args;
    for (const auto& a : program) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = exitCode(status);
  const std::string tmp = exit_file + ".tmp";
  if (FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "%d\n", code);
    std::fflush(f);
    fsync(fileno(f));
    std::fclose(f);
    std::rename(tmp.c_str(), exit_file.c_str());
  }
  return code;
}

}  // namespace ftb::launcher
