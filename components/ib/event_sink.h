// EventSink: where the Monitor's events go. SdkEventSink publishes them on the
// backplane; unit tests record them. Called from the monitor's thread only.
#pragma once

#include <string>
#include <string_view>

#include "client/event.h"

namespace ftb {
class Client;
}

namespace ftb::ib {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Never blocks for long and never throws; failures are the sink's to log.
  virtual void publish(std::string_view event_name, const std::string& payload,
                       const Tags& tags) = 0;
};

// Publishes through the SDK (which buffers and re-sends across agent restarts).
class SdkEventSink : public EventSink {
 public:
  explicit SdkEventSink(Client& client) : client_(client) {}
  void publish(std::string_view event_name, const std::string& payload, const Tags& tags) override;

 private:
  Client& client_;
};

}  // namespace ftb::ib
