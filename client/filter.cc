#include "client/filter.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "client/event.h"
#include "client/event_limits.h"
#include "client/names.h"

namespace ftb {
namespace {

enum class Field { kEventSpace, kSeverity, kJobId, kHostName, kEventName, kClientName };

struct KeyInfo {
  std::string_view name;
  Field field;
};

constexpr std::array<KeyInfo, 6> kKeys = {{
    {"event_space", Field::kEventSpace},
    {"severity", Field::kSeverity},
    {"jobid", Field::kJobId},
    {"host_name", Field::kHostName},
    {"event_name", Field::kEventName},
    {"client_name", Field::kClientName},
}};
constexpr std::string_view kValidKeys =
    "event_space, severity, jobid, host_name, event_name, client_name";

enum class Op { kEq, kNe, kGe, kGt, kLe, kLt };

std::string_view opName(Op op) {
  switch (op) {
    case Op::kEq: return "=";
    case Op::kNe: return "!=";
    case Op::kGe: return ">=";
    case Op::kGt: return ">";
    case Op::kLe: return "<=";
    case Op::kLt: return "<";
  }
  return "?";
}

char upperAscii(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool isAll(std::string_view s) { return toUpper(s) == "ALL"; }

// '*' matches any run of characters (none included). With fold, `text` is compared
// as upper case; `pattern` must already be upper case. Iterative, no allocation.
bool globMatch(std::string_view pattern, std::string_view text, bool fold) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    char c = fold ? upperAscii(text[t]) : text[t];
    if (p < pattern.size() && pattern[p] != '*' && pattern[p] == c) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// One segment of an event space pattern.
struct Segment {
  enum class Kind {
    kGlob,     // literal or glob within one segment
    kAnyOne,   // '*' or 'ALL' not at the end: exactly one segment
    kRest,     // '*' or 'ALL' at the end: one or more segments
    kAnyDepth  // '**': zero or more segments
  };
  Kind kind = Kind::kGlob;
  std::string glob;  // upper case, for kGlob
};

// Whether `pattern` matches all of `space` (whose "" is one empty segment).
// Dynamic programming over (pattern segment, space segment): time
// O(pattern x space) whatever the '**'s. The backtracking it replaces was
// exponential in them: one filter with a dozen '**.A' stalled the agent's loop
// for minutes on a long event space (tests/fuzz, regression in filter_test).
bool matchSegments(const std::vector<Segment>& pattern, std::string_view space) {
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0;;) {
    const std::size_t dot = space.find('.', pos);
    parts.push_back(space.substr(pos, dot == std::string_view::npos ? dot : dot - pos));
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  const std::size_t n = parts.size();
  // at[j]: the pattern segments so far match exactly the first j segments of space.
  std::vector<char> at(n + 1, 0), next(n + 1, 0);
  at[0] = 1;
  for (const Segment& seg : pattern) {
    std::fill(next.begin(), next.end(), 0);
    for (std::size_t j = 0; j <= n; ++j) {
      if (!at[j]) continue;
      switch (seg.kind) {
        case Segment::Kind::kAnyDepth:  // zero or more: every end from j on
          std::fill(next.begin() + static_cast<std::ptrdiff_t>(j), next.end(), 1);
          j = n;
          break;
        case Segment::Kind::kRest:  // one or more, the rest of the space
          if (j < n) next[n] = 1;
          break;
        case Segment::Kind::kAnyOne:
          if (j < n) next[j + 1] = 1;
          break;
        case Segment::Kind::kGlob:
          if (j < n && globMatch(seg.glob, parts[j], /*fold=*/true)) next[j + 1] = 1;
          break;
      }
    }
    at.swap(next);
  }
  return at[n] != 0;
}

// One value of a key: a glob, or for event_space a list of segments.
struct Alternative {
  std::string glob;
  std::vector<Segment> segments;
};

constexpr uint8_t kAllSeverities = 0b11110;  // bit n set: proto severity n matches

}  // namespace

struct Filter::Clause {
  Field field = Field::kEventSpace;
  uint8_t severity_mask = kAllSeverities;  // kSeverity only
  std::vector<Alternative> include;        // empty: any value
  std::vector<Alternative> exclude;

  bool matchesValue(const Alternative& alt, std::string_view value) const {
    switch (field) {
      case Field::kEventSpace:
        return matchSegments(alt.segments, value);
      case Field::kEventName: return globMatch(alt.glob, value, /*fold=*/true);
      default: return globMatch(alt.glob, value, /*fold=*/false);
    }
  }

  bool matches(const proto::Event& event) const {
    std::string_view value;
    switch (field) {
      case Field::kSeverity: {
        int s = event.severity();
        return s >= 0 && s < 8 && (severity_mask >> s & 1);
      }
      case Field::kEventSpace: value = event.event_space(); break;
      case Field::kEventName: value = event.event_name(); break;
      case Field::kJobId: value = event.job_id(); break;
      case Field::kHostName: value = event.id().origin().host(); break;
      case Field::kClientName: value = event.client_name(); break;
    }
    return matchesText(value);
  }

  bool matchesText(std::string_view value) const {
    bool included = include.empty();
    for (const auto& alt : include) {
      if (matchesValue(alt, value)) {
        included = true;
        break;
      }
    }
    if (!included) return false;
    for (const auto& alt : exclude) {
      if (matchesValue(alt, value)) return false;
    }
    return true;
  }
};

namespace {

// Builds an event_space alternative; rejects characters outside [A-Za-z0-9_*-] and
// empty segments.
// The longest value a field can hold (client/names.h, client/event_limits.h):
// a longer pattern could never match, and is a mistake worth naming.
std::size_t longestValue(Field field) {
  switch (field) {
    case Field::kEventSpace: return kMaxEventSpaceLength;
    case Field::kEventName: return kMaxEventNameLength;
    case Field::kClientName: return kMaxClientNameLength;
    case Field::kJobId: return kMaxJobIdLength;
    case Field::kHostName: return 255;  // HOST_NAME_MAX on Linux is 64; origins allow more
    case Field::kSeverity: return 16;
  }
  return 255;
}

Result<Alternative> compileSpace(std::string_view value) {
  const std::string what = "event_space pattern '" + cutForMessage(value) + "'";
  Alternative alt;
  std::size_t start = 0;
  for (int n = 1;; ++n) {
    std::size_t dot = value.find('.', start);
    std::string raw(value.substr(start, dot == std::string_view::npos ? dot : dot - start));
    std::string seg = toUpper(raw);
    bool last = dot == std::string_view::npos;
    const std::string where = what + ": segment " + std::to_string(n);
    if (seg.empty()) return invalidArgument(where + " is empty");
    for (char c : seg) {
      bool ok =
          (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '*';
      if (!ok) {
        return invalidArgument(where + " '" + cutForMessage(raw) + "' has invalid character '" +
                               std::string(1, c) + "'; use letters, digits, '_', '-' and '*'");
      }
    }
    Segment s;
    if (seg == "**") {
      s.kind = Segment::Kind::kAnyDepth;
    } else if (seg.find("**") != std::string::npos) {
      return invalidArgument(where + " '" + cutForMessage(raw) + "': '**' must be a whole segment");
    } else if (seg == "*" || seg == "ALL") {
      s.kind = last ? Segment::Kind::kRest : Segment::Kind::kAnyOne;
    } else {
      s.glob = std::move(seg);
    }
    // Consecutive '**' mean the same as one: keep one.
    bool repeat = s.kind == Segment::Kind::kAnyDepth && !alt.segments.empty() &&
                  alt.segments.back().kind == Segment::Kind::kAnyDepth;
    if (!repeat) alt.segments.push_back(std::move(s));
    if (last) break;
    start = dot + 1;
  }
  return alt;
}

Result<Alternative> compileName(std::string_view value) {
  for (char c : value) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '*';
    if (!ok) {
      return invalidArgument("event_name pattern '" + cutForMessage(value) +
                             "' has invalid character '" + std::string(1, c) +
                             "'; use letters, digits, '_', '.', '-' and '*'");
    }
  }
  return Alternative{.glob = toUpper(value), .segments = {}};
}

// Severities (as a mask over proto values) that satisfy `op name`.
uint8_t severityMask(Op op, Severity severity) {
  uint8_t mask = 0;
  int v = static_cast<int>(severity);
  for (int s = 1; s <= 4; ++s) {
    bool in = false;
    switch (op) {
      case Op::kEq: in = s == v; break;
      case Op::kNe: in = s == v; break;  // the excluded set; the caller inverts
      case Op::kGe: in = s >= v; break;
      case Op::kGt: in = s > v; break;
      case Op::kLe: in = s <= v; break;
      case Op::kLt: in = s < v; break;
    }
    if (in) mask |= static_cast<uint8_t>(1 << s);
  }
  return mask;
}

// The clause being built for one key: all its occurrences merged.
struct Builder {
  Filter::Clause clause;
  bool seen = false;
  bool any_positive = false;  // some '=' or comparison term was given
  bool positive_all = false;  // one of them was 'all'
  uint8_t include_mask = 0;
  uint8_t exclude_mask = 0;
};

// Parses one "key op value[|value...]" element into its key's builder.
Status parseElement(std::string_view element, std::array<Builder, kKeys.size()>& builders) {
  const std::string quoted = "'" + cutForMessage(element) + "'";
  std::size_t pos = element.find_first_of("=!<>");
  if (pos == std::string_view::npos) {
    return invalidArgument("missing '=' in " + quoted + "; expected key=value");
  }
  std::string_view key_text = trim(element.substr(0, pos));
  if (key_text.empty()) return invalidArgument("missing key before the operator in " + quoted);
  const KeyInfo* key = nullptr;
  std::string lower(key_text);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (const auto& k : kKeys) {
    if (k.name == lower) key = &k;
  }
  if (key == nullptr) {
    return invalidArgument("unknown key '" + cutForMessage(key_text) + "' in " + quoted +
                           "; valid keys: " + std::string(kValidKeys));
  }
  Op op;
  char c0 = element[pos];
  bool eq_next = pos + 1 < element.size() && element[pos + 1] == '=';
  if (c0 == '=') {
    op = Op::kEq;
  } else if (c0 == '!') {
    if (!eq_next) return invalidArgument("missing '=' after '!' in " + quoted + "; use '!='");
    op = Op::kNe;
  } else if (c0 == '>') {
    op = eq_next ? Op::kGe : Op::kGt;
  } else {
    op = eq_next ? Op::kLe : Op::kLt;
  }
  std::string_view value = trim(element.substr(pos + opName(op).size()));
  const std::string key_name(key->name);
  if (key->field != Field::kSeverity && op != Op::kEq && op != Op::kNe) {
    return invalidArgument("key '" + key_name + "' does not accept '" + std::string(opName(op)) +
                           "'; use '=' or '!='");
  }
  if (value.empty()) return invalidArgument("empty value for key '" + key_name + "' in " + quoted);

  Builder& b = builders[static_cast<std::size_t>(key->field)];
  b.seen = true;
  b.clause.field = key->field;
  if (op != Op::kNe) b.any_positive = true;
  std::size_t start = 0;
  while (true) {
    std::size_t bar = value.find('|', start);
    std::string_view v =
        trim(value.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (v.empty()) return invalidArgument("empty value for key '" + key_name + "' in " + quoted);
    if (isAll(v)) {
      if (op == Op::kNe) {
        return invalidArgument("key '" + key_name + "': '!=all' would match nothing in " + quoted);
      }
      if (op != Op::kEq) {
        return invalidArgument("key '" + key_name + "': '" + std::string(opName(op)) +
                               "' needs a severity name, not '" + cutForMessage(v) + "'");
      }
      b.positive_all = true;
    } else if (key->field == Field::kSeverity) {
      auto severity = parseSeverity(v);
      if (!severity) return invalidArgument("key 'severity': " + severity.status().message());
      (op == Op::kNe ? b.exclude_mask : b.include_mask) |= severityMask(op, *severity);
    } else {
      if (v.size() > longestValue(key->field)) {
        return invalidArgument("key '" + key_name + "': pattern '" + cutForMessage(v) + "' is " +
                               std::to_string(v.size()) + " characters; a " + key_name +
                               " is at most " + std::to_string(longestValue(key->field)));
      }
      Alternative alt;
      if (key->field == Field::kEventSpace) {
        auto r = compileSpace(v);
        if (!r) return r.status();
        alt = std::move(*r);
      } else if (key->field == Field::kEventName) {
        auto r = compileName(v);
        if (!r) return r.status();
        alt = std::move(*r);
      } else {
        for (char c : v) {
          if (isSpace(c)) {
            return invalidArgument("value '" + cutForMessage(v) + "' for key '" + key_name +
                                   "' contains whitespace");
          }
        }
        alt.glob = std::string(v);
      }
      (op == Op::kNe ? b.clause.exclude : b.clause.include).push_back(std::move(alt));
    }
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return Status::okStatus();
}

// Whether an element that parsed is about event_space.
bool isEventSpaceElement(std::string_view element) {
  std::string key(trim(element.substr(0, element.find_first_of("=!<>"))));
  for (char& c : key) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return key == "event_space";
}

}  // namespace

Result<Filter> Filter::parse(std::string_view text) {
  std::array<Builder, kKeys.size()> builders;
  std::string space_part;
  if (!trim(text).empty()) {
    std::size_t start = 0;
    while (true) {
      std::size_t comma = text.find(',', start);
      std::string_view element =
          trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
      if (element.empty()) {
        return invalidArgument("empty element at offset " + std::to_string(start) + " of filter '" +
                               std::string(text) + "'; expected key=value");
      }
      if (Status s = parseElement(element, builders); !s.ok()) return s;
      if (isEventSpaceElement(element)) {
        if (!space_part.empty()) space_part += ", ";
        space_part += element;
      }
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }

  Filter filter;
  filter.text_ = std::string(text);
  filter.event_space_text_ = std::move(space_part);
  // Severity first: the cheapest test, and often the most selective.
  for (std::size_t i : {1, 0, 4, 2, 3, 5}) {
    Builder& b = builders[i];
    if (!b.seen) continue;
    if (b.clause.field == Field::kSeverity) {
      bool any = !b.any_positive || b.positive_all;
      // Only 'all' drops the clause: a named severity never matches an unset one.
      if (any && b.exclude_mask == 0) continue;
      b.clause.severity_mask =
          (any ? kAllSeverities : b.include_mask) & static_cast<uint8_t>(~b.exclude_mask);
    } else {
      // 'all' among the accepted values accepts everything.
      if (b.positive_all) b.clause.include.clear();
      if (b.clause.include.empty() && b.clause.exclude.empty()) continue;
    }
    filter.clauses_.push_back(std::make_shared<const Clause>(std::move(b.clause)));
  }
  return filter;
}

bool Filter::matchesEventSpace(std::string_view space) const {
  for (const auto& clause : clauses_) {
    if (clause->field == Field::kEventSpace && !clause->matchesText(space)) return false;
  }
  return true;
}

std::optional<std::vector<Filter::SpaceKey>> Filter::eventSpaceKeys() const {
  const Clause* space = nullptr;
  for (const auto& clause : clauses_) {
    if (clause->field == Field::kEventSpace) space = clause.get();
  }
  // Exclusions only narrow what the includes accept, so they do not change the keys.
  if (space == nullptr || space->include.empty()) return std::nullopt;
  std::vector<SpaceKey> keys;
  for (const auto& alt : space->include) {
    SpaceKey key;
    std::size_t literal = 0;
    for (const auto& seg : alt.segments) {
      if (seg.kind != Segment::Kind::kGlob || seg.glob.find('*') != std::string::npos) break;
      if (literal++ > 0) key.prefix += '.';
      key.prefix += seg.glob;
    }
    if (literal == 0) return std::nullopt;
    key.exact = literal == alt.segments.size();
    keys.push_back(std::move(key));
  }
  return keys;
}

std::optional<std::vector<std::string>> Filter::eventNameKeys() const {
  for (const auto& clause : clauses_) {
    if (clause->field != Field::kEventName || clause->include.empty()) continue;
    std::vector<std::string> names;
    for (const auto& alt : clause->include) {
      if (alt.glob.find('*') != std::string::npos) return std::nullopt;
      names.push_back(alt.glob);  // compileName made it upper case; matching folds case
    }
    return names;
  }
  return std::nullopt;
}

bool Filter::matches(const proto::Event& event) const {
  for (const auto& clause : clauses_) {
    if (!clause->matches(event)) return false;
  }
  return true;
}

}  // namespace ftb
