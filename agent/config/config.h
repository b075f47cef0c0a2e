// AgentConfig: everything an operator can set, with the embedded defaults.
// Every field is a row of agent/config/settings.cc (key, help, unit, reload class),
// from which its command-line flag and configuration-file key are made
// (--config, INI/TOML `key = value`; see deploy/ftb-agent.conf). A field
// without a row fails tests/unit/agent:settings_test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ftb::agent {

struct AgentConfig;
// The local stream endpoint `c` asks for, "auto" resolved; "" when disabled.
std::string localEndpoint(const AgentConfig& c);
// Whether `c` lets this agent link with other agents: a cluster key, or
// tree-authentication = insecure-none (treeWithoutAuthentication).
bool treeEnabled(const AgentConfig& c);
bool treeWithoutAuthentication(const AgentConfig& c);
// The largest frame a client may send on either transport, and the most
// replies a client may leave unread: a frame can hold a batch of events;
// anything far beyond the payload limit is hostile.
std::size_t maxClientFrameBytes(const AgentConfig& c);

struct AgentConfig {
  std::string name;  // "" = this host's name
  // Local clients over ZeroMQ IPC (ipc://PATH), for tools that speak ZeroMQ;
  // "" or "none" (the default) disables. Off by default because libzmq's IPC
  // listener aborts the process when descriptors run out, and it accepts
  // every connection before the agent can count it (docs/SECURITY.md). The
  // parent directory is created if missing.
  std::string ipc_endpoint = "none";
  // Local clients on the agent's own Unix stream socket (unix://PATH), where
  // the SDK, ftbctl and the FTB 0.5 API connect by default. "auto": the IPC
  // socket's path with its extension replaced by ".stream", or
  // kDefaultLocalAgentEndpoint without IPC; "" or "none" disables. See localEndpoint().
  std::string local_endpoint = "auto";
  // Remote clients and peers. "" or "none" disables. Port 10809 is ftb's documented default.
  std::string tcp_endpoint = "tcp://0.0.0.0:10809";
  uint64_t max_payload_bytes = 64 * 1024;
  // Events queued in the agent for one client whose socket is full, before the
  // overflow is counted and reported to it as missed.
  uint32_t client_queue_events = 65536;
  uint32_t socket_hwm = 10000;  // frames buffered per peer (ZeroMQ pipes, stream backlogs)
  uint32_t heartbeat_interval_ms = 1000;
  uint32_t client_timeout_ms = 5000;  // silence after which a client is dropped
  uint32_t history_events = 10000;
  uint32_t history_max_age_s = 3600;
  // Bound of the history by memory: the events' bytes plus a fixed overhead each.
  uint64_t history_bytes = 4 * 1024 * 1024;
  uint32_t max_subscriptions_per_client = 1024;
  uint32_t max_subscriptions_per_uid = 65536;  // all clients of one uid; 0 = no limit
  // Connections one uid may hold on the local stream socket (root and the
  // agent's own user: no limit); 0: no limit.
  uint32_t max_connections_per_uid = 1024;
  // Connections the TCP endpoint holds (remote clients and tree peers), at
  // most what the descriptor limit leaves (agent.cc); 0: only that bound.
  uint32_t max_tcp_connections = 4096;
  uint32_t max_tcp_connections_per_host = 1024;  // from one remote address; 0: no limit
  std::string log_level = "info";
  std::string ready_file;  // written with the bound endpoints once clients are accepted
  // Prometheus metrics over HTTP, "host:port" (docs/METRICS.md); "" = off.
  std::string metrics_listen;
  uint32_t metrics_max_namespaces = 64;  // distinct namespace label values; the rest are "_other"
  // Who may publish/subscribe where (docs/SECURITY.md); "" = the embedded default.
  std::string policy_file;
  // CurveZMQ on the TCP endpoint and tree links (docs/SECURITY.md); "" = off.
  std::string curve_key_file;         // this agent's secret key (a root-only file)
  std::string curve_server_key;       // Z85 public key of the agents' TCP endpoints; "" = our own
  std::string curve_authorized_keys;  // file of public keys that may connect; "" = our own only
  // How agents prove to each other that they are agents of this cluster
  // (docs/SECURITY.md): "curve", the cluster key (curve_key_file; without it
  // the agent forms no tree and refuses tree peers), or "insecure-none": any
  // process that reaches the TCP endpoint may join as an agent (labs only).
  std::string tree_authentication = "curve";

  // The tree of agents (needs the TCP endpoint). Seeds: agents to join through;
  // none means this agent founds a tree that others join.
  std::vector<std::string> tree_seeds;
  std::string tree_advertise;  // address peers reach us at; "" = the TCP endpoint, host name for 0.0.0.0
  uint32_t tree_fan_out = 8;
  uint32_t tree_heartbeat_ms = 50;
  // With PINGs off, a silent link is declared dead after this in a quiet
  // system (a silent death is found within ~165 ms). The allowance adapts to
  // observed jitter, up to 20 times this (tree::TreeNode::tick), so that a
  // starved but healthy peer is less often declared dead. With PINGs on,
  // heartbeat silence only finds a wedged agent, from 5 s (agent/tree_bridge/tree_bridge.cc).
  uint32_t tree_timeout_ms = 150;
  // A link is dead as soon as its connection closes (the peer's kernel sent
  // FIN/RST: its process died), and when its ZMTP PINGs go unanswered: a PING
  // every tree_ping_ms on a data-free probe connection to the peer's own probe
  // listener, whose I/O thread does nothing else (agent/transport/tree_link.h), the link
  // dead when nothing comes back within tree_ping_timeout_ms: a silent death
  // (SIGSTOP, power cut) is found within 140-180 ms. 0: no PINGs.
  uint32_t tree_ping_ms = 40;
  uint32_t tree_ping_timeout_ms = 140;
  // The probe listener's port on the TCP endpoint's interface; 0 = any free one.
  uint32_t tree_probe_port = 0;
  // SCHED_RR priority of the thread that sends and answers those PINGs, where
  // the process may (root, CAP_SYS_NICE, RLIMIT_RTPRIO): a CPU hog cannot then
  // delay its answers. 0: normal scheduling.
  uint32_t tree_probe_rt_priority = 1;
  uint32_t tree_retention_events = 100000;
  uint32_t tree_retention_s = 60;
  // Bound of the tree's retention by memory, as history_bytes.
  uint64_t tree_retention_bytes = 4 * 1024 * 1024;
};

struct Setting;

// Registers every row of agentSettings() as a flag (and so as a config-file key).
void addAgentOptions(CLI::App& app, AgentConfig& config);

// A setting's --help text: its help, unit and what a reload does with it.
std::string helpText(const Setting& setting);

}  // namespace ftb::agent
