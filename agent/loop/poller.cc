#include "agent/loop/poller.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace ftb::agent {

Poller::Registration::Registration(Registration&& other) noexcept
    : poller_(other.poller_), entry_(other.entry_) {
  other.entry_ = nullptr;
}

Poller::Registration& Poller::Registration::operator=(Registration&& other) noexcept {
  if (this != &other) {
    reset();
    poller_ = other.poller_;
    entry_ = other.entry_;
    other.entry_ = nullptr;
  }
  return *this;
}

void Poller::Registration::modify(uint32_t events) {
  if (entry_ == nullptr || entry_->events == events) return;
  epoll_event change{.events = events, .data = {.ptr = entry_}};
  if (::epoll_ctl(poller_->epoll_fd_, EPOLL_CTL_MOD, entry_->fd, &change) == 0) entry_->events = events;
}

void Poller::Registration::reset() {
  if (entry_ == nullptr) return;
  poller_->drop(entry_);
  entry_ = nullptr;
}

Result<std::unique_ptr<Poller>> Poller::create() {
  const int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) return internalError(std::string("epoll_create1: ") + std::strerror(errno));
  return std::unique_ptr<Poller>(new Poller(fd));
}

Poller::~Poller() { ::close(epoll_fd_); }

Result<Poller::Registration> Poller::watch(int fd, uint32_t events, Handler handler) {
  auto entry = std::make_unique<Registration::Entry>(
      Registration::Entry{.fd = fd, .events = events, .handler = std::move(handler)});
  epoll_event add{.events = events, .data = {.ptr = entry.get()}};
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &add) != 0) {
    return internalError("epoll_ctl(ADD, fd " + std::to_string(fd) + "): " + std::strerror(errno));
  }
  ++watched_;
  return Registration(this, entry.release());
}

void Poller::drop(Registration::Entry* entry) {
  // Fails only when the descriptor was closed first, which removed it already.
  (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, entry->fd, nullptr);
  --watched_;
  entry->live = false;
  if (dispatching_) {
    dropped_.emplace_back(entry);
  } else {
    delete entry;
  }
}

int Poller::wait(std::chrono::milliseconds timeout) {
  ready_.resize(std::max<std::size_t>(16, std::min<std::size_t>(watched_, 1024)));
  const int n = ::epoll_wait(epoll_fd_, ready_.data(), static_cast<int>(ready_.size()),
                             static_cast<int>(timeout.count()));
  if (n <= 0) return 0;  // timeout, or EINTR: the caller's loop decides
  dispatching_ = true;
  for (int i = 0; i < n; ++i) {
    auto* entry = static_cast<Registration::Entry*>(ready_[i].data.ptr);
    if (entry->live) entry->handler(ready_[i].events);
  }
  dispatching_ = false;
  dropped_.clear();
  return n;
}

}  // namespace ftb::agent
