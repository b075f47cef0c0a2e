// Transport floor: what one blocking wake-up costs on this machine, without ftb.
// A round trip through ftb crosses several threads and processes; dividing its
// latency by these figures tells how many wake-ups it pays for.
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <zmq.hpp>

#include "bench/scenarios.h"

namespace ftb::bench {
namespace {

using namespace std::chrono_literals;

struct Ready {};
struct Report {
  LatencySummary latency;
};

// Two processes, blocking read/write on a Unix socketpair.
LatencySummary socketPairPingPong(uint64_t iterations, std::size_t bytes) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return {};
  std::vector<char> buf(bytes, 'x');
  auto exchange = [&](int fd, bool first) {
    std::size_t done = 0;
    if (first && write(fd, buf.data(), bytes) != static_cast<ssize_t>(bytes)) return false;
    while (done < bytes) {
      const ssize_t n = read(fd, buf.data() + done, bytes - done);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return first || write(fd, buf.data(), bytes) == static_cast<ssize_t>(bytes);
  };
  ChildProcess echo = ChildProcess::spawn("floor-echo", [&](Channel&) {
    close(fds[0]);
    for (uint64_t i = 0; i < iterations; ++i) {
      if (!exchange(fds[1], false)) return 1;
    }
    return 0;
  });
  close(fds[1]);
  std::vector<uint64_t> samples;
  samples.reserve(iterations);
  for (uint64_t i = 0; i < iterations; ++i) {
    const uint64_t start = nowNs();
    if (!exchange(fds[0], true)) break;
    samples.push_back(nowNs() - start);
  }
  close(fds[0]);
  (void)echo.wait();
  return summarize(std::move(samples));
}

// Two threads of one process handing a token back and forth through a condition variable.
LatencySummary threadPingPong(uint64_t iterations) {
  std::mutex mu;
  std::condition_variable cv;
  int turn = 0;
  std::thread other([&] {
    for (uint64_t i = 0; i < iterations; ++i) {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return turn == 1; });
      turn = 0;
      cv.notify_all();
    }
  });
  std::vector<uint64_t> samples;
  samples.reserve(iterations);
  for (uint64_t i = 0; i < iterations; ++i) {
    const uint64_t start = nowNs();
    std::unique_lock lock(mu);
    turn = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return turn == 0; });
    samples.push_back(nowNs() - start);
  }
  other.join();
  return summarize(std::move(samples));
}

// Two processes, ZeroMQ DEALER -> ROUTER echo over ipc: the transport the SDK uses,
// with libzmq's own I/O thread in each process.
Result<LatencySummary> zmqPingPong(uint64_t iterations, std::size_t bytes) {
  char templ[] = "/tmp/ftb-bench-floor-XXXXXX";
  if (mkdtemp(templ) == nullptr) return internalError("mkdtemp failed");
  const std::string dir = templ;
  const std::string endpoint = "ipc://" + dir + "/floor.sock";
  const uint64_t warmup = 100;
  ChildProcess router = ChildProcess::spawn("floor-router", [&](Channel& ch) {
    zmq::context_t context(1);
    zmq::socket_t socket(context, zmq::socket_type::router);
    socket.set(zmq::sockopt::linger, 0);
    socket.bind(endpoint);
    if (!ch.send(Ready{})) return 1;
    for (uint64_t i = 0; i < warmup + iterations; ++i) {
      zmq::message_t id, body;
      if (!socket.recv(id) || !socket.recv(body)) return 1;
      socket.send(id, zmq::send_flags::sndmore);
      socket.send(body, zmq::send_flags::none);
    }
    return 0;
  });
  Ready ready;
  if (!router.channel().recv(&ready, 10s)) return unavailable("the floor echo process failed");
  ChildProcess dealer = ChildProcess::spawn("floor-dealer", [&](Channel& ch) {
    zmq::context_t context(1);
    zmq::socket_t socket(context, zmq::socket_type::dealer);
    socket.set(zmq::sockopt::linger, 0);
    socket.connect(endpoint);
    const std::string payload(bytes, 'x');
    std::vector<uint64_t> samples;
    samples.reserve(iterations);
    for (uint64_t i = 0; i < warmup + iterations; ++i) {
      const uint64_t start = nowNs();
      socket.send(zmq::buffer(payload), zmq::send_flags::none);
      zmq::message_t reply;
      if (!socket.recv(reply)) return 1;
      if (i >= warmup) samples.push_back(nowNs() - start);
    }
    return ch.send(Report{summarize(std::move(samples))}) ? 0 : 1;
  });
  Report report{};
  const bool ok = dealer.channel().recv(&report, 5min);
  (void)dealer.wait();
  (void)router.wait();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!ok) return unavailable("the floor ping process failed (see its message above)");
  return report.latency;
}

}  // namespace

Result<FloorResult> runFloor(const FloorOptions& options) {
  FloorResult r;
  r.socketpair = socketPairPingPong(options.iterations, options.payload_bytes);
  // In a child: this process must not start threads before it forks clients.
  ChildProcess threads = ChildProcess::spawn("floor-threads", [&](Channel& ch) {
    return ch.send(Report{threadPingPong(options.iterations)}) ? 0 : 1;
  });
  Report report{};
  if (!threads.channel().recv(&report, 5min)) return unavailable("the thread ping-pong failed");
  (void)threads.wait();
  r.threads = report.latency;
  auto zmq = zmqPingPong(options.iterations, options.payload_bytes);
  if (!zmq.ok()) return zmq.status();
  r.zmq_ipc = *zmq;
  return r;
}

}  // namespace ftb::bench
