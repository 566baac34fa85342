#include "lib/formats/layout.h"

#include <cstdio>

namespace ckpt {
namespace {

std::optional<std::uint32_t> FiveDigits(std::string_view text) {
  if (text.size() != 5) return std::nullopt;
  std::uint32_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return value;
}

}  // namespace

std::optional<ShardName> ParseShardName(std::string_view name) {
  constexpr std::string_view kPrefix = "weights-";
  constexpr std::string_view kMiddle = "-of-";
  constexpr std::string_view kSuffix = ".safetensors";
  if (name.size() != kPrefix.size() + 5 + kMiddle.size() + 5 + kSuffix.size()) return std::nullopt;
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  if (name.substr(kPrefix.size() + 5, kMiddle.size()) != kMiddle) return std::nullopt;
  if (name.substr(name.size() - kSuffix.size()) != kSuffix) return std::nullopt;
  auto index = FiveDigits(name.substr(kPrefix.size(), 5));
  auto count = FiveDigits(name.substr(kPrefix.size() + 5 + kMiddle.size(), 5));
  if (!index || !count) return std::nullopt;
  return ShardName{*index, *count};
}

std::string MakeShardName(std::uint32_t index, std::uint32_t count) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "weights-%05u-of-%05u.safetensors", index, count);
  return buf;
}

bool IsWeightFileName(std::string_view name) {
  return name == kSingleWeightsFileName || ParseShardName(name).has_value();
}

std::optional<std::string> PathEscapeReason(std::string_view name) {
  if (name.find('\0') != std::string_view::npos) return "contains a NUL byte";
  if (!name.empty() && name.front() == '/') return "is an absolute path";
  if (name.size() >= 2 && name[1] == ':' &&
      ((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z'))) {
    return "has a drive prefix";
  }
  if (name.find("..") != std::string_view::npos) return "contains '..'";
  if (name.find('/') != std::string_view::npos) return "contains '/'";
  if (name.find('\\') != std::string_view::npos) return "contains '\\'";
  return std::nullopt;
}

bool ClaimsSafetensors(std::string_view name) { return name.ends_with(".safetensors"); }

bool IsSafetensorsFileName(std::string_view name) {
  return ClaimsSafetensors(name) && name.size() > std::string_view(".safetensors").size();
}

}  // namespace ckpt
