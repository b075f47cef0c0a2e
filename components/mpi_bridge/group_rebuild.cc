#include "components/mpi_bridge/group_rebuild.h"

#include <algorithm>
#include <string>

#include "components/mpi_bridge/job.h"

namespace ftb::mpi_bridge {
namespace {

constexpr int kTagHead = 99;
constexpr int kTagSymbols = 100;  // + the lost member's segment index

// The symbols of codeword `c` that rebuild data symbol `want`: the first k
// whose holders survived, as codeword indexes (holder = (c + u) % g).
std::vector<int> sourcesOf(int c, int want, GroupCode code, const std::vector<bool>& present) {
  const int g = static_cast<int>(present.size());
  std::vector<int> sources;
  for (int u = 0; u < g && static_cast<int>(sources.size()) < code.k; ++u) {
    if (u != want && present[(c + u) % g]) sources.push_back(u);
  }
  return sources;
}

// A survivor streams the symbols lost member `j` needs from it.
Status sendSymbols(const uint8_t* file, const CkptMeta& meta, int pos, int j, GroupCode code,
                   const std::vector<bool>& present, MPI_Comm comm) {
  const int g = static_cast<int>(present.size());
  const std::size_t seg = meta.seg_bytes;
  struct Stream {
    const uint8_t* data;
    int tag;
  };
  std::vector<Stream> streams;
  for (int t = 0; t < code.k; ++t) {
    const int c = (j - t + g) % g;
    for (int u : sourcesOf(c, t, code, present)) {
      if ((c + u) % g != pos) continue;
      const uint8_t* data = nullptr;
      if (u < code.k) {
        data = file + meta.sections[0].offset + u * seg;
      } else {
        for (const auto& s : meta.sections) {
          if (s.kind == SectionKind::kParity && s.index == c) data = file + s.offset;
        }
      }
      if (!data) return internalError("no parity section for codeword " + std::to_string(c) + " (a bug)");
      streams.push_back({data, kTagSymbols + t});
    }
  }
  const std::size_t chunks = (seg + kPipelineChunk - 1) / kPipelineChunk;
  std::vector<MPI_Request> window;
  for (std::size_t ci = 0; ci < chunks; ++ci) {
    const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
    for (const auto& s : streams) {
      window.emplace_back();
      MPI_Isend(s.data + off, static_cast<int>(len), MPI_BYTE, j, s.tag, comm, &window.back());
    }
    if ((ci + 1) % kSendsAhead == 0 || ci + 1 == chunks) {
      if (int rc = waitAll(window); rc != MPI_SUCCESS) return mpiStatus(rc, "sending symbols for a rebuild");
      window.clear();
    }
  }
  return {};
}

// Lost member `pos` receives its codewords' surviving symbols chunk by chunk
// and decodes its k data segments.
Status receiveAndDecode(RebuiltBlob& out, std::size_t seg, int pos, GroupCode code, const std::vector<bool>& present,
                        ErasureCodec& codec, MPI_Comm comm) {
  const int g = static_cast<int>(present.size());
  const int k = code.k;
  std::vector<std::vector<int>> sources(k);
  for (int t = 0; t < k; ++t) sources[t] = sourcesOf((pos - t + g) % g, t, code, present);
  for (int t = 0; t < k; ++t) {
    if (static_cast<int>(sources[t].size()) < k) {
      return failedPrecondition("only " + std::to_string(sources[t].size()) + " of the " + std::to_string(k) +
                                " symbols needed survive");
    }
  }
  const std::size_t chunks = (seg + kPipelineChunk - 1) / kPipelineChunk;
  const std::size_t stage_bytes = static_cast<std::size_t>(k) * k * kPipelineChunk;
  AlignedBuffer stages(kStages * stage_bytes);
  auto slot = [&](std::size_t ci, int t, int s) {
    return stages.data() + (ci % kStages) * stage_bytes + (static_cast<std::size_t>(t) * k + s) * kPipelineChunk;
  };
  std::vector<MPI_Request> reqs[kStages];
  auto post = [&](std::size_t ci) {
    const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
    auto& rq = reqs[ci % kStages];
    rq.clear();
    for (int t = 0; t < k; ++t) {
      const int c = (pos - t + g) % g;
      for (int s = 0; s < k; ++s) {
        rq.emplace_back();
        MPI_Irecv(slot(ci, t, s), static_cast<int>(len), MPI_BYTE, (c + sources[t][s]) % g, kTagSymbols + t, comm,
                  &rq.back());
      }
    }
  };
  for (std::size_t ci = 0; ci < std::min(kStages, chunks); ++ci) post(ci);
  for (std::size_t ci = 0; ci < chunks; ++ci) {
    if (int rc = waitAll(reqs[ci % kStages]); rc != MPI_SUCCESS) return mpiStatus(rc, "receiving symbols");
    const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
    for (int t = 0; t < k; ++t) {
      std::vector<const uint8_t*> symbols(g, nullptr);
      for (int s = 0; s < k; ++s) symbols[sources[t][s]] = slot(ci, t, s);
      if (auto st = codec.rebuild(k, code.m, len, symbols.data(), t, out.data.data() + t * seg + off); !st.ok()) {
        return st;
      }
    }
    if (ci + kStages < chunks) post(ci + kStages);
  }
  return {};
}

}  // namespace

Result<std::optional<RebuiltBlob>> rebuildLostMembers(const uint8_t* file, const CkptMeta* meta,
                                                      const std::vector<bool>& present, GroupCode code,
                                                      ErasureCodec& codec, MPI_Comm comm) {
  int pos = 0;
  MPI_Comm_rank(comm, &pos);
  const int g = static_cast<int>(present.size());
  const int first = static_cast<int>(std::find(present.begin(), present.end(), true) - present.begin());
  std::optional<RebuiltBlob> mine;
  for (int j = 0; j < g; ++j) {
    if (present[j]) continue;
    if (pos == j) {
      // seg, k, m, then the blob size and checksum the group recorded for me.
      uint64_t head[5];
      std::vector<MPI_Request> rq(1);
      MPI_Irecv(head, 5, MPI_UINT64_T, first, kTagHead, comm, rq.data());
      if (int rc = waitAll(rq); rc != MPI_SUCCESS) return mpiStatus(rc, "receiving the rebuild header");
      if (static_cast<int>(head[1]) != code.k || static_cast<int>(head[2]) != code.m) {
        return internalError("group member " + std::to_string(first) + " used a different code (k=" +
                             std::to_string(head[1]) + ", m=" + std::to_string(head[2]) + ")");
      }
      mine.emplace();
      mine->data.reserve(head[0] * code.k);
      mine->bytes = head[3];
      mine->crc = static_cast<uint32_t>(head[4]);
      if (auto s = receiveAndDecode(*mine, head[0], pos, code, present, codec, comm); !s.ok()) return s;
    } else if (meta) {
      if (pos == first) {
        uint64_t head[5] = {meta->seg_bytes, static_cast<uint64_t>(meta->k), static_cast<uint64_t>(meta->m),
                            meta->blob_bytes[j], meta->blob_crc[j]};
        std::vector<MPI_Request> rq(1);
        MPI_Isend(head, 5, MPI_UINT64_T, j, kTagHead, comm, rq.data());
        if (int rc = waitAll(rq); rc != MPI_SUCCESS) return mpiStatus(rc, "sending the rebuild header");
      }
      if (auto s = sendSymbols(file, *meta, pos, j, code, present, comm); !s.ok()) return s;
    }
  }
  return mine;
}

}  // namespace ftb::mpi_bridge
