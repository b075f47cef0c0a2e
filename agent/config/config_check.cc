#include "agent/config/config_check.h"

#include <charconv>

#include "agent/security/namespace_policy.h"
#include "client/curve_keys.h"
#include "client/transport/unix_endpoint.h"

namespace ftb::agent {
namespace {

// "tcp://host:port" with a port 0..65535 (0: any free port).
Status checkTcpAddress(const char* option, const std::string& value) {
  const std::string prefix = "tcp://";
  const auto colon = value.rfind(':');
  bool port_ok = colon != std::string::npos && colon > prefix.size();
  if (port_ok) {  // only then is there a port to point at
    unsigned port = 0;
    const char* begin = value.data() + colon + 1;
    const char* end = value.data() + value.size();
    port_ok = begin != end && std::from_chars(begin, end, port).ptr == end && port <= 65535;
  }
  if (value.rfind(prefix, 0) != 0 || !port_ok) {
    return invalidArgument(std::string(option) + " '" + value +
                           "' is not tcp://HOST:PORT (port 0-65535)");
  }
  return {};
}

Status checkEndpoints(const AgentConfig& c) {
  const bool ipc_off = c.ipc_endpoint.empty() || c.ipc_endpoint == "none";
  const bool tcp_off = c.tcp_endpoint.empty() || c.tcp_endpoint == "none";
  if (!ipc_off && (c.ipc_endpoint.rfind("ipc://", 0) != 0 || c.ipc_endpoint.size() == 6)) {
    return invalidArgument("ipc-endpoint '" + c.ipc_endpoint + "' is not ipc://PATH or none");
  }
  if (!tcp_off) {
    if (Status s = checkTcpAddress("tcp-endpoint", c.tcp_endpoint); !s.ok()) return s;
  }
  const std::string local = localEndpoint(c);
  const bool local_off = local.empty();
  if (!local_off && !unixSocketAddress(local).ok()) {
    return invalidArgument("local-endpoint '" + local + "' is not unix://PATH (at most 107 bytes), "
                           "auto or none");
  }
  if (ipc_off && tcp_off && local_off) {
    return invalidArgument("no endpoint to listen on: set ipc-endpoint, local-endpoint and/or tcp-endpoint");
  }
  for (const std::string& seed : c.tree_seeds) {
    if (Status s = checkTcpAddress("tree-seeds entry", seed); !s.ok()) return s;
  }
  if (!c.tree_seeds.empty() && tcp_off) {
    return invalidArgument("tree-seeds need a tcp-endpoint (agents link over TCP)");
  }
  return {};
}

}  // namespace

std::string treeDisabledNotice(const AgentConfig& config) {
  const bool tcp_off = config.tcp_endpoint.empty() || config.tcp_endpoint == "none";
  if (tcp_off || treeEnabled(config)) return "";
  std::string notice =
      "tree off: no cluster key (curve-key-file), so this agent serves its clients but forms no "
      "tree and refuses every agent that tries to join it";
  if (!config.tree_seeds.empty()) notice += " (tree-seeds are not joined)";
  return notice +
         ". To enable the tree, give every agent the cluster key: ftbctl keygen --out "
         "/etc/ftb/cluster on one node, the key on each (docs/SECURITY.md, 'Step by step: a cluster')";
}

Result<std::optional<CurveSetup>> loadCurveSetup(const AgentConfig& config) {
  if (config.curve_key_file.empty()) {
    if (!config.curve_server_key.empty() || !config.curve_authorized_keys.empty()) {
      return invalidArgument("--curve-server-key and --curve-authorized-keys need --curve-key-file");
    }
    return std::optional<CurveSetup>();
  }
  auto secret = curve::loadSecretKeyFile(config.curve_key_file);
  if (!secret.ok()) return secret.status();
  auto own_public = curve::publicKeyOf(*secret);
  if (!own_public.ok()) return invalidArgument(config.curve_key_file + ": " + own_public.status().message());
  CurveSetup setup{
      .keys = {.server_key = config.curve_server_key.empty() ? *own_public : config.curve_server_key,
               .public_key = *own_public,
               .secret_key = *secret},
      .authorized = {{*own_public, std::nullopt}}};
  if (!curve::isKey(setup.keys.server_key)) {
    return invalidArgument("--curve-server-key '" + setup.keys.server_key +
                           "' is not a Curve public key (40 Z85 characters)");
  }
  if (!config.curve_authorized_keys.empty()) {
    auto listed = curve::loadAuthorizedKeys(config.curve_authorized_keys);
    if (!listed.ok()) return listed.status();
    setup.authorized = std::move(listed).value();
    // Agents act for no user: a uid for their key would make every tree peer that user's client.
    if (auto it = setup.authorized.find(setup.keys.server_key); it != setup.authorized.end() && it->second) {
      return invalidArgument("authorized keys file " + config.curve_authorized_keys +
                             " maps the agents' key " + it->first +
                             " to a uid; map only client keys (docs/SECURITY.md)");
    }
  }
  return std::optional<CurveSetup>(std::move(setup));
}

Status checkAgentConfig(const AgentConfig& config) {
  if (Status s = checkEndpoints(config); !s.ok()) return s;
  if (auto policy = NamespacePolicy::load(config.policy_file); !policy.ok()) return policy.status();
  return loadCurveSetup(config).status();
}

}  // namespace ftb::agent
