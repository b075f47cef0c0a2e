// CurveZMQ for the agent (docs/SECURITY.md): the TCP endpoint is a Curve
// server whose ZAP handler admits authorized keys only; tree links connect as
// Curve clients with this agent's key pair. IPC stays unencrypted: local
// clients are identified by their uid.
#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/config/config_check.h"

namespace ftb::agent {

Status Agent::startCurve() {
  auto setup = loadCurveSetup(config_);
  if (!setup.ok()) return setup.status();
  if (!setup->has_value()) return {};
  CurveClientKeys keys = (*setup)->keys;
  auto auth = CurveAuthenticator::start(context_, std::move((*setup)->authorized));
  if (!auth.ok()) return auth.status();
  curve_auth_ = std::move(auth).value();
  // Agents link with the key pair they share: its public half is the server key.
  admission_.setAgentsCurveKey(keys.server_public);
  curve_keys_ = std::move(keys);
  spdlog::info("Curve on: TCP clients and tree links need an authorized key (this agent's public key {})",
               curve_keys_->public_key);
  return {};
}

void Agent::addAuthStatus(proto::StatusReply& reply) const {
  if (!curve_auth_) return;
  reply.mutable_counters()->set_auth_refused(curve_auth_->refused());
  reply.set_last_auth_refusal(curve_auth_->lastRefusal());
}

Status Agent::secureTcpEndpoint() {
  if (!curve_keys_) return {};
  // Options apply to endpoints bound after they are set: IPC (bound first) stays plain.
  Status s = socket_.set(ZmqTextOption::kZapDomain, "ftb");
  if (s.ok()) s = socket_.set(ZmqOption::kCurveServer, 1);
  if (s.ok()) s = socket_.set(ZmqTextOption::kCurveSecretKey, curve_keys_->secret_key);
  if (!s.ok()) return internalError("cannot enable Curve on the TCP endpoint: " + s.message());
  return {};
}

}  // namespace ftb::agent
