// Poller: the agent loop's set of descriptors to wait on (epoll). A turn costs
// what is ready, not what is open: with poll(2) every turn handed the kernel
// every client's pidfd and stream connection, and the kernel looked at each.
//
//   auto poller = Poller::create();
//   Poller::Registration r = poller->watch(fd, EPOLLIN, [&](uint32_t events) { ... });
//   r.modify(EPOLLIN | EPOLLOUT);  // while something waits to be written
//   poller->wait(timeout);          // calls the handler of each ready descriptor
//   r.reset();                      // before the descriptor is closed
//
// Level-triggered: a descriptor stays ready until it is read (or written) dry.
// A ZeroMQ socket is watched through its ZMQ_FD, which tells only that the
// socket's state may have changed: its owner asks ZMQ_EVENTS before waiting.
// A handler may drop any registration, its own included; one dropped during
// a wait is not called afterwards.
// Threading: not thread-safe; the agent's event loop owns it. It outlives its
// registrations.
#pragma once

#include <sys/epoll.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "client/status.h"

namespace ftb::agent {

class Poller {
 public:
  using Handler = std::function<void(uint32_t events)>;  // EPOLLIN, EPOLLOUT, EPOLLHUP, ...

  class Registration {
   public:
    Registration() = default;
    Registration(Registration&& other) noexcept;
    Registration& operator=(Registration&& other) noexcept;
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    ~Registration() { reset(); }

    // Changes the events waited for; no system call when they are the same.
    void modify(uint32_t events);
    // Stops watching (before the descriptor closes). Idempotent.
    void reset();
    explicit operator bool() const { return entry_ != nullptr; }

   private:
    friend class Poller;
    struct Entry {
      int fd;
      uint32_t events;
      Handler handler;
      bool live = true;  // false once dropped (it may still be in a wait's ready list)
    };
    Registration(Poller* poller, Entry* entry) : poller_(poller), entry_(entry) {}
    Poller* poller_ = nullptr;
    Entry* entry_ = nullptr;
  };

  static Result<std::unique_ptr<Poller>> create();
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // Watches `fd` for `events` (EPOLLIN, EPOLLOUT); an error is the kernel's
  // refusal (a bad descriptor, one already watched).
  Result<Registration> watch(int fd, uint32_t events, Handler handler);
  // Waits up to `timeout` for a descriptor to be ready, then calls the handler
  // of each ready one. Returns how many were; 0 on timeout or a signal.
  int wait(std::chrono::milliseconds timeout);
  std::size_t watched() const { return watched_; }

 private:
  explicit Poller(int epoll_fd) : epoll_fd_(epoll_fd) {}
  void drop(Registration::Entry* entry);

  int epoll_fd_;
  std::size_t watched_ = 0;
  std::vector<epoll_event> ready_;
  bool dispatching_ = false;
  // Entries dropped during a wait's dispatch: freed after it, so a later
  // ready event of this wait never points at freed memory.
  std::vector<std::unique_ptr<Registration::Entry>> dropped_;
};

}  // namespace ftb::agent
