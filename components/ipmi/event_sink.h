// EventSink: where a BmcWatcher's events go. SdkEventSink publishes them on the
// backplane; tests record them. Implementations are thread-safe: every
// watcher thread publishes through the same sink.
#pragma once

#include <string>
#include <string_view>

namespace ftb {
class Client;
}

namespace ftb::ipmi {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Never blocks for long and never throws; failures are the sink's to log.
  virtual void publish(std::string_view event_name, const std::string& payload) = 0;
};

// Publishes through the SDK (which buffers and re-sends across agent restarts).
class SdkEventSink : public EventSink {
 public:
  explicit SdkEventSink(Client& client) : client_(client) {}
  void publish(std::string_view event_name, const std::string& payload) override;

 private:
  Client& client_;
};

}  // namespace ftb::ipmi
