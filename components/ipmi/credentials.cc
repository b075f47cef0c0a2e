#include "components/ipmi/credentials.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ftb::ipmi {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

Result<CredentialsFile> CredentialsFile::load(const std::string& path, uid_t required_owner) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return failedPrecondition("cannot read credentials file " + path + ": " +
                              std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return failedPrecondition("credentials file " + path + " is not a regular file");
  }
  if (st.st_uid != required_owner) {
    return Status(Code::kPermissionDenied,
                  "credentials file " + path + " is owned by uid " + std::to_string(st.st_uid) +
                      "; it must be owned by root and readable only by root "
                      "(chown root:root " + path + "; chmod 600 " + path + ")");
  }
  if ((st.st_mode & 077) != 0) {
    return Status(Code::kPermissionDenied,
                  "credentials file " + path + " has mode " + octal(st.st_mode) +
                      "; it must be readable only by root (chmod 600 " + path + ")");
  }
  std::ifstream in(path);
  if (!in) return failedPrecondition("cannot open credentials file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

Result<CredentialsFile> CredentialsFile::parse(const std::string& text, const std::string& origin) {
  CredentialsFile file;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string target, user;
    fields >> target >> user;
    std::string password;
    std::getline(fields, password);
    password = trim(password);
    const std::string where = origin + ":" + std::to_string(n);
    if (user.empty() || password.empty()) {
      return invalidArgument(where + ": expected 'target username password'");
    }
    if (user.size() > 16 || password.size() > 20) {
      return invalidArgument(where + ": IPMI limits user names to 16 and passwords to 20 bytes");
    }
    if (!file.entries_.emplace(target, Credentials{user, password}).second) {
      return invalidArgument(where + ": target '" + target + "' is listed twice");
    }
  }
  return file;
}

std::optional<Credentials> CredentialsFile::lookup(const std::string& name,
                                                   const std::string& address) const {
  for (const std::string& key : {name, address, std::string("*")}) {
    if (auto it = entries_.find(key); it != entries_.end()) return it->second;
  }
  return std::nullopt;
}

}  // namespace ftb::ipmi
