// A subscriber that does not keep up must cost nobody else anything and must
// learn exactly how much it lost: a publisher floods while one subscriber does
// not read; the publisher is never blocked, a fast subscriber gets everything,
// and the slow one ends with received + reported-missed == published.
#define BOOST_TEST_MODULE slow_subscriber
#include <boost/test/unit_test.hpp>

#include <poll.h>

#include <condition_variable>
#include <mutex>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"

using namespace std::chrono_literals;
using ftb::Notification;
using ftb::proto::Envelope;
using ftb::testing::AgentProcess;
using ftb::testing::findClient;
using ftb::testing::RawPeer;
using ftb::testing::waitFor;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kFlood = 20000;
constexpr char kFloodFilter[] = "event_space=FTB.FLOOD";

std::unique_ptr<ftb::Client> connect(ftb::ClientOptions options) {
  auto c = ftb::Client::connect(std::move(options));
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().toString());
  return std::move(c).value();
}

std::unique_ptr<ftb::Client> connectPublisher(const AgentProcess& agent) {
  auto pub = connect({.event_space = "FTB.FLOOD", .client_name = "flooder",
                      .agent_endpoint = agent.localEndpoint()});
  BOOST_REQUIRE(pub->declare({{"EV_A", ftb::Severity::kInfo}, {"EV_B", ftb::Severity::kInfo}}).ok());
  return pub;
}

// Publishes `count` events alternating EV_A / EV_B with payload = index; checks
// that no publish() call blocks, and that the agent acknowledges them all.
// With `keep_up_with`, publishing pauses every kChunk events until that
// subscriber's SDK has taken them in, so it stays within the agent's small
// per-client queue (the agent routes faster than an SDK reads: unpaced, any
// subscriber would be "slow" under these tiny bounds).
constexpr int kChunk = 1000;

void flood(ftb::Client& pub, int count, ftb::Client* keep_up_with = nullptr) {
  Clock::duration slowest{};
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (keep_up_with != nullptr && i > 0 && i % kChunk == 0) {
      BOOST_REQUIRE_MESSAGE(waitFor([&] { return keep_up_with->stats().delivered >= static_cast<uint64_t>(i); }),
                            "the paced subscriber did not take in " << i << " events");
    }
    const auto before = Clock::now();
    auto id = pub.publish(i % 2 == 0 ? "EV_A" : "EV_B", std::to_string(i));
    slowest = std::max(slowest, Clock::now() - before);
    BOOST_REQUIRE_MESSAGE(id.ok(), "publish " << i << ": " << id.status().toString());
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  const auto slowest_ms = std::chrono::duration_cast<std::chrono::milliseconds>(slowest);
  BOOST_TEST_MESSAGE("published " << count << " events in " << took.count()
                                  << " ms; slowest publish() " << slowest_ms.count() << " ms");
  // Never blocked: a publish() that waited for the subscriber that does not
  // read would wait for good; 5 s leaves room for a descheduled thread.
  BOOST_CHECK_MESSAGE(slowest < 5000ms, "a publish() call blocked for " << slowest_ms.count() << " ms");
  ftb::Status flushed = pub.flush(30s);
  BOOST_REQUIRE_MESSAGE(flushed.ok(), flushed.toString());
  BOOST_CHECK_EQUAL(pub.stats().acked, static_cast<uint64_t>(count));
}

// Polls until `count` events arrived; they must be payloads 0..count-1 in
// order (every `step`-th index from `first`), with no loss reported.
void expectAll(ftb::Client& sub, ftb::SubscriptionId id, int first, int step, int count,
               const std::string& what) {
  int next = first;
  for (int got = 0; got < count; ++got) {
    auto n = sub.poll(id, 20s);
    BOOST_REQUIRE(n.ok());
    BOOST_REQUIRE_MESSAGE(n->has_value(), what << ": only " << got << " of " << count << " arrived");
    BOOST_REQUIRE_MESSAGE((*n)->kind == Notification::Kind::kEvent,
                          what << ": told it missed " << (*n)->missed << " after " << got);
    BOOST_REQUIRE_EQUAL((*n)->event.payload, std::to_string(next));
    next += step;
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(sdk_poller_that_does_not_poll_learns_every_loss) {
  AgentProcess agent({"--client-queue-events=2048", "--socket-hwm=16"});
  auto fast = connect({.event_space = "FTB.TEST.FAST", .client_name = "fast",
                       .agent_endpoint = agent.localEndpoint()});
  auto fast_id = fast->subscribe({.filter = kFloodFilter, .polling = true});
  BOOST_REQUIRE(fast_id.ok());
  auto slow = connect({.event_space = "FTB.TEST.SLOW", .client_name = "slow",
                       .agent_endpoint = agent.localEndpoint(), .poll_queue_events = 100});
  auto slow_id = slow->subscribe({.filter = kFloodFilter, .polling = true});
  BOOST_REQUIRE(slow_id.ok());
  auto pub = connectPublisher(agent);

  flood(*pub, kFlood, fast.get());
  expectAll(*fast, *fast_id, 0, 1, kFlood, "fast subscriber");

  // Now the slow one polls: events in publish order, and kMissed notices that
  // account for every event it did not get.
  uint64_t received = 0, missed = 0, notices = 0;
  int64_t last = -1;
  while (received + missed < static_cast<uint64_t>(kFlood)) {
    auto n = slow->poll(*slow_id, 20s);
    BOOST_REQUIRE(n.ok());
    if (!n->has_value()) break;
    if ((*n)->kind == Notification::Kind::kMissed) {
      BOOST_CHECK_GT((*n)->missed, 0u);
      missed += (*n)->missed;
      ++notices;
      continue;
    }
    const int64_t index = std::stoll((*n)->event.payload);
    BOOST_REQUIRE_MESSAGE(index > last, "slow subscriber: event " << index << " after " << last);
    last = index;
    ++received;
  }
  BOOST_TEST_MESSAGE("slow subscriber: " << received << " received, " << missed << " missed in "
                                         << notices << " notices");
  BOOST_CHECK_EQUAL(received + missed, static_cast<uint64_t>(kFlood));
  BOOST_CHECK_GE(received, 100u);  // what its queue held
  BOOST_CHECK_GT(notices, 0u);
  BOOST_CHECK_EQUAL(slow->stats().missed, missed);
  auto extra = slow->poll(*slow_id, 200ms);
  BOOST_REQUIRE(extra.ok());
  BOOST_CHECK_MESSAGE(!extra->has_value(), "the slow subscriber got more than was published");

  const ftb::proto::StatusReply status = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(status.counters().events_in(), static_cast<uint64_t>(kFlood));
  BOOST_CHECK_EQUAL(status.counters().events_out() + status.counters().events_dropped(),
                    2u * kFlood);
  BOOST_CHECK_EQUAL(status.counters().events_rejected(), 0u);
}

BOOST_AUTO_TEST_CASE(agent_reports_every_event_it_drops_for_a_peer_that_does_not_read) {
  AgentProcess agent({"--client-queue-events=2048", "--socket-hwm=8", "--client-timeout-ms=60000"});
  auto fast = connect({.event_space = "FTB.TEST.FAST", .client_name = "fast",
                       .agent_endpoint = agent.localEndpoint()});
  auto fast_id = fast->subscribe({.filter = kFloodFilter, .polling = true});
  BOOST_REQUIRE(fast_id.ok());

  // A raw subscriber whose ZeroMQ buffers hold a single frame and that reads nothing.
  RawPeer raw(agent.ipcEndpoint(), /*rcvhwm=*/1);
  ftb::testing::RawIdentity who{.client_name = "stuck"};
  auto hello = raw.call(makeHello(who, {}));
  BOOST_REQUIRE(hello.has_value() && hello->has_hello_reply());
  Envelope subscribe;
  subscribe.mutable_subscribe()->set_subscription_id(1);
  subscribe.mutable_subscribe()->set_filter(kFloodFilter);
  auto subscribed = raw.call(subscribe);
  BOOST_REQUIRE(subscribed.has_value() && subscribed->has_subscribe_reply());

  auto pub = connectPublisher(agent);
  flood(*pub, kFlood, fast.get());
  expectAll(*fast, *fast_id, 0, 1, kFlood, "fast subscriber");

  const ftb::proto::ClientsReply during = ftb::testing::queryClients(agent.ipcEndpoint());
  const ftb::proto::ClientInfo* stuck = findClient(during, "stuck");
  BOOST_REQUIRE(stuck != nullptr);
  BOOST_TEST_MESSAGE("agent: stuck peer dropped " << stuck->events_dropped() << ", queued "
                                                  << stuck->queue_depth());
  BOOST_REQUIRE_MESSAGE(stuck->events_dropped() > 0, "the flood did not overflow the agent's queue");
  BOOST_CHECK_LE(stuck->queue_depth(), 2048u + 255u);  // one frame may straddle the bound

  // Now it reads everything there is: deliveries in order, plus missed_before counts.
  uint64_t received = 0, missed = 0;
  int64_t last = -1;
  while (received + missed < static_cast<uint64_t>(kFlood)) {
    auto e = raw.recv(20s);
    if (!e) break;
    if (!e->has_deliver()) continue;
    missed += e->deliver().missed_before();
    for (const auto& d : e->deliver().deliveries()) {
      ftb::proto::Event event;
      BOOST_REQUIRE(event.ParseFromString(d.event()));
      const int64_t index = std::stoll(event.payload());
      BOOST_REQUIRE_MESSAGE(index > last, "stuck peer: event " << index << " after " << last);
      last = index;
      ++received;
    }
  }
  BOOST_TEST_MESSAGE("stuck peer: " << received << " received, " << missed << " reported missed");
  const ftb::proto::ClientsReply after = ftb::testing::queryClients(agent.ipcEndpoint());
  stuck = findClient(after, "stuck");
  BOOST_REQUIRE(stuck != nullptr);
  BOOST_CHECK_EQUAL(stuck->queue_depth(), 0u);
  // Nothing lost silently: every event was delivered or reported as missed.
  BOOST_CHECK_MESSAGE(received + missed == static_cast<uint64_t>(kFlood),
                      "stuck peer: " << received << " received + " << missed
                                     << " reported missed != " << kFlood << " published ("
                                     << stuck->events_dropped() << " dropped by the agent)");
  BOOST_CHECK_EQUAL(missed, stuck->events_dropped());

  const ftb::proto::StatusReply status = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(status.counters().events_in(), static_cast<uint64_t>(kFlood));
  BOOST_CHECK_EQUAL(status.counters().events_dropped(), stuck->events_dropped());
  BOOST_CHECK_EQUAL(status.counters().events_out() + status.counters().events_dropped(),
                    2u * kFlood);
}

// A subscriber process frozen with SIGSTOP while a publisher floods: the agent
// drops for it; once thawed, each of its two subscriptions (disjoint filters)
// must account exactly for the events that matched it.
BOOST_AUTO_TEST_CASE(frozen_subscriber_process_with_two_subscriptions) {
  AgentProcess agent({"--client-queue-events=2048", "--socket-hwm=8", "--client-timeout-ms=60000"});
  constexpr uint64_t kPerSubscription = kFlood / 2 + 1;  // + one trailer each

  int ready[2], results[2];
  BOOST_REQUIRE(pipe(ready) == 0 && pipe(results) == 0);
  // Fork before this process starts any SDK (ZeroMQ) threads.
  const pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    uint64_t report[5] = {0, 0, 0, 0, 1};  // received A, missed A, received B, missed B, in order
    auto c = ftb::Client::connect({.event_space = "FTB.TEST.FROZEN", .client_name = "frozen",
                                   .agent_endpoint = agent.localEndpoint()});
    if (!c.ok()) _exit(3);
    auto a = (*c)->subscribe({.filter = "event_space=FTB.FLOOD, event_name=EV_A", .polling = true});
    auto b = (*c)->subscribe({.filter = "event_space=FTB.FLOOD, event_name=EV_B", .polling = true});
    if (!a.ok() || !b.ok()) _exit(4);
    (void)!write(ready[1], "r", 1);
    // The parent stops us here and lets us go after the flood.
    // Each subscription's last event is its trailer; stop once both arrived and
    // everything queued is read (or after 15 s without any notification).
    int64_t last[2] = {-1, -1};
    bool trailer[2] = {false, false};
    auto idle_since = Clock::now();
    while (Clock::now() - idle_since < 15s) {
      bool any = false;
      for (int s = 0; s < 2; ++s) {
        auto n = (*c)->poll(s == 0 ? *a : *b, trailer[0] && trailer[1] ? 0ms : 10ms);
        if (!n.ok() || !n->has_value()) continue;
        any = true;
        if ((*n)->kind == Notification::Kind::kMissed) {
          report[2 * s + 1] += (*n)->missed;
        } else {
          ++report[2 * s];
          const int64_t index =
              (*n)->event.payload == "trailer" ? kFlood + s : std::stoll((*n)->event.payload);
          if (index <= last[s] || index % 2 != s) report[4] = 0;
          last[s] = index;
          trailer[s] |= (*n)->event.payload == "trailer";
        }
      }
      if (any) idle_since = Clock::now();
      if (!any && trailer[0] && trailer[1]) break;
    }
    (void)!write(results[1], report, sizeof(report));
    _exit(0);
  }
  close(ready[1]);
  close(results[1]);
  // Whatever happens below, the child does not outlive the test (stopped or not).
  struct Reaper {
    pid_t pid;
    ~Reaper() {
      if (waitpid(pid, nullptr, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  } reaper{child};
  auto readWithin = [](int fd, void* buf, std::size_t size, int timeout_ms) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) return false;
    return read(fd, buf, size) == static_cast<ssize_t>(size);
  };
  char r;
  BOOST_REQUIRE_MESSAGE(readWithin(ready[0], &r, 1, 10000), "the subscriber process did not start");
  BOOST_REQUIRE(kill(child, SIGSTOP) == 0);

  auto pub = connectPublisher(agent);
  flood(*pub, kFlood);
  const ftb::proto::ClientInfo* frozen = nullptr;
  ftb::proto::ClientsReply clients = ftb::testing::queryClients(agent.ipcEndpoint());
  frozen = findClient(clients, "frozen");
  BOOST_REQUIRE(frozen != nullptr);
  BOOST_TEST_MESSAGE("agent: frozen subscriber dropped " << frozen->events_dropped());
  const bool overflowed = frozen->events_dropped() > 0;

  BOOST_REQUIRE(kill(child, SIGCONT) == 0);
  // Once the agent has handed everything queued to the thawed process, one more
  // event per subscription carries any loss count still pending.
  BOOST_CHECK(waitFor(
      [&] {
        auto c = ftb::testing::queryClients(agent.ipcEndpoint());
        auto* f = findClient(c, "frozen");
        return f != nullptr && f->queue_depth() == 0;
      },
      20s));
  BOOST_REQUIRE(pub->publish("EV_A", "trailer").ok());
  BOOST_REQUIRE(pub->publish("EV_B", "trailer").ok());

  uint64_t report[5] = {};
  const bool reported = readWithin(results[0], report, sizeof(report), 40000);
  int status = 0;
  waitpid(child, &status, 0);
  BOOST_REQUIRE_MESSAGE(overflowed, "the flood did not overflow the agent's queue for the frozen process");
  BOOST_REQUIRE_MESSAGE(reported, "the subscriber process reported nothing (exit status " << status << ")");
  BOOST_TEST_MESSAGE("EV_A: " << report[0] << " received + " << report[1] << " missed; EV_B: "
                              << report[2] << " received + " << report[3] << " missed");
  BOOST_CHECK_MESSAGE(report[4] == 1, "events arrived out of order or under the wrong subscription");
  BOOST_CHECK_MESSAGE(report[0] + report[1] == kPerSubscription,
                      "subscription EV_A: " << report[0] << " received + " << report[1]
                                            << " missed != " << kPerSubscription << " published");
  BOOST_CHECK_MESSAGE(report[2] + report[3] == kPerSubscription,
                      "subscription EV_B: " << report[2] << " received + " << report[3]
                                            << " missed != " << kPerSubscription << " published");
}

// A callback that cannot keep up must not make the SDK grow without bound: its
// queue holds poll_queue_events notifications, and what does not fit comes
// back as kMissed counts, in order, once the callback catches up.
BOOST_AUTO_TEST_CASE(blocked_callback_is_told_what_it_missed) {
  AgentProcess agent;
  constexpr int kEvents = 2000;
  constexpr std::size_t kQueue = 100;
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  uint64_t events = 0, missed = 0;
  int64_t last = -1;
  bool in_order = true;
  auto sub = connect({.event_space = "FTB.TEST.CB", .client_name = "blocked",
                      .agent_endpoint = agent.localEndpoint(), .poll_queue_events = kQueue});
  auto id = sub->subscribe({.filter = kFloodFilter, .callback = [&](const Notification& n) {
                              std::unique_lock lock(mu);
                              cv.wait(lock, [&] { return released; });
                              if (n.kind == Notification::Kind::kMissed) {
                                missed += n.missed;
                              } else {
                                const int64_t index = std::stoll(n.event.payload);
                                in_order &= index > last;
                                last = index;
                                ++events;
                              }
                              cv.notify_all();
                            }});
  BOOST_REQUIRE(id.ok());
  auto pub = connectPublisher(agent);
  flood(*pub, kEvents);
  // Everything has reached the SDK once delivered + missed covers the flood.
  BOOST_REQUIRE_MESSAGE(waitFor([&] {
                          const auto s = sub->stats();
                          return s.delivered >= static_cast<uint64_t>(kEvents);
                        }),
                        "the SDK did not take in the flood");
  BOOST_CHECK_GT(sub->stats().missed, 0u);
  {
    std::unique_lock lock(mu);
    released = true;
    cv.notify_all();
    BOOST_REQUIRE_MESSAGE(cv.wait_for(lock, 10s, [&] { return events + missed >= kEvents; }),
                          "events " << events << " + missed " << missed << " < " << kEvents);
  }
  std::lock_guard lock(mu);
  BOOST_CHECK_EQUAL(events + missed, static_cast<uint64_t>(kEvents));
  // The batch being dispatched plus a full queue behind it.
  BOOST_CHECK_LE(events, 2 * kQueue);
  BOOST_CHECK(in_order);
}
