// Serves a Registry over HTTP for Prometheus: GET /metrics answers the text
// exposition format; anything else gets 404 (405 for other methods).
//
//   auto server = ftb::metrics::HttpServer::start("127.0.0.1:9810", registry);
//   if (!server.ok()) { /* server.status().message() names the address */ }
//   (*server)->address();   // "127.0.0.1:9810" (port 0 resolved)
//
// Threading: start() binds on the caller's thread (so a bad address is a
// startup error) and serves from one thread of its own, one short connection
// at a time; a client that sends nothing is cut off after a second. The
// destructor stops and joins that thread. The registry must outlive the server.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "client/status.h"
#include "metrics/registry.h"

namespace ftb::metrics {

class HttpServer {
 public:
  // `listen` is "host:port" (IPv4 address or name; port 0 picks a free one).
  static Result<std::unique_ptr<HttpServer>> start(const std::string& listen,
                                                   const Registry& registry);
  // start(), or no server (nullptr) when `listen` is empty: for an optional
  // --metrics-listen flag.
  static Result<std::unique_ptr<HttpServer>> startIfSet(const std::string& listen,
                                                        const Registry& registry);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  const std::string& address() const { return address_; }
  uint64_t scrapes() const { return scrapes_.load(); }

 private:
  HttpServer(int fd, std::string address, const Registry& registry);
  void serve();
  void answer(int client);

  int fd_;
  std::string address_;
  const Registry& registry_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> scrapes_{0};
  std::thread thread_;
};

}  // namespace ftb::metrics
