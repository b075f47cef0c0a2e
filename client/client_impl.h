// ClientImpl: the SDK behind ftb::Client.
//
// Threads:
// - callers: any thread; they build and buffer events, and post requests; on
//   a link that takes sends from any thread (the stream socket) they also
//   write their events themselves, under link_mu_, instead of waking the I/O thread;
// - the I/O thread: the only one that touches the connection to the agent
//   (AgentLink: ZeroMQ, or the agent's own Unix stream socket). It says Hello
//   on every (re)connection, sends buffered events, heartbeats, and receives
//   replies, acks and deliveries;
// - the dispatch thread: runs subscription callbacks one at a time. A callback
//   may disconnect (and then destroy) its own client: the thread is detached
//   then and leaves without touching the client again.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/client.h"
#include "client/clock.h"
#include "client/notification_queue.h"
#include "client/publish_buffer.h"
#include "client/transport/agent_link.h"
#include "client/wire/deliver_reader.h"
#include "proto/ftb.pb.h"

namespace ftb {

class ClientImpl final : public Client {
 public:
  // `clock`: every time the client reads (event stamps, heartbeats, the agent's
  // silence, the burst rule); tests may hand it a ManualClock.
  explicit ClientImpl(ClientOptions options, const Clock& clock = Clock::real());
  ~ClientImpl() override;

  Status start();  // starts the threads and waits for the first HelloReply

  Status declare(const std::vector<EventDeclaration>& events) override;
  Result<EventId> publish(std::string_view event_name, std::string_view payload,
                          const Tags& tags) override;
  Result<EventId> respond(const Event& request, std::string_view event_name,
                          std::string_view payload, const Tags& tags) override;
  Result<std::vector<Event>> request(std::string_view event_name, std::string_view payload,
                                     std::chrono::milliseconds deadline, std::size_t max_responses,
                                     const Tags& tags) override;
  Result<SubscriptionId> subscribe(SubscribeOptions options) override;
  Status unsubscribe(SubscriptionId id) override;
  Result<std::optional<Notification>> poll(SubscriptionId id,
                                           std::chrono::milliseconds timeout) override;
  Status disconnect(std::chrono::milliseconds timeout) override;
  Status flush(std::chrono::milliseconds timeout) override;
  ClientStats stats() const override;

 private:
  struct SubscriptionState {
    SubscribeOptions options;
    std::shared_ptr<NotificationQueue> queue;  // set for polling subscriptions
    std::unordered_map<std::string, uint64_t> last_seq;  // per publisher: dedup
    // Where a replay starts when the subscription is re-established after a
    // reconnect: the last event delivered to it, else the agent's newest event
    // when it began. Unset and established: replay all the agent retains.
    std::optional<proto::EventId> resume_from;
    bool established = false;  // the agent has accepted it at least once
  };
  struct Collector {  // responses to one request()
    std::vector<Event> responses;
    std::size_t max = 0;
  };
  struct Pending {  // a request waiting for its reply
    std::promise<proto::Envelope> reply;
  };

  Result<EventId> publishEvent(std::string_view event_name, std::string_view payload,
                               const Tags& tags, const Event* request,
                               const std::function<void(uint64_t)>& on_seq);
  // Posts `envelope` to the agent and waits for the reply; an Error reply comes
  // back as its Status; kUnavailable when disconnected.
  Result<proto::Envelope> call(proto::Envelope envelope, std::chrono::milliseconds timeout);
  void wake();

  // I/O thread.
  void ioLoop();
  void serve();  // the loop proper; may throw only on resource exhaustion
  bool sayHello();  // false when the frame could not be sent yet
  void onMessage(proto::Envelope& envelope);
  void onHelloReply(const proto::Envelope& envelope);
  // A Deliver frame's content, read by readDeliverFrame or from protobuf.
  void onDeliver(DeliverContent& deliver);
  // Callbacks are queued in callback_batch_ until flushCallbacks() (end of the frame).
  void deliverTo(SubscriptionId id, Event event, const std::string& publisher);
  // sequenceKey() of the event's publisher, memoized: key_of_, key_sender_, key_.
  const std::string& sequenceKeyOf(const Event& event);
  void reportMissed(SubscriptionId id, uint64_t count);  // mu_ held
  void sendPending();
  // Sends what the buffer holds from send_cursor_ on; false when the link is
  // full (the rest waits for POLLOUT). link_mu_ held.
  bool sendEventsLocked();
  bool sendFrame(const std::string& frame);  // takes link_mu_
  void markDisconnected(std::string_view why);
  AgentLink::Change takeLinkChange();  // takes link_mu_
  void failPendingRequests(const Status& status);

  // Dispatch thread.
  void dispatchLoop();
  // callback_batch_ to the dispatch queue under one lock, with at most one wake-up.
  void flushCallbacks();
  uint64_t enqueueLocked(SubscriptionId id, Notification notification);  // dispatch_mu_ held

  const Clock& clock_;
  const ClientOptions options_;
  const std::string endpoint_;
  const uint32_t client_instance_;
  std::string event_space_;  // normalised
  std::string publisher_key_;
  std::string will_name_;  // normalised options_.last_will->event_name

  // Every call on link_ but wait() (the I/O thread's, which touches only what
  // prepareWait set up) holds link_mu_ (so a caller may send on it, see
  // direct_send_), and so does send_cursor_. Lock order: link_mu_, then the
  // publish buffer's lock; mu_ is never taken while link_mu_ is held.
  std::mutex link_mu_;
  std::unique_ptr<AgentLink> link_;          // I/O thread, and callers under direct_send_
  // Set while registered on a link that takes sends from any thread: publish()
  // then writes its event itself instead of waking the I/O thread (one thread
  // hand-off less per event each way).
  std::atomic<bool> direct_send_{false};
  // When a caller last published (steady clock, ns): an event closer than
  // kBurstGap to the one before it is part of a burst and left to the I/O thread.
  static constexpr std::chrono::nanoseconds kBurstGap{50'000};
  std::atomic<int64_t> last_direct_send_ns_{0};
  int wake_fd_ = -1;
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> stopping_{false};
  std::thread io_thread_;
  std::thread dispatch_thread_;
  // Set when disconnect() ran on the dispatch thread (from a callback): the
  // thread ends after that callback without touching `this`, which may be gone.
  std::shared_ptr<std::atomic<bool>> dispatch_detached_ = std::make_shared<std::atomic<bool>>(false);

  PublishBuffer buffer_;
  uint64_t send_cursor_ = 1;  // next sequence to send (link_mu_)
  bool hello_wanted_ = false;  // I/O thread: a (re)connection awaits our Hello
  // I/O thread: the frame's callbacks (flushCallbacks), and the last sequence key built.
  std::vector<std::pair<SubscriptionId, Notification>> callback_batch_;
  EventId key_of_;
  VerifiedSender key_sender_;
  DeliverContent deliver_content_;  // I/O thread: reused for every Deliver frame
  std::string key_ = sequenceKey(EventId{}.publisherKey(), false, "");

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable hello_cv_;
  bool hello_done_ = false;   // connected and registered with the agent
  bool hello_sent_ = false;
  Status hello_error_;  // the agent refused our Hello (bad event space ...)
  uint64_t hello_request_ = 0;
  uint64_t max_payload_ = 64 * 1024;
  std::chrono::milliseconds heartbeat_interval_{1000};
  std::chrono::milliseconds agent_timeout_{5000};
  std::map<std::string, proto::Severity> declared_;
  std::map<SubscriptionId, SubscriptionState> subscriptions_;
  SubscriptionId next_subscription_ = 1;
  std::deque<proto::Envelope> outbox_;        // requests for the I/O thread to send
  std::unordered_map<uint64_t, std::shared_ptr<Pending>> pending_;  // by request id
  uint64_t next_request_ = 1;
  ClientStats stats_;

  // Lock order: the publish buffer's lock, then collect_mu_; never mu_ around either.
  std::mutex collect_mu_;
  std::condition_variable collectors_cv_;
  std::map<uint64_t, Collector> collectors_;  // request() in flight, by the request's seq

  std::mutex dispatch_mu_;
  std::condition_variable dispatch_cv_;
  std::deque<std::pair<SubscriptionId, Notification>> dispatch_queue_;  // bounded
  std::map<SubscriptionId, uint64_t> callback_missed_;  // lost while dispatch_queue_ was full
};

}  // namespace ftb
