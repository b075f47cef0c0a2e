#include "components/ipmi/payload.h"

#include <cstdio>

namespace ftb::ipmi {
namespace {

bool needsQuotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '\\' || c == '=' || c == '\t' || c == '\n') return true;
  }
  return false;
}

std::string encodeValue(std::string_view v) {
  if (!needsQuotes(v)) return std::string(v);
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\n' || c == '\t') ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace

std::string formatPayload(std::string_view host, const PayloadFields& fields,
                          std::size_t max_bytes) {
  std::string out(host);
  for (const auto& [key, value] : fields) {
    std::string field = " " + key + "=" + encodeValue(value);
    if (out.size() + field.size() > max_bytes) break;  // drop this and later fields
    out += field;
  }
  return out;
}

Result<ParsedPayload> parsePayload(std::string_view p) {
  ParsedPayload parsed;
  std::size_t i = p.find(' ');
  parsed.host = std::string(p.substr(0, i));
  if (parsed.host.empty()) return invalidArgument("payload does not start with a host name");
  while (i != std::string_view::npos && i < p.size()) {
    ++i;  // skip the space
    const std::size_t eq = p.find('=', i);
    if (eq == std::string_view::npos) {
      return invalidArgument("field '" + std::string(p.substr(i)) + "' has no '='");
    }
    std::string key(p.substr(i, eq - i));
    std::string value;
    i = eq + 1;
    if (i < p.size() && p[i] == '"') {
      for (++i;; ++i) {
        if (i >= p.size()) return invalidArgument("unterminated quote in field '" + key + "'");
        if (p[i] == '\\' && i + 1 < p.size()) {
          value += p[++i];
        } else if (p[i] == '"') {
          ++i;
          break;
        } else {
          value += p[i];
        }
      }
      if (i < p.size() && p[i] != ' ') {
        return invalidArgument("text after the closing quote of field '" + key + "'");
      }
    } else {
      const std::size_t end = p.find(' ', i);
      value = std::string(p.substr(i, end == std::string_view::npos ? end : end - i));
      i = end;
    }
    parsed.fields[key] = value;
    if (i >= p.size()) break;
  }
  return parsed;
}

std::string formatNumber(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  return buf;
}

}  // namespace ftb::ipmi
