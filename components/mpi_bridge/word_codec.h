// Records of 64-bit words in host byte order, with length-prefixed byte
// blobs: the checkpoint meta (ckpt_format) and the node encoder's hand-off.
// Both are read only on the machine that wrote them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ftb::mpi_bridge {

class WordWriter {
 public:
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void blob(const std::vector<uint8_t>& b) {
    u64(b.size());
    raw(b.data(), b.size());
  }
  std::vector<uint8_t> out;

 private:
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
};

// Every read fails (false) rather than run past the end.
class WordReader {
 public:
  WordReader(const uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  bool u64(uint64_t* v) {
    if (n_ - pos_ < sizeof *v) return false;
    std::memcpy(v, p_ + pos_, sizeof *v);
    pos_ += sizeof *v;
    return true;
  }
  bool blob(std::vector<uint8_t>& b) {
    uint64_t size = 0;
    if (!u64(&size) || size > n_ - pos_) return false;
    b.assign(p_ + pos_, p_ + pos_ + size);
    pos_ += size;
    return true;
  }
  bool done() const { return pos_ == n_; }

 private:
  const uint8_t* p_;
  std::size_t n_;
  std::size_t pos_ = 0;
};

}  // namespace ftb::mpi_bridge
