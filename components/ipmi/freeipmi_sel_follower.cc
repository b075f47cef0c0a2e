#include "components/ipmi/freeipmi_sel_follower.h"

#include "components/ipmi/classify.h"

namespace ftb::ipmi {
namespace {

Status ipmiError(ipmi_ctx_t ipmi, const std::string& what) {
  return unavailable(what + ": " + ipmi_ctx_errormsg(ipmi));
}

}  // namespace

SelFollower::SelFollower(ipmi_ctx_t ipmi, ipmi_sdr_ctx_t sdr,
                         std::map<uint8_t, std::string> sensor_names)
    : ipmi_(ipmi),
      sel_(ipmi_sel_ctx_create(ipmi, sdr)),
      interpret_(ipmi_interpret_ctx_create()),
      names_(std::move(sensor_names)) {}

SelFollower::~SelFollower() {
  if (sel_ != nullptr) ipmi_sel_ctx_destroy(sel_);
  if (interpret_ != nullptr) ipmi_interpret_ctx_destroy(interpret_);
}

Result<SelFollower::Info> SelFollower::readInfo() {
  fiid_obj_t rs = fiid_obj_create(tmpl_cmd_get_sel_info_rs);
  if (rs == nullptr) return internalError("out of memory");
  Info info;
  const bool ok = ipmi_cmd_get_sel_info(ipmi_, rs) >= 0 &&
                  fiid_obj_get(rs, "entries", &info.entries) >= 0 &&
                  fiid_obj_get(rs, "most_recent_addition_timestamp", &info.last_addition) >= 0;
  fiid_obj_destroy(rs);
  if (!ok) return ipmiError(ipmi_, "Get SEL Info");
  return info;
}

Result<std::optional<uint16_t>> SelFollower::lastRecordId() {
  if (info_.entries == 0) return std::optional<uint16_t>();
  fiid_obj_t rs = fiid_obj_create(tmpl_cmd_get_sel_entry_rs);
  if (rs == nullptr) return internalError("out of memory");
  uint8_t data[16] = {};
  // Record id 0xFFFF asks for the last entry; no reservation is needed to read a whole record.
  const bool ok = ipmi_cmd_get_sel_entry(ipmi_, 0, IPMI_SEL_GET_RECORD_ID_LAST_ENTRY, 0, 0xff, rs) >= 0 &&
                  fiid_obj_get_data(rs, "record_data", data, sizeof data) >= 2;
  fiid_obj_destroy(rs);
  if (!ok) return ipmiError(ipmi_, "Get SEL Entry (last)");
  return std::optional<uint16_t>(static_cast<uint16_t>(data[0] | (data[1] << 8)));
}

Status SelFollower::baseline() {
  if (sel_ == nullptr || interpret_ == nullptr) return internalError("cannot create SEL context");
  auto info = readInfo();
  if (!info.ok()) return info.status();
  info_ = *info;
  auto last = lastRecordId();
  if (!last.ok()) return last.status();
  last_id_ = *last;
  return {};
}

int SelFollower::onRecord(ipmi_sel_ctx_t ctx, void* self) {
  static_cast<SelFollower*>(self)->collect(ctx);
  return 0;
}

void SelFollower::collect(ipmi_sel_ctx_t ctx) {
  uint16_t id = 0;
  if (ipmi_sel_parse_read_record_id(ctx, nullptr, 0, &id) < 0) return;
  batch_last_ = id;
  if (last_id_ && id == *last_id_) return;  // the parse starts at the newest record seen
  uint8_t type = 0;
  if (ipmi_sel_parse_read_record_type(ctx, nullptr, 0, &type) < 0 ||
      ipmi_sel_record_type_class(type) != IPMI_SEL_RECORD_TYPE_CLASS_SYSTEM_EVENT_RECORD) {
    return;  // OEM records carry nothing we can classify
  }
  uint8_t sensor_type = 0, number = 0, direction = 0, type_code = 0, offset = 0;
  if (ipmi_sel_parse_read_sensor_type(ctx, nullptr, 0, &sensor_type) < 0 ||
      ipmi_sel_parse_read_sensor_number(ctx, nullptr, 0, &number) < 0 ||
      ipmi_sel_parse_read_event_direction(ctx, nullptr, 0, &direction) < 0 ||
      ipmi_sel_parse_read_event_type_code(ctx, nullptr, 0, &type_code) < 0 ||
      ipmi_sel_parse_read_event_data1_offset_from_event_reading_type_code(ctx, nullptr, 0,
                                                                          &offset) < 0) {
    return;
  }
  SelRecord r;
  r.record_id = id;
  r.sensor_number = number;
  if (auto it = names_.find(number); it != names_.end()) r.sensor_name = it->second;
  r.kind = kindFromSensorType(sensor_type);
  r.assertion = direction == IPMI_SEL_RECORD_ASSERTION_EVENT;
  r.threshold_event = type_code == IPMI_EVENT_READING_TYPE_CODE_THRESHOLD;
  if (r.threshold_event) {
    r.crossed = thresholdFromSelOffset(offset);
    r.level = levelOfThreshold(r.crossed);
  } else if (auto d = type_code == IPMI_EVENT_READING_TYPE_CODE_SENSOR_SPECIFIC
                          ? classifyDiscrete(r.kind, static_cast<uint16_t>(1u << offset))
                          : std::nullopt) {
    r.level = d->level;
    r.condition = d->condition;
  } else {
    uint8_t record[IPMI_SEL_RECORD_MAX_RECORD_LENGTH];
    const int len = ipmi_sel_parse_read_record(ctx, record, sizeof record);
    unsigned int state = IPMI_INTERPRET_STATE_UNKNOWN;
    if (len > 0 && ipmi_interpret_sel(interpret_, record, len, &state) == 0) {
      r.level = state == IPMI_INTERPRET_STATE_CRITICAL  ? Level::kCritical
                : state == IPMI_INTERPRET_STATE_WARNING ? Level::kWarning
                                                        : Level::kNormal;
    }
  }
  char text[128] = "";
  if (ipmi_sel_parse_read_record_string(ctx, "%e", nullptr, 0, text, sizeof text - 1,
                                        IPMI_SEL_STRING_FLAGS_IGNORE_UNAVAILABLE_FIELD) > 0) {
    r.description = text;
  }
  batch_.push_back(std::move(r));
}

Result<std::vector<SelRecord>> SelFollower::readNew() {
  auto info = readInfo();
  if (!info.ok()) return info.status();
  if (*info == info_) return std::vector<SelRecord>{};
  batch_.clear();
  batch_last_.reset();
  const uint16_t start = last_id_.value_or(IPMI_SEL_GET_RECORD_ID_FIRST_ENTRY);
  int n = ipmi_sel_parse(sel_, start, IPMI_SEL_GET_RECORD_ID_LAST_ENTRY, &SelFollower::onRecord, this);
  if (n < 0 && last_id_) {
    // The newest record we saw is gone: the SEL was cleared. Everything in it is new.
    last_id_.reset();
    batch_.clear();
    n = ipmi_sel_parse(sel_, IPMI_SEL_GET_RECORD_ID_FIRST_ENTRY, IPMI_SEL_GET_RECORD_ID_LAST_ENTRY,
                       &SelFollower::onRecord, this);
  }
  if (n < 0) return unavailable(std::string("reading the SEL: ") + ipmi_sel_ctx_errormsg(sel_));
  info_ = *info;
  if (batch_last_) last_id_ = batch_last_;
  return std::move(batch_);
}

}  // namespace ftb::ipmi
