#define BOOST_TEST_MODULE mpi_bridge_ckpt_format
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstring>

#include "components/mpi_bridge/blob.h"
#include "components/mpi_bridge/checksum.h"
#include "components/mpi_bridge/ckpt_format.h"

using namespace ftb::mpi_bridge;

namespace {

CkptMeta sampleMeta() {
  CkptMeta m;
  m.ckpt_id = 7;
  m.iteration = 1234;
  m.level = Level::kL4;
  m.rank = 3;
  m.rs_m = 2;
  m.group_of = {0, 1, 0, 1, 0, 1};
  m.k = 1;
  m.m = 2;
  m.seg_bytes = 128;
  m.blob_bytes = {100, 120, 90};
  m.blob_crc = {1, 2, 3};
  return m;
}

// A complete file with one own section of `bytes` bytes.
std::vector<uint8_t> makeFile(std::size_t bytes) {
  CkptMeta m = sampleMeta();
  std::vector<uint8_t> file(kMetaAlign + bytes);
  for (std::size_t i = 0; i < bytes; ++i) file[kMetaAlign + i] = static_cast<uint8_t>(i * 7);
  m.sections.push_back({SectionKind::kOwn, 1, kMetaAlign, bytes, crc32c(&file[kMetaAlign], bytes)});
  auto meta = encodeMeta(m);
  FileHeader h;
  h.state = kStateComplete;
  h.meta_bytes = meta.size();
  h.meta_crc = crc32c(meta.data(), meta.size());
  h.total_bytes = file.size();
  std::memcpy(file.data(), &h, sizeof h);
  std::memcpy(file.data() + sizeof h, meta.data(), meta.size());
  return file;
}

}  // namespace

BOOST_AUTO_TEST_CASE(meta_round_trips) {
  CkptMeta m = sampleMeta();
  m.sections.push_back({SectionKind::kParity, -1, 4096, 128, 99});
  auto bytes = encodeMeta(m);
  BOOST_CHECK_EQUAL(bytes.size(), metaBytes(m.group_of.size(), m.blob_bytes.size(), m.sections.size()));
  auto back = decodeMeta(bytes.data(), bytes.size());
  BOOST_REQUIRE(back.ok());
  BOOST_CHECK_EQUAL(back->ckpt_id, 7);
  BOOST_CHECK_EQUAL(back->iteration, 1234);
  BOOST_CHECK(back->level == Level::kL4);
  BOOST_CHECK(back->group_of == m.group_of);
  BOOST_CHECK_EQUAL(back->m, 2);
  BOOST_CHECK(back->blob_bytes == m.blob_bytes);
  BOOST_REQUIRE_EQUAL(back->sections.size(), 1u);
  BOOST_CHECK_EQUAL(back->sections[0].index, -1);
  BOOST_CHECK_EQUAL(back->sections[0].crc, 99u);
  BOOST_CHECK(!decodeMeta(bytes.data(), bytes.size() - 8).ok());
}

BOOST_AUTO_TEST_CASE(a_complete_file_verifies) {
  auto file = makeFile(1000);
  auto meta = readMeta(file.data(), file.size());
  BOOST_REQUIRE_MESSAGE(meta.ok(), meta.status().toString());
  BOOST_CHECK_EQUAL(meta->rank, 3);
  BOOST_CHECK(verifySections(file.data(), *meta).ok());
}

// readMeta does not read the sections: their checksums are verifySections'.
BOOST_AUTO_TEST_CASE(a_flipped_data_byte_fails_the_checksum) {
  auto file = makeFile(1000);
  file[kMetaAlign + 500] ^= 1;
  auto meta = readMeta(file.data(), file.size());
  BOOST_REQUIRE_MESSAGE(meta.ok(), meta.status().toString());
  ftb::Status sections = verifySections(file.data(), *meta);
  BOOST_REQUIRE(!sections.ok());
  BOOST_CHECK(sections.message().find("fails its checksum") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_half_written_file_is_not_a_checkpoint) {
  auto file = makeFile(1000);
  reinterpret_cast<FileHeader*>(file.data())->state = kStateWriting;
  BOOST_CHECK(!readMeta(file.data(), file.size()).ok());
  auto truncated = makeFile(1000);
  BOOST_CHECK(!readMeta(truncated.data(), 100).ok());
}

BOOST_AUTO_TEST_CASE(blobs_round_trip_and_check_the_registration) {
  std::vector<double> a = {1.5, 2.5, 3.5};
  std::vector<int> b = {7, 8};
  std::vector<Protected> bufs = {{0, a.data(), a.size() * sizeof(double)}, {4, b.data(), b.size() * sizeof(int)}};
  std::vector<uint8_t> blob(blobBytes(bufs));
  uint32_t crc = writeBlob(bufs, blob.data());
  BOOST_CHECK_EQUAL(crc, crc32c(blob.data(), blob.size()));
  a = {0, 0, 0};
  b = {0, 0};
  BOOST_REQUIRE(readBlob(blob.data(), blob.size(), bufs).ok());
  BOOST_CHECK_EQUAL(a[2], 3.5);
  BOOST_CHECK_EQUAL(b[1], 8);
  std::vector<Protected> other = {{0, a.data(), a.size() * sizeof(double)}, {5, b.data(), b.size() * sizeof(int)}};
  auto s = readBlob(blob.data(), blob.size(), other);
  BOOST_CHECK(!s.ok());
  BOOST_CHECK(s.message().find("id 4") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(copy_with_crc_equals_crc_of_the_copy) {
  std::vector<uint8_t> src(3 << 20), dst(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 31 + (i >> 12));
  uint32_t crc = copyWithCrc(dst.data(), src.data(), src.size());
  BOOST_CHECK(dst == src);
  BOOST_CHECK_EQUAL(crc, crc32c(src.data(), src.size()));
  BOOST_CHECK_EQUAL(crc32c(src.data(), 1000, crc32c(src.data() + 1000, 0)), crc32c(src.data(), 1000));
}

BOOST_AUTO_TEST_CASE(copy_with_crc_handles_every_alignment_and_tail) {
  std::vector<uint8_t> src((1 << 20) + 200), dst(src.size() + 64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + (i >> 9));
  for (std::size_t src_off : {0, 1, 7}) {
    for (std::size_t dst_off : {0, 3, 16}) {
      for (std::size_t n : {std::size_t{100}, std::size_t{4096 + 13}, (std::size_t{1} << 20) + 77}) {
        std::fill(dst.begin(), dst.end(), 0xAB);
        uint32_t crc = copyWithCrc(dst.data() + dst_off, src.data() + src_off, n);
        BOOST_TEST_CONTEXT("src+" << src_off << " dst+" << dst_off << " n=" << n) {
          BOOST_CHECK(std::equal(src.begin() + src_off, src.begin() + src_off + n, dst.begin() + dst_off));
          BOOST_CHECK_EQUAL(dst[dst_off + n], 0xAB);  // nothing written past the end
          BOOST_CHECK_EQUAL(crc, crc32c(src.data() + src_off, n));
        }
      }
    }
  }
}
