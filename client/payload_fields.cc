#include "client/payload_fields.h"

namespace ftb {
namespace {

bool needsQuotes(std::string_view v) {
  return v.empty() || v.find_first_of(" \t\n\"\\=") != std::string_view::npos;
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

std::string formatPayload(std::string_view head, const PayloadFields& fields,
                          std::size_t max_bytes) {
  std::string out(head.substr(0, max_bytes));
  for (const auto& [key, value] : fields) {
    std::string field = " " + key + "=" + encodeValue(value);
    if (out.size() + field.size() > max_bytes) break;  // drop this and later fields
    out += field;
  }
  return out;
}

std::string formatTagsPayload(std::string_view head, const Tags& tags, std::size_t max_bytes) {
  return formatPayload(head, PayloadFields(tags.begin(), tags.end()), max_bytes);
}

Result<ParsedPayload> parsePayload(std::string_view p) {
  ParsedPayload parsed;
  std::size_t i = p.find(' ');
  parsed.head = std::string(p.substr(0, i));
  if (parsed.head.empty()) return invalidArgument("payload does not start with a head word");
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

std::string payloadField(std::string_view payload, std::string_view key) {
  const std::string marker = " " + std::string(key) + "=";
  const std::size_t at = payload.find(marker);
  if (at == std::string_view::npos) return "";
  std::size_t i = at + marker.size();
  if (i >= payload.size() || payload[i] != '"') {
    return std::string(payload.substr(i, payload.find(' ', i) - i));
  }
  std::string value;
  for (++i; i < payload.size() && payload[i] != '"'; ++i) {
    if (payload[i] == '\\' && i + 1 < payload.size()) ++i;
    value += payload[i];
  }
  return value;
}

}  // namespace ftb
