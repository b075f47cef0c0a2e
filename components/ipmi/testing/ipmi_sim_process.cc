#include "components/ipmi/testing/ipmi_sim_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tests/support/spawn.h"

namespace ftb::ipmi::testing {
namespace {

// Connecting to a free port of the ephemeral range can connect a socket to
// itself (TCP simultaneous open, when the kernel picks that very port as the
// source): then no banner ever comes. Retried until ipmi_sim listens.
bool connectedToItself(int fd) {
  sockaddr_in local{}, peer{};
  socklen_t local_len = sizeof local, peer_len = sizeof peer;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) {
    return true;  // not usable either way
  }
  return local.sin_port == peer.sin_port && local.sin_addr.s_addr == peer.sin_addr.s_addr;
}

using ftb::testing::freePort;
using ftb::testing::runfile;
using ftb::testing::spawn;
using ftb::testing::waitFor;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (auto p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size())) {
    text.replace(p, from.size(), to);
  }
  return text;
}

// sdrcomp -r output (raw SDR records back to back) as main_sdr_add commands.
std::string sdrCommands(const std::string& raw) {
  std::string out;
  for (std::size_t off = 0; off + 5 <= raw.size();) {
    const std::size_t len = 5 + static_cast<uint8_t>(raw[off + 4]);
    if (off + len > raw.size()) throw std::runtime_error("truncated SDR in sensors.bsdr");
    out += "main_sdr_add 0x20";
    for (std::size_t i = off; i < off + len; ++i) {
      char b[8];
      std::snprintf(b, sizeof b, " 0x%02x", static_cast<uint8_t>(raw[i]));
      out += b;
    }
    out += "\n";
    off += len;
  }
  return out;
}

}  // namespace


IpmiSimProcess::IpmiSimProcess(int lan_port) : lan_port_(lan_port == 0 ? freePort() : lan_port) {
  std::filesystem::create_directory(dir_.path() + "/state");
  start();
}

IpmiSimProcess::~IpmiSimProcess() { stop(); }

void IpmiSimProcess::writeConfig(int console_port) {
  const std::string sim = "components/ipmi/sim/";
  std::string lan = readFile(runfile(sim + "lan.conf.in"));
  lan = replaceAll(lan, "@LAN_PORT@", std::to_string(lan_port_));
  lan = replaceAll(lan, "@CONSOLE_PORT@", std::to_string(console_port));
  writeFile(dir_.path() + "/lan.conf", lan);
  const std::string emu = readFile(runfile(sim + "bmc.emu.in"));
  writeFile(dir_.path() + "/bmc.emu",
            replaceAll(emu, "@SDR_RECORDS@", sdrCommands(readFile(runfile(sim + "sensors.bsdr")))));
}

std::string IpmiSimProcess::log() const { return readFile(dir_.path() + "/sim.log"); }

void IpmiSimProcess::start() {
  const std::string binary = "/usr/bin/ipmi_sim";
  if (::access(binary.c_str(), X_OK) != 0) {
    throw std::runtime_error(binary + " not found: install Debian package openipmi "
                             "(deploy/install-deps.sh)");
  }
  for (int attempt = 1;; ++attempt) {
    // The console port was free when chosen; another process (or one of our
    // own connection attempts) may take it before ipmi_sim binds it.
    try {
      startOn(freePort());
      return;
    } catch (const std::runtime_error& e) {
      if (attempt == 3 || log().find("Address already in use") == std::string::npos) throw;
    }
  }
}

void IpmiSimProcess::startOn(int console_port) {
  const std::string binary = "/usr/bin/ipmi_sim";
  writeConfig(console_port);
  std::vector<std::string> args = {binary,          "-n", "-c", dir_.path() + "/lan.conf",
                                    "-f",            dir_.path() + "/bmc.emu",
                                    "-s",            dir_.path() + "/state"};
  // SIGPIPE ignored: see the header.
  pid_ = spawn(std::move(args), dir_.path() + "/sim.log", /*ignore_sigpipe=*/true);
  // The console opens after the command file has run: then the BMC is complete.
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(console_port));
  bool exited = false;
  const bool up = waitFor(
      [&] {
        int status;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
          exited = true;
          return true;
        }
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && !connectedToItself(fd)) {
          console_ = fd;
          return true;
        }
        ::close(fd);
        return false;
      },
      std::chrono::seconds(10));
  if (exited || !up) {
    if (!exited) kill();
    pid_ = -1;
    throw std::runtime_error("ipmi_sim did not start; its log:\n" + log());
  }
  readUntilPrompt();  // banner
  command("noecho");
}

std::string IpmiSimProcess::readUntilPrompt() {
  // Strips telnet negotiation (IAC, 3 bytes) and carriage returns. ipmi_sim
  // also copies its log lines to the console, so the first prompt is the
  // end of the reply and anything after it is left for later.
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    if (const auto p = text.find("> "); p != std::string::npos) return text.substr(0, p);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("ipmi_sim console: no prompt; got: " + text);
    pollfd p{console_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(console_, buf, sizeof buf, 0);
    if (n <= 0) throw std::runtime_error("ipmi_sim closed its console; log:\n" + log());
    for (ssize_t i = 0; i < n; ++i) {
      if (static_cast<uint8_t>(buf[i]) == 0xff) {
        i += 2;
      } else if (buf[i] != '\r') {
        text += buf[i];
      }
    }
  }
}

std::string IpmiSimProcess::command(const std::string& cmd) {
  if (console_ < 0) throw std::runtime_error("ipmi_sim is not running");
  // Drop log lines that arrived since the last command.
  char junk[4096];
  while (::recv(console_, junk, sizeof junk, MSG_DONTWAIT) > 0) {
  }
  const std::string line = cmd + "\n";
  if (::send(console_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
    throw std::runtime_error("ipmi_sim console: send failed");
  }
  std::string reply = readUntilPrompt();
  if (reply.find("**") != std::string::npos) {
    throw std::runtime_error("ipmi_sim rejected '" + cmd + "': " + reply);
  }
  return reply;
}

int IpmiSimProcess::addSel(const std::string& args) {
  const std::string reply = command("sel_add " + args);
  const auto p = reply.find("Added record ");
  if (p == std::string::npos) throw std::runtime_error("sel_add: unexpected reply " + reply);
  return std::stoi(reply.substr(p + 13));
}

void IpmiSimProcess::kill() {
  // Close our console end first so the port's TIME_WAIT stays on our side.
  if (console_ >= 0) ::close(console_);
  console_ = -1;
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

void IpmiSimProcess::stop() {
  if (console_ >= 0) ::close(console_);
  console_ = -1;
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status;
  if (!waitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, std::chrono::seconds(3))) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  pid_ = -1;
}

void IpmiSimProcess::restart() {
  stop();
  start();
}

}  // namespace ftb::ipmi::testing
