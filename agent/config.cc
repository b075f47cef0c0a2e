#include "agent/config.h"

#include <CLI/CLI.hpp>

namespace ftb::agent {

void addAgentOptions(CLI::App& app, AgentConfig& c) {
  app.add_option("--name", c.name, "Agent name shown to clients and operators (default: host name)");
  app.add_option("--ipc-endpoint", c.ipc_endpoint,
                 "ZeroMQ IPC endpoint for local clients; 'none' disables")
      ->capture_default_str();
  app.add_option("--tcp-endpoint", c.tcp_endpoint,
                 "ZeroMQ TCP endpoint for remote clients and peers; 'none' disables; "
                 "port 0 picks a free port")
      ->capture_default_str();
  app.add_option("--max-payload-bytes", c.max_payload_bytes, "Largest event payload accepted")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, uint64_t{64} << 20));
  app.add_option("--client-queue-events", c.client_queue_events,
                 "Events queued per slow client before overflow is counted and reported")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 24));
  app.add_option("--socket-hwm", c.socket_hwm, "ZeroMQ frames buffered per peer")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 24));
  app.add_option("--heartbeat-interval-ms", c.heartbeat_interval_ms,
                 "How often clients send heartbeats")
      ->capture_default_str()
      ->check(CLI::Range(10u, 600000u));
  app.add_option("--client-timeout-ms", c.client_timeout_ms,
                 "Silence after which a client is considered dead and its subscriptions freed")
      ->capture_default_str()
      ->check(CLI::Range(50u, 3600000u));
  app.add_option("--history-events", c.history_events, "Recent events kept for replay (0 disables)")
      ->capture_default_str();
  app.add_option("--history-max-age-s", c.history_max_age_s, "Oldest event kept for replay, seconds")
      ->capture_default_str();
  app.add_option("--history-bytes", c.history_bytes,
                 "Memory the replay history may hold: event bytes plus ~96 bytes each (0 disables)")
      ->capture_default_str();
  app.add_option("--max-subscriptions-per-client", c.max_subscriptions_per_client,
                 "Subscriptions one client may hold")
      ->capture_default_str();
  app.add_option("--log-level", c.log_level, "trace, debug, info, warn, error, critical or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--ready-file", c.ready_file,
                 "Write the bound endpoints to this file once clients are accepted");
  app.add_option("--metrics-listen", c.metrics_listen,
                 "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9810); "
                 "empty: off");
  app.add_option("--metrics-max-namespaces", c.metrics_max_namespaces,
                 "Namespaces with their own metric labels; later ones are counted as '_other'")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  app.add_option("--policy-file", c.policy_file,
                 "Namespace policy: who may publish into and subscribe to which namespaces "
                 "(docs/SECURITY.md); default: the embedded policy");
  app.add_option("--curve-key-file", c.curve_key_file,
                 "CurveZMQ secret key (ftbctl keygen; mode 600, owned by root): encrypts and "
                 "authenticates the TCP endpoint and tree links; empty: off");
  app.add_option("--curve-server-key", c.curve_server_key,
                 "Z85 public key of the other agents' TCP endpoints (default: this agent's own, "
                 "for a cluster sharing one key pair)");
  app.add_option("--curve-authorized-keys", c.curve_authorized_keys,
                 "File of Curve public keys (one per line) allowed to connect over TCP, agents "
                 "and remote clients (default: only this agent's own public key)");
  app.add_option("--tree-seeds", c.tree_seeds,
                 "Agents (tcp://host:port) to join the tree through, comma-separated; "
                 "none: found a tree")
      ->delimiter(',');
  app.add_option("--tree-advertise", c.tree_advertise,
                 "Address other agents reach this one at (default: the TCP endpoint, with the "
                 "host name for 0.0.0.0)");
  app.add_option("--tree-fan-out", c.tree_fan_out, "Children per agent at most")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--tree-heartbeat-ms", c.tree_heartbeat_ms, "Heartbeat interval on tree links")
      ->capture_default_str()
      ->check(CLI::Range(5u, 60000u));
  app.add_option("--tree-timeout-ms", c.tree_timeout_ms,
                 "Silence after which a tree link is declared dead and repaired")
      ->capture_default_str()
      ->check(CLI::Range(20u, 600000u));
  app.add_option("--tree-retention-events", c.tree_retention_events,
                 "Events kept to replay to agents that missed them during a repair")
      ->capture_default_str();
  app.add_option("--tree-retention-s", c.tree_retention_s,
                 "Oldest event kept for replay after a repair, seconds")
      ->capture_default_str()
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--tree-retention-bytes", c.tree_retention_bytes,
                 "Memory the tree's replay window may hold: event bytes plus ~136 bytes each")
      ->capture_default_str();
}

}  // namespace ftb::agent
