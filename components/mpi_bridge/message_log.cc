#include "components/mpi_bridge/message_log.h"

#include <algorithm>
#include <limits>

namespace ftb::mpi_bridge {

// Chunks handed out front to back and kept when reset: the next epoch writes
// into memory that is already mapped.
class MessageLog::Arena {
 public:
  std::byte* allocate(std::size_t bytes) {
    while (current_ < chunks_.size() && chunks_[current_].size - used_ < bytes) {
      ++current_;
      used_ = 0;
    }
    if (current_ == chunks_.size()) {
      const std::size_t size = std::max(bytes, kChunkBytes);
      chunks_.push_back({std::make_unique<std::byte[]>(size), size});
      used_ = 0;
    }
    std::byte* at = chunks_[current_].data.get() + used_;
    used_ += bytes;
    return at;
  }
  void reset() {
    current_ = 0;
    used_ = 0;
  }

 private:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  struct Chunk {
    std::unique_ptr<std::byte[]> data;
    std::size_t size;
  };
  std::vector<Chunk> chunks_;
  std::size_t current_ = 0;
  std::size_t used_ = 0;
};

MessageLog::MessageLog(std::size_t bound_bytes) : bound_(bound_bytes), arena_(std::make_unique<Arena>()) {}

MessageLog::~MessageLog() = default;

void MessageLog::startEpoch(std::int64_t line) {
  line_ = line;
  why_not_.clear();
  sent_.clear();
  received_.clear();
  collective_count_ = 0;
  collectives_.clear();
  gathers_.clear();
  determinants_.clear();
  wildcard_receives_ = 0;
  bytes_ = 0;
  arena_->reset();
}

void MessageLog::spoil(std::string why) {
  if (!why_not_.empty()) return;
  why_not_ = std::move(why);
  for (auto& [channel, log] : sent_) log.payloads.clear();
  collectives_.clear();
  gathers_.clear();
  determinants_.clear();
}

bool MessageLog::reserve(std::size_t bytes, const char* what) {
  if (!replayable()) return false;
  if (bytes_ + bytes > bound_) {
    spoil(std::string("the message log outgrew its bound of ") + std::to_string(bound_ >> 20) +
          " MiB (FTBCKPT_LOG_MB) at " + what + " of " + std::to_string(bytes) + " bytes");
    return false;
  }
  bytes_ += bytes;
  peak_bytes_ = std::max(peak_bytes_, bytes_);
  return true;
}

std::byte* MessageLog::store(std::size_t bytes, const char* what) {
  return reserve(bytes, what) ? arena_->allocate(bytes) : nullptr;
}

std::byte* MessageLog::appendSent(Channel channel, std::size_t bytes) {
  SentChannel& log = sent_[channel];
  ++log.count;
  std::byte* room = store(bytes, "a message");
  if (room) log.payloads.emplace_back(room, bytes);
  return room;
}

void MessageLog::received(Channel channel) { ++received_[channel]; }

void MessageLog::record(Determinant determinant) {
  if (reserve(sizeof determinant + determinant.indices.size() * sizeof(int), "a determinant")) {
    determinants_.push_back(std::move(determinant));
  }
}

std::byte* MessageLog::appendCollective(std::size_t bytes, std::size_t point_to_point_bytes) {
  ++collective_count_;
  ++collective_totals_.calls;
  collective_totals_.point_to_point_bytes += point_to_point_bytes;
  if (!keeps_collective_results_) return nullptr;
  collective_totals_.logged_bytes += bytes;
  std::byte* room = store(bytes, "a collective's result");
  if (room) collectives_.emplace_back(room, bytes);
  return room;
}

std::byte* MessageLog::appendGatherContribution(int root, std::size_t bytes, std::size_t point_to_point_bytes) {
  const std::uint64_t index = collective_count_;
  appendCollective(0, point_to_point_bytes);
  collective_totals_.logged_bytes += bytes;
  std::byte* room = store(bytes, "a gather's contribution");
  if (room || (bytes == 0 && replayable())) gathers_.emplace(root, GatherContribution{index, {room, bytes}});
  return room;
}

std::vector<MessageLog::GatherContribution> MessageLog::gathersTo(int root) const {
  std::vector<GatherContribution> to_root;
  auto [first, last] = gathers_.equal_range(root);
  for (auto it = first; it != last; ++it) to_root.push_back(it->second);
  return to_root;
}

std::uint64_t MessageLog::sentCount(Channel channel) const {
  auto it = sent_.find(channel);
  return it == sent_.end() ? 0 : it->second.count;
}

std::uint64_t MessageLog::receivedCount(Channel channel) const {
  auto it = received_.find(channel);
  return it == received_.end() ? 0 : it->second;
}

std::map<Channel, std::uint64_t> MessageLog::sentCounts() const {
  std::map<Channel, std::uint64_t> counts;
  for (const auto& [channel, log] : sent_) counts[channel] = log.count;
  return counts;
}

std::uint64_t MessageLog::sentTo(int peer) const {
  std::uint64_t n = 0;
  for (auto it = sent_.lower_bound({peer, std::numeric_limits<int>::min()}); it != sent_.end() && it->first.peer == peer; ++it) {
    n += it->second.count;
  }
  return n;
}

std::uint64_t MessageLog::receivedFrom(int peer) const {
  std::uint64_t n = 0;
  for (auto it = received_.lower_bound({peer, std::numeric_limits<int>::min()}); it != received_.end() && it->first.peer == peer; ++it) {
    n += it->second;
  }
  return n;
}

std::vector<std::span<const std::byte>> MessageLog::sentAfter(Channel channel, std::uint64_t skip) const {
  auto it = sent_.find(channel);
  if (it == sent_.end() || !replayable() || skip >= it->second.payloads.size()) return {};
  return {it->second.payloads.begin() + static_cast<std::ptrdiff_t>(skip), it->second.payloads.end()};
}

std::span<const std::byte> MessageLog::collectiveResult(std::uint64_t index) const {
  return index < collectives_.size() ? collectives_[index] : std::span<const std::byte>{};
}

}  // namespace ftb::mpi_bridge
