// URLs as the remote inputs meet them (remote.md sections 1 and 9): which arguments are
// remote, their parts, the loopback rule for plain http, reference resolution for
// redirects and relative names, percent-encoding, and the redacted form every output uses.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ckpt::remote {

/// An absolute http(s) URL, split as RFC 3986 does (no fragment: refused).
struct Url {
  std::string scheme;    ///< "https" or "http"
  std::string userinfo;  ///< as written (percent-encoded), may be empty
  std::string host;      ///< lower-cased; an IPv6 literal keeps its brackets
  std::string port;      ///< digits as written, empty when none
  std::string path;      ///< "/" at least
  std::optional<std::string> query;

  /// scheme://host:port with the scheme's default port filled in: what credentials belong to.
  [[nodiscard]] std::string Origin() const;
  /// The URL as sent: userinfo removed (it travels as a header), query kept.
  [[nodiscard]] std::string ForRequest() const;
  /// The URL as printed: no userinfo, every query value replaced by REDACTED.
  [[nodiscard]] std::string Redacted() const;
  /// The last path segment, percent-decoded (a single file's name).
  [[nodiscard]] std::string FileName() const;
};

/// True when `argument` is a remote input: starts with "https://", "http://" or "hf://".
bool IsRemoteArgument(std::string_view argument);
/// True when the remote `argument` names a folder, as OpenRemote reads it: an hf:// repository
/// (or a folder of one), or an http(s) URL whose path ends in '/' (a Lensemble directory).
bool IsRemoteFolderArgument(std::string_view argument);
/// True when `argument` starts like some URL (SCHEME://): one that is not a remote input
/// is a usage error, never a local path.
bool LooksLikeUrl(std::string_view argument);

/// Parses an absolute http(s) URL; nullopt with `why` set when it is malformed.
std::optional<Url> ParseUrl(std::string_view text, std::string* why = nullptr);
/// True when the host is loopback as the plain-http rule allows: 127.x.y.z written as four
/// decimal parts, [::1], or localhost.
bool IsLoopbackHost(const std::string& host);
/// Empty when `url` may be requested; otherwise why not (plain http to another host).
std::string RefusalOf(const Url& url);
inline constexpr std::string_view kPlainHttpRefusal = "plain http:// is allowed only to a loopback host";

/// `reference` (a Location value, a relative file name) resolved against `base` (RFC 3986 5.2).
std::optional<Url> Resolve(const Url& base, std::string_view reference);

/// Percent-encoding of everything but unreserved characters (and '/' when `keep_slash`).
std::string PercentEncode(std::string_view text, bool keep_slash);
/// %XX decoded; nullopt on a malformed escape.
std::optional<std::string> PercentDecode(std::string_view text);

/// Any URL-bearing text made printable: userinfo dropped, query values REDACTED. Text that
/// is no URL is returned as it is.
std::string RedactUrl(std::string_view text);

}  // namespace ckpt::remote
