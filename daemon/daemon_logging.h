// How ftb's daemons (ftb-agent, ftb-ipmi, ftb-ib) write their log lines.
//
// Under systemd with stderr connected to the journal ($JOURNAL_STREAM names
// stderr's device:inode), every line goes to stderr with an sd-daemon
// priority prefix ("<3>" error ... "<7>" debug) and no timestamp of its own:
// the journal stores the priority (`journalctl -p err` finds errors) and
// stamps the time. Anywhere else the default spdlog format is kept.
//
//   ftb::daemon::setUpLogging("info");
//   spdlog::error("...");                                   // "<3>..." in the journal
//   ftb::daemon::reportStartupError("ftb-agent", message);  // one line, priority err
//
// Call setUpLogging once, from main, before any other thread logs.
#pragma once

#include <string_view>

namespace ftb::daemon {

// True when $JOURNAL_STREAM is "<dev>:<ino>" of the file descriptor `fd`.
bool isJournalStream(int fd);

// Sets the level (a name spdlog knows: trace ... off) and, when stderr is the
// journal, the journal format described above.
void setUpLogging(std::string_view level);

// "<program>: <message>" as one line on stderr; with the "<3>" prefix when
// stderr is the journal. For start-up errors that end the program.
void reportStartupError(std::string_view program, std::string_view message);

}  // namespace ftb::daemon
