#include "components/ib/sysfs_tree.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace ftb::ib {

namespace fs = std::filesystem;

namespace {

// The file's first line without trailing whitespace; nullopt when unreadable.
std::optional<std::string> readLine(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::optional<uint64_t> parseUnsigned(std::string_view text, int base) {
  if (base == 16 && (text.starts_with("0x") || text.starts_with("0X"))) text.remove_prefix(2);
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "4: ACTIVE" -> 4.
std::optional<uint64_t> leadingNumber(std::string_view text) {
  return parseUnsigned(text.substr(0, text.find(':')), 10);
}

double laneGbpsOf(std::string_view speed) {
  struct Named {
    std::string_view name;
    double gbps;
  };
  static constexpr Named kSpeeds[] = {{"SDR", 2.5}, {"DDR", 5},  {"QDR", 10},  {"FDR10", 10},
                                      {"FDR", 14},  {"EDR", 25}, {"HDR", 50},  {"NDR", 100},
                                      {"XDR", 200}};
  for (const Named& s : kSpeeds) {
    if (s.name == speed) return s.gbps;
  }
  return 0;
}

void readCounterDir(const fs::path& dir, const std::string& prefix, CounterReadout& out) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;  // RoCE devices have no counters/: not a problem
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir, ec)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (name == "lifespan") continue;
    std::optional<std::string> text = readLine(dir / name);
    if (!text) {
      out.problems.push_back(prefix + name + ": cannot be read");
      continue;
    }
    std::optional<uint64_t> value = parseUnsigned(*text, 10);
    if (!value) {
      out.problems.push_back(prefix + name + ": '" + *text + "' is not a number");
      continue;
    }
    out.counters.push_back({.name = (prefix == "counters/" ? "" : prefix) + name, .value = *value});
  }
}

}  // namespace

Result<PortAttrs> parseRate(const std::string& text) {
  // "100 Gb/sec (4X EDR)"; the speed name may be missing on old kernels: "10 Gb/sec (4X)".
  const auto open = text.find('(');
  const auto x = text.find('X', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || x == std::string::npos) {
    return invalidArgument("rate '" + text + "' is not like '100 Gb/sec (4X EDR)'");
  }
  std::optional<uint64_t> width = parseUnsigned(std::string_view(text).substr(open + 1, x - open - 1), 10);
  if (!width) return invalidArgument("rate '" + text + "' has no lane count before 'X'");
  PortAttrs attrs{.width = static_cast<uint32_t>(*width)};
  std::string rest = text.substr(x + 1);
  std::string speed;
  for (char c : rest) {
    if (std::isalnum(static_cast<unsigned char>(c))) speed += c;
  }
  attrs.lane_gbps = laneGbpsOf(speed);
  if (attrs.lane_gbps == 0) {
    // No name: derive the lane rate from the total ("40 Gb/sec (4X)").
    double total = 0;
    std::istringstream(text) >> total;
    if (*width > 0) attrs.lane_gbps = total / static_cast<double>(*width);
  }
  return attrs;
}

std::vector<std::string> SysfsTree::devices() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(root_) / "class/infiniband", ec)) {
    names.push_back(entry.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<uint32_t> SysfsTree::ports(const std::string& hca) const {
  std::vector<uint32_t> numbers;
  std::error_code ec;
  for (const auto& entry :
       fs::directory_iterator(fs::path(root_) / "class/infiniband" / hca / "ports", ec)) {
    if (auto n = parseUnsigned(entry.path().filename().string(), 10)) {
      numbers.push_back(static_cast<uint32_t>(*n));
    }
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

Result<DeviceInfo> SysfsTree::deviceInfo(const std::string& hca) const {
  const fs::path dir = fs::path(root_) / "class/infiniband" / hca;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return notFound(dir.string() + " does not exist");
  return DeviceInfo{.name = hca,
                    .num_ports = static_cast<uint32_t>(ports(hca).size()),
                    .fw_ver = readLine(dir / "fw_ver").value_or(""),
                    .node_guid = readLine(dir / "node_guid").value_or("")};
}

std::string SysfsTree::portDir(const std::string& hca, uint32_t port) const {
  return root_ + "/class/infiniband/" + hca + "/ports/" + std::to_string(port);
}

Result<PortAttrs> SysfsTree::portAttrs(const std::string& hca, uint32_t port) const {
  const fs::path dir = portDir(hca, port);
  std::optional<std::string> state = readLine(dir / "state");
  if (!state) return notFound(dir.string() + "/state cannot be read");
  PortAttrs attrs;
  // Each attribute: file, how to parse, where it goes.
  auto number = [&](const char* file, int base, auto& field, bool leading) -> Status {
    std::optional<std::string> text = file == std::string_view("state") ? state : readLine(dir / file);
    if (!text) return Status();  // optional attribute (rxe has no sm_sl on old kernels)
    std::optional<uint64_t> v = leading ? leadingNumber(*text) : parseUnsigned(*text, base);
    if (!v) return invalidArgument(dir.string() + "/" + file + ": '" + *text + "' is not a number");
    field = static_cast<std::remove_reference_t<decltype(field)>>(*v);
    return Status();
  };
  for (Status s : {number("state", 10, attrs.state, true),
                   number("phys_state", 10, attrs.phys_state, true),
                   number("lid", 16, attrs.lid, false), number("sm_lid", 16, attrs.sm_lid, false),
                   number("lid_mask_count", 10, attrs.lmc, false),
                   number("sm_sl", 10, attrs.sm_sl, false)}) {
    if (!s.ok()) return s;
  }
  attrs.link_layer = readLine(dir / "link_layer").value_or("");
  if (std::optional<std::string> rate = readLine(dir / "rate")) {
    Result<PortAttrs> parsed = parseRate(*rate);
    if (!parsed.ok()) return invalidArgument(dir.string() + "/" + parsed.status().message());
    attrs.width = parsed->width;
    attrs.lane_gbps = parsed->lane_gbps;
  }
  return attrs;
}

CounterReadout SysfsTree::counters(const std::string& hca, uint32_t port) const {
  CounterReadout out;
  const fs::path dir = portDir(hca, port);
  readCounterDir(dir / "counters", "counters/", out);
  readCounterDir(dir / "hw_counters", "hw_counters/", out);
  return out;
}

}  // namespace ftb::ib
