#include "components/mpi_bridge/ckpt_restore.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "components/mpi_bridge/checkpoint_memory.h"
#include "components/mpi_bridge/checksum.h"
#include "components/mpi_bridge/group_rebuild.h"
#include "components/mpi_bridge/placement.h"
#include "components/mpi_bridge/ulfm_recovery.h"

namespace ftb::mpi_bridge {
namespace {

constexpr int kTagRebuild = 11;


std::vector<int64_t> gatherIds(const std::vector<int64_t>& mine, MPI_Comm comm, int size) {
  std::vector<int64_t> all(mine.size() * size);
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, all.data(), static_cast<int>(mine.size()),
                MPI_INT64_T, comm);
  return all;
}

}  // namespace

void CheckpointRestorer::scan() {
  for (int s = 0; s < 2; ++s) {
    auto file = ShmSegment::open(job_.shmName(s));
    if (!file) {
      if (file.status().code() != Code::kNotFound) problems_.push_back(file.status().message());
      continue;
    }
    any_file_ = true;
    auto meta = readMeta(file->data(), file->size());
    if (!meta) {
      problems_.push_back(job_.shmName(s) + ": " + meta.status().message());
      continue;
    }
    if (meta->rank != job_.rank || static_cast<int>(meta->group_of.size()) != job_.size) {
      problems_.push_back(job_.shmName(s) + ": written by rank " + std::to_string(meta->rank) + " of " +
                          std::to_string(meta->group_of.size()) + ", not this job's layout");
      continue;
    }
    found_.push_back({std::move(*file), std::move(*meta)});
  }
}

bool CheckpointRestorer::groupRestorable(const RestorePlan& plan, const std::vector<int>& members) const {
  const int g = static_cast<int>(members.size());
  std::vector<int> lost;
  for (int p = 0; p < g; ++p) {
    if (!plan.present[members[p]]) lost.push_back(p);
  }
  if (lost.empty()) return true;
  if (plan.level == Level::kL2 && g >= 2) {
    return std::all_of(lost.begin(), lost.end(), [&](int p) { return plan.holds_copy[members[(p + 1) % g]]; });
  }
  GroupCode code = groupCode(plan.level, g, plan.rs_m);
  return code.m >= static_cast<int>(lost.size());
}

RestorePlan CheckpointRestorer::plan() {
  scan();
  // The scan read headers and metas only. Only the file of the checkpoint a
  // plan picks is checksummed (the other slot is never read); when one fails,
  // its rank drops it and every rank plans again without it.
  for (;;) {
    RestorePlan plan = agreeOnPlan();
    if (!plan.available || plan.from_flush) return plan;
    int corrupt = dropIfCorrupt(plan.ckpt_id) ? 1 : 0;
    // A failed collective (a rank died: run-through) ends the loop; the restore meets the failure.
    if (MPI_Allreduce(MPI_IN_PLACE, &corrupt, 1, MPI_INT, MPI_MAX, job_.comm) != MPI_SUCCESS || !corrupt) return plan;
  }
}

bool CheckpointRestorer::dropIfCorrupt(int64_t ckpt_id) {
  for (auto f = found_.begin(); f != found_.end(); ++f) {
    if (f->meta.ckpt_id != ckpt_id || f->verified) continue;
    if (Status s = verifySections(f->file.data(), f->meta); !s.ok()) {
      problems_.push_back(f->file.name() + ": " + s.message());
      found_.erase(f);
      return true;
    }
    f->verified = true;
  }
  return false;
}

RestorePlan CheckpointRestorer::agreeOnPlan() {
  RestorePlan plan;
  std::vector<int64_t> mine = {-1, -1};
  for (std::size_t i = 0; i < found_.size(); ++i) mine[i] = found_[i].meta.ckpt_id;
  auto all = gatherIds(mine, job_.comm, job_.size);
  std::vector<int64_t> flushed = {-1, -1};
  if (flusher_) {
    auto ids = flusher_->list();
    for (std::size_t i = 0; i < ids.size() && i < 2; ++i) flushed[i] = ids[i];
  }
  int any = (any_file_ || flushed[0] >= 0) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, job_.comm);
  plan.any_data = any != 0;
  if (!plan.any_data) return plan;

  std::set<int64_t, std::greater<>> candidates(all.begin(), all.end());
  candidates.erase(-1);
  for (int64_t c : candidates) {
    plan.present.assign(job_.size, 0);
    int root = -1;
    for (int r = 0; r < job_.size; ++r) {
      plan.present[r] = all[2 * r] == c || all[2 * r + 1] == c;
      if (plan.present[r] && root < 0) root = r;
    }
    // The layout of checkpoint c, from the lowest rank that holds it.
    std::vector<int64_t> head(4 + job_.size);
    if (job_.rank == root) {
      const auto& meta = (found_[0].meta.ckpt_id == c ? found_[0] : found_[1]).meta;
      head[0] = meta.iteration;
      head[1] = static_cast<int64_t>(meta.level);
      head[2] = meta.rs_m;
      for (int r = 0; r < job_.size; ++r) head[4 + r] = meta.group_of[r];
    }
    MPI_Bcast(head.data(), static_cast<int>(head.size()), MPI_INT64_T, root, job_.comm);
    plan.ckpt_id = c;
    plan.iteration = head[0];
    plan.level = static_cast<Level>(head[1]);
    plan.rs_m = static_cast<int>(head[2]);
    plan.group_of.assign(head.begin() + 4, head.end());
    int holds = 0;  // my file of c holds my predecessor's blob
    for (const auto& f : found_) {
      if (f.meta.ckpt_id != c) continue;
      for (const auto& sec : f.meta.sections) holds |= sec.kind == SectionKind::kPartner ? 1 : 0;
    }
    std::vector<int> all_holds(job_.size);
    MPI_Allgather(&holds, 1, MPI_INT, all_holds.data(), 1, MPI_INT, job_.comm);
    plan.holds_copy.assign(all_holds.begin(), all_holds.end());
    Groups groups = groupsFromTable(std::vector<int>(plan.group_of.begin(), plan.group_of.end()));
    bool ok = std::all_of(groups.members.begin(), groups.members.end(),
                          [&](const std::vector<int>& m) { return groupRestorable(plan, m); });
    if (ok) {
      plan.available = true;
      return plan;
    }
  }
  // Fall back to the newest checkpoint every rank flushed.
  auto all_flushed = gatherIds(flushed, job_.comm, job_.size);
  std::set<int64_t, std::greater<>> flush_candidates(all_flushed.begin(), all_flushed.end());
  flush_candidates.erase(-1);
  for (int64_t c : flush_candidates) {
    bool everywhere = true;
    for (int r = 0; r < job_.size && everywhere; ++r) everywhere = all_flushed[2 * r] == c || all_flushed[2 * r + 1] == c;
    if (everywhere) {
      plan.available = true;
      plan.from_flush = true;
      plan.ckpt_id = c;
      plan.level = Level::kL5;
      return plan;
    }
  }
  plan.available = false;
  return plan;
}

Result<RestartReport> CheckpointRestorer::restore(const RestorePlan& plan, const std::vector<Protected>& buffers) {
  const auto begin = std::chrono::steady_clock::now();
  for (const auto& b : buffers) populateKeepingContents(b.ptr, b.bytes);
  auto local = plan.from_flush ? restoreFromFlush(plan, buffers) : restoreFromMemory(plan, buffers);
  bool ok = allAgree(local.ok(), job_.comm);
  restored_.reset();
  for (auto& f : found_) {
    if (ok && f.meta.ckpt_id > plan.ckpt_id) ShmSegment::remove(f.file.name());
    if (ok && !plan.from_flush && f.meta.ckpt_id == plan.ckpt_id) restored_.emplace(std::move(f));
  }
  found_.clear();  // unmap the others
  if (!ok) {
    if (!local) return local.status();
    return internalError("the restore of checkpoint " + std::to_string(plan.ckpt_id) + " failed on another rank");
  }
  local->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return local;
}

Result<RestartReport> CheckpointRestorer::restoreOwnCopy(const RestorePlan& plan, const std::vector<Protected>& buffers) {
  const auto begin = std::chrono::steady_clock::now();
  auto mine = std::find_if(found_.begin(), found_.end(),
                           [&](const FoundFile& f) { return f.meta.ckpt_id == plan.ckpt_id && f.verified; });
  if (plan.from_flush || mine == found_.end()) {
    return notFound("rank " + std::to_string(job_.rank) + " has no verified copy of checkpoint " +
                    std::to_string(plan.ckpt_id) + " in its node's memory");
  }
  for (const auto& b : buffers) populateKeepingContents(b.ptr, b.bytes);
  const Section& own = mine->meta.sections[0];
  if (auto s = readBlob(mine->file.data() + own.offset, own.length, buffers); !s.ok()) return s;
  RestartReport result;
  result.ckpt_id = plan.ckpt_id;
  result.iteration = plan.iteration;
  restored_.emplace(std::move(*mine));
  found_.clear();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return result;
}

Result<RestartReport> CheckpointRestorer::restoreFromFlush(const RestorePlan& plan,
                                                           const std::vector<Protected>& buffers) {
  RestartReport result;
  result.ckpt_id = plan.ckpt_id;
  result.source = Level::kL5;
  result.rebuilt = "flush";
  auto blob = flusher_->read(plan.ckpt_id);
  if (!blob) return blob.status();
  result.iteration = blob->iteration;
  if (auto s = readBlob(blob->blob.data(), blob->blob.size(), buffers); !s.ok()) return s;
  return result;
}

Result<RestartReport> CheckpointRestorer::restoreFromMemory(const RestorePlan& plan,
                                                            const std::vector<Protected>& buffers) {
  RestartReport result;
  result.ckpt_id = plan.ckpt_id;
  result.iteration = plan.iteration;
  Groups groups = groupsFromTable(std::vector<int>(plan.group_of.begin(), plan.group_of.end()));
  const auto& members = groups.members[groups.group_of[job_.rank]];
  const int g = static_cast<int>(members.size());
  const int pos = groups.position[job_.rank];
  MPI_Comm comm = MPI_COMM_NULL;
  if (int rc = MPI_Comm_split(job_.comm, groups.group_of[job_.rank], pos, &comm); rc != MPI_SUCCESS) {
    return mpiStatus(rc, "splitting the job into the checkpoint's groups");  // a rank died: no communicator to free
  }
  UlfmRecovery::revokeWith(comm);
  struct FreeComm {
    MPI_Comm* c;
    ~FreeComm() {
      UlfmRecovery::forget(*c);
      MPI_Comm_free(c);
    }
  } free_comm{&comm};

  const FoundFile* mine = nullptr;
  for (const auto& f : found_) {
    if (f.meta.ckpt_id == plan.ckpt_id) mine = &f;
  }
  std::vector<int> lost;
  for (int p = 0; p < g; ++p) {
    if (!plan.present[members[p]]) lost.push_back(p);
  }
  std::optional<RebuiltBlob> rebuilt;  // my blob, if I am lost
  Status status;

  if (plan.level == Level::kL2) {
    for (int j : lost) {
      const int succ = (j + 1) % g;
      if (pos == succ) {
        const Section* copy = nullptr;
        for (const auto& s : mine->meta.sections) {
          if (s.kind == SectionKind::kPartner && s.index == j) copy = &s;
        }
        uint64_t head[2] = {copy ? copy->length : 0, copy ? copy->crc : 0};
        MPI_Send(head, 2, MPI_UINT64_T, j, kTagRebuild, comm);
        int rc = MPI_SUCCESS;
        if (copy) exchangeChunked(mine->file.data() + copy->offset, copy->length, j, nullptr, 0, j, kTagRebuild, comm, rc);
        if (status.ok()) status = mpiStatus(rc, "sending the partner copy of group member " + std::to_string(j));
      } else if (pos == j) {
        uint64_t head[2];
        MPI_Recv(head, 2, MPI_UINT64_T, succ, kTagRebuild, comm, MPI_STATUS_IGNORE);
        rebuilt.emplace();
        rebuilt->data.reserve(head[0]);
        rebuilt->bytes = head[0];
        rebuilt->crc = static_cast<uint32_t>(head[1]);
        int rc = MPI_SUCCESS;
        rebuilt->received_crc =
            exchangeChunked(nullptr, 0, succ, rebuilt->data.data(), head[0], succ, kTagRebuild, comm, rc);
        if (status.ok()) status = mpiStatus(rc, "receiving my partner copy");
        result.source = Level::kL2;
        result.rebuilt = "partner";
      }
    }
  } else if (plan.level == Level::kL3 || plan.level == Level::kL4) {
    std::vector<bool> present(g);
    for (int p = 0; p < g; ++p) present[p] = plan.present[members[p]];
    ErasureCodec& codec = plan.level == Level::kL3 ? static_cast<ErasureCodec&>(xor_) : rs_;
    auto blob = rebuildLostMembers(mine ? mine->file.data() : nullptr, mine ? &mine->meta : nullptr, present,
                                   groupCode(plan.level, g, plan.rs_m), codec, comm);
    if (!blob) {
      status = blob.status();
    } else if (*blob) {
      rebuilt = std::move(**blob);
      result.source = plan.level;
      result.rebuilt = plan.level == Level::kL3 ? "xor" : "rs";
    }
  }
  if (!status.ok()) return status;

  if (mine) {
    const Section& own = mine->meta.sections[0];
    if (auto s = readBlob(mine->file.data() + own.offset, own.length, buffers); !s.ok()) return s;
    return result;
  }
  if (!rebuilt || rebuilt->bytes == 0) {
    return internalError("no data for rank " + std::to_string(job_.rank) + " in its group");
  }
  const uint32_t crc =
      rebuilt->received_crc ? *rebuilt->received_crc : crc32c(rebuilt->data.data(), rebuilt->bytes);
  if (crc != rebuilt->crc) {
    return internalError("rank " + std::to_string(job_.rank) + ": the blob rebuilt from " + result.rebuilt +
                         " fails its checksum (expected " + std::to_string(rebuilt->crc) + ", got " +
                         std::to_string(crc) + ")");
  }
  if (auto s = readBlob(rebuilt->data.data(), rebuilt->bytes, buffers); !s.ok()) return s;
  return result;
}

}  // namespace ftb::mpi_bridge
