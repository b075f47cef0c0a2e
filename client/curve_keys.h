// CurveZMQ keys for ftb (docs/SECURITY.md): Z85 text, 40 characters.
// A key file holds one secret key on its first line (lines starting with # are
// comments; a key may itself contain #)
// and must be owned by root (or the user reading it) and readable by its owner
// only; an authorized-keys file lists public keys, one per line.
//
//   auto pair = ftb::curve::generateKeyPair();         // ftbctl keygen
//   auto secret = ftb::curve::loadSecretKeyFile("/etc/ftb/agent.key");
//   std::string pub = ftb::curve::publicKeyOf(*secret).value();
#pragma once

#include <set>
#include <string>

#include "client/status.h"

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
// Public keys, one per line (lines starting with # are comments, and text after
// the key on a line is ignored); a bad line is kInvalidArgument.
Result<std::set<std::string>> loadAuthorizedKeys(const std::string& path);

// Writes `pair` as <base>.key (secret, mode 0600) and <base>.pub (0644).
Status writeKeyFiles(const KeyPair& pair, const std::string& base);

}  // namespace ftb::curve
