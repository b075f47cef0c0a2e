#include "client/ftb05/subscription_mask.h"

#include <cstring>
#include <vector>

namespace ftb::ftb05 {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool isAll(std::string_view s) { return equalsIgnoreCase(s, "all"); }

// A mask field matches when equal (case-insensitive) or when the mask says "all".
bool fieldMatches(std::string_view mask, std::string_view value) {
  return isAll(mask) || equalsIgnoreCase(mask, value);
}

std::string_view trimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool hasBlank(std::string_view s) {
  return s.find(' ') != std::string_view::npos || s.find('\t') != std::string_view::npos;
}

// Characters our filter grammar accepts in an event name pattern.
bool isAgentNamePattern(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Splits a received event's space: region, category, and the rest as component
// (events of native publishers may have more than three levels).
void splitReceivedSpace(std::string_view space, std::string_view* region,
                        std::string_view* comp_cat, std::string_view* comp) {
  const auto first = space.find('.');
  *region = space.substr(0, first);
  *comp_cat = {};
  *comp = {};
  if (first == std::string_view::npos) return;
  std::string_view rest = space.substr(first + 1);
  const auto second = rest.find('.');
  *comp_cat = rest.substr(0, second);
  if (second != std::string_view::npos) *comp = rest.substr(second + 1);
}

}  // namespace

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string fieldString(const char* field, std::size_t cap) {
  return std::string(field, strnlen(field, cap));
}

bool isName(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

bool splitEventSpace(std::string_view space, std::string* region, std::string* comp_cat,
                     std::string* comp) {
  if (space.size() >= FTB_MAX_EVENTSPACE) return false;
  std::string_view parts[3];
  for (int i = 0; i < 3; ++i) {
    const auto dot = space.find('.');
    if (i < 2) {
      if (dot == std::string_view::npos) return false;
      parts[i] = space.substr(0, dot);
      space.remove_prefix(dot + 1);
    } else {
      if (dot != std::string_view::npos) return false;
      parts[i] = space;
    }
    if (!isName(parts[i])) return false;
  }
  *region = parts[0];
  *comp_cat = parts[1];
  *comp = parts[2];
  return true;
}

bool Mask::matches(const ReceivedEvent& event) const {
  std::string_view ev_region, ev_cat, ev_comp;
  splitReceivedSpace(event.event_space, &ev_region, &ev_cat, &ev_comp);
  if (!fieldMatches(region, ev_region) || !fieldMatches(client_jobid, event.client_jobid) ||
      !fieldMatches(client_name, event.client_name) || !fieldMatches(hostname, event.hostname)) {
    return false;
  }
  if (!isAll(event_name)) return equalsIgnoreCase(event_name, event.event_name);
  return fieldMatches(severity, event.severity) && fieldMatches(comp_cat, ev_cat) &&
         fieldMatches(comp, ev_comp);
}

bool Mask::sameAs(const Mask& o) const {
  return equalsIgnoreCase(region, o.region) && equalsIgnoreCase(comp_cat, o.comp_cat) &&
         equalsIgnoreCase(comp, o.comp) && equalsIgnoreCase(event_name, o.event_name) &&
         equalsIgnoreCase(severity, o.severity) && equalsIgnoreCase(client_jobid, o.client_jobid) &&
         equalsIgnoreCase(hostname, o.hostname) && equalsIgnoreCase(client_name, o.client_name);
}

std::string Mask::agentFilter() const {
  // jobid, host_name and client_name compare case-sensitively in our grammar
  // but not in FTB 0.5, so they are left to matches().
  // Values of one key are alternatives in our grammar, so the event space is one pattern.
  auto segment = [](const std::string& part, const char* any) {
    return isAll(part) || !isName(part) ? std::string(any) : part;
  };
  std::vector<std::string> parts;
  if (!isAll(event_name)) {
    // The name alone decides; severity, category and component are ignored.
    if (!isAll(region)) parts.push_back("event_space=" + segment(region, "*") + ".**");
    if (isAgentNamePattern(event_name)) parts.push_back("event_name=" + event_name);
  } else {
    if (isAll(comp_cat) && isAll(comp)) {
      // matches() takes a missing category and component for "all": a native
      // event in "FTB" alone passes a mask of ftb.all.all, so not "ftb.*.**".
      if (!isAll(region)) parts.push_back("event_space=" + segment(region, "*") + ".**");
    } else {
      parts.push_back("event_space=" + segment(region, "*") + "." + segment(comp_cat, "*") + "." +
                      segment(comp, "**"));
    }
    if (!isAll(severity)) parts.push_back("severity=" + severity);
  }
  std::string filter;
  for (const auto& p : parts) {
    if (!filter.empty()) filter += ", ";
    filter += p;
  }
  return filter;
}

int parseSubscription(const char* text, Mask* mask) {
  if (text == nullptr) return FTB_ERR_SUBSCRIPTION_STR;
  *mask = Mask{};
  const std::string_view all(text);
  if (all.empty()) return FTB_SUCCESS;
  std::vector<std::string_view> pairs;
  for (std::size_t start = 0;;) {
    const auto comma = all.find(',', start);
    pairs.push_back(all.substr(start, comma == std::string_view::npos ? all.npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (pairs.size() > 10) return FTB_ERR_SUBSCRIPTION_STR;

  enum Key { kSeverity, kEventSpace, kJobid, kHostName, kEventName, kClientName, kKeys };
  static constexpr std::string_view kNames[kKeys] = {"severity",  "event_space", "jobid",
                                                     "host_name", "event_name",  "client_name"};
  bool seen[kKeys] = {};
  for (std::string_view pair : pairs) {
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos) return FTB_ERR_SUBSCRIPTION_STR;
    std::string_view key = pair.substr(0, eq);
    std::string_view value = pair.substr(eq + 1);
    if (const auto second = value.find('='); second != std::string_view::npos) {
      value = value.substr(0, second);  // as in 0.6.2: text after a second '=' is ignored
    }
    key = trimBlanks(key);
    value = trimBlanks(value);
    if (key.empty() || value.empty()) return FTB_ERR_SUBSCRIPTION_STR;
    if (hasBlank(key)) return FTB_ERR_FILTER_ATTR;
    if (hasBlank(value)) return FTB_ERR_FILTER_VALUE;
    int k = 0;
    while (k < kKeys && !equalsIgnoreCase(key, kNames[k])) ++k;
    if (k == kKeys) return FTB_ERR_FILTER_ATTR;
    if (seen[k]) return FTB_ERR_SUBSCRIPTION_STR;
    seen[k] = true;
    const std::string v(value);
    switch (k) {
      case kSeverity:
        if (!isAll(v) && !equalsIgnoreCase(v, "fatal") && !equalsIgnoreCase(v, "error") &&
            !equalsIgnoreCase(v, "warning") && !equalsIgnoreCase(v, "info")) {
          return FTB_ERR_FILTER_VALUE;
        }
        mask->severity = v;
        break;
      case kEventSpace:
        if (!splitEventSpace(v, &mask->region, &mask->comp_cat, &mask->comp)) {
          return FTB_ERR_EVENTSPACE_FORMAT;
        }
        break;
      case kJobid:
        if (v.size() >= FTB_MAX_CLIENT_JOBID) return FTB_ERR_FILTER_VALUE;
        mask->client_jobid = v;
        break;
      case kHostName:
        if (v.size() >= FTB_MAX_HOST_ADDR) return FTB_ERR_FILTER_VALUE;
        mask->hostname = v;
        break;
      case kEventName:
        if (v.size() >= FTB_MAX_EVENT_NAME) return FTB_ERR_FILTER_VALUE;
        mask->event_name = v;
        break;
      case kClientName:
        if (v.size() >= FTB_MAX_CLIENT_NAME) return FTB_ERR_FILTER_VALUE;
        mask->client_name = v;
        break;
    }
  }
  return FTB_SUCCESS;
}

}  // namespace ftb::ftb05
