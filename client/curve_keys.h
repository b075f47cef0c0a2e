// CurveZMQ keys for ftb (docs/SECURITY.md): Z85 text, 40 characters.
// A key file holds one secret key on its first line (lines starting with # are
// comments; a key may itself contain #)
// and must be owned by root (or the user reading it) and readable by its owner
// only; an authorized-keys file lists public keys, one per line, each
// optionally mapped to the local user its holder acts as (`uid=N`, `user=NAME`).
//
//   auto pair = ftb::curve::generateKeyPair();         // ftbctl keygen
//   auto secret = ftb::curve::loadSecretKeyFile("/etc/ftb/agent.key");
//   std::string pub = ftb::curve::publicKeyOf(*secret).value();
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "client/status.h"

namespace ftb {

// The keys of a CurveZMQ client (an SDK client, ftbctl, an agent's tree link):
// the server's public key and this side's key pair, Z85. Empty server_key: no Curve.
struct CurveClientKeys {
  std::string server_key;
  std::string public_key;
  std::string secret_key;

  bool enabled() const { return !server_key.empty(); }
};

}  // namespace ftb

namespace ftb::curve {

struct KeyPair {
  std::string public_key;  // Z85
  std::string secret_key;  // Z85
};

Result<KeyPair> generateKeyPair();
// kInvalidArgument when `secret` is not a 40-character Z85 key.
Result<std::string> publicKeyOf(const std::string& secret);
bool isKey(const std::string& z85);

// kPermissionDenied when the file is readable by group or others or owned by
// someone other than root or this process's user (not checked for systemd
// credentials: under $CREDENTIALS_DIRECTORY or /run/credentials/, private to
// their unit); kFailedPrecondition when it cannot be read, with the errno text
// and what to do; kInvalidArgument when it holds no key. Messages name the file.
Result<std::string> loadSecretKeyFile(const std::string& path);
// An authorized public key -> the uid its holder acts as, if the file maps it.
using AuthorizedKeys = std::map<std::string, std::optional<uint32_t>>;
// Public keys, one per line (lines starting with # are comments). After the
// key, `uid=N` or `user=NAME` maps it to a local user (names are resolved
// now); other words are a label and ignored. A bad key, an unknown user, a
// mapping that is neither, two on one line, or one key listed with two
// mappings is kInvalidArgument naming the line.
Result<AuthorizedKeys> loadAuthorizedKeys(const std::string& path);

// Writes `pair` as <base>.key (secret, mode 0600) and <base>.pub (0644).
Status writeKeyFiles(const KeyPair& pair, const std::string& base);

}  // namespace ftb::curve
