#include "agent/routing/subscription_index.h"

#include <algorithm>

#include "client/names.h"

namespace ftb::agent {
namespace {

// `text` in upper case: itself when it is already, else a copy made in `storage`.
std::string_view upperView(std::string_view text, std::string& storage) {
  if (std::none_of(text.begin(), text.end(), [](char c) { return c >= 'a' && c <= 'z'; })) return text;
  storage = toUpper(text);
  return storage;
}

}  // namespace

void SubscriptionIndex::add(Owner owner, uint32_t id, const Filter& filter) {
  remove(owner, id);
  const Match key{owner, id};
  Held held{filter, {}, {}, {}};
  if (auto keys = filter.eventSpaceKeys()) {
    for (auto& k : *keys) {
      auto& where = k.exact ? held.exact_keys : held.prefix_keys;
      if (std::find(where.begin(), where.end(), k.prefix) != where.end()) continue;  // a|a
      (k.exact ? exact_ : prefix_)[k.prefix].insert(key);
      where.push_back(std::move(k.prefix));
    }
  } else if (auto names = filter.eventNameKeys()) {
    for (auto& name : *names) {
      if (std::find(held.name_keys.begin(), held.name_keys.end(), name) != held.name_keys.end()) continue;
      by_name_[name].insert(key);
      held.name_keys.push_back(std::move(name));
    }
  } else {
    always_.insert(key);
  }
  held_.emplace(key, std::move(held));
  ids_by_owner_[owner].insert(id);
}

void SubscriptionIndex::remove(Owner owner, uint32_t id) {
  const Match key{owner, id};
  auto it = held_.find(key);
  if (it == held_.end()) return;
  auto unfile = [&](Table& table, const std::string& k) {
    auto b = table.find(k);
    if (b == table.end()) return;
    b->second.erase(key);
    if (b->second.empty()) table.erase(b);
  };
  for (const auto& k : it->second.exact_keys) unfile(exact_, k);
  for (const auto& k : it->second.prefix_keys) unfile(prefix_, k);
  for (const auto& k : it->second.name_keys) unfile(by_name_, k);
  always_.erase(key);
  held_.erase(it);
  auto o = ids_by_owner_.find(owner);
  o->second.erase(id);
  if (o->second.empty()) ids_by_owner_.erase(o);
}

void SubscriptionIndex::removeOwner(Owner owner) {
  auto o = ids_by_owner_.find(owner);
  if (o == ids_by_owner_.end()) return;
  const std::vector<uint32_t> ids(o->second.begin(), o->second.end());
  for (uint32_t id : ids) remove(owner, id);
}

template <typename Visit>
void SubscriptionIndex::forEachCandidate(std::string_view event_space, std::string_view event_name,
                                         Visit&& visit) const {
  // Filters fold case; events may carry a namespace in any case (the SDK
  // sends it upper-case already, and then nothing is copied).
  std::string folded_space, folded_name;
  const std::string_view space = upperView(event_space, folded_space);
  for (const Match& m : always_) visit(m);
  if (!by_name_.empty()) {
    if (auto b = by_name_.find(upperView(event_name, folded_name)); b != by_name_.end()) {
      for (const Match& m : b->second) visit(m);
    }
  }
  if (auto b = exact_.find(space); b != exact_.end()) {
    for (const Match& m : b->second) visit(m);
  }
  if (prefix_.empty()) return;
  // Every dotted prefix, the whole namespace included ("FTB.**" accepts "FTB").
  for (std::size_t pos = 0;;) {
    const std::size_t dot = space.find('.', pos);
    if (auto b = prefix_.find(space.substr(0, dot)); b != prefix_.end()) {
      for (const Match& m : b->second) visit(m);
    }
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
}

std::vector<SubscriptionIndex::Match> SubscriptionIndex::matching(const proto::Event& event) const {
  std::vector<Match> out;
  matching(event, out);
  return out;
}

void SubscriptionIndex::matching(const proto::Event& event, std::vector<Match>& out) const {
  out.clear();
  forEachCandidate(event.event_space(), event.event_name(), [&](const Match& m) {
    if (held_.at(m).filter.matches(event)) out.push_back(m);
  });
  std::sort(out.begin(), out.end());
  // A filter with alternatives under two keys (FTB.A.*|FTB.A.B) is a candidate twice.
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

std::size_t SubscriptionIndex::candidateCount(std::string_view event_space,
                                              std::string_view event_name) const {
  std::size_t n = 0;
  forEachCandidate(event_space, event_name, [&](const Match&) { ++n; });
  return n;
}

}  // namespace ftb::agent
