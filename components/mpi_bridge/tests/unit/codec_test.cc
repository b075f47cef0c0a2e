#define BOOST_TEST_MODULE mpi_bridge_codec
#include <boost/test/unit_test.hpp>

#include <random>

#include "components/mpi_bridge/codec.h"

using ftb::mpi_bridge::ErasureCodec;
using ftb::mpi_bridge::RsCodec;
using ftb::mpi_bridge::XorCodec;

namespace {

// Encodes k random symbols, loses every combination of `lost` symbols, rebuilds each lost data symbol.
void roundTrip(ErasureCodec& codec, int k, int m, int lost) {
  const std::size_t len = 4096 + 64;
  std::mt19937 rng(k * 100 + m);
  std::vector<std::vector<uint8_t>> sym(k + m, std::vector<uint8_t>(len));
  for (int i = 0; i < k; ++i) {
    for (auto& b : sym[i]) b = static_cast<uint8_t>(rng());
  }
  std::vector<const uint8_t*> data;
  for (int i = 0; i < k; ++i) data.push_back(sym[i].data());
  for (int p = 0; p < m; ++p) codec.encode(k, m, p, len, data.data(), sym[k + p].data());
  const int n = k + m;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) != lost) continue;
    std::vector<const uint8_t*> view(n);
    for (int i = 0; i < n; ++i) view[i] = (mask >> i & 1) ? nullptr : sym[i].data();
    for (int want = 0; want < k; ++want) {
      if (!(mask >> want & 1)) continue;
      std::vector<uint8_t> out(len);
      auto s = codec.rebuild(k, m, len, view.data(), want, out.data());
      BOOST_TEST_INFO("k=" << k << " m=" << m << " lost mask=" << mask << " want=" << want);
      if (lost <= m) {
        BOOST_REQUIRE(s.ok());
        BOOST_CHECK(out == sym[want]);
      } else {
        BOOST_CHECK(!s.ok());
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(xor_rebuilds_any_one_lost_symbol) {
  XorCodec x;
  for (int k = 1; k <= 5; ++k) roundTrip(x, k, 1, 1);
}

BOOST_AUTO_TEST_CASE(xor_refuses_two_lost_symbols) {
  XorCodec x;
  roundTrip(x, 3, 1, 2);
}

BOOST_AUTO_TEST_CASE(reed_solomon_rebuilds_any_m_lost_symbols) {
  RsCodec rs;
  for (int k = 1; k <= 6; ++k) {
    for (int m = 1; m <= 3; ++m) {
      for (int lost = 1; lost <= m; ++lost) roundTrip(rs, k, m, lost);
    }
  }
}

BOOST_AUTO_TEST_CASE(reed_solomon_refuses_more_than_m_lost) {
  RsCodec rs;
  roundTrip(rs, 4, 2, 3);
}
