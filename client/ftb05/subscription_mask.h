// FTB 0.5 names and subscription masks: the event space grammar, the
// subscription string grammar and the mask matching rule of CIFTS FTB 0.6.2
// (API_NOTES.md §1 and §5), as pure functions. Internal to //client/ftb05.
//
//   Mask mask;
//   if (parseSubscription("event_space=ftb.all.watchdog, severity=fatal", &mask) == FTB_SUCCESS &&
//       mask.matches(event)) ...
//
// Thread-safety: stateless; every function may be called from any thread.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "ftb_def.h"

namespace ftb::ftb05 {

// Size of the FTB_TAG area of an event (FTB_MAX_DYNAMIC_DATA_SIZE).
inline constexpr std::size_t kTagAreaSize = 138;

// ASCII case-insensitive equality, as every FTB 0.5 name comparison.
bool equalsIgnoreCase(std::string_view a, std::string_view b);

// strnlen over a fixed-size field: an unterminated field reads as `cap` long.
std::string fieldString(const char* field, std::size_t cap);

// [A-Za-z0-9_]+
bool isName(std::string_view text);

// Splits "region.category.component" (three non-empty [A-Za-z0-9_]+ parts,
// at most 63 characters). false: FTB_ERR_EVENTSPACE_FORMAT.
bool splitEventSpace(std::string_view space, std::string* region, std::string* comp_cat,
                     std::string* comp);

// An event as FTB 0.5 clients see it: FTB_receive_event_t without the ABI.
struct ReceivedEvent {
  std::string event_space;  // as the publisher spelled it
  std::string event_name;
  std::string severity;
  std::string client_jobid;
  std::string client_name;
  uint8_t client_extension = 0;
  uint16_t seqnum = 0;
  std::string hostname;
  std::string pid_starttime;
  pid_t pid = 0;
  uint8_t event_type = 1;
  std::array<char, FTB_MAX_PAYLOAD_DATA> payload{};
  std::array<char, kTagAreaSize> dynamic_data{};
};

// A parsed subscription: the filter fields of an FTB_event_t; "all" = any.
struct Mask {
  std::string region = "all";
  std::string comp_cat = "all";
  std::string comp = "all";
  std::string event_name = "all";
  std::string severity = "all";
  std::string client_jobid = "all";
  std::string hostname = "all";
  std::string client_name = "all";

  // FTBU_match_mask: region, jobid, client name and host must match; then the
  // event name alone if the mask names one, else severity, category and component.
  bool matches(const ReceivedEvent& event) const;
  // Field-wise, case-insensitive.
  bool sameAs(const Mask& other) const;
  // A filter in our grammar (docs/FILTERS.md) that accepts at least every event
  // matches() accepts; the agent filters with it, matches() decides exactly.
  std::string agentFilter() const;
};

// Parses an FTB 0.5 subscription string into *mask (which it resets first).
// Returns FTB_SUCCESS or the error of the first failing pair (API_NOTES.md §5).
int parseSubscription(const char* text, Mask* mask);

}  // namespace ftb::ftb05
