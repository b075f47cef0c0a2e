#include "agent/security/namespace_policy.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "client/names.h"

namespace ftb::agent {
namespace {

constexpr const char* kDefaultPolicy =
    "# ftb-agent embedded namespace policy (docs/SECURITY.md)\n"
    "publish    FTB.JL.*     uid=0 self\n"
    "publish    FTB.AGENT*   uid=0 self\n"
    "publish    FTB.IPMI.*   uid=0 self curve\n"
    "publish    FTB.IB.*     uid=0 self curve\n"
    "publish    *            *\n"
    "subscribe  *            *\n";

std::optional<uint32_t> number(const std::string& s) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

const char* NamespacePolicy::embeddedDefaultText() { return kDefaultPolicy; }

NamespacePolicy NamespacePolicy::embeddedDefault() {
  return std::move(parse(kDefaultPolicy, "the embedded default policy")).value();
}

Result<NamespacePolicy> NamespacePolicy::load(const std::string& path) {
  if (path.empty()) return embeddedDefault();
  std::ifstream in(path);
  if (!in) {
    return failedPrecondition("cannot read --policy-file " + path +
                              " (create it or leave the option out for the embedded default)");
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

Result<NamespacePolicy> NamespacePolicy::parse(const std::string& text, const std::string& source) {
  NamespacePolicy policy;
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string action, pattern, word;
    if (!(words >> action)) continue;  // blank or comment
    const auto where = [&] { return source + " line " + std::to_string(n) + ": "; };
    Rule rule;
    if (action == "publish") rule.action = Action::kPublish;
    else if (action == "subscribe") rule.action = Action::kSubscribe;
    else return invalidArgument(where() + "'" + action + "' is not publish or subscribe");
    if (!(words >> pattern)) return invalidArgument(where() + "a namespace pattern is missing");
    if (pattern != "*") {
      // The part before a trailing '*' must be (the start of) a valid namespace.
      std::string stem = pattern;
      if (stem.ends_with(".*")) stem.resize(stem.size() - 2);
      else if (stem.ends_with("*")) stem.resize(stem.size() - 1);
      if (stem.find('*') != std::string::npos) {
        return invalidArgument(where() + "'" + pattern + "': '*' only at the end of a pattern");
      }
      Result<std::string> normal = normalizeEventSpace(stem);
      if (!normal.ok()) return invalidArgument(where() + normal.status().message());
      pattern = *normal + pattern.substr(stem.size());
    }
    rule.pattern = pattern;
    while (words >> word) {
      Who who{.kind = Who::Kind::kAnyone, .text = word};
      const auto eq = word.find('=');
      const std::string key = word.substr(0, eq), value = eq == std::string::npos ? "" : word.substr(eq + 1);
      if (word == "*") who.kind = Who::Kind::kAnyone;
      else if (word == "self") who.kind = Who::Kind::kSelf, who.id = geteuid();
      else if (word == "local") who.kind = Who::Kind::kLocal;
      else if (word == "remote") who.kind = Who::Kind::kRemote;
      else if (word == "curve") who.kind = Who::Kind::kCurve;
      else if (key == "uid" || key == "gid") {
        auto id = number(value);
        if (!id) return invalidArgument(where() + "'" + word + "': " + key + " must be a number");
        who.kind = key == "uid" ? Who::Kind::kUid : Who::Kind::kGid;
        who.id = *id;
      } else if (key == "user") {
        const passwd* pw = getpwnam(value.c_str());
        if (pw == nullptr) return invalidArgument(where() + "unknown user '" + value + "'");
        who.kind = Who::Kind::kUid, who.id = pw->pw_uid;
      } else if (key == "group") {
        const group* gr = getgrnam(value.c_str());
        if (gr == nullptr) return invalidArgument(where() + "unknown group '" + value + "'");
        who.kind = Who::Kind::kGid, who.id = gr->gr_gid;
      } else {
        return invalidArgument(where() + "'" + word +
                               "' is not a principal (*, uid=, user=, gid=, group=, self, local, "
                               "remote, curve)");
      }
      policy.needs_groups_ |= who.kind == Who::Kind::kGid;
      rule.who.push_back(std::move(who));
    }
    if (rule.who.empty()) {
      return invalidArgument(where() + "no principal: say who may (e.g. uid=0, or * for anyone)");
    }
    policy.rules_.push_back(std::move(rule));
  }
  return policy;
}

bool NamespacePolicy::matches(const std::string& pattern, const std::string& space) {
  if (pattern == "*") return true;
  if (pattern.ends_with(".*")) {
    const std::string_view stem(pattern.data(), pattern.size() - 2);
    return space == stem || (space.size() > stem.size() && space.starts_with(stem) &&
                             space[stem.size()] == '.');
  }
  if (pattern.ends_with("*")) return space.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1));
  return space == pattern;
}

bool NamespacePolicy::matches(const Who& who, const Principal& p) {
  using K = Who::Kind;
  switch (who.kind) {
    case K::kAnyone: return true;
    case K::kUid: return p.uid() == who.id;
    case K::kSelf: return p.peer && p.peer->uid == who.id;
    case K::kGid:
      return (p.peer && p.peer->gid == who.id) ||
             (p.uid() && std::find(p.groups.begin(), p.groups.end(), who.id) != p.groups.end());
    case K::kLocal: return p.peer.has_value();
    case K::kRemote: return !p.peer;
    case K::kCurve: return !p.peer && p.curve_authenticated;
  }
  return false;
}

const NamespacePolicy::Rule* NamespacePolicy::find(Action action, const std::string& space) const {
  for (const Rule& r : rules_) {
    if (r.action == action && matches(r.pattern, space)) return &r;
  }
  return nullptr;
}

bool NamespacePolicy::allows(Action action, const std::string& space, const Principal& who) const {
  const Rule* rule = find(action, space);
  if (rule == nullptr) return false;
  return std::any_of(rule->who.begin(), rule->who.end(), [&](const Who& w) { return matches(w, who); });
}

bool NamespacePolicy::openToAll(Action action) const {
  for (const Rule& r : rules_) {
    if (r.action != action) continue;
    const bool anyone = std::any_of(r.who.begin(), r.who.end(),
                                    [](const Who& w) { return w.kind == Who::Kind::kAnyone; });
    if (!anyone) return false;
    if (r.pattern == "*") return true;
  }
  return false;  // some namespace falls through to "refused"
}

std::string NamespacePolicy::whoMay(Action action, const std::string& space) const {
  const Rule* rule = find(action, space);
  if (rule == nullptr) return "nobody (no rule matches)";
  std::string out;
  for (const Who& w : rule->who) out += (out.empty() ? "" : " ") + w.text;
  return out;
}

std::string Principal::describe() const {
  if (peer) return "uid " + std::to_string(peer->uid);
  if (curve_uid) return "uid " + std::to_string(*curve_uid) + " (Curve key)";
  return "a remote client";
}

std::vector<gid_t> groupsOf(uint32_t uid) {
  const passwd* pw = getpwuid(uid);
  if (pw == nullptr) return {};
  int count = 64;
  std::vector<gid_t> groups(count);
  if (getgrouplist(pw->pw_name, pw->pw_gid, groups.data(), &count) < 0) {
    groups.resize(count);
    if (getgrouplist(pw->pw_name, pw->pw_gid, groups.data(), &count) < 0) return {};
  }
  groups.resize(count);
  return groups;
}

}  // namespace ftb::agent
