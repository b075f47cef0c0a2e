// SelFollower: reports the System Event Log records a BMC adds, cheaply. Each
// check is one Get SEL Info; only when its entry count or last-addition time
// changed are the records after the last one seen read and parsed.
//
// Owned by FreeIpmiSensorSource and used on its thread only. The FreeIPMI
// contexts passed in must outlive it.
#pragma once

#include <freeipmi/freeipmi.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/ipmi/sensor_reading.h"

namespace ftb::ipmi {

class SelFollower {
 public:
  // `sensor_names`: sensor number -> name, from the SDR.
  SelFollower(ipmi_ctx_t ipmi, ipmi_sdr_ctx_t sdr, std::map<uint8_t, std::string> sensor_names);
  ~SelFollower();
  SelFollower(const SelFollower&) = delete;
  SelFollower& operator=(const SelFollower&) = delete;

  // Remembers where the SEL ends now; records up to there are never reported.
  Status baseline();
  Result<std::vector<SelRecord>> readNew();

 private:
  struct Info {
    uint64_t entries = 0;
    uint64_t last_addition = 0;
    bool operator==(const Info&) const = default;
  };
  Result<Info> readInfo();
  Result<std::optional<uint16_t>> lastRecordId();
  static int onRecord(ipmi_sel_ctx_t ctx, void* self);
  void collect(ipmi_sel_ctx_t ctx);

  ipmi_ctx_t ipmi_;
  ipmi_sel_ctx_t sel_;
  ipmi_interpret_ctx_t interpret_;
  std::map<uint8_t, std::string> names_;
  Info info_;
  std::optional<uint16_t> last_id_;  // newest record already seen
  std::vector<SelRecord> batch_;     // filled by onRecord during one parse
  std::optional<uint16_t> batch_last_;
};

}  // namespace ftb::ipmi
