#include "cli/tree_crawl.h"

#include <map>

namespace ftb::cli {
namespace {

std::string pathText(const proto::TreeInfo& info) {
  std::string text;
  for (const auto& n : info.path()) text += (text.empty() ? "" : " > ") + n.name();
  return text.empty() ? "(empty)" : text;
}

std::string agentText(const proto::TreeNodeRef& ref) {
  return (ref.name().empty() ? "?" : ref.name()) + " (" + ref.address() + ")";
}

class Crawler {
 public:
  Crawler(const proto::TreeInfo& first, const TreeInfoQuery& query)
      : first_(first), query_(query) {}

  TreeCrawl run() {
    if (first_.state() == "disabled") {
      crawl_.note = "the tree is disabled on this agent: it has no TCP endpoint (--tcp-endpoint)";
      return std::move(crawl_);
    }
    if (first_.state() == "off") {
      crawl_.note = "the tree is off on this agent: it has no cluster key (curve-key-file); "
                    "docs/SECURITY.md, 'Step by step: a cluster', enables it";
      return std::move(crawl_);
    }
    if (first_.state() == "joining") {
      crawl_.note = agentText(first_.self()) + " is still joining the tree";
    }
    const proto::TreeNodeRef& root = first_.path().empty() ? first_.self() : first_.path(0);
    visitFirstOr(root);
    crawlFrontier();
    // Its root does not know it (a stale path): show it as a tree of its own.
    if (!by_address_.contains(first_.self().address())) {
      visitFirstOr(first_.self());
      crawlFrontier();
    }
    return std::move(crawl_);
  }

 private:
  // Adds a root; the first agent's own answer is used rather than asked again.
  void visitFirstOr(const proto::TreeNodeRef& ref) {
    const int index = add(ref, -1);
    crawl_.roots.push_back(index);
    if (ref.address() == first_.self().address()) {
      settle(index, first_);
    } else {
      frontier_.push_back(index);
    }
  }

  void crawlFrontier() {
    while (!frontier_.empty()) {
      std::vector<int> batch;
      batch.swap(frontier_);
      std::vector<std::string> endpoints;
      for (int i : batch) endpoints.push_back(crawl_.agents[i].ref.address());
      std::vector<Result<proto::TreeInfo>> answers = query_(endpoints);
      for (std::size_t k = 0; k < batch.size(); ++k) settle(batch[k], std::move(answers[k]));
    }
  }

  int add(const proto::TreeNodeRef& ref, int parent) {
    CrawledAgent agent;
    agent.ref = ref;
    agent.parent = parent;
    if (parent >= 0) agent.depth = crawl_.agents[parent].depth + 1;
    crawl_.agents.push_back(std::move(agent));
    const int index = static_cast<int>(crawl_.agents.size()) - 1;
    if (parent >= 0) crawl_.agents[parent].children.push_back(index);
    by_address_.emplace(ref.address(), index);
    return index;
  }

  // add() keeps the first sighting in by_address_; a second one becomes a cycle entry.
  void addChild(const proto::TreeNodeRef& ref, int parent, const proto::TreeLinkInfo* link) {
    const auto seen = by_address_.find(ref.address());
    const int index = add(ref, parent);
    CrawledAgent& child = crawl_.agents[index];
    if (link != nullptr) {
      child.rtt_us = link->rtt_us();
      child.silent_for_ms = link->silent_for_ms();
    }
    if (seen == by_address_.end()) {
      frontier_.push_back(index);
      return;
    }
    child.duplicate_of = seen->second;
    const int first_parent = crawl_.agents[seen->second].parent;
    child.problems.push_back(agentText(ref) + " is reached a second time, under " +
                             agentText(crawl_.agents[parent].ref) + ", after " +
                             (first_parent < 0
                                  ? std::string("as a root")
                                  : "under " + agentText(crawl_.agents[first_parent].ref)) +
                             ": a cycle or a stale link");
  }

  void settle(int index, Result<proto::TreeInfo> answer) {
    if (!answer.ok()) {
      crawl_.agents[index].error = answer.status().message();
      continueAlongFirstPath(index);
      return;
    }
    crawl_.agents[index].info = *answer;
    const proto::TreeInfo& info = *answer;  // not the stored copy: adding children moves it
    checkParent(index, info);
    for (const proto::TreeLinkInfo& link : info.links()) {
      if (!link.is_parent()) addChild(link.node(), index, &link);
    }
    if (!info.path().empty() && !by_address_.contains(info.path(0).address())) {
      crawl_.agents[index].problems.push_back(agentText(info.self()) + " belongs to the tree of " +
                                              agentText(info.path(0)) +
                                              ": there is more than one tree");
      const int root = add(info.path(0), -1);
      crawl_.roots.push_back(root);
      frontier_.push_back(root);
    }
  }

  // The children of an agent that does not answer are unknown, but the first
  // agent's path says which one leads towards it.
  void continueAlongFirstPath(int index) {
    const auto& path = first_.path();
    for (int k = 0; k + 1 < path.size(); ++k) {
      if (path[k].address() == crawl_.agents[index].ref.address() &&
          !by_address_.contains(path[k + 1].address())) {
        addChild(path[k + 1], index, nullptr);
        return;
      }
    }
  }

  void checkParent(int index, const proto::TreeInfo& info) {
    CrawledAgent& agent = crawl_.agents[index];
    if (agent.parent < 0) {
      if (info.state() == "attached") {
        agent.problems.push_back(
            agentText(info.self()) +
            " is attached, yet nothing above it was found (path: " + pathText(info) + ")");
      }
      return;
    }
    const proto::TreeNodeRef& parent = crawl_.agents[agent.parent].ref;
    const auto& path = info.path();
    const bool names_parent =
        path.size() >= 2 && path[path.size() - 2].address() == parent.address();
    if (!names_parent) {
      agent.problems.push_back(agentText(info.self()) + " disagrees with its parent " +
                               agentText(parent) + ": it is " + info.state() + " with path " +
                               pathText(info));
    }
  }

  const proto::TreeInfo& first_;
  const TreeInfoQuery& query_;
  TreeCrawl crawl_;
  std::map<std::string, int> by_address_;  // the first sighting of each agent
  std::vector<int> frontier_;              // added, not asked yet
};

}  // namespace

std::vector<std::string> CrawledAgent::health() const {
  if (duplicate_of >= 0) return {"cycle"};
  std::vector<std::string> words;
  if (!answered()) words.push_back("unreachable");
  if (silent_for_ms > kSilentAfterMs) words.push_back("silent");
  if (answered() && info->events_lost() > 0) words.push_back("lost-events");
  if (!problems.empty()) words.push_back("disagrees");
  if (words.empty()) words.push_back("ok");
  return words;
}

uint32_t CrawledAgent::subtreeSize() const {
  if (!answered()) return 0;
  uint32_t size = 1;
  for (const auto& link : info->links()) {
    if (!link.is_parent()) size += link.subtree_size();
  }
  return size;
}

std::size_t TreeCrawl::distinctAgents() const {
  std::size_t n = 0;
  for (const auto& a : agents) n += a.duplicate_of < 0;
  return n;
}

std::size_t TreeCrawl::unanswered() const {
  std::size_t n = 0;
  for (const auto& a : agents) n += a.duplicate_of < 0 && !a.answered();
  return n;
}

std::size_t TreeCrawl::problems() const {
  std::size_t n = 0;
  for (const auto& a : agents) n += a.problems.size();
  return n;
}

TreeCrawl crawlTree(const proto::TreeInfo& first, const TreeInfoQuery& query) {
  return Crawler(first, query).run();
}

}  // namespace ftb::cli
