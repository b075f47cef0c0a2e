#include "client/ftb05/library.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "client/clock.h"
#include "client/client.h"
#include "client/event.h"
#include "client/hex.h"
#include "client/names.h"
#include "client/origin.h"

namespace ftb::ftb05 {
namespace {

using std::chrono::milliseconds;

constexpr std::size_t kMaxDeclared = 100;
// What FTB 0.5 clients need that our event model spells differently travels in
// these tags: "1;seqnum;event_type;event_space;event_name;severity;client_name"
// (names as spelled, client_name percent-encoded) and the FTB_TAG area in hex.
constexpr const char* kMetaTag = "ftb05";
constexpr const char* kTagAreaTag = "ftb05.tags";
// The SDK needs a client name; FTB 0.5 allows "".
constexpr const char* kAnonymousClient = "ftb05";
// Events seen by more than one of a client's subscriptions arrive once per
// subscription, one right after another; this many recent ids are remembered.
constexpr std::size_t kRecentIds = 64;
// The polling queue when client_polling_queue_len <= 0 and $FTB_POLLING_QUEUE_LEN
// is unset: room for real bursts (0.6.2's 64 lost events of its own MPI
// examples, e.g. ftb_grouping's 100 per rank). Memory is taken only by events
// actually waiting: at most about 64 MB per client (about 1 KB an event).
constexpr std::size_t kDefaultPollingQueueEvents = 65536;
// How long FTB_Publish waits for room in the SDK's publish buffer while the
// agent acknowledges nothing ($FTB_PUBLISH_TIMEOUT_MS): past it, the agent is
// taken as gone for good and FTB_Publish fails.
constexpr milliseconds kDefaultPublishTimeout{30000};

// ---------------------------------------------------------------- helpers

// Warnings on stderr, at most one line per kind every 10 s.
void warn(const std::string& kind, const std::string& message) {
  // Never destroyed: SDK threads may still warn while the program exits.
  static auto* mu = new std::mutex;
  static auto* seen =
      new std::map<std::string, std::pair<std::chrono::steady_clock::time_point, uint64_t>>;
  const auto now = Clock::real().steadyNow();
  uint64_t suppressed = 0;
  {
    std::lock_guard lock(*mu);
    auto it = seen->find(kind);
    if (it != seen->end() && now - it->second.first < std::chrono::seconds(10)) {
      ++it->second.second;
      return;
    }
    if (it != seen->end()) suppressed = it->second.second;
    (*seen)[kind] = {now, 0};
  }
  if (suppressed > 0) {
    std::fprintf(stderr, "libftb: %s (%llu similar messages suppressed)\n", message.c_str(),
                 static_cast<unsigned long long>(suppressed));
  } else {
    std::fprintf(stderr, "libftb: %s\n", message.c_str());
  }
}

void copyField(char* dst, std::size_t cap, const std::string& src) {
  const std::size_t n = std::min(src.size(), cap - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

std::string truncated(std::string s, std::size_t cap) {
  if (s.size() >= cap) s.resize(cap - 1);
  return s;
}

std::string lowerCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool isSeverity(std::string_view s) {
  return equalsIgnoreCase(s, "fatal") || equalsIgnoreCase(s, "error") ||
         equalsIgnoreCase(s, "warning") || equalsIgnoreCase(s, "info");
}

std::string percentEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '.') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string percentDecode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hexDigit(s[i + 1]) >= 0 && hexDigit(s[i + 2]) >= 0) {
      out += static_cast<char>(hexDigit(s[i + 1]) * 16 + hexDigit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> splitOn(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const auto pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? s.npos : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

// "%a_%b_%d_%j_%H:%M:%S" of 0.6.2, in UTC and English whatever the host
// program's TZ and locale, so that every process renders a publisher's start
// time identically (handles compare byte for byte).
std::string startTimeText(uint64_t start_ns) {
  // Every event carries its publisher's start time: the text of the last one is kept.
  thread_local uint64_t last_ns = 0;
  thread_local std::string last_text;
  if (start_ns == last_ns && !last_text.empty()) return last_text;
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const time_t secs = static_cast<time_t>(start_ns / 1'000'000'000ULL);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[FTB_MAX_PID_TIME];
  std::snprintf(buf, sizeof buf, "%s_%s_%02d_%03d_%02d:%02d:%02d", kDays[tm.tm_wday % 7],
                kMonths[tm.tm_mon % 12], tm.tm_mday, tm.tm_yday + 1, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  last_ns = start_ns;
  last_text = buf;
  return last_text;
}

void fillLocation(FTB_location_id_t* location, const std::string& host, uint32_t pid,
                  uint64_t start_ns) {
  copyField(location->hostname, sizeof location->hostname, host);
  copyField(location->pid_starttime, sizeof location->pid_starttime, startTimeText(start_ns));
  location->pid = static_cast<pid_t>(pid);
}

// A setting as 0.6.2 looks it up: the environment, else the first line of
// $FTB_CONFIG_FILE containing the name (value after the next '=').
std::string setting(const char* name) {
  if (const char* env = std::getenv(name); env != nullptr && *env != '\0') return env;
  const char* file = std::getenv("FTB_CONFIG_FILE");
  if (file == nullptr || *file == '\0') return "";
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(name);
    if (at == std::string::npos) continue;
    const auto eq = line.find('=', at + std::strlen(name));
    if (eq == std::string::npos) return "";
    std::string value = line.substr(eq + 1);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(0, 1);
    return value;
  }
  return "";
}

// "" lets the SDK choose (its default IPC socket).
std::string agentEndpoint() {
  if (std::string endpoint = setting("FTB_AGENT_ENDPOINT"); !endpoint.empty()) return endpoint;
  if (std::string port = setting("FTB_AGENT_PORT"); !port.empty()) {
    return "tcp://127.0.0.1:" + std::to_string(std::atoi(port.c_str()));
  }
  return "";
}

// A positive whole number from setting `name`, or nullopt (unset; a bad value is warned about).
std::optional<long> positiveSetting(const char* name) {
  const std::string text = setting(name);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value <= 0) {
    warn(name, std::string(name) + "='" + text + "' is not a positive whole number; using the default");
    return std::nullopt;
  }
  return value;
}

std::size_t pollingQueueEvents() {
  if (auto n = positiveSetting("FTB_POLLING_QUEUE_LEN")) return static_cast<std::size_t>(*n);
  return kDefaultPollingQueueEvents;
}

milliseconds publishTimeout() {
  if (auto ms = positiveSetting("FTB_PUBLISH_TIMEOUT_MS")) return milliseconds(*ms);
  return kDefaultPublishTimeout;
}

milliseconds connectTimeout() {
  const std::string ms = setting("FTB_CONNECT_TIMEOUT_MS");
  if (!ms.empty() && std::atol(ms.c_str()) > 0) return milliseconds(std::atol(ms.c_str()));
  return milliseconds(5000);
}

// SDK failures after a successful connect.
int codeOf(const Status& status, const char* what) {
  if (status.ok()) return FTB_SUCCESS;
  warn(what, std::string(what) + ": " + status.toString());
  switch (status.code()) {
    case Code::kUnavailable: return FTB_ERR_NETWORK_NO_ROUTE;
    case Code::kInvalidArgument:
    case Code::kFailedPrecondition:
    case Code::kInternal: return FTB_ERR_GENERAL;
    default: return FTB_ERR_NETWORK_GENERAL;
  }
}

// Identity of §0: category, component, client name and extension; not the region.
bool sameClient(const FTB_client_id_t& a, const FTB_client_id_t& b) {
  return a.ext == b.ext &&
         equalsIgnoreCase(fieldString(a.comp_cat, FTB_MAX_EVENTSPACE),
                          fieldString(b.comp_cat, FTB_MAX_EVENTSPACE)) &&
         equalsIgnoreCase(fieldString(a.comp, FTB_MAX_EVENTSPACE),
                          fieldString(b.comp, FTB_MAX_EVENTSPACE)) &&
         equalsIgnoreCase(fieldString(a.client_name, FTB_MAX_CLIENT_NAME),
                          fieldString(b.client_name, FTB_MAX_CLIENT_NAME));
}

ReceivedEvent toReceived(const Event& e) {
  ReceivedEvent r;
  r.event_space = e.event_space;
  r.event_name = e.event_name;
  r.severity = lowerCase(severityName(e.severity));
  r.client_jobid = e.job_id;
  r.client_name = e.client_name;
  r.seqnum = static_cast<uint16_t>(e.id.seq & 0xffff);
  r.event_type = e.type == EventType::kResponse ? 2 : 1;
  if (auto meta = e.tags.find(kMetaTag); meta != e.tags.end()) {
    const auto f = splitOn(meta->second, ';');
    if (f.size() == 7 && f[0] == "1") {
      r.seqnum = static_cast<uint16_t>(std::strtoul(std::string(f[1]).c_str(), nullptr, 10));
      r.event_type = static_cast<uint8_t>(std::strtoul(std::string(f[2]).c_str(), nullptr, 10));
      r.event_space = f[3];
      r.event_name = f[4];
      r.severity = f[5];
      r.client_name = percentDecode(f[6]);
    }
  }
  r.event_space = truncated(r.event_space, FTB_MAX_EVENTSPACE);
  r.event_name = truncated(r.event_name, FTB_MAX_EVENT_NAME);
  r.severity = truncated(r.severity, FTB_MAX_SEVERITY);
  r.client_jobid = truncated(r.client_jobid, FTB_MAX_CLIENT_JOBID);
  r.client_name = truncated(r.client_name, FTB_MAX_CLIENT_NAME);
  r.hostname = truncated(e.id.host, FTB_MAX_HOST_ADDR);
  r.pid = static_cast<pid_t>(e.id.pid);
  r.pid_starttime = startTimeText(e.id.process_start_ns);
  if (e.payload.size() > r.payload.size()) {
    warn("payload", "an event of " + std::to_string(e.payload.size()) + " payload bytes (" +
                        e.event_space + " " + e.event_name + ") was cut to the " +
                        std::to_string(r.payload.size()) + " bytes of an FTB 0.5 event");
  }
  std::memcpy(r.payload.data(), e.payload.data(), std::min(e.payload.size(), r.payload.size()));
  if (auto area = e.tags.find(kTagAreaTag); area != e.tags.end()) {
    const std::string bytes = hexDecode(area->second).value_or("");  // ours always decodes
    std::memcpy(r.dynamic_data.data(), bytes.data(), std::min(bytes.size(), r.dynamic_data.size()));
  }
  return r;
}

// ---------------------------------------------------------------- state

struct Declared {
  std::string name;      // as declared
  std::string severity;  // as declared
};

struct Subscription {
  uint64_t id = 0;
  Mask mask;
  Deliver deliver;  // empty: polling
  SubscriptionId sdk_id = 0;
};

// One FTB_Connect. The SDK client's dispatch thread calls onNotification and
// runs the user's callbacks itself: one thread per client, one callback at a
// time in arrival order, as the original's callback thread, without a second
// hand-off (a thread wake-up per event). A callback that disconnects its own
// client ends that thread after it returns (the SDK detaches it).
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  void onNotification(const Notification& notification);

  // Set before the connection is published in the library, then read-only.
  FTB_client_id_t id{};
  std::string event_space;
  int style = 0;
  std::size_t queue_capacity = kDefaultPollingQueueEvents;
  std::unique_ptr<Client> sdk;

  std::mutex mu;  // guards everything below
  std::vector<Declared> declared;
  uint16_t seqnum = 0;
  std::deque<ReceivedEvent> queue;  // polling
  uint64_t queue_dropped = 0;       // oldest events dropped from a full polling queue
  std::vector<Subscription> subscriptions;  // in subscription order
  std::deque<std::pair<std::string, uint64_t>> recent;  // dedup across subscriptions
  bool closing = false;
};

void Connection::onNotification(const Notification& n) {
  if (n.kind == Notification::Kind::kMissed) {
    warn("missed", "the agent dropped " + std::to_string(n.missed) + " events for client " +
                       event_space + " (its queue was full)");
    return;
  }
  const Event& e = n.event;
  std::pair<std::string, uint64_t> key(e.id.publisherKey(), e.id.seq);
  {
    std::lock_guard lock(mu);
    if (closing || std::find(recent.begin(), recent.end(), key) != recent.end()) return;
    recent.push_back(std::move(key));
    if (recent.size() > kRecentIds) recent.pop_front();
  }
  ReceivedEvent r = toReceived(e);
  std::unique_lock lock(mu);
  if (closing) return;
  bool matched = false;
  Deliver deliver;  // the first matching callback, in subscription order
  for (const auto& s : subscriptions) {
    if (!s.mask.matches(r)) continue;
    matched = true;
    if (s.deliver && (style & FTB_SUBSCRIPTION_NOTIFY)) {
      deliver = s.deliver;
      break;
    }
  }
  if (!matched) return;
  if (deliver) {
    lock.unlock();  // the callback may call the API, FTB_Disconnect included
    try {
      deliver(r);
    } catch (...) {
      warn("callback", "a subscription callback threw; the exception was ignored");
    }
    return;
  }
  if (!(style & FTB_SUBSCRIPTION_POLLING)) return;
  if (queue.size() >= queue_capacity) {
    queue.pop_front();
    ++queue_dropped;
    warn("queue-full", "Event queue is full: client " + event_space + " dropped its oldest event (" +
                           std::to_string(queue_dropped) + " so far; queue of " +
                           std::to_string(queue_capacity) +
                           "; poll faster or raise client_polling_queue_len / FTB_POLLING_QUEUE_LEN)");
  }
  queue.push_back(std::move(r));
}

struct TagEntry {
  uint8_t tag = 0;
  std::string data;
  FTB_client_id_t owner{};
};

struct Library {
  std::mutex connect_mu;  // serialises FTB_Connect, held across the SDK connect
  std::mutex mu;          // guards the members below
  std::vector<std::shared_ptr<Connection>> connections;
  std::vector<TagEntry> tags;
  std::atomic<uint64_t> next_subscription{1};
};

// Never destroyed: clients may still run threads while the program exits.
Library& library() {
  static Library* lib = new Library;
  return *lib;
}

int find(const FTB_client_id_t& id, std::shared_ptr<Connection>* out) {
  Library& lib = library();
  std::lock_guard lock(lib.mu);
  if (lib.connections.empty()) return FTB_ERR_GENERAL;
  for (const auto& c : lib.connections) {
    if (sameClient(c->id, id)) {
      *out = c;
      return FTB_SUCCESS;
    }
  }
  return FTB_ERR_INVALID_HANDLE;
}

std::size_t tagAreaUsed(const std::vector<TagEntry>& tags) {
  std::size_t used = 1;
  for (const auto& t : tags) used += 2 + t.data.size();
  return used;
}

// The serialized tag area: count, then (tag, len, data) per tag.
std::string tagArea() {
  Library& lib = library();
  std::lock_guard lock(lib.mu);
  if (lib.tags.empty()) return "";
  std::string area(1, static_cast<char>(lib.tags.size()));
  for (const auto& t : lib.tags) {
    area += static_cast<char>(t.tag);
    area += static_cast<char>(t.data.size());
    area += t.data;
  }
  return area;
}

// §3 for one entry; c.mu held.
int declareOne(Connection& c, const std::string& name, const std::string& severity,
               std::vector<EventDeclaration>* batch) {
  if (c.declared.size() >= kMaxDeclared) return FTB_ERR_GENERAL;
  if (name.size() >= FTB_MAX_EVENT_NAME || (!name.empty() && !isName(name))) {
    return FTB_ERR_INVALID_FIELD;
  }
  if (!isSeverity(severity)) return FTB_ERR_INVALID_FIELD;
  for (const auto& d : c.declared) {
    if (equalsIgnoreCase(d.name, name)) return FTB_SUCCESS;  // skip the duplicate only
  }
  c.declared.push_back({name, severity});
  // An empty name is declared (as in 0.6.2) but can never be published.
  if (!name.empty()) batch->push_back({name, *parseSeverity(severity)});
  return FTB_SUCCESS;
}

int sendDeclarations(Connection& c, const std::vector<EventDeclaration>& batch) {
  if (batch.empty()) return FTB_SUCCESS;
  return codeOf(c.sdk->declare(batch), "FTB_Declare_publishable_events");
}

std::string expandHome(const char* path) {
  std::string p(path);
  if (p.rfind("~/", 0) == 0) {
    if (const char* home = std::getenv("HOME"); home != nullptr) return home + p.substr(1);
  }
  return p;
}

// §4: the schema file, opened directly (no shell).
int declareSchema(const FTB_client_handle_t& handle, const char* path) {
  std::ifstream in(expandHome(path));
  if (!in) {
    warn("schema", std::string("cannot read schema file '") + path + "'");
    return FTB_ERR_INVALID_SCHEMA_FILE;
  }
  std::vector<std::string> tokens;
  for (std::string line; std::getline(in, line);) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    for (std::string w; words >> w;) tokens.push_back(w);
  }
  enum class State { kOutside, kSpace, kName, kSeverity } state = State::kOutside;
  bool seen_start = false;
  std::string name;
  std::shared_ptr<Connection> c;
  std::vector<EventDeclaration> batch;
  int rc = FTB_SUCCESS;
  for (const std::string& token : tokens) {
    if (state == State::kOutside) {
      if (token == "start") {
        seen_start = true;
        state = State::kSpace;
      } else {
        warn("schema-token", std::string("schema file '") + path + "': ignoring '" + token +
                                 "' outside a start ... end block");
      }
      continue;
    }
    if (token == "end") {
      state = State::kOutside;
      continue;
    }
    if (state == State::kSpace) {
      std::string region, comp_cat, comp;
      if (!splitEventSpace(token, &region, &comp_cat, &comp) ||
          !equalsIgnoreCase(region, fieldString(handle.client_id.region, FTB_MAX_EVENTSPACE)) ||
          !equalsIgnoreCase(comp_cat, fieldString(handle.client_id.comp_cat, FTB_MAX_EVENTSPACE)) ||
          !equalsIgnoreCase(comp, fieldString(handle.client_id.comp, FTB_MAX_EVENTSPACE))) {
        rc = FTB_ERR_INVALID_SCHEMA_FILE;
        break;
      }
      state = State::kName;
    } else if (state == State::kName) {
      name = token;
      state = State::kSeverity;
    } else {
      if (!c && (rc = find(handle.client_id, &c)) != FTB_SUCCESS) break;
      {
        std::lock_guard lock(c->mu);
        rc = declareOne(*c, name, token, &batch);
      }
      if (rc != FTB_SUCCESS) break;
      state = State::kName;
    }
  }
  if (rc == FTB_SUCCESS && (!seen_start || state != State::kOutside)) {
    rc = FTB_ERR_INVALID_SCHEMA_FILE;
  }
  const int sent = c ? sendDeclarations(*c, batch) : FTB_SUCCESS;
  return rc != FTB_SUCCESS ? rc : sent;
}

}  // namespace

// ---------------------------------------------------------------- API

int lookup(const FTB_client_id_t& client) {
  std::shared_ptr<Connection> c;
  return find(client, &c);
}

int connect(const FTB_client_t* info, FTB_client_handle_t* handle, const std::optional<LastWill>& will) {
  if (handle == nullptr || info == nullptr) return FTB_ERR_NULL_POINTER;
  if (will) {
    if (!normalizeEventName(will->event_name).ok()) return FTB_ERR_INVALID_EVENT_NAME;
    if (will->payload.size() >= FTB_MAX_PAYLOAD_DATA) return FTB_ERR_INVALID_VALUE;
  }
  const std::string style = fieldString(info->client_subscription_style, FTB_MAX_SUBSCRIPTION_STYLE);
  int bits;
  if (equalsIgnoreCase(style, "FTB_SUBSCRIPTION_POLLING")) {
    bits = FTB_SUBSCRIPTION_POLLING;
  } else if (equalsIgnoreCase(style, "FTB_SUBSCRIPTION_NOTIFY")) {
    bits = FTB_SUBSCRIPTION_NOTIFY;
  } else if (equalsIgnoreCase(style, "FTB_SUBSCRIPTION_BOTH")) {
    bits = FTB_SUBSCRIPTION_POLLING | FTB_SUBSCRIPTION_NOTIFY;
  } else if (equalsIgnoreCase(style, "FTB_SUBSCRIPTION_NONE")) {
    bits = FTB_SUBSCRIPTION_NONE;
  } else {
    return FTB_ERR_SUBSCRIPTION_STYLE;
  }
  const std::string space = fieldString(info->event_space, FTB_MAX_EVENTSPACE);
  std::string region, comp_cat, comp;
  if (!splitEventSpace(space, &region, &comp_cat, &comp)) return FTB_ERR_EVENTSPACE_FORMAT;
  const std::string name = fieldString(info->client_name, FTB_MAX_CLIENT_NAME);
  if (name.size() >= FTB_MAX_CLIENT_NAME) return FTB_ERR_INVALID_VALUE;
  const std::string jobid = fieldString(info->client_jobid, FTB_MAX_CLIENT_JOBID);
  if (jobid.size() >= FTB_MAX_CLIENT_JOBID) return FTB_ERR_INVALID_VALUE;

  auto conn = std::make_shared<Connection>();
  copyField(conn->id.region, sizeof conn->id.region, region);
  copyField(conn->id.comp_cat, sizeof conn->id.comp_cat, comp_cat);
  copyField(conn->id.comp, sizeof conn->id.comp, comp);
  copyField(conn->id.client_name, sizeof conn->id.client_name, name);
  conn->id.ext = 0;
  conn->event_space = space;
  conn->style = bits;
  conn->queue_capacity = info->client_polling_queue_len > 0
                             ? static_cast<std::size_t>(info->client_polling_queue_len)
                             : pollingQueueEvents();

  Library& lib = library();
  std::lock_guard connecting(lib.connect_mu);
  {
    std::lock_guard lock(lib.mu);
    for (const auto& c : lib.connections) {
      if (sameClient(c->id, conn->id)) return FTB_ERR_DUP_CALL;
    }
  }
  ClientOptions options;
  options.event_space = space;
  options.client_name = name.empty() ? kAnonymousClient : name;
  options.job_id = jobid;
  options.agent_endpoint = agentEndpoint();
  options.connect_timeout = connectTimeout();
  // FTB_Publish blocks while the SDK's buffer is full, as 0.6.2 blocked on its socket.
  options.publish_wait_for_room = publishTimeout();
  if (auto n = positiveSetting("FTB_PUBLISH_BUFFER_EVENTS")) {
    options.publish_buffer_events = static_cast<std::size_t>(*n);
  }
  options.last_will = will;
  auto sdk = Client::connect(std::move(options));
  if (!sdk.ok()) {
    warn("connect", "FTB_Connect(" + space + "): " + sdk.status().toString());
    return FTB_ERR_GENERAL;
  }
  conn->sdk = std::move(sdk).value();
  {
    std::lock_guard lock(lib.mu);
    lib.connections.push_back(conn);
  }
  std::memset(handle, 0, sizeof *handle);
  handle->valid = 1;
  handle->client_id = conn->id;
  return FTB_SUCCESS;
}

int declare(const FTB_client_handle_t& handle, const char* schema_file,
            const FTB_event_info_t* events, int num_events) {
  if (handle.valid != 1) return FTB_ERR_INVALID_HANDLE;
  if (schema_file != nullptr) return declareSchema(handle, schema_file);
  std::shared_ptr<Connection> c;
  if (int rc = find(handle.client_id, &c); rc != FTB_SUCCESS) return rc;
  // 0 declares nothing (0.6.2 warns and succeeds); a negative count is no count.
  if (num_events < 0) return FTB_ERR_INVALID_PARAMETER;
  if (num_events == 0) return FTB_SUCCESS;
  if (events == nullptr) return FTB_ERR_NULL_POINTER;
  std::vector<EventDeclaration> batch;
  int rc = FTB_SUCCESS;
  {
    std::lock_guard lock(c->mu);
    for (int i = 0; i < num_events && rc == FTB_SUCCESS; ++i) {
      rc = declareOne(*c, fieldString(events[i].event_name, FTB_MAX_EVENT_NAME),
                      fieldString(events[i].severity, FTB_MAX_SEVERITY), &batch);
    }
  }
  const int sent = sendDeclarations(*c, batch);
  return rc != FTB_SUCCESS ? rc : sent;
}

int publish(const FTB_client_handle_t& handle, const char* event_name,
            const FTB_event_properties_t* properties, FTB_event_handle_t* event_handle) {
  if (handle.valid != 1) return FTB_ERR_INVALID_HANDLE;
  if (event_handle == nullptr || event_name == nullptr) return FTB_ERR_NULL_POINTER;
  const std::string name = fieldString(event_name, FTB_MAX_EVENT_NAME);
  if (name.empty() || name.size() >= FTB_MAX_EVENT_NAME) return FTB_ERR_INVALID_EVENT_NAME;
  std::shared_ptr<Connection> c;
  if (int rc = find(handle.client_id, &c); rc != FTB_SUCCESS) return rc;
  std::string severity;
  {
    std::lock_guard lock(c->mu);
    for (const auto& d : c->declared) {
      if (equalsIgnoreCase(d.name, name)) severity = d.severity;
    }
  }
  if (severity.empty()) return FTB_ERR_INVALID_EVENT_NAME;
  if (properties != nullptr && properties->event_type != 1 && properties->event_type != 2) {
    return FTB_ERR_INVALID_EVENT_TYPE;
  }
  const uint8_t type = properties != nullptr ? properties->event_type : 1;
  // Trailing NULs are not sent; receivers pad the payload back to 368 bytes.
  std::string payload;
  if (properties != nullptr) {
    std::size_t n = sizeof properties->event_payload;
    while (n > 0 && properties->event_payload[n - 1] == '\0') --n;
    payload.assign(properties->event_payload, n);
  }
  uint16_t seqnum;
  {
    std::lock_guard lock(c->mu);
    seqnum = ++c->seqnum;
  }
  const std::string client_name = fieldString(c->id.client_name, FTB_MAX_CLIENT_NAME);
  Tags tags;
  tags[kMetaTag] = "1;" + std::to_string(seqnum) + ";" + std::to_string(type) + ";" +
                   c->event_space + ";" + name + ";" + severity + ";" + percentEncode(client_name);
  if (std::string area = tagArea(); !area.empty()) tags[kTagAreaTag] = hexEncode(area);
  Result<EventId> id = c->sdk->publish(name, payload, tags);

  std::memset(event_handle, 0, sizeof *event_handle);
  copyField(event_handle->event_name, sizeof event_handle->event_name, name);
  copyField(event_handle->severity, sizeof event_handle->severity, severity);
  event_handle->client_id = c->id;
  event_handle->seqnum = seqnum;
  if (id.ok()) {
    fillLocation(&event_handle->location_id, id->host, id->pid, id->process_start_ns);
  } else {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    fillLocation(&event_handle->location_id, host, static_cast<uint32_t>(getpid()),
                 ftb::localOrigin().process_start_ns());
  }
  return id.ok() ? FTB_SUCCESS : codeOf(id.status(), "FTB_Publish");
}

int disconnect(const FTB_client_handle_t& handle) {
  if (handle.valid != 1) return FTB_ERR_INVALID_HANDLE;
  Library& lib = library();
  std::shared_ptr<Connection> c;
  {
    std::lock_guard lock(lib.mu);
    if (lib.connections.empty()) return FTB_ERR_GENERAL;
    for (auto it = lib.connections.begin(); it != lib.connections.end(); ++it) {
      if (sameClient((*it)->id, handle.client_id)) {
        c = *it;
        lib.connections.erase(it);
        break;
      }
    }
    if (!c) return FTB_ERR_INVALID_HANDLE;
    std::erase_if(lib.tags, [&](const TagEntry& t) { return sameClient(t.owner, c->id); });
  }
  // Sends what is buffered first, so events published before FTB_Disconnect go out.
  const Status sent = c->sdk->disconnect(milliseconds(2000));
  {
    std::lock_guard lock(c->mu);
    c->closing = true;
    c->queue.clear();
    c->subscriptions.clear();
    c->declared.clear();
  }
  return codeOf(sent, "FTB_Disconnect");
}

int subscribe(const FTB_client_handle_t& handle, const char* subscription, Deliver deliver,
              const std::function<void(const Mask&, uint8_t type, uint64_t id)>& fill) {
  std::shared_ptr<Connection> c;
  if (int rc = find(handle.client_id, &c); rc != FTB_SUCCESS) return rc;
  const bool by_callback = static_cast<bool>(deliver);
  if (!(c->style & (by_callback ? FTB_SUBSCRIPTION_NOTIFY : FTB_SUBSCRIPTION_POLLING))) {
    return FTB_ERR_NOT_SUPPORTED;
  }
  Mask mask;
  if (int rc = parseSubscription(subscription, &mask); rc != FTB_SUCCESS) return rc;
  const uint64_t id = library().next_subscription.fetch_add(1);
  fill(mask, by_callback ? FTB_SUBSCRIPTION_NOTIFY : FTB_SUBSCRIPTION_POLLING, id);
  {
    std::lock_guard lock(c->mu);
    c->subscriptions.push_back({id, mask, std::move(deliver), 0});
  }
  SubscribeOptions options;
  options.filter = mask.agentFilter();
  std::weak_ptr<Connection> weak = c;
  options.callback = [weak](const Notification& n) {
    if (auto conn = weak.lock()) conn->onNotification(n);
  };
  Result<SubscriptionId> sdk_id = c->sdk->subscribe(std::move(options));
  std::lock_guard lock(c->mu);
  auto it = std::find_if(c->subscriptions.begin(), c->subscriptions.end(),
                         [&](const Subscription& s) { return s.id == id; });
  if (!sdk_id.ok()) {
    if (it != c->subscriptions.end()) c->subscriptions.erase(it);
    return codeOf(sdk_id.status(), "FTB_Subscribe");
  }
  if (it == c->subscriptions.end()) {
    (void)c->sdk->unsubscribe(*sdk_id);  // unsubscribed while we were registering it
  } else {
    it->sdk_id = *sdk_id;
  }
  return FTB_SUCCESS;
}

int unsubscribe(const FTB_client_id_t& client, uint64_t id, const Mask& mask) {
  std::shared_ptr<Connection> c;
  if (int rc = find(client, &c); rc != FTB_SUCCESS) return rc;
  SubscriptionId sdk_id = 0;
  {
    std::lock_guard lock(c->mu);
    auto it = std::find_if(c->subscriptions.begin(), c->subscriptions.end(),
                           [&](const Subscription& s) {
                             return id != 0 ? s.id == id : s.mask.sameAs(mask);
                           });
    if (it == c->subscriptions.end()) return FTB_SUCCESS;  // cancelled through a copy already
    sdk_id = it->sdk_id;
    c->subscriptions.erase(it);
  }
  if (sdk_id == 0) return FTB_SUCCESS;
  const Status s = c->sdk->unsubscribe(sdk_id);
  if (!s.ok() && s.code() != Code::kNotFound) return codeOf(s, "FTB_Unsubscribe");
  return FTB_SUCCESS;
}

int poll(const FTB_client_id_t& client, const Mask& mask, ReceivedEvent* event) {
  std::shared_ptr<Connection> c;
  if (int rc = find(client, &c); rc != FTB_SUCCESS) return rc;
  std::lock_guard lock(c->mu);
  if (!(c->style & FTB_SUBSCRIPTION_POLLING)) return FTB_ERR_NOT_SUPPORTED;
  for (auto it = c->queue.begin(); it != c->queue.end(); ++it) {
    if (mask.matches(*it)) {
      *event = std::move(*it);
      c->queue.erase(it);
      return FTB_SUCCESS;
    }
  }
  return FTB_GOT_NO_EVENT;
}

int addTag(const FTB_client_handle_t& handle, uint8_t tag, const char* data, uint8_t len) {
  if (handle.valid != 1) return FTB_ERR_INVALID_HANDLE;
  std::shared_ptr<Connection> c;
  if (int rc = find(handle.client_id, &c); rc != FTB_SUCCESS) return rc;
  if (data == nullptr && len > 0) return FTB_ERR_NULL_POINTER;
  Library& lib = library();
  std::lock_guard lock(lib.mu);
  const std::size_t used = tagAreaUsed(lib.tags);
  if (kTagAreaSize - used < static_cast<std::size_t>(len) + 2) return kErrTagNoSpace;
  for (auto& t : lib.tags) {
    if (t.tag != tag) continue;
    if (!sameClient(t.owner, c->id)) return kErrTagConflict;
    t.data.assign(data == nullptr ? "" : data, len);
    return FTB_SUCCESS;
  }
  lib.tags.push_back({tag, std::string(data == nullptr ? "" : data, len), c->id});
  return FTB_SUCCESS;
}

int removeTag(const FTB_client_handle_t& handle, uint8_t tag) {
  if (handle.valid != 1) return FTB_ERR_INVALID_HANDLE;
  std::shared_ptr<Connection> c;
  if (int rc = find(handle.client_id, &c); rc != FTB_SUCCESS) return rc;
  Library& lib = library();
  std::lock_guard lock(lib.mu);
  for (auto it = lib.tags.begin(); it != lib.tags.end(); ++it) {
    if (it->tag != tag) continue;
    if (!sameClient(it->owner, c->id)) return kErrTagConflict;
    lib.tags.erase(it);
    return FTB_SUCCESS;
  }
  return kErrTagNotFound;
}

}  // namespace ftb::ftb05
