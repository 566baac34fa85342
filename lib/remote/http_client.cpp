#include "lib/remote/http_client.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <type_traits>

#include "lib/core/base64.h"

namespace ckpt::remote {
namespace {

// libcurl is opened on the first remote request, not at start-up: a run over local inputs pays
// neither its load time nor the megabytes its libraries (TLS, HTTP/2, ...) keep resident.
struct CurlApi {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_reset) easy_reset = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_getdate) getdate = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  std::string error;  ///< why it could not be loaded (empty: loaded)
};

const CurlApi& Api() {
  static const CurlApi api = [] {
    CurlApi out;
    void* library = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = ::dlerror();
      out.error =
          std::string("libcurl cannot be loaded (") + (why != nullptr ? why : "libcurl.so.4") + "): install libcurl4";
      return out;
    }
    auto load = [&](auto& slot, const char* name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(::dlsym(library, name));
      if (slot == nullptr && out.error.empty()) out.error = std::string("libcurl lacks ") + name;
    };
    load(out.global_init, "curl_global_init");
    load(out.easy_init, "curl_easy_init");
    load(out.easy_cleanup, "curl_easy_cleanup");
    load(out.easy_getinfo, "curl_easy_getinfo");
    load(out.easy_reset, "curl_easy_reset");
    load(out.easy_setopt, "curl_easy_setopt");
    load(out.easy_perform, "curl_easy_perform");
    load(out.easy_strerror, "curl_easy_strerror");
    load(out.getdate, "curl_getdate");
    load(out.slist_append, "curl_slist_append");
    load(out.slist_free_all, "curl_slist_free_all");
    return out;
  }();
  return api;
}

constexpr int kMaxRedirects = 5;
constexpr int kMaxAttempts = 4;
constexpr int kMaxConnectionsPerOrigin = 4;
constexpr std::uint64_t kDroppedBodyLimit = 65536;  // of an error or redirect body

std::once_flag curl_init_once;
std::atomic<std::uint64_t> received_in_process{0};

void InitCurl() {
  std::call_once(curl_init_once, [] { Api().global_init(CURL_GLOBAL_DEFAULT); });
}

// At most four requests in flight per origin (remote.md section 4).
class OriginSlots {
 public:
  void Acquire(const std::string& origin) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return in_flight_[origin] < kMaxConnectionsPerOrigin; });
    ++in_flight_[origin];
  }
  void Release(const std::string& origin) {
    {
      std::lock_guard lock(mutex_);
      --in_flight_[origin];
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, int> in_flight_;
};

OriginSlots& Slots() {
  static OriginSlots slots;
  return slots;
}

// Idle easy handles keep their connections for the next request.
class HandlePool {
 public:
  HandlePool() = default;
  HandlePool(const HandlePool&) = delete;
  HandlePool& operator=(const HandlePool&) = delete;
  ~HandlePool() {
    for (CURL* handle : idle_) Api().easy_cleanup(handle);  // their connections close at exit
  }
  CURL* Take() {
    std::lock_guard lock(mutex_);
    if (idle_.empty()) return Api().easy_init();
    CURL* handle = idle_.back();
    idle_.pop_back();
    return handle;
  }
  void Give(CURL* handle, bool reusable) {
    if (!reusable || handle == nullptr) {
      if (handle != nullptr) Api().easy_cleanup(handle);
      return;
    }
    std::lock_guard lock(mutex_);
    if (idle_.size() >= 8) {
      Api().easy_cleanup(handle);
      return;
    }
    idle_.push_back(handle);
  }

 private:
  std::mutex mutex_;
  std::vector<CURL*> idle_;
};

HandlePool& Pool() {
  static HandlePool pool;
  return pool;
}

std::string SystemCaBundle() {
  static const std::string bundle = [] {
    CURL* probe = Api().easy_init();
    char* path = nullptr;
    std::string text;
    if (probe != nullptr && Api().easy_getinfo(probe, CURLINFO_CAINFO, &path) == CURLE_OK && path != nullptr) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream all;
      all << in.rdbuf();
      text = all.str();
    }
    if (probe != nullptr) Api().easy_cleanup(probe);
    return text;
  }();
  return bundle;
}

struct Exchange {
  const BodySink* sink = nullptr;
  const HeadersCheck* check = nullptr;
  TransferCounters* counters = nullptr;
  long status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;
  bool deliver = false;        // a 2xx: the body goes to the sink
  bool decided = false;        // the status is known
  bool stopped = false;        // the sink asked to stop
  std::uint64_t dropped = 0;   // bytes of a body not delivered
  std::uint64_t received = 0;  // body bytes of this hop
};

std::size_t OnHeader(char* data, std::size_t size, std::size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const std::size_t length = size * count;
  std::string_view line(data, length);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.starts_with("HTTP/")) {  // a new response (after a 1xx)
    ex->headers.clear();
    ex->reason.clear();
    const std::size_t first = line.find(' ');
    if (first != std::string_view::npos) {
      const std::size_t second = line.find(' ', first + 1);
      if (second != std::string_view::npos) ex->reason = std::string(line.substr(second + 1));
    }
    return length;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return length;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  ex->headers[name] = std::string(value);
  return length;
}

std::size_t OnBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const std::size_t length = size * count;
  ex->counters->bytes += length;
  received_in_process.fetch_add(length, std::memory_order_relaxed);
  ex->received += length;
  if (!ex->deliver) {
    ex->dropped += length;
    return ex->dropped > kDroppedBodyLimit ? 0 : length;  // an error body is not read on and on
  }
  if (!(*ex->sink)(std::as_bytes(std::span<const char>(data, length)))) {
    ex->stopped = true;
    return 0;
  }
  return length;
}

// Stops a transfer whose reader went away, without waiting for the next body byte.
int OnProgress(void* user, curl_off_t /*dltotal*/, curl_off_t /*dlnow*/, curl_off_t /*ultotal*/, curl_off_t /*ulnow*/) {
  const auto* cancel = static_cast<const std::atomic<bool>*>(user);
  return cancel != nullptr && cancel->load(std::memory_order_relaxed) ? 1 : 0;
}

bool IsRedirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}
bool IsRetried(long status) { return status == 429 || status == 502 || status == 503 || status == 504; }

// Retry-After: delta-seconds or an HTTP date; capped at 60 s.
std::chrono::milliseconds RetryDelay(const std::map<std::string, std::string>& headers, int attempt) {
  const std::chrono::milliseconds fallback(1000LL << attempt);  // 1 s, 2 s, 4 s
  auto it = headers.find("retry-after");
  if (it == headers.end()) return fallback;
  const std::string& value = it->second;
  if (!value.empty() && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const long long seconds = value.size() > 4 ? 60 : std::stoll(value);
    return std::chrono::milliseconds(std::min(seconds, 60LL) * 1000);
  }
  const time_t when = Api().getdate(value.c_str(), nullptr);
  if (when < 0) return fallback;
  const long long delta = static_cast<long long>(when) - static_cast<long long>(std::time(nullptr));
  return std::chrono::milliseconds(std::clamp(delta, 0LL, 60LL) * 1000);
}

const char* StandardReason(long status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 410:
      return "Gone";
    case 412:
      return "Precondition Failed";
    case 416:
      return "Range Not Satisfiable";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

struct HopResult {
  Exchange exchange;
  CURLcode code = CURLE_OK;
  std::string curl_error;
};

HopResult PerformHop(const Url& url, const HttpRequest& request, const RemoteOptions& options,
                     TransferCounters& counters, const BodySink& sink, const HeadersCheck& check) {
  HopResult hop;
  hop.exchange.sink = &sink;
  hop.exchange.check = &check;
  hop.exchange.counters = &counters;
  CURL* curl = Pool().Take();
  if (curl == nullptr) {
    hop.code = CURLE_FAILED_INIT;
    hop.curl_error = "cannot start libcurl";
    return hop;
  }
  Api().easy_reset(curl);
  const std::string target = url.ForRequest();
  const std::string origin = url.Origin();
  curl_slist* headers = nullptr;
  headers = Api().slist_append(headers, "Accept-Encoding: identity");
  headers = Api().slist_append(headers, "Expect:");
  std::string range;
  if (request.range) {
    range = "Range: bytes=" + std::to_string(request.range->first) + "-" + std::to_string(request.range->second);
    headers = Api().slist_append(headers, range.c_str());
  }
  if (!request.condition.empty() && origin == request.condition_origin) {
    headers = Api().slist_append(headers, request.condition.c_str());
  }
  if (!request.authorization.empty() && origin == request.authorization_origin) {
    headers = Api().slist_append(headers, request.authorization.c_str());
  }
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_slist* resolve = nullptr;
  if (url.host == "localhost") {  // connected only to the loopback addresses
    const std::string port = url.port.empty() ? (url.scheme == "https" ? "443" : "80") : url.port;
    const std::string pin = "localhost:" + port + ":127.0.0.1";
    resolve = Api().slist_append(resolve, pin.c_str());
    Api().easy_setopt(curl, CURLOPT_RESOLVE, resolve);
  }
  const std::string user_agent = std::string("ckpt-audit/") + CKPT_VERSION;
  Api().easy_setopt(curl, CURLOPT_URL, target.c_str());
  Api().easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  Api().easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  Api().easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  Api().easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  Api().easy_setopt(curl, CURLOPT_USERAGENT, user_agent.c_str());
  Api().easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  Api().easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  Api().easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, static_cast<long>(options.connect_timeout_s));
  Api().easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  Api().easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.stall_timeout_s));
  Api().easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  Api().easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  Api().easy_setopt(curl, CURLOPT_SSLVERSION, static_cast<long>(CURL_SSLVERSION_TLSv1_2));
  Api().easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024);
  if (request.cancel != nullptr) {
    Api().easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    Api().easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    Api().easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(request.cancel));
  }
  Api().easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  Api().easy_setopt(curl, CURLOPT_HEADERDATA, &hop.exchange);
  std::string ca_blob;
  if (!options.ca_files.empty()) {  // added to the system store, never replacing it
    ca_blob = SystemCaBundle();
    for (const std::string& file : options.ca_files) {
      std::ifstream in(file, std::ios::binary);
      std::ostringstream all;
      all << in.rdbuf();
      ca_blob += "\n" + all.str();
    }
    curl_blob blob{ca_blob.data(), ca_blob.size(), CURL_BLOB_NOCOPY};
    Api().easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
  }
  Slots().Acquire(origin);
  counters.requests += 1;
  // The write callback learns the status from the handle: headers are complete by then.
  struct Decider {
    static std::size_t Body(char* data, std::size_t size, std::size_t count, void* user) {
      auto* pair = static_cast<std::pair<CURL*, Exchange*>*>(user);
      Exchange* ex = pair->second;
      if (!ex->decided) {
        Api().easy_getinfo(pair->first, CURLINFO_RESPONSE_CODE, &ex->status);
        ex->deliver = ex->status >= 200 && ex->status < 300;
        ex->decided = true;
        if (ex->deliver && ex->check != nullptr && *ex->check && !(*ex->check)(ex->status, ex->headers)) {
          ex->stopped = true;
          return 0;
        }
      }
      return OnBody(data, size, count, ex);
    }
  };
  std::pair<CURL*, Exchange*> decider{curl, &hop.exchange};
  Api().easy_setopt(curl, CURLOPT_WRITEFUNCTION, Decider::Body);
  Api().easy_setopt(curl, CURLOPT_WRITEDATA, &decider);
  hop.code = Api().easy_perform(curl);
  Slots().Release(origin);
  long status = 0;
  Api().easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  hop.exchange.status = status;
  if (hop.code != CURLE_OK) hop.curl_error = error_buffer[0] != '\0' ? error_buffer : Api().easy_strerror(hop.code);
  Api().slist_free_all(headers);
  Api().slist_free_all(resolve);
  // A transfer stopped mid-body closed its connection: the handle is clean to reuse.
  Pool().Give(curl, hop.code == CURLE_OK || hop.exchange.stopped);
  return hop;
}

std::string TransportError(const HopResult& hop, const RemoteOptions& options) {
  switch (hop.code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
      return "TLS: " + hop.curl_error;
    case CURLE_OPERATION_TIMEDOUT:
      return hop.exchange.status == 0 && hop.exchange.received == 0
                 ? "timed out (connect timeout " + std::to_string(options.connect_timeout_s) + " s): " + hop.curl_error
                 : "timed out: no body byte for " + std::to_string(options.stall_timeout_s) + " s";
    default:
      return hop.curl_error;
  }
}

}  // namespace

std::string DescribeStatus(long status, const std::string& reason) {
  const std::string text = reason.empty() ? StandardReason(status) : reason;
  return "HTTP " + std::to_string(status) + (text.empty() ? "" : " " + text);
}

std::string BasicAuthorization(const Url& url) {
  if (url.userinfo.empty()) return {};
  const std::size_t colon = url.userinfo.find(':');
  const std::string user = PercentDecode(url.userinfo.substr(0, colon)).value_or(url.userinfo.substr(0, colon));
  const std::string password =
      colon == std::string::npos ? "" : PercentDecode(url.userinfo.substr(colon + 1)).value_or("");
  return "Authorization: Basic " + Base64Encode(user + ":" + password);
}

bool RemoteInputsBuiltIn() { return true; }

std::uint64_t BytesReceived() { return received_in_process.load(std::memory_order_relaxed); }

HttpResponse Get(const HttpRequest& request, const RemoteOptions& options, TransferCounters& counters,
                 const BodySink& sink, const HeadersCheck& check) {
  HttpResponse response;
  if (!Api().error.empty()) {
    response.error = request.url.Redacted() + ": " + Api().error;
    return response;
  }
  InitCurl();
  Url current = request.url;
  for (int hop = 0;; ++hop) {
    if (const std::string refusal = RefusalOf(current); !refusal.empty()) {
      response.error = current.Redacted() + ": " + refusal;
      return response;
    }
    HopResult result;
    for (int attempt = 0;; ++attempt) {
      result = PerformHop(current, request, options, counters, sink, check);
      const bool closed_early =
          (result.code == CURLE_GOT_NOTHING || result.code == CURLE_RECV_ERROR || result.code == CURLE_SEND_ERROR) &&
          result.exchange.status == 0 && result.exchange.received == 0;
      if (closed_early && attempt == 0) continue;  // a connection the server closed before answering: once
      const bool retried = result.code == CURLE_OK && IsRetried(result.exchange.status);
      if (!retried || attempt + 1 >= kMaxAttempts) break;
      std::this_thread::sleep_for(RetryDelay(result.exchange.headers, attempt));
    }
    response.served_by = current;
    response.status = result.exchange.status;
    response.reason = result.exchange.reason;
    response.headers = result.exchange.headers;
    response.stopped = result.exchange.stopped;
    if (result.code != CURLE_OK && !result.exchange.stopped) {
      // An error or redirect body over its bound was cut on purpose: the status stands.
      const bool cut_body = result.code == CURLE_WRITE_ERROR && !result.exchange.deliver && result.exchange.decided;
      if (!cut_body) {
        response.error = current.Redacted() + ": " + TransportError(result, options);
        return response;
      }
    }
    if (!IsRedirect(response.status)) return response;
    if (hop + 1 > kMaxRedirects) {
      response.error = request.url.Redacted() + ": too many redirects";
      return response;
    }
    const std::string* location = response.Header("location");
    std::optional<Url> next = location == nullptr ? std::nullopt : Resolve(current, *location);
    if (!next) {
      response.error =
          current.Redacted() + ": " + DescribeStatus(response.status, response.reason) + " without a usable Location";
      return response;
    }
    if (current.scheme == "https" && next->scheme == "http") {
      response.error = current.Redacted() + ": a redirect from https to http (" + next->Redacted() + ") is refused";
      return response;
    }
    current = std::move(*next);
  }
}

}  // namespace ckpt::remote
