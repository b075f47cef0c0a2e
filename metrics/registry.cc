#include "metrics/registry.h"

#include <charconv>
#include <cmath>

namespace ftb::metrics {
namespace {

std::string formatNumber(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

// Label values escape backslash, double quote and newline; help text only
// backslash and newline (the exposition format's rules).
std::string escape(const std::string& s, bool quotes) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '"' && quotes) out += "\\\"";
    else out += c;
  }
  return out;
}

std::string labelText(const std::vector<std::string>& names, const std::vector<std::string>& values,
                      const std::string& extra_name = {}, const std::string& extra_value = {}) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    out += out.empty() ? "{" : ",";
    out += names[i] + "=\"" + escape(values[i], true) + "\"";
  }
  if (!extra_name.empty()) {
    out += out.empty() ? "{" : ",";
    out += extra_name + "=\"" + extra_value + "\"";
  }
  if (!out.empty()) out += "}";
  return out;
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)),
      buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0);
}

void Histogram::observe(double value) {
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.upper_bounds = bounds_;
  uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

std::vector<double> exponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (double v = start; count-- > 0; v *= factor) out.push_back(v);
  return out;
}

void FamilyBase::render(std::string& out) const {
  static constexpr const char* kTypeNames[] = {"counter", "gauge", "histogram"};
  out += "# HELP " + name_ + " " + escape(help_, false) + "\n";
  out += "# TYPE " + name_ + " " + kTypeNames[static_cast<int>(type_)] + "\n";
  for (const Series& s : series()) {
    switch (type_) {
      case Type::kCounter:
        out += name_ + labelText(label_names_, s.values) + " " +
               std::to_string(static_cast<const Counter*>(s.metric)->value()) + "\n";
        break;
      case Type::kGauge:
        out += name_ + labelText(label_names_, s.values) + " " +
               formatNumber(static_cast<const Gauge*>(s.metric)->value()) + "\n";
        break;
      case Type::kHistogram: {
        const Histogram::Snapshot h = static_cast<const Histogram*>(s.metric)->snapshot();
        for (std::size_t i = 0; i < h.cumulative.size(); ++i) {
          const double bound = i < h.upper_bounds.size() ? h.upper_bounds[i] : INFINITY;
          out += name_ + "_bucket" + labelText(label_names_, s.values, "le", formatNumber(bound)) +
                 " " + std::to_string(h.cumulative[i]) + "\n";
        }
        out += name_ + "_sum" + labelText(label_names_, s.values) + " " + formatNumber(h.sum) + "\n";
        out += name_ + "_count" + labelText(label_names_, s.values) + " " +
               std::to_string(h.count) + "\n";
        break;
      }
    }
  }
}

template <typename Metric>
Family<Metric>& Registry::family(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names, Type type,
                                 std::vector<double> buckets) {
  std::lock_guard lock(mutex_);
  if (auto it = by_name_.find(name); it != by_name_.end()) {
    return *static_cast<Family<Metric>*>(it->second);
  }
  auto f = std::make_unique<Family<Metric>>(name, help, std::move(label_names), type,
                                            std::move(buckets));
  Family<Metric>& ref = *f;
  by_name_[name] = f.get();
  families_.push_back(std::move(f));
  return ref;
}

Family<Counter>& Registry::counterFamily(const std::string& name, const std::string& help,
                                         std::vector<std::string> label_names) {
  return family<Counter>(name, help, std::move(label_names), Type::kCounter);
}

Family<Gauge>& Registry::gaugeFamily(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names) {
  return family<Gauge>(name, help, std::move(label_names), Type::kGauge);
}

Family<Histogram>& Registry::histogramFamily(const std::string& name, const std::string& help,
                                             std::vector<std::string> label_names,
                                             std::vector<double> upper_bounds) {
  return family<Histogram>(name, help, std::move(label_names), Type::kHistogram,
                           std::move(upper_bounds));
}

std::string Registry::render() const {
  std::vector<const FamilyBase*> families;
  {
    std::lock_guard lock(mutex_);
    for (const auto& f : families_) families.push_back(f.get());
  }
  std::string out;
  for (const FamilyBase* f : families) f->render(out);
  return out;
}

}  // namespace ftb::metrics
