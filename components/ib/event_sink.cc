#include "components/ib/event_sink.h"

#include <spdlog/spdlog.h>

#include "client/client.h"

namespace ftb::ib {

void SdkEventSink::publish(std::string_view event_name, const std::string& payload,
                           const Tags& tags) {
  auto id = client_.publish(event_name, payload, tags);
  if (!id.ok()) {
    spdlog::warn("cannot publish {} ({}): {}", event_name, payload, id.status().toString());
  } else {
    spdlog::info("published {}: {}", event_name, payload);
  }
}

}  // namespace ftb::ib
