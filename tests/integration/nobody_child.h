// Test support: a child process that runs a function as uid/gid 65534 (nobody),
// for tests of what an unprivileged local user can and cannot do to the agent.
// The child is forked at construction, so construct it before the test starts
// any SDK or ZeroMQ thread; it then waits for its input. run() hands the input
// over and returns what the child reported once it has exited.
//
//   NobodyChild child([](const std::string& endpoint) { return tryThings(endpoint); });
//   ... start root's clients ...
//   const std::string report = child.run(agent.ipcEndpoint());
//
// Needs root (CI runs as root). Threading: the creating thread only.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace ftb::testing {

inline constexpr uid_t kNobodyUid = 65534;

class NobodyChild {
 public:
  explicit NobodyChild(std::function<std::string(const std::string& input)> body);
  ~NobodyChild();  // a child never run is killed and reaped

  // Gives the child `input`, waits until it exits; its report, or a line saying
  // why there is none ("cannot become uid 65534", "exited with status N").
  std::string run(const std::string& input);

  NobodyChild(const NobodyChild&) = delete;
  NobodyChild& operator=(const NobodyChild&) = delete;

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
};

}  // namespace ftb::testing
