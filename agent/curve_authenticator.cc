#include "agent/curve_authenticator.h"

#include <zmq.h>

#include <chrono>
#include <ctime>

#include <spdlog/spdlog.h>

#include "client/clock.h"

namespace ftb::agent {
namespace {

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";

std::string z85(const zmq::message_t& raw) {
  if (raw.size() != 32) return "(not a 32-byte key)";
  char text[41] = {};
  zmq_z85_encode(text, static_cast<const uint8_t*>(raw.data()), 32);
  return text;
}

std::string nowText() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

Result<std::unique_ptr<CurveAuthenticator>> CurveAuthenticator::start(
    zmq::context_t& context, std::set<std::string> authorized_keys) {
  zmq::socket_t socket(context, zmq::socket_type::rep);
  try {
    socket.set(zmq::sockopt::linger, 0);
    socket.bind(kZapEndpoint);
  } catch (const zmq::error_t& e) {
    return internalError(std::string("cannot start the Curve authenticator: ") + e.what());
  }
  return std::unique_ptr<CurveAuthenticator>(
      new CurveAuthenticator(std::move(socket), std::move(authorized_keys)));
}

CurveAuthenticator::CurveAuthenticator(zmq::socket_t socket, std::set<std::string> keys)
    : socket_(std::move(socket)), keys_(std::move(keys)), thread_([this] { serve(); }) {}

CurveAuthenticator::~CurveAuthenticator() {
  stop_.store(true);
  thread_.join();
}

std::string CurveAuthenticator::lastRefusal() const {
  std::lock_guard lock(mutex_);
  return last_refusal_;
}

void CurveAuthenticator::serve() {
  while (!stop_.load()) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    try {
      if (zmq::poll(&item, 1, std::chrono::milliseconds(100)) <= 0) continue;
      std::vector<zmq::message_t> request;
      zmq::message_t part;
      do {
        if (!socket_.recv(part, zmq::recv_flags::dontwait)) break;
        request.push_back(std::move(part));
        part = zmq::message_t();
      } while (request.back().more());
      answer(request);
    } catch (const zmq::error_t& e) {
      if (e.num() == ETERM) return;
      spdlog::warn("Curve authenticator: {}", e.what());
    }
  }
}

void CurveAuthenticator::answer(std::vector<zmq::message_t>& request) {
  // version, request id, domain, address, routing id, mechanism, credentials...
  if (request.size() < 6) return;  // not ZAP: nothing sensible to answer
  const std::string mechanism = request[5].to_string();
  const std::string address = request[3].to_string();
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
  const std::string reply[] = {"1.0", request[1].to_string(), status, text, user, ""};
  for (std::size_t i = 0; i < 6; ++i) {
    socket_.send(zmq::buffer(reply[i]), i < 5 ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
}

}  // namespace ftb::agent
