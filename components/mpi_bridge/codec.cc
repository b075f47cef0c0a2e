#include "components/mpi_bridge/codec.h"

#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>

#include <cstring>

namespace ftb::mpi_bridge {
namespace {

void xorInto(uint8_t* out, const uint8_t* in, std::size_t len) {
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, out + i, 8);
    std::memcpy(&b, in + i, 8);
    a ^= b;
    std::memcpy(out + i, &a, 8);
  }
  for (; i < len; ++i) out[i] ^= in[i];
}

// out = XOR of sources: ISA-L's xor_gen when the buffers suit it (32-byte
// aligned, at least two sources, int length), else a plain loop.
void xorOf(const std::vector<const uint8_t*>& sources, std::size_t len, uint8_t* out) {
  bool aligned = len % 32 == 0 && len < (1u << 30) && reinterpret_cast<uintptr_t>(out) % 32 == 0;
  for (const uint8_t* s : sources) aligned = aligned && reinterpret_cast<uintptr_t>(s) % 32 == 0;
  if (sources.size() >= 2 && aligned) {
    std::vector<void*> array;  // xor_gen only reads the sources
    for (const uint8_t* src : sources) array.push_back(const_cast<uint8_t*>(src));
    array.push_back(out);
    if (xor_gen(static_cast<int>(array.size()), static_cast<int>(len), array.data()) == 0) return;
  }
  std::memcpy(out, sources[0], len);
  for (std::size_t i = 1; i < sources.size(); ++i) xorInto(out, sources[i], len);
}

}  // namespace

void XorCodec::encode(int k, int, int, std::size_t len, const uint8_t* const* data, uint8_t* out) {
  xorOf(std::vector<const uint8_t*>(data, data + k), len, out);
}

Status XorCodec::rebuild(int k, int m, std::size_t len, const uint8_t* const* symbols, int want, uint8_t* out) {
  std::vector<const uint8_t*> sources;
  for (int i = 0; i < k + m; ++i) {
    if (i == want) continue;
    if (!symbols[i]) return failedPrecondition("XOR cannot rebuild: symbol " + std::to_string(i) + " is lost too");
    sources.push_back(symbols[i]);
  }
  xorOf(sources, len, out);
  return {};
}

const std::vector<uint8_t>& RsCodec::matrix(int k, int m) {
  auto& a = matrices_[{k, m}];
  if (a.empty()) {
    a.resize((k + m) * k);
    gf_gen_cauchy1_matrix(a.data(), k + m, k);
  }
  return a;
}

void RsCodec::encode(int k, int m, int index, std::size_t len, const uint8_t* const* data, uint8_t* out) {
  auto& tables = encode_tables_[{k, m, index}];
  if (tables.empty()) {
    tables.resize(32 * k);
    ec_init_tables(k, 1, const_cast<uint8_t*>(&matrix(k, m)[(k + index) * k]), tables.data());
  }
  uint8_t* outs[1] = {out};
  ec_encode_data(static_cast<int>(len), k, 1, tables.data(), const_cast<uint8_t**>(data), outs);
}

Status RsCodec::rebuild(int k, int m, std::size_t len, const uint8_t* const* symbols, int want, uint8_t* out) {
  const auto& a = matrix(k, m);
  std::vector<uint8_t> b(k * k), inverse(k * k);
  std::vector<const uint8_t*> sources;
  for (int i = 0; i < k + m && static_cast<int>(sources.size()) < k; ++i) {
    if (!symbols[i]) continue;
    std::memcpy(&b[sources.size() * k], &a[i * k], k);
    sources.push_back(symbols[i]);
  }
  if (static_cast<int>(sources.size()) < k) {
    return failedPrecondition("Reed-Solomon cannot rebuild: only " + std::to_string(sources.size()) + " of " +
                              std::to_string(k + m) + " symbols survive, " + std::to_string(k) + " needed");
  }
  if (gf_invert_matrix(b.data(), inverse.data(), k) != 0) return internalError("singular Reed-Solomon matrix");
  std::vector<uint8_t> tables(32 * k);
  ec_init_tables(k, 1, &inverse[want * k], tables.data());
  uint8_t* outs[1] = {out};
  ec_encode_data(static_cast<int>(len), k, 1, tables.data(), const_cast<uint8_t**>(sources.data()), outs);
  return {};
}

}  // namespace ftb::mpi_bridge
