// The environment that bounds a benchmark's figures, measured at its start and
// printed beside them. Machines of one kind differ in it, and on a VM the
// figures move with it: the load, the time the hypervisor steals, and above all
// what a page fault and a process start cost (a shadow-paging hypervisor
// charges 10-30 us per first touch of a 4 KiB page: 64 MiB = 16k faults = 0.2-0.5 s).
//
//   ftb::bench::printEnvironment();  // first thing in main()
//   // environment: load 0.42, steal 0.0 %, page fault 14.2 us, fork+exec 3.8 ms, THP madvise
//   //   (2026-11-29 01:23 UTC, 2 cores)                                            [one line]
//
// Every benchmark prints this line before its figures: bench/ (ftb_bench,
// ftb_tree_bench), components/*/bench, and the shell benchmarks through
// //bench:print_environment. Compare figures only between runs whose lines agree.
//
// measureEnvironment() takes about 0.3 s (longer where faults are dear), maps and
// touches 16 MiB and forks: call it before this process starts threads or an
// ftb::Client (bench_support.h's fork rule), not while a measurement runs.
#pragma once

#include <ctime>
#include <string>

namespace ftb::bench {

struct Environment {
  double load = -1;           // 1-minute load average (/proc/loadavg); < 0 when unknown
  double steal_percent = -1;  // CPU time the hypervisor took, % of all CPU time during the measurement (/proc/stat)
  double page_fault_us = -1;  // first write to one 4 KiB page of fresh anonymous memory (no huge pages)
  double fork_exec_ms = -1;   // fork + exec + exit of /bin/true, median of 5
  std::string transparent_huge_pages;  // "always", "madvise" or "never"; "" when unknown
  long cores = 0;                      // online CPUs
  std::time_t measured_at = 0;
};

Environment measureEnvironment();
// "environment: load 0.42, steal 0.0 %, page fault 14.2 us, fork+exec 3.8 ms, THP madvise
// (2026-11-29 01:23 UTC, 2 cores)"; what could not be measured shows as "?".
std::string formatEnvironment(const Environment& environment);
// Measures, prints formatEnvironment() as one line on stdout and flushes it.
Environment printEnvironment();

}  // namespace ftb::bench
