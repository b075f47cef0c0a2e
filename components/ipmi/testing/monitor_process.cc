#include "components/ipmi/testing/monitor_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "components/ipmi/payload.h"
#include "components/ipmi/testing/spawn.h"

namespace ftb::ipmi::testing {

using ftb::testing::runfile;
using ftb::testing::waitFor;

MonitorProcess::MonitorProcess(std::vector<std::string> args) {
  args.insert(args.begin(), runfile("components/ipmi/ftb-ipmi"));
  pid_ = spawn(std::move(args), dir_.path() + "/monitor.log");
}

MonitorProcess::~MonitorProcess() { terminate(); }

std::optional<int> MonitorProcess::waitExit(std::chrono::milliseconds timeout) {
  if (exit_status_ || pid_ <= 0) return exit_status_;
  int status = 0;
  if (waitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, timeout)) {
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
  }
  return exit_status_;
}

void MonitorProcess::terminate() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (!waitExit(std::chrono::seconds(10))) {
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
}

int MonitorProcess::stop() {
  terminate();
  return exit_status_.value_or(-1);
}

std::string MonitorProcess::log() const {
  std::ifstream in(dir_.path() + "/monitor.log");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

EventPredicate named(std::string name, std::string node, std::string sensor) {
  return [=](const Event& e) {
    if (e.event_name != name) return false;
    if (e.payload.rfind(node + " ", 0) != 0) return false;
    return sensor.empty() || field(e, "sensor") == sensor;
  };
}

std::string field(const Event& event, const std::string& key) {
  auto parsed = parsePayload(event.payload);
  if (!parsed.ok()) return "";
  auto it = parsed->fields.find(key);
  return it == parsed->fields.end() ? "" : it->second;
}

EventCollector::EventCollector(const std::string& endpoint, const std::string& filter) {
  auto c = Client::connect(
      {.event_space = "FTB.TEST.IPMI", .client_name = "ipmi-test", .agent_endpoint = endpoint});
  if (!c.ok()) throw std::runtime_error("collector connect: " + c.status().toString());
  client_ = std::move(c).value();
  auto id = client_->subscribe({.filter = filter, .polling = true});
  if (!id.ok()) throw std::runtime_error("collector subscribe: " + id.status().toString());
  subscription_ = *id;
}

void EventCollector::drain(std::chrono::milliseconds wait) {
  for (;;) {
    auto n = client_->poll(subscription_, wait);
    if (!n.ok() || !n->has_value()) return;
    if ((*n)->kind == Notification::Kind::kEvent) events_.push_back((*n)->event);
    wait = std::chrono::milliseconds(0);
  }
}

std::optional<std::size_t> EventCollector::waitForIndex(const EventPredicate& predicate,
                                                        std::chrono::milliseconds timeout,
                                                        std::size_t from) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t checked = from;
  for (;;) {
    for (; checked < events_.size(); ++checked) {
      if (predicate(events_[checked])) return checked;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    drain(std::min(left, std::chrono::milliseconds(20)));
  }
}

std::optional<Event> EventCollector::waitFor(const EventPredicate& predicate,
                                             std::chrono::milliseconds timeout, std::size_t from) {
  auto i = waitForIndex(predicate, timeout, from);
  if (!i) return std::nullopt;
  return events_[*i];
}

std::vector<Event> EventCollector::events() {
  drain(std::chrono::milliseconds(0));
  return events_;
}

std::size_t EventCollector::count(const EventPredicate& predicate, std::size_t from) {
  drain(std::chrono::milliseconds(0));
  std::size_t n = 0;
  for (std::size_t i = from; i < events_.size(); ++i) n += predicate(events_[i]) ? 1 : 0;
  return n;
}

}  // namespace ftb::ipmi::testing
