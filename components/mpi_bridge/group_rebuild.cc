#include "components/mpi_bridge/group_rebuild.h"

#include <algorithm>
#include <string>

#include "components/mpi_bridge/job.h"

namespace ftb::mpi_bridge {
namespace {

constexpr int kTagHead = 99;
constexpr int kTagSymbols = 100;  // + the lost member's segment index
constexpr int kTagDecoded = 300;  // + the lost member's segment index

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

// Who decodes each of lost member j's k data segments (segment t is data
// symbol t of codeword (j - t) mod g): a survivor that holds one of the
// symbols it is rebuilt from, the least loaded first, so the decoding is
// shared by the group instead of falling on j alone. Same answer on every member.
struct RebuildPlan {
  std::vector<std::vector<int>> sources;  // per segment: codeword indexes of its k source symbols
  std::vector<int> decoder;               // per segment: group position of its decoder
};

Result<RebuildPlan> planRebuild(int j, GroupCode code, const std::vector<bool>& present) {
  const int g = static_cast<int>(present.size());
  RebuildPlan plan;
  plan.sources.resize(code.k);
  plan.decoder.resize(code.k);
  std::vector<int> load(g, 0);
  for (int t = 0; t < code.k; ++t) {
    const int c = (j - t + g) % g;
    plan.sources[t] = sourcesOf(c, t, code, present);
    if (static_cast<int>(plan.sources[t].size()) < code.k) {
      return failedPrecondition("only " + std::to_string(plan.sources[t].size()) + " of the " +
                                std::to_string(code.k) + " symbols needed survive");
    }
    int best = -1;
    for (int u : plan.sources[t]) {
      const int holder = (c + u) % g;
      if (best < 0 || load[holder] < load[best]) best = holder;
    }
    plan.decoder[t] = best;
    ++load[best];
  }
  return plan;
}

// This member's symbol `u` of codeword `c` in its checkpoint file.
Result<const uint8_t*> symbolOf(const uint8_t* file, const CkptMeta& meta, int c, int u, GroupCode code) {
  if (u < code.k) return file + meta.sections[0].offset + u * meta.seg_bytes;
  for (const auto& s : meta.sections) {
    if (s.kind == SectionKind::kParity && s.index == c) return file + s.offset;
  }
  return internalError("no parity section for codeword " + std::to_string(c) + " (a bug)");
}

// A survivor's part in rebuilding lost member `j`, chunk by chunk: it sends
// its source symbols to the segments' decoders, and for the segments it
// decodes itself, gathers the other sources, decodes, and sends the result to j.
Status serveRebuild(const uint8_t* file, const CkptMeta& meta, int pos, int j, GroupCode code,
                    const std::vector<bool>& present, const RebuildPlan& plan, ErasureCodec& codec, MPI_Comm comm) {
  const int g = static_cast<int>(present.size());
  const int k = code.k;
  const std::size_t seg = meta.seg_bytes;
  struct Outgoing {
    const uint8_t* data;
    int to, tag;
  };
  struct Decode {
    int t;
    std::vector<const uint8_t*> own;  // per source: our own symbol, or nullptr (received into a stage)
    std::vector<int> from;             // per source: its holder
  };
  std::vector<Outgoing> outgoing;
  std::vector<Decode> decodes;
  for (int t = 0; t < k; ++t) {
    const int c = (j - t + g) % g;
    Decode d{t, std::vector<const uint8_t*>(k, nullptr), std::vector<int>(k, -1)};
    for (int s = 0; s < k; ++s) {
      const int u = plan.sources[t][s];
      const int holder = (c + u) % g;
      d.from[s] = holder;
      if (holder != pos) continue;
      auto data = symbolOf(file, meta, c, u, code);
      if (!data.ok()) return data.status();
      if (plan.decoder[t] == pos) {
        d.own[s] = *data;
      } else {
        outgoing.push_back({*data, plan.decoder[t], kTagSymbols + t});
      }
    }
    if (plan.decoder[t] == pos) decodes.push_back(std::move(d));
  }
  const std::size_t chunks = (seg + kPipelineChunk - 1) / kPipelineChunk;
  const std::size_t per_stage = decodes.size() * kPipelineChunk;
  AlignedBuffer stages(decodes.size() * static_cast<std::size_t>(k) * kPipelineChunk + 1);
  // Decoded chunks wait in kStages slots for j to take them, so decoding runs ahead.
  AlignedBuffer decoded(kStages * per_stage + 1);
  auto stage = [&](std::size_t d, int s) {
    return stages.data() + (d * static_cast<std::size_t>(k) + static_cast<std::size_t>(s)) * kPipelineChunk;
  };
  std::vector<MPI_Request> sends, recvs, results[kStages];
  for (std::size_t ci = 0; ci < chunks; ++ci) {
    const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
    const int n = static_cast<int>(len);
    recvs.clear();
    for (std::size_t d = 0; d < decodes.size(); ++d) {
      for (int s = 0; s < k; ++s) {
        if (decodes[d].own[s]) continue;
        recvs.push_back(MPI_REQUEST_NULL);
        MPI_Irecv(stage(d, s), n, MPI_BYTE, decodes[d].from[s], kTagSymbols + decodes[d].t, comm, &recvs.back());
      }
    }
    for (const auto& o : outgoing) {
      sends.push_back(MPI_REQUEST_NULL);
      MPI_Isend(o.data + off, n, MPI_BYTE, o.to, o.tag, comm, &sends.back());
    }
    if (int rc = waitAll(recvs); rc != MPI_SUCCESS) return mpiStatus(rc, "receiving symbols to decode");
    auto& slot_results = results[ci % kStages];
    if (int rc = waitAll(slot_results); rc != MPI_SUCCESS) return mpiStatus(rc, "sending decoded data");
    slot_results.clear();
    for (std::size_t d = 0; d < decodes.size(); ++d) {
      const int t = decodes[d].t;
      const uint8_t* result = nullptr;
      if (k == 1 && decodes[d].own[0]) {
        result = decodes[d].own[0] + off;  // a pair's XOR: the survivor's own copy is the data
      } else {
        std::vector<const uint8_t*> symbols(g, nullptr);
        for (int s = 0; s < k; ++s) {
          symbols[plan.sources[t][s]] = decodes[d].own[s] ? decodes[d].own[s] + off : stage(d, s);
        }
        uint8_t* out = decoded.data() + (ci % kStages) * per_stage + d * kPipelineChunk;
        if (auto st = codec.rebuild(k, code.m, len, symbols.data(), t, out); !st.ok()) return st;
        result = out;
      }
      slot_results.push_back(MPI_REQUEST_NULL);
      MPI_Isend(result, n, MPI_BYTE, j, kTagDecoded + t, comm, &slot_results.back());
    }
    if ((ci + 1) % kSendsAhead == 0) {
      if (int rc = waitAll(sends); rc != MPI_SUCCESS) return mpiStatus(rc, "sending symbols for a rebuild");
      sends.clear();
    }
  }
  for (auto& r : results) {
    if (int rc = waitAll(r); rc != MPI_SUCCESS) return mpiStatus(rc, "sending decoded data");
  }
  if (int rc = waitAll(sends); rc != MPI_SUCCESS) return mpiStatus(rc, "sending symbols for a rebuild");
  return {};
}

// The lost member receives its k data segments, decoded by the survivors,
// straight into place, up to kStages chunks ahead.
Status receiveDecoded(RebuiltBlob& out, std::size_t seg, GroupCode code, const RebuildPlan& plan,
                      MPI_Comm comm) {
  const std::size_t chunks = (seg + kPipelineChunk - 1) / kPipelineChunk;
  std::vector<MPI_Request> reqs[kStages];
  auto post = [&](std::size_t ci) {
    const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
    auto& rq = reqs[ci % kStages];
    rq.clear();
    for (int t = 0; t < code.k; ++t) {
      rq.push_back(MPI_REQUEST_NULL);
      MPI_Irecv(out.data.data() + t * seg + off, static_cast<int>(len), MPI_BYTE, plan.decoder[t], kTagDecoded + t,
                comm, &rq.back());
    }
  };
  for (std::size_t ci = 0; ci < std::min(kStages, chunks); ++ci) post(ci);
  for (std::size_t ci = 0; ci < chunks; ++ci) {
    if (int rc = waitAll(reqs[ci % kStages]); rc != MPI_SUCCESS) return mpiStatus(rc, "receiving decoded data");
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
    auto plan = planRebuild(j, code, present);
    if (!plan.ok()) return plan.status();
    if (pos == j) {
      // seg, k, m, then the blob size and checksum the group recorded for me.
      uint64_t head[5];
      std::vector<MPI_Request> rq(1, MPI_REQUEST_NULL);
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
      if (auto s = receiveDecoded(*mine, head[0], code, *plan, comm); !s.ok()) return s;
    } else if (meta) {
      if (pos == first) {
        uint64_t head[5] = {meta->seg_bytes, static_cast<uint64_t>(meta->k), static_cast<uint64_t>(meta->m),
                            meta->blob_bytes[j], meta->blob_crc[j]};
        std::vector<MPI_Request> rq(1, MPI_REQUEST_NULL);
        MPI_Isend(head, 5, MPI_UINT64_T, j, kTagHead, comm, rq.data());
        if (int rc = waitAll(rq); rc != MPI_SUCCESS) return mpiStatus(rc, "sending the rebuild header");
      }
      if (auto s = serveRebuild(file, *meta, pos, j, code, present, *plan, codec, comm); !s.ok()) return s;
    }
  }
  return mine;
}

}  // namespace ftb::mpi_bridge
