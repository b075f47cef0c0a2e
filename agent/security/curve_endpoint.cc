#include "agent/security/curve_endpoint.h"

#include <spdlog/spdlog.h>

#include "agent/config/config_check.h"

namespace ftb::agent {

Result<std::unique_ptr<CurveEndpoint>> CurveEndpoint::start(const AgentConfig& config,
                                                            ZmqContext& context) {
  auto setup = loadCurveSetup(config);
  if (!setup.ok()) return setup.status();
  if (!setup->has_value()) return std::unique_ptr<CurveEndpoint>();
  auto authenticator = CurveAuthenticator::start(context, std::move((*setup)->authorized));
  if (!authenticator.ok()) return authenticator.status();
  std::unique_ptr<CurveEndpoint> curve(
      new CurveEndpoint(std::move((*setup)->keys), std::move(authenticator).value()));
  spdlog::info("Curve on: TCP clients and tree links need an authorized key (this agent's public key {})",
               curve->keys_.public_key);
  return curve;
}

Status CurveEndpoint::secure(ZmqSocket& socket) const {
  Status s = socket.set(ZmqTextOption::kZapDomain, "ftb");
  if (s.ok()) s = socket.set(ZmqOption::kCurveServer, 1);
  if (s.ok()) s = socket.set(ZmqTextOption::kCurveSecretKey, keys_.secret_key);
  if (!s.ok()) return internalError("cannot enable Curve on the TCP endpoint: " + s.message());
  return {};
}

void CurveEndpoint::addStatus(proto::StatusReply& reply) const {
  reply.mutable_counters()->set_auth_refused(authenticator_->refused());
  reply.set_last_auth_refusal(authenticator_->lastRefusal());
}

}  // namespace ftb::agent
