// SensorSource: one BMC as the monitor sees it. FreeIpmiSensorSource reads a
// real BMC (in-band or over LAN); tests use a scripted fake.
//
// Threading: one BmcWatcher thread owns a source; calls may block for up to
// the session timeout.
#pragma once

#include <cstddef>
#include <vector>

#include "client/status.h"
#include "components/ipmi/sensor_reading.h"

namespace ftb::ipmi {

class SensorSource {
 public:
  virtual ~SensorSource() = default;

  // Opens the session and loads the sensor list (SDR), reusing the cached SDR
  // while the BMC says it is current. Errors: kUnauthenticated (credentials or
  // privilege rejected), kUnavailable (no answer), kNotFound (no BMC device),
  // kInternal (anything else). Records already in the SEL are not reported later.
  virtual Status open() = 0;
  virtual void close() = 0;

  // One reading per readable sensor. An error means the session is broken:
  // close() and open() again.
  virtual Result<std::vector<SensorReading>> readSensors() = 0;

  // SEL records the BMC added since open() or the previous call.
  virtual Result<std::vector<SelRecord>> readNewSelRecords() = 0;

  // Sensors found in the SDR at the last open().
  virtual std::size_t sensorCount() const = 0;
};

}  // namespace ftb::ipmi
