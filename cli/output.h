// Output helpers for ftbctl: aligned tables for people, JSON for scripts, and
// the escaping both need because payloads and names arrive from anywhere on the
// cluster. ftbctl carries no JSON library; JsonWriter writes compact JSON.
//
//   JsonWriter j;
//   j.beginObject().key("clients").value(3).endObject();
//   std::cout << j.str() << "\n";  // {"clients":3}
//
// Not thread-safe; each object is used by one command on one thread.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ftb::cli {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);
  // Strings are written as UTF-8; bytes that are not valid UTF-8 become U+FFFD.
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t n);
  JsonWriter& value(uint64_t n);
  JsonWriter& value(int32_t n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(uint32_t n) { return value(static_cast<uint64_t>(n)); }

  const std::string& str() const { return out_; }

 private:
  void beforeValue();

  std::string out_;
  std::vector<bool> empty_;  // per open object/array: nothing written in it yet
  bool after_key_ = false;
};

// True when `bytes` is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF).
bool isValidUtf8(std::string_view bytes);
std::string base64(std::string_view bytes);

// For a terminal: printable ASCII and printable UTF-8 as is; backslash, control
// characters, invalid bytes and bidirectional overrides escaped (\n, \t, \xNN, \u{NNNN}).
std::string printable(std::string_view bytes);

// UTF time, e.g. "2024-05-01T12:00:00.123Z" (fraction_digits 3) or with 9 digits.
std::string formatTime(int64_t sec, int32_t nsec, int fraction_digits);
// "850ms", "12s", "5m02s", "3h04m05s", "2d03h04m".
std::string formatDuration(uint64_t ms);

// A table whose column widths fit its cells. Columns are separated by two
// spaces; the last column is not padded. An empty header list prints no header;
// so does print(out, false) (--no-headers), with the columns still fitted as if
// it were there, so output with and without headers lines up the same way.
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void addRow(std::vector<std::string> cells);
  void print(std::ostream& out, bool with_header = true) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// One line of cells padded to `widths` (display width: UTF-8 code points), the
// last cell unpadded. Used by Table and by tables printed row by row.
std::string formatRow(const std::vector<std::string>& cells,
                      const std::vector<std::size_t>& widths);
std::size_t displayWidth(std::string_view text);

}  // namespace ftb::cli
