// Runtime configuration, read once from the environment at ftbckpt_init
// (components/mpi_bridge/README.md lists the variables). Plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/fault_injection.h"

namespace ftb::mpi_bridge {

// Checkpoint levels; every level also writes L1.
enum class Level { kL1 = 1, kL2 = 2, kL3 = 3, kL4 = 4, kL5 = 5 };

// "L1".."L5" or "1".."5" (case-insensitive).
Result<Level> parseLevel(std::string_view text);
std::string levelName(Level level);

struct Config {
  std::string job_id = "LOCAL";   // FTB_JOB_ID: scopes shared memory and flush files
  std::string node_map;           // FTBCKPT_NODE_MAP: comma list, node of each world rank
  std::string node_name;          // FTB_NODE_NAME, else the hostname
  std::map<std::string, std::string> domain_of_node;  // FTBCKPT_DOMAIN_MAP node=domain,...
  Level level = Level::kL3;       // FTBCKPT_LEVEL
  Level migrate_level = Level::kL2;  // FTBCKPT_MIGRATE_LEVEL (>= L2: moved ranks rebuild)
  long interval = 0;              // FTBCKPT_INTERVAL: checkpoint every N loop iterations
  double mtbf_seconds = 0;        // FTBCKPT_MTBF: Young/Daly interval instead (0 = off)
  std::string schedule;           // FTBCKPT_SCHEDULE: multi-level schedule (schedule.h), "" = none
  int group_size = 4;             // FTBCKPT_GROUP_SIZE (>= 2)
  int rs_m = 2;                   // FTBCKPT_RS_M: L4 tolerates this many lost members
  std::string flush_dir;          // FTBCKPT_FLUSH_DIR: L5 target ("" = L5 unavailable)
  double flush_mbps = 0;          // FTBCKPT_FLUSH_MBPS: flush bandwidth cap (0 = none)
  bool agent = true;              // FTBCKPT_AGENT=0 disables the ftb bridge
  int agent_timeout_ms = 1000;    // FTBCKPT_AGENT_TIMEOUT_MS
  int poll_every = 1;             // FTBCKPT_POLL_EVERY: loop calls between request checks
  bool async = false;             // FTBCKPT_ASYNC=1: group part of L2-L4 in the background
  bool huge_pages = true;         // FTBCKPT_HUGE_PAGES=0: no MADV_HUGEPAGE on checkpoint memory
  bool node_encoder = false;      // FTBCKPT_ENCODER=node: a dedicated encoder process per node
  std::vector<int> encoder_cpus;  // FTBCKPT_ENCODER_CPUS: where encoders run ("" = where they were started)
  bool local_rollback = false;    // FTBCKPT_LOCAL_ROLLBACK=1: log the application's traffic (logged_mpi.h)
  int log_mb = 256;               // FTBCKPT_LOG_MB (>= 1): the log's bound per rank and epoch
  std::string corr_id;            // FTB_CORR_ID: correlation id of the recovery we are in
  bool hang_watch = true;         // FTBCKPT_HANG_WATCH=0: no watchdog thread (hang_watch.h)
  int hang_floor_ms = 1000;       // FTBCKPT_HANG_FLOOR_MS: a stall shorter than this is never announced
  double hang_factor = 3;         // FTBCKPT_HANG_FACTOR (>= 1): stalled past this many longest compute phases
  FaultInjection fault;           // FTBCKPT_FAULT, FTBCKPT_FAULT_ONCE: tests only (fault_injection.h)
};

// Reads and validates the environment; the message names the bad variable.
Result<Config> configFromEnvironment();

// The node this world rank runs on: FTBCKPT_NODE_MAP[rank], else node_name.
Result<std::string> nodeOfRank(const Config& config, int rank);

// `text` cut at every `sep` (empty parts kept): the environment's lists.
std::vector<std::string> split(const std::string& text, char sep);

// Names used in shared memory and file names: [A-Za-z0-9_.-]+.
bool isSafeName(std::string_view name);

}  // namespace ftb::mpi_bridge
