// A reload that answers: how `ftb-agent --reload PID` (the unit's ExecReload=)
// asks a running agent to re-read its configuration and learns whether the
// agent applied it or refused it, so that `systemctl reload` fails on a
// refused file. Nothing but signals, so it needs no socket, file or procps:
//
//   requester                                  agent (main.cc, agent_lifecycle.cc)
//   sigqueue(pid, SIGHUP, kReloadRequest) ---> records the sender's pid, reloads
//   sigtimedwait(SIGUSR1) <------------------- sigqueue(sender, SIGUSR1, kApplied|kRefused|
//                                                        kAppliedRestartPending)
//
// A plain `kill -HUP` still reloads but gets no answer: the agent answers only
// a sender that asked with kReloadRequest (so it never signals a process that
// did not ask), and only after a reload that began after the request arrived.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <array>
#include <atomic>
#include <chrono>
#include <vector>

#include "client/status.h"

namespace ftb::agent {

inline constexpr int kReloadRequest = 0x46544252;  // "FTBR", the SIGHUP's si_value
inline constexpr int kReloadAnswerSignal = SIGUSR1;
inline constexpr int kReloadApplied = 1;  // the answer's si_value
inline constexpr int kReloadRefused = 2;
// Applied, but some restart-only settings changed in the file: the agent keeps
// their running values and its log names each one. A success for systemctl
// (what can apply did), with a warning.
inline constexpr int kReloadAppliedRestartPending = 3;

enum class ReloadOutcome {
  kApplied,
  kAppliedRestartPending,
};

// The requester's side: asks `pid` and waits up to `timeout` for its answer.
// An outcome when it applied the configuration; kFailedPrecondition when it
// refused it (its log says why) or cannot be signalled; kDeadlineExceeded
// without an answer in time. Blocks kReloadAnswerSignal in the calling thread.
Result<ReloadOutcome> requestReloadAndWait(pid_t pid, std::chrono::milliseconds timeout);

// The agent's side: sends `answer` (one of the kReload* answers) to `pid`.
void answerReloadRequest(pid_t pid, int answer);

// The agent's side: the reloads its signal handler was asked for, kept until
// its loop takes them. Those who asked before a reload began get its outcome.
//
//   signal handler:  requests.request(info->si_pid);   // 0: a plain kill -HUP
//   loop:            if (requests.due()) { auto who = requests.takeRequesters(); ...; answer each }
//
// Threading: request() is async-signal-safe; due() and takeRequesters() are the loop's.
class ReloadRequests {
 public:
  static constexpr std::size_t kMaxWaiting = 16;  // more requesters time out; the reload still happens

  void request(pid_t answer_to) noexcept;
  // Whether a reload was asked for since the last call.
  bool due() noexcept { return due_.exchange(false); }
  // The processes waiting for this reload's outcome; the slots are free again.
  std::vector<pid_t> takeRequesters();

 private:
  std::array<std::atomic<pid_t>, kMaxWaiting> requesters_{};  // 0: a free slot
  std::atomic<bool> due_{false};
};

}  // namespace ftb::agent
