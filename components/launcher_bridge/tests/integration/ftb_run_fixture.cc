#include "components/launcher_bridge/tests/integration/ftb_run_fixture.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "components/launcher_bridge/lab/netns_lab.h"
#include "tests/support/spawn.h"

namespace ftb::launcher::testing {

FtbRunFixture::FtbRunFixture() {
  setenv("FTB_AGENT_ENDPOINT", agent.ipcEndpoint().c_str(), 1);
  setenv("OMPI_MCA_pml", "ob1", 1);  // ../shared/notes/slurm-lab.md G6
  setenv("OMPI_MCA_mtl", "^ofi", 1);
  setenv("OMPI_MCA_btl", "self,vader", 1);
}

pid_t FtbRunFixture::start(const std::vector<std::string>& args, const std::string& log) const {
  std::vector<std::string> argv{ftb::testing::runfile("components/launcher_bridge/ftb-run"), "--state-dir",
                                dir.path() + "/state"};
  argv.insert(argv.end(), args.begin(), args.end());
  return ftb::testing::spawn(argv, dir.path() + "/" + log);
}

std::optional<int> FtbRunFixture::waitExit(pid_t pid, int timeout_ms) const {
  return lab::waitExit(pid, timeout_ms);
}

std::string FtbRunFixture::log(const std::string& name) const {
  std::ifstream in(dir.path() + "/" + name);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string tag(const Event& event, const std::string& key) {
  auto it = event.tags.find(key);
  return it == event.tags.end() ? "" : it->second;
}

}  // namespace ftb::launcher::testing
