#include "daemon/daemon_logging.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace ftb::daemon {
namespace {

// syslog(3) priorities, as sd-daemon(3) prefixes carry them.
int journalPriority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical: return 2;  // LOG_CRIT
    case spdlog::level::err: return 3;       // LOG_ERR
    case spdlog::level::warn: return 4;      // LOG_WARNING
    case spdlog::level::info: return 6;      // LOG_INFO
    default: return 7;                       // LOG_DEBUG (trace, debug)
  }
}

// The "%*" pattern flag: "<N>" for the message's level.
class PriorityPrefix : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const char prefix[] = {'<', static_cast<char>('0' + journalPriority(msg.level)), '>'};
    dest.append(prefix, prefix + sizeof prefix);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PriorityPrefix>();
  }
};

}  // namespace

bool isJournalStream(int fd) {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long dev = 0, ino = 0;
  char tail = 0;
  if (std::sscanf(stream, "%llu:%llu%c", &dev, &ino, &tail) != 2) return false;
  struct stat st{};
  if (::fstat(fd, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev && static_cast<unsigned long long>(st.st_ino) == ino;
}

void setUpLogging(std::string_view level) {
  if (isJournalStream(STDERR_FILENO)) {
    // Lines go whole to the journal: one write per message, no colour codes.
    auto logger = std::make_shared<spdlog::logger>("", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<PriorityPrefix>('*').set_pattern("%*%v");
    logger->set_formatter(std::move(formatter));
    spdlog::set_default_logger(std::move(logger));
  }
  spdlog::set_level(spdlog::level::from_str(std::string(level)));
}

void reportStartupError(std::string_view program, std::string_view message) {
  const std::string line = std::string(isJournalStream(STDERR_FILENO) ? "<3>" : "") + std::string(program) +
                           ": " + std::string(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace ftb::daemon
