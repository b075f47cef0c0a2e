#include "components/ib/verbs_devices.h"

#include <array>
#include <string_view>

namespace ftb::ib {

std::string asyncEventName(AsyncEventType type) {
  static constexpr std::array<std::string_view, 20> kNames = {
      "CQ_ERR",         "QP_FATAL",          "QP_REQ_ERR",         "QP_ACCESS_ERR",
      "COMM_EST",       "SQ_DRAINED",        "PATH_MIG",           "PATH_MIG_ERR",
      "DEVICE_FATAL",   "PORT_ACTIVE",       "PORT_ERR",           "LID_CHANGE",
      "PKEY_CHANGE",    "SM_CHANGE",         "SRQ_ERR",            "SRQ_LIMIT_REACHED",
      "QP_LAST_WQE_REACHED", "CLIENT_REREGISTER", "GID_CHANGE",     "WQ_FATAL"};
  const int n = static_cast<int>(type);
  if (n >= 0 && n < static_cast<int>(kNames.size())) return "IBV_EVENT_" + std::string(kNames[n]);
  return "IBV_EVENT_" + std::to_string(n);
}

}  // namespace ftb::ib
