#include "components/ib/payload.h"

namespace ftb::ib {

namespace {

std::string quoted(const std::string& value) {
  if (!value.empty() && value.find_first_of(" \t\"\\=") == std::string::npos) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string formatPayload(std::string_view original, const PayloadFields& fields,
                          std::size_t max_bytes) {
  std::string out(original.substr(0, max_bytes));
  for (const auto& [key, value] : fields) {
    std::string field = " " + key + "=" + quoted(value);
    if (out.size() + field.size() > max_bytes) break;
    out += field;
  }
  return out;
}

}  // namespace ftb::ib
