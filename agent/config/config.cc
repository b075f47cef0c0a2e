#include "agent/config/config.h"

#include <algorithm>
#include <type_traits>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "agent/config/settings.h"
#include "client/transport/unix_endpoint.h"

namespace ftb::agent {

std::string localEndpoint(const AgentConfig& c) {
  if (c.local_endpoint == "none" || c.local_endpoint.empty()) return "";
  if (c.local_endpoint != "auto") return c.local_endpoint;
  const std::string prefix = "ipc://";
  if (c.ipc_endpoint.rfind(prefix, 0) != 0 || c.ipc_endpoint.size() == prefix.size()) {
    return std::string(kDefaultLocalAgentEndpoint);
  }
  std::string path = c.ipc_endpoint.substr(prefix.size());
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1)) path.resize(dot);
  return "unix://" + path + ".stream";
}

bool treeEnabled(const AgentConfig& c) {
  return !c.curve_key_file.empty() || treeWithoutAuthentication(c);
}

bool treeWithoutAuthentication(const AgentConfig& c) { return c.tree_authentication == "insecure-none"; }

std::size_t maxClientFrameBytes(const AgentConfig& c) {
  return std::max<uint64_t>(c.max_payload_bytes, 1 << 20) * 16;
}

std::string helpText(const Setting& s) {
  std::string help(s.help);
  if (!s.unit.empty()) help += fmt::format(", in {}", s.unit);
  help += s.reload == Reload::kLive ? "; a reload applies it" : "; takes effect at restart";
  return help;
}

void addAgentOptions(CLI::App& app, AgentConfig& c) {
  for (const Setting& s : agentSettings()) {
    const std::string flag = "--" + std::string(s.key);
    const std::string help = helpText(s);
    CLI::Option* option = std::visit(
        [&](auto field) -> CLI::Option* {
          auto& value = c.*field;
          using T = std::remove_reference_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            // Comma-separated; empty entries are dropped so that `key = ""` in a
            // file (every key of the example file has a value) means none.
            return app
                .add_option_function<std::vector<std::string>>(
                    flag,
                    [&value](const std::vector<std::string>& given) {
                      value.clear();
                      for (const std::string& entry : given) {
                        if (!entry.empty()) value.push_back(entry);
                      }
                    },
                    help)
                ->delimiter(',');
          } else {
            return app.add_option(flag, value, help)->capture_default_str();
          }
        },
        s.field);
    if (s.range) option->check(CLI::Range(s.range->min, s.range->max));
    if (!s.choices.empty()) {
      option->check(CLI::IsMember(std::vector<std::string>(s.choices.begin(), s.choices.end())));
    }
  }
}

}  // namespace ftb::agent
