// What a rank hands its node's encoder survives the trip, and a damaged
// hand-off is refused with a reason rather than encoded from.
#define BOOST_TEST_MODULE mpi_bridge_handoff
#include <boost/test/unit_test.hpp>

#include "components/mpi_bridge/node_encoder.h"

using namespace ftb::mpi_bridge;

namespace {

Handoff sample() {
  Handoff h;
  h.shm_name = "/ftbckpt-J1-n2-r6-s1";
  PendingWrite& p = h.write;
  p.meta.ckpt_id = 7;
  p.meta.iteration = 70;
  p.meta.level = Level::kL4;
  p.meta.rank = 6;
  p.meta.rs_m = 2;
  p.meta.group_of = {0, 0, 0, 0, 1, 1, 1, 1};
  p.meta.k = 2;
  p.meta.m = 2;
  p.meta.seg_bytes = 4096;
  p.meta.blob_bytes = {8000, 8000, 8000, 8000};
  p.meta.blob_crc = {1, 2, 3, 4};
  p.meta.sections = {{SectionKind::kOwn, 2, 8192, 8000, 99}, {SectionKind::kParity, 0, 16384, 4096, 0},
                     {SectionKind::kParity, 1, 20480, 4096, 0}};
  p.pos = 2;
  p.g = 4;
  p.pred_rank = 5;
  p.partner_out = true;
  p.code = {2, 2};
  p.meta_size = metaBytes(8, 4, 3);
  p.total = 24576;
  return h;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_checkpoint_hand_off_round_trips) {
  const Handoff in = sample();
  const auto bytes = encodeHandoff(in);
  auto out = decodeHandoff(bytes.data(), bytes.size());
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().message());
  BOOST_CHECK(out->kind == Handoff::kCheckpoint);
  BOOST_CHECK_EQUAL(out->shm_name, in.shm_name);
  const PendingWrite& p = out->write;
  BOOST_CHECK_EQUAL(p.pos, 2);
  BOOST_CHECK_EQUAL(p.g, 4);
  BOOST_CHECK_EQUAL(p.pred_rank, 5);
  BOOST_CHECK(p.partner_out);
  BOOST_CHECK(!p.partner_in);
  BOOST_CHECK_EQUAL(p.code.k, 2);
  BOOST_CHECK_EQUAL(p.code.m, 2);
  BOOST_CHECK_EQUAL(p.meta_size, in.write.meta_size);
  BOOST_CHECK_EQUAL(p.total, 24576u);
  BOOST_CHECK(p.file == nullptr);
  BOOST_CHECK(encodeMeta(p.meta) == encodeMeta(in.write.meta));
}

BOOST_AUTO_TEST_CASE(a_finish_carries_no_checkpoint) {
  Handoff in;
  in.kind = Handoff::kFinish;
  const auto bytes = encodeHandoff(in);
  auto out = decodeHandoff(bytes.data(), bytes.size());
  BOOST_REQUIRE(out.ok());
  BOOST_CHECK(out->kind == Handoff::kFinish);
}

BOOST_AUTO_TEST_CASE(a_damaged_hand_off_is_refused_with_a_reason) {
  auto bytes = encodeHandoff(sample());
  auto cut = decodeHandoff(bytes.data(), bytes.size() - 1);
  BOOST_REQUIRE(!cut.ok());
  BOOST_CHECK(cut.status().message().find("truncated") != std::string::npos ||
              cut.status().message().find("hand-off") != std::string::npos);
  auto unknown = bytes;
  unknown[0] = 9;  // the kind
  auto bad = decodeHandoff(unknown.data(), unknown.size());
  BOOST_REQUIRE(!bad.ok());
  BOOST_CHECK(bad.status().message().find("unknown kind 9") != std::string::npos);
  Handoff off_group = sample();
  off_group.write.pos = 4;  // outside a group of 4
  auto encoded = encodeHandoff(off_group);
  auto outside = decodeHandoff(encoded.data(), encoded.size());
  BOOST_REQUIRE(!outside.ok());
  BOOST_CHECK(outside.status().message().find("no valid group position") != std::string::npos);
}
