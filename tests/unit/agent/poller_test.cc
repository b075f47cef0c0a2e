#define BOOST_TEST_MODULE poller
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "agent/loop/poller.h"

using ftb::agent::Poller;
using namespace std::chrono_literals;

namespace {

struct Pipe {
  int read_end = -1, write_end = -1;
  Pipe() { BOOST_REQUIRE(pipe2(&read_end, O_NONBLOCK | O_CLOEXEC) == 0); }
  ~Pipe() {
    close(read_end);
    close(write_end);
  }
  void put() { BOOST_REQUIRE(write(write_end, "x", 1) == 1); }
};

std::unique_ptr<Poller> makePoller() {
  auto poller = Poller::create();
  BOOST_REQUIRE(poller.ok());
  return std::move(poller).value();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_handler_runs_when_its_descriptor_is_ready_and_not_before) {
  auto poller = makePoller();
  Pipe p;
  std::vector<uint32_t> seen;
  auto r = poller->watch(p.read_end, EPOLLIN, [&](uint32_t events) { seen.push_back(events); });
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(poller->watched() == 1u);
  BOOST_TEST(poller->wait(0ms) == 0);
  BOOST_TEST(seen.empty());
  p.put();
  BOOST_TEST(poller->wait(1000ms) == 1);
  BOOST_REQUIRE(seen.size() == 1u);
  BOOST_TEST((seen[0] & EPOLLIN) != 0u);
  // Level-triggered: still ready until read.
  BOOST_TEST(poller->wait(0ms) == 1);
  char c;
  BOOST_REQUIRE(read(p.read_end, &c, 1) == 1);
  BOOST_TEST(poller->wait(0ms) == 0);
}

BOOST_AUTO_TEST_CASE(modify_adds_and_removes_writability) {
  auto poller = makePoller();
  Pipe p;
  uint32_t last = 0;
  auto r = poller->watch(p.write_end, 0, [&](uint32_t events) { last = events; });
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(poller->wait(0ms) == 0);  // writable, but nobody asked
  r->modify(EPOLLOUT);
  BOOST_TEST(poller->wait(0ms) == 1);
  BOOST_TEST((last & EPOLLOUT) != 0u);
  r->modify(0);
  BOOST_TEST(poller->wait(0ms) == 0);
}

BOOST_AUTO_TEST_CASE(a_registration_dropped_by_another_handler_is_not_called_in_the_same_wait) {
  auto poller = makePoller();
  Pipe a, b;
  a.put();
  b.put();
  int calls = 0;
  Poller::Registration ra, rb;
  ra = std::move(poller->watch(a.read_end, EPOLLIN, [&](uint32_t) {
                   ++calls;
                   rb.reset();
                 }).value());
  rb = std::move(poller->watch(b.read_end, EPOLLIN, [&](uint32_t) {
                   ++calls;
                   ra.reset();
                 }).value());
  BOOST_TEST(poller->wait(1000ms) >= 1);
  BOOST_TEST(calls == 1);  // whichever ran first dropped the other
  BOOST_TEST(poller->watched() == 1u);
  BOOST_TEST(static_cast<bool>(ra) != static_cast<bool>(rb));
}

BOOST_AUTO_TEST_CASE(a_dropped_registration_is_forgotten_and_a_bad_descriptor_is_refused) {
  auto poller = makePoller();
  Pipe p;
  p.put();
  int calls = 0;
  {
    auto r = poller->watch(p.read_end, EPOLLIN, [&](uint32_t) { ++calls; });
    BOOST_REQUIRE(r.ok());
  }  // dropped here
  BOOST_TEST(poller->watched() == 0u);
  BOOST_TEST(poller->wait(0ms) == 0);
  BOOST_TEST(calls == 0);
  auto bad = poller->watch(-1, EPOLLIN, [](uint32_t) {});
  BOOST_REQUIRE(!bad.ok());
  BOOST_TEST(bad.status().message().find("epoll_ctl") != std::string::npos);
  // Watching the same descriptor twice is the kernel's refusal, not a silent replace.
  auto once = poller->watch(p.read_end, EPOLLIN, [](uint32_t) {});
  auto twice = poller->watch(p.read_end, EPOLLIN, [](uint32_t) {});
  BOOST_TEST(once.ok());
  BOOST_TEST(!twice.ok());
}
