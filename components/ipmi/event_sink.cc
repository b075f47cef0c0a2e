#include "components/ipmi/event_sink.h"

#include <spdlog/spdlog.h>

#include "client/client.h"

namespace ftb::ipmi {

void SdkEventSink::publish(std::string_view event_name, const std::string& payload) {
  auto id = client_.publish(event_name, payload);
  if (!id.ok()) {
    spdlog::warn("cannot publish {} ({}): {}", event_name, payload, id.status().toString());
  } else {
    spdlog::info("published {}: {}", event_name, payload);
  }
}

}  // namespace ftb::ipmi
