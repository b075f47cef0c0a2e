#define BOOST_TEST_MODULE launcher_mpi_job
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>

#include "components/launcher_bridge/mpi_job.h"
#include "components/launcher_bridge/node_admin.h"

using namespace ftb::launcher;

namespace {
MpiJobSpec spec() {
  MpiJobSpec s;
  s.host_list = "n1:2,n2:2";
  s.ranks = 4;
  s.program = {"stencil", "--iterations", "10"};
  s.env = {{"FTB_JOB_ID", "J1"}};
  return s;
}

// The value following `--mca <param>` in `cmd`, or "" if it is not there.
std::string mcaValue(const std::vector<std::string>& cmd, const std::string& param) {
  for (std::size_t i = 0; i + 2 < cmd.size(); ++i) {
    if (cmd[i] == "--mca" && cmd[i + 1] == param) return cmd[i + 2];
  }
  return "";
}
}  // namespace

BOOST_AUTO_TEST_CASE(hosts_ranks_exports_and_program_in_order) {
  unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
  auto cmd = mpirunCommand(spec());
  BOOST_TEST(cmd.front() == "mpirun");
  auto host = std::find(cmd.begin(), cmd.end(), "--host");
  BOOST_TEST_REQUIRE((host != cmd.end() && host + 1 != cmd.end()));
  BOOST_TEST(*(host + 1) == "n1:2,n2:2");
  auto np = std::find(cmd.begin(), cmd.end(), "-np");
  BOOST_TEST_REQUIRE((np != cmd.end() && np + 1 != cmd.end()));
  BOOST_TEST(*(np + 1) == "4");
  auto x = std::find(cmd.begin(), cmd.end(), "-x");
  BOOST_TEST_REQUIRE((x != cmd.end() && x + 1 != cmd.end()));
  BOOST_TEST(*(x + 1) == "FTB_JOB_ID");
  BOOST_TEST((std::vector<std::string>(cmd.end() - 3, cmd.end()) == spec().program));
}

BOOST_AUTO_TEST_CASE(a_rankfile_places_the_ranks_instead_of_the_slot_order) {
  auto plain = mpirunCommand(spec());
  BOOST_TEST((std::find(plain.begin(), plain.end(), "slot") != plain.end()));
  MpiJobSpec split = spec();
  split.rankfile = "/var/lib/ftb-run/J.rankfile";
  auto cmd = mpirunCommand(split);
  BOOST_TEST((std::find(cmd.begin(), cmd.end(), "slot") == cmd.end()));
  auto map = std::find(cmd.begin(), cmd.end(), "--map-by");
  BOOST_TEST_REQUIRE((map != cmd.end() && map + 3 < cmd.end()));
  BOOST_TEST(*(map + 1) == "rankfile:file=/var/lib/ftb-run/J.rankfile");
  BOOST_TEST(*(map + 2) == "--bind-to");  // the rankfile's slot=0 binds no rank
  BOOST_TEST(*(map + 3) == "none");
  auto host = std::find(cmd.begin(), cmd.end(), "--host");  // still the allocation
  BOOST_TEST_REQUIRE((host != cmd.end() && host + 1 != cmd.end()));
  BOOST_TEST(*(host + 1) == "n1:2,n2:2");
}

BOOST_AUTO_TEST_CASE(no_sigkill_grace_unless_the_caller_sets_one) {
  unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
  BOOST_TEST(mcaValue(mpirunCommand(spec()), "odls_base_sigkill_timeout") == "0");

  MpiJobSpec own = spec();
  own.mpirun_args = {"--mca", "odls_base_sigkill_timeout", "3"};
  auto cmd = mpirunCommand(own);
  BOOST_TEST(std::count(cmd.begin(), cmd.end(), "odls_base_sigkill_timeout") == 1);
  BOOST_TEST(mcaValue(cmd, "odls_base_sigkill_timeout") == "3");

  setenv("OMPI_MCA_odls_base_sigkill_timeout", "2", 1);
  cmd = mpirunCommand(spec());
  BOOST_TEST(std::count(cmd.begin(), cmd.end(), "odls_base_sigkill_timeout") == 0);
  unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
}

BOOST_AUTO_TEST_CASE(run_through_asks_mpirun_for_ulfm_unless_the_caller_chose_ft) {
  auto cmd = mpirunCommand(spec());
  BOOST_TEST(std::count(cmd.begin(), cmd.end(), "--with-ft") == 0);
  MpiJobSpec ulfm = spec();
  ulfm.with_ft_ulfm = true;
  cmd = mpirunCommand(ulfm);
  auto ft = std::find(cmd.begin(), cmd.end(), "--with-ft");
  BOOST_TEST_REQUIRE((ft != cmd.end() && ft + 1 != cmd.end()));
  BOOST_TEST(*(ft + 1) == "ulfm");
  // before the program: everything after it is the program's own
  BOOST_TEST((std::vector<std::string>(cmd.end() - 3, cmd.end()) == spec().program));

  ulfm.mpirun_args = {"--with-ft", "mpi"};
  cmd = mpirunCommand(ulfm);
  BOOST_TEST(std::count(cmd.begin(), cmd.end(), "--with-ft") == 1);
  BOOST_TEST(std::count(cmd.begin(), cmd.end(), "mpi") == 1);
}

BOOST_AUTO_TEST_CASE(the_granted_slurm_job_id_is_read_from_salloc) {
  BOOST_TEST(ftb::launcher::grantedJobId("salloc: Granted job allocation 1234\n").value_or("") == "1234");
  BOOST_TEST(!ftb::launcher::grantedJobId("salloc: error: Unable to allocate resources: Requested nodes are busy\n"));
}
