// IPMI codes to health levels and event names.
#define BOOST_TEST_MODULE ipmi_classify
#include <boost/test/unit_test.hpp>

#include "components/ipmi/classify.h"
#include "components/ipmi/events.h"

using namespace ftb::ipmi;

BOOST_AUTO_TEST_CASE(threshold_bits_worst_first) {
  struct Case {
    uint16_t bits;
    Level level;
    Threshold crossed;
  };
  for (const Case& c : std::vector<Case>{
           {0x00, Level::kNormal, Threshold::kNone},
           {0x01, Level::kWarning, Threshold::kLowerNonCritical},
           {0x03, Level::kCritical, Threshold::kLowerCritical},  // a dead fan sets both
           {0x07, Level::kCritical, Threshold::kLowerNonRecoverable},
           {0x08, Level::kWarning, Threshold::kUpperNonCritical},
           {0x18, Level::kCritical, Threshold::kUpperCritical},
           {0x38, Level::kCritical, Threshold::kUpperNonRecoverable},
       }) {
    const ThresholdState s = classifyThresholdBits(c.bits);
    BOOST_TEST_CONTEXT("bits " << c.bits) {
      BOOST_CHECK(s.level == c.level);
      BOOST_CHECK(s.crossed == c.crossed);
    }
  }
}

BOOST_AUTO_TEST_CASE(memory_and_power_supply_offsets) {
  BOOST_CHECK(classifyDiscrete(SensorKind::kMemory, 0)->condition.empty());
  BOOST_CHECK_EQUAL(classifyDiscrete(SensorKind::kMemory, 0x1)->condition, "correctable_ecc");
  BOOST_CHECK(classifyDiscrete(SensorKind::kMemory, 0x1)->level == Level::kWarning);
  BOOST_CHECK_EQUAL(classifyDiscrete(SensorKind::kMemory, 0x3)->condition, "uncorrectable_ecc");
  BOOST_CHECK(classifyDiscrete(SensorKind::kMemory, 0x3)->level == Level::kCritical);
  BOOST_CHECK(classifyDiscrete(SensorKind::kMemory, 0x40)->level == Level::kNormal);  // presence
  BOOST_CHECK(classifyDiscrete(SensorKind::kPowerSupply, 0x1)->level == Level::kNormal);
  BOOST_CHECK_EQUAL(classifyDiscrete(SensorKind::kPowerSupply, 0x3)->condition, "psu_failure");
  BOOST_CHECK_EQUAL(classifyDiscrete(SensorKind::kPowerSupply, 0x5)->condition,
                    "psu_predictive_failure");
  BOOST_CHECK(classifyDiscrete(SensorKind::kPowerSupply, 0x5)->level == Level::kWarning);
  BOOST_CHECK(!classifyDiscrete(SensorKind::kOther, 0x1));
}

BOOST_AUTO_TEST_CASE(sensor_types_and_sel_offsets) {
  BOOST_CHECK(kindFromSensorType(0x01) == SensorKind::kTemperature);
  BOOST_CHECK(kindFromSensorType(0x02) == SensorKind::kVoltage);
  BOOST_CHECK(kindFromSensorType(0x04) == SensorKind::kFan);
  BOOST_CHECK(kindFromSensorType(0x08) == SensorKind::kPowerSupply);
  BOOST_CHECK(kindFromSensorType(0x0c) == SensorKind::kMemory);
  BOOST_CHECK(kindFromSensorType(0x23) == SensorKind::kOther);
  BOOST_CHECK(thresholdFromSelOffset(0x2) == Threshold::kLowerCritical);  // LC going low
  BOOST_CHECK(thresholdFromSelOffset(0x3) == Threshold::kLowerCritical);  // LC going high
  BOOST_CHECK(thresholdFromSelOffset(0x7) == Threshold::kUpperNonCritical);
  BOOST_CHECK(thresholdFromSelOffset(0x9) == Threshold::kUpperCritical);
  BOOST_CHECK(thresholdFromSelOffset(0xb) == Threshold::kUpperNonRecoverable);
  BOOST_CHECK(thresholdFromSelOffset(0xc) == Threshold::kNone);
}

BOOST_AUTO_TEST_CASE(event_names) {
  struct Case {
    SensorKind kind;
    Level level;
    Threshold crossed;
    const char* condition;
    std::string_view event;
  };
  const auto C = Level::kCritical, W = Level::kWarning;
  for (const Case& c : std::vector<Case>{
           {SensorKind::kFan, C, Threshold::kLowerCritical, "", kFanFail},
           {SensorKind::kFan, W, Threshold::kLowerNonCritical, "", kSensorWarning},
           {SensorKind::kTemperature, C, Threshold::kUpperCritical, "", kOverTemp},
           {SensorKind::kTemperature, C, Threshold::kLowerCritical, "", kSensorCritical},
           {SensorKind::kVoltage, C, Threshold::kLowerCritical, "", kVoltage},
           {SensorKind::kMemory, W, Threshold::kNone, "correctable_ecc", kEccCorrectable},
           {SensorKind::kMemory, C, Threshold::kNone, "uncorrectable_ecc", kEccUncorrectable},
           {SensorKind::kMemory, C, Threshold::kNone, "parity_error", kSensorCritical},
           {SensorKind::kPowerSupply, C, Threshold::kNone, "psu_failure", kPsuFail},
           {SensorKind::kPowerSupply, W, Threshold::kNone, "psu_predictive_failure", kSensorWarning},
           {SensorKind::kOther, Level::kNormal, Threshold::kNone, "", kNormal},
       }) {
    BOOST_CHECK_EQUAL(eventFor(c.kind, c.level, c.crossed, c.condition), c.event);
  }
}

BOOST_AUTO_TEST_CASE(every_event_is_declared_once_with_its_severity) {
  const auto decl = eventDeclarations();
  BOOST_CHECK_EQUAL(decl.size(), 12u);
  auto severity = [&](std::string_view name) {
    for (const auto& d : decl) {
      if (d.name == name) return d.severity;
    }
    BOOST_FAIL("not declared: " << name);
    return ftb::Severity::kInfo;
  };
  BOOST_CHECK(severity(kFanFail) == ftb::Severity::kError);
  BOOST_CHECK(severity(kOverTemp) == ftb::Severity::kError);
  BOOST_CHECK(severity(kNormal) == ftb::Severity::kInfo);
  BOOST_CHECK(severity(kEccCorrectable) == ftb::Severity::kWarning);
  BOOST_CHECK(severity(kEccUncorrectable) == ftb::Severity::kError);
  BOOST_CHECK(severity(kSensorWarning) == ftb::Severity::kWarning);
  BOOST_CHECK(severity(kMonitorTrouble) == ftb::Severity::kWarning);
}
