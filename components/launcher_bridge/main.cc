// ftb-run: starts an MPI job with mpirun on a set of nodes plus hot spares and
// manages it through the backplane until it ends (README.md). The logic
// lives in the launcher_bridge library; this file parses flags and wires it.
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "components/launcher_bridge/job_channel.h"
#include "components/launcher_bridge/launcher.h"
#include "components/launcher_bridge/node_admin.h"
#include "components/launcher_bridge/rank_exec.h"
#include "components/launcher_bridge/rules.h"
#include "components/launcher_bridge/stop_request.h"

namespace {

std::string selfPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "ftb-run";
}

// The event spaces whose events the launcher needs besides its rules'.
std::vector<std::string> subscriptions(const std::vector<ftb::launcher::Rule>& rules, const std::string& runtime,
                                       const std::string& job_id) {
  std::vector<std::string> filters{"event_space=" + runtime,
                                   "event_name=" + std::string(ftb::launcher::kStopRequest) + ", jobid=" + job_id};
  for (const auto& rule : rules) {
    if (std::find(filters.begin(), filters.end(), rule.filter.text()) == filters.end()) {
      filters.push_back(rule.filter.text());
    }
  }
  return filters;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ftb::launcher;
  if (argc > 3 && std::string(argv[1]) == "--keep" && std::string(argv[3]) == "--") {
    return keepProcess(argv[2], std::vector<std::string>(argv + 4, argv + argc));
  }
  if (argc > 1 && std::string(argv[1]) == "--rank-exec") {
    std::vector<std::string> program(argv + 2, argv + argc);
    if (!program.empty() && program[0] == "--") program.erase(program.begin());
    return rankExec(program);
  }

  LauncherOptions options;
  std::string nodes, spares, rules_file, agent, slurm = "auto", log_level = "info";
  int ranks_per_node = 1;
  bool print_rules = false;
  std::vector<std::string> program;
  CLI::App app{
      "ftb-run: launches an MPI job with mpirun on --nodes plus hot --spares and manages it\n"
      "through the backplane: rules turn hardware and runtime events into checkpoints,\n"
      "migrations to spares and relaunches (components/launcher_bridge/README.md).\n"
      "Usage: ftb-run --job ID --nodes n1,n2,n3 --spares n4 [options] -- program args",
      "ftb-run"};
  app.add_option("--job", options.job_id, "Job id, [A-Z0-9_]+ (namespaces FTB.JL.<job>, FTB.NLA.<job>)");
  std::string stop_job, resume_job, adopt_job;
  app.add_option("--adopt", adopt_job,
                 "Take over a running job whose ftb-run died, from its journal in --state-dir, without "
                 "restarting it");
  app.add_option("--stop", stop_job,
                 "Ask the ftb-run managing this job to checkpoint it at --stop-level and stop it for a later "
                 "--resume; waits for the answer (exit 0 stopped, 1 refused or failed, 3 no answer)");
  app.add_option("--resume", resume_job,
                 "Start a job stopped with --stop again from its checkpoint, on --nodes (default: where it ran) "
                 "with its recorded program, unless another is given after --");
  app.add_option("--min-spares", options.min_spares,
                 "Inside Slurm: with fewer spares than this, ask Slurm for more nodes (a companion allocation)")
      ->capture_default_str();
  app.add_option("--state-dir", options.state_dir, "Where the records of stopped jobs are kept")
      ->capture_default_str();
  app.add_option("--stop-level", options.stop_level, "Checkpoint level taken to stop (one that outlives the job)")
      ->capture_default_str();
  app.add_option("--stop-deadline-ms", options.stop_deadline_ms,
                 "How long the final checkpoint and the exit may take after a stop request")
      ->capture_default_str();
  app.add_option("--nodes", nodes, "Nodes that run ranks, comma-separated (default: the Slurm allocation)");
  app.add_option("--spares", spares, "Hot-spare nodes, comma-separated");
  int spare_count = 1;
  app.add_option("--slurm-spares", spare_count,
                 "In a Slurm allocation without --nodes: how many of its nodes are spares")->capture_default_str();
  app.add_option("--ranks-per-node", ranks_per_node, "Ranks on each job node")->capture_default_str();
  app.add_option("--rules", rules_file, "Rules file (default: the embedded rules, see --print-rules)");
  app.add_flag("--print-rules", print_rules, "Print the embedded default rules and exit");
  app.add_flag("--dry-run", options.dry_run, "Only publish FTB_DECISION (dry_run=1); never act");
  app.add_option("--max-restarts", options.max_restarts, "Relaunches allowed before the job fails")
      ->capture_default_str();
  app.add_option("--checkpoint-every-s", options.checkpoint_every_s, "Timer checkpoint period (0: none)")
      ->capture_default_str();
  app.add_option("--checkpoint-deadline-ms", options.checkpoint_deadline_ms,
                 "How long a checkpoint may take before it is reported missed")->capture_default_str();
  app.add_option("--migrate-deadline-ms", options.migrate_deadline_ms,
                 "How long the job may take to exit after FTB_MIGRATE")->capture_default_str();
  app.add_option("--death-settle-ms", options.death_settle_ms,
                 "A rank's last will (FTB_MPI_PROCS_DEAD) ends the run at once; deaths are gathered until "
                 "every job node reported some (then the rules decide), at most this long")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  app.add_flag("--run-through", options.run_through,
               "The MPI runs through a rank's death (Open MPI 5 with ULFM: adds --with-ft ulfm): the runtime "
               "replaces the rank within the run; the relaunch path only when it cannot");
  app.add_flag("--node-encoders", options.node_encoders,
               "One more process per node as its dedicated checkpoint encoder (FTBCKPT_ENCODER=node): the ranks "
               "hand it the partner copies and parity of their checkpoints and compute on");
  app.add_option("--run-through-deadline-ms", options.run_through_deadline_ms,
                 "How long a rank's death may go without the runtime's FTB_RUN_THROUGH computing before the "
                 "job is relaunched")
      ->check(CLI::Range(1, 600000))
      ->capture_default_str();
  app.add_option("--finalize-grace-ms", options.finalize_grace_ms,
                 "Once every rank said FTB_RANK_FINISHED, how long mpirun may take to exit before it is ended "
                 "(the run still counts as finished)")
      ->check(CLI::Range(0, 600000))
      ->capture_default_str();
  app.add_option("--agent", agent, "ftb-agent endpoint (default $FTB_AGENT_ENDPOINT or the local socket)");
  app.add_option("--mpirun", options.job.mpirun, "mpirun program")->capture_default_str();
  // One value per occurrence: otherwise CLI11 reads a following "--" as the end
  // of this option's values, and the program's own options become ftb-run's.
  app.add_option("--mpirun-arg", options.job.mpirun_args, "Extra mpirun argument (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--runtime-space", options.runtime_space, "Event space of the checkpoint runtime")
      ->capture_default_str();
  app.add_option("--slurm", slurm, "Drain/resume nodes with scontrol: auto (inside an allocation), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))->capture_default_str();
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  app.add_option("program", program, "The MPI program and its arguments (after --)");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::from_str(log_level));

  if (print_rules) {
    std::cout << kDefaultRules;
    return 0;
  }
  if (!stop_job.empty()) {
    return requestStop(stop_job, agent, std::chrono::milliseconds(options.stop_deadline_ms + 10000));
  }
  if (!resume_job.empty()) {
    auto record = loadJobRecord(jobRecordPath(options.state_dir, resume_job));
    if (!record.ok()) {
      std::cerr << "ftb-run: --resume " << resume_job << ": " << record.status().message() << "\n";
      return 2;
    }
    if (record->state != "stopped") {
      std::cerr << "ftb-run: job " << resume_job << " is recorded as '" << record->state << "', not stopped\n";
      return 2;
    }
    options.job_id = resume_job;
    if (nodes.empty()) nodes = joinList(record->nodes);
    if (spares.empty()) spares = joinList(record->spares);
    // The same rank count on any node count that divides it.
    const int ranks =
        record->ranks > 0 ? record->ranks : static_cast<int>(record->nodes.size()) * record->ranks_per_node;
    const int node_count = static_cast<int>(splitList(nodes).size());
    if (node_count == 0 || ranks % node_count != 0) {
      std::cerr << "ftb-run: job " << resume_job << " has " << ranks << " ranks: give --nodes a count that divides it\n";
      return 2;
    }
    ranks_per_node = ranks / node_count;
    if (program.empty()) program = record->program;
    if (options.job.mpirun_args.empty()) options.job.mpirun_args = record->mpirun_args;
    options.run_through = options.run_through || record->run_through;
    options.node_encoders = options.node_encoders || record->node_encoders;
    options.resumed_from = *record;
  }
  if (!adopt_job.empty()) {
    auto journal = loadJobRecord(jobRecordPath(options.state_dir, adopt_job));
    if (!journal.ok()) {
      std::cerr << "ftb-run: --adopt " << adopt_job << ": " << journal.status().message() << "\n";
      return 2;
    }
    if (journal->state != "running") {
      std::cerr << "ftb-run: job " << adopt_job << " is recorded as '" << journal->state << "': nothing to adopt"
                << (journal->state == "stopped" ? " (ftb-run --resume starts it again)" : "") << "\n";
      return 2;
    }
    options.job_id = adopt_job;
    program = journal->program;
    options.job.mpirun = journal->mpirun;
    options.job.mpirun_args = journal->mpirun_args;
    options.run_through = journal->run_through;
    options.node_encoders = journal->node_encoders;
    ranks_per_node = journal->ranks_per_node;
    options.adopt = *journal;
  }
  if (options.job_id.empty()) {
    std::cerr << "ftb-run: --job is required (or --stop JOB, --resume JOB, --adopt JOB)\n";
    return 2;
  }
  if (adopt_job.empty() && !options.dry_run) {
    // One ftb-run per job: a live one (or its job, under its keeper) is adopted, not doubled.
    auto journal = loadJobRecord(jobRecordPath(options.state_dir, options.job_id));
    if (journal.ok() && journal->state == "running" && journal->keeper_pid > 0 && kill(journal->keeper_pid, 0) == 0) {
      std::cerr << "ftb-run: job " << options.job_id << " is running (mpirun's keeper is pid " << journal->keeper_pid
                << "): take it over with ftb-run --adopt " << options.job_id << "\n";
      return 2;
    }
  }
  if (!std::regex_match(options.job_id, std::regex("[A-Z0-9_]+"))) {
    std::cerr << "ftb-run: --job '" << options.job_id << "' must be upper case letters, digits and _\n";
    return 2;
  }
  if (program.empty()) {
    std::cerr << "ftb-run: no program given (ftb-run ... -- program args)\n";
    return 2;
  }
  const bool in_slurm = std::getenv("SLURM_JOB_NODELIST") != nullptr;
  std::vector<std::string> node_list = splitList(nodes);
  std::vector<std::string> spare_list = splitList(spares);
  if (node_list.empty() && in_slurm) {
    auto hosts = runProgram({"scontrol", "show", "hostnames", std::getenv("SLURM_JOB_NODELIST")});
    if (!hosts.ok()) {
      std::cerr << "ftb-run: reading the Slurm allocation: " << hosts.status().message() << "\n";
      return 2;
    }
    node_list = splitList(*hosts, '\n');
    for (int i = 0; i < spare_count && node_list.size() > 1; ++i) {
      spare_list.insert(spare_list.begin(), node_list.back());
      node_list.pop_back();
    }
  }
  std::string rules_text(kDefaultRules);
  if (!rules_file.empty()) {
    std::ifstream in(rules_file);
    if (!in) {
      std::cerr << "ftb-run: cannot read rules file " << rules_file << "\n";
      return 2;
    }
    rules_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto rules = parseRules(rules_text);
  if (!rules.ok()) {
    std::cerr << "ftb-run: " << (rules_file.empty() ? "default rules" : rules_file) << ": "
              << rules.status().message() << "\n";
    return 2;
  }
  auto table = options.adopt ? NodeTable::restore(options.adopt->table)
                             : NodeTable::create(node_list, spare_list, ranks_per_node);
  if (!table.ok()) {
    std::cerr << "ftb-run: " << table.status().message() << " (--nodes, --spares, --ranks-per-node)\n";
    return 2;
  }
  if (!options.dry_run) options.keeper = selfPath();
  options.record.ranks_per_node = ranks_per_node;
  options.record.mpirun = options.job.mpirun;
  options.record.mpirun_args = options.job.mpirun_args;
  options.record.run_through = options.run_through;
  options.record.node_encoders = options.node_encoders;
  options.record.program = program;
  options.job.program = {selfPath(), "--rank-exec", "--"};
  options.job.program.insert(options.job.program.end(), program.begin(), program.end());

  // An adopter first catches up on what no ftb-run saw since its journal was written.
  auto channel = JobChannel::open(options.job_id, agent, subscriptions(*rules, options.runtime_space, options.job_id),
                                  options.adopt ? options.adopt->last_event : "");
  if (!channel.ok()) {
    std::cerr << "ftb-run: cannot reach the ftb-agent: " << channel.status().toString() << "\n";
    return 1;
  }
  NoNodeAdmin no_admin;
  SlurmNodeAdmin slurm_admin;
  const bool use_slurm = slurm == "on" || (slurm == "auto" && in_slurm);
  NodeAdmin& admin = use_slurm ? static_cast<NodeAdmin&>(slurm_admin) : no_admin;
  Policy policy(std::move(*rules), *table, options.job_id);
  spdlog::info("job {}: nodes {} spares {} node admin {}{}", options.job_id, table->hostList(), spares,
               admin.name(), options.dry_run ? " (dry run)" : "");
  if (!use_slurm) options.min_spares = 0;  // nobody to ask
  int code = 1;
  {
    Launcher launcher(options, **channel, policy, *table, admin);
    code = launcher.run();
  }  // after a request for nodes still under way (at most salloc's --immediate)
  admin.releaseNodes();
  (*channel)->close();
  return code;
}
