// DeterminantStore: determinants in node shared memory, read back as a
// replacement on the same node would (determinant_store.h).
#define BOOST_TEST_MODULE determinant_store_test
#include "components/mpi_bridge/determinant_store.h"

#include <unistd.h>

#include <boost/test/unit_test.hpp>

using ftb::Code;
using ftb::mpi_bridge::Determinant;
using ftb::mpi_bridge::DeterminantStore;
using ftb::mpi_bridge::ShmSegment;

namespace {

// A name of this test process's own, removed when the fixture goes.
struct Named {
  std::string name = "/ftbckpt-dettest-" + std::to_string(getpid()) + "-det";
  ~Named() { ShmSegment::remove(name); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(what_was_appended_is_read_back_in_order) {
  Named n;
  {
    auto store = DeterminantStore::create(n.name, 4096);
    BOOST_REQUIRE(store.ok());
    store->startEpoch(7);
    BOOST_TEST(store->append({Determinant::Kind::kMatch, {3, -1}, {}}));
    BOOST_TEST(store->append({Determinant::Kind::kCompletion, {}, {0, 2, 5}}));
    BOOST_TEST(store->append({Determinant::Kind::kCompletion, {}, {}}));
  }  // the writer is gone, as a killed process is
  auto stored = DeterminantStore::read(n.name);
  BOOST_REQUIRE(stored.ok());
  BOOST_TEST(stored->line == 7);
  BOOST_REQUIRE(stored->determinants.size() == 3u);
  BOOST_TEST((stored->determinants[0].kind == Determinant::Kind::kMatch));
  BOOST_TEST(stored->determinants[0].channel.peer == 3);
  BOOST_TEST(stored->determinants[0].channel.tag == -1);
  BOOST_TEST((stored->determinants[1].indices == std::vector<int>{0, 2, 5}));
  BOOST_TEST(stored->determinants[2].indices.empty());
}

BOOST_AUTO_TEST_CASE(a_new_epoch_starts_empty) {
  Named n;
  auto store = DeterminantStore::create(n.name, 4096);
  BOOST_REQUIRE(store.ok());
  store->append({Determinant::Kind::kMatch, {1, 1}, {}});
  store->startEpoch(8);
  auto stored = DeterminantStore::read(n.name);
  BOOST_REQUIRE(stored.ok());
  BOOST_TEST(stored->line == 8);
  BOOST_TEST(stored->determinants.empty());
}

BOOST_AUTO_TEST_CASE(a_full_store_refuses_and_keeps_what_it_had) {
  Named n;
  auto store = DeterminantStore::create(n.name, 40);  // two match records of 16 bytes
  BOOST_REQUIRE(store.ok());
  BOOST_TEST(store->append({Determinant::Kind::kMatch, {1, 1}, {}}));
  BOOST_TEST(store->append({Determinant::Kind::kMatch, {2, 1}, {}}));
  BOOST_TEST(!store->append({Determinant::Kind::kMatch, {3, 1}, {}}));
  auto stored = DeterminantStore::read(n.name);
  BOOST_REQUIRE(stored.ok());
  BOOST_TEST(stored->determinants.size() == 2u);
}

BOOST_AUTO_TEST_CASE(nothing_stored_is_not_found_and_another_segment_is_refused) {
  Named n;
  BOOST_TEST((DeterminantStore::read(n.name).status().code() == Code::kNotFound));
  auto other = ShmSegment::create(n.name, 64);  // zeros: no magic
  BOOST_REQUIRE(other.ok());
  BOOST_TEST((DeterminantStore::read(n.name).status().code() == Code::kInvalidArgument));
}
