#include "components/launcher_bridge/tests/integration/ftb_run_fixture.h"

#include <cstdlib>
#include <filesystem>
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

std::string FtbRunFixture::writeRunThroughMpirun() const {
  const std::string path = dir.path() + "/mpirun-run-through";
  std::ofstream(path) << "#!/bin/bash\n"
                         "echo \"$* FTBCKPT_SPARE_NODES=${FTBCKPT_SPARE_NODES-}\" >>'" + dir.path() + "/mpirun.args'\n"
                         "args=()\n"
                         "while [ $# -gt 0 ]; do\n"
                         "  case \"$1\" in\n"
                         "    --with-ft) shift 2 ;;\n"
                         "    --host)\n"
                         "      slots=0\n"
                         "      IFS=, read -ra hosts <<<\"$2\"\n"
                         "      for h in \"${hosts[@]}\"; do slots=$((slots + ${h##*:})); done\n"
                         "      args+=(--host \"localhost:$slots\"); shift 2 ;;\n"
                         "    --map-by)\n"
                         "      case \"$2\" in rankfile:file=*) cat \"${2#rankfile:file=}\" >>'" + dir.path() + "/mpirun.rankfiles' ;; esac\n"
                         "      args+=(--map-by slot); shift 2 ;;\n"
                         "    *) args+=(\"$1\"); shift ;;\n"
                         "  esac\n"
                         "done\n"
                         "exec mpirun \"${args[@]}\"\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

std::function<bool(const Event&)> named(const std::string& name, const std::string& key, const std::string& value) {
  return [=](const Event& e) { return e.event_name == name && (key.empty() || tag(e, key) == value); };
}

std::string tag(const Event& event, const std::string& key) {
  auto it = event.tags.find(key);
  return it == event.tags.end() ? "" : it->second;
}

}  // namespace ftb::launcher::testing
