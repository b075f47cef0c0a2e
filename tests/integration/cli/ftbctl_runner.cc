#include "tests/integration/cli/ftbctl_runner.h"

namespace ftb::testing {

const std::string& ftbctl() {
  static const std::string path = runfile("cli/ftbctl");
  return path;
}

std::vector<std::string> ftbctlCommand(const std::string& endpoint, std::vector<std::string> args) {
  std::vector<std::string> argv = {ftbctl(), "--agent", endpoint};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

ChildResult ftbctlRun(const AgentProcess& agent, std::vector<std::string> args) {
  return runChild(ftbctlCommand(agent.ipcEndpoint(), std::move(args)));
}

std::string describe(const ChildResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    out.push_back(text.substr(start, nl - start));
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace ftb::testing
