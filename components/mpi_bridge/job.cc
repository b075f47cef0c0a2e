#include "components/mpi_bridge/job.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "components/mpi_bridge/checksum.h"
#include "components/mpi_bridge/ulfm_recovery.h"

namespace ftb::mpi_bridge {
namespace {
constexpr auto kSpinBeforeNap = std::chrono::microseconds(50);
constexpr auto kNap = std::chrono::microseconds(20);

}  // namespace

std::vector<std::string> gatherNames(const std::string& name, MPI_Comm comm, int size) {
  constexpr int kWidth = 256;
  std::vector<char> mine(kWidth, 0), all(static_cast<std::size_t>(kWidth) * size);
  std::copy_n(name.begin(), std::min<std::size_t>(name.size(), kWidth - 1), mine.begin());
  MPI_Allgather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, comm);
  std::vector<std::string> names;
  for (int r = 0; r < size; ++r) names.emplace_back(&all[static_cast<std::size_t>(r) * kWidth]);
  return names;
}

std::string Job::determinantStoreName() const {
  return "/ftbckpt-" + config.job_id + "-" + node + "-r" + std::to_string(rank) + "-det";
}

std::string Job::shmName(int slot) const {
  return "/ftbckpt-" + config.job_id + "-" + node + "-r" + std::to_string(rank) + "-s" + std::to_string(slot);
}

Groups groupsOfPlacement(const std::vector<std::string>& node_of_rank, const Config& config) {
  std::vector<std::string> domains;
  for (const std::string& node_name : node_of_rank) {
    auto d = config.domain_of_node.find(node_name);
    domains.push_back(d == config.domain_of_node.end() ? node_name : d->second);
  }
  return formGroups(domains, config.group_size);
}

Result<Job> makeJob(MPI_Comm comm, Config config) {
  Job job;
  job.comm = comm;
  MPI_Comm_rank(comm, &job.rank);
  MPI_Comm_size(comm, &job.size);
  job.config = std::move(config);
  auto node = nodeOfRank(job.config, job.rank);
  // Every rank must learn whether any rank failed, or the others would block below.
  if (!allAgree(node.ok(), comm)) {
    if (!node) return node.status();
    return invalidArgument("another rank has a bad node name (see its error)");
  }
  job.node = *node;
  job.node_of_rank = gatherNames(job.node, comm, job.size);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_length = 0;
  MPI_Get_processor_name(host, &host_length);
  job.host_of_rank = gatherNames(std::string(host, static_cast<std::size_t>(host_length)), comm, job.size);
  job.groups = groupsOfPlacement(job.node_of_rank, job.config);
  if (job.rank == 0) {
    std::string alone;
    for (const auto& members : job.groups.members) {
      if (members.size() == 1) alone += (alone.empty() ? "" : ",") + std::to_string(members[0]);
    }
    if (!alone.empty()) {
      std::fprintf(stderr, "ftbckpt: ranks %s have no group member in another failure domain: only L1 and L5 protect them\n",
                   alone.c_str());
    }
  }
  // A failed split (a rank died meanwhile) leaves no communicator behind.
  if (int rc = MPI_Comm_split(comm, job.groups.group_of[job.rank], job.groups.position[job.rank], &job.group_comm);
      rc != MPI_SUCCESS) {
    return mpiStatus(rc, "splitting the job into its groups");
  }
  UlfmRecovery::revokeWith(job.group_comm);
  return job;
}

int waitAll(std::vector<MPI_Request>& requests) {
  const auto nap_from = std::chrono::steady_clock::now() + kSpinBeforeNap;
  std::vector<MPI_Status> statuses(requests.size());
  for (;;) {
    int done = 0;
    int rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, statuses.data());
    if (rc == MPI_ERR_IN_STATUS) {  // the request's own error says what happened (e.g. MPIX_ERR_REVOKED)
      for (const MPI_Status& s : statuses) {
        if (s.MPI_ERROR != MPI_SUCCESS && s.MPI_ERROR != MPI_ERR_PENDING) return s.MPI_ERROR;
      }
    }
    if (rc != MPI_SUCCESS || done) return rc;
    if (std::chrono::steady_clock::now() >= nap_from) std::this_thread::sleep_for(kNap);
  }
}

uint32_t exchangeChunked(const uint8_t* src, std::size_t src_bytes, int to, uint8_t* dst, std::size_t dst_bytes,
                         int from, int tag, MPI_Comm comm, int& rc) {
  const std::size_t send_chunks = (src_bytes + kPipelineChunk - 1) / kPipelineChunk;
  const std::size_t recv_chunks = (dst_bytes + kPipelineChunk - 1) / kPipelineChunk;
  std::vector<MPI_Request> sends, receives[kStages];
  std::size_t sent = 0;
  auto postSendsUpTo = [&](std::size_t end) {
    for (; sent < std::min(end, send_chunks); ++sent) {
      const std::size_t off = sent * kPipelineChunk;
      sends.push_back(MPI_REQUEST_NULL);
      MPI_Isend(src + off, static_cast<int>(std::min(kPipelineChunk, src_bytes - off)), MPI_BYTE, to, tag, comm,
                &sends.back());
    }
  };
  auto postReceive = [&](std::size_t ci) {
    const std::size_t off = ci * kPipelineChunk;
    receives[ci % kStages].assign(1, MPI_REQUEST_NULL);
    MPI_Irecv(dst + off, static_cast<int>(std::min(kPipelineChunk, dst_bytes - off)), MPI_BYTE, from, tag, comm,
              receives[ci % kStages].data());
  };
  uint32_t crc = 0;
  rc = MPI_SUCCESS;
  postSendsUpTo(kSendsAhead);
  for (std::size_t ci = 0; ci < std::min(kStages, recv_chunks); ++ci) postReceive(ci);
  for (std::size_t ci = 0; ci < recv_chunks && rc == MPI_SUCCESS; ++ci) {
    postSendsUpTo(ci + kSendsAhead);
    rc = waitAll(receives[ci % kStages]);
    const std::size_t off = ci * kPipelineChunk;
    crc = crc32c(dst + off, std::min(kPipelineChunk, dst_bytes - off), crc);
    if (ci + kStages < recv_chunks) postReceive(ci + kStages);
  }
  postSendsUpTo(send_chunks);
  if (int send_rc = waitAll(sends); rc == MPI_SUCCESS) rc = send_rc;
  return crc;
}

Status mpiStatus(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return {};
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return internalError(what + ": " + std::string(text, len));
}

bool allAgree(bool ok, MPI_Comm comm) {
  int mine = ok ? 1 : 0, all = 0;
  std::vector<MPI_Request> request(1, MPI_REQUEST_NULL);
  MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm, request.data());
  waitAll(request);
  return all == 1;
}

}  // namespace ftb::mpi_bridge
