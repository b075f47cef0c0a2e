// CurveZMQ between real agents: two agents holding the cluster key form a
// tree and carry events; a third with a key outside the trusted set (it knows
// the cluster's public key, not its secret) cannot join, stays alone, and the
// refusals show in ftbctl status and the metrics. Remote clients must present
// an authorized key too.
#define BOOST_TEST_MODULE curve
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <fstream>

#include "client/client.h"
#include "client/control_client.h"
#include "client/curve_keys.h"
#include "tests/integration/cli/child_process.h"
#include "tests/integration/tree/tree_cluster.h"
#include "tests/support/agent_process.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::scrapeMetrics;
using ftb::testing::waitFor;

namespace {

struct Keys {
  Keys() {
    cluster = ftb::curve::generateKeyPair().value();
    wrong = ftb::curve::generateKeyPair().value();
    BOOST_REQUIRE(ftb::curve::writeKeyFiles(cluster, dir.path() + "/cluster").ok());
    BOOST_REQUIRE(ftb::curve::writeKeyFiles(wrong, dir.path() + "/wrong").ok());
  }
  std::string clusterKey() const { return dir.path() + "/cluster.key"; }
  std::string wrongKey() const { return dir.path() + "/wrong.key"; }
  ftb::testing::TempDir dir;
  ftb::curve::KeyPair cluster, wrong;
};

double metric(const AgentProcess& agent, const std::string& name,
              const std::map<std::string, std::string>& labels = {}) {
  return scrapeMetrics(agent.metricsAddress()).sum(name, labels);
}

// What `ftb-agent --check-config FLAGS...` prints (stdout and stderr), and its exit status.
std::pair<int, std::string> checkConfig(std::vector<std::string> flags) {
  std::vector<std::string> args = {ftb::testing::runfile("agent/ftb-agent"), "--check-config"};
  args.insert(args.end(), flags.begin(), flags.end());
  const ftb::testing::ChildResult r = ftb::testing::runChild(args);
  return {r.exit_code, r.out + r.err};
}

}  // namespace

// A fresh install has no cluster key: its agent serves its clients but forms no
// tree, and says so with the one step that enables it. Once every agent holds
// the cluster key (that step), the second joins the first.
BOOST_AUTO_TEST_CASE(agents_form_a_tree_only_once_they_hold_the_cluster_key) {
  Keys keys;
  const std::string metrics = "--metrics-listen=127.0.0.1:0";
  const std::string fresh = "--tree-authentication=curve";  // the embedded default (the harness runs labs)
  auto a = std::make_unique<AgentProcess>(std::vector<std::string>{fresh, metrics, "--name=a"});
  const std::string seed = "--tree-seeds=" + a->tcpEndpoint();

  const auto [code, said] = checkConfig({fresh, seed});
  BOOST_TEST(code == 0, said);
  BOOST_TEST(said.find("tree off: no cluster key (curve-key-file)") != std::string::npos, said);
  BOOST_TEST(said.find("(tree-seeds are not joined)") != std::string::npos, said);
  BOOST_TEST(said.find("ftbctl keygen --out /etc/ftb/cluster") != std::string::npos, said);
  BOOST_TEST(checkConfig({fresh, "--tcp-endpoint=none"}).second.find("tree off") == std::string::npos);

  // b does not join: neither forms a tree (their state says so once started,
  // whatever the timing), and a admits no agent (admission_test).
  auto b = std::make_unique<AgentProcess>(std::vector<std::string>{fresh, metrics, "--name=b", seed});
  for (const AgentProcess* agent : {a.get(), b.get()}) {
    const auto info = ftb::testing::queryTree(agent->ipcEndpoint(), 10s);
    BOOST_REQUIRE(info.has_value());
    BOOST_TEST(info->state() == "off");
    BOOST_TEST(info->links_size() == 0);
  }

  // The step: every agent gets the cluster key.
  const std::string key = "--curve-key-file=" + keys.clusterKey();
  b.reset();
  a.reset();
  a = std::make_unique<AgentProcess>(std::vector<std::string>{fresh, metrics, "--name=a", key});
  b = std::make_unique<AgentProcess>(
      std::vector<std::string>{fresh, metrics, "--name=b", key, "--tree-seeds=" + a->tcpEndpoint()});
  BOOST_TEST(waitFor([&] { return metric(*b, "ftb_agent_tree_attached") == 1; }),
             "b did not join a's tree once both held the cluster key");
  BOOST_TEST(checkConfig({fresh, key, seed}).second.find("tree off") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(only_agents_with_the_trusted_key_form_a_tree) {
  Keys keys;
  const std::string metrics = "--metrics-listen=127.0.0.1:0";
  AgentProcess a({"--curve-key-file=" + keys.clusterKey(), metrics, "--name=a"});
  AgentProcess b({"--curve-key-file=" + keys.clusterKey(), metrics, "--name=b",
                  "--tree-seeds=" + a.tcpEndpoint()});
  AgentProcess c({"--curve-key-file=" + keys.wrongKey(), "--curve-server-key=" + keys.cluster.public_key,
                  metrics, "--name=c", "--tree-seeds=" + a.tcpEndpoint()});

  BOOST_REQUIRE_MESSAGE(waitFor([&] { return metric(b, "ftb_agent_tree_attached") == 1; }),
                        "b never joined a's tree over Curve");
  // c's join is refused by a's authenticator (libzmq does not retry a connection
  // refused by ZAP), and c stays a tree of its own.
  BOOST_REQUIRE_MESSAGE(waitFor([&] {
                          return metric(a, "ftb_agent_refusals_total", {{"reason", "curve_auth"}}) >= 1;
                        }),
                        "a never refused c's key");
  BOOST_TEST(!waitFor([&] { return metric(c, "ftb_agent_tree_attached") == 1; }, 2s),
             "c joined a tree without an authorized key");
  BOOST_TEST(metric(c, "ftb_agent_tree_root") == 1);
  BOOST_TEST(metric(c, "ftb_agent_tree_links") == 0);
  BOOST_TEST(metric(a, "ftb_agent_tree_links") == 1);  // b only

  // ftbctl status's view of the refusals.
  auto control = ftb::ControlClient::connect(a.ipcEndpoint());
  BOOST_REQUIRE(control.ok());
  auto status = control->status(5s);
  BOOST_REQUIRE(status.ok());
  BOOST_TEST(status->counters().auth_refused() >= 1u);
  BOOST_TEST(status->last_auth_refusal().find("key " + keys.wrong.public_key) == 0u,
             status->last_auth_refusal());

  // Events cross the encrypted link; none reach c.
  auto sub_b = connectOrFail(b.ipcEndpoint(), "FTB.TEST.SUB", "sub-b");
  auto sub_c = connectOrFail(c.ipcEndpoint(), "FTB.TEST.SUB", "sub-c");
  auto id_b = sub_b->subscribe({.filter = "event_space=FTB.TEST.CURVE", .polling = true});
  auto id_c = sub_c->subscribe({.filter = "event_space=FTB.TEST.CURVE", .polling = true});
  BOOST_REQUIRE(id_b.ok() && id_c.ok());
  auto pub = connectOrFail(a.ipcEndpoint(), "FTB.TEST.CURVE", "pub");
  BOOST_REQUIRE(pub->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
  // Interest travels up the tree first: publish until b has one.
  std::optional<ftb::Notification> got;
  BOOST_REQUIRE(waitFor([&] {
    (void)pub->publish("NOTE", "over curve");
    auto n = sub_b->poll(*id_b, 50ms);
    if (n.ok() && n->has_value()) got = **n;
    return got.has_value();
  }));
  BOOST_TEST(got->event.payload == "over curve");
  auto none = sub_c->poll(*id_c, 300ms);
  BOOST_TEST(!none->has_value());
}

BOOST_AUTO_TEST_CASE(remote_clients_need_an_authorized_key) {
  Keys keys;
  AgentProcess a({"--curve-key-file=" + keys.clusterKey(), "--metrics-listen=127.0.0.1:0"});
  ftb::ClientOptions o{.event_space = "FTB.IPMI.MONITOR",
                       .client_name = "remote",
                       .agent_endpoint = a.tcpEndpoint(),
                       .connect_timeout = 1500ms,
                       .curve_server_key = keys.cluster.public_key,
                       .curve_public_key = keys.wrong.public_key,
                       .curve_secret_key = keys.wrong.secret_key};
  auto refused = ftb::Client::connect(o);
  BOOST_TEST(!refused.ok());
  BOOST_TEST(metric(a, "ftb_agent_refusals_total", {{"reason", "curve_auth"}}) >= 1);

  auto plain = o;
  plain.curve_server_key.clear();
  BOOST_TEST(!ftb::Client::connect(plain).ok());  // no Curve at all: no handshake

  // The authorized key (here the cluster's own) connects, and as a Curve-
  // authenticated client it may publish into FTB.IPMI.* (docs/SECURITY.md).
  auto trusted = o;
  trusted.curve_public_key = keys.cluster.public_key;
  trusted.curve_secret_key = keys.cluster.secret_key;
  trusted.connect_timeout = 10s;  // the refusals above need a short one; this must succeed under load
  auto client = ftb::Client::connect(trusted);
  BOOST_REQUIRE_MESSAGE(client.ok(), client.status().toString());
  BOOST_REQUIRE((*client)->declare({{"FTB_IPMI_NORMAL", ftb::Severity::kInfo}}).ok());
  BOOST_REQUIRE((*client)->publish("FTB_IPMI_NORMAL", "node1").ok());
  BOOST_REQUIRE((*client)->flush(5s).ok());
  BOOST_TEST((*client)->stats().agent_errors == 0u, (*client)->stats().last_agent_error);
}

// A remote client's identity comes from its credential: a key the authorized
// keys map to a uid acts as that uid under the namespace policy, and its
// events carry that uid (uid_known, no pid); an unmapped key is anonymous.
BOOST_AUTO_TEST_CASE(a_key_mapped_to_a_uid_acts_as_that_uid) {
  Keys keys;
  const std::string authorized = keys.dir.path() + "/authorized";
  std::ofstream(authorized) << keys.cluster.public_key << " the agents\n"
                            << keys.wrong.public_key << " team-a uid=4242\n";
  const auto anonymous = ftb::curve::generateKeyPair().value();
  std::ofstream(authorized, std::ios::app) << anonymous.public_key << " a monitor\n";
  const std::string policy = keys.dir.path() + "/policy.conf";
  std::ofstream(policy) << "publish FTB.TEAM.* uid=4242\npublish * *\nsubscribe * *\n";
  AgentProcess a({"--curve-key-file=" + keys.clusterKey(), "--curve-authorized-keys=" + authorized,
                  "--policy-file=" + policy});

  auto sub = connectOrFail(a.ipcEndpoint(), "FTB.TEST.SUB", "sub");
  auto id = sub->subscribe({.filter = "event_space=FTB.TEAM.A", .polling = true});
  BOOST_REQUIRE(id.ok());
  const auto remote = [&](const ftb::curve::KeyPair& pair, const std::string& name) {
    auto c = ftb::Client::connect({.event_space = "FTB.TEAM.A",
                                   .client_name = name,
                                   .agent_endpoint = a.tcpEndpoint(),
                                   .connect_timeout = 10s,
                                   .curve_server_key = keys.cluster.public_key,
                                   .curve_public_key = pair.public_key,
                                   .curve_secret_key = pair.secret_key});
    BOOST_REQUIRE_MESSAGE(c.ok(), c.status().toString());
    BOOST_REQUIRE((*c)->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
    return std::move(c).value();
  };

  auto team = remote(keys.wrong, "team-a");
  BOOST_REQUIRE(team->publish("NOTE", "as 4242").ok());
  BOOST_REQUIRE(team->flush(10s).ok());
  BOOST_TEST(team->stats().agent_errors == 0u, team->stats().last_agent_error);
  auto got = sub->poll(*id, 10s);
  BOOST_REQUIRE(got.ok() && got->has_value());
  const ftb::VerifiedSender& sender = (**got).event.sender;
  BOOST_TEST((**got).event.payload == "as 4242");
  BOOST_TEST(sender.uid == 4242u);
  BOOST_TEST(sender.uid_known);
  BOOST_TEST(!sender.credentials_known);
  BOOST_TEST(sender.pid == 0u);

  auto stranger = remote(anonymous, "monitor");
  BOOST_REQUIRE(stranger->publish("NOTE", "anonymous").ok());
  BOOST_REQUIRE(stranger->flush(10s).ok());
  BOOST_TEST(stranger->stats().agent_errors == 1u);
  BOOST_TEST(stranger->stats().last_agent_error.find(
                 "publishing into FTB.TEAM.A is not allowed for a remote client") != std::string::npos,
             stranger->stats().last_agent_error);

  // ftbctl clients shows the mapped uid, and no uid for the anonymous client.
  auto control = ftb::ControlClient::connect(a.ipcEndpoint());
  BOOST_REQUIRE(control.ok());
  auto clients = control->clients(5s);
  BOOST_REQUIRE(clients.ok());
  int seen = 0;
  for (const auto& c : clients->clients()) {
    if (c.client_name() == "team-a") {
      ++seen;
      BOOST_TEST(c.peer().uid_known());
      BOOST_TEST(c.peer().uid() == 4242u);
    } else if (c.client_name() == "monitor") {
      ++seen;
      BOOST_TEST(!c.peer().uid_known());
    }
  }
  BOOST_TEST(seen == 2);
}

// The agents' key acts for no user: a mapping for it stops the agent at start.
BOOST_AUTO_TEST_CASE(a_uid_for_the_agents_key_is_refused) {
  Keys keys;
  const std::string authorized = keys.dir.path() + "/authorized";
  std::ofstream(authorized) << keys.cluster.public_key << " uid=0\n";
  const auto [code, said] = checkConfig({"--curve-key-file=" + keys.clusterKey(),
                                         "--curve-authorized-keys=" + authorized});
  BOOST_TEST(code != 0);
  BOOST_TEST(said.find("maps the agents' key") != std::string::npos, said);
}

BOOST_AUTO_TEST_CASE(a_key_file_readable_by_others_stops_the_agent) {
  Keys keys;
  BOOST_REQUIRE(chmod(keys.clusterKey().c_str(), 0644) == 0);
  BOOST_CHECK_THROW(AgentProcess({"--curve-key-file=" + keys.clusterKey()}), std::runtime_error);
}
