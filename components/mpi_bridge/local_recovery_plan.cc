#include "components/mpi_bridge/local_recovery_plan.h"

#include <algorithm>

#include "components/mpi_bridge/word_codec.h"

namespace ftb::mpi_bridge {
namespace {

LocalRecoveryPlan global(std::string why) {
  LocalRecoveryPlan plan;
  plan.why_global = std::move(why);
  return plan;
}

std::uint64_t countOf(const std::map<Channel, std::uint64_t>& counts, Channel channel) {
  auto it = counts.find(channel);
  return it == counts.end() ? 0 : it->second;
}

void writeCounts(WordWriter& w, const std::map<Channel, std::uint64_t>& counts) {
  w.u64(counts.size());
  for (const auto& [channel, n] : counts) {
    w.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(channel.peer)));
    w.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(channel.tag)));
    w.u64(n);
  }
}

bool readCounts(WordReader& r, std::map<Channel, std::uint64_t>& counts) {
  std::uint64_t size = 0;
  if (!r.u64(&size)) return false;
  for (std::uint64_t i = 0; i < size; ++i) {
    std::uint64_t peer = 0, tag = 0, n = 0;
    if (!r.u64(&peer) || !r.u64(&tag) || !r.u64(&n)) return false;
    counts[Channel{static_cast<int>(static_cast<std::int64_t>(peer)), static_cast<int>(static_cast<std::int64_t>(tag))}] = n;
  }
  return true;
}

}  // namespace

LogAccount accountOf(const MessageLog& log) {
  return {false, log.line(), log.replayable(), log.whyNotReplayable(), log.sentCounts(), log.receivedCounts(),
          log.collectives()};
}

LogAccount restartedAccount() {
  LogAccount account;
  account.restarted = true;
  return account;
}

std::vector<std::uint8_t> encodeAccount(const LogAccount& account) {
  WordWriter w;
  w.u64(account.restarted ? 1 : 0);
  w.u64(static_cast<std::uint64_t>(account.line));
  w.u64(account.replayable ? 1 : 0);
  w.blob(std::vector<std::uint8_t>(account.why_not.begin(), account.why_not.end()));
  writeCounts(w, account.sent);
  writeCounts(w, account.received);
  w.u64(account.collectives);
  return std::move(w.out);
}

Result<LogAccount> decodeAccount(const std::vector<std::uint8_t>& record) {
  WordReader r(record.data(), record.size());
  LogAccount account;
  std::uint64_t restarted = 0, line = 0, replayable = 0;
  std::vector<std::uint8_t> why;
  if (!r.u64(&restarted) || !r.u64(&line) || !r.u64(&replayable) || !r.blob(why) || !readCounts(r, account.sent) ||
      !readCounts(r, account.received) || !r.u64(&account.collectives) || !r.done()) {
    return invalidArgument("a log account of " + std::to_string(record.size()) + " bytes is cut short or too long");
  }
  account.restarted = restarted != 0;
  account.line = static_cast<std::int64_t>(line);
  account.replayable = replayable != 0;
  account.why_not.assign(why.begin(), why.end());
  return account;
}

LocalRecoveryPlan planLocalRecovery(const std::vector<LogAccount>& accounts, std::int64_t restorable) {
  std::vector<int> lost;
  for (std::size_t r = 0; r < accounts.size(); ++r) {
    if (accounts[r].restarted) lost.push_back(static_cast<int>(r));
  }
  if (lost.size() != 1) {
    return global(std::to_string(lost.size()) + " ranks lost at once (local rollback replays one)");
  }
  const int size = static_cast<int>(accounts.size());
  const int dead = lost.front();
  // A replacement cannot replay when its predecessor's determinants are lost.
  if (!accounts[dead].replayable) return global("rank " + std::to_string(dead) + ": " + accounts[dead].why_not);
  for (int s = 0; s < size; ++s) {
    if (s == dead) continue;
    const LogAccount& a = accounts[s];
    if (!a.replayable) return global("rank " + std::to_string(s) + ": " + a.why_not);
    if (a.line != restorable) {
      return global("rank " + std::to_string(s) + "'s log starts at checkpoint line " + std::to_string(a.line) +
                    ", the checkpoint every rank can restore is " + std::to_string(restorable) +
                    " (the failure came during a checkpoint)");
    }
  }

  LocalRecoveryPlan plan;
  plan.local = true;
  plan.lost = dead;
  plan.line = restorable;
  std::uint64_t most_collectives = 0;
  for (int s = 0; s < size; ++s) {
    if (s == dead) continue;
    for (const auto& [channel, sent] : accounts[s].sent) {
      if (channel.peer < 0 || channel.peer >= size) continue;
      // The replacement restarted from the line: it has received nothing.
      const std::uint64_t received =
          channel.peer == dead ? 0 : countOf(accounts[channel.peer].received, Channel{s, channel.tag});
      if (received > sent) {
        return global("rank " + std::to_string(channel.peer) + " received " + std::to_string(received) +
                      " messages with tag " + std::to_string(channel.tag) + " from rank " + std::to_string(s) +
                      ", which sent " + std::to_string(sent));
      }
      if (received < sent) plan.resends.push_back({s, channel, received});
    }
    for (const auto& [channel, received] : accounts[s].received) {
      if (channel.peer == dead) plan.replacement_skips[Channel{s, channel.tag}] = received;
    }
    most_collectives = std::max(most_collectives, accounts[s].collectives);
    if (keepsCollectiveResults(s) && accounts[s].collectives > plan.collectives) {  // ties: the lowest rank
      plan.collectives = accounts[s].collectives;
      plan.collectives_from = s;
    }
  }
  if (most_collectives > plan.collectives) {
    return global("a survivor completed " + std::to_string(most_collectives) +
                  " collectives since the line, the surviving keepers of their results " +
                  std::to_string(plan.collectives));
  }
  return plan;
}

RankReplay replayFor(const LocalRecoveryPlan& plan, int rank) {
  RankReplay replay;
  if (!plan.local) return replay;
  if (rank == plan.lost) replay.skips = plan.replacement_skips;
  return replay;
}

std::string describe(const LocalRecoveryPlan& plan) {
  if (!plan.local) return "global rollback: " + plan.why_global;
  std::uint64_t skipped = 0;
  for (const auto& [channel, n] : plan.replacement_skips) skipped += n;
  std::string text = "local rollback of rank " + std::to_string(plan.lost) + " from checkpoint line " +
                     std::to_string(plan.line) + " (channels to resend " + std::to_string(plan.resends.size()) +
                     ", its sends to skip " + std::to_string(skipped) + ", collectives to hand over " +
                     std::to_string(plan.collectives);
  if (plan.collectives_from >= 0) text += " from rank " + std::to_string(plan.collectives_from);
  return text + ")";
}

}  // namespace ftb::mpi_bridge
