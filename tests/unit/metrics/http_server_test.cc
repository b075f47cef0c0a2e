#define BOOST_TEST_MODULE http_server_test
#include "metrics/http_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include <boost/test/unit_test.hpp>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include "client/wire/codec.h"
#include "tests/support/prometheus_text.h"

using namespace std::chrono_literals;
using ftb::metrics::HttpServer;
using ftb::testing::connectTo;
using ftb::testing::httpGet;
using ftb::testing::scrapeMetrics;

namespace {

std::shared_ptr<prometheus::Registry> registryWith(const std::string& counter, double value) {
  auto r = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter().Name(counter).Help("x").Register(*r).Add({}).Increment(value);
  return r;
}

std::unique_ptr<HttpServer> startOrFail(const std::string& listen, std::shared_ptr<prometheus::Registry> r,
                                        ftb::metrics::HttpServerOptions options = {}) {
  auto server = HttpServer::start(listen, std::move(r), options);
  BOOST_REQUIRE_MESSAGE(server.ok(), server.status().message());
  return std::move(server).value();
}

void sendAll(int fd, const std::string& data) {
  BOOST_REQUIRE(::send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size()));
}

// Whether the server closed `fd` within `timeout` (its end reads as EOF).
bool closedWithin(int fd, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return true;  // EOF or reset
  }
}

bool stillOpen(int fd) {
  char c;
  return ::recv(fd, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

BOOST_AUTO_TEST_CASE(serves_the_registry_on_a_loopback_port) {
  auto r = registryWith("ftb_test_total", 7);
  auto server = startOrFail("127.0.0.1:0", r);
  BOOST_TEST(server->address().rfind("127.0.0.1:", 0) == 0u);
  BOOST_TEST(scrapeMetrics(server->address()).sum("ftb_test_total") == 7);
  prometheus::BuildCounter().Name("ftb_test_total").Help("x").Register(*r).Add({}).Increment();
  BOOST_TEST(scrapeMetrics(server->address()).sum("ftb_test_total") == 8);
  BOOST_TEST(server->scrapes() == 2u);
}

BOOST_AUTO_TEST_CASE(serves_on_ipv6_loopback) {
  auto server = startOrFail("[::1]:0", registryWith("ftb_test_total", 3));
  BOOST_TEST(server->address().rfind("[::1]:", 0) == 0u);
  BOOST_TEST(scrapeMetrics(server->address()).sum("ftb_test_total") == 3);
}

BOOST_AUTO_TEST_CASE(build_info_and_process_metrics_come_with_every_endpoint) {
  auto server = startOrFail("127.0.0.1:0", registryWith("ftb_test_total", 1));
  const auto m = scrapeMetrics(server->address());
  BOOST_TEST(m.sum("ftb_build_info", {{"version", std::string(ftb::wire::kVersion)}}) == 1);
  BOOST_TEST(m.types.at("process_cpu_seconds_total") == "counter");
  for (const char* gauge : {"process_resident_memory_bytes", "process_virtual_memory_bytes",
                            "process_start_time_seconds", "process_open_fds", "process_max_fds"}) {
    BOOST_TEST(m.types.at(gauge) == "gauge");
    BOOST_TEST(m.sum(gauge) > 0, gauge);
  }
}

BOOST_AUTO_TEST_CASE(other_paths_methods_and_garbage_are_answered_with_errors) {
  auto server = startOrFail("127.0.0.1:0", registryWith("ftb_test_total", 1));
  int status = 0;
  httpGet(server->address(), "/", &status);
  BOOST_TEST(status == 404);
  httpGet(server->address(), "/metrics?x=1", &status);
  BOOST_TEST(status == 200);

  auto ask = [&](const std::string& request) {
    const int fd = connectTo(server->address());
    BOOST_REQUIRE(fd >= 0);
    sendAll(fd, request);
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) reply.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return reply;
  };
  const std::string post = ask("POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  BOOST_TEST(post.rfind("HTTP/1.1 405 ", 0) == 0u);
  BOOST_TEST(post.find("Allow: GET, HEAD") != std::string::npos);
  const std::string head = ask("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  BOOST_TEST(head.rfind("HTTP/1.1 200 ", 0) == 0u);
  BOOST_TEST(head.find("ftb_test_total") == std::string::npos);  // no body
  BOOST_TEST(ask("hello\r\n\r\n").rfind("HTTP/1.1 400 ", 0) == 0u);
  BOOST_TEST(ask("GET /metrics HTTP/1.1\r\nX: " + std::string(10000, 'x')).rfind("HTTP/1.1 431 ", 0) == 0u);
}

// The issue this server was written for: six stalled clients delayed a scrape
// by six seconds. Clients that connect and say nothing and clients that send
// half a request are in front of the scrape; it must not wait for any of them.
BOOST_AUTO_TEST_CASE(stalled_clients_do_not_delay_a_scrape) {
  auto server = startOrFail("127.0.0.1:0", registryWith("ftb_test_total", 5));
  std::vector<int> silent, half;
  for (int i = 0; i < 6; ++i) {
    silent.push_back(connectTo(server->address()));
    BOOST_REQUIRE(silent.back() >= 0);
  }
  for (int i = 0; i < 6; ++i) {
    half.push_back(connectTo(server->address()));
    BOOST_REQUIRE(half.back() >= 0);
    sendAll(half.back(), "GET /metrics HTTP/1.1\r\nHost: x\r\n");
  }
  const auto started = std::chrono::steady_clock::now();
  const auto m = scrapeMetrics(server->address());
  const double took = secondsSince(started);
  BOOST_TEST(m.sum("ftb_test_total") == 5);
  // A serial server waits out each stalled client (>= 1 s each, 30 s with
  // civetweb's defaults); this one answers in milliseconds. 3 s leaves room
  // for a loaded test machine.
  BOOST_TEST(took < 3.0, "the scrape took " << took << " s");
  // The stalled clients were held, not dropped, while the scrape was served.
  for (int fd : silent) BOOST_TEST(stillOpen(fd));
  for (int fd : half) BOOST_TEST(stillOpen(fd));
  for (int fd : silent) ::close(fd);
  for (int fd : half) ::close(fd);
}

BOOST_AUTO_TEST_CASE(a_client_that_does_not_read_its_answer_holds_up_nobody) {
  auto r = std::make_shared<prometheus::Registry>();
  // About 8 MB of text: more than the kernel buffers between the server and a
  // client that does not read (send buffer at most 4 MB, tcp_wmem), so a
  // server that blocked on a write would never get to the next request.
  auto& big = prometheus::BuildGauge().Name("ftb_test_big").Help("x").Register(*r);
  for (int i = 0; i < 4000; ++i) big.Add({{"v", std::to_string(i) + std::string(2000, 'x')}}).Set(i);
  auto server = startOrFail("127.0.0.1:0", r);

  const int unread = connectTo(server->address(), /*receive_buffer=*/4096);
  BOOST_REQUIRE(unread >= 0);
  sendAll(unread, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  pollfd answering{unread, POLLIN, 0};
  BOOST_REQUIRE_MESSAGE(::poll(&answering, 1, 10000) == 1, "no answer began within 10 s");

  // connectTo's 10 s read timeout fails this, rather than hanging, if the
  // server is stuck writing to `unread`.
  int status = 0;
  const std::string text = httpGet(server->address(), "/metrics", &status);
  BOOST_TEST(status == 200);
  BOOST_TEST(text.find("ftb_test_big{v=\"3999") != std::string::npos);
  BOOST_TEST(server->scrapes() == 2u);

  // The stalled answer was kept, and is complete once its client reads.
  std::string reply;
  char buf[65536];
  for (ssize_t n; (n = ::recv(unread, buf, sizeof(buf), 0)) > 0;) reply.append(buf, static_cast<std::size_t>(n));
  ::close(unread);
  const auto head_end = reply.find("\r\n\r\n");
  BOOST_REQUIRE(head_end != std::string::npos);
  const auto length_at = reply.find("Content-Length: ");
  BOOST_REQUIRE(length_at < head_end);
  BOOST_TEST(reply.size() - head_end - 4 == std::stoul(reply.substr(length_at + 16)));
  BOOST_TEST(reply.size() > 8000000u);
}

BOOST_AUTO_TEST_CASE(a_client_too_slow_to_ask_is_cut_off) {
  auto server = startOrFail("127.0.0.1:0", registryWith("ftb_test_total", 1), {.request_timeout = 300ms});
  const int fd = connectTo(server->address());
  BOOST_REQUIRE(fd >= 0);
  const auto started = std::chrono::steady_clock::now();
  BOOST_TEST(closedWithin(fd, 10s));
  BOOST_TEST(secondsSince(started) >= 0.25);
  ::close(fd);
}

BOOST_AUTO_TEST_CASE(beyond_the_connection_limit_the_oldest_makes_room) {
  auto server = startOrFail("127.0.0.1:0", registryWith("ftb_test_total", 2), {.max_connections = 8});
  std::vector<int> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(connectTo(server->address()));
  BOOST_TEST(scrapeMetrics(server->address()).sum("ftb_test_total") == 2);
  BOOST_TEST(closedWithin(idle.front(), 10s));  // the oldest was evicted
  BOOST_TEST(stillOpen(idle.back()));           // the newest idle one is still held
  for (int fd : idle) ::close(fd);
}

BOOST_AUTO_TEST_CASE(bad_addresses_are_startup_errors) {
  auto r = registryWith("ftb_test_total", 1);
  auto no_port = HttpServer::start("127.0.0.1", r);
  BOOST_TEST(!no_port.ok());
  BOOST_TEST(no_port.status().message().find("host:port") != std::string::npos);
  auto out_of_range = HttpServer::start("127.0.0.1:99999", r);
  BOOST_TEST(!out_of_range.ok());
  BOOST_TEST(out_of_range.status().message().find("out of range") != std::string::npos);
  auto first = startOrFail("127.0.0.1:0", r);
  auto taken = HttpServer::start(first->address(), r);
  BOOST_TEST(!taken.ok());
  BOOST_TEST(taken.status().message().find("cannot serve metrics") != std::string::npos);
  auto unset = HttpServer::startIfSet("", r);
  BOOST_REQUIRE(unset.ok());
  BOOST_TEST(!*unset);
}
