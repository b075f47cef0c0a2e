// Writes the seed corpora of the wire fuzzers: one serialized frame per file,
// one file per message type a peer sends, built with the same encoders the
// SDK and the agent use (so the seeds stay valid frames of this protocol).
//   make_wire_seeds DIR   writes DIR/envelope_fuzzer/*, DIR/tree_message_fuzzer/*
//                         DIR/deliver_reader_fuzzer/* and DIR/publish_reader_fuzzer/*
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>

#include "agent/routing/deliver_frame.h"
#include "agent/transport/tree_wire.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace {

namespace fs = std::filesystem;
namespace tree = ftb::tree;

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

ftb::Event sampleEvent() {
  ftb::Event e;
  e.event_space = "FTB.IPMI.BMC";
  e.event_name = "SENSOR_CRITICAL";
  e.severity = ftb::Severity::kFatal;
  e.client_name = "ftb-ipmi";
  e.job_id = "4711";
  e.id = {"node17", 4242, 1700000000000000000ull, 1, 7};
  e.time_sec = 1700000001;
  e.payload = "node17 sensor=\"CPU1 Temp\" state=critical reading=95.00";
  e.tags = {{"bmc", "node17-bmc"}};
  return e;
}

std::string serializedEvent() {
  ftb::proto::Event event;
  ftb::toProto(sampleEvent(), &event);
  return event.SerializeAsString();
}

void envelopeSeeds(const fs::path& dir) {
  const auto put = [&](const std::string& name, ftb::proto::Envelope envelope) {
    envelope.set_request_id(3);
    write(dir, name, ftb::wire::encode(envelope));
  };
  ftb::proto::Envelope e;
  auto* hello = e.mutable_hello();
  hello->set_client_name("ftb-ipmi");
  hello->set_event_space("FTB.IPMI");
  hello->mutable_origin()->set_host("node17");
  hello->mutable_origin()->set_pid(4242);
  auto* declaration = hello->add_declarations();
  declaration->set_name("SENSOR_CRITICAL");
  declaration->set_severity(ftb::proto::FATAL);
  put("hello", e);

  e.Clear();
  e.mutable_publish()->add_events(serializedEvent());
  put("publish", e);

  e.Clear();
  e.mutable_subscribe()->set_subscription_id(1);
  e.mutable_subscribe()->set_filter("event_space=FTB.IPMI.*, severity>=warning");
  e.mutable_subscribe()->mutable_history()->set_last_n(10);
  put("subscribe", e);

  e.Clear();
  auto* delivery = e.mutable_deliver()->add_deliveries();
  delivery->set_event(serializedEvent());
  delivery->add_subscription_ids(1);
  put("deliver", e);

  e.Clear();
  e.mutable_history_query()->set_filter("event_space=FTB.**");
  e.mutable_history_query()->set_last_n(5);
  put("history_query", e);

  e.Clear();
  e.mutable_heartbeat()->set_session(99);
  put("heartbeat", e);

  e.Clear();
  e.mutable_goodbye();
  put("goodbye", e);

  put("error", ftb::wire::makeError(ftb::proto::Error::INVALID_ARGUMENT, "bad filter", 3));

  e.Clear();
  ftb::agent::toProto(tree::TreeMessage{{"tcp://10.0.0.7:10809", 1, "node7"}, tree::Probe{5}},
                      e.mutable_tree());
  put("tree_probe", e);
}

void treeSeeds(const fs::path& dir) {
  const tree::NodeRef self{"tcp://10.0.0.7:10809", 1700000000, "node7"};
  const tree::NodeRef root{"tcp://10.0.0.1:10809", 1600000000, "node1"};
  const tree::SeenVector seen = {{"node17/4242/1700000000000000000/1", 40, {{3, 5}, {9, 9}}}};
  const auto put = [&](const std::string& name, tree::TreeBody body) {
    ftb::proto::TreeMessage m;
    ftb::agent::toProto(tree::TreeMessage{self, std::move(body)}, &m);
    write(dir, name, m.SerializeAsString());
  };
  put("join_request", tree::JoinRequest{2, std::chrono::seconds(5), root,
                                        {"event_space=FTB.IPMI.*", "event_space=FTB.JL.**"}, seen});
  tree::JoinReply reply;
  reply.attempt = 2;
  reply.result = tree::JoinReply::Result::kAccepted;
  reply.path = {root, self};
  reply.interest = {"event_space=FTB.MPI.*"};
  put("join_reply", reply);
  reply.result = tree::JoinReply::Result::kRedirect;
  reply.redirect = {root};
  put("join_reply_redirect", reply);
  put("heartbeat", tree::Heartbeat{true, {root, self}, {self}, 3, 1000, 900, 50});
  put("interest_update", tree::InterestUpdate{{"event_space=FTB.IB.*"}, seen, tree::kFillRequest});
  tree::EventBatch batch;
  batch.events.push_back({"node17/4242/1700000000000000000/1", 41, "FTB.IPMI.BMC", false,
                          std::make_shared<const std::string>(serializedEvent())});
  batch.gone.push_back({"node17/4242/1700000000000000000/1", "FTB.IPMI.BMC", {{1, 2}}});
  put("event_batch", batch);
  put("leave", tree::Leave{"shutting down"});
  put("probe_reply", tree::ProbeReply{5, true, {root, self}});
  put("merge_invite", tree::MergeInvite{});
}

// An event with every field set, the sender as the accepting agent appends it.
std::string everyFieldEvent() {
  ftb::Event event = sampleEvent();
  event.type = ftb::EventType::kResponse;
  event.response_to = ftb::EventId{"node3", 7, 1600000000000000000ull, 2, 19};
  event.time_nsec = 250000000;
  ftb::proto::Event wire;
  ftb::toProto(event, &wire);
  auto* sender = wire.mutable_sender();
  sender->set_agent("node17");
  sender->set_uid(1000);
  sender->set_pid(4242);
  sender->set_credentials_known(true);
  return wire.SerializeAsString();
}

// Deliver frames as the agent writes them (agent/routing/deliver_frame.h): the
// reader's plain form, with every field of an event set.
void deliverSeeds(const fs::path& dir) {
  const std::string bytes = everyFieldEvent();
  ftb::agent::DeliverFrame frame;
  const uint32_t ids[] = {1, 4};
  frame.add(bytes, ids);
  frame.add(serializedEvent(), std::span<const uint32_t>(ids, 1));
  write(dir, "deliver_two_events", frame.finish(0, {}));
  write(dir, "deliver_after_loss", frame.finish(12, {{1, 12}, {4, 3}}));
}

// Publish frames of one and two events, and one event alone with every field
// set (the reader also reads tree events, which carry the sender).
void publishSeeds(const fs::path& dir) {
  const std::string full = everyFieldEvent();
  write(dir, "event_every_field", full);
  ftb::proto::Envelope envelope;
  envelope.set_request_id(9);
  envelope.mutable_publish()->add_events(serializedEvent());
  write(dir, "publish_one_event", ftb::wire::encode(envelope));
  envelope.mutable_publish()->add_events(full);
  write(dir, "publish_two_events", ftb::wire::encode(envelope));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_wire_seeds DIR (e.g. $PWD/tests/fuzz/corpus)\n");
    return 2;
  }
  envelopeSeeds(fs::path(argv[1]) / "envelope_fuzzer");
  treeSeeds(fs::path(argv[1]) / "tree_message_fuzzer");
  deliverSeeds(fs::path(argv[1]) / "deliver_reader_fuzzer");
  publishSeeds(fs::path(argv[1]) / "publish_reader_fuzzer");
  return 0;
}
