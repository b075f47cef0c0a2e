#include "components/mpi_bridge/determinant_store.h"

#include <atomic>
#include <cstring>

namespace ftb::mpi_bridge {
namespace {

constexpr std::uint64_t kMagic = 0x4654424b44455431ull;  // "FTBKDET1"
constexpr std::size_t kHeaderWords = 3;                 // magic, line, count
constexpr std::size_t kHeaderBytes = kHeaderWords * sizeof(std::uint64_t);

std::uint64_t* header(std::uint8_t* data) { return reinterpret_cast<std::uint64_t*>(data); }

std::size_t recordBytes(const Determinant& d) { return (4 + d.indices.size()) * sizeof(std::int32_t); }

}  // namespace

Result<DeterminantStore> DeterminantStore::create(const std::string& name, std::size_t bytes) {
  auto segment = ShmSegment::create(name, kHeaderBytes + bytes);
  if (!segment) return segment.status();
  DeterminantStore store(std::move(*segment));
  header(store.segment_.data())[0] = kMagic;
  store.startEpoch(-1);
  return store;
}

void DeterminantStore::startEpoch(std::int64_t line) {
  std::uint64_t* h = header(segment_.data());
  std::atomic_ref<std::uint64_t>(h[2]).store(0, std::memory_order_release);
  h[1] = static_cast<std::uint64_t>(line);
  used_ = 0;
}

bool DeterminantStore::append(const Determinant& d) {
  const std::size_t bytes = recordBytes(d);
  if (kHeaderBytes + used_ + bytes > segment_.size()) return false;
  std::vector<std::int32_t> words = {static_cast<std::int32_t>(d.kind), d.channel.peer, d.channel.tag,
                                     static_cast<std::int32_t>(d.indices.size())};
  words.insert(words.end(), d.indices.begin(), d.indices.end());
  std::memcpy(segment_.data() + kHeaderBytes + used_, words.data(), bytes);
  used_ += bytes;
  // The record before the count that makes it visible.
  std::atomic_ref<std::uint64_t> count(header(segment_.data())[2]);
  count.store(count.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  return true;
}

Result<StoredDeterminants> DeterminantStore::read(const std::string& name) {
  auto segment = ShmSegment::open(name);
  if (!segment) return segment.status();
  const std::uint8_t* data = segment->data();
  const std::size_t size = segment->size();
  auto bad = [&] { return invalidArgument(name + " is not a determinant store (or is cut short)"); };
  if (size < kHeaderBytes) return bad();
  std::uint64_t h[kHeaderWords];
  std::memcpy(h, data, sizeof h);
  if (h[0] != kMagic) return bad();
  StoredDeterminants stored;
  stored.line = static_cast<std::int64_t>(h[1]);
  std::size_t at = kHeaderBytes;
  for (std::uint64_t i = 0; i < h[2]; ++i) {
    std::int32_t head[4];
    if (size - at < sizeof head) return bad();
    std::memcpy(head, data + at, sizeof head);
    at += sizeof head;
    const auto n = static_cast<std::size_t>(head[3]);
    if (head[3] < 0 || (size - at) / sizeof(std::int32_t) < n) return bad();
    Determinant d{static_cast<Determinant::Kind>(head[0]), Channel{head[1], head[2]}, std::vector<int>(n)};
    if (n > 0) std::memcpy(d.indices.data(), data + at, n * sizeof(std::int32_t));
    at += n * sizeof(std::int32_t);
    stored.determinants.push_back(std::move(d));
  }
  return stored;
}

}  // namespace ftb::mpi_bridge
