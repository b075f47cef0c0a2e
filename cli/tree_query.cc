#include "cli/tree_query.h"

#include <zmq.hpp>

#include "client/codec.h"

namespace ftb::cli {
namespace {

using Clock = std::chrono::steady_clock;

// What one agent's reply says: its TreeInfo, its error, or that it is not ours.
Result<proto::TreeInfo> readAnswer(const std::string& endpoint, zmq::message_t& frame) {
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
  try {
    zmq::context_t context{1};
    std::vector<zmq::socket_t> sockets;
    std::vector<bool> waiting(endpoints.size(), false);
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
      sockets.emplace_back(context, zmq::socket_type::dealer);
      sockets[i].set(zmq::sockopt::linger, 0);
      if (curve.enabled() && endpoints[i].rfind("tcp://", 0) == 0) {
        sockets[i].set(zmq::sockopt::curve_serverkey, curve.server_key);
        sockets[i].set(zmq::sockopt::curve_publickey, curve.public_key);
        sockets[i].set(zmq::sockopt::curve_secretkey, curve.secret_key);
      }
      proto::Envelope request;
      request.set_request_id(1);  // one request per socket
      request.mutable_tree_query();
      const std::string frame = wire::encode(request);
      try {
        sockets[i].connect(endpoints[i]);
        // connect() creates the outgoing queue at once, so this only fails when it is full.
        waiting[i] = sockets[i].send(zmq::buffer(frame), zmq::send_flags::dontwait).has_value();
      } catch (const zmq::error_t& e) {
        answers[i] = invalidArgument("cannot connect to '" + endpoints[i] + "': " + e.what());
      }
    }
    const auto deadline = Clock::now() + timeout;
    for (auto now = Clock::now(); now < deadline; now = Clock::now()) {
      std::vector<zmq::pollitem_t> items;
      std::vector<std::size_t> index;
      for (std::size_t i = 0; i < sockets.size(); ++i) {
        if (!waiting[i]) continue;
        items.push_back({sockets[i].handle(), 0, ZMQ_POLLIN, 0});
        index.push_back(i);
      }
      if (items.empty()) break;
      try {
        zmq::poll(items, std::chrono::ceil<std::chrono::milliseconds>(deadline - now));
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        throw;
      }
      for (std::size_t k = 0; k < items.size(); ++k) {
        if (!(items[k].revents & ZMQ_POLLIN)) continue;
        const std::size_t i = index[k];
        zmq::message_t frame;
        if (!sockets[i].recv(frame, zmq::recv_flags::dontwait)) continue;
        answers[i] = readAnswer(endpoints[i], frame);
        waiting[i] = false;
      }
    }
  } catch (const zmq::error_t& e) {
    for (auto& answer : answers) {
      if (!answer.ok() && answer.status().code() == Code::kDeadlineExceeded) {
        answer = internalError(std::string("ZeroMQ failed while asking agents: ") + e.what());
      }
    }
  }
  return answers;
}

}  // namespace ftb::cli
