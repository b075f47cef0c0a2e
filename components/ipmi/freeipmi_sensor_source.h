// FreeIpmiSensorSource: reads a BMC with libfreeipmi, keeping one session and
// the SDR (cached in a file, held in memory) for every sweep; libipmimonitoring
// would open a new session per sweep. Out-of-band over IPMI 2.0 / RMCP+, or
// in-band through the Linux OpenIPMI driver (/dev/ipmi0).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "components/ipmi/credentials.h"
#include "components/ipmi/sensor_source.h"

namespace ftb::ipmi {

struct FreeIpmiOptions {
  std::string address;        // "host:port"; "" = in-band
  std::string inband_device;  // used when address is ""
  Credentials credentials;
  std::string privilege = "operator";  // user, operator, admin
  uint8_t cipher_suite = 3;
  unsigned session_timeout_ms = 5000;
  unsigned retransmission_timeout_ms = 500;
  std::vector<std::string> workarounds;  // names as in MonitorConfig::workaround
  std::string sdr_cache_file;            // where this BMC's SDR is cached
};

class FreeIpmiSensorSource : public SensorSource {
 public:
  explicit FreeIpmiSensorSource(FreeIpmiOptions options);
  ~FreeIpmiSensorSource() override;

  Status open() override;
  void close() override;
  Result<std::vector<SensorReading>> readSensors() override;
  Result<std::vector<SelRecord>> readNewSelRecords() override;
  std::size_t sensorCount() const override;

 private:
  struct Session;  // FreeIPMI contexts and the SDR records, alive between open() and close()
  Status openSession();
  Status loadSdr();

  FreeIpmiOptions options_;
  std::unique_ptr<Session> session_;
};

}  // namespace ftb::ipmi
