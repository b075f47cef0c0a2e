#include "client/curve_keys.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "client/transport/zmq_socket.h"

namespace ftb::curve {
namespace {

constexpr std::size_t kZ85KeyLength = 40;

// The first word of each line that is not blank or a comment. Comments are
// whole lines starting with '#': Z85 keys may contain '#' themselves.
std::vector<std::string> keyLines(std::istream& in) {
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string word;
    if (words >> word && word[0] != '#') out.push_back(word);
  }
  return out;
}

}  // namespace

bool isKey(const std::string& z85) {
  if (z85.size() != kZ85KeyLength) return false;
  return z85Decode(z85).has_value();
}

Result<KeyPair> generateKeyPair() {
  auto pair = zmqCurveKeyPair();
  if (!pair.ok()) {
    return failedPrecondition("cannot generate a Curve key pair: " + pair.status().message() +
                              " (libzmq built without CURVE?)");
  }
  return KeyPair{pair->first, pair->second};
}

Result<std::string> publicKeyOf(const std::string& secret) {
  Result<std::string> pub = isKey(secret) ? zmqCurvePublicKey(secret) : invalidArgument("");
  if (!pub.ok()) {
    return invalidArgument("not a Curve secret key (40 Z85 characters, as ftbctl keygen writes)");
  }
  return pub;
}

Result<std::string> loadSecretKeyFile(const std::string& path) {
  // What to do about an unreadable key: the usual cause is a root-only key and
  // a daemon running as its own user (docs/SECURITY.md: LoadCredential=).
  auto unreadable = [&](int err) {
    std::string hint;
    if (err == ENOENT) {
      hint = "create it with ftbctl keygen";
    } else if (err == EACCES) {
      hint = "this process runs as uid " + std::to_string(::geteuid()) +
             "; keep the key root-only and hand it to a service with LoadCredential= "
             "(docs/SECURITY.md), or run as its owner";
    }
    return failedPrecondition("cannot read Curve key file " + path + ": " + std::strerror(err) +
                              (hint.empty() ? "" : " (" + hint + ")"));
  };
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return unreadable(errno);
  // A systemd credential (LoadCredential=: $CREDENTIALS_DIRECTORY, or
  // /run/credentials/<unit> as root sees it) belongs to the unit's user and
  // sits in a directory only that user may enter; its mode bits may show
  // group bits from an ACL. systemd keeps it private, not the bits checked below.
  const char* credentials = std::getenv("CREDENTIALS_DIRECTORY");
  const bool is_credential =
      path.rfind("/run/credentials/", 0) == 0 ||
      (credentials != nullptr && *credentials != '\0' && path.rfind(std::string(credentials) + "/", 0) == 0);
  if (!is_credential && st.st_uid != 0 && st.st_uid != ::geteuid()) {
    return Status(Code::kPermissionDenied, "Curve key file " + path + " is owned by uid " +
                                               std::to_string(st.st_uid) +
                                               "; it must belong to root (chown root " + path + ")");
  }
  if (!is_credential && (st.st_mode & 077) != 0) {
    return Status(Code::kPermissionDenied,
                  "Curve key file " + path + " is readable by others than its owner (mode " +
                      std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                      std::to_string(st.st_mode & 7) + "); run chmod 600 " + path);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return unreadable(errno);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  const int read_errno = errno;
  ::close(fd);
  if (n < 0) return unreadable(read_errno);
  std::istringstream in(text);
  const auto lines = keyLines(in);
  if (lines.empty() || !isKey(lines.front())) {
    return invalidArgument("Curve key file " + path +
                           " holds no secret key (40 Z85 characters on its first line)");
  }
  return lines.front();
}

namespace {

// The uid a `uid=N` or `user=NAME` word names.
Result<uint32_t> mappedUid(const std::string& word) {
  const std::size_t eq = word.find('=');
  const std::string kind = word.substr(0, eq), value = word.substr(eq + 1);
  if (kind == "uid") {
    uint32_t uid = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), uid);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || uid == UINT32_MAX) {
      return invalidArgument("'" + word + "' is not a uid (a number below 4294967295)");
    }
    return uid;
  }
  if (kind == "user") {
    const passwd* pw = getpwnam(value.c_str());
    if (pw == nullptr) return invalidArgument("'" + word + "' names no user of this node");
    return static_cast<uint32_t>(pw->pw_uid);
  }
  return invalidArgument("'" + word + "' is not a mapping (uid=N or user=NAME)");
}

}  // namespace

Result<AuthorizedKeys> loadAuthorizedKeys(const std::string& path) {
  std::ifstream in(path);
  if (!in) return failedPrecondition("cannot read authorized keys file " + path);
  AuthorizedKeys keys;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::istringstream words(line);
    std::string key, word;
    if (!(words >> key) || key[0] == '#') continue;
    const std::string where = "authorized keys file " + path + " line " + std::to_string(number) + ": ";
    if (!isKey(key)) {
      return invalidArgument(where + "'" + cutForMessage(key) + "' is not a Curve public key (40 Z85 characters)");
    }
    std::optional<uint32_t> uid;
    while (words >> word) {
      if (word.find('=') == std::string::npos) continue;  // a label
      Result<uint32_t> mapped = mappedUid(word);
      if (!mapped.ok()) return invalidArgument(where + mapped.status().message());
      if (uid) return invalidArgument(where + "maps the key twice; give one uid= or user=");
      uid = *mapped;
    }
    auto [it, fresh] = keys.try_emplace(key, uid);
    if (!fresh && it->second != uid) {
      return invalidArgument(where + "lists key " + key + " again with another mapping");
    }
  }
  return keys;
}

Status writeKeyFiles(const KeyPair& pair, const std::string& base) {
  const std::string secret_path = base + ".key", public_path = base + ".pub";
  const mode_t old_umask = ::umask(077);  // the secret is never readable by others, not even briefly
  {
    std::ofstream out(secret_path, std::ios::trunc);
    out << "# ftb Curve secret key: keep it readable by root only\n" << pair.secret_key << "\n";
    if (!out) {
      ::umask(old_umask);
      return failedPrecondition("cannot write " + secret_path);
    }
  }
  ::umask(old_umask);
  ::chmod(secret_path.c_str(), 0600);
  std::ofstream out(public_path, std::ios::trunc);
  out << pair.public_key << "\n";
  if (!out) return failedPrecondition("cannot write " + public_path);
  ::chmod(public_path.c_str(), 0644);
  return {};
}

}  // namespace ftb::curve
