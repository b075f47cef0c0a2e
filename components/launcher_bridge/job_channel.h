// ftb-run's connection to the backplane: it publishes in FTB.JL.<job> (the
// launcher's requests and story) and FTB.NLA.<job> (the node launch agents'
// states, published by ftb-run on behalf of every node), and receives what
// its rules and the checkpoint runtime publish into one queue.
//
// Every event carries its machine-readable fields as tags and repeats them
// as key=value words in the payload (docs/RECOVERY_EVENTS.md).
//
// Threading: publish* and next() from the launcher's loop; the SDK's
// callback thread only pushes into the queue.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/client.h"

namespace ftb::launcher {

class JobChannel {
 public:
  // Connects both clients and subscribes to every filter (each one's
  // deliveries go into the one queue; an event matching several is seen once).
  // `replay_since`: an event id (an adopter's journal); what matched and
  // arrived at the agent after it comes first, from the agent's history.
  static Result<std::unique_ptr<JobChannel>> open(const std::string& job_id, const std::string& agent,
                                                  const std::vector<std::string>& filters,
                                                  const std::string& replay_since = "");
  ~JobChannel();

  // A launcher event in FTB.JL.<job>: `text`, then the tags as key=value.
  Status publish(const std::string& name, const std::string& text, const Tags& tags);
  Status publishNodeState(const std::string& host, std::string_view state, const std::string& corr);

  // The next event from the subscriptions, waiting up to `timeout`. A report
  // of missed events comes back as an event named FTB_EVENTS_MISSED.
  std::optional<Event> next(std::chrono::milliseconds timeout);

  void close();

 private:
  JobChannel() = default;
  void onNotification(const Notification& n);
  Status publishOn(Client& client, const std::string& name, const std::string& text, const Tags& tags);

  std::string job_id_;
  std::unique_ptr<Client> jl_;
  std::unique_ptr<Client> nla_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Event> queue_;
  std::set<std::string> seen_ids_;
  std::deque<std::string> seen_order_;
};

// The event names ftb-run publishes in FTB.JL.<job>, with their severities.
std::vector<EventDeclaration> launcherEventDeclarations();

// The event that reports job state `state`. A declared event has one
// severity, so the states of a recovery (`relaunching`, `relaunched`) are
// FTB_JOB_RELAUNCH (WARNING) and the others (`launched`, `running`,
// `finished`) FTB_JOB_STATE (INFO); both carry the same tags.
std::string_view jobStateEventName(std::string_view state);

}  // namespace ftb::launcher
