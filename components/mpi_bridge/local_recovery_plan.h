// What a local recovery must do, decided from every rank's account of its
// message log after a repair (docs/FTBCKPT.md, "Local rollback"), or why it
// cannot be done and every rank rolls back instead.
//
// Each rank describes its log (LogAccount): the checkpoint line its epoch
// started at, whether it can be replayed, how many messages it sent and
// received per channel, how many collectives it completed. A lost rank's
// replacement has restarted from that line, so its account is empty. Then:
//   - a survivor resends, on the repaired communicator, each message a
//     channel's receiver has not received (a survivor's message lost with the
//     old communicator, or everything it sent the lost rank since the line);
//   - the replacement skips, per channel, the sends its survivors received;
//   - collectives some survivor completed are handed to whoever did not
//     (the replacement, or a survivor interrupted inside one) from a log that
//     holds them: a keeper's (keepsCollectiveResults).
// Pure: no MPI. The runtime gathers the accounts and carries the plan out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/message_log.h"

namespace ftb::mpi_bridge {

struct LogAccount {
  bool restarted = false;  // a replacement: restarted from the line, nothing logged yet
  // A replacement's is replayable when its predecessor's determinants of the
  // epoch were found (determinant_store.h); a survivor's when its log is.
  std::int64_t line = -1;
  bool replayable = true;
  std::string why_not;                      // when not replayable
  std::map<Channel, std::uint64_t> sent;      // channel = (destination, tag)
  std::map<Channel, std::uint64_t> received;  // channel = (source, tag)
  std::uint64_t collectives = 0;
};

// From rank `from` to rank `channel.peer`: the messages after the first `skip`
// of that channel in `from`'s log.
struct Resend {
  int from = 0;
  Channel channel;
  std::uint64_t skip = 0;
};

struct LocalRecoveryPlan {
  bool local = false;
  std::string why_global;  // when !local: which rule sent every rank back
  int lost = -1;
  std::int64_t line = -1;
  std::vector<Resend> resends;
  // Per channel (destination, tag) of the replacement: sends to skip.
  std::map<Channel, std::uint64_t> replacement_skips;
  // The most collectives any survivor completed, and a surviving keeper
  // whose log holds all of them (-1 when none completed any).
  std::uint64_t collectives = 0;
  int collectives_from = -1;
};

// One rank's part of a local recovery: what it replays until it caught up.
struct RankReplay {
  // Per channel (destination, tag): its next sends that the destination
  // received before the failure (a replacement's), logged but not sent.
  std::map<Channel, std::uint64_t> skips;
  // The results of the collectives it lacks, in order (packed as logged),
  // handed over by the survivor that completed the most.
  std::vector<std::vector<std::byte>> collectives;
  // A replacement's: what its predecessor's nondeterministic calls had, in
  // order, from its node's determinant store.
  std::vector<Determinant> determinants;
  // A replacement's: per gather it was the root of (by its index among the
  // epoch's collectives), each survivor's contribution from its log (per
  // rank; none: not logged there).
  std::map<std::uint64_t, std::vector<std::optional<std::vector<std::byte>>>> gathered;
};

// `rank`'s part of `plan` (without the collectives' results, which the
// exchange brings).
RankReplay replayFor(const LocalRecoveryPlan& plan, int rank);

// Ranks 0 and 1 of the logged communicator keep the results of collectives
// in their logs; the others only count them. What a broadcast, allreduce or
// allgather gives is the same on every rank, so two copies are enough while
// one rank is lost at a time (two lost: global rollback anyway), and the job's
// collective log is 2/N of what every rank keeping its own would be.
constexpr int kCollectiveKeepers = 2;
inline bool keepsCollectiveResults(int rank) { return rank < kCollectiveKeepers; }

// What `log` says of this rank's epoch.
LogAccount accountOf(const MessageLog& log);
// A replacement's: it restarted, and has logged nothing.
LogAccount restartedAccount();
// The account as a record of 64-bit words for the exchange after a repair
// (word_codec.h; host byte order: the job's machines are of one kind).
std::vector<std::uint8_t> encodeAccount(const LogAccount& account);
Result<LogAccount> decodeAccount(const std::vector<std::uint8_t>& record);

// `accounts[r]` is rank r's (the lost ranks are those whose account says
// restarted); `restorable` the checkpoint the restore plan found every rank
// can restore (-1: none, the job's start).
LocalRecoveryPlan planLocalRecovery(const std::vector<LogAccount>& accounts, std::int64_t restorable);
// One line for the job's log: what the plan does, or why it falls back.
std::string describe(const LocalRecoveryPlan& plan);

}  // namespace ftb::mpi_bridge
