#include "components/mpi_bridge/group_encode.h"

#include <cstring>
#include <vector>

#include "components/mpi_bridge/checksum.h"
#include "components/mpi_bridge/job.h"

namespace ftb::mpi_bridge {
namespace {

constexpr int kTagCopy = 1 << 20;  // whole-blob copies; parity exchanges tag by codeword (< group size)

}  // namespace

// Phase 2: the group exchange on `comm`, then the meta and the complete mark.
Status GroupEncoder::complete(PendingWrite& p, MPI_Comm comm) {
  CkptMeta& meta = p.meta;
  uint8_t* file = p.file;
  const int g = p.g, pos = p.pos, pred = (pos + g - 1) % g;
  const GroupCode code = p.code;
  const Section& own = meta.sections[0];
  const uint64_t my_bytes = own.length;
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
      status = internalError("the partner copy from rank " + std::to_string(p.pred_rank) + " fails its checksum");
    }
  }
  if (code.m > 0 && status.ok()) status = encodeParity(meta, file, pos, g, comm);
  if (!status.ok()) return status;
  return sealFile(meta, file, {p.meta_size, p.total});
}

// Codeword c holds data symbol t (t < k) = segment t of member (c + t) % g and
// parity symbol t (t >= k) on member (c + t) % g: every member stores k data
// segments and m parity symbols, and the g symbols of a codeword sit on g
// distinct members (distinct nodes). Chunks are pipelined: the transfers of
// the next chunks run while one is encoded.
Status GroupEncoder::encodeParity(CkptMeta& meta, uint8_t* file, int pos, int g, MPI_Comm comm) {
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
        rq.push_back(MPI_REQUEST_NULL);
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
          send_reqs.push_back(MPI_REQUEST_NULL);
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
