#include "agent/tree_bridge/node_lost_event.h"

#include <chrono>

#include "client/payload_fields.h"

namespace ftb::agent {

std::string jobRanksText(const tree::Residents& residents) {
  std::string out;
  for (const auto& [job, ranks] : residents.ranks_by_job) {
    if (!out.empty()) out += ';';
    out += job + ':';
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      if (i > 0) out += ',';
      out += std::to_string(ranks[i]);
    }
  }
  return out;
}

AgentEventText nodeLostEvent(const tree::TopologyChange& change, const std::string& announcer) {
  const tree::TopologyChange::PeerLoss& loss = *change.loss;
  const tree::NodeRef& lost = change.subject;
  const std::string node = lost.name.empty() ? lost.address : lost.name;
  std::string jobs;
  for (const auto& [job, ranks] : loss.residents.ranks_by_job) jobs += (jobs.empty() ? "" : ",") + job;
  Tags tags{
      {"node", node},
      {"address", lost.address},
      {"incarnation", std::to_string(lost.incarnation)},
      {"by", loss.by},
      {"silent_ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(loss.silent_for).count())},
      {"link", change.kind == tree::TopologyChange::Kind::kChildLost ? "child" : "parent"},
      {"clients", std::to_string(loss.residents.clients)},
      {"jobs", jobs},
      {"job_ranks", jobRanksText(loss.residents)},
      {"announcer", announcer},
      // The same whoever announces it: a repeat is recognised.
      {"corr", "node-" + node + "-" + std::to_string(lost.incarnation)},
  };
  AgentEventText out{.name = kNodeLostEvent, .severity = proto::ERROR, .payload = formatTagsPayload(node, tags)};
  out.tags.insert(tags.begin(), tags.end());
  return out;
}

}  // namespace ftb::agent
