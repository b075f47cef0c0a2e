#include "components/mpi_bridge/node_encoder.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "components/mpi_bridge/job.h"
#include "components/mpi_bridge/shm_segment.h"
#include "components/mpi_bridge/word_codec.h"

namespace ftb::mpi_bridge {
namespace {

constexpr int kTagHandoff = 7101;
constexpr int kTagAnswer = 7102;
// An idle encoder looks for work this often: a hand-off waits at most this
// long, and an encoder between checkpoints costs next to no CPU.
constexpr auto kIdleNap = std::chrono::milliseconds(1);

// Blocks (napping, not spinning) until a hand-off from node rank `from` arrives.
Result<Handoff> receiveHandoff(int from, MPI_Comm comm) {
  MPI_Status status;
  for (int found = 0;;) {
    if (int rc = MPI_Iprobe(from, kTagHandoff, comm, &found, &status); rc != MPI_SUCCESS) {
      return mpiStatus(rc, "waiting for a hand-off");
    }
    if (found) break;
    std::this_thread::sleep_for(kIdleNap);
  }
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<uint8_t> in(static_cast<std::size_t>(count));
  if (int rc = MPI_Recv(in.data(), count, MPI_BYTE, from, kTagHandoff, comm, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) {
    return mpiStatus(rc, "receiving a hand-off");
  }
  return decodeHandoff(in.data(), in.size());
}

// The encoder's communicator for every group with a member on this node,
// ranked by that member's group position. Collective over `encoders`; every
// encoder splits for every group in the same order.
std::map<int, MPI_Comm> groupCommunicators(const Groups& groups, const NodeEncoderLayout& layout,
                                           MPI_Comm encoders) {
  std::map<int, MPI_Comm> comms;
  for (int gi = 0; gi < static_cast<int>(groups.members.size()); ++gi) {
    int position = -1;
    const auto& members = groups.members[gi];
    for (int pos = 0; pos < static_cast<int>(members.size()); ++pos) {
      if (layout.app_nodes[members[pos]] == layout.node) position = pos;
    }
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(encoders, position >= 0 ? 0 : MPI_UNDEFINED, position, &comm);
    if (position >= 0) comms[gi] = comm;
  }
  return comms;
}

// One checkpoint's group parts for the node's ranks, in ascending group order
// on every encoder (so no two encoders wait for each other), then the
// agreement of all encoders. Returns this node's error, if any.
Status encodeCheckpoint(std::vector<Handoff>& work, const Groups& groups, const std::map<int, MPI_Comm>& group_comms,
                        MPI_Comm encoders, GroupEncoder& encoder) {
  std::sort(work.begin(), work.end(), [&](const Handoff& a, const Handoff& b) {
    return groups.group_of[a.write.meta.rank] < groups.group_of[b.write.meta.rank];
  });
  // Every file is mapped and every group found before any exchange: an
  // encoder that cannot must not leave the others waiting in a group exchange.
  Status local;
  std::vector<ShmSegment> files;
  std::vector<MPI_Comm> comms;
  for (Handoff& h : work) {
    const int group = groups.group_of[h.write.meta.rank];
    auto comm = group_comms.find(group);
    if (comm == group_comms.end() || groups.members[group].size() != static_cast<std::size_t>(h.write.g)) {
      local = internalError("rank " + std::to_string(h.write.meta.rank) + " is in no group of this node's encoder");
      break;
    }
    comms.push_back(comm->second);
    auto file = ShmSegment::openForWriting(h.shm_name);
    if (!file) {
      local = file.status();
      break;
    }
    if (file->size() != h.write.total) {
      local = internalError(h.shm_name + " is " + std::to_string(file->size()) + " bytes, the checkpoint needs " +
                            std::to_string(h.write.total));
      break;
    }
    h.write.file = file->data();
    files.push_back(std::move(*file));
  }
  if (!allAgree(local.ok(), encoders)) {
    return local.ok() ? internalError("another node's encoder could not map a checkpoint file") : local;
  }
  for (std::size_t i = 0; i < work.size(); ++i) {
    Handoff& h = work[i];
    Status s = encoder.complete(h.write, comms[i]);
    if (!s.ok() && local.ok()) local = Status(s.code(), "rank " + std::to_string(h.write.meta.rank) + ": " + s.message());
  }
  if (!allAgree(local.ok(), encoders) && local.ok()) {
    local = internalError("checkpoint " + std::to_string(work.front().write.meta.ckpt_id) +
                          " failed on another node's encoder");
  }
  return local;
}

Status serveNode(const NodeEncoderLayout& layout, const Config& config) {
  const Groups groups = groupsOfPlacement(layout.app_nodes, config);
  const auto group_comms = groupCommunicators(groups, layout, layout.own_kind);
  int node_size = 0;
  MPI_Comm_size(layout.node_comm, &node_size);
  GroupEncoder encoder;
  const bool trace = std::getenv("FTBCKPT_ENCODER_TRACE") != nullptr;
  for (;;) {
    std::vector<Handoff> work;
    int finished = 0;
    for (int from = 1; from < node_size; ++from) {
      auto h = receiveHandoff(from, layout.node_comm);
      if (!h) return h.status();
      if (h->kind == Handoff::kCheckpoint &&
          (h->write.meta.rank < 0 || h->write.meta.rank >= static_cast<int>(groups.group_of.size()))) {
        return invalidArgument("a hand-off names rank " + std::to_string(h->write.meta.rank) + ", which the job has not");
      }
      finished += h->kind == Handoff::kFinish ? 1 : 0;
      work.push_back(std::move(*h));
    }
    if (finished == node_size - 1) return {};
    if (finished > 0) {
      return failedPrecondition("on node " + layout.node + ", " + std::to_string(finished) +
                                " ranks finalized while the others checkpointed");
    }
    const auto begin = std::chrono::steady_clock::now();
    Status s = encodeCheckpoint(work, groups, group_comms, layout.own_kind, encoder);
    if (trace && s.ok()) {
      std::string ranks;
      for (const Handoff& h : work) ranks += (ranks.empty() ? "" : ",") + std::to_string(h.write.meta.rank);
      std::fprintf(stderr, "ftbckpt: encoder of node %s: checkpoint %lld of ranks %s complete in %.1f ms\n",
                   layout.node.c_str(), static_cast<long long>(work.front().write.meta.ckpt_id), ranks.c_str(),
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
    }
    std::array<char, 512> answer{};
    answer[0] = s.ok() ? 1 : 0;
    std::snprintf(answer.data() + 1, answer.size() - 1, "%s", s.message().c_str());
    for (int to = 1; to < node_size; ++to) {
      MPI_Send(answer.data(), static_cast<int>(answer.size()), MPI_CHAR, to, kTagAnswer, layout.node_comm);
    }
  }
}

}  // namespace

std::vector<uint8_t> encodeHandoff(const Handoff& handoff) {
  const PendingWrite& p = handoff.write;
  WordWriter w;
  for (int64_t v : {static_cast<int64_t>(handoff.kind), static_cast<int64_t>(p.pos), static_cast<int64_t>(p.g),
                    static_cast<int64_t>(p.pred_rank), static_cast<int64_t>(p.partner_out),
                    static_cast<int64_t>(p.partner_in), static_cast<int64_t>(p.code.k),
                    static_cast<int64_t>(p.code.m), static_cast<int64_t>(p.meta_size),
                    static_cast<int64_t>(p.total)}) {
    w.u64(static_cast<uint64_t>(v));
  }
  w.blob(std::vector<uint8_t>(handoff.shm_name.begin(), handoff.shm_name.end()));
  w.blob(handoff.kind == Handoff::kCheckpoint ? encodeMeta(p.meta) : std::vector<uint8_t>());
  return std::move(w.out);
}

Result<Handoff> decodeHandoff(const uint8_t* data, std::size_t bytes) {
  WordReader r(data, bytes);
  int64_t v[10];
  for (int64_t& x : v) {
    if (!r.u64(reinterpret_cast<uint64_t*>(&x))) return invalidArgument("hand-off truncated");
  }
  Handoff h;
  if (v[0] != Handoff::kCheckpoint && v[0] != Handoff::kFinish) {
    return invalidArgument("hand-off of unknown kind " + std::to_string(v[0]));
  }
  h.kind = static_cast<Handoff::Kind>(v[0]);
  PendingWrite& p = h.write;
  p.pos = static_cast<int>(v[1]);
  p.g = static_cast<int>(v[2]);
  p.pred_rank = static_cast<int>(v[3]);
  p.partner_out = v[4] != 0;
  p.partner_in = v[5] != 0;
  p.code = {static_cast<int>(v[6]), static_cast<int>(v[7])};
  p.meta_size = static_cast<std::size_t>(v[8]);
  p.total = static_cast<std::size_t>(v[9]);
  std::vector<uint8_t> name, meta;
  if (!r.blob(name) || !r.blob(meta) || !r.done()) return invalidArgument("hand-off truncated");
  h.shm_name.assign(name.begin(), name.end());
  if (h.kind == Handoff::kCheckpoint) {
    auto m = decodeMeta(meta.data(), meta.size());
    if (!m) return Status(m.status().code(), "hand-off: " + m.status().message());
    p.meta = std::move(*m);
    if (p.g < 1 || p.pos < 0 || p.pos >= p.g || p.meta.sections.empty()) {
      return invalidArgument("hand-off of rank " + std::to_string(p.meta.rank) + " has no valid group position");
    }
  }
  return h;
}

Result<NodeEncoderLayout> splitOffNodeEncoders(MPI_Comm world, Config& config) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  auto node = nodeOfRank(config, rank);
  if (!allAgree(node.ok(), world)) {
    if (!node) return node.status();
    return invalidArgument("another process has a bad node name (see its error)");
  }
  const std::vector<std::string> nodes = gatherNames(*node, world, size);
  // Every process sees the same names, so every one reaches the same verdict.
  std::map<std::string, int> first, count;
  std::vector<std::string> node_order;  // by the node's lowest rank
  for (int r = 0; r < size; ++r) {
    if (first.emplace(nodes[r], r).second) node_order.push_back(nodes[r]);
    ++count[nodes[r]];
  }
  for (const auto& n : node_order) {
    if (count[n] < 2) {
      return failedPrecondition("FTBCKPT_ENCODER=node needs two processes or more on every node (its encoder and "
                                "an application rank); node " + n + " has one");
    }
  }
  NodeEncoderLayout layout;
  layout.node = *node;
  layout.encoder = first[*node] == rank;
  std::string map;
  for (int r = 0; r < size; ++r) {
    if (first[nodes[r]] == r) continue;
    layout.app_nodes.push_back(nodes[r]);
    map += (map.empty() ? "" : ",") + nodes[r];
  }
  const int node_index = static_cast<int>(std::find(node_order.begin(), node_order.end(), *node) - node_order.begin());
  MPI_Comm_split(world, layout.encoder ? 1 : 0, rank, &layout.own_kind);
  MPI_Comm_split(world, node_index, layout.encoder ? 0 : rank + 1, &layout.node_comm);
  config.node_map = map;
  return layout;
}

void serveNodeThenExit(const NodeEncoderLayout& layout, const Config& config) {
  if (!config.encoder_cpus.empty()) {
    // The cores set aside for encoding (FTI gives its head a core of its own);
    // without them it still encodes, wherever the MPI placed it.
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : config.encoder_cpus) CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      std::fprintf(stderr, "ftbckpt: encoder of node %s: cannot move to FTBCKPT_ENCODER_CPUS: %s\n",
                   layout.node.c_str(), std::strerror(errno));
    }
  }
  Status s = serveNode(layout, config);
  if (!s.ok()) std::fprintf(stderr, "ftbckpt: encoder of node %s: %s\n", layout.node.c_str(), s.message().c_str());
  MPI_Finalize();
  std::exit(s.ok() ? 0 : 1);
}

Status NodeEncoderLink::handOff(const PendingWrite& p, const std::string& shm_name) {
  if (busy_) return failedPrecondition("a checkpoint is already with the node's encoder (a bug)");
  Handoff h;
  h.kind = Handoff::kCheckpoint;
  h.shm_name = shm_name;
  h.write = p;
  out_ = encodeHandoff(h);
  requests_.assign(2, MPI_REQUEST_NULL);
  MPI_Irecv(answer_.data(), static_cast<int>(answer_.size()), MPI_CHAR, 0, kTagAnswer, comm_, &requests_[0]);
  if (int rc = MPI_Isend(out_.data(), static_cast<int>(out_.size()), MPI_BYTE, 0, kTagHandoff, comm_, &requests_[1]);
      rc != MPI_SUCCESS) {
    return mpiStatus(rc, "handing a checkpoint to the node's encoder");
  }
  busy_ = true;
  return {};
}

bool NodeEncoderLink::answered() {
  if (!busy_) return true;
  int done = 0;
  MPI_Test(&requests_[0], &done, MPI_STATUS_IGNORE);  // the answer (a completed request becomes NULL)
  return done != 0 || requests_[0] == MPI_REQUEST_NULL;
}

Status NodeEncoderLink::collect() {
  if (!busy_) return {};
  busy_ = false;
  if (int rc = waitAll(requests_); rc != MPI_SUCCESS) return mpiStatus(rc, "waiting for the node's encoder");
  if (answer_[0] == 1) return {};
  answer_.back() = 0;
  return internalError(std::string("the node's encoder: ") + (answer_.data() + 1));
}

void NodeEncoderLink::finish() {
  (void)collect();
  Handoff h;
  h.kind = Handoff::kFinish;
  out_ = encodeHandoff(h);
  requests_.assign(1, MPI_REQUEST_NULL);
  MPI_Isend(out_.data(), static_cast<int>(out_.size()), MPI_BYTE, 0, kTagHandoff, comm_, &requests_[0]);
  waitAll(requests_);
}

}  // namespace ftb::mpi_bridge
