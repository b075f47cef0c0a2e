#include "components/mpi_bridge/ckpt_writer.h"

#include <chrono>
#include <cstring>
#include <future>

#include "components/mpi_bridge/checksum.h"
#include "components/mpi_bridge/fault_injection.h"
#include "components/mpi_bridge/ulfm_recovery.h"

namespace ftb::mpi_bridge {
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
  dieIfInjected(job_.config.fault, FaultPoint::kCheckpoint, job_.rank, ckpt_id);
  const bool exchange = level == Level::kL2 || pending->code.m > 0;
  if (node_encoder_ && level != Level::kL1 && level != Level::kL5) {
    // Every rank hands off (even one whose group has nothing to exchange): the
    // encoder waits for all of its node's ranks.
    pending_id_ = ckpt_id;
    if (Status s = node_encoder_->handOff(*pending, job_.shmName(static_cast<int>(ckpt_id % 2))); !s.ok()) return s;
    WriteReport report = pending->report;
    report.pending = true;
    return report;
  }
  if (async_comm_ != MPI_COMM_NULL && exchange) {
    // L1 is done; the group exchange and the agreement run on their own
    // communicators so the application's MPI calls can go on meanwhile.
    WriteReport report = pending->report;
    report.pending = true;
    startInBackground(ckpt_id, [this, p = std::move(*pending)](MPI_Comm group_comm) mutable {
      Status local = encoder_.complete(p, group_comm);
      bool ok = allAgree(local.ok(), async_comm_);
      if (!ok && local.ok()) local = internalError("checkpoint failed on another rank");
      return local;
    });
    return report;
  }
  Status local = encoder_.complete(*pending, job_.group_comm);
  if (!allAgree(local.ok(), job_.comm)) {
    if (!local.ok()) return local;
    return internalError("checkpoint " + std::to_string(ckpt_id) + " failed on another rank");
  }
  return pending->report;
}

Status CheckpointWriter::finishPending() {
  Status s;
  if (node_encoder_ && node_encoder_->busy()) {
    s = node_encoder_->collect();
  } else if (pending_result_.valid()) {
    s = pending_result_.get();
  }
  if (!s.ok()) {
    return Status(s.code(), (node_encoder_ ? "checkpoint " : "asynchronous checkpoint ") +
                                std::to_string(pending_id_) + ": " + s.message());
  }
  return s;
}

void CheckpointWriter::startInBackground(int64_t ckpt_id, std::function<Status(MPI_Comm group_comm)> group_part) {
  pending_id_ = ckpt_id;
  pending_result_ = std::async(std::launch::async, [part = std::move(group_part), comm = async_group_comm_] {
    return part(comm);
  });
}

bool CheckpointWriter::backgroundBusy() {
  if (node_encoder_ && node_encoder_->busy()) return !node_encoder_->answered();
  return pending_result_.valid() && pending_result_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

void CheckpointWriter::enableAsync() {
  if (async_comm_ != MPI_COMM_NULL) {
    // Again after a run-through recovery: the duplicates of the old
    // communicators are revoked with them, and left unfreed like them.
    UlfmRecovery::forget(async_comm_);
    UlfmRecovery::forget(async_group_comm_);
  }
  // A failed duplicate (a rank died meanwhile: the next loop repairs) leaves
  // the checkpoints synchronous until the repair calls this again.
  if (MPI_Comm_dup(job_.comm, &async_comm_) != MPI_SUCCESS ||
      MPI_Comm_dup(job_.group_comm, &async_group_comm_) != MPI_SUCCESS) {
    async_comm_ = async_group_comm_ = MPI_COMM_NULL;
    return;
  }
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
  std::vector<MPI_Request> gather(1, MPI_REQUEST_NULL);
  MPI_Iallgather(&my_bytes, 1, MPI_UINT64_T, meta.blob_bytes.data(), 1, MPI_UINT64_T, job_.group_comm, gather.data());
  if (int rc = waitAll(gather); rc != MPI_SUCCESS) return mpiStatus(rc, "gathering the group's blob sizes");
  uint64_t max_bytes = 0;
  for (auto b : meta.blob_bytes) max_bytes = std::max(max_bytes, b);
  if (code.k > 0) meta.seg_bytes = alignUp((max_bytes + code.k - 1) / code.k, kSectionAlign);
  const FileLayout layout = layOutSections(meta, job_.size, pos, partner_in);

  // The slot this id uses; resized only when the layout grew or shrank.
  auto& slot = slots_[ckpt_id % 2];
  Status local;
  if (!slot || slot->size() != layout.total) {
    slot.reset();
    auto created = ShmSegment::create(job_.shmName(static_cast<int>(ckpt_id % 2)), layout.total);
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
  p.pred_rank = members[(pos + g - 1) % g];
  p.partner_out = copied(pos);
  p.partner_in = partner_in;
  p.code = code;
  p.meta_size = layout.meta_size;
  p.total = layout.total;
  uint8_t* file = slot->data();
  Section& own = meta.sections[0];
  own.crc = startFile(file, meta, buffers);
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

}  // namespace ftb::mpi_bridge
