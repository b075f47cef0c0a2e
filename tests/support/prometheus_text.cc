#include "tests/support/prometheus_text.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

namespace ftb::testing {
namespace {

bool validName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':') return false;
  }
  return true;
}

// name{a="x",b="y"} value  ->  Sample; false when the line is malformed.
bool parseSample(const std::string& line, Sample& out) {
  std::size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
  out.name = line.substr(0, i);
  if (!validName(out.name)) return false;
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      const auto eq = line.find('=', i);
      if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') return false;
      const std::string key = line.substr(i, eq - i);
      if (!validName(key)) return false;
      std::string value;
      std::size_t j = eq + 2;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size()) {
          ++j;
          value += line[j] == 'n' ? '\n' : line[j];
        } else {
          value += line[j];
        }
      }
      if (j >= line.size()) return false;
      out.labels[key] = value;
      i = j + 1;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;  // '}'
  }
  if (i >= line.size() || line[i] != ' ') return false;
  const std::string number = line.substr(i + 1);
  if (number == "+Inf") out.value = HUGE_VAL;
  else if (number == "-Inf") out.value = -HUGE_VAL;
  else {
    char* end = nullptr;
    out.value = std::strtod(number.c_str(), &end);
    if (end == number.c_str() || *end != '\0') return false;
  }
  return true;
}

bool matches(const Sample& s, const std::string& name, const std::map<std::string, std::string>& m) {
  if (s.name != name) return false;
  for (const auto& [k, v] : m) {
    auto it = s.labels.find(k);
    if (it == s.labels.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

int connectTo(const std::string& address, int receive_buffer) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return -1;
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), address.substr(colon + 1).c_str(), &hints, &found) != 0) return -1;
  int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const timeval read_timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &read_timeout, sizeof(read_timeout));
  if (receive_buffer > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer));
  if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    ::close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  return fd;
}

std::string promtoolCheckMetrics(const std::string& text) {
  char path[] = "/tmp/ftb-promtool-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return "cannot create a temporary file for promtool";
  ::close(fd);
  std::ofstream(path) << text;
  const std::string command =
      "command -v promtool >/dev/null || { echo 'promtool not found: run deploy/install-deps.sh'; exit 1; }; "
      "promtool check metrics < " + std::string(path) + " 2>&1";
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return "cannot run promtool";
  char buf[512];
  while (std::fgets(buf, sizeof(buf), p) != nullptr) out += buf;
  const int rc = ::pclose(p);
  ::unlink(path);
  if (rc != 0 && out.empty()) out = "promtool check metrics failed without a word";
  return out;
}

double MetricsText::sum(const std::string& name, const std::map<std::string, std::string>& match) const {
  double total = 0;
  for (const auto& s : samples) {
    if (matches(s, name, match)) total += s.value;
  }
  return total;
}

bool MetricsText::has(const std::string& name, const std::map<std::string, std::string>& match) const {
  for (const auto& s : samples) {
    if (matches(s, name, match)) return true;
  }
  return false;
}

MetricsText parseMetricsText(const std::string& text) {
  MetricsText out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("# HELP ", 0) == 0) continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string name, type;
      t >> name >> type;
      BOOST_CHECK_MESSAGE(type == "counter" || type == "gauge" || type == "histogram" ||
                              type == "summary" || type == "untyped",
                          "bad TYPE line: " << line);
      out.types[name] = type;
      continue;
    }
    Sample s;
    if (!parseSample(line, s)) {
      BOOST_ERROR("malformed exposition line: '" << line << "'");
      continue;
    }
    out.samples.push_back(std::move(s));
  }
  return out;
}

std::string httpGet(const std::string& address, const std::string& path, int* status) {
  if (status != nullptr) *status = 0;
  const int fd = connectTo(address);
  if (fd < 0) {
    if (status == nullptr) BOOST_ERROR("cannot connect to the metrics endpoint " << address);
    return {};
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + address + "\r\n\r\n";
  (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) response.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  const auto head_end = response.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    if (status == nullptr) BOOST_ERROR("no HTTP response from " << address);
    return {};
  }
  const int code = std::atoi(response.substr(response.find(' ') + 1, 3).c_str());
  if (status != nullptr) *status = code;
  if (status == nullptr) BOOST_CHECK_MESSAGE(code == 200, "GET " << path << " answered " << code);
  return response.substr(head_end + 4);
}

}  // namespace ftb::testing
