#include "cli/curve_options.h"

#include "client/curve_keys.h"

namespace ftb::cli {
namespace {

// A Z85 public key as is, or the one key in a file (a .pub written by keygen).
Result<std::string> serverKeyFrom(const std::string& value) {
  if (curve::isKey(value)) return value;
  Result<curve::AuthorizedKeys> keys = curve::loadAuthorizedKeys(value);
  if (!keys.ok()) {
    return failedPrecondition("--curve-server-key '" + value +
                              "' is neither a Curve public key (40 Z85 characters) nor a "
                              "readable file holding one: " +
                              keys.status().message());
  }
  if (keys->size() != 1) {
    return failedPrecondition("--curve-server-key file " + value + " holds " +
                              std::to_string(keys->size()) +
                              " keys; it must hold exactly one (the agents' public key)");
  }
  return keys->begin()->first;
}

}  // namespace

Result<CurveClientKeys> resolveCurveKeys(const std::string& key_file,
                                         const std::string& server_key) {
  if (key_file.empty()) {
    if (server_key.empty()) return CurveClientKeys{};
    return invalidArgument(
        "--curve-server-key needs --curve-key-file (this client's own key pair, whose public "
        "key the agents authorize; ftbctl keygen makes one)");
  }
  Result<std::string> secret = curve::loadSecretKeyFile(key_file);
  if (!secret.ok()) {
    return failedPrecondition("--curve-key-file: " + secret.status().message());
  }
  Result<std::string> public_key = curve::publicKeyOf(*secret);
  if (!public_key.ok()) {
    return failedPrecondition("--curve-key-file " + key_file + ": " +
                              public_key.status().message());
  }
  CurveClientKeys keys{.server_key = *public_key, .public_key = *public_key, .secret_key = *secret};
  if (!server_key.empty()) {
    Result<std::string> server = serverKeyFrom(server_key);
    if (!server.ok()) return server.status();
    if (*server == keys.secret_key) {  // e.g. --curve-server-key /etc/ftb/cluster.key
      return invalidArgument("--curve-server-key " + server_key +
                             " is the secret key of --curve-key-file; give the agents' public key "
                             "(the .pub file ftbctl keygen wrote next to it)");
    }
    keys.server_key = *server;
  }
  return keys;
}

}  // namespace ftb::cli
