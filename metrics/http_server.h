// Serves Prometheus metrics over HTTP: GET (or HEAD) /metrics answers the text
// exposition format (0.0.4) of the daemon's metrics followed by the standard
// ftb_build_info and process_* metrics; other paths get 404, other methods 405.
//
//   auto registry = std::make_shared<prometheus::Registry>();
//   auto server = ftb::metrics::HttpServer::start("[::1]:9810", registry);
//   if (!server.ok()) { /* exit non-zero with server.status().message() */ }
//   (*server)->address();   // "[::1]:9810" (port 0 resolved)
//
// Threading: start() binds on the caller's thread (a bad or taken address is a
// startup error; listen_address.h) and serves from one thread of its own. That
// thread never blocks on a client: every socket is non-blocking and one poll()
// waits on all of them, so a client that sends its request slowly, or never,
// or does not read its answer, holds up nobody else. A connection gets
// `request_timeout` to send its request and take its answer; beyond
// `max_connections` the oldest connection is closed to make room, so idle
// connections cannot lock scrapers out. The destructor stops and joins the
// thread. Collect() of `metrics` runs on that thread (prometheus::Registry's is
// thread-safe); `metrics` is kept alive by the server.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <prometheus/collectable.h>

#include "client/status.h"
#include "metrics/listen_address.h"

namespace ftb::metrics {

struct HttpServerOptions {
  std::chrono::milliseconds request_timeout{10000};  // Prometheus' default scrape_timeout
  std::size_t max_connections = 64;
};

class HttpServer {
 public:
  // `listen` is "host:port" (listen_address.h: IPv4, a name or [IPv6]; port 0 picks one).
  static Result<std::unique_ptr<HttpServer>> start(const std::string& listen,
                                                   std::shared_ptr<const prometheus::Collectable> metrics,
                                                   HttpServerOptions options = {});
  // start(), or no server (nullptr) when `listen` is empty: for an optional
  // --metrics-listen flag.
  static Result<std::unique_ptr<HttpServer>> startIfSet(
      const std::string& listen, std::shared_ptr<const prometheus::Collectable> metrics,
      HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  const std::string& address() const { return address_; }
  // Answered GET/HEAD /metrics requests.
  uint64_t scrapes() const { return scrapes_.load(); }

 private:
  struct Connection;
  HttpServer(ListeningSocket socket, int wake_fd, std::shared_ptr<const prometheus::Collectable> metrics,
             HttpServerOptions options);
  void serve();
  // Accepts every pending connection; false when accepting failed for want of
  // descriptors or memory (the caller pauses accepting for a moment).
  bool acceptAll(std::vector<Connection>& connections);
  void onReadable(Connection& c);
  void onWritable(Connection& c);
  std::string respond(const std::string& request_head);
  std::string render() const;

  ListeningSocket socket_;
  int wake_fd_;  // eventfd: the destructor's stop signal
  std::string address_;
  std::vector<std::shared_ptr<const prometheus::Collectable>> collectables_;
  HttpServerOptions options_;
  std::atomic<uint64_t> scrapes_{0};
  std::thread thread_;
};

}  // namespace ftb::metrics
