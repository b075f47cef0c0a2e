// The message log of one rank for local rollback (docs/FTBCKPT.md, "Local
// rollback"): what the application sent on the logged communicator since the
// last checkpoint line (the payloads, sender-based), how many messages it
// received on each channel, the order of its nondeterministic outcomes
// (determinants), and what its collectives gave it (or, for a gather, what it
// gave the root). After a process
// failure only the lost rank restarts from its checkpoint: the survivors
// answer its receives from their logs and skip what it sends again, so they
// keep their state and repeat no work.
//
// A channel is (peer, tag) on the logged communicator. MPI does not let two
// messages with the same sender, destination, tag and communicator overtake
// each other, so the n-th message of a channel is the same message at both
// ends without a sequence number on the wire.
//
// Bounded: past `bound_bytes` of stored payloads and determinants the log stops storing and is
// no longer replayable (whyNotReplayable() says why); a failure in that epoch
// falls back to global rollback. Counting goes on, so the checkpoint line's
// consistency check still works. Memory is kept across epochs (a bump arena
// reset at each line): a steady state takes no page faults.
//
// No MPI here (logged_mpi.cc packs, sends and counts). Not thread-safe: the
// MPI thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ftb::mpi_bridge {

struct Channel {
  int peer = 0;  // the other end's rank in the logged communicator
  int tag = 0;
  auto operator<=>(const Channel&) const = default;
};

// A nondeterministic outcome, in the order it happened: the channel a wildcard
// receive or probe matched (kMatch; for a wildcard MPI_Irecv, `indices` names
// which of the epoch's wildcard MPI_Irecv it was, 0-based in posting order, as
// it is recorded when it completes but replayed when it is posted), or which
// requests a Waitany, Waitsome or Test* call found complete (kCompletion;
// none: an empty list).
struct Determinant {
  enum class Kind : std::uint8_t { kMatch, kCompletion };
  Kind kind = Kind::kMatch;
  Channel channel;           // kMatch
  std::vector<int> indices;  // kCompletion; a wildcard MPI_Irecv's kMatch
};

class MessageLog {
 public:
  explicit MessageLog(std::size_t bound_bytes);
  ~MessageLog();
  MessageLog(const MessageLog&) = delete;
  MessageLog& operator=(const MessageLog&) = delete;

  // A new epoch after checkpoint line `line` (-1: the job's start): payloads, counts, determinants and
  // collective results of the last one are forgotten, and it is replayable.
  void startEpoch(std::int64_t line);
  // This epoch cannot be replayed because `why` (the first reason is kept).
  void spoil(std::string why);

  // Sender: room for the next message on `channel`, `bytes` long, for the
  // caller to fill (while the transfer runs); counted in any case. nullptr
  // when the log is spoiled or the message would pass the bound (which
  // spoils it). Valid until the next startEpoch.
  std::byte* appendSent(Channel channel, std::size_t bytes);
  // Receiver: one more message of `channel` completed.
  void received(Channel channel);
  // Kept in order, counted against the bound as payloads are.
  void record(Determinant determinant);
  // A wildcard MPI_Irecv is posted: its number in this epoch (0, 1, ...).
  int postWildcardReceive() { return wildcard_receives_++; }
  // Whether this rank keeps its collectives' results (a keeper: see
  // keepsCollectiveResults in local_recovery_plan.h) or only counts them
  // (appendCollective gives no room). Kept across epochs; true at first.
  void keepCollectiveResults(bool keep) { keeps_collective_results_ = keep; }
  // A collective completed; room for its result, as appendSent.
  // `point_to_point_bytes`: what logging its algorithm's messages would have
  // kept here instead (collective_expression.h), for collectiveTotals().
  std::byte* appendCollective(std::size_t bytes, std::size_t point_to_point_bytes = 0);
  // A gather completed at a rank other than `root`: room for this rank's
  // contribution, kept by every rank (it is this rank's alone), for a lost
  // root's replacement to gather again (gathersTo). Counted as a collective
  // whose result is empty.
  std::byte* appendGatherContribution(int root, std::size_t bytes, std::size_t point_to_point_bytes);
  struct GatherContribution {
    std::uint64_t collective = 0;  // its index among this epoch's collectives
    std::span<const std::byte> bytes;
  };
  // This epoch's contributions to gathers at `root`, in order; none once spoiled.
  std::vector<GatherContribution> gathersTo(int root) const;

  std::int64_t line() const { return line_; }
  std::uint64_t sentCount(Channel channel) const;
  std::uint64_t receivedCount(Channel channel) const;
  const std::map<Channel, std::uint64_t>& receivedCounts() const { return received_; }
  std::map<Channel, std::uint64_t> sentCounts() const;
  // Messages sent to or received from `peer` in this epoch, over all tags.
  std::uint64_t sentTo(int peer) const;
  std::uint64_t receivedFrom(int peer) const;
  // The payloads sent on `channel` after its first `skip` messages: what a
  // peer that received `skip` of them still needs, in order. Empty when
  // spoiled.
  std::vector<std::span<const std::byte>> sentAfter(Channel channel, std::uint64_t skip) const;
  std::uint64_t collectives() const { return collective_count_; }
  // The result of collective `index` (0-based in this epoch); empty when spoiled.
  std::span<const std::byte> collectiveResult(std::uint64_t index) const;
  const std::vector<Determinant>& determinants() const { return determinants_; }

  bool replayable() const { return why_not_.empty(); }
  const std::string& whyNotReplayable() const { return why_not_; }
  // Payload bytes stored in this epoch, the most of any epoch, the bound.
  std::size_t bytes() const { return bytes_; }
  std::size_t peakBytes() const { return peak_bytes_; }
  std::size_t bound() const { return bound_; }
  // Every collective since the log was made, over all epochs: how many, the
  // bytes their results took, the bytes their point-to-point expression would.
  struct CollectiveTotals {
    std::uint64_t calls = 0;
    std::uint64_t logged_bytes = 0;
    std::uint64_t point_to_point_bytes = 0;
  };
  const CollectiveTotals& collectiveTotals() const { return collective_totals_; }

 private:
  class Arena;
  // Counts `bytes` against the bound; false (and spoiled) past it.
  bool reserve(std::size_t bytes, const char* what);
  std::byte* store(std::size_t bytes, const char* what);

  struct SentChannel {
    std::uint64_t count = 0;
    std::vector<std::span<const std::byte>> payloads;  // empty once spoiled
  };

  std::size_t bound_;
  std::unique_ptr<Arena> arena_;
  std::int64_t line_ = -1;
  std::string why_not_;
  std::map<Channel, SentChannel> sent_;
  std::map<Channel, std::uint64_t> received_;
  std::uint64_t collective_count_ = 0;
  std::vector<std::span<const std::byte>> collectives_;  // stops growing once spoiled
  std::multimap<int, GatherContribution> gathers_;        // by root
  std::vector<Determinant> determinants_;
  int wildcard_receives_ = 0;
  CollectiveTotals collective_totals_;
  bool keeps_collective_results_ = true;
  std::size_t bytes_ = 0;
  std::size_t peak_bytes_ = 0;
};

}  // namespace ftb::mpi_bridge
