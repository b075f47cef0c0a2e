// Prometheus metrics without a dependency: counters, gauges and histograms,
// optionally with labels, rendered in the text exposition format (0.0.4).
//
//   ftb::metrics::Registry registry;
//   auto& sent = registry.counterFamily("ftb_x_sent_total", "Frames sent", {"peer"});
//   sent.labels({"node17"}).inc();                  // any thread, lock-free
//   auto& took = registry.histogram("ftb_x_sweep_seconds", "Sweep time", {0.1, 1, 10});
//   took.observe(0.25);
//   std::string text = registry.render();           // what a scrape returns
//
// Threading: every method may be called from any thread. Updating a metric is
// one atomic operation; labels() takes the family's mutex only to look a series
// up (callers on a hot path keep the reference: series are never removed).
// render() copies series pointers under that mutex and formats outside it, so
// a scrape never holds up the threads that update metrics.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <string>
#include <vector>

namespace ftb::metrics {

class Counter {
 public:
  void inc(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Cumulative buckets with the upper bounds given (ascending); +Inf is implicit.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);

  struct Snapshot {
    std::vector<double> upper_bounds;
    std::vector<uint64_t> cumulative;  // per bound, then +Inf
    uint64_t count = 0;
    double sum = 0;
  };
  Snapshot snapshot() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1 (+Inf)
  std::atomic<double> sum_{0};
};

// Bucket bounds: `count` values from `start`, each `factor` times the previous.
std::vector<double> exponentialBuckets(double start, double factor, int count);

enum class Type { kCounter, kGauge, kHistogram };

class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, std::vector<std::string> label_names, Type type)
      : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)),
        type_(type) {}
  virtual ~FamilyBase() = default;
  void render(std::string& out) const;

 protected:
  struct Series {
    std::vector<std::string> values;
    const void* metric;
  };
  virtual std::vector<Series> series() const = 0;

  std::string name_, help_;
  std::vector<std::string> label_names_;
  Type type_;
};

// One metric name with one series per distinct set of label values.
template <typename Metric>
class Family : public FamilyBase {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names, Type type,
         std::vector<double> buckets = {})
      : FamilyBase(std::move(name), std::move(help), std::move(label_names), type),
        buckets_(std::move(buckets)) {}

  // The series for these label values (as many as label names), created on first use.
  Metric& labels(const std::vector<std::string>& values) {
    std::lock_guard lock(mutex_);
    auto& slot = series_[values];
    if (!slot) slot = make();
    return *slot;
  }

 private:
  std::unique_ptr<Metric> make() {
    if constexpr (std::is_same_v<Metric, Histogram>) {
      return std::make_unique<Histogram>(buckets_);
    } else {
      return std::make_unique<Metric>();
    }
  }
  std::vector<Series> series() const override {
    std::lock_guard lock(mutex_);
    std::vector<Series> out;
    out.reserve(series_.size());
    for (const auto& [values, metric] : series_) out.push_back({values, metric.get()});
    return out;
  }

  std::vector<double> buckets_;
  mutable std::mutex mutex_;
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> series_;
};

class Registry {
 public:
  // Registering a name twice returns the first family (help and labels of the
  // first registration win), so independent parts may share a metric.
  Family<Counter>& counterFamily(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names);
  Family<Gauge>& gaugeFamily(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names);
  Family<Histogram>& histogramFamily(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> upper_bounds);

  // Metrics without labels.
  Counter& counter(const std::string& name, const std::string& help) {
    return counterFamily(name, help, {}).labels({});
  }
  Gauge& gauge(const std::string& name, const std::string& help) {
    return gaugeFamily(name, help, {}).labels({});
  }
  Histogram& histogram(const std::string& name, const std::string& help,
                       std::vector<double> upper_bounds) {
    return histogramFamily(name, help, {}, std::move(upper_bounds)).labels({});
  }

  // Every family in registration order, in the text exposition format.
  std::string render() const;

 private:
  template <typename Metric>
  Family<Metric>& family(const std::string& name, const std::string& help,
                         std::vector<std::string> label_names, Type type,
                         std::vector<double> buckets = {});

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<FamilyBase>> families_;
  std::map<std::string, FamilyBase*> by_name_;
};

}  // namespace ftb::metrics
