#include "components/launcher_bridge/job_record.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <type_traits>

#include "client/hex.h"
#include "client/wire/event_codec.h"

namespace ftb::launcher {
namespace {

std::string willToHex(const Event& will) {
  proto::Event wire;
  toProto(will, &wire);
  return hexEncode(wire.SerializeAsString());
}

std::optional<Event> willFromHex(const std::string& hex) {
  const std::optional<std::string> bytes = hexDecode(hex);
  proto::Event wire;
  if (!bytes || !wire.ParseFromString(*bytes)) return std::nullopt;
  return fromProto(wire);
}

}  // namespace

std::string jobRecordPath(const std::string& dir, const std::string& job_id) { return dir + "/" + job_id + ".job"; }

Status saveJobRecord(const std::string& path, const JobRecord& r) {
  std::ostringstream out;
  std::string bad;
  auto line = [&](const char* key, const std::string& value) {
    if (value.find('\n') != std::string::npos) bad = key;
    out << key << "=" << value << "\n";
  };
  line("job", r.job_id);
  line("state", r.state);
  line("attempt", std::to_string(r.attempt));
  line("corr", r.corr);
  line("level", r.level);
  for (const auto& n : r.nodes) line("node", n);
  for (const auto& s : r.spares) line("spare", s);
  line("ranks_per_node", std::to_string(r.ranks_per_node));
  if (r.ranks > 0) line("ranks", std::to_string(r.ranks));
  line("mpirun", r.mpirun);
  for (const auto& a : r.mpirun_args) line("mpirun_arg", a);
  if (r.run_through) line("run_through", "1");
  if (r.node_encoders) line("node_encoders", "1");
  for (const auto& p : r.program) line("program", p);
  line("started", std::to_string(r.started));
  line("process_failures", std::to_string(r.process_failures));
  line("node_failures", std::to_string(r.node_failures));
  if (r.keeper_pid > 0) line("keeper_pid", std::to_string(r.keeper_pid));
  if (!r.exit_file.empty()) line("exit_file", r.exit_file);
  line("computing", r.computing ? "1" : "0");
  for (const auto& t : r.table) line("table", t);
  if (!r.last_event.empty()) line("last_event", r.last_event);
  if (r.repair_until_ms > 0) {
    line("repair_until_ms", std::to_string(r.repair_until_ms));
    line("repair_corr", r.repair_corr);
    if (r.repair_will) line("repair_will", willToHex(*r.repair_will));
  }
  for (const auto& [rank, at] : r.run_through_done) {
    line("run_through_done", std::to_string(rank) + " " + std::to_string(at.first) + " " + std::to_string(at.second));
  }
  if (!bad.empty()) return invalidArgument("job record field '" + bad + "' holds a newline");

  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return unavailable("cannot write " + tmp + ": " + std::strerror(errno));
  const std::string text = out.str();
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!written || std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return unavailable("cannot write " + path + ": " + std::strerror(written ? errno : saved_errno));
  }
  return {};
}

Result<JobRecord> loadJobRecord(const std::string& path) {
  std::ifstream in(path);
  if (!in) return notFound("no job record " + path + ": was the job stopped with ftb-run --stop?");
  JobRecord r;
  int number = 0;
  for (std::string text; std::getline(in, text);) {
    ++number;
    const auto eq = text.find('=');
    if (eq == std::string::npos) {
      return invalidArgument(path + ":" + std::to_string(number) + ": '" + text + "' is not key=value");
    }
    const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
    auto number_of = [&](auto* field) -> Status {
      char* end = nullptr;
      const long v = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || v < 0) {
        return invalidArgument(path + ":" + std::to_string(number) + ": " + key + " '" + value + "' is not a number");
      }
      *field = static_cast<std::remove_pointer_t<decltype(field)>>(v);
      return {};
    };
    if (key == "job") r.job_id = value;
    else if (key == "state") r.state = value;
    else if (key == "attempt") { if (Status s = number_of(&r.attempt); !s.ok()) return s; }
    else if (key == "corr") r.corr = value;
    else if (key == "level") r.level = value;
    else if (key == "node") r.nodes.push_back(value);
    else if (key == "spare") r.spares.push_back(value);
    else if (key == "ranks_per_node") { if (Status s = number_of(&r.ranks_per_node); !s.ok()) return s; }
    else if (key == "ranks") { if (Status s = number_of(&r.ranks); !s.ok()) return s; }
    else if (key == "mpirun") r.mpirun = value;
    else if (key == "mpirun_arg") r.mpirun_args.push_back(value);
    else if (key == "run_through") r.run_through = value == "1";
    else if (key == "node_encoders") r.node_encoders = value == "1";
    else if (key == "program") r.program.push_back(value);
    else if (key == "started") { if (Status s = number_of(&r.started); !s.ok()) return s; }
    else if (key == "process_failures") { if (Status s = number_of(&r.process_failures); !s.ok()) return s; }
    else if (key == "node_failures") { if (Status s = number_of(&r.node_failures); !s.ok()) return s; }
    else if (key == "keeper_pid") { if (Status s = number_of(&r.keeper_pid); !s.ok()) return s; }
    else if (key == "exit_file") r.exit_file = value;
    else if (key == "computing") r.computing = value == "1";
    else if (key == "table") r.table.push_back(value);
    else if (key == "last_event") r.last_event = value;
    else if (key == "repair_until_ms") { if (Status s = number_of(&r.repair_until_ms); !s.ok()) return s; }
    else if (key == "repair_corr") r.repair_corr = value;
    else if (key == "repair_will") {
      r.repair_will = willFromHex(value);
      if (!r.repair_will) return invalidArgument(path + ":" + std::to_string(number) + ": repair_will is not an event");
    } else if (key == "run_through_done") {
      std::istringstream words(value);
      int rank = -1;
      int64_t sec = -1, nsec = -1;
      if (!(words >> rank >> sec >> nsec) || rank < 0 || sec < 0 || nsec < 0) {
        return invalidArgument(path + ":" + std::to_string(number) + ": run_through_done '" + value +
                               "' is not 'rank seconds nanoseconds'");
      }
      r.run_through_done[rank] = {sec, nsec};
    }
    else return invalidArgument(path + ":" + std::to_string(number) + ": unknown key '" + key + "'");
  }
  if (r.job_id.empty() || r.program.empty() || r.nodes.empty()) {
    return invalidArgument(path + " lacks the job, its nodes or its program");
  }
  return r;
}

}  // namespace ftb::launcher
