// The three forms of `ftbctl tree`: an indented table for people, a JSON array
// of the agents' TreeInfos for scripts, and a Graphviz digraph.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "cli/tree_crawl.h"

namespace ftb::cli {

// Two spaces per level before each name, then address, state, health, latency,
// silence, subtree, clients and repairs; a summary line at the end.
// Without `headers` (--no-headers) only the agents' rows (and a note, if any).
void printTreeText(const TreeCrawl& crawl, std::ostream& out, bool headers = true);
// One line: [{"self":{...},"state":...,"health":[...],"parent":"tcp://...",...}, ...]
void printTreeJson(const TreeCrawl& crawl, std::ostream& out);
// digraph ftb { ... }: one node per agent (red when unhealthy), one edge per link.
void printTreeDot(const TreeCrawl& crawl, std::ostream& out);

// 1234 µs -> "1.23ms"; negative (not measured yet) -> "-".
std::string formatLatency(int64_t rtt_us);

}  // namespace ftb::cli
