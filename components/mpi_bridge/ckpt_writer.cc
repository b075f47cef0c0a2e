#include "components/mpi_bridge/ckpt_writer.h"

#include <atomic>
#include <cstring>
#include <future>

#include "components/mpi_bridge/checksum.h"
#include "components/mpi_bridge/ulfm_recovery.h"

namespace ftb::mpi_bridge {
namespace {

constexpr int kTagCopy = 1 << 20;  // whole-blob copies; parity exchanges tag by codeword (< group size)

}  // namespace

const ShmSegment* CheckpointWriter::slot(int64_t ckpt_id) const {
  const auto& s = slots_[ckpt_id % 2];
  return s ? &*s : nullptr;
}

void CheckpointWriter::removeAll() {
  for (int s = 0; s < 2; ++s) {
    slots_[s].reset();
    ShmSegment::remove(job_.shmName(s));
  }
}

Result<WriteReport> CheckpointWriter::write(int64_t ckpt_id, int64_t iteration, Level level,
                                            const std::vector<Protected>& buffers, const std::string& leaving_node) {
  if (auto s = finishPending(); !s.ok()) return s;
  auto pending = prepare(ckpt_id, iteration, level, buffers, leaving_node);
  if (!pending) return pending.status();
  const bool exchange = level == Level::kL2 || pending->code.m > 0;
  if (async_comm_ != MPI_COMM_NULL && exchange) {
    // L1 is done; the group exchange and the agreement run on their own
    // communicators so the application's MPI calls can go on meanwhile.
    WriteReport report = pending->report;
    report.pending = true;
    pending_id_ = ckpt_id;
    pending_result_ = std::async(std::launch::async, [this, p = std::move(*pending)]() mutable {
      Status local = complete(p, async_group_comm_);
      bool ok = allAgree(local.ok(), async_comm_);
      if (!ok && local.ok()) local = internalError("checkpoint failed on another rank");
      return local;
    });
    return report;
  }
  Status local = complete(*pending, job_.group_comm);
  if (!allAgree(local.ok(), job_.comm)) {
    if (!local.ok()) return local;
    return internalError("checkpoint " + std::to_string(ckpt_id) + " failed on another rank");
  }
  return pending->report;
}

Status CheckpointWriter::finishPending() {
  if (!pending_result_.valid()) return {};
  Status s = pending_result_.get();
  if (!s.ok()) {
    return Status(s.code(), "asynchronous checkpoint " + std::to_string(pending_id_) + ": " + s.message());
  }
  return s;
}

void CheckpointWriter::enableAsync() {
  MPI_Comm_dup(job_.comm, &async_comm_);
  MPI_Comm_dup(job_.group_comm, &async_group_comm_);
  UlfmRecovery::revokeWith(async_comm_);
  UlfmRecovery::revokeWith(async_group_comm_);
}

Result<PendingWrite> CheckpointWriter::prepare(int64_t ckpt_id, int64_t iteration, Level level,
                                               const std::vector<Protected>& buffers, const std::string& leaving_node) {
  const auto& members = job_.groups.members[job_.groups.group_of[job_.rank]];
  const int g = static_cast<int>(members.size());
  const int pos = job_.groups.position[job_.rank];
  const bool partner = level == Level::kL2 && g >= 2;
  auto copied = [&](int position) {  // does this member's blob get a partner copy?
    return partner && (leaving_node.empty() || job_.node_of_rank[members[position]] == leaving_node);
  };
  const bool partner_in = copied((pos + g - 1) % g);
  const GroupCode code = groupCode(level, g, job_.config.rs_m);

  PendingWrite p;
  CkptMeta& meta = p.meta;
  meta.ckpt_id = ckpt_id;
  meta.iteration = iteration;
  meta.level = level;
  meta.rank = job_.rank;
  meta.rs_m = job_.config.rs_m;
  meta.group_of = job_.groups.group_of;
  meta.k = code.k;
  meta.m = code.m;

  // Blob sizes of the group decide the symbol size.
  uint64_t my_bytes = blobBytes(buffers);
  meta.blob_bytes.resize(g);
  std::vector<MPI_Request> gather(1);
  MPI_Iallgather(&my_bytes, 1, MPI_UINT64_T, meta.blob_bytes.data(), 1, MPI_UINT64_T, job_.group_comm, gather.data());
  if (int rc = waitAll(gather); rc != MPI_SUCCESS) return mpiStatus(rc, "gathering the group's blob sizes");
  uint64_t max_bytes = 0;
  for (auto b : meta.blob_bytes) max_bytes = std::max(max_bytes, b);
  std::size_t own_area = my_bytes;
  if (code.k > 0) {
    meta.seg_bytes = alignUp((max_bytes + code.k - 1) / code.k, kSectionAlign);
    own_area = meta.seg_bytes * code.k;
  }

  // Section layout.
  std::size_t section_count = 1 + (partner_in ? 1 : 0) + code.m;
  std::size_t meta_size = metaBytes(job_.size, g, section_count);
  std::size_t off = alignUp(sizeof(FileHeader) + meta_size, kMetaAlign);
  meta.sections.push_back({SectionKind::kOwn, pos, off, my_bytes, 0});
  off = alignUp(off + own_area, kSectionAlign);
  const int pred = (pos + g - 1) % g;
  if (partner_in) {
    meta.sections.push_back({SectionKind::kPartner, pred, off, meta.blob_bytes[pred], 0});
    off = alignUp(off + meta.blob_bytes[pred], kSectionAlign);
  }
  for (int t = code.k; code.m > 0 && t < g; ++t) {  // I hold parity symbol t of codeword pos - t
    int c = (pos - t + g) % g;
    meta.sections.push_back({SectionKind::kParity, c, off, meta.seg_bytes, 0});
    off = alignUp(off + meta.seg_bytes, kSectionAlign);
  }
  const std::size_t total = off;

  // The slot this id uses; resized only when the layout grew or shrank.
  auto& slot = slots_[ckpt_id % 2];
  Status local;
  if (!slot || slot->size() != total) {
    slot.reset();
    auto created = ShmSegment::create(job_.shmName(static_cast<int>(ckpt_id % 2)), total);
    if (created) {
      slot.emplace(std::move(*created));
    } else {
      local = created.status();
    }
  }
  // Every rank must have its file before the group exchanges data.
  if (!allAgree(local.ok(), job_.comm)) {
    if (!local.ok()) return local;
    return internalError("another rank could not create its shared memory");
  }
  p.file = slot->data();
  p.pos = pos;
  p.g = g;
  p.partner_out = copied(pos);
  p.partner_in = partner_in;
  p.code = code;
  p.meta_size = meta_size;
  p.total = total;
  uint8_t* file = slot->data();
  FileHeader header;
  header.state = kStateWriting;
  std::memcpy(file, &header, sizeof header);
  std::atomic_thread_fence(std::memory_order_release);

  // L1: the blob, zero-padded to the symbol area.
  Section& own = meta.sections[0];
  own.crc = writeBlob(buffers, file + own.offset);
  std::memset(file + own.offset + my_bytes, 0, own_area - my_bytes);
  meta.blob_crc.resize(g);
  MPI_Iallgather(&own.crc, 1, MPI_UINT32_T, meta.blob_crc.data(), 1, MPI_UINT32_T, job_.group_comm, gather.data());
  if (int rc = waitAll(gather); rc != MPI_SUCCESS) return mpiStatus(rc, "gathering the group's checksums");

  p.report.bytes = my_bytes;
  p.report.stored = my_bytes;
  for (std::size_t i = 1; i < meta.sections.size(); ++i) p.report.stored += meta.sections[i].length;
  p.report.blob = file + own.offset;
  p.report.blob_crc = own.crc;
  return p;
}

// Phase 2: the group exchange on `comm`, then the meta and the complete mark.
Status CheckpointWriter::complete(PendingWrite& p, MPI_Comm comm) {
  CkptMeta& meta = p.meta;
  uint8_t* file = p.file;
  const int g = p.g, pos = p.pos, pred = (pos + g - 1) % g;
  const GroupCode code = p.code;
  const Section& own = meta.sections[0];
  const uint64_t my_bytes = own.length;
  const auto& members = job_.groups.members[job_.groups.group_of[job_.rank]];
  FileHeader header;
  Status status;
  if (p.partner_out || p.partner_in) {  // L2: my blob goes to my successor, my predecessor's comes to me
    uint8_t* copy_data = nullptr;
    uint64_t copy_bytes = 0;
    if (p.partner_in) {
      copy_data = file + meta.sections[1].offset;
      copy_bytes = meta.sections[1].length;
    }
    const int succ = (pos + 1) % g;
    int rc = MPI_SUCCESS;
    const uint32_t crc = exchangeChunked(file + own.offset, p.partner_out ? my_bytes : 0, succ, copy_data, copy_bytes,
                                         pred, kTagCopy, comm, rc);
    if (p.partner_in) meta.sections[1].crc = crc;
    status = mpiStatus(rc, "partner copy");
    if (status.ok() && p.partner_in && crc != meta.blob_crc[pred]) {
      status = internalError("the partner copy from rank " + std::to_string(members[pred]) + " fails its checksum");
    }
  }
  if (code.m > 0 && status.ok()) status = encodeParity(meta, file, pos, g, comm);
  if (!status.ok()) return status;

  // Meta last, then the complete mark.
  auto meta_bytes = encodeMeta(meta);
  if (meta_bytes.size() != p.meta_size) {
    return internalError("checkpoint meta is " + std::to_string(meta_bytes.size()) + " bytes, " +
                         std::to_string(p.meta_size) + " reserved (a bug)");
  }
  std::memcpy(file + sizeof header, meta_bytes.data(), meta_bytes.size());
  header.meta_bytes = meta_bytes.size();
  header.meta_crc = crc32c(meta_bytes.data(), meta_bytes.size());
  header.total_bytes = p.total;
  std::memcpy(file, &header, sizeof header);
  std::atomic_thread_fence(std::memory_order_release);
  reinterpret_cast<FileHeader*>(file)->state = kStateComplete;

  return {};
}

// Codeword c holds data symbol t (t < k) = segment t of member (c + t) % g and
// parity symbol t (t >= k) on member (c + t) % g: every member stores k data
// segments and m parity symbols, and the g symbols of a codeword sit on g
// distinct members (distinct nodes). Chunks are pipelined: the transfers of
// the next chunks run while one is encoded.
Status CheckpointWriter::encodeParity(CkptMeta& meta, uint8_t* file, int pos, int g, MPI_Comm comm) {
  const int k = meta.k, m = meta.m;
  const std::size_t seg = meta.seg_bytes;
  const uint8_t* own = file + meta.sections[0].offset;
  if (meta.level == Level::kL3 && k == 1) {
    // A group of two: my parity is my predecessor's data, received in place.
    Section& parity = meta.sections[1];
    int rc = MPI_SUCCESS;
    parity.crc = exchangeChunked(own, seg, (pos + 1) % g, file + parity.offset, seg, parity.index, kTagCopy, comm, rc);
    return mpiStatus(rc, "parity exchange");
  }
  ErasureCodec& codec = meta.level == Level::kL3 ? static_cast<ErasureCodec&>(xor_) : rs_;
  // Parity codewords in section order (sections[1..m]).
  std::vector<int> mine;
  for (std::size_t i = 1; i < meta.sections.size(); ++i) mine.push_back(meta.sections[i].index);
  const std::size_t chunks = (seg + kPipelineChunk - 1) / kPipelineChunk;
  const std::size_t stage_bytes = static_cast<std::size_t>(m) * k * kPipelineChunk;
  recv_.reserve(kStages * stage_bytes);
  std::vector<MPI_Request> recv_reqs[kStages];
  std::vector<MPI_Request> send_reqs;
  std::vector<uint32_t> parity_crc(m, 0);
  // One tag per codeword: MPI keeps the order of messages with the same
  // source and tag, so chunk ci of a segment matches receive ci.
  auto postReceives = [&](std::size_t ci) {
    auto& rq = recv_reqs[ci % kStages];
    const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
    rq.clear();
    for (int p = 0; p < m; ++p) {  // the k data chunks of each codeword I hold parity of
      int c = mine[p];
      for (int t = 0; t < k; ++t) {
        uint8_t* dst = recv_.data() + (ci % kStages) * stage_bytes + (static_cast<std::size_t>(p) * k + t) * kPipelineChunk;
        rq.emplace_back();
        MPI_Irecv(dst, static_cast<int>(len), MPI_BYTE, (c + t) % g, c, comm, &rq.back());
      }
    }
  };
  std::size_t sent = 0;  // chunks whose sends are posted
  auto postSendsUpTo = [&](std::size_t end) {
    for (; sent < std::min(end, chunks); ++sent) {
      const std::size_t off = sent * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
      for (int t = 0; t < k; ++t) {  // my segment t goes to the parity holders of codeword pos - t
        int c = (pos - t + g) % g;
        for (int u = k; u < g; ++u) {
          send_reqs.emplace_back();
          MPI_Isend(own + t * seg + off, static_cast<int>(len), MPI_BYTE, (c + u) % g, c, comm, &send_reqs.back());
        }
      }
    }
  };

  postSendsUpTo(kSendsAhead);
  for (std::size_t ci = 0; ci < std::min(kStages, chunks); ++ci) postReceives(ci);
  for (std::size_t ci = 0; ci < chunks; ++ci) {
    postSendsUpTo(ci + kSendsAhead);
    int rc = waitAll(recv_reqs[ci % kStages]);
    if (rc != MPI_SUCCESS) return mpiStatus(rc, "parity exchange");
    const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
    const uint8_t* stage = recv_.data() + (ci % kStages) * stage_bytes;
    for (int p = 0; p < m; ++p) {
      std::vector<const uint8_t*> data(k);
      for (int t = 0; t < k; ++t) data[t] = stage + (static_cast<std::size_t>(p) * k + t) * kPipelineChunk;
      const int index = (pos - mine[p] + g) % g - k;  // which parity symbol of codeword mine[p] I hold
      uint8_t* out = file + meta.sections[1 + p].offset + off;
      codec.encode(k, m, index, len, data.data(), out);
      parity_crc[p] = crc32c(out, len, parity_crc[p]);  // while the chunk is in cache
    }
    if (ci + kStages < chunks) postReceives(ci + kStages);  // into the stage just encoded
  }
  if (int rc = waitAll(send_reqs); rc != MPI_SUCCESS) return mpiStatus(rc, "parity exchange");
  for (int p = 0; p < m; ++p) meta.sections[1 + p].crc = parity_crc[p];
  return {};
}

}  // namespace ftb::mpi_bridge
