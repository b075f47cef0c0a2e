// The daemons' log format: "<N>" journal priorities and no timestamp when
// stderr is the journal stream named by $JOURNAL_STREAM, the plain format
// otherwise. stderr is redirected into a pipe the test reads back.
#define BOOST_TEST_MODULE daemon_logging
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <spdlog/spdlog.h>

#include "daemon/daemon_logging.h"

namespace {

// stderr goes into a pipe for the life of this object.
class CapturedStderr {
 public:
  CapturedStderr() {
    BOOST_REQUIRE(::pipe2(fds_, O_NONBLOCK) == 0);
    saved_ = ::dup(STDERR_FILENO);
    ::dup2(fds_[1], STDERR_FILENO);
  }
  ~CapturedStderr() {
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  // "dev:ino" of the pipe, as systemd would put it in $JOURNAL_STREAM.
  std::string streamId() const {
    struct stat st{};
    ::fstat(fds_[1], &st);
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  std::string read() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds_[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    return out;
  }

 private:
  int fds_[2] = {-1, -1};
  int saved_ = -1;
};

}  // namespace

BOOST_AUTO_TEST_CASE(journal_stream_is_recognised_only_for_its_own_device_and_inode) {
  CapturedStderr err;
  ::setenv("JOURNAL_STREAM", err.streamId().c_str(), 1);
  BOOST_TEST(ftb::daemon::isJournalStream(STDERR_FILENO));
  BOOST_TEST(!ftb::daemon::isJournalStream(STDIN_FILENO));
  ::setenv("JOURNAL_STREAM", "1:2", 1);
  BOOST_TEST(!ftb::daemon::isJournalStream(STDERR_FILENO));
  ::setenv("JOURNAL_STREAM", (err.streamId() + "x").c_str(), 1);
  BOOST_TEST(!ftb::daemon::isJournalStream(STDERR_FILENO));
  ::unsetenv("JOURNAL_STREAM");
  BOOST_TEST(!ftb::daemon::isJournalStream(STDERR_FILENO));
}

BOOST_AUTO_TEST_CASE(start_up_errors_carry_the_error_priority_only_on_the_journal) {
  CapturedStderr err;
  ::unsetenv("JOURNAL_STREAM");
  ftb::daemon::reportStartupError("ftb-test", "bad file");
  BOOST_TEST(err.read() == "ftb-test: bad file\n");
  ::setenv("JOURNAL_STREAM", err.streamId().c_str(), 1);
  ftb::daemon::reportStartupError("ftb-test", "bad file");
  BOOST_TEST(err.read() == "<3>ftb-test: bad file\n");
  ::unsetenv("JOURNAL_STREAM");
}

// Last: it replaces spdlog's default logger for the rest of the process.
BOOST_AUTO_TEST_CASE(on_the_journal_every_line_has_its_priority_and_no_timestamp) {
  CapturedStderr err;
  ::setenv("JOURNAL_STREAM", err.streamId().c_str(), 1);
  ftb::daemon::setUpLogging("debug");
  spdlog::critical("c");
  spdlog::error("e {}", 1);
  spdlog::warn("w");
  spdlog::info("i");
  spdlog::debug("d");
  spdlog::trace("t");  // below the level: not written
  BOOST_TEST(err.read() == "<2>c\n<3>e 1\n<4>w\n<6>i\n<7>d\n");
  ::unsetenv("JOURNAL_STREAM");
}
