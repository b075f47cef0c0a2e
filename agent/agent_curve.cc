// CurveZMQ for the agent (docs/SECURITY.md): the TCP endpoint is a Curve
// server whose ZAP handler admits authorized keys only; tree links connect as
// Curve clients with this agent's key pair. IPC stays unencrypted: local
// clients are identified by their uid.
#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "client/curve_keys.h"

namespace ftb::agent {

Status Agent::startCurve() {
  if (config_.curve_key_file.empty()) {
    if (!config_.curve_server_key.empty() || !config_.curve_authorized_keys.empty()) {
      return invalidArgument("--curve-server-key and --curve-authorized-keys need --curve-key-file");
    }
    return {};
  }
  auto secret = curve::loadSecretKeyFile(config_.curve_key_file);
  if (!secret.ok()) return secret.status();
  auto own_public = curve::publicKeyOf(*secret);
  if (!own_public.ok()) return invalidArgument(config_.curve_key_file + ": " + own_public.status().message());
  CurveClientKeys keys{.server_public = config_.curve_server_key.empty() ? *own_public : config_.curve_server_key,
                       .public_key = *own_public,
                       .secret_key = *secret};
  if (!curve::isKey(keys.server_public)) {
    return invalidArgument("--curve-server-key '" + keys.server_public +
                           "' is not a Curve public key (40 Z85 characters)");
  }
  std::set<std::string> authorized{*own_public};
  if (!config_.curve_authorized_keys.empty()) {
    auto listed = curve::loadAuthorizedKeys(config_.curve_authorized_keys);
    if (!listed.ok()) return listed.status();
    authorized = std::move(listed).value();
  }
  auto auth = CurveAuthenticator::start(context_, std::move(authorized));
  if (!auth.ok()) return auth.status();
  curve_auth_ = std::move(auth).value();
  // Agents link with the key pair they share: its public half is the server key.
  admission_.setAgentsCurveKey(keys.server_public);
  curve_keys_ = std::move(keys);
  spdlog::info("Curve on: TCP clients and tree links need an authorized key (this agent's public key {})",
               curve_keys_->public_key);
  return {};
}

Status Agent::secureTcpEndpoint() {
  if (!curve_keys_) return {};
  try {
    // Options apply to endpoints bound after they are set: IPC (bound first) stays plain.
    socket_.set(zmq::sockopt::zap_domain, "ftb");
    socket_.set(zmq::sockopt::curve_server, 1);
    socket_.set(zmq::sockopt::curve_secretkey, curve_keys_->secret_key);
  } catch (const zmq::error_t& e) {
    return internalError(std::string("cannot enable Curve on the TCP endpoint: ") + e.what());
  }
  return {};
}

}  // namespace ftb::agent
