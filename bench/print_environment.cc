// print_environment: the line of bench/environment.h on stdout, for the shell
// benchmarks (components/mpi_bridge/bench/*.sh, tests/ulfm run_through_bench).
#include "bench/environment.h"

int main() {
  ftb::bench::printEnvironment();
  return 0;
}
