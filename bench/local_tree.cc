#include "bench/local_tree.h"

#include <filesystem>
#include <thread>

#include "cli/tree_health.h"
#include "cli/tree_query.h"

namespace ftb::bench {

using namespace std::chrono_literals;

Result<std::unique_ptr<LocalTree>> LocalTree::start(const std::string& binary, Options options) {
  std::unique_ptr<LocalTree> tree(new LocalTree());
  tree->options_ = options;
  for (int i = 0; i < options.agents; ++i) {
    std::vector<std::string> flags = {
        "--name=agent" + std::to_string(i),
        "--tree-fan-out=" + std::to_string(options.fan_out),
        "--tree-heartbeat-ms=" + std::to_string(options.heartbeat_ms),
        "--tree-timeout-ms=" + std::to_string(options.timeout_ms),
        "--tree-authentication=insecure-none"};
    if (i > 0) {
      const int parent = (i - 1) / static_cast<int>(options.fan_out);
      flags.push_back("--tree-seeds=" + tree->agents_[parent]->tcpEndpoint());
    }
    auto agent = AgentRunner::start(binary, flags, 10s, /*log_to_file=*/true);
    if (!agent.ok()) return agent.status();
    tree->agents_.push_back(std::move(*agent));
  }
  return tree;
}

LocalTree::~LocalTree() {
  if (options_.keep_logs_in.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(options_.keep_logs_in, ec);
  for (int i = 0; i < size(); ++i) {
    std::filesystem::copy_file(agents_[i]->logPath(),
                               options_.keep_logs_in + "/agent" + std::to_string(i) + ".log",
                               std::filesystem::copy_options::overwrite_existing, ec);
  }
}

std::vector<std::optional<proto::TreeInfo>> LocalTree::infos() {
  std::vector<std::string> endpoints;
  std::vector<int> asked;
  for (int i = 0; i < size(); ++i) {
    if (!alive(i)) continue;
    endpoints.push_back(agents_[i]->tcpEndpoint());
    asked.push_back(i);
  }
  auto answers = cli::queryTreeInfo(endpoints, 1000ms);
  std::vector<std::optional<proto::TreeInfo>> out(agents_.size());
  for (std::size_t k = 0; k < asked.size(); ++k) {
    if (answers[k].ok()) out[asked[k]] = *answers[k];
  }
  return out;
}

int LocalTree::indexOf(const std::string& tree_address) const {
  for (int i = 0; i < size(); ++i) {
    if (agents_[i]->tcpEndpoint() == tree_address) return i;
  }
  return -1;
}

std::string LocalTree::checkOneTree() {
  std::vector<bool> alive;
  for (int i = 0; i < size(); ++i) alive.push_back(this->alive(i));
  return cli::oneTreeProblem(infos(), alive, options_.fan_out);
}

std::string LocalTree::waitForOneTree(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (!(last = checkOneTree()).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);  // the tree settles on heartbeat ticks
  }
  return last;
}

int LocalTree::root() { return cli::rootOf(infos()); }

std::vector<int> LocalTree::depths() {
  auto all = infos();
  std::vector<int> out(agents_.size(), -1);
  for (int i = 0; i < size(); ++i) {
    if (all[i] && !all[i]->path().empty()) out[i] = all[i]->path_size() - 1;
  }
  return out;
}

std::vector<int> LocalTree::interior() { return cli::interiorOf(infos()); }

uint64_t LocalTree::repairs() {
  uint64_t sum = 0;
  for (const auto& info : infos()) sum += info ? info->repairs() : 0;
  return sum;
}

}  // namespace ftb::bench
