#include "components/mpi_bridge/ckpt_format.h"

#include <atomic>
#include <cstring>

#include "components/mpi_bridge/checksum.h"
#include "components/mpi_bridge/word_codec.h"

namespace ftb::mpi_bridge {

std::size_t metaBytes(std::size_t world, std::size_t group, std::size_t sections) {
  return 8 * (9 + world + 2 * group + 5 * sections);
}

std::vector<uint8_t> encodeMeta(const CkptMeta& m) {
  WordWriter w;
  w.u64(m.ckpt_id);
  w.u64(m.iteration);
  w.u64(static_cast<uint64_t>(m.level));
  w.u64(m.rank);
  w.u64(m.rs_m);
  w.u64(m.group_of.size());
  for (int32_t g : m.group_of) w.u64(g);
  w.u64((static_cast<uint64_t>(m.k) << 32) | static_cast<uint32_t>(m.m));
  w.u64(m.seg_bytes);
  w.u64(m.blob_bytes.size() | (m.sections.size() << 32));
  for (std::size_t i = 0; i < m.blob_bytes.size(); ++i) {
    w.u64(m.blob_bytes[i]);
    w.u64(m.blob_crc[i]);
  }
  for (const auto& s : m.sections) {
    w.u64(static_cast<uint64_t>(s.kind));
    w.u64(static_cast<uint64_t>(static_cast<int64_t>(s.index)));
    w.u64(s.offset);
    w.u64(s.length);
    w.u64(s.crc);
  }
  return w.out;
}

Result<CkptMeta> decodeMeta(const uint8_t* data, std::size_t bytes) {
  WordReader r(data, bytes);
  CkptMeta m;
  uint64_t v[6];
  auto bad = [] { return Result<CkptMeta>(invalidArgument("checkpoint meta is truncated")); };
  for (auto& x : v) {
    if (!r.u64(&x)) return bad();
  }
  m.ckpt_id = static_cast<int64_t>(v[0]);
  m.iteration = static_cast<int64_t>(v[1]);
  if (v[2] < 1 || v[2] > 5) return invalidArgument("checkpoint meta names level " + std::to_string(v[2]));
  m.level = static_cast<Level>(v[2]);
  m.rank = static_cast<int32_t>(v[3]);
  m.rs_m = static_cast<int32_t>(v[4]);
  if (v[5] > bytes / 8) return bad();
  m.group_of.resize(v[5]);
  for (auto& g : m.group_of) {
    uint64_t x;
    if (!r.u64(&x)) return bad();
    g = static_cast<int32_t>(x);
  }
  uint64_t km, counts;
  if (!r.u64(&km) || !r.u64(&m.seg_bytes) || !r.u64(&counts)) return bad();
  m.k = static_cast<int32_t>(km >> 32);
  m.m = static_cast<int32_t>(km & 0xffffffffu);
  std::size_t members = counts & 0xffffffffu, sections = counts >> 32;
  if (members > bytes / 16 || sections > bytes / 40) return bad();
  m.blob_bytes.resize(members);
  m.blob_crc.resize(members);
  for (std::size_t i = 0; i < members; ++i) {
    uint64_t crc;
    if (!r.u64(&m.blob_bytes[i]) || !r.u64(&crc)) return bad();
    m.blob_crc[i] = static_cast<uint32_t>(crc);
  }
  m.sections.resize(sections);
  for (auto& s : m.sections) {
    uint64_t kind, index, crc;
    if (!r.u64(&kind) || !r.u64(&index) || !r.u64(&s.offset) || !r.u64(&s.length) || !r.u64(&crc)) return bad();
    s.kind = static_cast<SectionKind>(kind);
    s.index = static_cast<int32_t>(static_cast<int64_t>(index));
    s.crc = static_cast<uint32_t>(crc);
  }
  return m;
}

GroupCode groupCode(Level level, int group_size, int rs_m) {
  if (group_size < 2) return {};
  if (level == Level::kL3) return {group_size - 1, 1};
  if (level == Level::kL4) {
    int m = std::min(rs_m, group_size - 1);
    return {group_size - m, m};
  }
  return {};
}

namespace {

std::size_t ownArea(const CkptMeta& meta, int pos) {
  return meta.k > 0 ? meta.seg_bytes * meta.k : meta.blob_bytes[pos];
}

}  // namespace

FileLayout layOutSections(CkptMeta& meta, std::size_t world, int pos, bool partner_in) {
  const int g = static_cast<int>(meta.blob_bytes.size());
  FileLayout layout;
  layout.meta_size = metaBytes(world, g, 1 + (partner_in ? 1 : 0) + meta.m);
  meta.sections.clear();
  std::size_t off = alignUp(sizeof(FileHeader) + layout.meta_size, kMetaAlign);
  meta.sections.push_back({SectionKind::kOwn, pos, off, meta.blob_bytes[pos], 0});
  off = alignUp(off + ownArea(meta, pos), kSectionAlign);
  if (partner_in) {
    const int pred = (pos + g - 1) % g;
    meta.sections.push_back({SectionKind::kPartner, pred, off, meta.blob_bytes[pred], 0});
    off = alignUp(off + meta.blob_bytes[pred], kSectionAlign);
  }
  for (int t = meta.k; meta.m > 0 && t < g; ++t) {  // I hold parity symbol t of codeword pos - t
    const int c = (pos - t + g) % g;
    meta.sections.push_back({SectionKind::kParity, c, off, meta.seg_bytes, 0});
    off = alignUp(off + meta.seg_bytes, kSectionAlign);
  }
  layout.total = off;
  return layout;
}

uint32_t startFile(uint8_t* file, const CkptMeta& meta, const std::vector<Protected>& buffers) {
  FileHeader header;
  header.state = kStateWriting;
  std::memcpy(file, &header, sizeof header);
  std::atomic_thread_fence(std::memory_order_release);
  const Section& own = meta.sections[0];
  const uint32_t crc = writeBlob(buffers, file + own.offset);
  std::memset(file + own.offset + own.length, 0, ownArea(meta, own.index) - own.length);
  return crc;
}

Status sealFile(const CkptMeta& meta, uint8_t* file, const FileLayout& layout) {
  auto meta_bytes = encodeMeta(meta);
  if (meta_bytes.size() != layout.meta_size) {
    return internalError("checkpoint meta is " + std::to_string(meta_bytes.size()) + " bytes, " +
                         std::to_string(layout.meta_size) + " reserved (a bug)");
  }
  FileHeader header;
  std::memcpy(file + sizeof header, meta_bytes.data(), meta_bytes.size());
  header.meta_bytes = meta_bytes.size();
  header.meta_crc = crc32c(meta_bytes.data(), meta_bytes.size());
  header.total_bytes = layout.total;
  std::memcpy(file, &header, sizeof header);
  std::atomic_thread_fence(std::memory_order_release);
  reinterpret_cast<FileHeader*>(file)->state = kStateComplete;
  return {};
}

Result<CkptMeta> readMeta(const uint8_t* data, std::size_t size) {
  FileHeader h;
  if (size < sizeof h) return invalidArgument("file too short for a header");
  std::memcpy(&h, data, sizeof h);
  if (h.magic != kFileMagic) return invalidArgument("not a checkpoint file (bad magic)");
  if (h.state != kStateComplete) return failedPrecondition("checkpoint was not completed (writer died?)");
  if (h.total_bytes > size || sizeof h + h.meta_bytes > size) return invalidArgument("checkpoint file is truncated");
  const uint8_t* meta_bytes = data + sizeof h;
  if (crc32c(meta_bytes, h.meta_bytes) != h.meta_crc) return invalidArgument("checkpoint meta fails its checksum");
  auto meta = decodeMeta(meta_bytes, h.meta_bytes);
  if (!meta) return meta.status();
  for (const auto& s : meta->sections) {
    if (s.offset + s.length > size) return invalidArgument("a section lies beyond the end of the file");
  }
  return meta;
}

Status verifySections(const uint8_t* data, const CkptMeta& meta) {
  for (const auto& s : meta.sections) {
    uint32_t crc = crc32c(data + s.offset, s.length);
    if (crc != s.crc) {
      return invalidArgument("section " + std::to_string(static_cast<int>(s.kind)) + "/" + std::to_string(s.index) +
                             " fails its checksum (stored " + std::to_string(s.crc) + ", computed " +
                             std::to_string(crc) + ")");
    }
  }
  return {};
}

}  // namespace ftb::mpi_bridge
