#include "agent/config/settings.h"

#include <array>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ftb::agent {
namespace {

using C = AgentConfig;
using R = Reload;

constexpr std::array<std::string_view, 2> kTreeAuthentications = {"curve", "insecure-none"};
constexpr std::array<std::string_view, 7> kLogLevels = {"trace", "debug", "info",    "warn",
                                                        "error", "critical", "off"};

// kLive only when the running agent really takes the new value (see Reload):
// a row marked kLive whose field is read once at start would silently never apply.
// unit is for quantities with one (time, size); counts need none.
const std::array kSettings = {
    Setting{"name", &C::name, "Agent name shown to clients and operators; empty: this host's name",
            "", R::kRestart},
    Setting{"ipc-endpoint", &C::ipc_endpoint,
            "ZeroMQ IPC endpoint for local clients that speak ZeroMQ (ipc://PATH); 'none' (the "
            "default) disables it: libzmq's IPC listener aborts the agent when descriptors run "
            "out, so enable it only where every local user is trusted (docs/SECURITY.md)",
            "", R::kRestart},
    Setting{"local-endpoint", &C::local_endpoint,
            "The agent's own Unix stream socket for local clients (unix://PATH), where the SDK, "
            "ftbctl and the FTB 0.5 API connect by default; 'auto': the IPC socket's path with "
            "the extension .stream, or unix:///run/ftb/agent.stream without IPC; 'none' disables",
            "", R::kRestart},
    Setting{"tcp-endpoint", &C::tcp_endpoint,
            "ZeroMQ TCP endpoint for remote clients and peers; 'none' disables; port 0 picks a "
            "free port",
            "", R::kRestart},
    Setting{"max-payload-bytes", &C::max_payload_bytes,
            "Largest event payload accepted; the FTB 0.5 C API keeps its own 368-byte limit",
            "bytes", R::kLive, NumberRange{0, uint64_t{64} << 20}, {},
            "Clients that connect after a reload learn the new limit in their Hello reply."},
    Setting{"client-queue-events", &C::client_queue_events,
            "Events queued per slow client before overflow is counted and reported to it",
            "", R::kLive, NumberRange{1, 1u << 24}},
    Setting{"socket-hwm", &C::socket_hwm,
            "Frames buffered per peer beyond its socket: ZeroMQ's pipes, and each stream "
            "connection's backlog", "", R::kRestart,
            NumberRange{1, 1u << 24}},
    Setting{"heartbeat-interval-ms", &C::heartbeat_interval_ms, "How often clients send heartbeats",
            "ms", R::kLive, NumberRange{10, 600000}},
    Setting{"client-timeout-ms", &C::client_timeout_ms,
            "Silence after which a client is considered dead and its subscriptions freed", "ms",
            R::kLive, NumberRange{50, 3600000}},
    Setting{"history-events", &C::history_events, "Recent events kept for replay (0 disables)",
            "", R::kLive},
    Setting{"history-max-age-s", &C::history_max_age_s, "Oldest event kept for replay", "s",
            R::kLive},
    Setting{"history-bytes", &C::history_bytes,
            "Memory the replay history may hold: event bytes plus ~96 bytes each (0 disables)", "bytes",
            R::kLive},
    Setting{"max-subscriptions-per-client", &C::max_subscriptions_per_client,
            "Subscriptions one client may hold", "", R::kLive},
    Setting{"max-subscriptions-per-uid", &C::max_subscriptions_per_uid,
            "Subscriptions all clients of one user may hold together (root and the agent's own "
            "user: no limit); 0: no limit",
            "", R::kLive, NumberRange{0, 1u << 24}, {},
            "A remote client counts under the uid its Curve key is mapped to; anonymous remote "
            "clients are held to max-subscriptions-per-client alone (docs/SECURITY.md)."},
    Setting{"max-connections-per-uid", &C::max_connections_per_uid,
            "Connections one user may hold on the local stream socket (root and the agent's own "
            "user: no limit); 0: no limit",
            "", R::kRestart, NumberRange{0, 1u << 20}, {},
            "Beyond it a connection is closed at once and counted; one log line a second says "
            "whose. Whatever the setting, the socket holds no more connections than the "
            "agent's descriptor limit (LimitNOFILE=) leaves room for (docs/SECURITY.md)."},
    Setting{"max-tcp-connections", &C::max_tcp_connections,
            "Connections the TCP endpoint may hold, remote clients and tree peers together; 0: "
            "only the descriptor limit's bound",
            "", R::kRestart, NumberRange{0, 1u << 20}, {},
            "libzmq accepts TCP connections itself; beyond the limit the agent shuts each new "
            "one down as soon as it hears of it, counts it and logs once a second. Whatever the "
            "setting, the endpoint holds at most an eighth of the agent's descriptor limit "
            "(LimitNOFILE=), so remote peers never take the descriptors local clients need "
            "(docs/SECURITY.md)."},
    Setting{"max-tcp-connections-per-host", &C::max_tcp_connections_per_host,
            "Connections one remote address may hold on the TCP endpoint; 0: no limit", "",
            R::kRestart, NumberRange{0, 1u << 20}, {},
            "Beyond it a new connection from that address is shut down as soon as the agent "
            "hears of it, counted and logged once a second, so that one host cannot take the "
            "whole of max-tcp-connections from the others (docs/SECURITY.md)."},
    Setting{"log-level", &C::log_level, "trace, debug, info, warn, error, critical or off", "",
            R::kLive, std::nullopt, kLogLevels},
    Setting{"ready-file", &C::ready_file,
            "Write the bound endpoints to this file once clients are accepted; empty: none", "",
            R::kRestart},
    Setting{"metrics-listen", &C::metrics_listen,
            "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9810); empty: "
            "off",
            "", R::kRestart, std::nullopt, {}, "The metrics are described in docs/METRICS.md."},
    Setting{"metrics-max-namespaces", &C::metrics_max_namespaces,
            "Namespaces with their own metric labels; later ones are counted as '_other'",
            "", R::kRestart, NumberRange{1, 100000}},
    Setting{"policy-file", &C::policy_file,
            "Namespace policy: who may publish into and subscribe to which namespaces "
            "(docs/SECURITY.md); empty: the embedded policy",
            "", R::kLive, std::nullopt, {},
            "The embedded policy lets only root publish into FTB.JL.*, FTB.IPMI.*, FTB.IB.* and "
            "FTB.AGENT*. A reload re-reads the file and applies it to connected clients at once."},
    Setting{"curve-key-file", &C::curve_key_file,
            "CurveZMQ secret key (ftbctl keygen; mode 600, owned by root): encrypts and "
            "authenticates the TCP endpoint and tree links; empty: off",
            "", R::kRestart, std::nullopt, {},
            "Under systemd the agent runs as user ftb and reads the key as a credential: put it in "
            "/etc/credstore/ftb-curve.key and set curve-key-file = "
            "\"/run/credentials/ftb-agent.service/ftb-curve.key\" (docs/SECURITY.md)."},
    Setting{"curve-server-key", &C::curve_server_key,
            "Z85 public key of the other agents' TCP endpoints; empty: this agent's own, for a "
            "cluster sharing one key pair",
            "", R::kRestart},
    Setting{"curve-authorized-keys", &C::curve_authorized_keys,
            "File of Curve public keys (one per line) allowed to connect over TCP, agents and "
            "remote clients; empty: only this agent's own public key",
            "", R::kRestart},
    Setting{"tree-authentication", &C::tree_authentication,
            "How agents prove to each other that they belong to this cluster: curve (the "
            "cluster key of curve-key-file; without it no tree is formed) or insecure-none "
            "(any process that reaches the TCP endpoint may join as an agent: labs only)",
            "", R::kRestart, std::nullopt, kTreeAuthentications,
            "A fresh install has no cluster key: it serves local clients and refuses tree peers. "
            "The tree is enabled by one step on every node, the cluster key (docs/SECURITY.md, "
            "'Step by step: a cluster')."},
    Setting{"tree-seeds", &C::tree_seeds,
            "Agents (tcp://host:port) to join the tree through, comma-separated; empty: found a "
            "tree",
            "", R::kLive, std::nullopt, {},
            "A reload with new seeds makes an agent that founded its own tree join theirs."},
    Setting{"tree-advertise", &C::tree_advertise,
            "Address other agents reach this one at; empty: the TCP endpoint, with the host name "
            "for 0.0.0.0",
            "", R::kRestart},
    Setting{"tree-fan-out", &C::tree_fan_out, "Children per agent at most", "", R::kRestart,
            NumberRange{1, 1024}},
    Setting{"tree-heartbeat-ms", &C::tree_heartbeat_ms, "Heartbeat interval on tree links", "ms",
            R::kRestart, NumberRange{5, 60000}},
    Setting{"tree-timeout-ms", &C::tree_timeout_ms,
            "With tree-ping-ms 0: silence after which a tree link is declared dead and repaired, in a "
            "quiet system; the allowance adapts to observed jitter (4 x the longest recent silence on "
            "any link, less 3 heartbeats, fading by half in ~44 heartbeats), up to 20 times this. With "
            "PINGs, silence only finds a wedged agent, from 5 s", "ms", R::kRestart,
            NumberRange{20, 600000}},
    Setting{"tree-ping-ms", &C::tree_ping_ms,
            "ZMTP PING interval on each tree link's probe connection, to the peer's probe listener (an "
            "ephemeral port on its TCP endpoint's interface, served by a thread that does nothing "
            "else, so a CPU-starved agent still answers); 0: none, a silent peer is found by the "
            "adaptive tree-timeout-ms",
            "ms", R::kRestart, NumberRange{0, 60000}},
    Setting{"tree-ping-timeout-ms", &C::tree_ping_timeout_ms,
            "No traffic this long after a PING closes the probe connection and the link is declared "
            "dead (a silent death is found within ping + this)",
            "ms", R::kRestart, NumberRange{10, 600000}},
    Setting{"tree-probe-port", &C::tree_probe_port,
            "Port of the tree probe listener (the TCP endpoint's interface; it answers PINGs only, "
            "docs/SECURITY.md): fix it where a firewall sits between nodes; 0: any free port",
            "", R::kRestart, NumberRange{0, 65535}},
    Setting{"tree-probe-rt-priority", &C::tree_probe_rt_priority,
            "Real-time priority (SCHED_RR) of the thread that sends and answers tree PINGs, so that a "
            "CPU-starved machine still answers them; needs root, CAP_SYS_NICE or RLIMIT_RTPRIO (the "
            "systemd unit's LimitRTPRIO=1), else normal scheduling (logged); 0: normal scheduling",
            "", R::kRestart, NumberRange{0, 99}},
    Setting{"tree-retention-events", &C::tree_retention_events,
            "Events kept to replay to agents that missed them during a repair", "",
            R::kRestart},
    Setting{"tree-retention-s", &C::tree_retention_s, "Oldest event kept for replay after a repair",
            "s", R::kRestart, NumberRange{1, 86400}},
    Setting{"tree-retention-bytes", &C::tree_retention_bytes,
            "Memory the tree's replay window may hold: event bytes plus ~136 bytes each", "bytes",
            R::kRestart},
};

}  // namespace

std::span<const Setting> agentSettings() { return kSettings; }

const Setting* findSetting(std::string_view key) {
  for (const Setting& s : kSettings) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::string_view typeName(const Setting& setting) {
  return std::visit(
      [](auto field) -> std::string_view {
        using T = std::remove_reference_t<decltype(AgentConfig{}.*field)>;
        if constexpr (std::is_same_v<T, std::string>) return "text";
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) return "list";
        else return "number";
      },
      setting.field);
}

std::string valueText(const Setting& setting, const AgentConfig& config) {
  return std::visit(
      [&](auto field) -> std::string {
        const auto& value = config.*field;
        using T = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::string>) return fmt::format("\"{}\"", value);
        else if constexpr (std::is_same_v<T, std::vector<std::string>>)
          return fmt::format("\"{}\"", fmt::join(value, ","));
        else return fmt::format("{}", value);
      },
      setting.field);
}

std::string displayText(const Setting& setting, const AgentConfig& config) {
  return std::visit(
      [&](auto field) -> std::string {
        const auto& value = config.*field;
        using T = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>)
          return fmt::format("[{}]", fmt::join(value, ","));
        else return fmt::format("{}", value);
      },
      setting.field);
}

bool sameValue(const Setting& setting, const AgentConfig& a, const AgentConfig& b) {
  return std::visit([&](auto field) { return a.*field == b.*field; }, setting.field);
}

void copyValue(const Setting& setting, const AgentConfig& from, AgentConfig& to) {
  std::visit([&](auto field) { to.*field = from.*field; }, setting.field);
}

}  // namespace ftb::agent
