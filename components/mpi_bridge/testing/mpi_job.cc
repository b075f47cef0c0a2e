#include "components/mpi_bridge/testing/mpi_job.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace ftb::mpi_bridge::testing {

std::string MpiRun::lineWith(const std::string& prefix) const {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

MpiJob::MpiJob(std::string job_id, std::string binary)
    : job_id_(job_id + "_" + std::to_string(getpid())), binary_(std::move(binary)) {
  env_["FTB_JOB_ID"] = job_id_;
  char tmpl[] = "/tmp/ftbckpt-test-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd >= 0) close(fd);
  out_path_ = tmpl;
  wipeAll();
}

MpiJob::MpiJob(MpiJob&& other) noexcept
    : job_id_(std::move(other.job_id_)),
      binary_(std::move(other.binary_)),
      env_(std::move(other.env_)),
      out_path_(std::move(other.out_path_)),
      pid_(other.pid_) {
  other.pid_ = -1;
  other.moved_from_ = true;
}

MpiJob::~MpiJob() {
  if (moved_from_) return;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  wipeAll();
  std::filesystem::remove(out_path_);
}

void MpiJob::start(const std::vector<std::string>& nodes, const std::vector<std::string>& args) {
  std::string map;
  for (const auto& n : nodes) map += (map.empty() ? "" : ",") + n;
  std::vector<std::string> argv = {"mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader",
                                   "-np", std::to_string(nodes.size()), "-x", "FTBCKPT_NODE_MAP=" + map};
  for (const auto& [k, v] : env_) {
    argv.push_back("-x");
    argv.push_back(k + "=" + v);
  }
  argv.push_back(binary_);
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = fork();
  if (pid_ == 0) {
    int fd = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    dup2(fd, 2);
    // Open MPI keeps its session directory (with Unix sockets) under TMPDIR;
    // Bazel's test TMPDIR is too long for a socket path.
    setenv("TMPDIR", "/tmp", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    // Ranks waiting in MPI give the cores up: more ranks than cores here, and
    // the suite's other tests run beside them.
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    execvp("mpirun", c.data());
    _exit(127);
  }
}

MpiRun MpiJob::finish(std::chrono::seconds timeout) {
  MpiRun run;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      run.exit_code = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  std::ifstream in(out_path_);
  std::stringstream text;
  text << in.rdbuf();
  run.output = text.str();
  return run;
}

MpiRun MpiJob::run(const std::vector<std::string>& nodes, const std::vector<std::string>& args,
                   std::chrono::seconds timeout) {
  start(nodes, args);
  return finish(timeout);
}

std::vector<std::string> MpiJob::shmFiles(const std::string& node) const {
  std::vector<std::string> files;
  const std::string prefix = "ftbckpt-" + job_id_ + "-" + node + "-";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) files.push_back(e.path().string());
  }
  return files;
}

void MpiJob::wipeNode(const std::string& node) const {
  for (const auto& f : shmFiles(node)) std::filesystem::remove(f);
}

void wipeJobMemory(const std::string& job_id) {
  std::error_code ec;
  const std::string prefix = "ftbckpt-" + job_id + "-";
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove(e.path(), ec);
  }
}

void MpiJob::wipeAll() const { wipeJobMemory(job_id_); }

void MpiJob::corrupt(const std::string& node, int rank) const {
  for (const auto& f : shmFiles(node)) {
    if (f.find("-r" + std::to_string(rank) + "-s") == std::string::npos) continue;
    std::fstream file(f, std::ios::in | std::ios::out | std::ios::binary);
    // 4 KiB in: past the header and meta, inside the own blob (ckpt_format.h).
    file.seekg(4096 + 100);
    char c = 0;
    file.read(&c, 1);
    c ^= 0x5a;
    file.seekp(4096 + 100);
    file.write(&c, 1);
  }
}

}  // namespace ftb::mpi_bridge::testing
