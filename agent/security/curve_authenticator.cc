#include "agent/security/curve_authenticator.h"

#include <array>
#include <chrono>
#include <ctime>

#include <spdlog/spdlog.h>

#include "client/clock.h"

namespace ftb::agent {
namespace {

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";

std::string z85(const std::string& raw) {
  if (raw.size() != 32) return "(not a 32-byte key)";
  return z85Encode(raw);
}

std::string nowText() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

Result<std::unique_ptr<CurveAuthenticator>> CurveAuthenticator::start(
    ZmqContext& context, curve::AuthorizedKeys authorized_keys) {
  Result<ZmqSocket> socket = ZmqSocket::open(context, ZmqType::kRep);
  Status s = socket.ok() ? socket->set(ZmqOption::kLinger, 0) : socket.status();
  if (s.ok()) s = socket->bind(kZapEndpoint);
  if (!s.ok()) return internalError("cannot start the Curve authenticator: " + s.message());
  return std::unique_ptr<CurveAuthenticator>(
      new CurveAuthenticator(std::move(socket).value(), std::move(authorized_keys)));
}

CurveAuthenticator::CurveAuthenticator(ZmqSocket socket, curve::AuthorizedKeys keys)
    : socket_(std::move(socket)), keys_(std::move(keys)), thread_([this] { serve(); }) {}

CurveAuthenticator::~CurveAuthenticator() {
  stop_.store(true);
  thread_.join();
}

std::string CurveAuthenticator::lastRefusal() const {
  std::lock_guard lock(mutex_);
  return last_refusal_;
}

std::optional<uint32_t> CurveAuthenticator::uidOf(const std::string& key) const {
  auto it = keys_.find(key);
  return it == keys_.end() ? std::nullopt : it->second;
}

// Wakes every 100 ms to notice stop_: the context outlives this thread, so
// ending the context cannot be what stops it.
void CurveAuthenticator::serve() {
  ZmqMessage part;
  std::vector<std::string> request;
  while (!stop_.load()) {
    std::array<ZmqPollItem, 1> item{{{.socket = &socket_}}};
    if (!zmqPoll(item, std::chrono::milliseconds(100)) || !item[0].readable) continue;
    request.clear();
    while (socket_.receive(part)) {
      request.emplace_back(part.bytes());
      if (!part.more()) break;
    }
    if (!request.empty()) answer(request);
  }
}

void CurveAuthenticator::answer(const std::vector<std::string>& request) {
  // version, request id, domain, address, routing id, mechanism, credentials...
  if (request.size() < 6) return;  // not ZAP: nothing sensible to answer
  const std::string& mechanism = request[5];
  const std::string& address = request[3];
  std::string status = "200", text = "OK", user;
  if (mechanism == "CURVE") {
    const std::string key = request.size() > 6 ? z85(request[6]) : "(no key)";
    if (keys_.count(key) != 0) {
      user = key;
      accepted_.fetch_add(1);
    } else {
      status = "400", text = "Curve key not authorized";
      refused_.fetch_add(1);
      const std::string what = "key " + key + " from " + address + " at " + nowText();
      std::lock_guard lock(mutex_);
      last_refusal_ = what;
      // At most one line a second: a peer retrying in a loop must not flood the log.
      const auto now = Clock::real().steadyNow();
      if (now - last_logged_ >= std::chrono::seconds(1)) {
        spdlog::warn("refused a Curve connection: {} is not in the authorized keys ({} refused so far)",
                     what, refused_.load());
        last_logged_ = now;
      }
    }
  }
  const std::string reply[] = {"1.0", request[1], status, text, user, ""};
  for (std::size_t i = 0; i < 6; ++i) {
    if (socket_.send(reply[i], /*more=*/i < 5, /*wait=*/true) != ZmqSent::kSent) {
      spdlog::warn("Curve authenticator: cannot answer: {}", ZmqSocket::lastError());
      return;
    }
  }
}

}  // namespace ftb::agent
