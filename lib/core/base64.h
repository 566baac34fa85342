// Base64 (RFC 4648) for DSSE envelopes and PEM keys: standard alphabet with padding when
// writing; strict when reading (no whitespace, no stray padding, unused bits zero).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

/// Standard alphabet, padded.
std::string Base64Encode(std::string_view bytes);

enum class Base64Alphabet {
  kStandard,       ///< '+' '/' with '=' padding (PEM)
  kStandardOrUrl,  ///< either alphabet (not mixed), padding optional (DSSE allows both)
};

/// The decoded bytes, or nullopt for anything that is not canonical base64 of the alphabet:
/// a character outside it, a wrong length or padding, or non-zero bits after the last byte.
std::optional<std::string> Base64Decode(std::string_view text, Base64Alphabet alphabet = Base64Alphabet::kStandard);

}  // namespace ckpt
