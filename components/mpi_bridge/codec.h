// Erasure codes over equal-sized symbols: a codeword is k data symbols followed
// by m parity symbols. XOR (m = 1) for L3, Reed-Solomon with ISA-L for L4.
// Not thread-safe (codecs cache their tables); one per runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "client/status.h"

namespace ftb::mpi_bridge {

class ErasureCodec {
 public:
  virtual ~ErasureCodec() = default;
  // Parity symbol `index` (< m) of the k data symbols; `len` bytes each.
  virtual void encode(int k, int m, int index, std::size_t len, const uint8_t* const* data, uint8_t* out) = 0;
  // symbols: k + m pointers in codeword order, nullptr where lost. Rebuilds
  // data symbol `want` (< k) into `out`; kFailedPrecondition if fewer than k survive.
  virtual Status rebuild(int k, int m, std::size_t len, const uint8_t* const* symbols, int want, uint8_t* out) = 0;
};

// Parity is the XOR of the data symbols; m must be 1.
class XorCodec : public ErasureCodec {
 public:
  void encode(int k, int m, int index, std::size_t len, const uint8_t* const* data, uint8_t* out) override;
  Status rebuild(int k, int m, std::size_t len, const uint8_t* const* symbols, int want, uint8_t* out) override;
};

// Systematic Reed-Solomon over GF(2^8) with a Cauchy matrix (ISA-L).
class RsCodec : public ErasureCodec {
 public:
  void encode(int k, int m, int index, std::size_t len, const uint8_t* const* data, uint8_t* out) override;
  Status rebuild(int k, int m, std::size_t len, const uint8_t* const* symbols, int want, uint8_t* out) override;

 private:
  const std::vector<uint8_t>& matrix(int k, int m);
  std::map<std::pair<int, int>, std::vector<uint8_t>> matrices_;       // (k,m) -> (k+m) x k
  std::map<std::tuple<int, int, int>, std::vector<uint8_t>> encode_tables_;  // (k,m,index) -> ec tables
};

}  // namespace ftb::mpi_bridge
