#include "components/mpi_bridge/flusher.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "components/mpi_bridge/checksum.h"

namespace ftb::mpi_bridge {
namespace {

constexpr uint64_t kFlushMagic = 0x3146504b43425446ull;  // "FTBCKPF1"
constexpr std::size_t kPiece = 1 << 20;

struct FlushHeader {
  uint64_t magic = kFlushMagic;
  int64_t ckpt_id = 0;
  int64_t iteration = 0;
  uint64_t bytes = 0;
  uint32_t crc = 0;
  uint32_t header_crc = 0;  // over the fields above
};

}  // namespace

Flusher::Flusher(std::string dir, std::string job_id, int rank, double mbps)
    : dir_(std::move(dir) + "/" + job_id), rank_(rank), mbps_(mbps) {}

Flusher::~Flusher() {
  if (thread_.joinable()) thread_.join();
}

std::string Flusher::path(int64_t ckpt_id) const {
  return dir_ + "/r" + std::to_string(rank_) + "-c" + std::to_string(ckpt_id) + ".ckpt";
}

void Flusher::start(int64_t ckpt_id, int64_t iteration, const uint8_t* data, std::size_t bytes, uint32_t crc) {
  wait();
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard lock(mu_);
    busy_ = ckpt_id;
  }
  thread_ = std::thread([=, this] { run(ckpt_id, iteration, data, bytes, crc); });
}

std::optional<int64_t> Flusher::busyWith() const {
  std::lock_guard lock(mu_);
  return busy_;
}

void Flusher::wait() {
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return !busy_; });
}

Status Flusher::lastError() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

void Flusher::run(int64_t ckpt_id, int64_t iteration, const uint8_t* data, std::size_t bytes, uint32_t crc) {
  Status status;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const std::string final_path = path(ckpt_id), tmp = final_path + ".tmp";
  FlushHeader h;
  h.ckpt_id = ckpt_id;
  h.iteration = iteration;
  h.bytes = bytes;
  h.crc = crc;
  h.header_crc = crc32c(&h, offsetof(FlushHeader, header_crc));
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) {
    status = internalError("cannot write " + tmp + ": " + std::strerror(errno));
  } else {
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    const auto begin = std::chrono::steady_clock::now();
    for (std::size_t off = 0; off < bytes && out; off += kPiece) {
      out.write(reinterpret_cast<const char*>(data + off), static_cast<std::streamsize>(std::min(kPiece, bytes - off)));
      if (mbps_ > 0) {  // bandwidth cap: never run ahead of mbps
        auto due = begin + std::chrono::duration<double>((off + kPiece) / (mbps_ * 1e6));
        std::this_thread::sleep_until(due);
      }
    }
    out.flush();
    if (!out) status = internalError("writing " + tmp + " failed: " + std::strerror(errno));
    out.close();
    if (status.ok() && std::rename(tmp.c_str(), final_path.c_str()) != 0) {
      status = internalError("rename " + tmp + ": " + std::strerror(errno));
    }
  }
  if (status.ok()) {  // keep the two newest
    auto ids = list();
    for (std::size_t i = 2; i < ids.size(); ++i) std::filesystem::remove(path(ids[i]), ec);
  }
  std::lock_guard lock(mu_);
  last_error_ = status;
  busy_.reset();
  done_cv_.notify_all();
}

std::vector<int64_t> Flusher::list() const {
  std::vector<int64_t> ids;
  std::error_code ec;
  const std::string prefix = "r" + std::to_string(rank_) + "-c";
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + 6 ||
        name.substr(name.size() - 5) != ".ckpt") {
      continue;
    }
    ids.push_back(std::stoll(name.substr(prefix.size(), name.size() - 5 - prefix.size())));
  }
  std::sort(ids.rbegin(), ids.rend());
  return ids;
}

Result<FlushedBlob> Flusher::read(int64_t ckpt_id) const {
  const std::string p = path(ckpt_id);
  std::ifstream in(p, std::ios::binary);
  FlushHeader h;
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return notFound("cannot read " + p);
  if (h.magic != kFlushMagic || h.header_crc != crc32c(&h, offsetof(FlushHeader, header_crc)) ||
      h.ckpt_id != ckpt_id) {
    return invalidArgument(p + " has a bad header");
  }
  FlushedBlob blob;
  blob.ckpt_id = ckpt_id;
  blob.iteration = h.iteration;
  blob.blob.resize(h.bytes);
  if (!in.read(reinterpret_cast<char*>(blob.blob.data()), static_cast<std::streamsize>(h.bytes))) {
    return invalidArgument(p + " is truncated");
  }
  if (crc32c(blob.blob.data(), blob.blob.size()) != h.crc) return invalidArgument(p + " fails its checksum");
  return blob;
}

}  // namespace ftb::mpi_bridge
