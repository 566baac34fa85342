// Members of the Sigstore JSON documents (bundles, trusted roots, Rekor entries) as protobuf's
// JSON mapping writes them: bytes as standard base64 strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lib/core/base64.h"
#include "lib/json/json_value.h"

namespace ckpt::oms {

/// The bytes of `object`'s string member `key`, standard base64 with padding; nullopt when
/// it is absent, not a string or not such base64.
inline std::optional<std::string> Base64Member(const json::Value& object, std::string_view key) {
  auto text = object.FindString(key);
  if (!text) return std::nullopt;
  return Base64Decode(*text, Base64Alphabet::kStandard);
}

}  // namespace ckpt::oms
