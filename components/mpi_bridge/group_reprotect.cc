#include "components/mpi_bridge/group_reprotect.h"

#include <algorithm>
#include <optional>

#include "components/mpi_bridge/checksum.h"

namespace ftb::mpi_bridge {
namespace {

constexpr int kTagCopy = 1 << 21;  // whole copies; parity segments tag by codeword (< group size)

const std::vector<int>& myMembers(const Job& job) { return job.groups.members[job.groups.group_of[job.rank]]; }

}  // namespace

bool reprotectableInPlace(const RestorePlan& plan, const Job& job) {
  if (plan.from_flush || static_cast<int>(plan.group_of.size()) != job.size) return false;
  return std::equal(plan.group_of.begin(), plan.group_of.end(), job.groups.group_of.begin());
}

bool groupLostMembers(const RestorePlan& plan, const Job& job) {
  const auto& members = myMembers(job);
  return std::any_of(members.begin(), members.end(), [&](int r) { return !plan.present[r]; });
}

Result<PendingRewrite> GroupReprotector::begin(const Job& job, const RestorePlan& plan, std::optional<FoundFile> own,
                                               const std::vector<Protected>& buffers) {
  const auto& members = myMembers(job);
  const int g = static_cast<int>(members.size());
  const int pos = job.groups.position[job.rank];
  PendingRewrite p;
  p.lost.resize(g);
  for (int i = 0; i < g; ++i) p.lost[i] = !plan.present[members[i]];
  const MPI_Comm comm = job.group_comm;
  const std::string ckpt = "checkpoint " + std::to_string(plan.ckpt_id);

  // The group's meta as its files have it; a lost member builds its own.
  CkptMeta& meta = p.meta;
  if (own) {
    meta = own->meta;
  } else {
    const GroupCode code = groupCode(plan.level, g, plan.rs_m);
    meta.ckpt_id = plan.ckpt_id;
    meta.iteration = plan.iteration;
    meta.level = plan.level;
    meta.rank = job.rank;
    meta.rs_m = plan.rs_m;
    meta.group_of = plan.group_of;
    meta.k = code.k;
    meta.m = code.m;
  }

  // Every member's blob size and checksum as its data has them now: a lost
  // member's restored blob must be the one the others' parity was made of.
  p.bytes = own ? own->meta.sections[0].length : blobBytes(buffers);
  std::vector<uint64_t> bytes(g);
  if (int rc = MPI_Allgather(&p.bytes, 1, MPI_UINT64_T, bytes.data(), 1, MPI_UINT64_T, comm); rc != MPI_SUCCESS) {
    return mpiStatus(rc, "gathering the group's blob sizes");
  }
  Status local;
  if (own) {
    if (bytes != meta.blob_bytes) local = failedPrecondition("the group's blob sizes differ from " + ckpt + "'s");
  } else {
    meta.blob_bytes = bytes;
    const uint64_t max_bytes = *std::max_element(bytes.begin(), bytes.end());
    if (meta.k > 0) meta.seg_bytes = alignUp((max_bytes + meta.k - 1) / meta.k, kSectionAlign);
    p.layout = layOutSections(meta, job.size, pos, plan.level == Level::kL2 && g >= 2);
    auto created = ShmSegment::create(job.shmName(static_cast<int>(plan.ckpt_id % 2)), p.layout.total);
    if (created) {
      p.file.emplace(std::move(*created));
      meta.sections[0].crc = startFile(p.file->data(), meta, buffers);
    } else {
      local = created.status();
    }
  }
  uint32_t my_crc = meta.sections.empty() ? 0 : meta.sections[0].crc;
  std::vector<uint32_t> crcs(g);
  if (int rc = MPI_Allgather(&my_crc, 1, MPI_UINT32_T, crcs.data(), 1, MPI_UINT32_T, comm); rc != MPI_SUCCESS) {
    return mpiStatus(rc, "gathering the group's checksums");
  }
  if (own && local.ok() && crcs != meta.blob_crc) {
    local = failedPrecondition("the group's restored data differs from " + ckpt + "'s (checksums)");
  }
  if (!own) meta.blob_crc = crcs;
  if (!allAgree(local.ok(), comm)) {
    if (p.file) ShmSegment::remove(p.file->name());
    return local.ok() ? internalError("another member of the group could not rewrite its " + ckpt) : local;
  }
  p.own = std::move(own);
  return p;
}

Result<WriteReport> GroupReprotector::finish(const Job& job, PendingRewrite& p, MPI_Comm group_comm) {
  CkptMeta& meta = p.meta;
  const uint8_t* own_data = (p.own ? p.own->file.data() : p.file->data()) + meta.sections[0].offset;
  Status local = exchange(job, group_comm, meta, p.lost, own_data, p.file ? p.file->data() : nullptr);
  if (local.ok() && p.file) local = sealFile(meta, p.file->data(), p.layout);
  if (!allAgree(local.ok(), group_comm)) {
    if (p.file) ShmSegment::remove(p.file->name());
    return local.ok()
               ? internalError("checkpoint " + std::to_string(meta.ckpt_id) + " could not be rewritten elsewhere in the group")
               : local;
  }
  WriteReport report;
  report.bytes = p.bytes;
  if (p.file) {
    for (const auto& s : meta.sections) report.stored += s.length;
  }
  return report;
}

// A lost member's copy section (L2: its predecessor's blob; L3 in a group of
// two: its predecessor's data as parity) or its parity symbols, from the
// members that hold the data.
Status GroupReprotector::exchange(const Job& job, MPI_Comm comm, CkptMeta& meta, const std::vector<bool>& lost,
                                  const uint8_t* own_data, uint8_t* new_file) {
  const int g = static_cast<int>(lost.size());
  const int pos = job.groups.position[job.rank];
  const int pred = (pos + g - 1) % g, succ = (pos + 1) % g;
  const int k = meta.k, m = meta.m;
  const std::size_t seg = meta.seg_bytes;
  const bool l2 = meta.level == Level::kL2 && g >= 2;

  if (l2 || (meta.level == Level::kL3 && k == 1)) {
    const std::size_t send_bytes = !lost[succ] ? 0 : l2 ? meta.blob_bytes[pos] : seg;
    Section* in = new_file ? &meta.sections[1] : nullptr;
    int rc = MPI_SUCCESS;
    const uint32_t crc = exchangeChunked(own_data, send_bytes, succ, in ? new_file + in->offset : nullptr,
                                         in ? in->length : 0, pred, kTagCopy, comm, rc);
    if (rc != MPI_SUCCESS) return mpiStatus(rc, l2 ? "partner copy" : "parity exchange");
    if (!in) return {};
    in->crc = crc;
    if (l2 && crc != meta.blob_crc[pred]) {
      return internalError("the partner copy from rank " + std::to_string(myMembers(job)[pred]) +
                           " fails its checksum");
    }
    return {};
  }
  if (m == 0) return {};

  // Codeword c holds data symbol t (t < k) = segment t of member (c + t) % g
  // and parity symbol t (t >= k) on member (c + t) % g (group_encode.cc). My
  // segments go to every lost member holding parity of a codeword I am in.
  const std::size_t chunks = (seg + kPipelineChunk - 1) / kPipelineChunk;
  std::vector<MPI_Request> sends;
  for (int j = 0; j < g; ++j) {
    if (!lost[j] || j == pos) continue;
    for (int t = k; t < g; ++t) {
      const int c = (j - t + g) % g;
      const int u = (pos - c + g) % g;  // my symbol of codeword c
      if (u >= k) continue;
      for (std::size_t ci = 0; ci < chunks; ++ci) {
        const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
        sends.push_back(MPI_REQUEST_NULL);
        MPI_Isend(own_data + u * seg + off, static_cast<int>(len), MPI_BYTE, j, c, comm, &sends.back());
      }
    }
  }
  Status status;
  if (new_file) {
    ErasureCodec& codec = meta.level == Level::kL3 ? static_cast<ErasureCodec&>(xor_) : rs_;
    const int parities = static_cast<int>(meta.sections.size()) - 1;  // sections[1..]
    const std::size_t stage_bytes = static_cast<std::size_t>(parities) * k * kPipelineChunk;
    recv_.reserve(kStages * stage_bytes);
    std::vector<MPI_Request> stages[kStages];
    auto postReceives = [&](std::size_t ci) {
      const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
      auto& rq = stages[ci % kStages];
      rq.clear();
      for (int p = 0; p < parities; ++p) {
        const int c = meta.sections[1 + p].index;
        for (int t = 0; t < k; ++t) {
          uint8_t* dst = recv_.data() + (ci % kStages) * stage_bytes + (static_cast<std::size_t>(p) * k + t) * kPipelineChunk;
          rq.push_back(MPI_REQUEST_NULL);
          MPI_Irecv(dst, static_cast<int>(len), MPI_BYTE, (c + t) % g, c, comm, &rq.back());
        }
      }
    };
    std::vector<uint32_t> crc(parities, 0);
    for (std::size_t ci = 0; ci < std::min(kStages, chunks); ++ci) postReceives(ci);
    for (std::size_t ci = 0; ci < chunks; ++ci) {
      if (int rc = waitAll(stages[ci % kStages]); rc != MPI_SUCCESS) {
        status = mpiStatus(rc, "parity exchange");
        break;
      }
      const std::size_t off = ci * kPipelineChunk, len = std::min(kPipelineChunk, seg - off);
      const uint8_t* stage = recv_.data() + (ci % kStages) * stage_bytes;
      for (int p = 0; p < parities; ++p) {
        std::vector<const uint8_t*> data(k);
        for (int t = 0; t < k; ++t) data[t] = stage + (static_cast<std::size_t>(p) * k + t) * kPipelineChunk;
        const int c = meta.sections[1 + p].index;
        uint8_t* out = new_file + meta.sections[1 + p].offset + off;
        codec.encode(k, m, (pos - c + g) % g - k, len, data.data(), out);
        crc[p] = crc32c(out, len, crc[p]);
      }
      if (ci + kStages < chunks) postReceives(ci + kStages);
    }
    for (int p = 0; p < parities; ++p) meta.sections[1 + p].crc = crc[p];
  }
  if (int rc = waitAll(sends); rc != MPI_SUCCESS && status.ok()) status = mpiStatus(rc, "parity exchange");
  return status;
}

}  // namespace ftb::mpi_bridge
