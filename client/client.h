// The ftb client SDK: connect to the local ftb-agent under an event space,
// declare the events you publish, publish them, and subscribe to events from
// anywhere on the backplane by callback or by polling.
//
//   auto client = ftb::Client::connect({.event_space = "FTB.MPI.OPENMPI",
//                                       .client_name = "mpirun"});
//   if (!client) { log(client.status().toString()); return; }
//   (*client)->declare({{"FTB_MPI_PROCS_DEAD", ftb::Severity::kFatal}});
//   (*client)->publish("FTB_MPI_PROCS_DEAD", "rank 3");
//   auto sub = (*client)->subscribe({.filter = "event_space=FTB.IPMI.*, severity>=error",
//                                    .callback = [](const ftb::Notification& n) {...}});
//
// Contract:
// - Thread-safe: every method may be called from any thread.
// - Never aborts, exits or throws into the host program; failures are returned.
// - Callbacks run on one SDK-owned thread, one at a time, in arrival order. They may
//   call publish/respond/subscribe but should not block for long.
// - If the agent goes away the SDK reconnects by itself, re-establishes
//   subscriptions and re-sends every event the agent had not acknowledged
//   (bounded by ClientOptions::publish_buffer_events). Subscribers see each event
//   once: duplicates a resend can cause are suppressed by event id.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/event.h"
#include "client/status.h"

namespace ftb {

// Default endpoint of the local agent: its own Unix stream socket (half the
// thread wake-ups per event of ZeroMQ's ipc://, docs/ARCHITECTURE.md);
// $FTB_AGENT_ENDPOINT overrides it. An agent configured with an IPC endpoint
// (ipc://PATH) serves local clients over ZeroMQ too, with the same protocol and checks.
inline constexpr std::string_view kDefaultAgentEndpoint = "unix:///run/ftb/agent.stream";
inline constexpr int kDefaultAgentTcpPort = 10809;

// The agent endpoint a client uses when none is given:
// $FTB_AGENT_ENDPOINT, else kDefaultAgentEndpoint.
std::string defaultAgentEndpoint();

// What the agent publishes on a client's behalf if the client's session ends
// without disconnect() (the process died, or fell silent for the agent's
// client timeout): an event of the client's event space, declared implicitly
// with `severity` at connect. Published at most once, with an event id of its
// own (the client's origin, client_instance | 0x80000000, seq 1). A clean
// disconnect(), or an agent restart (the SDK says Hello to the new agent),
// does not publish it. docs/RECOVERY_EVENTS.md, "Last will".
struct LastWill {
  std::string event_name;  // e.g. "FTB_MPI_PROCS_DEAD"
  Severity severity = Severity::kFatal;
  std::string payload;     // within the agent's payload limit, else connect() fails
  Tags tags;
};

struct ClientOptions {
  std::string event_space;     // required, e.g. "FTB.MPI.OPENMPI"
  std::string client_name;     // required
  std::string job_id;          // optional
  std::optional<int> rank;     // optional: the client's rank in job_id (an MPI rank), >= 0
  std::string agent_endpoint;  // "" = defaultAgentEndpoint(); ipc://..., unix://... or tcp://host:port
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{5000};  // subscribe/declare/unsubscribe acks
  // Published events kept until the agent acknowledges them (re-sent after a
  // reconnect). publish() fails with kResourceExhausted when this is full...
  std::size_t publish_buffer_events = 1 << 17;
  // ...unless this is set: then publish() blocks while the buffer is full and
  // fails only when the agent has acknowledged nothing for this long (gone past
  // a reconnect). 0: never block. The FTB 0.5 C API sets it (FTB_Publish blocks
  // like the original's socket write).
  std::chrono::milliseconds publish_wait_for_room{0};
  // Capacity of each polling subscription's queue, and of the queue of
  // callbacks waiting to run; overflow is counted and reported by a kMissed
  // notification, never dropped silently.
  std::size_t poll_queue_events = 1 << 17;
  // CurveZMQ, for a tcp:// agent that requires it (docs/SECURITY.md): the
  // agent's public key and this client's key pair, Z85 (ftbctl keygen). The
  // agent must list curve_public_key among its authorized keys; otherwise
  // connect() fails with kUnavailable. Empty: no Curve. Ignored for ipc://.
  std::string curve_server_key;
  std::string curve_public_key;
  std::string curve_secret_key;
  // Checked by the agent at connect like a publish (name, payload size, the
  // namespace policy): connect() fails with the agent's reason otherwise.
  std::optional<LastWill> last_will;
};

// What a subscription receives: an event, or a notice that `missed` events
// matching it were lost (a full queue in the agent or in this SDK).
struct Notification {
  enum class Kind { kEvent, kMissed };
  Kind kind = Kind::kEvent;
  Event event;          // kind == kEvent
  uint64_t missed = 0;  // kind == kMissed
};

using NotificationCallback = std::function<void(const Notification&)>;
using SubscriptionId = uint32_t;

struct HistoryReplay {
  std::optional<EventId> since;  // events the agent received after this one
  uint32_t last_n = 0;           // or the newest N matching events
};

struct SubscribeOptions {
  std::string filter;             // docs/FILTERS.md; "" matches everything
  NotificationCallback callback;  // set: delivered by callback
  bool polling = false;           // true: queued for poll(); both may be set
  std::optional<HistoryReplay> history;
};

struct ClientStats {
  uint64_t published = 0;
  uint64_t acked = 0;
  uint64_t delivered = 0;
  uint64_t duplicates_suppressed = 0;
  uint64_t missed = 0;  // reported by the agent or lost in a full poll queue
  uint64_t reconnects = 0;
  uint64_t agent_errors = 0;  // asynchronous errors the agent reported
  std::string last_agent_error;
  bool connected = false;
};

class Client {
 public:
  // Connects and says Hello; kUnavailable if no agent answers in connect_timeout.
  static Result<std::unique_ptr<Client>> connect(ClientOptions options);

  virtual ~Client() = default;  // disconnects

  // Events this client may publish (name + severity), as in FTB 0.5.
  virtual Status declare(const std::vector<EventDeclaration>& events) = 0;

  // Publishes a declared event. Returns its id once it is buffered for sending;
  // the agent acknowledges asynchronously (see stats()).
  virtual Result<EventId> publish(std::string_view event_name, std::string_view payload = {},
                                  const Tags& tags = {}) = 0;

  // Publishes a response (a declared event of type RESPONSE) to `request`.
  virtual Result<EventId> respond(const Event& request, std::string_view event_name,
                                  std::string_view payload = {}, const Tags& tags = {}) = 0;

  // Publishes `event_name` (with `tags`, as publish()) and collects the
  // responses to it that arrive before `deadline` passes, or until
  // `max_responses` have arrived (0 = no limit).
  virtual Result<std::vector<Event>> request(std::string_view event_name,
                                             std::string_view payload,
                                             std::chrono::milliseconds deadline,
                                             std::size_t max_responses = 0,
                                             const Tags& tags = {}) = 0;

  // Returns once the agent has accepted the subscription (or, while the agent is
  // unreachable, once it is recorded for re-establishment). Invalid filters fail
  // with kInvalidArgument naming the key or value.
  virtual Result<SubscriptionId> subscribe(SubscribeOptions options) = 0;
  virtual Status unsubscribe(SubscriptionId id) = 0;

  // Next notification of a polling subscription, waiting up to `timeout`
  // (0 = do not wait). std::nullopt when none arrived in time.
  virtual Result<std::optional<Notification>> poll(SubscriptionId id,
                                                   std::chrono::milliseconds timeout) = 0;

  // Sends what is buffered (waiting up to `timeout` for the agent's acks),
  // says goodbye and stops the SDK threads. Returns once the goodbye is
  // written to the connection (at most 1 s more), so a process may exit at
  // once without its last will being published. Idempotent.
  virtual Status disconnect(std::chrono::milliseconds timeout = std::chrono::milliseconds(2000)) = 0;

  // Waits until the agent has acknowledged every event published so far.
  virtual Status flush(std::chrono::milliseconds timeout) = 0;

  virtual ClientStats stats() const = 0;
};

}  // namespace ftb
