#include "cli/tree_output.h"

#include <cstdio>

#include "cli/output.h"

namespace ftb::cli {
namespace {

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : separator) + w;
  return text;
}

std::string orDash(bool known, const std::string& text) { return known ? text : "-"; }

std::vector<std::string> textRow(const CrawledAgent& a) {
  const std::string name = a.ref.name().empty() ? "?" : a.ref.name();
  const bool child = a.parent >= 0;
  const bool ok = a.answered();
  std::string indented(2 * a.depth, ' ');
  indented += printable(name);
  if (a.duplicate_of >= 0) indented += " (again)";
  return {indented,
          printable(a.ref.address()),
          ok ? printable(a.info->state()) : "-",
          joined(a.health(), ","),
          formatLatency(a.rtt_us),
          orDash(child && a.silent_for_ms >= 0, formatDuration(a.silent_for_ms)),
          orDash(ok, std::to_string(a.subtreeSize())),
          orDash(ok, ok ? std::to_string(a.info->clients()) : ""),
          orDash(ok, ok ? std::to_string(a.info->repairs()) : "")};
}

// Depth first from each root, so that every agent sits right under its parent.
void appendRows(const TreeCrawl& crawl, int index, Table& table) {
  const CrawledAgent& a = crawl.agents[index];
  table.addRow(textRow(a));
  for (int child : a.children) appendRows(crawl, child, table);
}

void writeRef(JsonWriter& j, const proto::TreeNodeRef& ref) {
  j.beginObject();
  j.key("address").value(ref.address());
  j.key("incarnation").value(ref.incarnation());
  j.key("name").value(ref.name());
  j.endObject();
}

void writeInfo(JsonWriter& j, const proto::TreeInfo& info) {
  j.key("state").value(info.state());
  j.key("path").beginArray();
  for (const auto& n : info.path()) writeRef(j, n);
  j.endArray();
  j.key("links").beginArray();
  for (const auto& l : info.links()) {
    j.beginObject();
    j.key("node");
    writeRef(j, l.node());
    j.key("is_parent").value(l.is_parent());
    j.key("rtt_us").value(l.rtt_us());
    j.key("silent_for_ms").value(l.silent_for_ms());
    j.key("subtree_size").value(l.subtree_size());
    j.key("clients").value(l.clients());
    j.key("job_ranks").value(l.job_ranks());
    j.endObject();
  }
  j.endArray();
  j.key("clients").value(info.clients());
  j.key("repairs").value(info.repairs());
  j.key("last_repair_ms").value(info.last_repair_ms());
  j.key("events_forwarded").value(info.events_forwarded());
  j.key("events_replayed").value(info.events_replayed());
  j.key("duplicates_suppressed").value(info.duplicates_suppressed());
  j.key("events_lost").value(info.events_lost());
  j.key("uptime_ms").value(info.uptime_ms());
}

// Inside a DOT double-quoted string only `"` and `\` need escaping; printable()
// has already made it one line.
std::string dotEscaped(std::string_view text) {
  std::string out;
  for (char c : printable(text)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string dotQuoted(std::string_view text) { return "\"" + dotEscaped(text) + "\""; }

}  // namespace

std::string formatLatency(int64_t rtt_us) {
  if (rtt_us < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2fms", static_cast<double>(rtt_us) / 1000.0);
  return buf;
}

void printTreeText(const TreeCrawl& crawl, std::ostream& out, bool headers) {
  if (!crawl.note.empty()) out << crawl.note << "\n";
  if (crawl.agents.empty()) {
    out.flush();
    return;
  }
  Table table({"AGENT", "ADDRESS", "STATE", "HEALTH", "LATENCY", "SILENT", "SUBTREE", "CLIENTS",
               "REPAIRS"});
  for (int root : crawl.roots) appendRows(crawl, root, table);
  table.print(out, headers);
  if (!headers) {
    out.flush();
    return;
  }
  out << crawl.distinctAgents() << " agent(s), " << crawl.roots.size() << " root(s)";
  if (crawl.unanswered() > 0) out << ", " << crawl.unanswered() << " did not answer";
  if (crawl.problems() > 0) out << ", " << crawl.problems() << " inconsistency(ies)";
  out << "\n";
  out.flush();
}

void printTreeJson(const TreeCrawl& crawl, std::ostream& out) {
  JsonWriter j;
  j.beginArray();
  for (const CrawledAgent& a : crawl.agents) {
    if (a.duplicate_of >= 0) continue;  // listed once; the cycle shows in its problems
    j.beginObject();
    j.key("self");
    writeRef(j, a.answered() ? a.info->self() : a.ref);
    j.key("answered").value(a.answered());
    j.key("parent").value(a.parent < 0 ? std::string() : crawl.agents[a.parent].ref.address());
    j.key("depth").value(static_cast<int64_t>(a.depth));
    j.key("health").beginArray();
    for (const auto& w : a.health()) j.value(w);
    j.endArray();
    j.key("problems").beginArray();
    for (const auto& p : a.problems) j.value(p);
    j.endArray();
    if (a.answered()) {
      writeInfo(j, *a.info);
    } else {
      j.key("error").value(a.error);
    }
    j.endObject();
  }
  j.endArray();
  out << j.str() << std::endl;
}

void printTreeDot(const TreeCrawl& crawl, std::ostream& out) {
  out << "digraph ftb {\n  node [shape=box];\n";
  for (const CrawledAgent& a : crawl.agents) {
    if (a.duplicate_of >= 0) continue;
    out << "  " << dotQuoted(a.ref.address()) << " [label="
        << "\"" << dotEscaped(a.ref.name()) << "\\n"
        << dotEscaped(a.ref.address()) << "\"";
    if (!a.healthy()) out << ", color=red, fontcolor=red";
    out << "];\n";
  }
  for (const CrawledAgent& a : crawl.agents) {
    if (a.parent < 0) continue;
    out << "  " << dotQuoted(crawl.agents[a.parent].ref.address()) << " -> "
        << dotQuoted(a.ref.address()) << " [label=" << dotQuoted(formatLatency(a.rtt_us));
    if (a.duplicate_of >= 0) out << ", color=red, style=dashed";
    out << "];\n";
  }
  out << "}" << std::endl;
}

}  // namespace ftb::cli
