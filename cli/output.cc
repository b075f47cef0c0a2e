#include "cli/output.h"

#include <time.h>

#include <algorithm>
#include <cstdio>

namespace ftb::cli {
namespace {

// Length of the well-formed UTF-8 sequence at the start of `s` (1..4), or 0.
std::size_t utf8Sequence(std::string_view s, char32_t* code_point) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  if (s.empty()) return 0;
  const unsigned char c = b(0);
  if (c < 0x80) {
    *code_point = c;
    return 1;
  }
  std::size_t n;
  char32_t cp;
  char32_t min;
  if ((c & 0xE0) == 0xC0) {
    n = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return n;
}

void appendHex(std::string& out, const char* format, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), format, value);
  out += buf;
}

// The two-character escape JSON has for `c`, if any.
const char* jsonEscape(char c) {
  switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\b': return "\\b";
    case '\f': return "\\f";
    default: return nullptr;
  }
}

bool isBidiControl(char32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
         cp == 0x200F || cp == 0x061C;
}

}  // namespace

// ---------------------------------------------------------------- JsonWriter

void JsonWriter::beforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!empty_.empty()) {
    if (!empty_.back()) out_ += ',';
    empty_.back() = false;
  }
}

JsonWriter& JsonWriter::beginObject() {
  beforeValue();
  out_ += '{';
  empty_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  out_ += '}';
  empty_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  beforeValue();
  out_ += '[';
  empty_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  out_ += ']';
  empty_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  value(name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  beforeValue();
  out_ += '"';
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (const char* escaped = jsonEscape(c)) {
      out_ += escaped;
      ++i;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      appendHex(out_, "\\u%04x", static_cast<unsigned char>(c));
      ++i;
      continue;
    }
    char32_t cp;
    const std::size_t n = utf8Sequence(text.substr(i), &cp);
    if (n == 0) {
      out_ += "\\ufffd";
      ++i;
    } else {
      out_.append(text.substr(i, n));
      i += n;
    }
  }
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  beforeValue();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  beforeValue();
  out_ += std::to_string(n);
  return *this;
}

// ---------------------------------------------------------------- text

bool isValidUtf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    char32_t cp;
    const std::size_t n = utf8Sequence(bytes.substr(i), &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto b = [&](std::size_t k) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = b(i) << 16 | b(i + 1) << 8 | b(i + 2);
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += kAlphabet[v >> 6 & 63];
    out += kAlphabet[v & 63];
  }
  if (bytes.size() - i == 1) {
    const uint32_t v = b(i) << 16;
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += "==";
  } else if (bytes.size() - i == 2) {
    const uint32_t v = b(i) << 16 | b(i + 1) << 8;
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += kAlphabet[v >> 6 & 63];
    out += '=';
  }
  return out;
}

std::string printable(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == '\\') {
      out += "\\\\";
      ++i;
    } else if (c == '\n') {
      out += "\\n";
      ++i;
    } else if (c == '\t') {
      out += "\\t";
      ++i;
    } else if (c == '\r') {
      out += "\\r";
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else {
      char32_t cp;
      const std::size_t n = c >= 0x80 ? utf8Sequence(bytes.substr(i), &cp) : 0;
      if (n == 0 || cp < 0xA0) {  // C0/C1 control, DEL, or not UTF-8
        appendHex(out, "\\x%02x", c);
        ++i;
      } else if (isBidiControl(cp)) {
        appendHex(out, "\\u{%04x}", static_cast<unsigned>(cp));
        i += n;
      } else {
        out.append(bytes.substr(i, n));
        i += n;
      }
    }
  }
  return out;
}

std::string formatTime(int64_t sec, int32_t nsec, int fraction_digits) {
  const time_t t = static_cast<time_t>(sec);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[64];
  const std::size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out(buf, n);
  if (fraction_digits > 0) {
    char frac[16];
    std::snprintf(frac, sizeof(frac), "%09d", std::clamp(nsec, 0, 999'999'999));
    out += '.';
    out.append(frac, std::min(fraction_digits, 9));
  }
  out += 'Z';
  return out;
}

std::string formatDuration(uint64_t ms) {
  if (ms < 1000) return std::to_string(ms) + "ms";
  uint64_t s = ms / 1000;
  const uint64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;
  s %= 60;
  char buf[64];
  if (d > 0) {
    std::snprintf(buf, sizeof(buf), "%llud%02lluh%02llum", static_cast<unsigned long long>(d),
                  static_cast<unsigned long long>(h), static_cast<unsigned long long>(m));
  } else if (h > 0) {
    std::snprintf(buf, sizeof(buf), "%lluh%02llum%02llus", static_cast<unsigned long long>(h),
                  static_cast<unsigned long long>(m), static_cast<unsigned long long>(s));
  } else if (m > 0) {
    std::snprintf(buf, sizeof(buf), "%llum%02llus", static_cast<unsigned long long>(m),
                  static_cast<unsigned long long>(s));
  } else {
    std::snprintf(buf, sizeof(buf), "%llus", static_cast<unsigned long long>(s));
  }
  return buf;
}

// ---------------------------------------------------------------- tables

std::size_t displayWidth(std::string_view text) {
  std::size_t width = 0;
  for (char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return width;
}

std::string formatRow(const std::vector<std::string>& cells,
                      const std::vector<std::size_t>& widths) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    line += cells[i];
    if (i + 1 == cells.size()) break;
    const std::size_t width = i < widths.size() ? widths[i] : 0;
    const std::size_t used = displayWidth(cells[i]);
    line.append(used < width ? width - used : 0, ' ');
    line += "  ";
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::addRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

void Table::print(std::ostream& out, bool with_header) const {
  std::vector<std::size_t> widths(headers_.size());
  const auto fit = [&](const std::vector<std::string>& cells) {
    if (widths.size() < cells.size()) widths.resize(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
      widths[i] = std::max(widths[i], displayWidth(cells[i]));
    }
  };
  fit(headers_);
  for (const auto& row : rows_) fit(row);
  if (with_header && !headers_.empty()) out << formatRow(headers_, widths) << "\n";
  for (const auto& row : rows_) out << formatRow(row, widths) << "\n";
}

}  // namespace ftb::cli
