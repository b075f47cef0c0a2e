#include "components/ipmi/freeipmi_sensor_source.h"

#include <freeipmi/freeipmi.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <map>
#include <optional>

#include "components/ipmi/classify.h"
#include "components/ipmi/freeipmi_sel_follower.h"

namespace ftb::ipmi {
namespace {

// One sensor's SDR record and what we parse from it once per session.
struct SensorDef {
  std::vector<uint8_t> record;
  uint16_t record_id = 0;
  uint8_t number = 0;
  std::string name;
  uint8_t sensor_type = 0;
  uint8_t reading_type = 0;  // event/reading type code
  SensorKind kind = SensorKind::kOther;
  std::string units;
  // Indexed like the threshold comparison bits: LNC LC LNR UNC UC UNR.
  std::array<std::optional<double>, 6> thresholds;
};

int thresholdIndex(Threshold t) {
  switch (t) {
    case Threshold::kLowerNonCritical: return 0;
    case Threshold::kLowerCritical: return 1;
    case Threshold::kLowerNonRecoverable: return 2;
    case Threshold::kUpperNonCritical: return 3;
    case Threshold::kUpperCritical: return 4;
    case Threshold::kUpperNonRecoverable: return 5;
    case Threshold::kNone: break;
  }
  return -1;
}

unsigned workaroundFlags(const std::vector<std::string>& names) {
  static const std::map<std::string, unsigned> kFlags = {
      {"authcap", IPMI_WORKAROUND_FLAGS_OUTOFBAND_2_0_AUTHENTICATION_CAPABILITIES},
      {"intel20", IPMI_WORKAROUND_FLAGS_OUTOFBAND_2_0_INTEL_2_0_SESSION},
      {"supermicro20", IPMI_WORKAROUND_FLAGS_OUTOFBAND_2_0_SUPERMICRO_2_0_SESSION},
      {"sun20", IPMI_WORKAROUND_FLAGS_OUTOFBAND_2_0_SUN_2_0_SESSION},
      {"opensesspriv", IPMI_WORKAROUND_FLAGS_OUTOFBAND_2_0_OPEN_SESSION_PRIVILEGE},
      {"integritycheckvalue", IPMI_WORKAROUND_FLAGS_OUTOFBAND_2_0_NON_EMPTY_INTEGRITY_CHECK_VALUE},
  };
  unsigned flags = 0;
  for (const auto& n : names) {
    if (auto it = kFlags.find(n); it != kFlags.end()) flags |= it->second;
  }
  return flags;
}

uint8_t privilegeLevel(const std::string& p) {
  if (p == "admin") return IPMI_PRIVILEGE_LEVEL_ADMIN;
  if (p == "user") return IPMI_PRIVILEGE_LEVEL_USER;
  return IPMI_PRIVILEGE_LEVEL_OPERATOR;
}

// What an open() failure means for the operator.
Status openError(ipmi_ctx_t ctx) {
  const std::string msg = ipmi_ctx_errormsg(ctx);
  switch (ipmi_ctx_errnum(ctx)) {
    case IPMI_ERR_USERNAME_INVALID:
    case IPMI_ERR_PASSWORD_INVALID:
    case IPMI_ERR_K_G_INVALID:
    case IPMI_ERR_PRIVILEGE_LEVEL_INSUFFICIENT:
    case IPMI_ERR_PRIVILEGE_LEVEL_CANNOT_BE_OBTAINED:
    case IPMI_ERR_AUTHENTICATION_TYPE_UNAVAILABLE:
    case IPMI_ERR_CIPHER_SUITE_ID_UNAVAILABLE:
    case IPMI_ERR_PASSWORD_VERIFICATION_TIMEOUT:
      return {Code::kUnauthenticated, msg};
    case IPMI_ERR_DEVICE_NOT_FOUND:
    case IPMI_ERR_DEVICE_NOT_SUPPORTED:
      return notFound(msg);
    case IPMI_ERR_CONNECTION_TIMEOUT:
    case IPMI_ERR_SESSION_TIMEOUT:
    case IPMI_ERR_IPMI_2_0_UNAVAILABLE:
    case IPMI_ERR_BMC_BUSY:
    case IPMI_ERR_DRIVER_BUSY:
    case IPMI_ERR_DRIVER_TIMEOUT:
    case IPMI_ERR_MESSAGE_TIMEOUT:
    case IPMI_ERR_HOSTNAME_INVALID:
      return unavailable(msg);
    default:
      return internalError(msg);
  }
}

template <typename T>
std::optional<double> takeDouble(T* p) {
  if (p == nullptr) return std::nullopt;
  const double v = *p;
  std::free(p);
  return v;
}

}  // namespace

struct FreeIpmiSensorSource::Session {
  ipmi_ctx_t ipmi = nullptr;
  ipmi_sdr_ctx_t sdr = nullptr;
  ipmi_sensor_read_ctx_t reader = nullptr;
  ipmi_interpret_ctx_t interpret = nullptr;
  std::unique_ptr<SelFollower> sel;
  std::vector<SensorDef> sensors;

  ~Session() {
    sel.reset();
    if (interpret != nullptr) ipmi_interpret_ctx_destroy(interpret);
    if (reader != nullptr) ipmi_sensor_read_ctx_destroy(reader);
    if (sdr != nullptr) {
      ipmi_sdr_cache_close(sdr);
      ipmi_sdr_ctx_destroy(sdr);
    }
    if (ipmi != nullptr) {
      ipmi_ctx_close(ipmi);
      ipmi_ctx_destroy(ipmi);
    }
  }
};

FreeIpmiSensorSource::FreeIpmiSensorSource(FreeIpmiOptions options) : options_(std::move(options)) {}
FreeIpmiSensorSource::~FreeIpmiSensorSource() = default;

void FreeIpmiSensorSource::close() { session_.reset(); }

std::size_t FreeIpmiSensorSource::sensorCount() const {
  return session_ ? session_->sensors.size() : 0;
}

Status FreeIpmiSensorSource::open() {
  close();
  session_ = std::make_unique<Session>();
  Status s = openSession();
  if (s.ok()) s = loadSdr();
  if (s.ok()) {
    std::map<uint8_t, std::string> names;
    for (const auto& d : session_->sensors) names[d.number] = d.name;
    session_->sel = std::make_unique<SelFollower>(session_->ipmi, session_->sdr, std::move(names));
    s = session_->sel->baseline();
  }
  if (!s.ok()) close();
  return s;
}

Status FreeIpmiSensorSource::openSession() {
  Session& s = *session_;
  s.ipmi = ipmi_ctx_create();
  if (s.ipmi == nullptr) return internalError("ipmi_ctx_create: out of memory");
  int rc;
  if (options_.address.empty()) {
    if (::access(options_.inband_device.c_str(), F_OK) != 0) {
      return notFound("no IPMI device " + options_.inband_device +
                      " (no BMC on this node, or the ipmi_si/ipmi_devintf modules are not loaded)");
    }
    rc = ipmi_ctx_open_inband(s.ipmi, IPMI_DEVICE_OPENIPMI, 0, 0, 0,
                              options_.inband_device.c_str(), 0, IPMI_FLAGS_DEFAULT);
  } else {
    rc = ipmi_ctx_open_outofband_2_0(
        s.ipmi, options_.address.c_str(), options_.credentials.username.c_str(),
        options_.credentials.password.c_str(), nullptr, 0, privilegeLevel(options_.privilege),
        options_.cipher_suite, options_.session_timeout_ms, options_.retransmission_timeout_ms,
        workaroundFlags(options_.workarounds), IPMI_FLAGS_DEFAULT);
  }
  if (rc < 0) return openError(s.ipmi);
  s.reader = ipmi_sensor_read_ctx_create(s.ipmi);
  s.interpret = ipmi_interpret_ctx_create();
  if (s.reader == nullptr || s.interpret == nullptr) return internalError("out of memory");
  return {};
}

Status FreeIpmiSensorSource::loadSdr() {
  Session& s = *session_;
  s.sdr = ipmi_sdr_ctx_create();
  if (s.sdr == nullptr) return internalError("ipmi_sdr_ctx_create: out of memory");
  const char* file = options_.sdr_cache_file.c_str();
  // A cache the BMC reports as out of date (or a missing one) is rebuilt.
  if (ipmi_sdr_cache_open(s.sdr, s.ipmi, file) < 0) {
    if (ipmi_sdr_cache_create(s.sdr, s.ipmi, file, IPMI_SDR_CACHE_CREATE_FLAGS_OVERWRITE, nullptr,
                              nullptr) < 0 ||
        ipmi_sdr_cache_open(s.sdr, s.ipmi, file) < 0) {
      return unavailable(std::string("reading the SDR into ") + file + ": " +
                         ipmi_sdr_ctx_errormsg(s.sdr));
    }
  }
  uint16_t count = 0;
  if (ipmi_sdr_cache_record_count(s.sdr, &count) < 0 || ipmi_sdr_cache_first(s.sdr) < 0) {
    return internalError(std::string("SDR cache: ") + ipmi_sdr_ctx_errormsg(s.sdr));
  }
  for (uint16_t i = 0; i < count; ++i, ipmi_sdr_cache_next(s.sdr)) {
    uint8_t buf[IPMI_SDR_MAX_RECORD_LENGTH];
    const int len = ipmi_sdr_cache_record_read(s.sdr, buf, sizeof buf);
    uint16_t id = 0;
    uint8_t type = 0;
    if (len <= 0 || ipmi_sdr_parse_record_id_and_type(s.sdr, buf, len, &id, &type) < 0) continue;
    if (type != IPMI_SDR_FORMAT_FULL_SENSOR_RECORD && type != IPMI_SDR_FORMAT_COMPACT_SENSOR_RECORD) {
      continue;  // locators, event-only sensors: nothing to read
    }
    SensorDef d;
    d.record.assign(buf, buf + len);
    d.record_id = id;
    char name[IPMI_SDR_MAX_SENSOR_NAME_LENGTH + 1] = "";
    if (ipmi_sdr_parse_sensor_number(s.sdr, buf, len, &d.number) < 0 ||
        ipmi_sdr_parse_sensor_type(s.sdr, buf, len, &d.sensor_type) < 0 ||
        ipmi_sdr_parse_event_reading_type_code(s.sdr, buf, len, &d.reading_type) < 0 ||
        ipmi_sdr_parse_sensor_name(s.sdr, buf, len, d.number, 0, name, sizeof name - 1) < 0) {
      continue;
    }
    d.name = name;
    d.kind = kindFromSensorType(d.sensor_type);
    if (type == IPMI_SDR_FORMAT_FULL_SENSOR_RECORD &&
        d.reading_type == IPMI_EVENT_READING_TYPE_CODE_THRESHOLD) {
      uint8_t pct = 0, mod = 0, rate = 0, base = 0, modtype = 0;
      char units[64] = "";
      if (ipmi_sdr_parse_sensor_units(s.sdr, buf, len, &pct, &mod, &rate, &base, &modtype) == 0 &&
          ipmi_sensor_units_string(pct, mod, rate, base, modtype, units, sizeof units - 1, 1) > 0) {
        d.units = units;
      }
      double* t[6] = {};
      if (ipmi_sdr_parse_thresholds(s.sdr, buf, len, &t[0], &t[1], &t[2], &t[3], &t[4], &t[5]) == 0) {
        for (int k = 0; k < 6; ++k) d.thresholds[k] = takeDouble(t[k]);
      }
    }
    s.sensors.push_back(std::move(d));
  }
  return {};
}

Result<std::vector<SensorReading>> FreeIpmiSensorSource::readSensors() {
  if (!session_) return failedPrecondition("not open");
  Session& s = *session_;
  std::vector<SensorReading> out;
  out.reserve(s.sensors.size());
  for (const SensorDef& d : s.sensors) {
    uint8_t raw = 0;
    double* value = nullptr;
    uint16_t bits = 0;
    const int rc = ipmi_sensor_read(s.reader, d.record.data(), d.record.size(), 0, &raw, &value, &bits);
    if (rc < 0) {
      const int e = ipmi_sensor_read_ctx_errnum(s.reader);
      if (e == IPMI_SENSOR_READ_ERR_IPMI_ERROR || e == IPMI_SENSOR_READ_ERR_SYSTEM_ERROR ||
          e == IPMI_SENSOR_READ_ERR_OUT_OF_MEMORY || e == IPMI_SENSOR_READ_ERR_INTERNAL_ERROR) {
        return unavailable("reading sensor " + d.name + ": " + ipmi_ctx_errormsg(s.ipmi));
      }
      continue;  // this sensor has no reading now (scanning disabled, unavailable ...)
    }
    SensorReading r;
    r.record_id = d.record_id;
    r.sensor_number = d.number;
    r.name = d.name;
    r.kind = d.kind;
    r.value = takeDouble(value);
    if (d.reading_type == IPMI_EVENT_READING_TYPE_CODE_THRESHOLD) {
      const ThresholdState t = classifyThresholdBits(bits);
      r.level = t.level;
      r.crossed = t.crossed;
      r.units = d.units;
      if (const int i = thresholdIndex(t.crossed); i >= 0) r.threshold_value = d.thresholds[i];
    } else if (auto c = d.reading_type == IPMI_EVENT_READING_TYPE_CODE_SENSOR_SPECIFIC
                            ? classifyDiscrete(d.kind, bits)
                            : std::nullopt) {
      r.level = c->level;
      r.condition = c->condition;
      r.value.reset();
    } else {
      unsigned int state = IPMI_INTERPRET_STATE_UNKNOWN;
      if (ipmi_interpret_sensor(s.interpret, d.reading_type, d.sensor_type, bits, &state) < 0 ||
          state == IPMI_INTERPRET_STATE_UNKNOWN) {
        continue;
      }
      r.level = state == IPMI_INTERPRET_STATE_CRITICAL  ? Level::kCritical
                : state == IPMI_INTERPRET_STATE_WARNING ? Level::kWarning
                                                        : Level::kNormal;
      r.value.reset();
    }
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<SelRecord>> FreeIpmiSensorSource::readNewSelRecords() {
  if (!session_ || !session_->sel) return failedPrecondition("not open");
  return session_->sel->readNew();
}

}  // namespace ftb::ipmi
