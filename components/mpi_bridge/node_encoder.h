// FTBCKPT_ENCODER=node: one process per node is its node's dedicated encoder
// (FTI's "head"), not an application rank. The application's ranks write L1
// into shared memory and hand the group part of each L2-L4 checkpoint (the
// partner copy, the XOR or Reed-Solomon parity, the meta and the complete
// mark) to their node's encoder, then go back to computing. The encoders do
// the group exchanges among themselves, each in the place of its node's
// member of every group, and answer each rank once the checkpoint is complete
// on every node. The files they leave are the ones the ranks would have
// written, so restore is unchanged.
//
// The lowest rank of each node in the communicator given to ftbckpt_init
// becomes the encoder; it never returns from ftbckpt_init (it exits once the
// application's ranks have finalized). The application computes on
// ftbckpt_comm(), which leaves the encoders out.
//
// Threading: MPI thread only, on both sides.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/config.h"
#include "components/mpi_bridge/group_encode.h"

namespace ftb::mpi_bridge {

struct NodeEncoderLayout {
  bool encoder = false;                // this process encodes; it never computes
  MPI_Comm own_kind = MPI_COMM_NULL;   // the application's ranks, or (encoder) the encoders, by world rank
  MPI_Comm node_comm = MPI_COMM_NULL;  // the node's encoder (rank 0), then its application ranks
  std::vector<std::string> app_nodes;  // the node of every application rank
  std::string node;                    // this process's node
};

// Collective over `world`. The lowest rank of every node encodes; every node
// needs one application rank besides. `config.node_map` becomes the
// application ranks' nodes (FTBCKPT_NODE_MAP names a node per process of
// `world`, encoders included).
Result<NodeEncoderLayout> splitOffNodeEncoders(MPI_Comm world, Config& config);

// The encoder's life: serves its node's ranks until they finalize, then
// MPI_Finalize and exit (status 1 after an error it printed).
[[noreturn]] void serveNodeThenExit(const NodeEncoderLayout& layout, const Config& config);

// An application rank's side of its node's encoder.
class NodeEncoderLink {
 public:
  explicit NodeEncoderLink(MPI_Comm node_comm) : comm_(node_comm) {}

  // Hands the group part of `p` (its file is shared memory `shm_name`) to the
  // encoder and returns at once. At most one checkpoint in flight.
  Status handOff(const PendingWrite& p, const std::string& shm_name);
  bool busy() const { return busy_; }
  // Whether the encoder has answered the checkpoint in flight. Never blocks.
  bool answered();
  // Waits for the encoder's answer: OK once the checkpoint is complete on
  // every rank, else why not (here or elsewhere).
  Status collect();
  // The application's end: the encoder stops once all its node's ranks said so.
  void finish();

 private:
  MPI_Comm comm_;
  std::vector<uint8_t> out_;  // the hand-off in flight
  std::array<char, 512> answer_{};
  std::vector<MPI_Request> requests_;
  bool busy_ = false;
};

// What a rank hands its encoder (exposed for its unit test).
struct Handoff {
  enum Kind : int64_t { kCheckpoint = 1, kFinish = 2 };
  Kind kind = kCheckpoint;
  std::string shm_name;
  PendingWrite write;  // write.file is not sent: the encoder maps shm_name
};
std::vector<uint8_t> encodeHandoff(const Handoff& handoff);
Result<Handoff> decodeHandoff(const uint8_t* data, std::size_t bytes);

}  // namespace ftb::mpi_bridge
