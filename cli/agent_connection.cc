#include "cli/agent_connection.h"

namespace ftb::cli {

Result<ControlClient> connectControl(const GlobalOptions& globals) {
  return ControlClient::connect(globals.agent, globals.curve);
}

Result<std::unique_ptr<Client>> connectClient(const GlobalOptions& globals, ClientOptions options) {
  Result<ControlClient> control = connectControl(globals);
  if (!control.ok()) return control.status();
  if (auto status = control->status(globals.timeout()); !status.ok()) return status.status();

  options.agent_endpoint = globals.agent;
  options.connect_timeout = globals.timeout();
  options.request_timeout = globals.timeout();
  options.curve_server_key = globals.curve.server_key;
  options.curve_public_key = globals.curve.public_key;
  options.curve_secret_key = globals.curve.secret_key;
  Result<std::unique_ptr<Client>> client = Client::connect(std::move(options));
  if (!client.ok() && client.status().code() == Code::kUnavailable) {
    // The SDK's message speaks to programmers (ClientOptions); say it for ftbctl.
    return unavailable("no ftb-agent accepted a client session at " + globals.agent + " within " +
                       std::to_string(globals.timeout_ms) +
                       " ms: is ftb-agent running? (ftbctl --agent ENDPOINT or "
                       "FTB_AGENT_ENDPOINT)");
  }
  return client;
}

}  // namespace ftb::cli
