// AgentCore: the agent's state that its parts read and feed, without sockets:
// a poller, sessions, the subscription index, the history, an allow-all
// namespace policy, metrics and counters, and a Router and Replies over a
// recording sink. The unit tests of the parts built on it (EventIntake,
// ClientService, TreeBridge) derive their fixtures from it.
//
//   struct Fixture : ftb::testing::AgentCore {
//     EventIntake intake{{config, sessions, router, ...}, 77};
//   };
//   manual_clock.advance(2ms);  // the default clock; AgentCore(&Clock::real()) for real time
#pragma once

#include <chrono>
#include <memory>

#include <boost/test/unit_test.hpp>

#include "agent/config/config.h"
#include "agent/loop/poller.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/metrics/agent_metrics.h"
#include "agent/routing/event_history.h"
#include "agent/routing/replies.h"
#include "agent/routing/router.h"
#include "agent/routing/subscription_index.h"
#include "agent/security/admission.h"
#include "agent/security/namespace_policy.h"
#include "agent/sessions/session_table.h"
#include "client/clock.h"
#include "tests/support/recording_frame_sink.h"

namespace ftb::testing {

inline agent::NamespacePolicy allowEveryone() {
  auto p = agent::NamespacePolicy::parse("publish * *\nsubscribe * *\n", "test");
  BOOST_REQUIRE(p.ok());
  return std::move(p).value();
}

struct AgentCore {
  // `real`: Clock::real() for parts that meet real sockets; otherwise manual_clock.
  explicit AgentCore(const Clock* real = nullptr) : clock(real != nullptr ? *real : manual_clock) {}

  // First: it outlives every registration (the sessions' pidfds, a bridge's links).
  std::unique_ptr<agent::Poller> poller = agent::Poller::create().value();
  ManualClock manual_clock;
  const Clock& clock;
  agent::AgentConfig config;
  agent::SessionTable sessions{clock};
  agent::SubscriptionIndex index;
  agent::EventHistory history{100, 1 << 20, std::chrono::seconds(60)};
  agent::NamespacePolicy policy = allowEveryone();
  agent::Admission admission{policy};
  agent::AgentMetrics metrics{16};
  proto::Counters counters;
  agent::RateLimitedLog log;
  RecordingFrameSink sink;
  agent::Router router{{sessions, index, history, admission, metrics, counters, log, sink, clock}};
  agent::Replies replies{sessions, sink, config, log};
};

}  // namespace ftb::testing
