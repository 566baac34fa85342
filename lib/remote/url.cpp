#include "lib/remote/url.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ckpt::remote {
namespace {

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUnreserved(char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int HexValue(char c) {
  if (IsAsciiDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 5.2.4.
std::string RemoveDotSegments(std::string_view input) {
  std::vector<std::string> out;
  const bool absolute = input.starts_with('/');
  const bool trailing = input.ends_with('/') || input.ends_with("/.") || input.ends_with("/..");
  std::size_t at = absolute ? 1 : 0;
  while (at <= input.size()) {
    const std::size_t slash = input.find('/', at);
    const std::string_view segment = input.substr(at, slash == std::string_view::npos ? slash : slash - at);
    if (segment == "..") {
      if (!out.empty()) out.pop_back();
    } else if (segment != ".") {
      out.emplace_back(segment);
    }
    if (slash == std::string_view::npos) break;
    at = slash + 1;
  }
  std::string path = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) path += '/';
    path += out[i];
  }
  if (trailing && !path.ends_with('/') && !out.empty() && !out.back().empty()) path += '/';
  return path;
}

std::string RedactQuery(std::string_view query) {
  std::string out;
  std::size_t at = 0;
  while (at <= query.size()) {
    const std::size_t amp = query.find('&', at);
    const std::string_view pair = query.substr(at, amp == std::string_view::npos ? amp : amp - at);
    if (!out.empty() || at > 0) out += '&';
    const std::size_t eq = pair.find('=');
    out += pair.substr(0, eq);
    if (eq != std::string_view::npos) out += "=REDACTED";
    if (amp == std::string_view::npos) break;
    at = amp + 1;
  }
  return out;
}

bool ValidPort(std::string_view port) {
  if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), IsAsciiDigit)) return false;
  const int value = std::stoi(std::string(port));
  return value >= 1 && value <= 65535;
}

// Printable bytes that may appear in a URL as sent: no space, no control, no non-ASCII.
bool ValidUrlBytes(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f && c != '"' && c != '<' && c != '>' && c != '\\' && c != '^' && c != '`' && c != '{' &&
           c != '|' && c != '}';
  });
}

}  // namespace

std::string Url::Origin() const {
  const std::string effective = port.empty() ? (scheme == "https" ? "443" : "80") : port;
  return scheme + "://" + host + ":" + effective;
}

std::string Url::ForRequest() const {
  return scheme + "://" + host + (port.empty() ? "" : ":" + port) + path + (query ? "?" + *query : "");
}

std::string Url::Redacted() const {
  return scheme + "://" + host + (port.empty() ? "" : ":" + port) + path + (query ? "?" + RedactQuery(*query) : "");
}

std::string Url::FileName() const {
  const std::size_t slash = path.rfind('/');
  const std::string_view last = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  return PercentDecode(last).value_or(std::string(last));
}

bool IsRemoteArgument(std::string_view argument) {
  return argument.starts_with("https://") || argument.starts_with("http://") || argument.starts_with("hf://");
}

bool IsRemoteFolderArgument(std::string_view argument) {
  if (argument.starts_with("hf://")) return true;
  if (!IsRemoteArgument(argument)) return false;
  const std::optional<Url> url = ParseUrl(argument);
  return url && url->path.ends_with('/');
}

bool LooksLikeUrl(std::string_view argument) {
  const std::size_t sep = argument.find("://");
  if (sep == std::string_view::npos || sep == 0 || !IsAsciiAlpha(argument[0])) return false;
  return std::all_of(argument.begin(), argument.begin() + static_cast<std::ptrdiff_t>(sep),
                     [](char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '+' || c == '.' || c == '-'; });
}

std::optional<Url> ParseUrl(std::string_view text, std::string* why) {
  auto fail = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return std::optional<Url>();
  };
  Url url;
  if (text.starts_with("https://")) {
    url.scheme = "https";
  } else if (text.starts_with("http://")) {
    url.scheme = "http";
  } else {
    return fail("not an http:// or https:// URL");
  }
  if (!ValidUrlBytes(text)) return fail("a URL holds only printable ASCII without spaces");
  if (text.find('#') != std::string_view::npos) return fail("a URL with a fragment (#) names no file");
  std::string_view rest = text.substr(url.scheme.size() + 3);
  const std::size_t authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  rest = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    url.userinfo = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail("an unterminated IPv6 address");
    url.host = Lower(authority.substr(0, close + 1));
    authority = authority.substr(close + 1);
    if (!authority.empty()) {
      if (!authority.starts_with(':')) return fail("a malformed host");
      url.port = std::string(authority.substr(1));
      if (!ValidPort(url.port)) return fail("a malformed port");
    }
  } else {
    const std::size_t colon = authority.find(':');
    url.host = Lower(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      url.port = std::string(authority.substr(colon + 1));
      if (!ValidPort(url.port)) return fail("a malformed port");
    }
    const bool host_ok = !url.host.empty() && std::all_of(url.host.begin(), url.host.end(), [](char c) {
      return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '-' || c == '.' || c == '_';
    });
    if (!host_ok) return fail("a malformed host");
  }
  if (url.host.empty() || url.host == "[]") return fail("no host");
  const std::size_t question = rest.find('?');
  url.path = std::string(rest.substr(0, question));
  if (url.path.empty()) url.path = "/";
  if (question != std::string_view::npos) url.query = std::string(rest.substr(question + 1));
  return url;
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "[::1]") return true;
  // Four decimal parts, each 0..255 without leading zeros, the first 127.
  std::vector<int> parts;
  std::size_t at = 0;
  while (at <= host.size()) {
    const std::size_t dot = host.find('.', at);
    const std::string part = host.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    if (part.empty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), IsAsciiDigit)) return false;
    if (part.size() > 1 && part[0] == '0') return false;
    parts.push_back(std::stoi(part));
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  return parts.size() == 4 && parts[0] == 127 &&
         std::all_of(parts.begin(), parts.end(), [](int p) { return p <= 255; });
}

std::string RefusalOf(const Url& url) {
  if (url.scheme == "http" && !IsLoopbackHost(url.host)) return std::string(kPlainHttpRefusal);
  return {};
}

std::optional<Url> Resolve(const Url& base, std::string_view reference) {
  if (LooksLikeUrl(reference)) return ParseUrl(reference);
  if (reference.starts_with("//")) return ParseUrl(base.scheme + ":" + std::string(reference));
  if (reference.find('#') != std::string_view::npos || !ValidUrlBytes(reference)) return std::nullopt;
  Url out = base;
  const std::size_t question = reference.find('?');
  const std::string_view path = reference.substr(0, question);
  out.query =
      question == std::string_view::npos ? std::nullopt : std::optional<std::string>(reference.substr(question + 1));
  if (path.empty()) {
    if (question == std::string_view::npos) out.query = base.query;
  } else if (path.starts_with('/')) {
    out.path = RemoveDotSegments(path);
  } else {
    const std::size_t slash = base.path.rfind('/');
    out.path = RemoveDotSegments(base.path.substr(0, slash + 1) + std::string(path));
  }
  if (out.path.empty()) out.path = "/";
  return out;
}

std::string PercentEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out += c;
    } else {
      const auto u = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::optional<std::string> PercentDecode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int hi = HexValue(text[i + 1]);
    const int lo = HexValue(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string RedactUrl(std::string_view text) {
  if (text.starts_with("hf://")) {
    const std::size_t question = text.find('?');
    return question == std::string_view::npos
               ? std::string(text)
               : std::string(text.substr(0, question + 1)) + RedactQuery(text.substr(question + 1));
  }
  if (!(text.starts_with("https://") || text.starts_with("http://"))) return std::string(text);
  if (auto url = ParseUrl(text)) return url->Redacted();
  // Malformed: still never print userinfo or query values.
  std::string_view rest = text.substr(text.find("://") + 3);
  const std::string scheme(text.substr(0, text.find("://") + 3));
  const std::size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  std::string_view tail = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  tail = tail.substr(0, tail.find('#'));
  const std::size_t question = tail.find('?');
  return scheme + std::string(authority) + std::string(tail.substr(0, question)) +
         (question == std::string_view::npos ? "" : "?" + RedactQuery(tail.substr(question + 1)));
}

}  // namespace ckpt::remote
