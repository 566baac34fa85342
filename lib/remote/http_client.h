// One GET as remote.md sections 4, 6 and 8 pin it, on libcurl: redirects followed hop by hop
// by the tool (at most 5, never https to http, the loopback rule on every hop), credentials
// and the file's condition sent only to the origin they belong to, bounded retries with
// Retry-After, connect and stall timeouts, TLS always verified (--ca-file adds CAs), no
// cookies, no Referer. Every body byte and request is counted for the input's report.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/remote/url.h"

namespace ckpt::remote {

struct RemoteOptions {
  std::vector<std::string> ca_files;  ///< PEM files added to the system store
  int connect_timeout_s = 10;
  int stall_timeout_s = 30;
  std::string hf_endpoint = "https://huggingface.co";  ///< $HF_ENDPOINT, trailing '/' removed
  std::string hf_token;                                ///< $HF_TOKEN (never printed)
};

/// What one input's remote reads cost.
struct TransferCounters {
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> requests{0};
};

struct HttpRequest {
  Url url;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> range;  ///< inclusive
  /// "If-Match: X" or "If-Unmodified-Since: X", sent only to `condition_origin`.
  std::string condition;
  std::string condition_origin;
  /// "Authorization: ..." and the only origin it may reach.
  std::string authorization;
  std::string authorization_origin;
  /// Set by another thread to stop the transfer at once (even while the server is silent).
  const std::atomic<bool>* cancel = nullptr;
};

struct HttpResponse {
  long status = 0;
  std::string reason;                          ///< "Not Found"
  std::map<std::string, std::string> headers;  ///< of the response that served, names lower-cased
  Url served_by;                               ///< the last hop
  std::string error;                           ///< non-empty: a tool error ("REDACTED-URL: WHAT")
  bool stopped = false;                        ///< the body sink asked to stop (the connection was closed)

  [[nodiscard]] const std::string* Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? nullptr : &it->second;
  }
};

/// Receives a 2xx body as it arrives; false stops the transfer (closing the connection).
using BodySink = std::function<bool(std::span<const std::byte>)>;

/// Sees a 2xx answer's status and headers before its first body byte; false stops it.
using HeadersCheck = std::function<bool(long status, const std::map<std::string, std::string>& headers)>;

/// Sends `request` (following redirects), giving the body of a 2xx answer to `sink`. Other
/// answers' bodies are counted and dropped. Retries 429/502/503/504 as the spec says.
HttpResponse Get(const HttpRequest& request, const RemoteOptions& options, TransferCounters& counters,
                 const BodySink& sink, const HeadersCheck& check = nullptr);

/// "HTTP 404 Not Found"
std::string DescribeStatus(long status, const std::string& reason);

/// The Authorization header a URL's userinfo stands for (Basic), or empty.
std::string BasicAuthorization(const Url& url);

/// Body bytes received by every request of this process (for --progress).
std::uint64_t BytesReceived();

/// False in a build without libcurl (CKPT_REMOTE=OFF).
bool RemoteInputsBuiltIn();

}  // namespace ckpt::remote
