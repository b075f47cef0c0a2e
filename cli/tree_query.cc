#include "cli/tree_query.h"

#include "client/transport/zmq_socket.h"
#include "client/wire/codec.h"

namespace ftb::cli {
namespace {

using Clock = std::chrono::steady_clock;

// What one agent's reply says: its TreeInfo, its error, or that it is not ours.
Result<proto::TreeInfo> readAnswer(const std::string& endpoint, std::string_view frame) {
  Result<proto::Envelope> answer = wire::decode(frame.data(), frame.size());
  if (!answer.ok()) {
    return Status(answer.status().code(),
                  "the ftb-agent at " + endpoint +
                      " sent a reply ftbctl cannot read: " + answer.status().message());
  }
  if (answer->has_error()) return wire::statusFromError(answer->error());
  if (!answer->has_tree_info()) {
    return internalError("the ftb-agent at " + endpoint +
                         " answered a tree query with something else");
  }
  return std::move(*answer->mutable_tree_info());
}

}  // namespace

std::vector<Result<proto::TreeInfo>> queryTreeInfo(const std::vector<std::string>& endpoints,
                                                   std::chrono::milliseconds timeout,
                                                   const CurveClientKeys& curve) {
  std::vector<Result<proto::TreeInfo>> answers;
  for (const std::string& endpoint : endpoints) {
    answers.emplace_back(deadlineExceeded("no ftb-agent answered at " + endpoint + " within " +
                                          std::to_string(timeout.count()) + " ms"));
  }
  ZmqContext context;
  std::vector<ZmqSocket> sockets(endpoints.size());
  std::vector<bool> waiting(endpoints.size(), false);
  proto::Envelope request;
  request.set_request_id(1);  // one request per socket
  request.mutable_tree_query();
  const std::string frame = wire::encode(request);
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    auto connect = [&]() -> Status {
      Result<ZmqSocket> dealer = ZmqSocket::open(context, ZmqType::kDealer);
      if (!dealer.ok()) return dealer.status();
      sockets[i] = std::move(dealer).value();
      if (Status s = sockets[i].set(ZmqOption::kLinger, 0); !s.ok()) return s;
      if (curve.enabled() && endpoints[i].rfind("tcp://", 0) == 0) {
        Status s = sockets[i].setCurveClient(curve.server_key, curve.public_key, curve.secret_key);
        if (!s.ok()) return s;
      }
      return sockets[i].connect(endpoints[i]);
    };
    if (Status s = connect(); !s.ok()) {
      answers[i] = invalidArgument("cannot connect to '" + endpoints[i] + "': " + s.message());
      continue;
    }
    // connect() creates the outgoing queue at once, so this only fails when it is full.
    waiting[i] = sockets[i].send(frame) == ZmqSent::kSent;
  }
  const auto deadline = Clock::now() + timeout;
  for (auto now = Clock::now(); now < deadline; now = Clock::now()) {
    std::vector<ZmqPollItem> items;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < sockets.size(); ++i) {
      if (!waiting[i]) continue;
      items.push_back({.socket = &sockets[i]});
      index.push_back(i);
    }
    if (items.empty()) break;
    // A signal ends the wait early: look again until the deadline.
    if (!zmqPoll(items, std::chrono::ceil<std::chrono::milliseconds>(deadline - now))) continue;
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (!items[k].readable) continue;
      const std::size_t i = index[k];
      ZmqMessage reply;
      if (!sockets[i].receive(reply)) continue;
      answers[i] = readAnswer(endpoints[i], reply.bytes());
      waiting[i] = false;
    }
  }
  return answers;
}

}  // namespace ftb::cli
