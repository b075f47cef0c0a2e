#include "agent/config/reload_request.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "client/clock.h"

namespace ftb::agent {

Result<ReloadOutcome> requestReloadAndWait(pid_t pid, std::chrono::milliseconds timeout) {
  const std::string who = "ftb-agent (pid " + std::to_string(pid) + ")";
  sigset_t answer;
  sigemptyset(&answer);
  sigaddset(&answer, kReloadAnswerSignal);
  // Blocked before asking, so an answer that comes back at once waits for sigtimedwait.
  pthread_sigmask(SIG_BLOCK, &answer, nullptr);
  // The agent answers with a signal, which reaches only processes of its own
  // user: from anyone else (root included) the request would never be answered.
  struct stat process{};
  if (pid > 0 && ::stat(("/proc/" + std::to_string(pid)).c_str(), &process) == 0 &&
      process.st_uid != ::geteuid()) {
    return failedPrecondition("cannot wait for " + who + "'s answer: it runs as uid " +
                              std::to_string(process.st_uid) + ", this process as uid " +
                              std::to_string(::geteuid()) +
                              "; use systemctl reload ftb-agent, or run this as the agent's user");
  }
  sigval request{};
  request.sival_int = kReloadRequest;
  if (pid <= 0 || ::sigqueue(pid, SIGHUP, request) != 0) {
    return failedPrecondition("cannot ask " + who + " to reload: " +
                              (pid <= 0 ? std::string("not a process id") : std::strerror(errno)) +
                              " (is it running, under this user or root?)");
  }
  const auto deadline = Clock::real().steadyNow() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        deadline - Clock::real().steadyNow());
    if (left.count() <= 0) break;
    const timespec wait{static_cast<time_t>(left.count() / 1'000'000'000),
                        static_cast<long>(left.count() % 1'000'000'000)};
    siginfo_t info{};
    if (::sigtimedwait(&answer, &info, &wait) != kReloadAnswerSignal) {
      if (errno == EINTR) continue;
      break;  // EAGAIN: time is up
    }
    if (info.si_code != SI_QUEUE || info.si_pid != pid) continue;  // not the agent's answer
    if (info.si_value.sival_int == kReloadApplied) return ReloadOutcome::kApplied;
    if (info.si_value.sival_int == kReloadAppliedRestartPending) {
      return ReloadOutcome::kAppliedRestartPending;
    }
    return failedPrecondition(who + " refused the configuration and keeps its current one; "
                              "its log says why (journalctl -u ftb-agent)");
  }
  return deadlineExceeded("no answer from " + who + " within " + std::to_string(timeout.count() / 1000) +
                          " s: is it an ftb-agent whose loop turns?");
}

void answerReloadRequest(pid_t pid, int answer) {
  sigval value{};
  value.sival_int = answer;
  (void)::sigqueue(pid, kReloadAnswerSignal, value);  // the requester may have given up: nothing to do
}

void ReloadRequests::request(pid_t answer_to) noexcept {
  if (answer_to > 0) {
    for (auto& slot : requesters_) {
      pid_t empty = 0;
      if (slot.compare_exchange_strong(empty, answer_to)) break;
    }
  }
  due_.store(true);  // after the pid: the reload that takes it reads the file afterwards
}

std::vector<pid_t> ReloadRequests::takeRequesters() {
  std::vector<pid_t> waiting;
  for (auto& slot : requesters_) {
    if (const pid_t pid = slot.exchange(0); pid > 0) waiting.push_back(pid);
  }
  return waiting;
}

}  // namespace ftb::agent
