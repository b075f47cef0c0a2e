// The layout of one rank's checkpoint in its node's shared memory:
//   [FileHeader][meta, padded to 4 KiB][sections, each 64-byte aligned]
// The own section holds the rank's blob (its protected buffers, see blob.h),
// zero-padded to the group's symbol size; a partner section holds the blob of
// the previous group member (L2); parity sections hold one codeword's parity
// symbol each (L3/L4). `state` is set to kComplete last, so a file caught
// half-written by a crash is never taken for a checkpoint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/blob.h"
#include "components/mpi_bridge/config.h"

namespace ftb::mpi_bridge {

inline constexpr uint64_t kFileMagic = 0x3154504b43425446ull;  // "FTBCKPT1"
inline constexpr uint32_t kStateWriting = 0;
inline constexpr uint32_t kStateComplete = 1;
inline constexpr std::size_t kMetaAlign = 4096;
inline constexpr std::size_t kSectionAlign = 64;

struct FileHeader {
  uint64_t magic = kFileMagic;
  uint32_t state = kStateWriting;
  uint32_t meta_crc = 0;
  uint64_t meta_bytes = 0;
  uint64_t total_bytes = 0;
};

enum class SectionKind : uint32_t { kOwn = 1, kPartner = 2, kParity = 3 };

struct Section {
  SectionKind kind = SectionKind::kOwn;
  int32_t index = 0;  // kPartner: owner's group position; kParity: codeword
  uint64_t offset = 0;
  uint64_t length = 0;
  uint32_t crc = 0;
};

// What a rank's file says about its checkpoint and its group.
struct CkptMeta {
  int64_t ckpt_id = 0;
  int64_t iteration = 0;
  Level level = Level::kL1;
  int32_t rank = 0;
  int32_t rs_m = 0;                 // configured m of L4 at checkpoint time
  std::vector<int32_t> group_of;    // world rank -> group (the layout of this checkpoint)
  int32_t k = 0, m = 0;             // this group's code (0 when none)
  uint64_t seg_bytes = 0;           // symbol size (L3/L4)
  std::vector<uint64_t> blob_bytes;  // per group position
  std::vector<uint32_t> blob_crc;    // per group position
  std::vector<Section> sections;
};

std::vector<uint8_t> encodeMeta(const CkptMeta& meta);
Result<CkptMeta> decodeMeta(const uint8_t* data, std::size_t bytes);

// Bytes encodeMeta produces for these counts (fixed before the checkpoint is written).
std::size_t metaBytes(std::size_t world, std::size_t group, std::size_t sections);

inline std::size_t alignUp(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

// Code (k data + m parity symbols per codeword) a group of `group_size` uses at `level`.
struct GroupCode {
  int k = 0;
  int m = 0;
};
GroupCode groupCode(Level level, int group_size, int rs_m);

// Where a member's sections lie in its file, after the header and the meta:
// its own blob (zero-padded to the group's k symbols), its predecessor's blob
// if `partner_in` (L2), then one parity symbol per codeword it holds parity of
// (L3/L4). Needs meta.k, meta.m, meta.seg_bytes and meta.blob_bytes (one per
// group position); fills meta.sections (checksums 0).
struct FileLayout {
  std::size_t meta_size = 0;  // bytes reserved for the meta
  std::size_t total = 0;      // the file's size
};
FileLayout layOutSections(CkptMeta& meta, std::size_t world, int pos, bool partner_in);

// A file's first writes: the header marked as being written, then the
// member's blob into its own section (meta.sections[0]), zero-padded to the
// symbol area. Returns the blob's CRC32C.
uint32_t startFile(uint8_t* file, const CkptMeta& meta, const std::vector<Protected>& buffers);

// A file's last writes: the meta, then the complete mark.
Status sealFile(const CkptMeta& meta, uint8_t* file, const FileLayout& layout);

// Checks the header, the meta's checksum and that every section lies within
// the file: what a file claims to hold, without reading its sections.
Result<CkptMeta> readMeta(const uint8_t* data, std::size_t size);

// Checks every section's checksum against `meta` (from readMeta of the same file).
Status verifySections(const uint8_t* data, const CkptMeta& meta);

}  // namespace ftb::mpi_bridge
